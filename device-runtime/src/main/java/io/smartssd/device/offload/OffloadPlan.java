package io.smartssd.device.offload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where each split of a job runs and why: the planner's choice per split with the times it predicted,
 * and the job's predicted makespan and modeled energy. {@link #encode} / {@link #decode} carry it to the
 * tasks (a Hadoop configuration value, a Spark partition), where {@link #recheck} re-plans a split at
 * its start with what the device and the host hold then.
 */
public final class OffloadPlan {
    /** Where a split runs. */
    public enum Lane {
        DEVICE, HOST;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One split's placement.
     *
     * @param index       the split's index in the job
     * @param device      the device that holds it
     * @param lane        where it runs
     * @param deviceNs    its request on the device, alone, ns ({@link DeviceModel#requestNs})
     * @param waitNs      what a request waits behind on that device, ns (its backlog at planning)
     * @param hostLinkNs  the host reading it over the link, ns
     * @param hostCpuNs   the host version's CPU time for it on a free core, ns (availability 1)
     * @param hostNs      on a host slot at the planned availability, ns ({@link HostModel#splitNs})
     * @param startNs     predicted start, ns from the job's start
     * @param predictedNs predicted duration in its lane, ns (sharing the device or the link included)
     */
    public record Placement(int index, String device, Lane lane, long deviceNs, long waitNs, long hostLinkNs,
                            long hostCpuNs, long hostNs, long startNs, long predictedNs) {
        /** Why it runs where it does, for counters and logs. */
        public String reason() {
            return String.format(Locale.ROOT, "%s: device %s %.1f ms (+%.1f ms queued) / host %.1f ms", lane.label(),
                    device, deviceNs / 1e6, waitNs / 1e6, hostNs / 1e6);
        }

        Placement moved(Lane to) {
            return new Placement(index, device, to, deviceNs, waitNs, hostLinkNs, hostCpuNs, hostNs, startNs,
                    to == Lane.DEVICE ? waitNs + deviceNs : hostNs);
        }
    }

    /** The outcome of {@link #recheck}: the lane, why it changed (null when it did not), and both lanes'
     * predictions now, ns (the host's -1 when it was not needed). */
    public record Recheck(Lane lane, String why, long deviceNowNs, long hostNowNs) {
        public boolean moved() {
            return why != null;
        }
    }

    private final OffloadMode mode;
    private final OffloadObjective objective;
    private final List<Placement> placements;
    private final long makespanNs;
    private final double energyJoules;
    private final double availability;
    private final String inputs;

    OffloadPlan(OffloadMode mode, OffloadObjective objective, List<Placement> placements, long makespanNs,
                double energyJoules, double availability, String inputs) {
        this.mode = mode;
        this.objective = objective;
        this.placements = List.copyOf(placements);
        this.makespanNs = makespanNs;
        this.energyJoules = energyJoules;
        this.availability = availability;
        this.inputs = inputs;
    }

    public OffloadMode mode() {
        return mode;
    }

    public OffloadObjective objective() {
        return objective;
    }

    /** One per split, in split order. */
    public List<Placement> placements() {
        return placements;
    }

    /** The placement of split index. */
    public Placement placement(int index) {
        for (Placement p : placements) {
            if (p.index() == index) {
                return p;
            }
        }
        throw new IllegalArgumentException("the offload plan has no split " + index + " (" + placements.size()
                + " splits)");
    }

    public long makespanNs() {
        return makespanNs;
    }

    public double energyJoules() {
        return energyJoules;
    }

    /** The host availability the plan assumed (host times scale with it at a recheck). */
    public double availability() {
        return availability;
    }

    /** Splits placed in lane. */
    public long count(Lane lane) {
        return placements.stream().filter(p -> p.lane() == lane).count();
    }

    /** The model's inputs as the planner saw them (for logs and reports). */
    public String inputs() {
        return inputs;
    }

    /** One line: mode, objective, splits per lane, predicted makespan and energy. */
    public String summary() {
        return String.format(Locale.ROOT, "offload %s (%s): %d split(s) on devices, %d on the host; predicted %.1f ms,"
                + " %.2f J modeled", mode.label(), objective.label(), count(Lane.DEVICE), count(Lane.HOST),
                makespanNs / 1e6, energyJoules);
    }

    /**
     * Re-plans split `index` at its start with what holds now: a request sent to its device now waits
     * {@code waitNowNs} (the device's backlog now, which includes this job's own requests there), and a host
     * slot gets {@code availabilityNow} of a core. The split leaves its planned lane when that lane now
     * predicts more than (1 + tolerance) times what the plan predicted for it there, and the other lane
     * predicts less than this lane now (a slow device's remaining splits move to the host, and back).
     */
    public Recheck recheck(int index, long waitNowNs, java.util.function.DoubleSupplier availabilityNow,
                           double tolerance) {
        Placement p = placement(index);
        long devNow = waitNowNs + p.deviceNs();
        long planned = p.lane() == Lane.DEVICE ? p.waitNs() + p.deviceNs() : p.hostNs();
        if (p.lane() == Lane.DEVICE && devNow <= planned * (1 + tolerance)) {
            return new Recheck(Lane.DEVICE, null, devNow, -1);   // on time: the host need not be measured
        }
        long hostNow = hostNs(p, availabilityNow.getAsDouble());
        long here = p.lane() == Lane.DEVICE ? devNow : hostNow;
        long there = p.lane() == Lane.DEVICE ? hostNow : devNow;
        if (here > planned * (1 + tolerance) && there < here) {
            Lane to = p.lane() == Lane.DEVICE ? Lane.HOST : Lane.DEVICE;
            String why = String.format(Locale.ROOT, "re-planned to %s at its start: %s now %.1f ms (planned %.1f ms),"
                    + " %s %.1f ms", to.label(), p.lane().label(), here / 1e6, planned / 1e6, to.label(), there / 1e6);
            return new Recheck(to, why, devNow, hostNow);
        }
        return new Recheck(p.lane(), null, devNow, hostNow);
    }

    /** The placement's host time at another availability (its CPU part scales, its link part does not). */
    private long hostNs(Placement p, double availabilityNow) {
        if (availabilityNow <= 0 || p.hostCpuNs() == 0) {
            return p.hostNs();
        }
        long planCpu = (long) Math.ceil(p.hostCpuNs() / availability);
        long nowCpu = (long) Math.ceil(p.hostCpuNs() / Math.min(1.0, availabilityNow));
        return Math.max(0, p.hostNs() - Math.max(p.hostLinkNs(), planCpu) + Math.max(p.hostLinkNs(), nowCpu));
    }

    /** The plan with only split index's placement (what one task needs to recheck it). */
    public OffloadPlan only(int index) {
        return new OffloadPlan(mode, objective, List.of(placement(index)), makespanNs, energyJoules, availability, inputs);
    }

    /** A compact text form (a Hadoop configuration value, a Spark partition field). */
    public String encode() {
        StringBuilder sb = new StringBuilder();
        sb.append(mode.label()).append(',').append(objective.label()).append(',').append(makespanNs).append(',')
                .append(energyJoules).append(',').append(availability);
        for (Placement p : placements) {
            if (p.device().indexOf(',') >= 0 || p.device().indexOf(';') >= 0) {
                throw new IllegalArgumentException("device id '" + p.device() + "' cannot be encoded in a plan");
            }
            sb.append(';').append(p.index()).append(',').append(p.device()).append(',').append(p.lane().label())
                    .append(',').append(p.deviceNs()).append(',').append(p.waitNs()).append(',').append(p.hostLinkNs())
                    .append(',').append(p.hostCpuNs()).append(',').append(p.hostNs()).append(',').append(p.startNs())
                    .append(',').append(p.predictedNs());
        }
        return sb.toString();
    }

    /** The plan {@link #encode} wrote; an IllegalArgumentException says what is wrong. */
    public static OffloadPlan decode(String text) {
        Objects.requireNonNull(text, "offload plan");
        String[] parts = text.split(";");
        String[] head = parts[0].split(",");
        if (head.length != 5) {
            throw new IllegalArgumentException("not an encoded offload plan: '" + abbreviate(text) + "'");
        }
        try {
            List<Placement> ps = new ArrayList<>();
            for (int i = 1; i < parts.length; i++) {
                String[] f = parts[i].split(",");
                if (f.length != 10) {
                    throw new IllegalArgumentException("split entry " + i + " has " + f.length + " fields, expected 10");
                }
                ps.add(new Placement(Integer.parseInt(f[0]), f[1], Lane.valueOf(f[2].toUpperCase(Locale.ROOT)),
                        Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]),
                        Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9])));
            }
            return new OffloadPlan(OffloadMode.parse("mode", head[0]), OffloadObjective.parse("objective", head[1]), ps,
                    Long.parseLong(head[2]), Double.parseDouble(head[3]), Double.parseDouble(head[4]), "");
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an encoded offload plan: '" + abbreviate(text) + "': " + e.getMessage(),
                    e);
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    @Override
    public String toString() {
        return summary();
    }
}
