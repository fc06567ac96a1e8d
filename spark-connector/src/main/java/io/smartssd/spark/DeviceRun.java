package io.smartssd.spark;

import io.smartssd.device.Extent;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskProgress;
import io.smartssd.device.TaskletRun;
import io.smartssd.proto.Plan;
import io.smartssd.proto.Row;
import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import io.smartssd.spark.metrics.TaskMetric;
import java.util.Map;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * One partition's plan on the device: a {@link TaskletRun} of the plan tasklet over the partition's
 * extent (Smart SSD paper Fig. 5), plus the Spark metrics it reports.
 */
final class DeviceRun implements AutoCloseable {
    private final TaskletRun run;

    /** A user tasklet's run (UserTaskletTable) instead of a plan. */
    DeviceRun(SmartSsdPartition part, TaskletRun.Spec spec, Map<String, String> fsConf) {
        SmartSsd ssd = DeviceObject.fileSystem(part.uri(), fsConf).device();
        run = TaskletRun.start(ssd, spec, Extent.of(part.objectId(), part.offset(), part.length()),
                PollingPolicy.DEFAULT, null);
    }

    DeviceRun(SmartSsdPartition part, byte[] plan, Map<String, String> fsConf) {
        SmartSsd ssd = DeviceObject.fileSystem(part.uri(), fsConf).device();
        Plan p;
        try {
            p = Plan.parseFrom(plan);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException("smartssd: corrupt plan in the reader factory", e);
        }
        run = TaskletRun.start(ssd, TaskletRun.Spec.plan(p), Extent.of(part.objectId(), part.offset(), part.length()),
                PollingPolicy.DEFAULT, null);
    }

    boolean hasNext() {
        return run.hasNext();
    }

    Row next() {
        return run.next();
    }

    /** Device time, flash bytes read and bytes to host so far. */
    CustomTaskMetric[] metrics() {
        TaskProgress p = run.progress();
        long dev = p == null ? 0 : p.deviceNanos();
        long flash = p == null ? 0 : p.flashBytesRead();
        long host = p == null ? 0 : p.bytesToHost();
        return new CustomTaskMetric[] {
            new TaskMetric(DeviceTimeMetric.NAME, dev),
            new TaskMetric(FlashBytesReadMetric.NAME, flash),
            new TaskMetric(BytesToHostMetric.NAME, host),
        };
    }

    @Override
    public void close() {
        run.close();
    }
}
