package io.smartssd.lsm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Is a recorded tree shaped like the paper's? The hybrid paper's LSM tree (RocksDB's leveled compaction,
 * level N+1 ten times level N, section III-B) keeps each level near its size limit, since compaction is
 * triggered when a level exceeds it; its text gives the share of SST writes at level 1 per workload
 * (section VI-B: 10% full random, 18% zipf and latest write, 53% zipf and 61% latest update-heavy). A
 * trace whose compaction fell behind (levels many times their limits, level 1 taking a large share of the
 * writes) would put far more in SLC than the paper's store did. The check, from the trace's events:
 * <ul>
 *   <li><b>level sizes</b>: for every level above the deepest, the mean over the trace's job ends of its
 *       live bytes over its limit (level_base x multiplier^(L-1), from the trace's meta) is at most
 *       {@link #MAX_MEAN_FILL};</li>
 *   <li><b>level-1 share of SST writes</b>, for a trace of Table 3's size at its scale: at most
 *       {@link #SHARE_FACTOR}x the paper's. A share below the paper's / {@link #SHARE_FACTOR} is reported
 *       ({@code low}) but not refused: upper levels taking less of the writes than in the paper's store
 *       disfavours level-aware placement, while a starved tree (the failure this check guards against)
 *       inflates them. For the update-heavy workloads the share is the run's, after the load phase;</li>
 *   <li>the deepest level and every level's share are reported beside them.</li>
 * </ul>
 * A trace without meta (made by hand, or from your own store) is not checked.
 */
public final class LevelCheck {
    /** A level's mean fill (live bytes over its limit) above which compaction is taken to have fallen behind. */
    public static final double MAX_MEAN_FILL = 1.5;
    /** How far the level-1 share of writes may be from the paper's, as a factor either way. */
    public static final double SHARE_FACTOR = 2.0;
    /** Section VI-B: level 1's share of the SST bytes written, percent. */
    public static final Map<String, Double> PAPER_L1_SHARE = Map.of("fill-random", 10.0, "zipf-write", 18.0,
            "latest-write", 18.0, "zipf-update", 53.0, "latest-update", 61.0);

    /** One level: bytes written to it (in the run phase, if the trace marks one), live at the end, its fill. */
    public record Level(int level, long writtenBytes, long finalBytes, long limitBytes, double meanFill, double maxFill) {
    }

    /** The tree a trace describes. */
    public record Shape(Map<Integer, Level> levels, long writtenBytes, int deepest) {
        /** Percent of the SST bytes written at level. */
        public double share(int level) {
            Level l = levels.get(level);
            return l == null || writtenBytes == 0 ? 0 : 100.0 * l.writtenBytes() / writtenBytes;
        }
    }

    /** A finding: what was compared, ours, the reference, whether it passes; low: reported, not refused. */
    public record Finding(String what, String ours, String reference, boolean ok, boolean low) {
        Finding(String what, String ours, String reference, boolean ok) {
            this(what, ours, reference, ok, false);
        }

        String mark() {
            return !ok ? "FAR" : low ? "low" : "ok";
        }
    }

    /** The verdict: the shape and the findings; applicable false when the trace has no meta to compare with. */
    public record Result(Shape shape, List<Finding> findings, boolean applicable) {
        public boolean ok() {
            return findings.stream().allMatch(Finding::ok);
        }

        /** The table printed by {@code lsm check} and the bench. */
        public String text() {
            StringBuilder b = new StringBuilder("  level  written  share   live MiB  limit MiB  mean fill  max fill\n");
            shape.levels().values().forEach(l -> b.append(String.format(Locale.ROOT, "  %5d  %6.0f M  %4.1f%%  %9.1f  %9s  %9s  %8s%n",
                    l.level(), l.writtenBytes() / 1048576.0, shape.share(l.level()), l.finalBytes() / 1048576.0,
                    l.limitBytes() > 0 ? String.format(Locale.ROOT, "%.1f", l.limitBytes() / 1048576.0) : "-",
                    l.limitBytes() > 0 ? String.format(Locale.ROOT, "%.2f", l.meanFill()) : "-",
                    l.limitBytes() > 0 ? String.format(Locale.ROOT, "%.2f", l.maxFill()) : "-")));
            if (!applicable) {
                b.append("  not compared with the paper: the trace has no meta line (recorded by lsm record)\n");
            }
            for (Finding f : findings) {
                b.append(String.format(Locale.ROOT, "  %-4s %s: %s (%s)%n", f.mark(), f.what(), f.ours(),
                        f.reference()));
            }
            return b.toString().stripTrailing();
        }
    }

    private LevelCheck() {
    }

    /** The shape of a trace; level limits from base and multiplier (0: unknown, fills not computed). */
    public static Shape shape(List<TraceEvent.Line> lines, long base, int multiplier) {
        Map<String, long[]> live = new TreeMap<>();       // file -> {level, bytes}
        Map<Integer, long[]> lv = new TreeMap<>();        // level -> {written, live, samples, fill sum x1e6, max x1e6}
        long written = 0;
        for (TraceEvent.Line l : lines) {
            TraceEvent e = l.event();
            switch (e.op()) {
                case CREATE -> {
                    live.put(e.file(), new long[] {e.level(), e.bytes()});
                    long[] s = lv.computeIfAbsent(e.level(), k -> new long[5]);
                    s[0] += e.bytes();
                    s[1] += e.bytes();
                    written += e.bytes();
                }
                case DELETE -> {
                    long[] f = live.remove(e.file());
                    if (f != null) {
                        lv.get((int) f[0])[1] -= f[1];
                    }
                }
                case MOVE -> {
                    long[] f = live.get(e.file());
                    if (f != null) {
                        lv.get((int) f[0])[1] -= f[1];
                        f[0] = e.level();
                        lv.computeIfAbsent(e.level(), k -> new long[5])[1] += f[1];
                    }
                }
                case PHASE -> {
                    if (e.file().equals("run")) {   // the shares are the run's, as the paper's (after a load)
                        written = 0;
                        lv.values().forEach(x -> x[0] = 0);
                    }
                }
                case FLUSH, COMPACTION -> {
                    for (Map.Entry<Integer, long[]> x : lv.entrySet()) {
                        long limit = limit(x.getKey(), base, multiplier);
                        long[] s = x.getValue();
                        if (limit > 0 && s[1] > 0) {   // from the level's first bytes on
                            long fill = (long) (1e6 * s[1] / limit);
                            s[2]++;
                            s[3] += fill;
                            s[4] = Math.max(s[4], fill);
                        }
                    }
                }
                default -> {
                }
            }
        }
        Map<Integer, Level> out = new TreeMap<>();
        int deepest = 0;
        for (Map.Entry<Integer, long[]> x : lv.entrySet()) {
            long[] s = x.getValue();
            out.put(x.getKey(), new Level(x.getKey(), s[0], s[1], limit(x.getKey(), base, multiplier),
                    s[2] == 0 ? 0 : s[3] / 1e6 / s[2], s[4] / 1e6));
            if (s[1] > 0) {
                deepest = Math.max(deepest, x.getKey());
            }
        }
        return new Shape(out, written, deepest);
    }

    static long limit(int level, long base, int multiplier) {
        if (level < 1 || base <= 0 || multiplier < 1) {
            return 0;
        }
        double v = base * Math.pow(multiplier, level - 1);
        return v > Long.MAX_VALUE / 2 ? Long.MAX_VALUE / 2 : (long) v;
    }

    /** Checks a trace against its meta (see the class comment). */
    public static Result check(List<TraceEvent.Line> lines, TraceMeta meta) {
        long base = meta.number("level_base").orElse(0);
        int mult = (int) meta.number("multiplier").orElse(0);
        Shape s = shape(lines, base, mult);
        List<Finding> out = new ArrayList<>();
        if (base <= 0 || mult < 1) {
            return new Result(s, out, false);
        }
        for (Level l : s.levels().values()) {
            if (l.level() >= 1 && l.level() < s.deepest()) {
                out.add(new Finding("level " + l.level() + " mean fill", String.format(Locale.ROOT, "%.2f", l.meanFill()),
                        "at most " + MAX_MEAN_FILL + ": compaction keeps up, as with the paper's RocksDB",
                        l.meanFill() <= MAX_MEAN_FILL));
            }
        }
        String w = meta.get("workload");
        Double paper = w == null ? null : PAPER_L1_SHARE.get(w);
        long scale = meta.number("scale").orElse(0);
        boolean table3 = scale > 0 && meta.number("records").orElse(-1) == WorkloadDriver.TABLE3_RECORDS / scale;
        if (paper != null && table3) {
            double ours = s.share(1);
            boolean low = ours < paper / SHARE_FACTOR;
            out.add(new Finding("level-1 share of SST writes", String.format(Locale.ROOT, "%.1f%%", ours),
                    String.format(Locale.ROOT, "paper %.0f%%, at most %.0fx%s", paper, SHARE_FACTOR,
                            low ? "; below / " + (int) SHARE_FACTOR + ": upper levels take less than in the paper's store" : ""),
                    ours <= paper * SHARE_FACTOR, low));
        }
        return new Result(s, out, true);
    }
}
