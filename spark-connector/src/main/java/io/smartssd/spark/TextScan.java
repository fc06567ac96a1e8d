package io.smartssd.spark;

import io.smartssd.device.ReadResult;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskletRun;
import io.smartssd.proto.Row;
import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import io.smartssd.spark.metrics.TaskMetric;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A text scan: one partition per extent; with a pattern, grep2 (mode=lines) over the extent on the
 * device, else the extent's lines read from the device. Both follow the device's line ownership (an
 * extent owns the lines that start in it; '\n' ends a line, one trailing '\r' is dropped; a last line
 * without '\n' counts), so the partitions' lines add up to the object's, as Spark's text reader's.
 */
final class TextScan extends DeviceScan {
    private final TextTable table;
    private final TextTable.Grep2Pattern pattern;
    private final Predicate pushed;

    TextScan(TextTable table, TextTable.Grep2Pattern pattern, Predicate pushed, StructType readSchema) {
        super(table, readSchema);
        this.table = table;
        this.pattern = pattern;
        this.pushed = pushed;
    }

    @Override
    String what() {
        return "text";
    }

    @Override
    String pushed() {
        return "PushedFilters: [" + (pushed == null ? "" : pushed.toString()) + "], "
                + (pattern == null ? "lines read as stored" : pattern.describe());
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new Factory(pattern, readSchema().fields().length, table.fsConf());
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
            return pattern == null ? new LineReader(DeviceObject.fileSystem(part.uri(), fsConf).device(), part, width)
                    : new Grep2Reader(part, fsConf, pattern, width);
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
        private final DeviceRun run;
        private final int width;
        private InternalRow current;

        Grep2Reader(SmartSsdPartition part, Map<String, String> fsConf, TextTable.Grep2Pattern g, int width) {
            Map<String, String> params = new HashMap<>();
            params.put("start", g.start());
            if (!g.end().isEmpty()) {
                params.put("end", g.end());
            }
            params.put("mode", "lines");
            this.run = new DeviceRun(part, TaskletRun.Spec.of("grep2", params), fsConf);
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
            return run.metrics();
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
