package io.smartssd.device;

import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.Row;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** weblog-q1 on the device equals the same query computed in Java from the same bytes. */
class WeblogQ1Test {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {20, 32, 64})
    void wholeObjectAndSplitsEqualJava(int entryBytes) {
        byte[] logs = Wc98.generate(30_000, entryBytes, entryBytes);
        try (SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "q1.img"))) {
            long id = put(ssd, "wc98", logs);
            TreeMap<String, Long> whole = Wc98.q1(logs, entryBytes, 0, logs.length);
            assertTrue(whole.keySet().containsAll(List.of("Santa Clara", "Plano", "Herndon", "Paris")), whole.toString());
            assertEquals(whole, TestDevices.q1(ssd, id, entryBytes, Extent.whole(id)));

            // Splits at arbitrary byte offsets (not record or page aligned): each extent owns the records
            // that start in it, and the parts add up to the whole.
            long[] cuts = {0, 7, 4095, 4097, 100_003, logs.length / 2 + 3, logs.length};
            TreeMap<String, Long> sum = new TreeMap<>();
            for (int i = 0; i + 1 < cuts.length; i++) {
                Extent e = Extent.of(id, cuts[i], cuts[i + 1] - cuts[i]);
                TreeMap<String, Long> part = TestDevices.q1(ssd, id, entryBytes, e);
                assertEquals(Wc98.q1(logs, entryBytes, cuts[i], cuts[i + 1]), part, "extent " + e);
                part.forEach((k, v) -> sum.merge(k, v, Long::sum));
            }
            assertEquals(whole, sum);
        }
    }

    @Test
    void progressIsReportedAndEndsComplete() {
        byte[] logs = Wc98.generate(100_000, 20, 1);
        try (SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "p.img"))) {
            long id = put(ssd, "wc98", logs);
            long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
            long out = ssd.createOutput(Map.of(), List.of(), 0).id();
            Executed ex = ssd.execute(t, out, Extent.whole(id));
            long pages = (logs.length + 4095) / 4096;
            assertEquals(pages, ex.pagesTotal());
            List<TaskProgress> seen = new ArrayList<>();
            ResultStream rs = ssd.results(out, PollingPolicy.DEFAULT, seen::add);
            List<Row> rows = rs.toList();
            TaskProgress last = rs.progress();
            assertTrue(last.done() && last.finished());
            assertEquals(DeviceException.Code.OK, last.status());
            assertEquals(pages, last.pagesDone());
            assertEquals(pages, last.pagesTotal());
            assertEquals(rows.size(), last.rows());
            assertTrue(last.flashBytesRead() >= logs.length, "flash bytes " + last.flashBytesRead());
            assertTrue(last.bytesToHost() > 0 && last.bytesToHost() < 1000, "only results travel: " + last.bytesToHost());
            assertTrue(last.deviceNanos() > 0);
            assertFalse(seen.isEmpty());
            assertEquals(last, seen.get(seen.size() - 1));
        }
    }

    @Test
    void maxOutputsTruncates() {
        byte[] logs = Wc98.generate(5_000, 20, 2);
        try (SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "m.img"))) {
            long id = put(ssd, "wc98", logs);
            long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
            long out = ssd.createOutput(Map.of(), List.of(), 2).id();
            ssd.execute(t, out, Extent.whole(id));
            ResultStream rs = ssd.results(out);
            assertEquals(2, rs.toList().size());
            assertTrue(rs.progress().truncated());
        }
    }

    /** Without the device thread everything is deterministic: same data, same virtual time. */
    @Test
    void foregroundModeIsDeterministicAndAgrees() {
        byte[] logs = Wc98.generate(40_000, 32, 4);
        long[] ns = new long[2];
        for (int k = 0; k < 2; k++) {
            Path image = TestDevices.tinyImage(dir, "det" + k + ".img");
            try (SmartSsd ssd = SmartSsd.openEmbedded(image, OpenOptions.defaults().background(false))) {
                long id = put(ssd, "wc98", logs);
                long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "32")).id();
                long out = ssd.createOutput(Map.of(), List.of(), 0).id();
                ssd.execute(t, out, Extent.whole(id));
                ResultStream rs = ssd.results(out);
                TreeMap<String, Long> got = new TreeMap<>();
                rs.forEachRemaining(r -> got.put(r.getValues(0).getS().toStringUtf8(), r.getValues(1).getI()));
                assertEquals(Wc98.q1(logs, 32, 0, logs.length), got);
                ns[k] = rs.progress().deviceNanos();
            }
        }
        assertTrue(ns[0] > 0);
        assertEquals(ns[0], ns[1], "virtual time of the same run on the same data");
    }
}
