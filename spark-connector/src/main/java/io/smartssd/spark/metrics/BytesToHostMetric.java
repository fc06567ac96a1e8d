package io.smartssd.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/** Result bytes the device sent over the host link for the scan. */
public class BytesToHostMetric extends CustomSumMetric {
    public static final String NAME = "smartssdBytesToHost";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "smartssd bytes sent to host";
    }
}
