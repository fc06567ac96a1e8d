package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.Progress;
import io.smartssd.proto.Row;
import io.smartssd.proto.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ResultStream's polling against a scripted device whose progress follows wall time. */
class ResultStreamTest {
    private static final long MS = 1_000_000L;

    private static Progress progress(long done, long total, boolean finished, boolean drained) {
        return Progress.newBuilder().setPagesDone(done).setPagesTotal(total).setFinished(finished)
                .setDone(finished && drained).build();
    }

    /** A tasklet over 1000 pages that takes runNs of wall time at a steady rate, then yields 2 rows. */
    private static FakeTransport steady(long runNs, long[] readyAt) {
        long start = System.nanoTime();
        boolean[] delivered = {false};
        return new FakeTransport(now -> {
            long el = now - start;
            if (el < runNs) {
                return new FakeTransport.Answer(List.of(), progress(1000 * el / runNs, 1000, false, false));
            }
            if (readyAt[0] == 0) {
                readyAt[0] = start + runNs;
            }
            if (!delivered[0]) {
                delivered[0] = true;
                return new FakeTransport.Answer(List.of(FakeTransport.row("a", 1), FakeTransport.row("b", 2)),
                        progress(1000, 1000, true, true));
            }
            return new FakeTransport.Answer(List.of(), progress(1000, 1000, true, true));
        }, true);
    }

    @Test
    void steadyProgressPollsRarelyAndWakesSoonAfterTheResult() {
        long[] readyAt = {0};
        FakeTransport t = steady(300 * MS, readyAt);
        List<TaskProgress> seen = new ArrayList<>();
        try (SmartSsd ssd = SmartSsd.over(t)) {
            ResultStream rs = ssd.results(1L << 40, PollingPolicy.DEFAULT, seen::add);
            List<Row> rows = rs.toList();
            long lateNs = System.nanoTime() - readyAt[0];
            assertEquals(List.of(FakeTransport.row("a", 1), FakeTransport.row("b", 2)), rows);
            // A busy loop would poll tens of thousands of times in 300 ms; min-interval polling 15,000.
            assertTrue(t.polls < 150, "polls: " + t.polls);
            assertTrue(t.polls > 5, "the stream should look in between, polls: " + t.polls);
            // The last wait is at most max (10 ms) and usually a quarter of the remaining estimate.
            assertTrue(lateNs < 60 * MS, "result picked up " + lateNs / MS + " ms late");
            assertTrue(rs.progress().done());
            assertEquals(rs.polls(), t.polls);
            // Callbacks: pages never go back, the last one says done.
            for (int i = 1; i < seen.size(); i++) {
                assertTrue(seen.get(i).pagesDone() >= seen.get(i - 1).pagesDone());
            }
            assertTrue(seen.get(seen.size() - 1).done());
            assertTrue(seen.size() >= 3, "progress callbacks: " + seen.size());
        }
    }

    @Test
    void stalledProgressBacksOffToTheMaximum() {
        long start = System.nanoTime();
        long stall = 200 * MS;
        FakeTransport t = new FakeTransport(now -> now - start < stall
                ? new FakeTransport.Answer(List.of(), progress(0, 10, false, false))
                : new FakeTransport.Answer(List.of(FakeTransport.row("x", 7)), progress(10, 10, true, true)), true);
        try (SmartSsd ssd = SmartSsd.over(t)) {
            List<Row> rows = ssd.results(1L << 40).toList();
            long late = System.nanoTime() - (start + stall);
            assertEquals(1, rows.size());
            // 100 µs doubling to 10 ms: about 7 polls to reach the cap, then one per 10 ms.
            assertTrue(t.polls <= 40, "polls: " + t.polls);
            assertTrue(late < 50 * MS, "late by " + late / MS + " ms");
        }
    }

    @Test
    void withoutADeviceThreadEveryPollAdvancesSoNoSleep() {
        int[] n = {0};
        FakeTransport t = new FakeTransport(now -> ++n[0] < 5
                ? new FakeTransport.Answer(List.of(), progress(n[0], 5, false, false))
                : new FakeTransport.Answer(List.of(FakeTransport.row("y", 1)), progress(5, 5, true, true)), false);
        long t0 = System.nanoTime();
        try (SmartSsd ssd = SmartSsd.over(t)) {
            assertEquals(1, ssd.results(1L << 40).toList().size());
        }
        assertEquals(5, t.polls);
        assertTrue(System.nanoTime() - t0 < 50 * MS);
    }

    @Test
    void aFailedTaskletDeliversItsRowsThenThrowsWithItsMessage() {
        int[] n = {0};
        FakeTransport t = new FakeTransport(now -> ++n[0] == 1
                ? new FakeTransport.Answer(List.of(FakeTransport.row("early", 1)), progress(1, 4, false, false))
                : new FakeTransport.Answer(List.of(), Progress.newBuilder().setPagesDone(2).setPagesTotal(4)
                        .setFinished(true).setDone(true).setStatus(Status.TASKLET_ERROR)
                        .setMessage("division by zero").build()), true);
        try (SmartSsd ssd = SmartSsd.over(t)) {
            ResultStream rs = ssd.results(1L << 40);
            assertTrue(rs.hasNext());
            assertEquals("early", rs.next().getValues(0).getS().toStringUtf8());
            DeviceException e = assertThrows(DeviceException.class, rs::hasNext);
            assertEquals(DeviceException.Code.TASKLET_ERROR, e.code());
            assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
        }
    }

    @Test
    void anEmptyResultEndsCleanly() {
        FakeTransport t = new FakeTransport(now -> new FakeTransport.Answer(List.of(), progress(3, 3, true, true)),
                true);
        try (SmartSsd ssd = SmartSsd.over(t)) {
            ResultStream rs = ssd.results(1L << 40);
            assertFalse(rs.hasNext());
            assertThrows(java.util.NoSuchElementException.class, rs::next);
            assertEquals(1, t.polls);
        }
    }

    @Test
    void deviceErrorsFromTheTransportBecomeDeviceExceptions() {
        FakeTransport t = new FakeTransport(now -> null, true);
        try (SmartSsd ssd = SmartSsd.over(t)) {
            DeviceException e = assertThrows(DeviceException.class, () -> ssd.createData("x"));
            assertEquals(DeviceException.Code.UNSUPPORTED, e.code());
            assertEquals("fake answers only read_object", e.deviceMessage());
        }
    }
}
