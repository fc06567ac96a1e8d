package io.smartssd.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/** Smartssd partitions run on the device (option offload; docs/OFFLOAD.md). */
public class DeviceSplitsMetric extends CustomSumMetric {
    public static final String NAME = "smartssdDeviceSplits";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "smartssd partitions run on the device";
    }
}
