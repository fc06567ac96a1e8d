package io.smartssd.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/** Virtual device time of the scan's tasklet runs (execute to finish), summed over partitions. */
public class DeviceTimeMetric extends CustomSumMetric {
    public static final String NAME = "smartssdDeviceTime";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "smartssd device time (ms)";
    }

    @Override
    public String aggregateTaskMetrics(long[] taskMetrics) {
        long ns = 0;
        for (long v : taskMetrics) {
            ns += v;
        }
        return String.format(java.util.Locale.ROOT, "%.3f", ns / 1e6);
    }
}
