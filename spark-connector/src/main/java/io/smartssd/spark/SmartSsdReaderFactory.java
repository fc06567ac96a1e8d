package io.smartssd.spark;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Readers of one scan: each runs the plan over its partition's extent and streams the device's rows,
 * as Spark rows, or (projections, where the per-row object churn would cost more than the device
 * saved) as column batches. A static, serializable class: it travels to executors.
 */
final class SmartSsdReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    private final byte[] plan;
    private final StructType readSchema;
    private final HashMap<String, String> fsConf;
    private final boolean columnar;
    private final int batchRows;
    private final AggregateMerge merge;
    private final int inFlight;

    SmartSsdReaderFactory(byte[] plan, StructType readSchema, Map<String, String> fsConf, boolean columnar,
                          int batchRows, AggregateMerge merge, int inFlight) {
        this.plan = plan;
        this.readSchema = readSchema;
        this.fsConf = new HashMap<>(fsConf);
        this.columnar = columnar;
        this.batchRows = batchRows;
        this.merge = merge;
        this.inFlight = inFlight;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        if (partition instanceof SmartSsdMergedPartition m) {
            return new MergeReader(m, plan, fsConf, new RowConverter(readSchema), merge, inFlight);
        }
        return new RowReader(new DeviceRun((SmartSsdPartition) partition, plan, fsConf), new RowConverter(readSchema));
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return columnar && !(partition instanceof SmartSsdMergedPartition);
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        return new BatchReader(new DeviceRun((SmartSsdPartition) partition, plan, fsConf), readSchema, batchRows);
    }

    static final class RowReader implements PartitionReader<InternalRow> {
        private final DeviceRun run;
        private final RowConverter conv;
        private InternalRow current;

        RowReader(DeviceRun run, RowConverter conv) {
            this.run = run;
            this.conv = conv;
        }

        @Override
        public boolean next() {
            if (!run.hasNext()) {
                return false;
            }
            current = conv.toRow(run.next());
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

    /**
     * A merged partition's reader: keeps `inFlight` of the extents' requests running on the device and
     * drains them in order (when one is drained the next starts), merging their partial groups (an
     * aggregate) or returning their rows one request after the other (a top-N: Spark keeps its own take
     * over them). A window, not every request at once: with 32 requests in flight a 1 GiB text scan ran
     * slower than with two (the requests' pages interleave on the device), see docs/PERFORMANCE.md.
     */
    static final class MergeReader implements PartitionReader<InternalRow> {
        private final java.util.List<DeviceRun> runs = new java.util.ArrayList<>();
        private final SmartSsdPartition[] parts;
        private final byte[] plan;
        private final Map<String, String> fsConf;
        private final int inFlight;
        private final java.util.Iterator<InternalRow> rows;
        private InternalRow current;

        MergeReader(SmartSsdMergedPartition partition, byte[] plan, Map<String, String> fsConf, RowConverter conv,
                    AggregateMerge merge, int inFlight) {
            this.parts = partition.parts();
            this.plan = plan;
            this.fsConf = fsConf;
            this.inFlight = Math.max(1, inFlight);
            try {
                startUpTo(this.inFlight);
                if (merge != null) {
                    AggregateMerge.Groups groups = merge.newGroups();
                    for (int i = 0; i < parts.length; i++) {
                        DeviceRun run = runs.get(i);
                        while (run.hasNext()) {
                            groups.add(conv.toRow(run.next()));
                        }
                        startUpTo(i + 1 + this.inFlight);
                    }
                    rows = groups.rows();
                } else {
                    rows = new java.util.Iterator<>() {
                        private int at;

                        @Override
                        public boolean hasNext() {
                            while (at < parts.length && !runs.get(at).hasNext()) {
                                at++;
                                startUpTo(at + MergeReader.this.inFlight);
                            }
                            return at < parts.length;
                        }

                        @Override
                        public InternalRow next() {
                            return conv.toRow(runs.get(at).next());
                        }
                    };
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        /** Starts the requests of extents up to (not including) n. */
        private void startUpTo(int n) {
            while (runs.size() < Math.min(n, parts.length)) {
                runs.add(new DeviceRun(parts[runs.size()], plan, fsConf));
            }
        }

        @Override
        public boolean next() {
            if (!rows.hasNext()) {
                return false;
            }
            current = rows.next();
            return true;
        }

        @Override
        public InternalRow get() {
            return current;
        }

        /** The runs' metrics, summed. */
        @Override
        public CustomTaskMetric[] currentMetricsValues() {
            CustomTaskMetric[] sum = null;
            long[] v = null;
            for (DeviceRun run : runs) {
                CustomTaskMetric[] m = run.metrics();
                if (sum == null) {
                    sum = m;
                    v = new long[m.length];
                }
                for (int i = 0; i < m.length; i++) {
                    v[i] += m[i].value();
                }
            }
            if (sum == null) {
                return new CustomTaskMetric[0];
            }
            CustomTaskMetric[] out = new CustomTaskMetric[sum.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = new io.smartssd.spark.metrics.TaskMetric(sum[i].name(), v[i]);
            }
            return out;
        }

        @Override
        public void close() {
            for (DeviceRun run : runs) {
                run.close();
            }
        }
    }

    static final class BatchReader implements PartitionReader<ColumnarBatch> {
        private final DeviceRun run;
        private final RowConverter conv;
        private final OnHeapColumnVector[] vectors;
        private final ColumnarBatch batch;
        private final int capacity;

        BatchReader(DeviceRun run, StructType schema, int capacity) {
            this.run = run;
            this.conv = new RowConverter(schema);
            this.capacity = capacity;
            this.vectors = OnHeapColumnVector.allocateColumns(capacity, schema);
            this.batch = new ColumnarBatch(vectors);
        }

        @Override
        public boolean next() {
            for (WritableColumnVector v : vectors) {
                v.reset();
            }
            int n = 0;
            while (n < capacity && run.hasNext()) {
                conv.toColumns(run.next(), vectors, n++);
            }
            batch.setNumRows(n);
            return n > 0;
        }

        @Override
        public ColumnarBatch get() {
            return batch;
        }

        @Override
        public CustomTaskMetric[] currentMetricsValues() {
            return run.metrics();
        }

        @Override
        public void close() {
            batch.close();
            run.close();
        }
    }
}
