package io.smartssd.hadoop.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.offload.HostCalibration;
import io.smartssd.device.offload.OffloadMode;
import io.smartssd.device.offload.OffloadSettingException;
import io.smartssd.hadoop.fs.TestImages;
import io.smartssd.proto.Row;
import io.smartssd.proto.Value;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * smartssd.offload on a DeviceJob (docs/OFFLOAD.md): device, host and auto give the same answer as the
 * bytes computed here; auto's counters and report account for every split; bad settings fail the
 * submission naming the key; a planted host calibration ten times too fast is caught and re-measured.
 */
class OffloadJobTest {
    static final String DEV = "offload";
    static final int ENTRY = 32;
    static final String LOGS = "smartssd://" + DEV + "/logs/wc98.bin";
    static Configuration conf;
    static FileSystem fs;
    static byte[] logs;

    /** weblog-q1's host counterpart: (region, count) rows of the records whose first byte is in the extent. */
    public static class Q1HostMapper implements HostMapper {
        @Override
        public void map(HostInput in, Consumer<Row> rows) throws IOException {
            int e = Integer.parseInt(in.mapper().staticParams().get("entry_bytes"));
            long first = (in.offset() + e - 1) / e * e;
            long end = Math.min(in.objectSize(), (in.offset() + in.length() + e - 1) / e * e);
            long[] counts = new long[8];
            byte[] rec = new byte[e];
            try (InputStream s = in.open(first, Math.max(first, end)); DataInputStream d = new DataInputStream(s)) {
                for (long at = first; at < end; at += e) {
                    d.readFully(rec);
                    counts[(rec[19] & 0xFF) >>> 5]++;
                }
            }
            for (int r = 0; r < 8; r++) {
                if (counts[r] > 0) {
                    rows.accept(Row.newBuilder().addValues(Value.newBuilder().setS(com.google.protobuf.ByteString.copyFromUtf8(
                            TestData.REGIONS[r]))).addValues(Value.newBuilder().setI(counts[r])).build());
                }
            }
        }
    }

    @BeforeAll
    static void setUp() throws Exception {
        conf = JobRunner.localConf(DEV, TestImages.fresh(DEV));
        conf.setInt("mapreduce.local.map.tasks.maximum", 3);
        conf.set("smartssd.offload.calibration.file", TestImages.dir().resolve("calibration-" + UUID.randomUUID()).toString());
        fs = FileSystem.get(URI.create("smartssd://" + DEV + "/"), conf);
        logs = TestData.wc98(120_000, ENTRY, 3);
        JobRunner.put(fs, LOGS, logs);
    }

    @AfterAll
    static void tearDown() throws Exception {
        fs.close();
    }

    static DeviceJob job(String mode, Path out, boolean withHost) throws IOException {
        Configuration c = new Configuration(conf);
        if (mode != null) {
            c.set(DeviceJob.OFFLOAD, mode);
        }
        DeviceJob job = DeviceJob.counting(c, "q1 " + mode,
                DeviceMapper.tasklet("weblog-q1").param("entry_bytes", Integer.toString(ENTRY)),
                new org.apache.hadoop.fs.Path(out.toUri()), new org.apache.hadoop.fs.Path(LOGS));
        if (withHost) {
            job.setHostMapper(Q1HostMapper.class);
        }
        FileInputFormat.setMaxInputSplitSize(job, logs.length / 8 + 13);   // 8+ splits cutting records
        return job;
    }

    static Path out() {
        return TestImages.dir().resolve("offload-out-" + UUID.randomUUID());
    }

