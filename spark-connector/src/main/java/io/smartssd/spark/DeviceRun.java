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
    /**
     * A Parquet plan's pages are all in within a few milliseconds, then its rows come from decoding at
     * finish: with no page progress the default policy backs off to 10 ms between polls, which would
     * leave the finished rows waiting up to that long. Capped at 1 ms here.
     */
    static final PollingPolicy PARQUET_POLLING = new PollingPolicy(20_000, 100_000, 1_000_000);

    private final TaskletRun run;      // null when the partition runs on the host
    private final io.smartssd.device.HostRun host;   // option offload left the partition to the host, else null
    private final long parquetBytes;   // a Parquet plan: the object's size, else -1

    /** A user tasklet's run (UserTaskletTable) instead of a plan. */
    DeviceRun(SmartSsdPartition part, TaskletRun.Spec spec, Map<String, String> fsConf) {
        SmartSsd ssd = DeviceObject.fileSystem(part.uri(), fsConf).device();
        run = TaskletRun.start(ssd, spec, Extent.of(part.objectId(), part.offset(), part.length()),
                PollingPolicy.DEFAULT, null);
        host = null;
        parquetBytes = -1;
    }

    DeviceRun(SmartSsdPartition part, byte[] plan, Map<String, String> fsConf) {
        SmartSsd ssd = DeviceObject.fileSystem(part.uri(), fsConf).device();
        Plan p;
        try {
            p = Plan.parseFrom(plan);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException("smartssd: corrupt plan in the reader factory", e);
        }
        if (p.hasParquet()) {
            // The footer tells the device where the chunks lie before it reads: it then reads only those it needs.
            long size = part.offset() + part.length();
            io.smartssd.proto.ParquetObject.Builder pq = io.smartssd.proto.ParquetObject.newBuilder()
                    .setFooter(com.google.protobuf.ByteString.copyFrom(
                            part.footer() != null ? part.footer() : footer(ssd, part.objectId(), size)))
                    .setObjectSize(size);
            if (part.rowGroups() != null) {
                for (int g : part.rowGroups()) {
                    pq.addRowGroups(g);
                }
            }
            p = p.toBuilder().setParquet(pq).build();
        }
        parquetBytes = p.hasParquet() ? part.length() : -1;
        Extent extent = Extent.of(part.objectId(), part.offset(), part.length());
        if (SparkOffload.onHost(part)) {
            // the same plan by the built-in's own code on this executor, over the bytes read over the link
            host = io.smartssd.device.HostRun.start(ssd, TaskletRun.Spec.plan(p), extent);
            run = null;
        } else {
            host = null;
            run = TaskletRun.start(ssd, TaskletRun.Spec.plan(p), extent,
                    p.hasParquet() ? PARQUET_POLLING : PollingPolicy.DEFAULT, null);
        }
    }

    /** A Parquet object's footer bytes (FileMetaData): its length and magic are the last 8 bytes. */
    static byte[] footer(SmartSsd ssd, long object, long size) {
        if (size < 12) {
            throw new IllegalStateException("smartssd: object " + object + " (" + size + " bytes) is not a Parquet file");
        }
        java.nio.ByteBuffer tail = java.nio.ByteBuffer.allocateDirect(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        readFully(ssd, object, size - 8, tail);
        int len = tail.getInt(0);
        if (tail.get(4) != 'P' || tail.get(5) != 'A' || tail.get(6) != 'R' || tail.get(7) != '1' || len < 0
                || len > size - 12) {
            throw new IllegalStateException("smartssd: object " + object + " (" + size + " bytes) does not end with a"
                    + " Parquet footer");
        }
        java.nio.ByteBuffer f = java.nio.ByteBuffer.allocateDirect(len);
        readFully(ssd, object, size - 8 - len, f);
        byte[] out = new byte[len];
        f.flip();
        f.get(out);
        return out;
    }

    private static void readFully(SmartSsd ssd, long object, long offset, java.nio.ByteBuffer dst) {
        long at = offset;
        while (dst.hasRemaining()) {
            io.smartssd.device.ReadResult r = ssd.read(object, at, dst);
            if (r.bytes() <= 0) {
                throw new IllegalStateException("smartssd: object " + object + " ended at " + at + " reading its footer");
            }
            at += r.bytes();
        }
    }

    boolean hasNext() {
        return host != null ? host.hasNext() : run.hasNext();
    }

    Row next() {
        return host != null ? host.next() : run.next();
    }

    /** Device time, flash bytes read and bytes to host so far. */
    CustomTaskMetric[] metrics() {
        if (host != null) {
            return new CustomTaskMetric[] {
                new TaskMetric(DeviceTimeMetric.NAME, 0),
                new TaskMetric(FlashBytesReadMetric.NAME, 0),
                new TaskMetric(BytesToHostMetric.NAME, host.bytesRead()),
                new TaskMetric(io.smartssd.spark.metrics.DeviceSplitsMetric.NAME, 0),
                new TaskMetric(io.smartssd.spark.metrics.HostSplitsMetric.NAME, 1),
            };
        }
        TaskProgress p = run.progress();
        long dev = p == null ? 0 : p.deviceNanos();
        long flash = p == null ? 0 : p.flashBytesRead();
        long toHost = p == null ? 0 : p.bytesToHost();
        if (parquetBytes >= 0) {
            return new CustomTaskMetric[] {
                new TaskMetric(DeviceTimeMetric.NAME, dev),
                new TaskMetric(FlashBytesReadMetric.NAME, flash),
                new TaskMetric(BytesToHostMetric.NAME, toHost),
                new TaskMetric(io.smartssd.spark.metrics.BytesSkippedMetric.NAME,
                        p != null && p.finished() ? Math.max(0, parquetBytes - flash) : 0),
            };
        }
        return new CustomTaskMetric[] {
            new TaskMetric(DeviceTimeMetric.NAME, dev),
            new TaskMetric(FlashBytesReadMetric.NAME, flash),
            new TaskMetric(BytesToHostMetric.NAME, toHost),
            new TaskMetric(io.smartssd.spark.metrics.DeviceSplitsMetric.NAME, 1),
            new TaskMetric(io.smartssd.spark.metrics.HostSplitsMetric.NAME, 0),
        };
    }

    @Override
    public void close() {
        if (host != null) {
            host.close();
        } else {
            run.close();
        }
    }
}
