package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** grep over CLF text: the DeviceJob, the host job and a plain count agree, with splits cutting lines. */
class GrepExampleTest {
    @AfterAll
    static void close() throws Exception {
        FileSystem.closeAll();
    }

    @Test
    void deviceAndHostCountTheSameLines() throws Exception {
        Configuration conf = TestData.device(TestData.tmpDir("grep"), "g", 128L << 20);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new Wc98Generator(11, Wc98Generator.Mix.UNIFORM).writeClf(bytes, 6000, null);
        Path log = new Path("smartssd://g/clf/access.log");
        try (OutputStream os = log.getFileSystem(conf).create(log)) {
            os.write(bytes.toByteArray());
        }
        Configuration c = new Configuration(conf);
        c.setLong("mapreduce.input.fileinputformat.split.maxsize", bytes.size() / 3 + 13);
        c.setLong("fs.smartssd.block.size", bytes.size() / 3 + 13);
        String[] lines = bytes.toString(StandardCharsets.US_ASCII).split("\n");
        for (String pattern : new String[] {"/images/", "\" 304 ", "no such thing"}) {
            long want = java.util.Arrays.stream(lines).filter(l -> l.contains(pattern)).count();
            GrepExample.GrepRun dev = GrepExample.runOne(c, true, log, pattern);
            GrepExample.GrepRun host = GrepExample.runOne(c, false, log, pattern);
            // the two-stage tasklet: pages scanned as they land, lines cut by pages and splits combined
            GrepExample.GrepRun dev2 = GrepExample.runOne(c, true, log, pattern, "grep2");
            assertEquals(want, dev2.count(), pattern + " (grep2)");
            assertEquals(want, dev.count(), pattern);
            assertEquals(want, host.count(), pattern);
            assertTrue(host.linkBytes() >= bytes.size(), "the host job reads every byte");
            assertTrue(dev.linkBytes() < bytes.size() / 10, "the device sends counts: " + dev.linkBytes());
        }
        assertTrue(java.util.Arrays.stream(lines).filter(l -> l.contains("/images/")).count() > 0);
    }
}
