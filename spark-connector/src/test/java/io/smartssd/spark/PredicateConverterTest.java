package io.smartssd.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.smartssd.proto.BinaryOp;
import io.smartssd.proto.Expr;
import io.smartssd.proto.UnaryOp;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** convert(): exact translations, null (never an exception) for what the device must not evaluate. */
class PredicateConverterTest {
    private final PredicateConverter conv = new PredicateConverter(TableLayout.text(
            StructType.fromDDL("a INT, s STRING, d DOUBLE, b BOOLEAN"), ",", false));

    private static Predicate p(String name, Expression... c) {
        return new Predicate(name, c);
    }

    private static Expression col(String n) {
        return FieldReference.apply(n);
    }

    private static Expression lit(Object v, org.apache.spark.sql.types.DataType t) {
        return new LiteralValue<>(v, t);
    }

    @Test
    void translatesComparisonsToColumnIndexes() {
        Expr e = conv.convert(p("<", col("d"), lit(5, DataTypes.IntegerType)));
        assertEquals(BinaryOp.LT, e.getBinary().getOp());
        assertEquals(2, e.getBinary().getLeft().getColumn());
        assertEquals(5, e.getBinary().getRight().getLiteral().getI());
        Expr s = conv.convert(p("STARTS_WITH", col("s"), lit(UTF8String.fromString("ab"), DataTypes.StringType)));
        assertEquals(BinaryOp.STARTS_WITH, s.getBinary().getOp());
        assertEquals("ab", s.getBinary().getRight().getLiteral().getS().toStringUtf8());
        Expr n = conv.convert(p("NOT", p("IS_NULL", col("b"))));
        assertEquals(UnaryOp.IS_NULL, n.getUnary().getArg().getUnary().getOp());
        // a <=> NULL is IS NULL
        Expr ns = conv.convert(p("<=>", col("a"), lit(null, DataTypes.IntegerType)));
        assertEquals(UnaryOp.IS_NULL, ns.getUnary().getOp());
        assertNotNull(conv.convert(p("IN", col("a"), lit(1, DataTypes.IntegerType), lit(null, DataTypes.IntegerType))));
    }

    @Test
    void refusesWhatItCannotPushWithoutThrowing() {
        // type mismatches the device would reject at plan creation
        assertNull(conv.convert(p("=", col("s"), lit(1, DataTypes.IntegerType))));
        assertNull(conv.convert(p("IN", col("a"), lit(UTF8String.fromString("x"), DataTypes.StringType))));
        assertNull(conv.convert(p("STARTS_WITH", col("a"), lit(UTF8String.fromString("1"), DataTypes.StringType))));
        // unknown columns, nested fields, arithmetic, unknown functions, date literals
        assertNull(conv.convert(p("=", col("nope"), lit(1, DataTypes.IntegerType))));
        assertNull(conv.convert(p("=", FieldReference.apply("a.b"), lit(1, DataTypes.IntegerType))));
        assertNull(conv.convert(p(">", new GeneralScalarExpression("+", new Expression[] {col("a"), col("a")}),
                lit(1, DataTypes.IntegerType))));
        assertNull(conv.convert(p("REGEXP_LIKE", col("s"), lit(UTF8String.fromString("x"), DataTypes.StringType))));
        assertNull(conv.convert(p("=", col("a"), lit(19000, DataTypes.DateType))));
        // half of an OR is not enough
        assertNull(conv.convert(p("OR", p("=", col("a"), lit(1, DataTypes.IntegerType)), p("=", col("nope"), col("a")))));
        // malformed input is logged and refused, never thrown
        assertNull(conv.convert(p("=", col("a"))));
        assertNull(conv.convert(p("AND")));
    }
}
