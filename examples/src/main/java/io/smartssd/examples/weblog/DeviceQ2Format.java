package io.smartssd.examples.weblog;

import io.smartssd.hadoop.mapreduce.DeviceMapperFormat;
import io.smartssd.proto.Row;
import java.io.IOException;
import java.util.function.BiConsumer;
import org.apache.hadoop.io.IntWritable;

/**
 * weblog-q2 rows {@code (region, type, count, rank)} to (region index, counts by type), the pairs
 * {@link HostOptimized.MergingReducer} sums and re-ranks: each split's rows are partial counts and its
 * ranks are local, so the rank column is dropped here and the reducer ranks the sums.
 */
public class DeviceQ2Format extends DeviceMapperFormat<IntWritable, HostOptimized.Counts> {
    @Override
    public Class<IntWritable> keyClass() {
        return IntWritable.class;
    }

    @Override
    public Class<HostOptimized.Counts> valueClass() {
        return HostOptimized.Counts.class;
    }

    @Override
    public void convert(Row row, BiConsumer<IntWritable, HostOptimized.Counts> out) throws IOException {
        if (row.getValuesCount() != 4) {
            throw new IOException("weblog-q2 row has " + row.getValuesCount() + " columns, expected 4"
                    + " (region, type, count, rank): " + row.toString().trim());
        }
        String region = row.getValues(0).getS().toStringUtf8();
        String type = row.getValues(1).getS().toStringUtf8();
        int r = Wc98.REGIONS.indexOf(region);
        int t = Wc98.TYPES.indexOf(type);
        if (r < 0 || t < 0) {
            throw new IOException("weblog-q2 row names an unknown region or type: '" + region + "', '" + type + "'");
        }
        HostOptimized.Counts c = new HostOptimized.Counts();
        c.v = new long[Wc98.NUM_TYPES];
        c.v[t] = row.getValues(2).getI();
        out.accept(new IntWritable(r), c);
    }
}
