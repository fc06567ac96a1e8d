package io.smartssd.spark;

import io.smartssd.device.DeviceTimed;
import io.smartssd.device.Extent;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.ResultStream;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskProgress;
import io.smartssd.proto.Plan;
import io.smartssd.proto.Row;
import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import io.smartssd.spark.metrics.TaskMetric;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's plan on the device (Smart SSD paper Fig. 5): create the plan tasklet and an output,
 * execute over the partition's extent, stream the rows (adaptive polling), delete both objects.
 */
final class DeviceRun implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceRun.class);

    private final SmartSsd ssd;
    private long taskletId = -1;
    private long outputId = -1;
    private final ResultStream rows;

    DeviceRun(SmartSsdPartition part, byte[] plan, Map<String, String> fsConf) {
        this.ssd = DeviceObject.fileSystem(part.uri(), fsConf).device();
        Plan p;
        try {
            p = Plan.parseFrom(plan);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException("smartssd: corrupt plan in the reader factory", e);
        }
        try {
            taskletId = ssd.createTasklet("plan", Map.of(), p).id();
            outputId = ssd.createOutput(Map.of(), List.of(), 0).id();
            ssd.execute(taskletId, outputId, Extent.of(part.objectId(), part.offset(), part.length()));
            rows = ssd.results(outputId, PollingPolicy.DEFAULT, null);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    boolean hasNext() {
        return rows.hasNext();
    }

    Row next() {
        return rows.next();
    }

    /** Device time, flash bytes read and bytes to host so far. */
    CustomTaskMetric[] metrics() {
        TaskProgress p = rows.progress();
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
        // The output first: deleting a running output cancels its run, which frees the tasklet.
        outputId = delete(outputId);
        taskletId = delete(taskletId);
    }

    private long delete(long id) {
        if (id >= 0) {
            try {
                DeviceTimed ignored = ssd.delete(id);
            } catch (RuntimeException e) {
                LOG.warn("smartssd: could not delete device object {}: {}", id, e.getMessage());
            }
        }
        return -1;
    }
}
