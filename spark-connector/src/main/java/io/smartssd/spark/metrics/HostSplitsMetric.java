package io.smartssd.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/** Smartssd partitions the offload planner left to the host (option offload; docs/OFFLOAD.md). */
public class HostSplitsMetric extends CustomSumMetric {
    public static final String NAME = "smartssdHostSplits";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "smartssd partitions the offload planner left to the host";
    }
}
