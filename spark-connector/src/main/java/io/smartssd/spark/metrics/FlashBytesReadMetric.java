package io.smartssd.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/** Bytes the device read from flash for the scan. */
public class FlashBytesReadMetric extends CustomSumMetric {
    public static final String NAME = "smartssdFlashBytesRead";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "smartssd flash bytes read";
    }
}
