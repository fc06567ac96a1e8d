package io.smartssd.spark;

import io.smartssd.proto.Plan;
import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * One device plan over the table's objects, one input partition per object extent; a pushed aggregate
 * with a merge: one input partition for all of them.
 */
final class SmartSsdScan implements Scan, Batch {
    private final SmartSsdTable table;
    private final Plan plan;
    private final StructType readSchema;
    private final String pushedDescription;
    private final boolean projection;
    private final AggregateMerge merge;   // non-null: one partition merges every extent's partial groups
    private final boolean onePartition;   // every extent in one partition (a merge, or a top-N)

    SmartSsdScan(SmartSsdTable table, Plan plan, StructType readSchema, String pushedDescription, boolean projection,
                 AggregateMerge merge, boolean onePartition) {
        this.table = table;
        this.plan = plan;
        this.readSchema = readSchema;
        this.pushedDescription = pushedDescription;
        this.projection = projection;
        this.merge = merge;
        this.onePartition = onePartition || merge != null;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    /** What EXPLAIN shows: Spark prints "Pushed..." only from here for a V2 scan. */
    @Override
    public String description() {
        return "SmartSsdScan " + table.options().path + " [" + table.layout().description() + ", "
                + table.objects().size() + " object(s), "
                + (table.layout().isParquet() ? "row groups by split_size=" : "split_size=") + table.options().splitSize
                + "] "
                + pushedDescription + ", ReadSchema: " + readSchema.simpleString();
    }

    Plan plan() {
        return plan;
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<SmartSsdPartition> parts = new ArrayList<>();
        for (DeviceObject o : table.objects()) {
            // A Parquet object's footer, at its end, locates its chunks: each request covers the whole
            // object and reads its own row groups.
            parts.addAll(table.layout().isParquet()
                    ? o.parquetPartitions(table.rowGroupBytes(o.id()), table.footer(o.id()), table.options().splitSize)
                    : o.partitions(table.options().splitSize));
        }
        if (onePartition) {
            // Spark sees one partition (SinglePartition): no exchange; its reader starts every request at once
            return new InputPartition[] {new SmartSsdMergedPartition(parts.toArray(new SmartSsdPartition[0]))};
        }
        return parts.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        // Aggregates return a handful of rows: rows are simpler there; projections stream in batches.
        return new SmartSsdReaderFactory(plan.toByteArray(), readSchema, table.fsConf(),
                projection && table.options().columnar, table.options().batchRows, merge,
                table.options().requestsInFlight);
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        if (table.layout().isParquet()) {
            return new CustomMetric[] {new DeviceTimeMetric(), new FlashBytesReadMetric(), new BytesToHostMetric(),
                new io.smartssd.spark.metrics.BytesSkippedMetric()};
        }
        return new CustomMetric[] {new DeviceTimeMetric(), new FlashBytesReadMetric(), new BytesToHostMetric()};
    }
}
