package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The interval rule, with hand-derived numbers (see PollingPolicy's comment). */
class PollingPolicyTest {
    private static final long US = 1000;

    @Test
    void noProgressDoublesUpToTheMaximum() {
        PollingPolicy.Poller p = new PollingPolicy(20 * US, 100 * US, 1600 * US).newPoller();
        assertEquals(100 * US, p.next(0, 0, 100)); // first poll: the initial interval
        assertEquals(200 * US, p.next(1_000_000, 0, 100));
        assertEquals(400 * US, p.next(2_000_000, 0, 100));
        assertEquals(800 * US, p.next(3_000_000, 0, 100));
        assertEquals(1600 * US, p.next(4_000_000, 0, 100));
        assertEquals(1600 * US, p.next(5_000_000, 0, 100)); // capped
    }

    @Test
    void intervalFollowsAQuarterOfTheEstimatedTimeLeft() {
        PollingPolicy.Poller p = new PollingPolicy(20 * US, 100 * US, 100_000 * US).newPoller();
        p.next(0, 0, 1000);
        // 100 pages in 1 ms: 900 left = 9 ms; a quarter is 2.25 ms, but growth is at most 2x (200 µs).
        assertEquals(200 * US, p.next(1_000_000, 100, 1000));
        assertEquals(400 * US, p.next(2_000_000, 200, 1000)); // 8 ms left: 2 ms > 2x -> 400 µs
        assertEquals(800 * US, p.next(3_000_000, 300, 1000)); // 7 ms left: 1.75 ms > 800 µs
        assertEquals(1500 * US, p.next(4_000_000, 400, 1000)); // 6 ms left -> 1.5 ms
        assertEquals(1000 * US, p.next(6_000_000, 600, 1000)); // 4 ms left -> 1 ms: shrinking
        assertEquals(250 * US, p.next(9_000_000, 900, 1000)); // 1 ms left -> 250 µs
        assertEquals(20 * US, p.next(9_990_000, 999, 1000)); // 10 µs left -> clamped to min
        assertEquals(20 * US, p.next(10_000_000, 1000, 1000)); // done pages: min, never 0
    }

    @Test
    void rowsResetToTheMinimum() {
        PollingPolicy.Poller p = new PollingPolicy(20 * US, 100 * US, 1600 * US).newPoller();
        p.next(0, 0, 10);
        p.next(1_000_000, 0, 10);
        p.gotRows();
        assertEquals(20 * US, p.interval());
        assertEquals(40 * US, p.next(2_000_000, 0, 10));
    }

    @Test
    void neverZeroNeverAboveMax() {
        PollingPolicy.Poller p = PollingPolicy.DEFAULT.newPoller();
        java.util.Random r = new java.util.Random(1);
        long now = 0;
        long pages = 0;
        for (int i = 0; i < 10_000; i++) {
            now += r.nextInt(5_000_000);
            pages = Math.min(100_000, pages + r.nextInt(50));
            long w = p.next(now, pages, 100_000);
            assertTrue(w >= PollingPolicy.DEFAULT.minNanos() && w <= PollingPolicy.DEFAULT.maxNanos(), "wait " + w);
        }
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new PollingPolicy(0, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> new PollingPolicy(10, 5, 20));
        assertThrows(IllegalArgumentException.class, () -> new PollingPolicy(10, 20, 15));
    }
}
