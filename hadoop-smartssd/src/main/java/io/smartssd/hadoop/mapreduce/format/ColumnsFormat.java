package io.smartssd.hadoop.mapreduce.format;

import io.smartssd.hadoop.mapreduce.DeviceMapperFormat;
import io.smartssd.proto.Row;
import java.io.IOException;
import java.util.function.BiConsumer;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;

/**
 * key = some columns as tab-separated text, value = one integer column: the shape of the partial
 * aggregates tasklets emit ({@code weblog-q1}'s (region, count), {@code weblog-q2}'s (region, type,
 * count, rank), grep's (count), a plan's group-by + COUNT/SUM), ready for a summing combiner/reducer.
 * By default the key is every column but the last and the value the last.
 */
public class ColumnsFormat extends DeviceMapperFormat<Text, LongWritable> {
    /** Comma-separated key column indexes (default: all but the last column; none: an empty key). */
    public static final String KEY_COLUMNS = "smartssd.format.key.columns";
    /** The value column index (default: the last column). */
    public static final String VALUE_COLUMN = "smartssd.format.value.column";

    private int[] keyColumns;
    private int valueColumn = -2;

    @Override
    public Class<Text> keyClass() {
        return Text.class;
    }

    @Override
    public Class<LongWritable> valueClass() {
        return LongWritable.class;
    }

    @Override
    public void convert(Row row, BiConsumer<Text, LongWritable> out) throws IOException {
        if (valueColumn == -2) {
            configure();
        }
        int n = row.getValuesCount();
        int value = valueColumn >= 0 ? valueColumn : n - 1;
        int[] key = keyColumns;
        if (key == null) {
            key = new int[Math.max(0, n - 1)];
            for (int i = 0; i < key.length; i++) {
                key[i] = i;
            }
        }
        out.accept(new Text(Values.join(row, key)), new LongWritable(Values.asLong(row, value)));
    }

    private void configure() throws IOException {
        valueColumn = getConf() == null ? -1 : getConf().getInt(VALUE_COLUMN, -1);
        String keys = getConf() == null ? null : getConf().get(KEY_COLUMNS);
        if (keys != null) {
            String[] parts = keys.trim().isEmpty() ? new String[0] : keys.split(",");
            keyColumns = new int[parts.length];
            for (int i = 0; i < parts.length; i++) {
                try {
                    keyColumns[i] = Integer.parseInt(parts[i].trim());
                } catch (NumberFormatException e) {
                    throw new IOException(KEY_COLUMNS + " = " + keys + ": '" + parts[i] + "' is not a column index");
                }
            }
        }
    }
}
