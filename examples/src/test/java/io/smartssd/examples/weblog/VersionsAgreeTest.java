package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The three versions of both queries (and the spark-device version) give the same answer as the independent decoders (wc98.py, or
 * the plain Java decoder where Python is missing) for every entry size, with the input cut into
 * several splits that cut records; and each version moves the bytes it should over the host link.
 */
class VersionsAgreeTest {
    private static final int RECORDS = 20_000;
    private static java.nio.file.Path dir;
    private static Configuration conf;

    @BeforeAll
    static void device() throws IOException {
        dir = TestData.tmpDir("versions");
        conf = TestData.device(dir, "t", 256L << 20);
    }

    @AfterAll
    static void close() throws IOException {
        FileSystem.closeAll();
    }

    private static String expected(java.nio.file.Path local, int entry, WeblogQuery q) throws Exception {
        String java;
        try (InputStream in = Files.newInputStream(local)) {
            java = Wc98Reference.answer(in, entry, q, 3).text();
        }
        if (TestData.havePython()) {
            assertEquals(TestData.wc98(q.shortName(), local.toString(), "--entry-bytes", "" + entry), java);
        }
        return java;
    }

    @Test
    void everyVersionEveryEntrySizeSameAnswer() throws Exception {
        List<String> failures = new ArrayList<>();
        for (int entry : Wc98.ENTRY_SIZES) {
            // uniform at 20 and 128 bytes reaches region-4..7 and OTHER; realistic elsewhere
            Wc98Generator.Mix mix = entry == 20 || entry == 128 ? Wc98Generator.Mix.UNIFORM : Wc98Generator.Mix.REALISTIC;
            java.nio.file.Path local = TestData.generate(dir, "wc98-" + entry + ".bin", RECORDS, entry, entry, mix);
            Path onDevice = new Path("smartssd://t/logs/wc98-" + entry + ".bin");
            FileSystem fs = onDevice.getFileSystem(conf);
            fs.copyFromLocalFile(new Path(local.toUri()), onDevice);
            long size = (long) RECORDS * entry;
            Configuration c = new Configuration(conf);
            // about 4 splits, cut inside records (an odd size), on the device and on the host
            c.setLong("mapreduce.input.fileinputformat.split.maxsize", size / 4 + 7);
            c.setLong("fs.smartssd.block.size", size / 4 + 7);
            for (WeblogQuery q : WeblogQuery.values()) {
                String want = expected(local, entry, q);
                for (Version v : Version.values()) {
                    RunResult r = WeblogJobs.run(c, v, q, onDevice, entry, 3, null);
                    if (!want.equals(r.answer().text())) {
                        failures.add(q + " " + v + " " + entry + "B:\n" + r.answer().text() + "expected\n" + want);
                    }
                    assertEquals(size, r.inputBytes());
                    assertTrue(r.deviceNanos() > 0, "the device clock moved");
                    if (v == Version.DEVICE || v == Version.SPARK_DEVICE) {
                        // rows plus the replies to its commands (progress polls, creates, deletes)
                        assertTrue(r.linkBytes() > 0 && r.linkBytes() < Math.min(64 << 10, size / 10),
                                "only results cross: " + r.linkBytes());
                        assertTrue(r.flashBytes() >= size, "the tasklets read it all inside: " + r.flashBytes());
                    } else {
                        assertTrue(r.linkBytes() >= size, "every byte crosses: " + r.linkBytes());
                    }
                }
            }
            // The host versions read local files too (a normal disk: no device time).
            RunResult local1 = WeblogJobs.run(c, Version.HOST_OPTIMIZED, WeblogQuery.Q1, new Path(local.toUri()), entry,
                    3, null);
            assertEquals(expected(local, entry, WeblogQuery.Q1), local1.answer().text());
            assertEquals(-1, local1.deviceNanos());
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void wrongEntrySizeOrPlaceFailsWithTheReason() throws Exception {
        java.nio.file.Path local = TestData.generate(dir, "small.bin", 1000, 32, 1, Wc98Generator.Mix.REALISTIC);
        Path onDevice = new Path("smartssd://t/small.bin");
        onDevice.getFileSystem(conf).copyFromLocalFile(new Path(local.toUri()), onDevice);
        IOException dev = assertThrows(IOException.class,
                () -> WeblogJobs.run(conf, Version.DEVICE, WeblogQuery.Q1, onDevice, 24, 3, null));
        assertTrue(dev.getMessage().contains("not a multiple of entry_bytes 24"), dev.getMessage());
        IOException host = assertThrows(IOException.class,
                () -> WeblogJobs.run(conf, Version.HOST_NORMAL, WeblogQuery.Q1, onDevice, 24, 3, null));
        assertTrue(host.getMessage().contains("not a multiple of entry bytes 24"), host.getMessage());
        IOException notDevice = assertThrows(IOException.class,
                () -> WeblogJobs.run(conf, Version.DEVICE, WeblogQuery.Q2, new Path(local.toUri()), 32, 3, null));
        assertTrue(notDevice.getMessage().contains("is not on a smartssd:// device"), notDevice.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> WeblogJobs.run(conf, Version.DEVICE, WeblogQuery.Q2, onDevice, 32, 14, null));
    }
}
