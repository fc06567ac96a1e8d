package io.smartssd.hadoop.mapreduce.format;

import io.smartssd.proto.Row;
import io.smartssd.proto.Value;
import java.io.IOException;

/** Reading the columns of a result row as text or numbers. */
final class Values {
    /** How a NULL value reads as text (Hive's convention). */
    static final String NULL_TEXT = "\\N";

    private Values() {
    }

    static String text(Value v) {
        return switch (v.getVCase()) {
            case I -> Long.toString(v.getI());
            case D -> Double.toString(v.getD());
            case S -> v.getS().toStringUtf8();
            case B -> Boolean.toString(v.getB());
            case IS_NULL, V_NOT_SET -> NULL_TEXT;
        };
    }

    static long asLong(Row row, int column) throws IOException {
        Value v = column(row, column);
        return switch (v.getVCase()) {
            case I -> v.getI();
            case B -> v.getB() ? 1 : 0;
            default -> throw new IOException("column " + column + " of a device row is " + v.getVCase()
                    + ", not an integer: " + row.toString().trim());
        };
    }

    static Value column(Row row, int column) throws IOException {
        if (column < 0 || column >= row.getValuesCount()) {
            throw new IOException("device row has " + row.getValuesCount() + " columns, no column " + column);
        }
        return row.getValues(column);
    }

    /** Columns joined by tabs. */
    static String join(Row row, int[] columns) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < columns.length; i++) {
            if (i > 0) {
                sb.append('\t');
            }
            sb.append(text(column(row, columns[i])));
        }
        return sb.toString();
    }
}
