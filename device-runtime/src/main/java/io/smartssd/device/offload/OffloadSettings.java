package io.smartssd.device.offload;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

/**
 * Every offload setting, read and checked once: Hadoop reads them as {@code smartssd.offload*} keys,
 * Spark as the options {@code offload*} (docs/OFFLOAD.md lists them). A malformed value is an
 * {@link OffloadSettingException} naming its key.
 *
 * @param mode                device (default: nothing changes), host or auto
 * @param objective           makespan (default) or energy
 * @param hostSlots           host splits that run at once
 * @param readBytes           bytes per host read command
 * @param probePages          pages of each device's first split the tasklet's cost and the host's
 *                            throughput are measured on
 * @param calibrationFile     the host calibration cache
 * @param calibrationMaxAge   entries older than this are measured again
 * @param calibrationTolerance a spot check or a run may differ from the cached figure by this factor
 * @param replanTolerance     a split leaves its planned lane at its start when that lane now predicts more
 *                            than (1 + this) times the plan did and the other lane less
 * @param power               the energy objective's power levels
 * @param report              a file each split appends one JSON line to (where, why, predicted, actual), or null
 */
public record OffloadSettings(OffloadMode mode, OffloadObjective objective, int hostSlots, int readBytes, int probePages,
                              Path calibrationFile, Duration calibrationMaxAge, double calibrationTolerance,
                              double replanTolerance, PowerModel power, Path report) {
    /** The mode is the prefix itself ({@code smartssd.offload}, {@code offload}): device, host or auto. */
    public static final String MODE = "";
    /** Default of {@link #MODE}: {@value}, so that nothing changes unless asked. */
    public static final String DEFAULT_MODE = "device";

    /** {@code .objective}: what auto minimizes: makespan (the job's predicted end) or energy (modeled J). */
    public static final String OBJECTIVE = ".objective";
    /** Default of {@link #OBJECTIVE}: {@value}. */
    public static final String DEFAULT_OBJECTIVE = "makespan";

    /** {@code .host.slots}: host splits that run at once, 1..4096; default: the caller's map or task slots. */
    public static final String HOST_SLOTS = ".host.slots";

    /** {@code .host.read-bytes}: bytes per read command a host split sends, 4096..64 MiB. */
    public static final String READ_BYTES = ".host.read-bytes";
    /** Default of {@link #READ_BYTES}: {@value} (1 MiB). */
    public static final int DEFAULT_READ_BYTES = 1 << 20;

    /**
     * {@code .probe.pages}: pages of each device's first split read at planning, 2..4096: the tasklet's
     * charges and the host version's throughput are measured on them.
     */
    public static final String PROBE_PAGES = ".probe.pages";
    /** Default of {@link #PROBE_PAGES}: {@value}. */
    public static final int DEFAULT_PROBE_PAGES = 16;

    /** {@code .calibration.file}: the host calibration cache; default {@link HostCalibration#defaultFile()}. */
    public static final String CALIBRATION_FILE = ".calibration.file";

    /** {@code .calibration.max-age-hours}: a cached host figure older than this is measured again, 0..1e6. */
    public static final String CALIBRATION_MAX_AGE_HOURS = ".calibration.max-age-hours";
    /** Default of {@link #CALIBRATION_MAX_AGE_HOURS}: {@value} (a week). */
    public static final double DEFAULT_CALIBRATION_MAX_AGE_HOURS = 24 * 7;

    /**
     * {@code .calibration.tolerance}: the factor (above 1, at most 1000) by which a spot check or a real
     * host split may differ from the cached figure before it is measured again.
     */
    public static final String CALIBRATION_TOLERANCE = ".calibration.tolerance";
    /** Default of {@link #CALIBRATION_TOLERANCE}: {@value}. */
    public static final double DEFAULT_CALIBRATION_TOLERANCE = 2.0;

    /**
     * {@code .replan.tolerance}: at its start a split leaves its planned lane when that lane now predicts
     * more than (1 + this) times the plan did and the other lane less; 0..100.
     */
    public static final String REPLAN_TOLERANCE = ".replan.tolerance";
    /** Default of {@link #REPLAN_TOLERANCE}: {@value}. */
    public static final double DEFAULT_REPLAN_TOLERANCE = 0.1;

    /** {@code .power.host-idle-w}: the energy objective's idle host, W; default {@link PowerModel#PAPER}'s. */
    public static final String HOST_IDLE_W = ".power.host-idle-w";
    /** {@code .power.host-active-w}: what a busy host slot adds, W; default {@link PowerModel#PAPER}'s. */
    public static final String HOST_ACTIVE_W = ".power.host-active-w";
    /** {@code .power.device-w}: what a device running a tasklet adds, W; default {@link PowerModel#PAPER}'s. */
    public static final String DEVICE_W = ".power.device-w";

    /** {@code .report}: a file each split appends one JSON line to (where, why, predicted, actual); unset: none. */
    public static final String REPORT = ".report";

    /**
     * The settings under `prefix` (e.g. "smartssd.offload": the mode is that key itself, the others
     * prefix + suffix); get returns null for an unset key. defaultSlots: the host slots when unset.
     */
    public static OffloadSettings read(String prefix, Function<String, String> get, int defaultSlots) {
        OffloadMode mode = OffloadMode.parse(prefix + MODE, or(get, prefix + MODE, DEFAULT_MODE));
        OffloadObjective obj = OffloadObjective.parse(prefix + OBJECTIVE, or(get, prefix + OBJECTIVE, DEFAULT_OBJECTIVE));
        int slots = (int) positive(get, prefix + HOST_SLOTS, Math.max(1, defaultSlots), 1, 4096);
        int read = (int) positive(get, prefix + READ_BYTES, DEFAULT_READ_BYTES, 4096, 64L << 20);
        int probe = (int) positive(get, prefix + PROBE_PAGES, DEFAULT_PROBE_PAGES, 2, 4096);
        String file = get.apply(prefix + CALIBRATION_FILE);
        Path cal = file == null || file.isBlank() ? HostCalibration.defaultFile() : Paths.get(file.trim());
        double hours = real(get, prefix + CALIBRATION_MAX_AGE_HOURS, DEFAULT_CALIBRATION_MAX_AGE_HOURS, 0, 1e6);
        double tol = real(get, prefix + CALIBRATION_TOLERANCE, DEFAULT_CALIBRATION_TOLERANCE, 1.0001, 1000);
        double replan = real(get, prefix + REPLAN_TOLERANCE, DEFAULT_REPLAN_TOLERANCE, 0, 100);
        PowerModel power = new PowerModel(real(get, prefix + HOST_IDLE_W, PowerModel.PAPER.hostIdleWatts(), 0, 1e6),
                real(get, prefix + HOST_ACTIVE_W, PowerModel.PAPER.hostActiveWatts(), 0, 1e6),
                real(get, prefix + DEVICE_W, PowerModel.PAPER.deviceWatts(), 0, 1e6));
        String report = get.apply(prefix + REPORT);
        return new OffloadSettings(mode, obj, slots, read, probe, cal, Duration.ofMillis((long) (hours * 3_600_000L)),
                tol, replan, power, report == null || report.isBlank() ? null : Paths.get(report.trim()));
    }

    private static String or(Function<String, String> get, String key, String dflt) {
        String v = get.apply(key);
        return v == null ? dflt : v;
    }

    private static long positive(Function<String, String> get, String key, long dflt, long min, long max) {
        String v = get.apply(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            long x = Long.parseLong(v.trim());
            if (x >= min && x <= max) {
                return x;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new OffloadSettingException(key, v, "give a whole number in " + min + ".." + max);
    }

    private static double real(Function<String, String> get, String key, double dflt, double min, double max) {
        String v = get.apply(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            double x = Double.parseDouble(v.trim());
            if (x >= min && x <= max) {
                return x;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new OffloadSettingException(key, v, "give a number in " + fmt(min) + ".." + fmt(max));
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%g", d);
    }

    /** The calibration cache these settings name. */
    public HostCalibration calibration() {
        return new HostCalibration(calibrationFile, calibrationMaxAge, calibrationTolerance);
    }
}
