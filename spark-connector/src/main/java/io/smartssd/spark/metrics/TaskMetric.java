package io.smartssd.spark.metrics;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** One partition's value of a metric. */
public record TaskMetric(String name, long value) implements CustomTaskMetric {
}
