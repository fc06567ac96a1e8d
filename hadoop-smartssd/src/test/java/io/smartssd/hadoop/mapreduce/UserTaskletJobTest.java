package io.smartssd.hadoop.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.hadoop.fs.TestImages;
import io.smartssd.hadoop.mapreduce.format.ColumnsFormat;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DeviceMapper.program: the web-log Q1 written as a user tasklet (examples/tasklets/weblog-q1, built
 * with the tasklet SDK) ships with the job, is installed on the device at submission and gives the
 * built-in's answer over several splits; a malformed program fails the job at submission, naming it.
 */
class UserTaskletJobTest {
    static final String DEV = "userjobs";
    static final int ENTRY = 32;
    static final String LOGS = "smartssd://" + DEV + "/logs/wc98.bin";

    static Configuration conf;
    static FileSystem fs;
    static byte[] logs;
    static Path wasm;

    @BeforeAll
    static void setUp() throws Exception {
        conf = JobRunner.localConf(DEV, TestImages.fresh("userjobs"));
        fs = FileSystem.get(URI.create("smartssd://" + DEV + "/"), conf);
        logs = TestData.wc98(15_000, ENTRY, 5);
        JobRunner.put(fs, LOGS, logs);
        Path repo = Path.of("..").toAbsolutePath().normalize();
        wasm = TestImages.dir().resolve("q1-user.wasm");
        Process p = new ProcessBuilder("python3", repo.resolve("native/sdk/tasklet_sdk.py").toString(), "build", "-q",
                repo.resolve("examples/tasklets/weblog-q1/weblog-q1.c").toString(), "-o", wasm.toString())
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "tasklet SDK build failed: " + log);
    }

    @AfterAll
    static void tearDown() throws Exception {
        fs.close();
    }

    private static DeviceJob job(DeviceMapper mapper, long splitSize, Path out) throws IOException {
        DeviceJob job = DeviceJob.getInstance(conf, "user tasklet q1");
        job.addInputPath(new org.apache.hadoop.fs.Path(LOGS));
        job.setDeviceMapper(mapper);
        job.setDeviceMapperFormat(ColumnsFormat.class);
        job.setCombinerClass(LongSumReducer.class);
        job.setReducerClass(LongSumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(LongWritable.class);
        FileInputFormat.setMaxInputSplitSize(job, splitSize);
        FileOutputFormat.setOutputPath(job, new org.apache.hadoop.fs.Path(out.toUri()));
        return job;
    }

    @Test
    void shippedProgramAnswersAsTheBuiltIn() throws Exception {
        DeviceMapper user = DeviceMapper.program(wasm).param("entry_bytes", Integer.toString(ENTRY));
        assertEquals("q1-user", user.taskletName());
        for (long split : new long[] {1L << 30, 33_331}) {
            Path out = TestImages.dir().resolve("out-user-" + UUID.randomUUID());
            assertTrue(job(user, split, out).waitForCompletion(false), "user tasklet job failed");
            assertEquals(TestData.q1(logs, ENTRY), JobRunner.output(out));
        }
        Path out = TestImages.dir().resolve("out-builtin-" + UUID.randomUUID());
        assertTrue(job(DeviceMapper.tasklet("weblog-q1").param("entry_bytes", Integer.toString(ENTRY)), 33_331, out)
                .waitForCompletion(false));
        assertEquals(TestData.q1(logs, ENTRY), JobRunner.output(out));
    }

    @Test
    void malformedProgramFailsAtSubmission() throws Exception {
        Path bad = TestImages.dir().resolve("broken.wasm");
        Files.write(bad, "not webassembly".getBytes(StandardCharsets.UTF_8));
        DeviceJob j = job(DeviceMapper.program(bad), 1L << 30, TestImages.dir().resolve("out-bad-" + UUID.randomUUID()));
        IOException e = assertThrows(IOException.class, () -> j.waitForCompletion(false));
        assertTrue(e.getMessage().contains("refused the job's tasklet program 'broken'")
                && e.getMessage().contains("is not a WebAssembly module"), e.getMessage());
    }
}
