package io.smartssd.device.offload;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's throughput for one kind of work (a host version over a kind of data): CPU nanoseconds per
 * input byte, measured once per host and cached in a file, re-measured when stale. Measured in CPU time
 * of the measuring thread, as the median of short runs after a warm-up, so a busy machine (other
 * processes taking the cores) changes the figure little: the host's load enters the model apart, as
 * {@link HostLoad}'s availability.
 *
 * <p>A cached figure is trusted only after a spot check: a few runs of the same work on this job's sample
 * must agree with it within the tolerance factor; otherwise (a figure measured under other conditions, a
 * planted or corrupted value) it is re-measured and replaced. An entry is also stale when older than the
 * maximum age or written on another host (hostname, CPU model, cores, JVM), and {@link #check} marks it
 * stale when a real run's CPU time per byte disagrees with it.
 */
public final class HostCalibration {
    private static final Logger LOG = LoggerFactory.getLogger(HostCalibration.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** CPU time a full calibration runs for at least, ns, and its least number of runs. */
    static final long MEASURE_CPU_NS = 40_000_000L;
    static final int MEASURE_RUNS = 9;
    /** A spot check: at least this many runs and this much CPU time; the median of its last three. */
    static final int SPOT_RUNS = 5;
    static final long SPOT_CPU_NS = 5_000_000L;

    /** One run of the work: processes its sample once and returns the bytes it processed. */
    @FunctionalInterface
    public interface Work {
        long runOnce();
    }

    /**
     * A calibrated figure and where it came from.
     *
     * @param nsPerByte   CPU ns per input byte
     * @param source      "measured", "cached" or "re-measured: ..." (why)
     * @param remeasured  a cached figure was refused and measured again
     */
    public record Result(double nsPerByte, String source, boolean remeasured) {
    }

    private final Path file;
    private final Duration maxAge;
    private final double tolerance;
    private final Clock clock;

    /**
     * @param file      the cache (created with its directories when first written)
     * @param maxAge    entries older than this are measured again
     * @param tolerance the factor a spot check or a real run may differ from the cached figure by (> 1)
     */
    public HostCalibration(Path file, Duration maxAge, double tolerance) {
        this(file, maxAge, tolerance, Clock.systemUTC());
    }

    HostCalibration(Path file, Duration maxAge, double tolerance, Clock clock) {
        if (!(tolerance > 1)) {
            throw new IllegalArgumentException("calibration tolerance must be a factor > 1, got " + tolerance);
        }
        this.file = file;
        this.maxAge = maxAge;
        this.tolerance = tolerance;
        this.clock = clock;
    }

    /** ~/.cache/smartssd/offload-calibration.properties */
    public static Path defaultFile() {
        return Paths.get(System.getProperty("user.home"), ".cache", "smartssd", "offload-calibration.properties");
    }

    public Path file() {
        return file;
    }

    /**
     * The work's CPU ns per byte on this host: the cached figure if it is fresh, from this host, and a spot
     * check agrees with it; otherwise measured now and cached.
     */
    public synchronized Result calibrate(String key, Work work) {
        Properties p = load();
        String why;
        String v = p.getProperty(key + ".ns_per_byte");
        if (v == null) {
            why = null;
        } else if (!fingerprint().equals(p.getProperty(key + ".host"))) {
            why = "cached on another host";
        } else if (Boolean.parseBoolean(p.getProperty(key + ".stale"))) {
            why = "marked stale: " + p.getProperty(key + ".stale_why", "a run disagreed");
        } else if (clock.millis() - parseLong(p.getProperty(key + ".at_ms")) > maxAge.toMillis()) {
            why = "older than " + maxAge;
        } else {
            double cached = Double.parseDouble(v);
            double spot = spot(work);
            if (agrees(spot, cached)) {
                return new Result(cached, "cached", false);
            }
            why = String.format(Locale.ROOT, "cached %.4g ns/B, a spot check %.4g ns/B", cached, spot);
        }
        double measured = measure(work);
        p.setProperty(key + ".ns_per_byte", Double.toString(measured));
        p.setProperty(key + ".at_ms", Long.toString(clock.millis()));
        p.setProperty(key + ".host", fingerprint());
        p.remove(key + ".stale");
        p.remove(key + ".stale_why");
        store(p);
        if (why != null) {
            LOG.info("host calibration of {} re-measured ({}): {} ns/B", key, why, measured);
        }
        return new Result(measured, why == null ? "measured" : "re-measured: " + why, why != null);
    }

    /**
     * A real run's CPU time against the cached figure: when they differ by more than the tolerance the
     * entry is marked stale, so the next calibration measures again. Returns whether they agree (true when
     * nothing is cached or the run was too short to tell).
     */
    public synchronized boolean check(String key, long cpuNs, long bytes) {
        if (bytes <= 0 || cpuNs <= 0) {
            return true;
        }
        Properties p = load();
        String v = p.getProperty(key + ".ns_per_byte");
        if (v == null) {
            return true;
        }
        double cached = Double.parseDouble(v);
        double actual = (double) cpuNs / bytes;
        if (agrees(actual, cached)) {
            return true;
        }
        p.setProperty(key + ".stale", "true");
        p.setProperty(key + ".stale_why", String.format(Locale.ROOT, "a run took %.4g ns/B against %.4g", actual, cached));
        store(p);
        return false;
    }

    /** Plants a figure (for tests and for a host measured elsewhere on purpose). */
    public synchronized void put(String key, double nsPerByte) {
        Properties p = load();
        p.setProperty(key + ".ns_per_byte", Double.toString(nsPerByte));
        p.setProperty(key + ".at_ms", Long.toString(clock.millis()));
        p.setProperty(key + ".host", fingerprint());
        p.remove(key + ".stale");
        store(p);
    }

    /** The cached figure, or NaN. */
    public synchronized double cached(String key) {
        String v = load().getProperty(key + ".ns_per_byte");
        return v == null ? Double.NaN : Double.parseDouble(v);
    }

    private boolean agrees(double a, double b) {
        if (a <= 0 || b <= 0) {
            return a == b;
        }
        double r = a / b;
        return r <= tolerance && r >= 1 / tolerance;
    }

    /** Median CPU ns per byte of at least MEASURE_RUNS runs and MEASURE_CPU_NS, the first third dropped (warm-up). */
    static double measure(Work w) {
        return median(runs(w, MEASURE_RUNS, MEASURE_CPU_NS), true);
    }

    /** Median of the last three of a few short runs. */
    static double spot(Work w) {
        double[] r = runs(w, SPOT_RUNS, SPOT_CPU_NS);
        return median(Arrays.copyOfRange(r, r.length - 3, r.length), false);
    }

    private static double[] runs(Work w, int minRuns, long minCpuNs) {
        double[] out = new double[Math.max(minRuns, 3)];
        int k = 0;
        long total = 0;
        while (k < minRuns || total < minCpuNs) {
            long c0 = THREADS.getCurrentThreadCpuTime();
            long bytes = w.runOnce();
            long cpu = THREADS.getCurrentThreadCpuTime() - c0;
            if (bytes <= 0) {
                throw new IllegalStateException("host calibration: the work processed no bytes");
            }
            total += cpu;
            if (k == out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            out[k++] = (double) cpu / bytes;
            if (k >= 10_000) {
                break;
            }
        }
        return Arrays.copyOf(out, k);
    }

    private static double median(double[] v, boolean dropWarmup) {
        double[] x = dropWarmup ? Arrays.copyOfRange(v, v.length / 3, v.length) : v.clone();
        Arrays.sort(x);
        return x[x.length / 2];
    }

    /** What makes a figure this host's: hostname, CPU model, cores, JVM. */
    static String fingerprint() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown";
        }
        String cpu = "unknown";
        try {
            List<String> lines = Files.readAllLines(Paths.get("/proc/cpuinfo"));
            cpu = lines.stream().filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse(cpu);
        } catch (IOException | RuntimeException e) {
            LOG.debug("no /proc/cpuinfo: {}", e.toString());
        }
        return host + " | " + cpu + " | " + Runtime.getRuntime().availableProcessors() + " cores | java "
                + System.getProperty("java.version");
    }

    private static long parseLong(String s) {
        try {
            return s == null ? 0 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private Properties load() {
        Properties p = new Properties();
        if (Files.isRegularFile(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                p.load(in);
            } catch (IOException | IllegalArgumentException e) {
                LOG.warn("host calibration cache {} is unreadable ({}); measuring again", file, e.toString());
                return new Properties();
            }
        }
        return p;
    }

    private void store(Properties p) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, ".offload-calibration", ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                p.store(out, "smartssd host calibration: CPU ns per input byte per kind of work (docs/OFFLOAD.md)");
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn("cannot write the host calibration cache {}: {}", file, e.toString());
        }
    }
}
