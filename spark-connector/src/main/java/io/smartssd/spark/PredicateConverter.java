package io.smartssd.spark;

import com.google.protobuf.ByteString;
import io.smartssd.proto.Binary;
import io.smartssd.proto.BinaryOp;
import io.smartssd.proto.ColumnType;
import io.smartssd.proto.Expr;
import io.smartssd.proto.In;
import io.smartssd.proto.Literal;
import io.smartssd.proto.Unary;
import io.smartssd.proto.UnaryOp;
import org.apache.spark.sql.connector.expressions.Cast;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spark's V2 predicates as device plan expressions. {@link #convert} returns null for anything the
 * device would not evaluate exactly as Spark does (the predicate then stays in Spark) and never throws.
 * Translated: comparisons, {@code <=>}, IN, IS [NOT] NULL, AND/OR/NOT, STARTS_WITH/ENDS_WITH/CONTAINS,
 * over top-level columns, literals and widening casts of integer columns.
 */
final class PredicateConverter {
    private static final Logger LOG = LoggerFactory.getLogger(PredicateConverter.class);

    /** A translated operand: its expression and device type (null type = a NULL literal). */
    private record Typed(Expr expr, ColumnType type) {
    }

    private final TableLayout layout;

    PredicateConverter(TableLayout layout) {
        this.layout = layout;
    }

    /** The device expression of p, or null when it cannot (or should not) be pushed. */
    Expr convert(Predicate p) {
        try {
            return predicate(p);
        } catch (RuntimeException e) {
            LOG.warn("smartssd: not pushing predicate {} to the device: {}", p, e.toString());
            return null;
        }
    }

    private Expr predicate(Predicate p) {
        Expression[] c = p.children();
        switch (p.name()) {
            case "ALWAYS_TRUE":
                return lit(Literal.newBuilder().setB(true).build());
            case "ALWAYS_FALSE":
                return lit(Literal.newBuilder().setB(false).build());
            case "AND":
            case "OR": {
                Expr l = child(c[0]);
                Expr r = child(c[1]);
                return l == null || r == null ? null : bin(p.name().equals("AND") ? BinaryOp.AND : BinaryOp.OR, l, r);
            }
            case "NOT": {
                Expr a = child(c[0]);
                return a == null ? null : un(UnaryOp.NOT, a);
            }
            case "IS_NULL":
            case "IS_NOT_NULL": {
                Typed a = operand(c[0]);
                return a == null || a.type == null ? null
                        : un(p.name().equals("IS_NULL") ? UnaryOp.IS_NULL : UnaryOp.IS_NOT_NULL, a.expr);
            }
            case "=": return compare(BinaryOp.EQ, c);
            case "<>": return compare(BinaryOp.NE, c);
            case "<": return compare(BinaryOp.LT, c);
            case "<=": return compare(BinaryOp.LE, c);
            case ">": return compare(BinaryOp.GT, c);
            case ">=": return compare(BinaryOp.GE, c);
            case "<=>": return nullSafeEqual(c);
            case "IN": return in(c);
            case "STARTS_WITH": return string(BinaryOp.STARTS_WITH, c);
            case "ENDS_WITH": return string(BinaryOp.ENDS_WITH, c);
            case "CONTAINS": return string(BinaryOp.CONTAINS, c);
            default:
                return null;
        }
    }

    private Expr child(Expression e) {
        return e instanceof Predicate p ? predicate(p) : null;
    }

    private Expr compare(BinaryOp op, Expression[] c) {
        Typed l = operand(c[0]);
        Typed r = operand(c[1]);
        if (l == null || r == null || l.type == null || r.type == null || !comparable(l.type, r.type)) {
            return null;
        }
        return bin(op, l.expr, r.expr);
    }

    /** a <=> b: TRUE when both are NULL or both are equal non-NULL values; never NULL. */
    private Expr nullSafeEqual(Expression[] c) {
        Typed l = operand(c[0]);
        Typed r = operand(c[1]);
        if (l == null || r == null) {
            return null;
        }
        if (l.type == null || r.type == null) {
            Typed other = l.type == null ? r : l;
            return other.type == null ? lit(Literal.newBuilder().setB(true).build()) : un(UnaryOp.IS_NULL, other.expr);
        }
        if (!comparable(l.type, r.type)) {
            return null;
        }
        Expr bothSet = bin(BinaryOp.AND, un(UnaryOp.IS_NOT_NULL, l.expr), un(UnaryOp.IS_NOT_NULL, r.expr));
        Expr equal = bin(BinaryOp.AND, bothSet, bin(BinaryOp.EQ, l.expr, r.expr));
        Expr bothNull = bin(BinaryOp.AND, un(UnaryOp.IS_NULL, l.expr), un(UnaryOp.IS_NULL, r.expr));
        return bin(BinaryOp.OR, equal, bothNull);
    }

