package io.smartssd.examples.weblog;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * The paper's host-optimized version (V-C-1: "storing intermediate results sorted and compacted only in
 * in-memory data structures designed for log-analysis"): each map task counts into a small array indexed
 * by region (and type), and emits one pair per region when its split ends. The same bytes cross the
 * host link as in host-normal; what disappears is the intermediate data (at most 8 pairs per map task
 * instead of one per record).
 */
public final class HostOptimized {
    private HostOptimized() {
    }

    /** A region's counts per type (Q2) or its single total (Q1). */
    public static class Counts implements Writable {
        long[] v = new long[0];

        @Override
        public void write(DataOutput out) throws IOException {
            out.writeInt(v.length);
            for (long x : v) {
                out.writeLong(x);
            }
        }

        @Override
        public void readFields(DataInput in) throws IOException {
            int n = in.readInt();
            if (v.length != n) {
                v = new long[n];
            }
            for (int i = 0; i < n; i++) {
                v[i] = in.readLong();
            }
        }
    }

    /** Counts in memory; one (region, counts) pair per region at the end of the split. */
    public static class CountingMapper extends Mapper<LongWritable, BytesWritable, IntWritable, Counts> {
        private long[][] counts;
        private boolean q2;

        @Override
        protected void setup(Context ctx) {
            q2 = WeblogQuery.parse(ctx.getConfiguration().get(WeblogJobs.QUERY, "q1")) == WeblogQuery.Q2;
            counts = new long[Wc98.NUM_REGIONS][q2 ? Wc98.NUM_TYPES : 1];
        }

        @Override
        protected void map(LongWritable key, BytesWritable value, Context ctx) {
            byte[] b = value.getBytes();
            if (q2) {
                counts[Wc98.region(b[Wc98.OFF_SERVER])][Wc98.type(b[Wc98.OFF_TYPE])]++;
            } else {
                counts[Wc98.region(b[Wc98.OFF_SERVER])][0]++;
            }
        }

        @Override
        protected void cleanup(Context ctx) throws IOException, InterruptedException {
            IntWritable region = new IntWritable();
            Counts c = new Counts();
            for (int r = 0; r < Wc98.NUM_REGIONS; r++) {
                if (Arrays.stream(counts[r]).sum() > 0) {
                    region.set(r);
                    c.v = counts[r];
                    ctx.write(region, c);
                }
            }
        }
    }

    /** Sums a region's counts and writes its answer rows (Q1: one, Q2: the ranked types). */
    public static class MergingReducer extends Reducer<IntWritable, Counts, NullWritable, Text> {
        private final Text line = new Text();

        @Override
        protected void reduce(IntWritable region, Iterable<Counts> parts, Context ctx)
                throws IOException, InterruptedException {
            long[] sum = null;
            for (Counts c : parts) {
                if (sum == null) {
                    sum = new long[c.v.length];
                }
                for (int i = 0; i < sum.length; i++) {
                    sum[i] += c.v[i];
                }
            }
            String name = Wc98.REGIONS.get(region.get());
            if (sum.length == 1) {
                line.set(name + "\t" + sum[0]);
                ctx.write(NullWritable.get(), line);
                return;
            }
            int topN = ctx.getConfiguration().getInt(WeblogJobs.TOP_N, WeblogAnswer.DEFAULT_TOP_N);
            for (String l : WeblogAnswer.q2Lines(name, sum, topN)) {
                line.set(l);
                ctx.write(NullWritable.get(), line);
            }
        }
    }
}
