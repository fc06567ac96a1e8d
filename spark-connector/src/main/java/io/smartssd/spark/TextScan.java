package io.smartssd.spark;

import io.smartssd.device.Extent;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.ReadResult;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskProgress;
import io.smartssd.device.TaskletRun;
import io.smartssd.proto.Row;
import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import io.smartssd.spark.metrics.TaskMetric;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A text scan: one partition per extent; with a pattern, grep2 (mode=lines) over the extent on the
 * device, else the extent's lines read from the device. Both follow the device's line ownership (an
 * extent owns the lines that start in it; '\n' ends a line, one trailing '\r' is dropped; a last line
 * without '\n' counts), so the partitions' lines add up to the object's, as Spark's text reader's.
 */
final class TextScan implements Scan, Batch {
    private final TextTable table;
    private final TextTable.Grep2Pattern pattern;
    private final Predicate pushed;
    private final StructType readSchema;

    TextScan(TextTable table, TextTable.Grep2Pattern pattern, Predicate pushed, StructType readSchema) {
        this.table = table;
        this.pattern = pattern;
        this.pushed = pushed;
        this.readSchema = readSchema;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        return "SmartSsdScan " + table.options().path + " [text, " + table.objects().size() + " object(s), split_size="
                + table.options().splitSize + "] PushedFilters: [" + (pushed == null ? "" : pushed.toString()) + "], "
                + (pattern == null ? "lines read as stored" : pattern.describe()) + ", ReadSchema: "
                + readSchema.simpleString();
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<InputPartition> parts = new ArrayList<>();
        for (DeviceObject o : table.objects()) {
            parts.addAll(o.partitions(table.options().splitSize));
        }
        return parts.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new Factory(pattern, readSchema.fields().length, table.fsConf());
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return new CustomMetric[] {new DeviceTimeMetric(), new FlashBytesReadMetric(), new BytesToHostMetric()};
    }

    /** Serializable: travels to executors. */
    static final class Factory implements PartitionReaderFactory {
        private static final long serialVersionUID = 1L;
        private final TextTable.Grep2Pattern pattern;
        private final int width;
        private final HashMap<String, String> fsConf;

        Factory(TextTable.Grep2Pattern pattern, int width, Map<String, String> fsConf) {
            this.pattern = pattern;
            this.width = width;
            this.fsConf = new HashMap<>(fsConf);
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            SmartSsdPartition part = (SmartSsdPartition) partition;
            SmartSsd ssd = DeviceObject.fileSystem(part.uri(), fsConf).device();
            return pattern == null ? new LineReader(ssd, part, width) : new Grep2Reader(ssd, part, pattern, width);
        }
    }

    private static InternalRow row(int width, byte[] line, int len) {
        if (width == 0) {
            return new GenericInternalRow(0);
        }
        byte[] b = len == line.length ? line : java.util.Arrays.copyOf(line, len);
        return new GenericInternalRow(new Object[] {UTF8String.fromBytes(b)});
    }

    /** grep2 in lines mode over the extent: rows (offset, line) of the matching lines only. */
    static final class Grep2Reader implements PartitionReader<InternalRow> {
        private final TaskletRun run;
        private final int width;
        private InternalRow current;

        Grep2Reader(SmartSsd ssd, SmartSsdPartition part, TextTable.Grep2Pattern g, int width) {
            Map<String, String> params = new HashMap<>();
            params.put("start", g.start());
            if (!g.end().isEmpty()) {
                params.put("end", g.end());
            }
            params.put("mode", "lines");
            this.run = TaskletRun.start(ssd, TaskletRun.Spec.of("grep2", params),
                    Extent.of(part.objectId(), part.offset(), part.length()), PollingPolicy.DEFAULT, null);
            this.width = width;
        }

        @Override
        public boolean next() {
            if (!run.hasNext()) {
                return false;
            }
            Row r = run.next();
            byte[] line = r.getValues(1).getS().toByteArray();
            current = row(width, line, line.length);
            return true;
        }

        @Override
        public InternalRow get() {
            return current;
        }

        @Override
        public CustomTaskMetric[] currentMetricsValues() {
            TaskProgress p = run.progress();
            return new CustomTaskMetric[] {
                new TaskMetric(DeviceTimeMetric.NAME, p == null ? 0 : p.deviceNanos()),
                new TaskMetric(FlashBytesReadMetric.NAME, p == null ? 0 : p.flashBytesRead()),
                new TaskMetric(BytesToHostMetric.NAME, p == null ? 0 : p.bytesToHost()),
            };
        }

        @Override
        public void close() {
            run.close();
        }
    }

    /** Nothing pushed: the extent's bytes read from the device, cut into lines by the same rules. */
    static final class LineReader implements PartitionReader<InternalRow> {
        private static final int CHUNK = 1 << 20;
        private final SmartSsd ssd;
        private final long object;
        private final long end;         // lines starting before it are ours
        private final int width;
        private final ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK);
        private long bufAt;             // object offset of buf's position
        private boolean eof;
        private long pos;               // object offset of the next line
        private byte[] line = new byte[256];
        private long deviceNanos;
        private long bytesRead;
        private InternalRow current;

        LineReader(SmartSsd ssd, SmartSsdPartition part, int width) {
            this.ssd = ssd;
            this.object = part.objectId();
            this.end = part.offset() + part.length();
            this.width = width;
            buf.limit(0);
            if (part.offset() == 0) {
                bufAt = 0;
                pos = 0;
            } else {
                // The line that begins at offset is ours only when the byte before it ends a line.
                bufAt = part.offset() - 1;
                int b;
                while ((b = nextByte()) >= 0 && b != '\n') {
                    // skip the previous extent's last line
                }
                pos = bufAt;
            }
        }

        private int nextByte() {
            if (!buf.hasRemaining()) {
                if (eof) {
                    return -1;
                }
                buf.clear();
                ReadResult r = ssd.read(object, bufAt, buf);
                buf.flip();
                deviceNanos += r.deviceNanos();
                bytesRead += r.bytes();
                eof = r.eof() || r.bytes() == 0;
                if (!buf.hasRemaining()) {
                    eof = true;
                    return -1;
                }
            }
            bufAt++;
            return buf.get() & 0xff;
        }

        @Override
        public boolean next() {
            if (pos >= end) {
                return false;
            }
            int n = 0;
            int b;
            boolean any = false;
            while ((b = nextByte()) >= 0) {
                any = true;
                if (b == '\n') {
                    break;
                }
                if (n == line.length) {
                    line = java.util.Arrays.copyOf(line, n * 2);
                }
                line[n++] = (byte) b;
            }
            if (!any) {
                return false; // the object ended where this line would begin
            }
            pos = bufAt;
            if (n > 0 && line[n - 1] == '\r') {
                n--;
            }
            current = row(width, line, n);
            return true;
        }

        @Override
        public InternalRow get() {
            return current;
        }

        @Override
        public CustomTaskMetric[] currentMetricsValues() {
            return new CustomTaskMetric[] {
                new TaskMetric(DeviceTimeMetric.NAME, deviceNanos),
                new TaskMetric(FlashBytesReadMetric.NAME, bytesRead),
                new TaskMetric(BytesToHostMetric.NAME, bytesRead),
            };
        }

        @Override
        public void close() {
        }
    }
}
