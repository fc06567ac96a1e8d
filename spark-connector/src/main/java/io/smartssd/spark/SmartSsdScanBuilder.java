package io.smartssd.spark;

import io.smartssd.proto.AggFn;
import io.smartssd.proto.Aggregate;
import io.smartssd.proto.ColumnType;
import io.smartssd.proto.Expr;
import io.smartssd.proto.Literal;
import io.smartssd.proto.Plan;
import io.smartssd.proto.SortKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTopN;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Collects what Spark pushes (filters, required columns, a partial aggregate, a limit or top-N) and
 * builds the device plan. Every push is exact or refused: a refused filter, aggregate or sort stays in
 * Spark. A pushed aggregate is complete (option pushdown.aggregate.complete): one partition runs every
 * extent's request and merges their partial groups, so Spark needs no exchange and no final aggregate.
 * Limits and top-N apply per extent, so Spark always re-applies them (partially pushed); a top-N's
 * extents may share one partition (option pushdown.topn.one_partition).
 */
final class SmartSsdScanBuilder implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns,
        SupportsPushDownAggregates, SupportsPushDownLimit, SupportsPushDownTopN {

    private final SmartSsdTable table;
    private final TableLayout layout;
    private final SmartSsdOptions options;
    private final PredicateConverter converter;

    private final PushedFilters pushed = new PushedFilters();
    private StructType required;
    private PushedAggregate aggregate;
    private Aggregation completeAsked;   // the aggregation supportCompletePushDown last said yes to
    private boolean aggregateComplete;  // Spark plans no final aggregate over this scan
    private int limit;
    private SortOrder[] topN;

    /** A pushed partial aggregate: group-by columns then one partial value per function. */
    private record PushedAggregate(List<Integer> groupBy, List<Aggregate> functions, AggregateMerge.Fn[] merge,
                                   StructType schema, String description, String groupByDescription) {
    }

    SmartSsdScanBuilder(SmartSsdTable table) {
        this.table = table;
        this.layout = table.layout();
        this.options = table.options();
        this.converter = new PredicateConverter(layout);
        this.required = layout.schema();
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates) {
        return options.pushdown ? pushed.push(predicates, converter::convert) : predicates;
    }

    @Override
    public Predicate[] pushedPredicates() {
        return pushed.predicates();
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        this.required = requiredSchema;
    }

    /**
     * Complete when every group-by column and function is pushable (AVG is not: Spark then asks again
     * with it rewritten as SUM and COUNT and divides in its projection): the scan merges every extent's
     * partial groups in one partition, and Spark plans neither an exchange nor a final aggregate.
     */
    @Override
    public boolean supportCompletePushDown(Aggregation agg) {
        boolean complete = options.pushdown && options.aggregateComplete && translate(agg) != null;
        completeAsked = complete ? agg : null;
        return complete;
    }

    @Override
    public boolean pushAggregation(Aggregation agg) {
        if (!options.pushdown) {
            return false;
        }
        aggregate = translate(agg);
        // Spark asks supportCompletePushDown with the aggregation it then pushes when it goes complete
        aggregateComplete = aggregate != null && agg == completeAsked;
        return aggregate != null;
    }

    /** The device's group-by and partial aggregates for agg, or null if some part is not pushable. */
    private PushedAggregate translate(Aggregation agg) {
        List<Integer> groupBy = new ArrayList<>();
        List<StructField> fields = new ArrayList<>();
        List<String> groupNames = new ArrayList<>();
        for (Expression e : agg.groupByExpressions()) {
            int i = columnIndex(e);
            if (i < 0) {
                return null;
            }
            groupBy.add(i);
            StructField f = layout.schema().fields()[i];
            fields.add(new StructField("group_" + fields.size() + "_" + f.name(), f.dataType(), true,
                    org.apache.spark.sql.types.Metadata.empty()));
            groupNames.add(f.name());
        }
        List<Aggregate> fns = new ArrayList<>();
        List<AggregateMerge.Fn> merge = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (AggregateFunc f : agg.aggregateExpressions()) {
            Aggregate.Builder a = Aggregate.newBuilder();
            DataType type;
            if (f instanceof CountStar) {
                a.setFn(AggFn.COUNT_ALL);
                type = DataTypes.LongType;
                merge.add(AggregateMerge.Fn.COUNT);
            } else if (f instanceof Count c && !c.isDistinct() && columnIndex(c.column()) >= 0) {
                a.setFn(AggFn.COUNT).setArg(col(columnIndex(c.column())));
                type = DataTypes.LongType;
                merge.add(AggregateMerge.Fn.COUNT);
            } else if (f instanceof Sum s && !s.isDistinct() && numeric(columnIndex(s.column()))) {
                int i = columnIndex(s.column());
                a.setFn(AggFn.SUM).setArg(col(i));
                type = layout.typeOf(i) == ColumnType.DOUBLE ? DataTypes.DoubleType : DataTypes.LongType;
                merge.add(AggregateMerge.Fn.SUM);
            } else if (f instanceof Min m && columnIndex(m.column()) >= 0) {
                int i = columnIndex(m.column());
                a.setFn(AggFn.MIN).setArg(col(i));
                type = layout.schema().fields()[i].dataType();
                merge.add(AggregateMerge.Fn.MIN);
            } else if (f instanceof Max m && columnIndex(m.column()) >= 0) {
                int i = columnIndex(m.column());
                a.setFn(AggFn.MAX).setArg(col(i));
                type = layout.schema().fields()[i].dataType();
                merge.add(AggregateMerge.Fn.MAX);
            } else {
                return null; // e.g. COUNT(DISTINCT x), an aggregate over an expression: Spark computes it all
            }
            fns.add(a.build());
            names.add(f.toString());
            fields.add(new StructField("agg_" + fns.size(), type, true, org.apache.spark.sql.types.Metadata.empty()));
        }
        return new PushedAggregate(groupBy, fns, merge.toArray(new AggregateMerge.Fn[0]),
                new StructType(fields.toArray(new StructField[0])),
                "[" + String.join(", ", names) + "]", "[" + String.join(", ", groupNames) + "]");
    }

    @Override
    public boolean pushLimit(int n) {
        if (!options.pushdown || aggregate != null) {
            return false;
        }
        limit = n;
        return true;
    }

    @Override
    public boolean pushTopN(SortOrder[] orders, int n) {
        if (!options.pushdown || aggregate != null || orders.length == 0) {
            return false;
        }
        for (SortOrder o : orders) {
            // The device puts NULLs first ascending and last descending, Spark's defaults.
            boolean defaultNulls = o.direction() == SortDirection.ASCENDING
                    ? o.nullOrdering() == NullOrdering.NULLS_FIRST : o.nullOrdering() == NullOrdering.NULLS_LAST;
            if (columnIndex(o.expression()) < 0 || !defaultNulls) {
                return false;
            }
        }
        topN = orders;
        limit = n;
        return true;
    }

    @Override
    public boolean isPartiallyPushed() {
        return true;
    }

    @Override
    public Scan build() {
        Plan.Builder plan = layout.planBuilder();
        Expr filter = pushed.conjunction();
        if (filter != null) {
            plan.setFilter(filter);
        }
        StructType readSchema;
        String topNDescription = null;
        int planLimit = limit;
        if (aggregate != null) {
            aggregate.groupBy.forEach(i -> plan.addGroupBy(col(i)));
            plan.addAllAggregates(aggregate.functions);
            readSchema = aggregate.schema;
        } else {
            readSchema = required;
            for (StructField f : required.fields()) {
                plan.addProject(col(layout.indexOf(f.name())));
            }
            if (required.fields().length == 0) {
                // Spark needs only the row count: a constant costs the device one node per row.
                plan.addProject(Expr.newBuilder().setLiteral(Literal.newBuilder().setB(true)));
            }
            if (topN != null) {
                List<String> keys = new ArrayList<>();
                for (SortOrder o : topN) {
                    int out = outputIndex(required, ((NamedReference) o.expression()).fieldNames()[0]);
                    if (out < 0) {
                        plan.clearOrderBy();
                        keys = null;
                        planLimit = 0; // a limit without its order would keep the wrong rows
                        break;
                    }
                    plan.addOrderBy(SortKey.newBuilder().setOutput(out)
                            .setDescending(o.direction() == SortDirection.DESCENDING));
                    keys.add(o.toString());
                }
                if (keys != null) {
                    topNDescription = "[" + String.join(", ", keys) + "] LIMIT " + limit;
                }
            }
            plan.setLimit(planLimit);
        }
        StringBuilder d = new StringBuilder();
        d.append(pushed.description());
        if (aggregate != null) {
            d.append(", PushedAggregates: ").append(aggregate.description)
             .append(", PushedGroupBy: ").append(aggregate.groupByDescription);
            if (options.aggregateComplete) {
                // every extent's request from one partition, their partial groups merged in its reader
                d.append(aggregateComplete ? ", AggregateComplete: merged in one partition"
                        : ", AggregatePartial: merged in one partition, finished in Spark");
            }
        }
        if (topNDescription != null) {
            d.append(", PushedTopN: ").append(topNDescription);
            if (options.topNOnePartition) {
                d.append(", TopN: every extent in one partition");
            }
        } else if (planLimit > 0) {
            d.append(", PushedLimit: ").append(planLimit);
        }
        AggregateMerge merge = aggregate != null && options.aggregateComplete
                ? new AggregateMerge(aggregate.groupBy.size(), aggregate.merge, aggregate.schema,
                        org.apache.spark.sql.internal.SQLConf.get().ansiEnabled())
                : null;
        return new SmartSsdScan(table, plan.build(), readSchema, d.toString(), aggregate == null, merge,
                topNDescription != null && options.topNOnePartition);
    }

    private static int outputIndex(StructType s, String name) {
        String[] names = s.fieldNames();
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private int columnIndex(Expression e) {
        if (e instanceof NamedReference ref && ref.fieldNames().length == 1) {
            return layout.indexOf(ref.fieldNames()[0]);
        }
        return -1;
    }

    private boolean numeric(int i) {
        return i >= 0 && (layout.typeOf(i) == ColumnType.INT64 || layout.typeOf(i) == ColumnType.DOUBLE);
    }

    private static Expr col(int i) {
        return Expr.newBuilder().setColumn(i).build();
    }

    Map<String, String> fsConf() {
        return table.fsConf();
    }
}
