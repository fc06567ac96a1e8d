package io.smartssd.spark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Format {@code text}: one string column per line, as Spark's {@code spark.read.text}. A substring
 * filter on the line goes to the two-stage {@code grep2} tasklet (docs/2PM.md), so only matching lines
 * cross the host link; without one the extent's lines are read from the device as they are.
 */
final class TextTable extends DeviceTable {
    static final StructType SCHEMA = new StructType().add("value", DataTypes.StringType, false);

    private final boolean pushdown;

    TextTable(SmartSsdOptions options, StructType schema, Map<String, String> fsConf, List<DeviceObject> objects) {
        super(options.path, schema, fsConf, objects, options.splitSize);
        this.pushdown = options.pushdown;
    }

    /** The table's schema: the user's when it is one string column (any name, as Spark's text reader), else value. */
    static StructType schema(StructType user) {
        if (user == null || user.fields().length == 0) {
            return SCHEMA;
        }
        if (user.fields().length != 1 || !(user.fields()[0].dataType() instanceof StringType)) {
            throw new IllegalArgumentException("schema: format text has one string column (the line), not "
                    + user.simpleString());
        }
        return new StructType().add(user.fields()[0].name(), DataTypes.StringType, false);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
        return new Builder(this);
    }

    /**
     * What grep2 is asked for: the start key, an optional end key ("" = none), and whether the device's
     * answer is the filter's exactly (else Spark re-checks every line the device returns).
     */
    record Grep2Pattern(String start, String end, boolean exact) implements java.io.Serializable {
        String describe() {
            return "grep2 start='" + start + "'" + (end.isEmpty() ? "" : " end='" + end + "'")
                    + (exact ? "" : " (a superset: Spark re-checks)");
        }
    }

    /** grep2's key limit (docs/TASKLETS.md). */
    static final int MAX_KEY_BYTES = 1024;

    /**
     * The grep2 pattern of one predicate over the line column, or null when grep2 cannot answer it or a
     * superset of it. CONTAINS is exact; STARTS_WITH and ENDS_WITH (LIKE 'k%', '%k') go as "contains k"
     * (grep2 has no anchors) with Spark re-checking. Never throws.
     */
    static Grep2Pattern grep2Of(Predicate p, String column) {
        try {
            String name = p.name();
            boolean exact = name.equals("CONTAINS");
            if (!exact && !name.equals("STARTS_WITH") && !name.equals("ENDS_WITH")) {
                return null;
            }
            Expression[] c = p.children();
            if (c.length != 2 || !(c[0] instanceof NamedReference ref) || ref.fieldNames().length != 1
                    || !ref.fieldNames()[0].equalsIgnoreCase(column)
                    || !(c[1] instanceof org.apache.spark.sql.connector.expressions.Literal<?> lit)
                    || !(lit.value() instanceof UTF8String s)) {
                return null;
            }
            byte[] key = s.getBytes();
            // Spark's lines never hold a line break, so such a key matches nothing: Spark says so itself.
            if (key.length == 0 || key.length > MAX_KEY_BYTES) {
                return null;
            }
            for (byte b : key) {
                if (b == '\n' || b == '\r' || b == 0) {
                    return null; // a NUL would cut the key where the device takes its params as C strings
                }
            }
            return new Grep2Pattern(new String(key, StandardCharsets.UTF_8), "", exact);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Pushes one substring filter to grep2 (an exact one first, the longest key among equals); the rest stay. */
    static final class Builder implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
        private final TextTable table;
        private StructType required;
        private Predicate pushed;
        private Grep2Pattern pattern;

        Builder(TextTable table) {
            this.table = table;
            this.required = table.schema();
        }

        @Override
        public Predicate[] pushPredicates(Predicate[] predicates) {
            if (!table.pushdown) {
                return predicates;
            }
            String column = table.schema().fields()[0].name();
            for (Predicate p : predicates) {
                Grep2Pattern g = grep2Of(p, column);
                if (g != null && (pattern == null || better(g, pattern))) {
                    pattern = g;
                    pushed = p;
                }
            }
            List<Predicate> rest = new ArrayList<>();
            for (Predicate p : predicates) {
                if (p != pushed || !pattern.exact()) {
                    rest.add(p);
                }
            }
            return rest.toArray(new Predicate[0]);
        }

        private static boolean better(Grep2Pattern a, Grep2Pattern b) {
            if (a.exact() != b.exact()) {
                return a.exact();
            }
            return a.start().length() > b.start().length(); // a longer key is usually rarer
        }

        @Override
        public Predicate[] pushedPredicates() {
            return pushed == null ? new Predicate[0] : new Predicate[] {pushed};
        }

        @Override
        public void pruneColumns(StructType requiredSchema) {
            required = requiredSchema;
        }

        @Override
        public Scan build() {
            StructField[] f = required.fields();
            StructType read = f.length == 0 ? new StructType() : table.schema();
            return new TextScan(table, pattern, pushed, read);
        }
    }
}
