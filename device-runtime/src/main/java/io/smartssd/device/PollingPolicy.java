package io.smartssd.device;

/**
 * How long a {@link ResultStream} waits between result polls (paper IV-C: "the device returns the number
 * of processed pages whenever a polling request comes in, and the host dynamically adjusts the polling
 * intervals to avoid a flood of requests").
 *
 * <p>The rule, per poll that brought no rows while the tasklet still runs:
 * <ul>
 *   <li>no new pages since the last poll: double the interval (back off while progress is slow);</li>
 *   <li>pages moved: estimate the time left from the page rate seen so far,
 *       {@code eta = (pagesTotal - pagesDone) / rate}, and wait {@code eta / 4} but at most twice the
 *       last interval: so the interval shrinks as the work approaches pagesTotal, and the wait after the
 *       result is ready is at most a quarter of the last estimate;</li>
 *   <li>always within [{@link #minNanos()}, {@link #maxNanos()}]: never a busy spin (min &gt; 0) and never
 *       long after the result is ready (max).</li>
 * </ul>
 * A poll that brought rows, or a finished tasklet with rows left, polls again at once.
 */
public record PollingPolicy(long minNanos, long initialNanos, long maxNanos) {
    /** 20 µs .. 10 ms, starting at 100 µs. */
    public static final PollingPolicy DEFAULT = new PollingPolicy(20_000, 100_000, 10_000_000);

    public PollingPolicy {
        if (minNanos <= 0 || initialNanos < minNanos || maxNanos < initialNanos) {
            throw new IllegalArgumentException("need 0 < min <= initial <= max, got " + minNanos + ", "
                    + initialNanos + ", " + maxNanos);
        }
    }

    /** The per-stream state: feed it each poll's progress, get the next wait. Not thread-safe. */
    public Poller newPoller() {
        return new Poller(this);
    }

    public static final class Poller {
        private final PollingPolicy policy;
        private long interval;
        private boolean started;
        private long lastPages;
        private long startWall; // System.nanoTime() may be negative: no sentinel value
        private long startPages;

        Poller(PollingPolicy policy) {
            this.policy = policy;
            this.interval = policy.initialNanos;
        }

        /**
         * The wait before the next poll, after a poll at wall time {@code now} (ns) that returned no rows
         * and reported {@code pagesDone} of {@code pagesTotal} with the tasklet still running.
         */
        public long next(long now, long pagesDone, long pagesTotal) {
            if (!started) {
                started = true;
                startWall = now;
                startPages = pagesDone;
                lastPages = pagesDone;
                return interval;
            }
            if (pagesDone <= lastPages) {
                interval = Math.min(policy.maxNanos, interval * 2);
            } else {
                // Rate over the whole run so far: steadier than the last step alone.
                double eta = (double) Math.max(0, pagesTotal - pagesDone) * Math.max(1, now - startWall)
                        / (pagesDone - startPages);
                long target = Math.round(Math.min(Long.MAX_VALUE / 4.0, eta / 4));
                interval = clamp(Math.min(target, interval * 2));
                lastPages = pagesDone;
            }
            return interval;
        }

        /** Rows arrived: results flow, so the next empty poll starts from the minimum again. */
        public void gotRows() {
            interval = policy.minNanos;
        }

        public long interval() {
            return interval;
        }

        private long clamp(long v) {
            return Math.max(policy.minNanos, Math.min(policy.maxNanos, v));
        }
    }
}
