package io.smartssd.hadoop.mapreduce.format;

import io.smartssd.hadoop.mapreduce.DeviceMapperFormat;
import io.smartssd.proto.Row;
import java.io.IOException;
import java.util.function.BiConsumer;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;

/**
 * key = the whole row as tab-separated text (NULL as {@code \N}), value = nothing: for tasklets that
 * emit records rather than aggregates (filter, grep in lines mode, a plan's projection).
 */
public class RowTextFormat extends DeviceMapperFormat<Text, NullWritable> {
    @Override
    public Class<Text> keyClass() {
        return Text.class;
    }

    @Override
    public Class<NullWritable> valueClass() {
        return NullWritable.class;
    }

    @Override
    public void convert(Row row, BiConsumer<Text, NullWritable> out) throws IOException {
        int[] all = new int[row.getValuesCount()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        out.accept(new Text(Values.join(row, all)), NullWritable.get());
    }
}
