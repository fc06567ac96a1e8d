package io.smartssd.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** One extent of one object; the device applies Hadoop's record/line ownership rules at its edges. */
record SmartSsdPartition(String uri, long objectId, long offset, long length, String host)
        implements InputPartition {
    @Override
    public String[] preferredLocations() {
        return new String[] {host};
    }
}
