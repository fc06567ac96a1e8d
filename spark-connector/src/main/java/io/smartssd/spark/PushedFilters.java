package io.smartssd.spark;

import io.smartssd.proto.BinaryOp;
import io.smartssd.proto.Expr;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.connector.expressions.filter.Predicate;

/** The predicates a scan builder pushed, with their device expressions, for every builder alike. */
final class PushedFilters {
    private final List<Predicate> pushed = new ArrayList<>();
    private final List<Expr> exprs = new ArrayList<>();

    /** Pushes each predicate convert takes (null: not pushable); returns the ones Spark keeps. */
    Predicate[] push(Predicate[] predicates, Function<Predicate, Expr> convert) {
        List<Predicate> rest = new ArrayList<>();
        for (Predicate p : predicates) {
            Expr e = convert.apply(p);
            if (e == null) {
                rest.add(p);
            } else {
                pushed.add(p);
                exprs.add(e);
            }
        }
        return rest.toArray(new Predicate[0]);
    }

    Predicate[] predicates() {
        return pushed.toArray(new Predicate[0]);
    }

    /** The AND of every pushed expression, or null when nothing was pushed. */
    Expr conjunction() {
        Expr f = null;
        for (Expr e : exprs) {
            f = f == null ? e : PredicateConverter.bin(BinaryOp.AND, f, e);
        }
        return f;
    }

    /** "PushedFilters: [...]" as Spark's own scans describe them. */
    String description() {
        List<String> names = new ArrayList<>();
        pushed.forEach(p -> names.add(p.toString()));
        return "PushedFilters: " + names;
    }
}
