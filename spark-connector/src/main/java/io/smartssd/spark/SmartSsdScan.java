package io.smartssd.spark;

import io.smartssd.device.TaskletRun;
import io.smartssd.device.offload.OffloadMode;
import io.smartssd.device.offload.OffloadPlan;
import io.smartssd.device.offload.OffloadSettings;
import io.smartssd.proto.Plan;
import io.smartssd.spark.metrics.BytesSkippedMetric;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;

/**
 * One device plan over the table's objects, one input partition per object extent; a pushed aggregate
 * with a merge: one input partition for all of them.
 */
final class SmartSsdScan extends DeviceScan {
    private final SmartSsdTable table;
    private final Plan plan;
    private final String pushedDescription;
    private final boolean projection;
    private final AggregateMerge merge;   // non-null: one partition merges every extent's partial groups
    private final boolean onePartition;   // every extent in one partition (a merge, or a top-N)

    SmartSsdScan(SmartSsdTable table, Plan plan, StructType readSchema, String pushedDescription, boolean projection,
                 AggregateMerge merge, boolean onePartition) {
        super(table, readSchema);
        this.table = table;
        this.plan = plan;
        this.pushedDescription = pushedDescription;
        this.projection = projection;
        this.merge = merge;
        this.onePartition = onePartition || merge != null;
    }

    @Override
    String what() {
        return table.layout().description();
    }

    @Override
    String pushed() {
        OffloadPlan o = offloadPlan();
        return o == null ? pushedDescription : pushedDescription + ", Offload: " + o.summary();
    }

    private List<SmartSsdPartition> planned;   // the partitions, placed when option offload is host or auto
    private OffloadPlan offload;

    /** With option offload host or auto (not Parquet): the plan of the scan's extents, once; else null. */
    private synchronized OffloadPlan offloadPlan() {
        OffloadSettings s = table.options().offload;
        if (s.mode() == OffloadMode.DEVICE || table.layout().isParquet()) {
            return null;
        }
        if (planned == null) {
            SparkOffload.Planned p = SparkOffload.plan(s, extents(), table.objects(), TaskletRun.Spec.plan(plan),
                    "spark:" + java.util.Base64.getEncoder().encodeToString(plan.toByteArray()), table.fsConf());
            planned = p.parts();
            offload = p.plan();
        }
        return offload;
    }

    @Override
    String splits() {
        return (table.layout().isParquet() ? "row groups by " : "") + super.splits();
    }

    Plan plan() {
        return plan;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<SmartSsdPartition> parts;
        if (table.layout().isParquet()) {
            // A Parquet object's footer, at its end, locates its chunks: each request covers the whole
            // object and reads its own row groups.
            parts = new ArrayList<>();
            for (DeviceObject o : table.objects()) {
                parts.addAll(o.parquetPartitions(table.rowGroupBytes(o.id()), table.footer(o.id()), table.splitSize()));
            }
        } else {
            parts = offloadPlan() != null ? planned : extents();
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
        return new SmartSsdReaderFactory(plan.toByteArray(), readSchema(), table.fsConf(),
                projection && table.options().columnar, table.options().batchRows, merge,
                table.options().requestsInFlight);
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        CustomMetric[] device = super.supportedCustomMetrics();
        if (!table.layout().isParquet()) {
            return device;
        }
        CustomMetric[] m = java.util.Arrays.copyOf(device, device.length + 1);
        m[device.length] = new BytesSkippedMetric();
        return m;
    }
}
