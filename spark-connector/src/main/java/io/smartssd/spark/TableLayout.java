package io.smartssd.spark;

import io.smartssd.proto.Column;
import io.smartssd.proto.ColumnType;
import io.smartssd.proto.DelimitedText;
import io.smartssd.proto.FixedRecords;
import io.smartssd.proto.Plan;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How the table's Spark columns lie in the object: the table schema, one device {@link Column} per field
 * (same order, so a plan's column index is the field index) and the input format of the plan.
 */
final class TableLayout implements Serializable {
    private static final long serialVersionUID = 1L;

    static final int MAX_COLUMNS = 256;

    private final StructType schema;
    private final byte[][] columns;
    private final byte[] format;   // a Plan holding only fixed{} or text{}
    private final String description;
    private boolean parquet;

    private TableLayout(StructType schema, List<Column> cols, Plan format, String description) {
        this.schema = schema;
        this.columns = new byte[cols.size()][];
        for (int i = 0; i < cols.size(); i++) {
            columns[i] = cols.get(i).toByteArray();
        }
        this.format = format.toByteArray();
        this.description = description;
    }

    static TableLayout fixed(StructType schema, List<Column> cols, int entryBytes, String description) {
        return new TableLayout(schema, cols, Plan.newBuilder()
                .setFixed(FixedRecords.newBuilder().setEntryBytes(entryBytes)).build(), description);
    }

    /**
     * Parquet objects: column i of the schema is leaf leaves[i] of the files' schema, of device type
     * types[i]. The plan's input is the whole object; each reader adds that object's footer.
     */
    static TableLayout parquet(StructType schema, int[] leaves, ColumnType[] types, String description) {
        List<Column> cols = new java.util.ArrayList<>();
        StructField[] fields = schema.fields();
        for (int i = 0; i < fields.length; i++) {
            cols.add(Column.newBuilder().setName(fields[i].name()).setType(types[i]).setField(leaves[i]).build());
        }
        TableLayout l = new TableLayout(nullable(schema), cols,
                Plan.newBuilder().setParquet(io.smartssd.proto.ParquetObject.getDefaultInstance()).build(), description);
        l.parquet = true;
        return l;
    }

    /** The input is whole Parquet objects (one partition each). */
    boolean isParquet() {
        return parquet;
    }

    /** Delimited text: field i of the user schema is field i of each line. */
    static TableLayout text(StructType schema, String delimiter, boolean header) {
        return text(schema, delimiter, "", "", header);
    }

    /** Delimited text with quoted fields read as Spark's CSV reader reads them (quote/escape "" = off). */
    static TableLayout text(StructType schema, String delimiter, String quote, String escape, boolean header) {
        if (schema.fields().length == 0) {
            throw new IllegalArgumentException("schema: format csv needs at least one column");
        }
        if (schema.fields().length > MAX_COLUMNS) {
            throw new IllegalArgumentException("schema has " + schema.fields().length + " columns; the device"
                    + " plan holds at most " + MAX_COLUMNS);
        }
        List<Column> cols = new java.util.ArrayList<>();
        StructField[] fields = schema.fields();
        for (int i = 0; i < fields.length; i++) {
            cols.add(Column.newBuilder().setName(fields[i].name()).setType(deviceType(fields[i]))
                    .setField(i).build());
        }
        Plan fmt = Plan.newBuilder().setText(DelimitedText.newBuilder().setDelimiter(delimiter)
                .setQuote(quote).setEscape(escape).setSkipHeader(header)).build();
        String desc = "csv delimiter='" + (delimiter.equals("\t") ? "\\t" : delimiter) + "'"
                + (quote.isEmpty() ? "" : " quote='" + quote + "' escape='" + escape + "'") + " header=" + header;
        return new TableLayout(nullable(schema), cols, fmt, desc);
    }

    /**
     * A user tasklet's output rows: column i of the schema is value i of each row. Only for translating
     * predicates (column indexes and types); no plan reads this format.
     */
    static TableLayout rows(StructType schema) {
        return text(schema, ",", false);
    }

    /** The device type a Spark column is read as, or an error naming the column. */
    static ColumnType deviceType(StructField f) {
        DataType t = f.dataType();
        if (t instanceof LongType || t instanceof IntegerType || t instanceof ShortType || t instanceof ByteType) {
            return ColumnType.INT64;
        }
        if (t instanceof DoubleType) {
            return ColumnType.DOUBLE;
        }
        if (t instanceof StringType) {
            return ColumnType.STRING;
        }
        if (t instanceof BooleanType) {
            return ColumnType.BOOL;
        }
        throw new IllegalArgumentException("schema: column '" + f.name() + "' has type " + t.simpleString()
                + ", which the smartssd format cannot read (supported: bigint, int, smallint, tinyint, double,"
                + " string, boolean)");
    }

    /** Device values can always be NULL (empty or unparsable fields), so every column is nullable. */
    static StructType nullable(StructType s) {
        StructField[] out = new StructField[s.fields().length];
        for (int i = 0; i < out.length; i++) {
            StructField f = s.fields()[i];
            out[i] = new StructField(f.name(), f.dataType(), true, f.metadata());
        }
        return new StructType(out);
    }

    StructType schema() {
        return schema;
    }

    int indexOf(String name) {
        StructField[] f = schema.fields();
        for (int i = 0; i < f.length; i++) {
            if (f[i].name().equals(name)) {
                return i;
            }
        }
        for (int i = 0; i < f.length; i++) {
            if (f[i].name().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    ColumnType typeOf(int index) {
        return column(index).getType();
    }

    Column column(int index) {
        try {
            return Column.parseFrom(columns[index]);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A plan builder with the input format and every column set (indexes = schema field indexes). */
    Plan.Builder planBuilder() {
        try {
            Plan.Builder b = Plan.parseFrom(format).toBuilder();
            for (int i = 0; i < columns.length; i++) {
                b.addColumns(column(i));
            }
            return b;
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    String description() {
        return description;
    }
}
