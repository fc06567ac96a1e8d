package io.smartssd.examples.weblog;

import java.io.IOException;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * The paper's host-normal version: a plain MapReduce job. Every record becomes one intermediate pair
 * that Hadoop spills, sorts, merges and shuffles (no combiner, no in-memory aggregation), which is
 * what makes this version slow in the paper (V-C-1: "the large amount of intermediate data").
 */
public final class HostNormal {
    private HostNormal() {
    }

    private static final Text[] REGION_KEYS = new Text[Wc98.NUM_REGIONS];
    static {
        for (int r = 0; r < Wc98.NUM_REGIONS; r++) {
            REGION_KEYS[r] = new Text(Wc98.REGIONS.get(r));
        }
    }

    /** Q1 map: (region name, 1) per record. */
    public static class Q1Mapper extends Mapper<LongWritable, BytesWritable, Text, LongWritable> {
        private final LongWritable one = new LongWritable(1);

        @Override
        protected void map(LongWritable key, BytesWritable value, Context ctx) throws IOException, InterruptedException {
            ctx.write(REGION_KEYS[Wc98.region(value.getBytes()[Wc98.OFF_SERVER])], one);
        }
    }

    /** Q1 reduce: the sum per region, written as {@code region TAB count}. */
    public static class Q1Reducer extends Reducer<Text, LongWritable, Text, LongWritable> {
        private final LongWritable sum = new LongWritable();

        @Override
        protected void reduce(Text region, Iterable<LongWritable> ones, Context ctx)
                throws IOException, InterruptedException {
            long n = 0;
            for (LongWritable v : ones) {
                n += v.get();
            }
            sum.set(n);
            ctx.write(region, sum);
        }
    }

    /** Q2 map: (region index, type index) per record. */
    public static class Q2Mapper extends Mapper<LongWritable, BytesWritable, IntWritable, IntWritable> {
        private final IntWritable region = new IntWritable();
        private final IntWritable type = new IntWritable();

        @Override
        protected void map(LongWritable key, BytesWritable value, Context ctx) throws IOException, InterruptedException {
            byte[] b = value.getBytes();
            region.set(Wc98.region(b[Wc98.OFF_SERVER]));
            type.set(Wc98.type(b[Wc98.OFF_TYPE]));
            ctx.write(region, type);
        }
    }

    /** Q2 reduce: counts a region's types, ranks them, writes its answer rows. */
    public static class Q2Reducer extends Reducer<IntWritable, IntWritable, NullWritable, Text> {
        private final Text line = new Text();

        @Override
        protected void reduce(IntWritable region, Iterable<IntWritable> types, Context ctx)
                throws IOException, InterruptedException {
            long[] counts = new long[Wc98.NUM_TYPES];
            for (IntWritable t : types) {
                counts[t.get()]++;
            }
            int topN = ctx.getConfiguration().getInt(WeblogJobs.TOP_N, WeblogAnswer.DEFAULT_TOP_N);
            for (String l : WeblogAnswer.q2Lines(Wc98.REGIONS.get(region.get()), counts, topN)) {
                line.set(l);
                ctx.write(NullWritable.get(), line);
            }
        }
    }
}