    @Test
    void deviceHostAndAutoGiveTheSameAnswer() throws Exception {
        Map<String, Long> want = TestData.q1(logs, ENTRY);
        Path report = TestImages.dir().resolve("report-" + UUID.randomUUID() + ".jsonl");
        long maps = -1;
        for (String mode : List.of("device", "host", "auto")) {
            Path o = out();
            DeviceJob job = job(mode, o, true);
            job.getConfiguration().set("smartssd.offload.report", report.toString());
            assertTrue(job.waitForCompletion(false), mode);
            assertEquals(want, JobRunner.output(o), mode);
            Counters c = job.getCounters();
            long dev = c.findCounter(OffloadTask.GROUP, "device.splits").getValue();
            long host = c.findCounter(OffloadTask.GROUP, "host.splits").getValue();
            if (mode.equals("device")) {
                assertEquals(0, dev + host, "device mode plans nothing: nothing changes");
                maps = c.findCounter(DeviceCounter.SPLITS).getValue();
                assertTrue(maps >= 8, "splits: " + maps);
            } else {
                assertEquals(maps, dev + host, mode + ": every split ran somewhere");
                if (mode.equals("host")) {
                    assertEquals(maps, host);
                    assertTrue(c.findCounter(OffloadTask.GROUP, "host.bytes_read").getValue() >= logs.length);
                }
                assertTrue(job.getConfiguration().get(DeviceOffload.SUMMARY).startsWith("offload " + mode),
                        job.getConfiguration().get(DeviceOffload.SUMMARY));
            }
        }
        List<String> lines = Files.readAllLines(report, StandardCharsets.UTF_8);
        assertTrue(lines.size() >= 16, "one line per planned split: " + lines.size());
        assertTrue(lines.stream().allMatch(l -> l.contains("\"predicted_ns\":") && l.contains("\"why\":")), lines.get(0));
    }

    @Test
    void badSettingsFailTheSubmissionNamingTheKey() throws Exception {
        IOException e = assertThrows(IOException.class, () -> job("maybe", out(), true).submit());
        assertTrue(e.getMessage().contains("smartssd.offload = 'maybe'"), e.getMessage());
        e = assertThrows(IOException.class, () -> job("auto", out(), false).submit());
        assertTrue(e.getMessage().contains("smartssd.offload = auto") && e.getMessage().contains(DeviceJob.HOST_MAPPER),
                e.getMessage());
        DeviceJob j = job("auto", out(), true);
        j.getConfiguration().set("smartssd.offload.objective", "speed");
        e = assertThrows(IOException.class, j::submit);
        assertTrue(e.getMessage().contains("smartssd.offload.objective"), e.getMessage());
        assertEquals("smartssd.offload.objective",
                org.junit.jupiter.api.Assertions.assertInstanceOf(OffloadSettingException.class, e.getCause()).key());
        // the API: setOffload records the mode under the key
        DeviceJob k = job(null, out(), true);
        k.setOffload(OffloadMode.HOST);
        assertEquals("host", k.getConfiguration().get(DeviceJob.OFFLOAD));
    }

    @Test
    void aPlantedCalibrationTenTimesTooFastIsReMeasured() throws Exception {
        Path file = TestImages.dir().resolve("planted-" + UUID.randomUUID());
        // a job first with a calibration file of its own, so the host code is compiled before the figure the
        // test reasons from is measured (measured cold it can be several times the warm figure)
        DeviceJob warm = job("auto", out(), true);
        warm.getConfiguration().set("smartssd.offload.calibration.file", file + ".warm-up");
        assertTrue(warm.waitForCompletion(false));
        DeviceJob first = job("auto", out(), true);
        first.getConfiguration().set("smartssd.offload.calibration.file", file.toString());
        assertTrue(first.waitForCompletion(false));
        assertEquals("measured", first.getConfiguration().get(DeviceOffload.CALIBRATION));
        HostCalibration cal = new HostCalibration(file, Duration.ofDays(7), 2.0);
        String key = DeviceOffload.workKey(first.getConfiguration(), DeviceMapper.readFrom(first.getConfiguration()));
        double truth = cal.cached(key);
        assertTrue(truth > 0, "measured and cached under " + key);
        cal.put(key, truth / 10);   // the host planted 10x faster than it is
        DeviceJob second = job("auto", out(), true);
        second.getConfiguration().set("smartssd.offload.calibration.file", file.toString());
        assertTrue(second.waitForCompletion(false));
        String source = second.getConfiguration().get(DeviceOffload.CALIBRATION);
        assertTrue(source.startsWith("re-measured") && source.contains("spot check"), source);
        double now = cal.cached(key);
        assertTrue(now > truth / 3 && now < truth * 3, "re-measured " + now + " against " + truth);
    }
}
