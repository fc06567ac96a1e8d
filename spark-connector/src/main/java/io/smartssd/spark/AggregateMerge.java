package io.smartssd.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Merges the partial groups of every extent's request into the final aggregate, as Spark's final
 * aggregate would have merged them after its exchange: COUNT adds, SUM adds (NULL only when every
 * partial is NULL; a long overflow throws under ANSI mode and wraps otherwise, as Spark's Sum does),
 * MIN / MAX keep the least / greatest non-NULL partial in Spark's ordering (doubles: NaN greatest,
 * -0.0 = 0.0). Group keys compare as Spark groups them: NULL is a key, doubles normalized (-0.0 is 0.0,
 * one NaN). A global aggregate (no GROUP BY) over no rows at all is one row: counts 0, the rest NULL.
 */
final class AggregateMerge implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Fn { COUNT, SUM, MIN, MAX }

    private final int groups;
    private final Fn[] fns;
    private final DataType[] types;   // per output column: group keys, then aggregates
    private final boolean ansi;

    AggregateMerge(int groups, Fn[] fns, StructType schema, boolean ansi) {
        if (groups + fns.length != schema.fields().length) {
            throw new IllegalArgumentException("smartssd: " + groups + " group columns and " + fns.length
                    + " aggregates for a schema of " + schema.fields().length + " columns");
        }
        this.groups = groups;
        this.fns = fns.clone();
        this.types = Arrays.stream(schema.fields()).map(f -> f.dataType()).toArray(DataType[]::new);
        this.ansi = ansi;
    }

    /** The merged groups, in first-seen order. */
    final class Groups {
        private final Map<List<Object>, Object[]> byKey = new LinkedHashMap<>();

        /** Adds one partial row (group keys then one partial value per aggregate). */
        void add(InternalRow partial) {
            List<Object> key = new ArrayList<>(groups);
            for (int i = 0; i < groups; i++) {
                key.add(normalized(partial.isNullAt(i) ? null : partial.get(i, types[i])));
            }
            Object[] acc = byKey.get(key);
            if (acc == null) {
                acc = new Object[fns.length];
                for (int a = 0; a < fns.length; a++) {
                    acc[a] = fns[a] == Fn.COUNT ? (Object) 0L : null;
                }
                byKey.put(key, acc);
            }
            for (int a = 0; a < fns.length; a++) {
                int c = groups + a;
                if (!partial.isNullAt(c)) {
                    acc[a] = merge(a, acc[a], partial.get(c, types[c]));
                }
            }
        }

        Iterator<InternalRow> rows() {
            if (groups == 0 && byKey.isEmpty()) {
                add(new GenericInternalRow(new Object[fns.length])); // no rows: COUNT 0, the rest NULL
            }
            Iterator<Map.Entry<List<Object>, Object[]>> it = byKey.entrySet().iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public InternalRow next() {
                    Map.Entry<List<Object>, Object[]> e = it.next();
                    Object[] out = new Object[groups + fns.length];
                    for (int i = 0; i < groups; i++) {
                        out[i] = e.getKey().get(i);
                    }
                    System.arraycopy(e.getValue(), 0, out, groups, fns.length);
                    return new GenericInternalRow(out);
                }
            };
        }

        int size() {
            return byKey.size();
        }
    }

    Groups newGroups() {
        return new Groups();
    }

    private Object merge(int a, Object acc, Object v) {
        DataType t = types[groups + a];
        switch (fns[a]) {
            case COUNT:
                return (Long) acc + (Long) v;
            case SUM:
                if (acc == null) {
                    return v;
                }
                if (t instanceof DoubleType) {
                    return (Double) acc + (Double) v;
                }
                if (ansi) {
                    try {
                        return Math.addExact((Long) acc, (Long) v);
                    } catch (ArithmeticException e) {
                        throw new ArithmeticException("[ARITHMETIC_OVERFLOW] long overflow merging the device's"
                                + " partial sums (aggregate " + (a + 1) + "); as Spark's Sum under"
                                + " spark.sql.ansi.enabled, which may be set to false to wrap around");
                    }
                }
                return (Long) acc + (Long) v; // wraps, as Spark's Sum outside ANSI mode
            case MIN:
                return acc == null || compare(t, v, acc) < 0 ? v : acc;
            case MAX:
                return acc == null || compare(t, v, acc) > 0 ? v : acc;
            default:
                throw new IllegalStateException();
        }
    }

    /** Spark's ordering of two non-NULL values of type t. */
    static int compare(DataType t, Object x, Object y) {
        if (t instanceof LongType) {
            return Long.compare((Long) x, (Long) y);
        }
        if (t instanceof IntegerType) {
            return Integer.compare((Integer) x, (Integer) y);
        }
        if (t instanceof ShortType) {
            return Short.compare((Short) x, (Short) y);
        }
        if (t instanceof ByteType) {
            return Byte.compare((Byte) x, (Byte) y);
        }
        if (t instanceof DoubleType) {
            return compareDoubles((Double) x, (Double) y);
        }
        if (t instanceof FloatType) {
            return compareDoubles((Float) x, (Float) y);
        }
        if (t instanceof StringType) {
            return ((UTF8String) x).compareTo((UTF8String) y); // byte order: binaryCompare in Spark 4, only this in 3.5
        }
        if (t instanceof BooleanType) {
            return Boolean.compare((Boolean) x, (Boolean) y);
        }
        throw new IllegalArgumentException("smartssd: no ordering for " + t.simpleString());
    }

    /** Spark's SQL ordering of doubles: NaN equals NaN and is greater than anything; -0.0 equals 0.0. */
    private static int compareDoubles(double x, double y) {
        if (x == y) {
            return 0;
        }
        if (Double.isNaN(x)) {
            return Double.isNaN(y) ? 0 : 1;
        }
        if (Double.isNaN(y)) {
            return -1;
        }
        return x < y ? -1 : 1;
    }

    /** A group key as Spark's aggregate compares it (NormalizeFloatingNumbers). */
    private static Object normalized(Object v) {
        if (v instanceof Double d) {
            return d.isNaN() ? Double.NaN : d == 0.0 ? 0.0 : d;
        }
        if (v instanceof Float f) {
            return f.isNaN() ? Float.NaN : f == 0.0f ? 0.0f : f;
        }
        return v;
    }
}
