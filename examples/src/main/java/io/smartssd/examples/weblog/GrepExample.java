package io.smartssd.examples.weblog;

import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;

/**
 * The text example: count the Common Log Format lines that contain a literal pattern, once as a
 * DeviceJob (the {@code grep} tasklet counts inside the device, one row per split) and once as a host
 * job (TextInputFormat over the FileSystem, a map that tests each line, a summing combiner and reducer).
 */
public final class GrepExample {
    /** The pattern, for the host mapper. */
    public static final String PATTERN = "smartssd.grep.pattern";

    private GrepExample() {
    }

    /** Host map: ("", 1) for a line holding the pattern. */
    public static class HostGrepMapper extends Mapper<LongWritable, Text, Text, LongWritable> {
        private final Text key = new Text("");
        private final LongWritable one = new LongWritable(1);
        private byte[] pattern;

        @Override
        protected void setup(Context ctx) {
            pattern = ctx.getConfiguration().get(PATTERN).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        protected void map(LongWritable off, Text line, Context ctx) throws IOException, InterruptedException {
            if (indexOf(line.getBytes(), line.getLength(), pattern) >= 0) {
                ctx.write(key, one);
            }
        }
    }

    static int indexOf(byte[] hay, int len, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= len; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * The count and costs of one way of running it: deviceNanos is how far the device's clock moved
     * during the job, splitsDeviceNanos the device time of its tasklet runs (execute to finish) summed
     * over the splits (0 for the host job).
     */
    record GrepRun(String version, long count, long wallNanos, long deviceNanos, long linkBytes, long splitsDeviceNanos) {
    }

    static Job job(Configuration base, boolean device, Path input, String pattern, Path output) throws IOException {
        return job(base, device, input, pattern, output, "grep");
    }

    /** The job; on the device the {@code grep} tasklet or the two-stage {@code grep2} (its start key). */
    static Job job(Configuration base, boolean device, Path input, String pattern, Path output, String tasklet)
            throws IOException {
        Configuration conf = new Configuration(base);
        conf.set(PATTERN, pattern);
        // the device job: one (count) row per split, summed
        Job job = device ? DeviceJob.counting(conf, "grep device", DeviceMapper.tasklet(tasklet).keyword(pattern), output, input)
                : hostJob(conf, input, output);
        job.setNumReduceTasks(1);
        return job;
    }

    /** The same count on the host: TextInputFormat, a map testing each line, a summing combiner and reducer. */
    private static Job hostJob(Configuration conf, Path input, Path output) throws IOException {
        Job job = Job.getInstance(conf, "grep host");
        job.setJarByClass(GrepExample.class);
        job.setInputFormatClass(TextInputFormat.class);
        FileInputFormat.addInputPath(job, input);
        job.setMapperClass(HostGrepMapper.class);
        job.setMapOutputKeyClass(Text.class);
        job.setMapOutputValueClass(LongWritable.class);
        job.setCombinerClass(LongSumReducer.class);
        job.setReducerClass(LongSumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(LongWritable.class);
        FileOutputFormat.setOutputPath(job, output);
        return job;
    }

    static GrepRun runOne(Configuration conf, boolean device, Path input, String pattern) throws Exception {
        return runOne(conf, device, input, pattern, "grep");
    }

    static GrepRun runOne(Configuration conf, boolean device, Path input, String pattern, String tasklet)
            throws Exception {
        FileSystem fs = input.getFileSystem(conf);
        SmartSsd ssd = ((SmartSsdFileSystem) fs).device();
        java.nio.file.Path tmp = Files.createTempDirectory("smartssd-grep-");
        try {
            Path output = new Path(tmp.toUri().toString(), "out");
            Job job = job(conf, device, input, pattern, output, tasklet);
            DeviceStats before = ssd.stats();
            long wall = WeblogJobs.runJob(job, null);
            if (wall < 0) {
                throw new IOException("grep " + (device ? "device" : "host") + " job failed: "
                        + job.getStatus().getFailureInfo());
            }
            DeviceStats after = ssd.stats();
            long splitsDevice = device ? job.getCounters()
                    .findCounter(io.smartssd.hadoop.mapreduce.DeviceCounter.DEVICE_NANOS).getValue() : 0;
            long count = 0;
            FileSystem local = output.getFileSystem(conf);
            for (var st : local.listStatus(output, p -> p.getName().startsWith("part-"))) {
                String text = new String(local.open(st.getPath()).readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                for (String l : text.split("\n")) {
                    if (!l.isBlank()) {
                        count += Long.parseLong(l.substring(l.lastIndexOf('\t') + 1).trim());
                    }
                }
            }
            return new GrepRun(device ? (tasklet.equals("grep") ? "device" : "device-" + tasklet) : "host", count, wall,
                    after.deviceClockNanos() - before.deviceClockNanos(),
                    after.counters().getOrDefault("host.bytes_out", 0L) - before.counters().getOrDefault("host.bytes_out", 0L),
                    splitsDevice);
        } finally {
            WeblogJobs.deleteTree(tmp);
        }
    }

    static int run(WeblogCli cli, WeblogCli.DeviceOptions a, String input, String pattern, long size, long seed,
                   boolean json) throws Exception {
        return run(cli, a, input, pattern, size, seed, json, "grep");
    }

    static int run(WeblogCli cli, WeblogCli.DeviceOptions a, String input, String pattern, long size, long seed,
                   boolean json, String tasklet) throws Exception {
        if (pattern.isEmpty()) {
            throw new IllegalArgumentException("--pattern must not be empty");
        }
        Configuration conf;
        Path in;
        if (input == null) {
            // No input: a CLF log generated on the image (kept, so a second run reuses it).
            if (a.image == null) {
                throw new IllegalArgumentException("--image IMG is required without --input");
            }
            java.nio.file.Path image = java.nio.file.Path.of(a.image).toAbsolutePath();
            long records = Math.max(1, size / 70);
            if (!Files.exists(image)) {
                Files.createDirectories(image.getParent());
                SmartSsd.format(image, Math.max(256L << 20, size * 2 + (128L << 20)), "smartssd-paper");
            }
            conf = WeblogJobs.localConf(a.maps);
            conf.set("fs.smartssd.device.grep.image", image.toString());
            in = new Path("smartssd://grep/clf/access-" + records + "r-seed" + seed + ".log");
            FileSystem fs = in.getFileSystem(conf);
            if (!fs.exists(in)) {
                cli.err().printf(Locale.ROOT, "generating %,d CLF lines on %s%n", records, in);
                try (OutputStream os = fs.create(in, true)) {
                    new Wc98Generator(seed, Wc98Generator.Mix.REALISTIC).writeClf(os, records, null);
                }
            }
        } else {
            // a local log is put on an embedded device first (the --image one, or a scratch image)
            try (WeblogCli.LocalOnDevice local = WeblogCli.LocalOnDevice.load(cli, a, input)) {
                conf = WeblogCli.conf(a, local.uri());
                return compare(cli, conf, WeblogCli.path(local.uri()), pattern, json, tasklet);
            }
        }
        return compare(cli, conf, in, pattern, json, tasklet);
    }

    /** The device job and the host job over the same input, each run twice, the second measured. */
    private static int compare(WeblogCli cli, Configuration conf, Path in, String pattern, boolean json, String tasklet)
            throws Exception {
        long bytes = in.getFileSystem(conf).getFileStatus(in).getLen();
        // Each twice, the second measured: the first runs in a JVM still loading Hadoop and JIT-compiling.
        runOne(conf, true, in, pattern, tasklet);
        runOne(conf, false, in, pattern);
        GrepRun dev = runOne(conf, true, in, pattern, tasklet);
        GrepRun host = runOne(conf, false, in, pattern);
        if (json) {
            cli.out().printf(Locale.ROOT, "{\"pattern\":\"%s\",\"input\":\"%s\",\"input_bytes\":%d,\"runs\":[%s,%s],"
                    + "\"counts_equal\":%b}%n", pattern.replace("\\", "\\\\").replace("\"", "\\\""), in, bytes,
                    json(dev), json(host), dev.count() == host.count());
        } else {
            cli.out().printf(Locale.ROOT, "lines containing \"%s\" in %s (%,d bytes)%n", pattern, in, bytes);
            cli.out().printf(Locale.ROOT, "%-8s %12s %10s %12s %16s%n", "version", "count", "wall s", "device ms",
                    "link bytes");
            for (GrepRun r : new GrepRun[] {dev, host}) {
                cli.out().printf(Locale.ROOT, "%-8s %,12d %10.2f %12.1f %,16d%n", r.version(), r.count(),
                        r.wallNanos() / 1e9, r.deviceNanos() / 1e6, r.linkBytes());
            }
            cli.out().println(dev.count() == host.count() ? "counts agree" : "COUNTS DIFFER");
        }
        return dev.count() == host.count() ? 0 : 1;
    }

    private static String json(GrepRun r) {
        return String.format(Locale.ROOT, "{\"version\":\"%s\",\"count\":%d,\"wall_ns\":%d,\"device_ns\":%d,"
                + "\"link_bytes\":%d,\"splits_device_ns\":%d}", r.version(), r.count(), r.wallNanos(), r.deviceNanos(),
                r.linkBytes(), r.splitsDeviceNanos());
    }
}
