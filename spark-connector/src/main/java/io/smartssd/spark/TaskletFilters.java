package io.smartssd.spark;

import io.smartssd.device.UserTasklet;
import io.smartssd.proto.Binary;
import io.smartssd.proto.BinaryOp;
import io.smartssd.proto.Expr;
import io.smartssd.proto.FilterOp;
import io.smartssd.proto.UnaryOp;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of Spark's predicates a user tasklet's declaration lets the device apply to its rows. A
 * predicate is translated as for a plan ({@link PredicateConverter}) and then pushed only when every
 * column comparison in it is one the tasklet declares (the device's own rule, checked here first so a
 * refused filter stays in Spark instead of failing the query). A column of the read schema counts as the
 * declared column at the same position only when the names (case-insensitively) and types agree.
 * {@link #convert} returns null for anything else and never throws.
 */
final class TaskletFilters {
    private static final Logger LOG = LoggerFactory.getLogger(TaskletFilters.class);

    private static final Map<BinaryOp, FilterOp> BINARY = Map.of(
            BinaryOp.EQ, FilterOp.FILTER_EQ, BinaryOp.NE, FilterOp.FILTER_NE, BinaryOp.LT, FilterOp.FILTER_LT,
            BinaryOp.LE, FilterOp.FILTER_LE, BinaryOp.GT, FilterOp.FILTER_GT, BinaryOp.GE, FilterOp.FILTER_GE,
            BinaryOp.STARTS_WITH, FilterOp.FILTER_STARTS_WITH, BinaryOp.ENDS_WITH, FilterOp.FILTER_ENDS_WITH,
            BinaryOp.CONTAINS, FilterOp.FILTER_CONTAINS);
    /** A comparison with the literal on the left, read with the column on the left. */
    private static final Map<FilterOp, FilterOp> MIRROR = Map.of(
            FilterOp.FILTER_EQ, FilterOp.FILTER_EQ, FilterOp.FILTER_NE, FilterOp.FILTER_NE,
            FilterOp.FILTER_LT, FilterOp.FILTER_GT, FilterOp.FILTER_LE, FilterOp.FILTER_GE,
            FilterOp.FILTER_GT, FilterOp.FILTER_LT, FilterOp.FILTER_GE, FilterOp.FILTER_LE);

    private final PredicateConverter converter;
    private final UserTasklet.Column[] byIndex;   // the declared column read at each schema index, or null

    private TaskletFilters(PredicateConverter converter, UserTasklet.Column[] byIndex) {
        this.converter = converter;
        this.byIndex = byIndex;
    }

    /** The filters schema's columns may take, by declared; null when none can be pushed. */
    static TaskletFilters of(StructType schema, List<UserTasklet.Column> declared) {
        StructField[] f = schema.fields();
        UserTasklet.Column[] byIndex = new UserTasklet.Column[f.length];
        boolean any = false;
        for (int i = 0; i < f.length && i < declared.size(); i++) {
            UserTasklet.Column c = declared.get(i);
            try {
                if (c.name().equalsIgnoreCase(f[i].name()) && c.type() == TableLayout.deviceType(f[i])
                        && !c.filters().isEmpty()) {
                    byIndex[i] = c;
                    any = true;
                }
            } catch (IllegalArgumentException e) {
                // a type the device cannot compare: nothing is pushed on that column
            }
        }
        if (!any) {
            return null;
        }
        return new TaskletFilters(new PredicateConverter(TableLayout.rows(schema)), byIndex);
    }

    /** The device filter of p, or null when the tasklet does not declare what it needs. */
    Expr convert(Predicate p) {
        try {
            Expr e = converter.convert(p);
            return e != null && accepts(e) ? e : null;
        } catch (RuntimeException e) {
            LOG.warn("smartssd: not pushing predicate {} to the tasklet: {}", p, e.toString());
            return null;
        }
    }

    private boolean accepts(Expr e) {
        switch (e.getNodeCase()) {
            case BINARY: {
                Binary b = e.getBinary();
                if (b.getOp() == BinaryOp.AND || b.getOp() == BinaryOp.OR) {
                    return accepts(b.getLeft()) && accepts(b.getRight());
                }
                FilterOp op = BINARY.get(b.getOp());
                if (op == null) {
                    return false;
                }
                if (b.getRight().hasLiteral()) {
                    return declares(b.getLeft(), op);
                }
                return MIRROR.containsKey(op) && b.getLeft().hasLiteral() && declares(b.getRight(), MIRROR.get(op));
            }
            case UNARY: {
                UnaryOp op = e.getUnary().getOp();
                if (op == UnaryOp.NOT) {
                    return accepts(e.getUnary().getArg());
                }
                return (op == UnaryOp.IS_NULL || op == UnaryOp.IS_NOT_NULL)
                        && declares(e.getUnary().getArg(), FilterOp.FILTER_NULL);
            }
            case IN:
                return declares(e.getIn().getArg(), FilterOp.FILTER_IN);
            default:
                return false;
        }
    }

    private boolean declares(Expr column, FilterOp op) {
        if (column.getNodeCase() != Expr.NodeCase.COLUMN || column.getColumn() >= byIndex.length) {
            return false;
        }
        UserTasklet.Column c = byIndex[column.getColumn()];
        return c != null && c.filters().contains(op);
    }
}
