package io.smartssd.spark;

import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * What every smartssd scan shares: a batch scan of a {@link DeviceTable} with one input partition per
 * object extent, the device's metrics, and the one-line description EXPLAIN prints ({@code SmartSsdScan
 * PATH [WHAT, N object(s), split_size=S] PUSHED, ReadSchema: ...}; Spark prints "Pushed..." only from a
 * V2 scan's own description).
 */
abstract class DeviceScan implements Scan, Batch {
    private final DeviceTable table;
    private final StructType readSchema;

    DeviceScan(DeviceTable table, StructType readSchema) {
        this.table = table;
        this.readSchema = readSchema;
    }

    /** What the device runs, for the description: "text", a plan's layout, a user tasklet. */
    abstract String what();

    /** What was pushed, for the description: "PushedFilters: [...]" and whatever else the kind pushes. */
    abstract String pushed();

    /** How the objects are cut into input partitions, for the description. */
    String splits() {
        return "split_size=" + table.splitSize();
    }

    @Override
    public final String description() {
        return "SmartSsdScan " + table.path() + " [" + what() + ", " + table.objects().size() + " object(s), "
                + splits() + "] " + pushed() + ", ReadSchema: " + readSchema.simpleString();
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    /** Every object's extents of split_size bytes, in object order. */
    List<SmartSsdPartition> extents() {
        List<SmartSsdPartition> parts = new ArrayList<>();
        for (DeviceObject o : table.objects()) {
            parts.addAll(o.partitions(table.splitSize()));
        }
        return parts;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        return extents().toArray(new InputPartition[0]);
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        // where the partitions ran: the device, or the host when option offload left them there
        return new CustomMetric[] {new DeviceTimeMetric(), new FlashBytesReadMetric(), new BytesToHostMetric(),
            new io.smartssd.spark.metrics.DeviceSplitsMetric(), new io.smartssd.spark.metrics.HostSplitsMetric()};
    }
}