    private Expr in(Expression[] c) {
        Typed a = operand(c[0]);
        if (a == null || a.type == null) {
            return null;
        }
        In.Builder in = In.newBuilder().setArg(a.expr);
        for (int i = 1; i < c.length; i++) {
            if (!(c[i] instanceof org.apache.spark.sql.connector.expressions.Literal<?> l)) {
                return null;
            }
            Typed v = literal(l);
            if (v == null || (v.type != null && !comparable(a.type, v.type))) {
                return null;
            }
            in.addValues(v.expr.getLiteral());
        }
        return Expr.newBuilder().setIn(in).build();
    }

    private Expr string(BinaryOp op, Expression[] c) {
        Typed l = operand(c[0]);
        Typed r = operand(c[1]);
        if (l == null || r == null || l.type != ColumnType.STRING || r.type != ColumnType.STRING) {
            return null;
        }
        return bin(op, l.expr, r.expr);
    }

    private static boolean comparable(ColumnType a, ColumnType b) {
        boolean na = a == ColumnType.INT64 || a == ColumnType.DOUBLE;
        boolean nb = b == ColumnType.INT64 || b == ColumnType.DOUBLE;
        return (na && nb) || a == b;
    }

    private Typed operand(Expression e) {
        if (e instanceof NamedReference ref) {
            return column(ref);
        }
        if (e instanceof org.apache.spark.sql.connector.expressions.Literal<?> l) {
            return literal(l);
        }
        if (e instanceof Cast cast && cast.expression() instanceof NamedReference ref) {
            Typed col = column(ref);
            int i = layout.indexOf(ref.fieldNames()[0]);
            if (col == null || !widening(layout.schema().fields()[i].dataType(), cast.dataType())) {
                return null;
            }
            return col; // the device reads integers as INT64 and promotes them to DOUBLE in comparisons
        }
        return null;
    }

    private Typed column(NamedReference ref) {
        if (ref.fieldNames().length != 1) {
            return null;
        }
        int i = layout.indexOf(ref.fieldNames()[0]);
        return i < 0 ? null : new Typed(Expr.newBuilder().setColumn(i).build(), layout.typeOf(i));
    }

    private static int rank(DataType t) {
        if (t instanceof ByteType) {
            return 1;
        }
        if (t instanceof ShortType) {
            return 2;
        }
        if (t instanceof IntegerType) {
            return 3;
        }
        if (t instanceof LongType) {
            return 4;
        }
        return 0;
    }

    private static boolean widening(DataType from, DataType to) {
        int f = rank(from);
        return f > 0 && (rank(to) >= f || to instanceof DoubleType);
    }

    private static Typed literal(org.apache.spark.sql.connector.expressions.Literal<?> l) {
        Object v = l.value();
        DataType t = l.dataType();
        Literal.Builder b = Literal.newBuilder();
        if (v == null) {
            return new Typed(lit(b.setIsNull(true).build()), null);
        }
        ColumnType type;
        if (rank(t) > 0) {
            b.setI(((Number) v).longValue());
            type = ColumnType.INT64;
        } else if (t instanceof DoubleType) {
            b.setD((Double) v);
            type = ColumnType.DOUBLE;
        } else if (t instanceof StringType) {
            b.setS(ByteString.copyFrom(((UTF8String) v).getBytes()));
            type = ColumnType.STRING;
        } else if (t instanceof BooleanType) {
            b.setB((Boolean) v);
            type = ColumnType.BOOL;
        } else {
            return null;
        }
        return new Typed(lit(b.build()), type);
    }

    private static Expr lit(Literal l) {
        return Expr.newBuilder().setLiteral(l).build();
    }

    static Expr bin(BinaryOp op, Expr l, Expr r) {
        return Expr.newBuilder().setBinary(Binary.newBuilder().setOp(op).setLeft(l).setRight(r)).build();
    }

    private static Expr un(UnaryOp op, Expr a) {
        return Expr.newBuilder().setUnary(Unary.newBuilder().setOp(op).setArg(a)).build();
    }
}
