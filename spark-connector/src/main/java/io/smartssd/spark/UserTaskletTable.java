package io.smartssd.spark;

import io.smartssd.device.TaskletRun;
import io.smartssd.device.UserTasklet;
import io.smartssd.proto.Expr;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table whose rows a user tasklet makes ({@code .option("tasklet", NAME)}, installed on the device with
 * {@code csd tasklet add} or {@code SmartSsd.installTasklet}): one run of the tasklet per extent, its rows
 * read by the declared schema, column by column in order. The tasklet's params are the read options
 * {@code param.KEY}. Filters on the columns the tasklet declares filterable (its schema, reported by the
 * device's list of installed tasklets) are pushed: the device drops the rows they reject before shipping
 * them. Every other filter, column choice and aggregate is Spark's.
 */
final class UserTaskletTable extends DeviceTable {
    private static final Logger LOG = LoggerFactory.getLogger(UserTaskletTable.class);
    static final String TASKLET = "tasklet";
    static final String PARAM_PREFIX = "param.";

    private final String tasklet;
    private final Map<String, String> params;
    private final boolean pushdown;
    private boolean looked;
    private TaskletFilters filters;   // what may be pushed, once looked up; null: nothing

    UserTaskletTable(String tasklet, Map<String, String> options, StructType schema, Map<String, String> fsConf,
                     List<DeviceObject> objects, long splitSize, String path) {
        super(path, schema, fsConf, objects, splitSize);
        this.tasklet = tasklet;
        this.params = new LinkedHashMap<>();
        options.forEach((k, v) -> {
            if (k.startsWith(PARAM_PREFIX) && k.length() > PARAM_PREFIX.length()) {
                params.put(k.substring(PARAM_PREFIX.length()), v);
            }
        });
        this.pushdown = SmartSsdOptions.bool(SmartSsdOptions.PUSHDOWN, options.getOrDefault(SmartSsdOptions.PUSHDOWN,
                "true"));
    }

    @Override
    public String name() {
        return super.name() + " (tasklet " + tasklet + ")";
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
        lookUp();
        return new TaskletScanBuilder();
    }

    /**
     * Reads, once per table, what the device knows of the tasklet: a name neither installed nor built in
     * fails the query here, at planning, with the device's lists; an installed one's declaration gives
     * the filters that may be pushed ({@link #filters}: null when none, pushdown is off, or the device
     * cannot be asked).
     */
    private void lookUp() {
        if (looked || objects().isEmpty()) {
            return;
        }
        looked = true;
        List<UserTasklet> installed;
        List<String> builtIn;
        try {
            io.smartssd.device.SmartSsd ssd = DeviceObject.fileSystem(objects().get(0).uri(), fsConf()).device();
            installed = ssd.listTasklets();
            builtIn = ssd.identify().tasklets();
        } catch (RuntimeException e) {
            LOG.warn("smartssd: cannot read what tasklet {} declares; Spark applies every filter: {}", tasklet,
                    e.toString());
            return;
        }
        for (UserTasklet t : installed) {
            if (t.name().equals(tasklet)) {
                filters = pushdown ? TaskletFilters.of(schema(), t.columns()) : null;
                return;
            }
        }
        if (!builtIn.contains(tasklet)) {
            List<String> names = new ArrayList<>();
            installed.forEach(t -> names.add(t.name()));
            throw new IllegalArgumentException("option tasklet = '" + tasklet + "': unknown tasklet '" + tasklet
                    + "' on " + path() + " (installed: " + (names.isEmpty() ? "none" : String.join(", ", names))
                    + "; built in: " + String.join(", ", builtIn) + ")");
        }
    }

    /** Pushes the filters the tasklet declares (SupportsPushDownV2Filters); the rest stay with Spark. */
    private final class TaskletScanBuilder implements ScanBuilder, SupportsPushDownV2Filters {
        private final PushedFilters pushed = new PushedFilters();

        @Override
        public Predicate[] pushPredicates(Predicate[] predicates) {
            TaskletFilters f = filters;
            return f == null ? predicates : pushed.push(predicates, f::convert);
        }

        @Override
        public Predicate[] pushedPredicates() {
            return pushed.predicates();
        }

        @Override
        public Scan build() {
            return new TaskletScan(pushed.conjunction(), pushed.description());
        }
    }

    private final class TaskletScan extends DeviceScan {
        private final Expr filter;
        private final String pushedDescription;

        TaskletScan(Expr filter, String pushedDescription) {
            super(UserTaskletTable.this, UserTaskletTable.this.schema());
            this.filter = filter;
            this.pushedDescription = pushedDescription;
        }

        @Override
        String what() {
            return "user tasklet " + tasklet + " " + params;
        }

        @Override
        String pushed() {
            return pushedDescription;
        }

        @Override
        public PartitionReaderFactory createReaderFactory() {
            return new Factory(new TaskletRun.Spec(tasklet, Map.copyOf(params), null, Map.of(), List.of(), 0, filter),
                    schema(), fsConf());
        }
    }

    /** Runs the tasklet over a partition's extent on the executor; serializable, it travels there. */
    static final class Factory implements PartitionReaderFactory {
        private static final long serialVersionUID = 1L;
        private final String tasklet;
        private final Map<String, String> params;
        private final StructType schema;
        private final Map<String, String> fsConf;
        private final byte[] filter;   // a packed Expr, or null: it travels to executors as bytes

        Factory(TaskletRun.Spec spec, StructType schema, Map<String, String> fsConf) {
            this.tasklet = spec.tasklet();
            this.params = new LinkedHashMap<>(spec.staticParams());
            this.schema = schema;
            this.fsConf = new LinkedHashMap<>(fsConf);
            this.filter = spec.filter() == null ? null : spec.filter().toByteArray();
        }

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            Expr f;
            try {
                f = filter == null ? null : Expr.parseFrom(filter);
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new IllegalStateException("smartssd: corrupt filter in the reader factory", e);
            }
            TaskletRun.Spec spec = new TaskletRun.Spec(tasklet, params, null, Map.of(), List.of(), 0, f);
            return new SmartSsdReaderFactory.RowReader(new DeviceRun((SmartSsdPartition) partition, spec, fsConf),
                    new RowConverter(schema));
        }
    }
}
