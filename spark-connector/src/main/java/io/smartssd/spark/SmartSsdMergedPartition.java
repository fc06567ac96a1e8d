package io.smartssd.spark;

import java.util.Arrays;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * Every extent of a scan in one input partition: its reader starts all of their requests at once (the
 * device runs them concurrently) and merges what they return (a complete aggregate). Preferred
 * locations: the extents' hosts.
 */
record SmartSsdMergedPartition(SmartSsdPartition[] parts) implements InputPartition {
    @Override
    public String[] preferredLocations() {
        return Arrays.stream(parts).map(SmartSsdPartition::host).distinct().toArray(String[]::new);
    }
}
