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

    SmartSsdReaderFactory(byte[] plan, StructType readSchema, Map<String, String> fsConf, boolean columnar,
                          int batchRows) {
        this.plan = plan;
        this.readSchema = readSchema;
        this.fsConf = new HashMap<>(fsConf);
        this.columnar = columnar;
        this.batchRows = batchRows;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        return new RowReader(new DeviceRun((SmartSsdPartition) partition, plan, fsConf), new RowConverter(readSchema));
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return columnar;
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
