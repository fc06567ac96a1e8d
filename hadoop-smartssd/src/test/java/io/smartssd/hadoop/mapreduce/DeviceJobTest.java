package io.smartssd.hadoop.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.hadoop.fs.TestImages;
import io.smartssd.hadoop.mapreduce.format.ColumnsFormat;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter;
import org.apache.hadoop.mapreduce.lib.input.FixedLengthInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A DeviceJob gives exactly the answer of the host job with the same logic reading the same object
 * through the FileSystem, for several split sizes (split boundaries at arbitrary bytes, cutting records
 * and lines), and both equal the answer computed here from the bytes; the DeviceJob moves far fewer
 * bytes to the host, and its counters add up.
 */
class DeviceJobTest {
    static final String DEV = "jobs";
    static final int ENTRY = 20;
    static final int RECORDS = 20_000;
    static final String LOGS = "smartssd://" + DEV + "/logs/wc98.bin";
    static final String TEXT = "smartssd://" + DEV + "/text/lines.txt";

    static Configuration conf;
    static FileSystem fs;
    static byte[] logs;
    static byte[] text;

    @BeforeAll
    static void setUp() throws Exception {
        conf = JobRunner.localConf(DEV, TestImages.fresh("jobs"));
        fs = FileSystem.get(URI.create("smartssd://" + DEV + "/"), conf);
        logs = TestData.wc98(RECORDS, ENTRY, 7);
        text = TestData.text(6_000, 11);
        JobRunner.put(fs, LOGS, logs);
        JobRunner.put(fs, TEXT, text);
    }

    @AfterAll
    static void tearDown() throws Exception {
        fs.close();
    }

    private static Path out(String what) {
        return TestImages.dir().resolve("out-" + what + "-" + UUID.randomUUID());
    }

