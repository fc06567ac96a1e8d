package io.smartssd.hadoop.fs.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.Extent;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskletRun;
import io.smartssd.hadoop.fs.Constants;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.hadoop.fs.TestImages;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

/**
 * fs.smartssd.device.ID.host-reader: an embedded device's session runs with host_reader as set (on by
 * default), the value the device itself reports; a grep over an object counts the same lines as a
 * count on the host, in the same device time, with the reader on and off; a bad value fails before
 * the device is opened, naming the key.
 */
class HostReaderTest {
    private static final String KEY = Constants.DEVICE_PREFIX + "hr" + Constants.DEVICE_HOST_READER_SUFFIX;
    private static final String THREADS = Constants.DEVICE_PREFIX + "hr" + Constants.DEVICE_HOST_THREADS_SUFFIX;

    /** The device's host_reader, and a grep of "needle" over /log: its count and device time. */
    private static long[] run(Configuration conf, byte[] log) throws IOException {
        conf.setBoolean("fs.smartssd.impl.disable.cache", true);
        try (FileSystem fs = FileSystem.get(URI.create("smartssd://hr/"), conf)) {
            org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path("smartssd://hr/log");
            if (!fs.exists(p)) {
                try (OutputStream out = fs.create(p)) {
                    out.write(log);
                }
            }
            SmartSsd dev = ((SmartSsdFileSystem) fs).device();
            long reader = Long.parseLong(dev.identify().params().get("host_reader"));
            long obj = dev.stat("log").info().id();
            try (TaskletRun r = TaskletRun.start(dev, TaskletRun.Spec.of("grep", Map.of("pattern", "needle")),
                    Extent.whole(obj), PollingPolicy.DEFAULT, null)) {
                assertTrue(r.hasNext());
                long count = r.next().getValues(0).getI();
                assertFalse(r.hasNext());
                return new long[] {reader, count, r.progress().deviceNanos()};
            }
        }
    }

    private static byte[] log() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 60_000; i++) {
            sb.append("GET /").append(i).append(i % 7 == 3 ? " needle" : " hay").append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void onByDefaultAndTheSameLinesAndDeviceTimeEitherWay() throws IOException {
        byte[] log = log();
        long expected = 0;
        for (String line : new String(log, StandardCharsets.US_ASCII).split("\n")) {
            expected += line.contains("needle") ? 1 : 0;
        }
        Path img = TestImages.fresh("hr");
        Configuration conf = TestImages.conf("hr", img);
        conf.set(THREADS, "2");
        long[] byDefault = run(conf, log);
        assertEquals(1, byDefault[0], "host_reader is on unless set");
        assertEquals(expected, byDefault[1]);
        Configuration offConf = TestImages.conf("hr", img);
        offConf.set(THREADS, "2");
        offConf.set(KEY, " off ");
        long[] off = run(offConf, log);
        assertEquals(0, off[0], "off");
        assertEquals(expected, off[1]);
        assertEquals(off[2], byDefault[2], "device time with the reader on by default");
        for (String on : new String[] {"1", " on ", "true"}) {
            Configuration c = TestImages.conf("hr", img);
            c.set(THREADS, "2");
            c.set(KEY, on);
            long[] r = run(c, log);
            assertEquals(1, r[0], on);
            assertEquals(expected, r[1], on);
            assertEquals(off[2], r[2], "device time with the reader on");
        }
        for (String no : new String[] {"0", "false"}) {
            Configuration c = TestImages.conf("hr", img);
            c.set(KEY, no);
            assertEquals(0, run(c, log)[0], no);
        }
    }

    @Test
    void aBadValueNamesTheKey() {
        Path img = TestImages.fresh("hr-bad");
        for (String bad : new String[] {"2", "yes please", "-1"}) {
            Configuration conf = TestImages.conf("hr", img);
            conf.set(KEY, bad);
            IOException e = assertThrows(IOException.class, () -> run(conf, new byte[0]));
            assertTrue(e.getMessage().contains(KEY + " = " + bad), e.getMessage());
            assertTrue(e.getMessage().contains("1 (on) or 0 (off)"), e.getMessage());
        }
    }
}
