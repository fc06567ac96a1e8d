package io.smartssd.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One extent of one object; the device applies Hadoop's record/line ownership rules at its edges. A
 * Parquet object with several row groups is read by one partition per group of them: rowGroups lists
 * that partition's (footer indexes); null = every row group of the object.
 */
record SmartSsdPartition(String uri, long objectId, long offset, long length, String host, int[] rowGroups)
        implements InputPartition {
    SmartSsdPartition(String uri, long objectId, long offset, long length, String host) {
        this(uri, objectId, offset, length, host, null);
    }

    @Override
    public String[] preferredLocations() {
        return new String[] {host};
    }
}
