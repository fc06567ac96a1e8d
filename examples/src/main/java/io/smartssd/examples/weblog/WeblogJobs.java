package io.smartssd.examples.weblog;

import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.examples.local.InProcessLocalFileSystem;
import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Builds and runs the three versions of the two queries as Hadoop jobs, and reads their answers;
 * {@link #run} also runs the spark-device version ({@link SparkWeblog}).
 * {@link #localConf} gives the LocalJobRunner configuration the CLI and tests use.
 */
public final class WeblogJobs {
    /** The query (q1 or q2), for the host-optimized mapper. */
    public static final String QUERY = "smartssd.weblog.query";
    /** Q2's N (top-N file types per region). */
    public static final String TOP_N = "smartssd.weblog.top.n";

    private WeblogJobs() {
    }

    /** Hadoop on LocalJobRunner: map tasks as threads of this JVM, {@code maps} at a time. */
    public static Configuration localConf(int maps) {
        Configuration conf = new Configuration();
        conf.set("mapreduce.framework.name", "local");
        conf.set("fs.defaultFS", "file:///");
        conf.setInt("mapreduce.local.map.tasks.maximum", maps);
        // every version: staging, task directories and output without a chmod process per file
        return InProcessLocalFileSystem.use(conf);
    }

    /** The job for one version of one query, reading {@code input}, writing text rows to {@code output}. */
    public static Job create(Configuration base, Version v, WeblogQuery q, Path input, Path output, int entryBytes,
                             int topN) throws IOException {
        if (v == Version.SPARK_DEVICE) {
            throw new IllegalArgumentException("spark-device is not a Hadoop job: run it with run() or SparkWeblog");
        }
        Wc98.checkEntryBytes(entryBytes);
        if (topN < 1 || topN > Wc98.NUM_TYPES) {
            throw new IllegalArgumentException("top-n " + topN + " is out of range [1, 13]");
        }
        Configuration conf = new Configuration(base);
        splitEvenly(conf, input, v);
        conf.set(QUERY, q.shortName());
        conf.setInt(TOP_N, topN);
        conf.setInt(FixedRecordInputFormat.ENTRY_BYTES, entryBytes);
        String name = q.shortName() + " " + v.label() + " " + input.getName();
        Job job;
        if (v == Version.DEVICE) {
            DeviceMapper m = DeviceMapper.tasklet(q.tasklet()).param("entry_bytes", Integer.toString(entryBytes));
            DeviceJob dj;
            if (q == WeblogQuery.Q1) {
                // (region, count) rows summed per region
                dj = DeviceJob.counting(conf, name, m, output, input);
            } else {
                dj = DeviceJob.getInstance(conf, name);
                dj.setDeviceMapper(m.param("top_n", Integer.toString(topN)));
                dj.setDeviceMapperFormat(DeviceQ2Format.class);
                dj.setReducerClass(HostOptimized.MergingReducer.class);
                dj.setOutputKeyClass(NullWritable.class);
                dj.setOutputValueClass(Text.class);
                dj.addInputPath(input);
            }
            // the tasklets' host counterpart: with smartssd.offload = host | auto, splits may run here
            dj.setHostMapper(WeblogHostMapper.class);
            job = dj;
        } else {
            // The record reader checks this too, but LocalJobRunner reports a task's failure only in its log.
            long size = input.getFileSystem(conf).getFileStatus(input).getLen();
            if (size % entryBytes != 0) {
                throw new IOException(input + ": size " + size + " is not a multiple of entry bytes " + entryBytes
                        + " (wrong --entry-bytes?)");
            }
            job = Job.getInstance(conf, name);
            job.setJarByClass(WeblogJobs.class);
            job.setInputFormatClass(FixedRecordInputFormat.class);
            FileInputFormat.addInputPath(job, input);
            if (v == Version.HOST_OPTIMIZED) {
                // Its maps emit at most 8 compacted pairs: the same small sort buffer as a DeviceJob's.
                job.getConfiguration().setInt(MRJobConfig.IO_SORT_MB, DeviceJob.DEFAULT_SORT_MB);
                job.setMapperClass(HostOptimized.CountingMapper.class);
                job.setMapOutputKeyClass(IntWritable.class);
                job.setMapOutputValueClass(HostOptimized.Counts.class);
                job.setReducerClass(HostOptimized.MergingReducer.class);
                job.setOutputKeyClass(NullWritable.class);
                job.setOutputValueClass(Text.class);
            } else if (q == WeblogQuery.Q1) {
                job.setMapperClass(HostNormal.Q1Mapper.class);
                job.setMapOutputKeyClass(Text.class);
                job.setMapOutputValueClass(LongWritable.class);
                job.setReducerClass(HostNormal.Q1Reducer.class);
                job.setOutputKeyClass(Text.class);
                job.setOutputValueClass(LongWritable.class);
            } else {
                job.setMapperClass(HostNormal.Q2Mapper.class);
                job.setMapOutputKeyClass(IntWritable.class);
                job.setMapOutputValueClass(IntWritable.class);
                job.setReducerClass(HostNormal.Q2Reducer.class);
                job.setOutputKeyClass(NullWritable.class);
                job.setOutputValueClass(Text.class);
            }
        }
        job.setNumReduceTasks(1);
        FileOutputFormat.setOutputPath(job, output);
        return job;
    }

    /**
     * Unless the split size is configured: host-optimized gets one split per map slot (at least 32 MiB
     * each), the device version one split per input object, host-normal Hadoop's own (one per block:
     * its maps emit every record, and a split of half a GiB spills them to disk several times: in two
     * bench runs at 1 GiB ten minutes apart, same load, Q2 took 27 s as two splits and 12 s as 32). On LocalJobRunner each map task costs tens
     * of ms of setup, so 32 MiB splits (the block size) make a 1 GB job spend seconds on task setup; and
     * the device already runs one tasklet over all its channels and cores, so a second concurrent
     * tasklet on the same device only shares the same device thread (measured: 1 GB Q2 took 1.8 s as
     * one split, 3.2 s as two, 0.7 s without Hadoop).
     *
     * With {@code smartssd.offload} host or auto the device version gets four splits per map slot (at least
     * 4 MiB each), so that the planner has splits to place.
     *
     * <p>"Configured" means a maximum, or a minimum above 1 (FileInputFormat's own floor): once any job
     * has loaded mapred-default.xml, every Configuration reads its minimum of 0, which is no choice.
     */
    static void splitEvenly(Configuration conf, Path input, Version v) throws IOException {
        if (v == Version.HOST_NORMAL || conf.getLong(MIN_SPLIT, 0) > 1 || conf.get(MAX_SPLIT) != null) {
            return;
        }
        boolean device = v == Version.DEVICE;
        long size = input.getFileSystem(conf).getFileStatus(input).getLen();
        int slots = Math.max(1, conf.getInt("mapreduce.local.map.tasks.maximum", 1));
        if (device && !offloadMode(conf).equals("device")) {
            // splits the offload planner can place one by one: four per map slot, of at least 4 MiB
            int n = 4 * slots;
            conf.setLong(MIN_SPLIT, Math.max(4L << 20, (size + n - 1) / n));
            conf.setLong(MAX_SPLIT, Math.max(4L << 20, (size + n - 1) / n));
            return;
        }
        conf.setLong(MIN_SPLIT, Math.max(32L << 20, (size + (device ? 1 : slots) - 1) / (device ? 1 : slots)));
    }

    /** The job's smartssd.offload, lower case ("device" when unset). */
    static String offloadMode(Configuration conf) {
        return conf.getTrimmed(DeviceJob.OFFLOAD, "device").toLowerCase(java.util.Locale.ROOT);
    }

    static final String MIN_SPLIT = "mapreduce.input.fileinputformat.split.minsize";
    static final String MAX_SPLIT = "mapreduce.input.fileinputformat.split.maxsize";

    /**
     * The answer a job wrote: lines {@code region TAB count} (Q1, any order) or the Q2 rows, each
     * region's rows together in rank order; brought to the canonical order (by region index).
     */
    public static WeblogAnswer readAnswer(Configuration conf, Path output, WeblogQuery q) throws IOException {
        FileSystem fs = output.getFileSystem(conf);
        List<String> lines = new ArrayList<>();
        for (FileStatus st : fs.listStatus(output, p -> p.getName().startsWith("part-"))) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(st.getPath()), StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    if (!l.isEmpty()) {
                        lines.add(l);
                    }
                }
            }
        }
        List<String> ordered = new ArrayList<>();
        for (String region : Wc98.REGIONS) {
            for (String l : lines) {
                if (l.startsWith(region + "\t")) {
                    ordered.add(l);
                }
            }
        }
        if (ordered.size() != lines.size()) {
            throw new IOException(output + ": the job wrote rows that name no known region: " + lines);
        }
        return new WeblogAnswer(q, ordered);
    }

    /**
     * Runs one version of one query and measures it. {@code progress} (may be null) gets the map
     * progress (0..1) a few times a second.
     */
    public static RunResult run(Configuration conf, Version v, WeblogQuery q, Path input, int entryBytes, int topN,
                                DoubleConsumer progress) throws IOException, InterruptedException {
        if (v == Version.SPARK_DEVICE) {   // not a Hadoop job: a Spark DataFrame program
            return SparkWeblog.run(conf, q, input, entryBytes, topN, progress);
        }
        FileSystem inFs = input.getFileSystem(conf);
        long inputBytes = inFs.getFileStatus(input).getLen();
        SmartSsd ssd = inFs instanceof SmartSsdFileSystem s ? s.device() : null;
        java.nio.file.Path tmp = Files.createTempDirectory("smartssd-weblog-");
        Path output = new Path(tmp.toUri().toString(), "out");
        try {
            Job job = create(conf, v, q, input, output, entryBytes, topN);
            java.nio.file.Path report = null;
            if (v == Version.DEVICE && !offloadMode(conf).equals("device")
                    && job.getConfiguration().get(DeviceJob.OFFLOAD_REPORT) == null) {
                report = tmp.resolve("offload.jsonl");   // the per-split report, for the result
                job.getConfiguration().set(DeviceJob.OFFLOAD_REPORT, report.toString());
            }
            DeviceStats before = ssd == null ? null : ssd.stats();
            long wall = runJob(job, progress);
            if (wall < 0) {
                throw new IOException(q.shortName() + " " + v.label() + " on " + input + " failed: "
                        + failureOf(job));
            }
            if (progress != null) {
                progress.accept(1.0);
            }
            long deviceNs = -1;
            long link;
            long flash = -1;
            if (ssd != null) {
                DeviceStats after = ssd.stats();
                deviceNs = after.deviceClockNanos() - before.deviceClockNanos();
                link = delta(before, after, "host.bytes_out");
                flash = delta(before, after, "flash.bytes_read");
            } else {
                link = inputBytes; // read once from a local disk: no device to count for us
            }
            WeblogAnswer answer = readAnswer(conf, output, q);
            OffloadReport offload = null;
            if (v == Version.DEVICE && !offloadMode(conf).equals("device")) {
                String r = job.getConfiguration().get(DeviceJob.OFFLOAD_REPORT);
                java.nio.file.Path file = report != null ? report : java.nio.file.Path.of(r);
                var c = job.getCounters().getGroup(DeviceJob.OFFLOAD_COUNTERS);
                offload = new OffloadReport(job.getConfiguration().get(DeviceJob.OFFLOAD_PLAN_SUMMARY, "(no plan)"),
                        c.findCounter("device.splits").getValue(), c.findCounter("host.splits").getValue(),
                        c.findCounter("device.splits.replanned").getValue() + c.findCounter("host.splits.replanned").getValue(),
                        Files.exists(file) ? Files.readAllLines(file) : List.of());
            }
            return new RunResult(v, q, entryBytes, inputBytes, answer, wall, deviceNs, link, flash, offload);
        } finally {
            deleteTree(tmp);
        }
    }

    /**
     * Submits a job and waits for it, polling every 1 ms at first and then at 2% of the time waited so
     * far, at most every 20 ms (Job.waitForCompletion polls every 5 s, which would swamp short jobs; a
     * fixed 20 ms added 10 ms to a 0.2 s job on average); returns its wall time in ns, or -1 if it failed.
     */
    static long runJob(Job job, DoubleConsumer progress) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        try {
            job.submit();
        } catch (ClassNotFoundException e) {
            throw new IOException("cannot submit " + job.getJobName() + ": " + e, e);
        }
        long lastReport = 0;
        while (!job.isComplete()) {
            long now = System.nanoTime();
            if (progress != null && now - lastReport > 100_000_000L) {
                progress.accept(job.mapProgress());
                lastReport = now;
            }
            Thread.sleep(Math.min(20, 1 + (now - t0) / 50_000_000L));
        }
        long wall = System.nanoTime() - t0;
        return job.isSuccessful() ? wall : -1;
    }

    private static long delta(DeviceStats a, DeviceStats b, String counter) {
        return b.counters().getOrDefault(counter, 0L) - a.counters().getOrDefault(counter, 0L);
    }

    private static String failureOf(Job job) {
        try {
            StringBuilder sb = new StringBuilder();
            for (var e : job.getTaskCompletionEvents(0, 100)) {
                for (String d : job.getTaskDiagnostics(e.getTaskAttemptId())) {
                    sb.append(d.lines().findFirst().orElse(d)).append("; ");
                }
            }
            String info = job.getStatus().getFailureInfo();
            return sb.length() > 0 ? sb.toString()
                    : info == null || info.equals("NA") ? "a task failed (LocalJobRunner logged the cause above)" : info;
        } catch (IOException | InterruptedException | RuntimeException e) {
            return "see the job log (" + e + ")";
        }
    }

    static void deleteTree(java.nio.file.Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var s = Files.walk(p)) {
            for (java.nio.file.Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(x);
            }
        }
    }
}
