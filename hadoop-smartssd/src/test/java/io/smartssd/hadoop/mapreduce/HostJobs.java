package io.smartssd.hadoop.mapreduce;

import java.io.IOException;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Mapper;

/** The same map logic as the device tasklets, run on the host over data read through the FileSystem. */
final class HostJobs {
    private HostJobs() {
    }

    /** weblog-q1 on the host: FixedLengthInputFormat record -> (region, 1). */
    public static class Q1Mapper extends Mapper<LongWritable, BytesWritable, Text, LongWritable> {
        private final LongWritable one = new LongWritable(1);
        private final Text region = new Text();

        @Override
        protected void map(LongWritable key, BytesWritable value, Context ctx) throws IOException, InterruptedException {
            region.set(TestData.REGIONS[(value.getBytes()[19] & 0xff) >> 5]);
            ctx.write(region, one);
        }
    }

    /** grep -c on the host: TextInputFormat line -> ("", 1) when it contains the pattern. */
    public static class GrepMapper extends Mapper<LongWritable, Text, Text, LongWritable> {
        private final LongWritable one = new LongWritable(1);
        private final Text empty = new Text("");
        private String pattern;

        @Override
        protected void setup(Context ctx) {
            pattern = ctx.getConfiguration().get("test.grep.pattern");
        }

        @Override
        protected void map(LongWritable key, Text value, Context ctx) throws IOException, InterruptedException {
            if (value.toString().contains(pattern)) {
                ctx.write(empty, one);
            }
        }
    }
}
