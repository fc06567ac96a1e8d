package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
 * The web-log job under smartssd.offload = device, host and auto (docs/OFFLOAD.md): every query's answer
 * equals the plain decoder's at the paper's smallest and largest entry sizes and at the bare record (uniform
 * mix: every region and OTHER; the plain decoder itself checked against native/tests/wc98.py), with the input
 * cut into splits that cut records; host moves every byte over the link, and every split is accounted for in
 * the offload counters and in the per-split report the run returns.
 */
class OffloadAgreeTest {
    private static final int RECORDS = 40_000;
    private static java.nio.file.Path dir;
    private static Configuration conf;

    @BeforeAll
    static void device() throws IOException {
        dir = TestData.tmpDir("offload");
        conf = TestData.device(dir, "o", 128L << 20);
        conf.set("smartssd.offload.calibration.file", dir.resolve("calibration.properties").toString());
    }

    @AfterAll
    static void close() throws IOException {
        FileSystem.closeAll();
    }

    @Test
    void deviceHostAndAutoAgreeWithTheDecoder() throws Exception {
        List<String> failures = new ArrayList<>();
        for (int entry : List.of(20, 32, 256)) {
            Wc98Generator.Mix mix = entry == 20 ? Wc98Generator.Mix.UNIFORM : Wc98Generator.Mix.REALISTIC;
            java.nio.file.Path local = TestData.generate(dir, "wc98-" + entry + ".bin", RECORDS, entry, entry, mix);
            Path onDevice = new Path("smartssd://o/logs/wc98-" + entry + ".bin");
            onDevice.getFileSystem(conf).copyFromLocalFile(new Path(local.toUri()), onDevice);
            long size = (long) RECORDS * entry;
            for (WeblogQuery q : WeblogQuery.values()) {
                String want;
                try (InputStream in = Files.newInputStream(local)) {
                    want = Wc98Reference.answer(in, entry, q, 3).text();
                }
                if (TestData.havePython()) {   // an independent decoder (native/tests/wc98.py)
                    assertEquals(TestData.wc98(q.shortName(), local.toString(), "--entry-bytes", "" + entry), want);
                }
                for (String mode : List.of("device", "host", "auto")) {
                    Configuration c = new Configuration(conf);
                    c.set("smartssd.offload", mode);
                    c.setLong("mapreduce.input.fileinputformat.split.maxsize", size / 6 + 7);   // splits cut records
                    RunResult r = WeblogJobs.run(c, Version.DEVICE, q, onDevice, entry, 3, null);
                    if (!want.equals(r.answer().text())) {
                        failures.add(q + " " + mode + " " + entry + " B:\n" + r.answer().text() + "expected\n" + want);
                    }
                    if (mode.equals("device")) {
                        assertNull(r.offload(), "device: no plan");
                        continue;
                    }
                    OffloadReport o = r.offload();
                    assertNotNull(o, mode + ": the plan is reported");
                    // six splits of size/6 + 7 bytes (the last shorter), each in the counters and the report once
                    assertEquals(6, o.deviceSplits() + o.hostSplits(), o.toString());
                    assertEquals(6, o.splits().size(), o.splits().toString());
                    assertTrue(o.summary().startsWith("offload " + mode), o.summary());
                    for (String line : o.lines()) {
                        assertTrue(line.matches("split \\d \\(o, \\d+ B\\): planned (device|host), ran (device|host);"
                                + " predicted \\d+\\.\\d ms, took \\d+\\.\\d ms; .+"), line);
                    }
                    if (mode.equals("host")) {
                        assertEquals(6, o.hostSplits());
                        assertTrue(r.linkBytes() >= size, "the host reads every byte: " + r.linkBytes());
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
    }
}
