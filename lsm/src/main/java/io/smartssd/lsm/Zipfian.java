package io.smartssd.lsm;

import java.util.Random;

/**
 * Zipfian ranks over [0, n) with constant theta (0.99 as YCSB), by the rejection-free method of Gray et
 * al. ("Quickly generating billion-record synthetic databases", SIGMOD'94): rank 0 is the most popular.
 * n may grow ({@link #grow}): the zeta sum is extended term by term, so a growing key space (YCSB's
 * "latest") costs O(1) per new item.
 */
final class Zipfian {
    static final double THETA = 0.99;
    private final double theta;
    private final double alpha;
    private final double zeta2;
    private long n;
    private double zetan;
    private double eta;

    Zipfian(long n, double theta) {
        if (n < 1) {
            throw new IllegalArgumentException("a zipfian needs at least one item, got " + n);
        }
        this.theta = theta;
        this.alpha = 1.0 / (1.0 - theta);
        this.zeta2 = 1.0 + Math.pow(0.5, theta);
        this.n = 0;
        this.zetan = 0;
        grow(n);
    }

    /** Extends the item count to n (never shrinks). */
    void grow(long newN) {
        if (newN <= n) {
            return;
        }
        for (long i = n + 1; i <= newN; i++) {
            zetan += 1.0 / Math.pow(i, theta);
        }
        n = newN;
        eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetan);
    }

    long items() {
        return n;
    }

    /** A rank in [0, n). */
    long next(Random rnd) {
        double u = rnd.nextDouble();
        double uz = u * zetan;
        if (uz < 1.0) {
            return 0;
        }
        if (uz < 1.0 + Math.pow(0.5, theta)) {
            return Math.min(1, n - 1);
        }
        long r = (long) (n * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(Math.max(r, 0), n - 1);
    }

    /** FNV-1a over the 8 bytes of v: scatters ranks and insertion numbers over the key space (as YCSB). */
    static long fnv64(long v) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < 8; i++) {
            h ^= (v >>> (8 * i)) & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
