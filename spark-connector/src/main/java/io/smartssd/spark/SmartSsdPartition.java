package io.smartssd.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One extent of one object; the device applies Hadoop's record/line ownership rules at its edges. A
 * Parquet object with several row groups is read by one partition per group of them: rowGroups lists
 * that partition's (footer indexes); null = every row group of the object. footer: the Parquet object's
 * footer bytes as the driver read them when the table was created (the device checks the object still
 * ends with them), or null for the reader to read them. offload: with option offload host or auto, the
 * partition's placement ({@code OffloadPlan.only(i).encode()}: device or host), else null (the device).
 */
record SmartSsdPartition(String uri, long objectId, long offset, long length, String host, int[] rowGroups,
                         byte[] footer, String offload) implements InputPartition {
    SmartSsdPartition(String uri, long objectId, long offset, long length, String host) {
        this(uri, objectId, offset, length, host, null, null, null);
    }

    SmartSsdPartition(String uri, long objectId, long offset, long length, String host, int[] rowGroups,
                      byte[] footer) {
        this(uri, objectId, offset, length, host, rowGroups, footer, null);
    }

    /** This partition placed by the offload planner. */
    SmartSsdPartition withOffload(String placement) {
        return new SmartSsdPartition(uri, objectId, offset, length, host, rowGroups, footer, placement);
    }

    @Override
    public String[] preferredLocations() {
        return new String[] {host};
    }
}
