package io.smartssd.spark;

import io.smartssd.device.TaskletRun;
import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A table whose rows a user tasklet makes ({@code .option("tasklet", NAME)}, installed on the device with
 * {@code csd tasklet add} or {@code SmartSsd.installTasklet}): one run of the tasklet per extent, its rows
 * read by the declared schema, column by column in order. The tasklet's params are the read options
 * {@code param.KEY}. Nothing is pushed down: Spark applies every filter, column choice and aggregate to
 * the tasklet's rows.
 */
final class UserTaskletTable implements SupportsRead {
    static final String TASKLET = "tasklet";
    static final String PARAM_PREFIX = "param.";

    private final String tasklet;
    private final Map<String, String> params;
    private final StructType schema;
    private final Map<String, String> fsConf;
    private final List<DeviceObject> objects;
    private final long splitSize;
    private final String path;

    UserTaskletTable(String tasklet, Map<String, String> options, StructType schema, Map<String, String> fsConf,
                     List<DeviceObject> objects, long splitSize, String path) {
        this.tasklet = tasklet;
        this.params = new LinkedHashMap<>();
        options.forEach((k, v) -> {
            if (k.startsWith(PARAM_PREFIX) && k.length() > PARAM_PREFIX.length()) {
                params.put(k.substring(PARAM_PREFIX.length()), v);
            }
        });
        this.schema = schema;
        this.fsConf = fsConf;
        this.objects = objects;
        this.splitSize = splitSize;
        this.path = path;
    }

    @Override
    public String name() {
        return "smartssd " + path + " (tasklet " + tasklet + ")";
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
        return () -> new TaskletScan();
    }

    private final class TaskletScan implements Scan, Batch {
        @Override
        public StructType readSchema() {
            return schema;
        }

        @Override
        public String description() {
            return "SmartSsdScan " + path + " [user tasklet " + tasklet + " " + params + ", " + objects.size()
                    + " object(s), split_size=" + splitSize + "], ReadSchema: " + schema.simpleString();
        }

        @Override
        public Batch toBatch() {
            return this;
        }

        @Override
        public InputPartition[] planInputPartitions() {
            List<InputPartition> parts = new ArrayList<>();
            for (DeviceObject o : objects) {
                parts.addAll(o.partitions(splitSize));
            }
            return parts.toArray(new InputPartition[0]);
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return new Factory(new TaskletRun.Spec(tasklet, Map.copyOf(params), null, Map.of(), List.of(), 0), schema,
                    fsConf);
        }

        @Override
        public CustomMetric[] supportedCustomMetrics() {
            return new CustomMetric[] {new DeviceTimeMetric(), new FlashBytesReadMetric(), new BytesToHostMetric()};
        }
    }

    /** Runs the tasklet over a partition's extent on the executor; serializable, it travels there. */
    static final class Factory implements PartitionReaderFactory {
        private static final long serialVersionUID = 1L;
        private final String tasklet;
        private final Map<String, String> params;
        private final StructType schema;
        private final Map<String, String> fsConf;

        Factory(TaskletRun.Spec spec, StructType schema, Map<String, String> fsConf) {
            this.tasklet = spec.tasklet();
            this.params = new LinkedHashMap<>(spec.staticParams());
            this.schema = schema;
            this.fsConf = new LinkedHashMap<>(fsConf);
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            TaskletRun.Spec spec = new TaskletRun.Spec(tasklet, params, null, Map.of(), List.of(), 0);
            return new SmartSsdReaderFactory.RowReader(new DeviceRun((SmartSsdPartition) partition, spec, fsConf),
                    new RowConverter(schema));
        }
    }
}
