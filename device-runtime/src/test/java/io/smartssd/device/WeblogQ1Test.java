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
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** weblog-q1 on the device equals the same query computed in Java from the same bytes (both modes). */
@ParameterizedClass
@EnumSource(Mode.class)
class WeblogQ1Test {
    @Parameter
    Mode mode;
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {20, 32, 64})
    void wholeObjectAndSplitsEqualJava(int entryBytes) {
        byte[] logs = Wc98.generate(30_000, entryBytes, entryBytes);
        try (TestDevice dev = TestDevice.fresh(mode, dir, "q1.img")) {
            SmartSsd ssd = dev.ssd();
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
        try (TestDevice dev = TestDevice.fresh(mode, dir, "p.img")) {
            SmartSsd ssd = dev.ssd();
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

    /**
     * ResultStream over either transport: it waits between polls as PollingPolicy says (never a busy spin:
     * at most one poll per min interval of wall time) and reports monotone progress ending complete.
     */
    @Test
    void pollingAdaptsToProgressOverEitherTransport() {
        byte[] logs = Wc98.generate(400_000, 20, 5);
        PollingPolicy policy = new PollingPolicy(200_000, 500_000, 5_000_000); // 0.2 .. 5 ms
        try (TestDevice dev = TestDevice.fresh(mode, dir, "poll.img")) {
            SmartSsd ssd = dev.ssd();
            long id = put(ssd, "wc98", logs);
            long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
            long out = ssd.createOutput(Map.of(), List.of(), 0).id();
            long t0 = System.nanoTime();
            ssd.execute(t, out, Extent.whole(id));
            List<TaskProgress> seen = new ArrayList<>();
            ResultStream rs = ssd.results(out, policy, seen::add);
            TreeMap<String, Long> got = new TreeMap<>();
            rs.forEachRemaining(r -> got.put(r.getValues(0).getS().toStringUtf8(), r.getValues(1).getI()));
            long wall = System.nanoTime() - t0;
            assertEquals(Wc98.q1(logs, 20, 0, logs.length), got);
            System.out.printf("%s: %d polls in %.1f ms%n", mode, rs.polls(), wall / 1e6);
            // Polls that waited are at least 0.2 ms apart; the others are the ones that brought rows
            // or found the tasklet finished (at most a few here: q1 sends its 8 rows at the end).
            assertTrue(rs.polls() <= 4 + wall / policy.minNanos(), rs.polls() + " polls in " + wall / 1000 + " us");
            for (int i = 1; i < seen.size(); i++) {
                assertTrue(seen.get(i).pagesDone() >= seen.get(i - 1).pagesDone(), "progress goes forward: " + seen);
            }
            assertTrue(rs.progress().done());
            assertEquals((logs.length + 4095) / 4096, rs.progress().pagesDone());
        }
    }

    @Test
    void maxOutputsTruncates() {
        byte[] logs = Wc98.generate(5_000, 20, 2);
        try (TestDevice dev = TestDevice.fresh(mode, dir, "m.img")) {
            SmartSsd ssd = dev.ssd();
            long id = put(ssd, "wc98", logs);
            long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
            long out = ssd.createOutput(Map.of(), List.of(), 2).id();
            ssd.execute(t, out, Extent.whole(id));
            ResultStream rs = ssd.results(out);
            assertEquals(2, rs.toList().size());
            assertTrue(rs.progress().truncated());
        }
    }
}