    /** The counting recipe by hand, as DeviceJob's javadoc spells it out. */
    private static DeviceJob deviceQ1ByHand(long splitSize, Path out) throws Exception {
        DeviceJob job = DeviceJob.getInstance(conf, "device q1");
        job.addInputPath(new org.apache.hadoop.fs.Path(LOGS));
        job.setDeviceMapper(DeviceMapper.tasklet("weblog-q1").param("entry_bytes", Integer.toString(ENTRY)));
        job.setDeviceMapperFormat(ColumnsFormat.class);
        job.setCombinerClass(LongSumReducer.class);
        job.setReducerClass(LongSumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(LongWritable.class);
        FileInputFormat.setMaxInputSplitSize(job, splitSize);
        FileOutputFormat.setOutputPath(job, new org.apache.hadoop.fs.Path(out.toUri()));
        return job;
    }

    private static DeviceJob deviceQ1(long splitSize, Path out) throws Exception {
        DeviceJob job = DeviceJob.counting(conf, "device q1",
                DeviceMapper.tasklet("weblog-q1").param("entry_bytes", Integer.toString(ENTRY)),
                new org.apache.hadoop.fs.Path(out.toUri()), new org.apache.hadoop.fs.Path(LOGS));
        FileInputFormat.setMaxInputSplitSize(job, splitSize);
        return job;
    }

    /** DeviceJob.counting configures exactly what the recipe by hand does. */
    @Test
    void countingIsTheRecipeByHand() throws Exception {
        Path out = out("same");
        Configuration helper = deviceQ1(7_919, out).getConfiguration();
        Configuration hand = deviceQ1ByHand(7_919, out).getConfiguration();
        Map<String, String> a = new java.util.TreeMap<>();
        Map<String, String> b = new java.util.TreeMap<>();
        helper.forEach(e -> a.put(e.getKey(), e.getValue()));
        hand.forEach(e -> b.put(e.getKey(), e.getValue()));
        assertEquals(b, a);
        assertEquals(LongSumReducer.class.getName(), a.get("mapreduce.job.combine.class"));
        assertEquals(ColumnsFormat.class.getName(), a.get(DeviceJob.FORMAT));
    }

    private static Job hostQ1(long splitSize, Path out) throws Exception {
        Job job = Job.getInstance(conf, "host q1");
        FixedLengthInputFormat.setRecordLength(job.getConfiguration(), ENTRY);
        job.setInputFormatClass(FixedLengthInputFormat.class);
        FileInputFormat.addInputPath(job, new org.apache.hadoop.fs.Path(LOGS));
        job.setMapperClass(HostJobs.Q1Mapper.class);
        job.setCombinerClass(LongSumReducer.class);
        job.setReducerClass(LongSumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(LongWritable.class);
        FileInputFormat.setMaxInputSplitSize(job, splitSize);
        FileOutputFormat.setOutputPath(job, new org.apache.hadoop.fs.Path(out.toUri()));
        return job;
    }

    /** FileInputFormat's rule: whole splits while more than 1.1 split sizes remain, then the rest. */
    static long expectedSplits(long length, long maxSplit) {
        long size = Math.min(maxSplit, 32L << 20);
        long n = 0;
        long rest = length;
        while ((double) rest / size > 1.1) {
            n++;
            rest -= size;
        }
        return rest > 0 ? n + 1 : n;
    }

    /** Split sizes: the whole object, and byte counts that are not multiples of the record size. */
    @ParameterizedTest
    @ValueSource(longs = {1L << 30, 131_071, 33_331, 7_919})
    void weblogQ1EqualsHostJob(long splitSize) throws Exception {
        Path dOut = out("dq1");
        Path hOut = out("hq1");
        DeviceJob d = deviceQ1(splitSize, dOut);
        assertTrue(d.waitForCompletion(false), "device job failed");
        Job h = hostQ1(splitSize, hOut);
        assertTrue(h.waitForCompletion(false), "host job failed");

        Map<String, Long> expected = TestData.q1(logs, ENTRY);
        Map<String, Long> device = JobRunner.output(dOut);
        assertEquals(expected, device);
        assertEquals(expected, JobRunner.output(hOut));
        assertEquals(RECORDS, device.values().stream().mapToLong(Long::longValue).sum());

        long splits = expectedSplits(logs.length, splitSize);
        Counters dc = d.getCounters();
        Counters hc = h.getCounters();
        assertEquals(splits, dc.findCounter(DeviceCounter.SPLITS).getValue());
        assertEquals(splits, dc.findCounter(DeviceRecordReader.DEVICES_GROUP, DEV + ".splits").getValue());
        // The host job's maps read every byte; the device job's only the rows (<= 8 per split). The
        // FileSystemCounter group is JVM-wide under LocalJobRunner, so use the input format's counter.
        long hostBytes = hc.findCounter(FileInputFormatCounter.BYTES_READ).getValue();
        long deviceBytes = dc.findCounter(DeviceCounter.BYTES_TO_HOST).getValue();
        assertTrue(hostBytes >= logs.length, "host job read " + hostBytes);
        assertTrue(deviceBytes > 0 && deviceBytes * 100 < hostBytes,
                "device job sent " + deviceBytes + " bytes to the host, host job read " + hostBytes);
        assertTrue(dc.findCounter(DeviceCounter.FLASH_BYTES_READ).getValue() >= logs.length);
        assertTrue(dc.findCounter(DeviceCounter.DEVICE_NANOS).getValue() > 0);
        long rows = dc.findCounter(DeviceCounter.ROWS).getValue();
        assertEquals(rows, dc.findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
        assertTrue(rows >= expected.size() && rows <= 8 * splits, "rows " + rows);
        // per split: stat, create tasklet, create output, execute, delete x2, and the polls
        assertEquals(6 * splits + dc.findCounter(DeviceCounter.POLLS).getValue(),
                dc.findCounter(DeviceCounter.COMMANDS).getValue());
    }

    @ParameterizedTest
    @ValueSource(longs = {1L << 30, 65_537, 4_099})
    void grepCountEqualsHostJob(long splitSize) throws Exception {
        Path dOut = out("dgrep");
        DeviceJob d = DeviceJob.getInstance(conf, "device grep");
        d.addInputPath(new org.apache.hadoop.fs.Path(TEXT));
        d.setDeviceMapper(DeviceMapper.tasklet("grep").keyword("needle"));
        d.setDeviceMapperFormat(ColumnsFormat.class);
        d.setCombinerClass(LongSumReducer.class);
        d.setReducerClass(LongSumReducer.class);
        d.setOutputKeyClass(Text.class);
        d.setOutputValueClass(LongWritable.class);
        FileInputFormat.setMaxInputSplitSize(d, splitSize);
        FileOutputFormat.setOutputPath(d, new org.apache.hadoop.fs.Path(dOut.toUri()));
        assertTrue(d.waitForCompletion(false));

        Path hOut = out("hgrep");
        Job h = Job.getInstance(conf, "host grep");
        h.getConfiguration().set("test.grep.pattern", "needle");
        h.setInputFormatClass(TextInputFormat.class);
        FileInputFormat.addInputPath(h, new org.apache.hadoop.fs.Path(TEXT));
        h.setMapperClass(HostJobs.GrepMapper.class);
        h.setCombinerClass(LongSumReducer.class);
        h.setReducerClass(LongSumReducer.class);
        h.setOutputKeyClass(Text.class);
        h.setOutputValueClass(LongWritable.class);
        FileInputFormat.setMaxInputSplitSize(h, splitSize);
        FileOutputFormat.setOutputPath(h, new org.apache.hadoop.fs.Path(hOut.toUri()));
        assertTrue(h.waitForCompletion(false));

        long expected = TestData.linesContaining(text, "needle");
        assertTrue(expected > 100, "test data has " + expected + " matching lines");
        assertEquals(Map.of("", expected), JobRunner.output(dOut));
        assertEquals(Map.of("", expected), JobRunner.output(hOut));
        long hostBytes = h.getCounters().findCounter(FileInputFormatCounter.BYTES_READ).getValue();
        assertTrue(hostBytes >= text.length, "host job read " + hostBytes);
        long deviceBytes = d.getCounters().findCounter(DeviceCounter.BYTES_TO_HOST).getValue();
        assertTrue(deviceBytes * 100 < hostBytes, "device " + deviceBytes + " vs host " + hostBytes);
    }
}
