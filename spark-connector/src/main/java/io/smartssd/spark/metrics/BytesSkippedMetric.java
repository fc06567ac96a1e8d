package io.smartssd.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomSumMetric;

/**
 * Bytes of the scanned objects the device did not read from flash: Parquet row groups its statistics
 * excluded and the chunks of columns the plan does not use (the object's size less the flash bytes read).
 */
public class BytesSkippedMetric extends CustomSumMetric {
    public static final String NAME = "smartssdBytesSkipped";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "smartssd bytes skipped (Parquet row groups and columns not read)";
    }
}
