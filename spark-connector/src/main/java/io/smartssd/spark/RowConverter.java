package io.smartssd.spark;

import io.smartssd.proto.Row;
import io.smartssd.proto.Value;
import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/** Device result rows (one {@code Value} per output column) as Spark rows or column vectors. */
final class RowConverter implements Serializable {
    private static final long serialVersionUID = 1L;

    private enum Kind { LONG, INT, SHORT, BYTE, DOUBLE, FLOAT, STRING, BOOL }

    private final Kind[] kinds;

    RowConverter(StructType schema) {
        kinds = new Kind[schema.fields().length];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = kind(schema.fields()[i].dataType());
        }
    }

    private static Kind kind(DataType t) {
        if (t instanceof LongType) {
            return Kind.LONG;
        }
        if (t instanceof IntegerType) {
            return Kind.INT;
        }
        if (t instanceof ShortType) {
            return Kind.SHORT;
        }
        if (t instanceof ByteType) {
            return Kind.BYTE;
        }
        if (t instanceof DoubleType) {
            return Kind.DOUBLE;
        }
        if (t instanceof org.apache.spark.sql.types.FloatType) {
            return Kind.FLOAT; // Parquet FLOAT: the device reads it as DOUBLE, exactly
        }
        if (t instanceof StringType) {
            return Kind.STRING;
        }
        if (t instanceof BooleanType) {
            return Kind.BOOL;
        }
        throw new IllegalArgumentException("smartssd: no conversion to " + t.simpleString());
    }

    int width() {
        return kinds.length;
    }

    InternalRow toRow(Row r) {
        Object[] out = new Object[kinds.length];
        for (int i = 0; i < kinds.length; i++) {
            out[i] = value(kinds[i], r.getValues(i));
        }
        return new GenericInternalRow(out);
    }

    private static Object value(Kind k, Value v) {
        switch (v.getVCase()) {
            case I: {
                long x = v.getI();
                switch (k) {
                    case LONG: return x;
                    case INT: return (int) x;
                    case SHORT: return (short) x;
                    case BYTE: return (byte) x;
                    case DOUBLE: return (double) x;
                    case FLOAT: return (float) x;
                    default: break;
                }
                break;
            }
            case D:
                if (k == Kind.DOUBLE) {
                    return v.getD();
                }
                if (k == Kind.FLOAT) {
                    return (float) v.getD();
                }
                break;
            case S:
                if (k == Kind.STRING) {
                    return UTF8String.fromBytes(v.getS().toByteArray());
                }
                break;
            case B:
                if (k == Kind.BOOL) {
                    return v.getB();
                }
                break;
            default:
                return null;
        }
        throw new IllegalStateException("smartssd: device value " + v.getVCase() + " does not fit a " + k + " column");
    }

    /** Appends row r as row index `at` of the vectors. */
    void toColumns(Row r, WritableColumnVector[] cols, int at) {
        for (int i = 0; i < kinds.length; i++) {
            Value v = r.getValues(i);
            WritableColumnVector c = cols[i];
            if (v.getVCase() == Value.VCase.IS_NULL || v.getVCase() == Value.VCase.V_NOT_SET) {
                c.putNull(at);
                continue;
            }
            switch (kinds[i]) {
                case LONG: c.putLong(at, v.getI()); break;
                case INT: c.putInt(at, (int) v.getI()); break;
                case SHORT: c.putShort(at, (short) v.getI()); break;
                case BYTE: c.putByte(at, (byte) v.getI()); break;
                case DOUBLE: c.putDouble(at, v.getVCase() == Value.VCase.I ? (double) v.getI() : v.getD()); break;
                case FLOAT: c.putFloat(at, (float) (v.getVCase() == Value.VCase.I ? (double) v.getI() : v.getD())); break;
                case STRING: {
                    byte[] b = v.getS().toByteArray();
                    c.putByteArray(at, b, 0, b.length);
                    break;
                }
                case BOOL: c.putBoolean(at, v.getB()); break;
                default: throw new IllegalStateException();
            }
        }
    }
}
