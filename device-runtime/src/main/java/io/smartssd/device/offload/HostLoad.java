package io.smartssd.device.offload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The host's current load, as the share of a core one host slot gets now: `slots` threads spin at once
 * for a few milliseconds each, several times, and each reports its CPU time over its wall time; the
 * median of those ratios is the availability (1 on an idle host with a core per slot, 0.25 when four
 * runnable threads share each core). A direct measurement, not a load average: it sees every process
 * competing for the cores now, this JVM's own included.
 */
public final class HostLoad {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Wall time each thread spins per round, ns. */
    static final long SPIN_NS = 5_000_000L;
    static final int ROUNDS = 3;

    private HostLoad() {
    }

    /** The median CPU/wall ratio of `slots` concurrent spinners over ROUNDS rounds, in (0, 1]. */
    public static double availability(int slots) {
        return availability(slots, ROUNDS);
    }

    /** As {@link #availability(int)} over `rounds` rounds (one is enough at a split's start). */
    public static double availability(int slots, int rounds) {
        int k = Math.max(1, slots);
        double[] ratios = new double[k * Math.max(1, rounds)];
        for (int round = 0; round < Math.max(1, rounds); round++) {
            Thread[] ts = new Thread[k];
            for (int t = 0; t < k; t++) {
                int slot = round * k + t;
                ts[t] = new Thread(() -> ratios[slot] = spin(), "smartssd-host-load");
                ts[t].setDaemon(true);
                ts[t].start();
            }
            for (Thread t : ts) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return 1.0;
                }
            }
        }
        Arrays.sort(ratios);
        double m = ratios[ratios.length / 2];
        return Math.max(0.01, Math.min(1.0, m));
    }

    private static double spin() {
        long w0 = System.nanoTime();
        long c0 = THREADS.getCurrentThreadCpuTime();
        long x = 0;
        while (System.nanoTime() - w0 < SPIN_NS) {
            x += x * 31 + 7;
        }
        long wall = System.nanoTime() - w0;
        long cpu = THREADS.getCurrentThreadCpuTime() - c0;
        return x == 42 ? 0 : (double) cpu / wall;   // x keeps the loop from being optimized away
    }
}
