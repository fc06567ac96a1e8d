package io.smartssd.device.offload;

import io.smartssd.device.offload.OffloadPlan.Lane;
import io.smartssd.device.offload.OffloadPlan.Placement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Chooses, split by split, the device that holds it or a host slot (Smart SSD paper VI: "a cost function
 * for each job", assigned to "the device or the host depending on the cost" and on "the current load of
 * a host and a device", "across multiple Smart SSDs and hosts"; docs/OFFLOAD.md).
 *
 * <p>A plan is judged by the time each shared resource needs (a fluid model; every figure from
 * {@link DeviceModel} and {@link HostModel}):
 * <ul>
 * <li>device d's lane: its device splits one after another, each waiting behind the device's backlog:
 *   {@code sum(wait_d + request_i)};</li>
 * <li>device d's flash: every page read there, by its own splits and by the host's:
 *   {@code backlog flash + flash page x pages};</li>
 * <li>device d's link: {@code backlog link + sum over host splits on d of their reads};</li>
 * <li>the host: {@code max(sum of host splits / slots, longest host split)}.</li>
 * </ul>
 * The makespan is the largest; the modeled energy is {@code idle W x makespan + host W x host-split time +
 * device W x device-split time} ({@link PowerModel}). The search starts from every split on its device and
 * moves one split at a time (device to host or back), taking the move that improves the objective most
 * (makespan, or energy then makespan; equal makespans are told apart by the other resources' times, largest
 * first, so two equally loaded devices both shed work), the lowest split index on ties, until no move
 * improves: the same inputs give the same plan.
 */
public final class OffloadPlanner {
    private OffloadPlanner() {
    }

    /**
     * The plan of `splits` (each held by a device in `devices`) under `mode`: DEVICE and HOST place every
     * split there; AUTO searches. Predicted times are ns from the job's start.
     */
    public static OffloadPlan plan(List<SplitWork> splits, Map<String, DeviceModel> devices, HostModel host,
                                   OffloadMode mode, OffloadObjective objective, PowerModel power) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(objective, "objective");
        Objects.requireNonNull(power, "power");
        Model m = new Model(splits, devices, host, objective, power);
        boolean[] onHost = new boolean[m.n];
        if (mode == OffloadMode.HOST) {
            Arrays.fill(onHost, true);
        } else if (mode == OffloadMode.AUTO) {
            m.search(onHost);
        }
        return m.plan(mode, onHost);
    }

    /** Every split's figures, the device lanes and the objective. */
    private static final class Model {
        final int n;
        final List<SplitWork> splits;
        final HostModel host;
        final OffloadObjective objective;
        final PowerModel power;
        final String[] deviceIds;         // sorted: a plan does not depend on the map's order
        final DeviceModel[] devices;
        final int[] dev;                  // split -> device index
        final long[] devNs, waitNs, linkNs, cpuNs, hostNs;
        final long[] flashNs;             // per device: every page of its splits through its flash path

        Model(List<SplitWork> splits, Map<String, DeviceModel> models, HostModel host, OffloadObjective objective,
              PowerModel power) {
            this.splits = List.copyOf(splits);
            this.n = splits.size();
            this.host = Objects.requireNonNull(host, "host model");
            this.objective = objective;
            this.power = power;
            TreeMap<String, DeviceModel> sorted = new TreeMap<>(models);
            deviceIds = sorted.keySet().toArray(new String[0]);
            devices = sorted.values().toArray(new DeviceModel[0]);
            dev = new int[n];
            devNs = new long[n];
            waitNs = new long[n];
            linkNs = new long[n];
            cpuNs = new long[n];
            hostNs = new long[n];
            flashNs = new long[devices.length];
            for (int i = 0; i < n; i++) {
                SplitWork s = splits.get(i);
                int d = Arrays.binarySearch(deviceIds, s.device());
                if (d < 0) {
                    throw new IllegalArgumentException("split " + s.index() + " is on device '" + s.device()
                            + "', which the planner has no model of (devices: " + String.join(", ", deviceIds) + ")");
                }
                DeviceModel dm = devices[d];
                dev[i] = d;
                devNs[i] = dm.requestNs(s.pages());
                waitNs[i] = dm.waitNs();
                linkNs[i] = dm.hostReadNs(s.bytes(), host.readBytes());
                cpuNs[i] = (long) Math.ceil(s.bytes() * host.cpuNsPerByte());
                hostNs[i] = host.splitNs(s.bytes(), dm);
                flashNs[d] += s.pages() * dm.flashPageNs();
            }
        }

        /** The resources' times under an assignment, and the objective. */
        final class Eval {
            final long makespan;
            final double energy;
            final long[] resources;   // descending

            Eval(long[] lane, long[] link, long hostSum, long hostMax, long devBusy, long hostBusy) {
                long[] r = new long[devices.length + 1];
                for (int d = 0; d < devices.length; d++) {
                    r[d] = Math.max(lane[d], Math.max(devices[d].backlog().flashNanosLeft() + flashNs[d],
                            devices[d].linkWaitNs() + link[d]));
                }
                r[devices.length] = Math.max(DeviceModel.ceilDiv(hostSum, host.slots()), hostMax);
                Arrays.sort(r);
                long[] desc = new long[r.length];
                for (int k = 0; k < r.length; k++) {
                    desc[k] = r[r.length - 1 - k];
                }
                resources = desc;
                makespan = desc[0];
                energy = (power.hostIdleWatts() * makespan + power.hostActiveWatts() * hostBusy
                        + power.deviceWatts() * devBusy) / 1e9;
            }

            boolean betterThan(Eval o) {
                if (objective == OffloadObjective.ENERGY) {
                    int c = Double.compare(energy, o.energy);
                    if (c != 0) {
                        return c < 0;
                    }
                }
                if (makespan != o.makespan) {
                    return makespan < o.makespan;
                }
                for (int k = 0; k < resources.length; k++) {
                    if (resources[k] != o.resources[k]) {
                        return resources[k] < o.resources[k];
                    }
                }
                return objective == OffloadObjective.MAKESPAN && energy < o.energy;
            }
        }

        /** Hill-climbing by single moves from all-on-device; onHost holds the result. */
        void search(boolean[] onHost) {
            long[] lane = new long[devices.length];
            long[] link = new long[devices.length];
            long devBusy = 0;
            for (int i = 0; i < n; i++) {
                lane[dev[i]] += waitNs[i] + devNs[i];
                devBusy += devNs[i];
            }
            long hostSum = 0;
            long hostBusy = 0;
            Eval cur = new Eval(lane, link, 0, 0, devBusy, 0);
            for (int iter = 0; iter < 4 * n + 4; iter++) {
                long[] top = topTwo(onHost);
                int best = -1;
                Eval bestEval = cur;
                for (int i = 0; i < n; i++) {
                    int d = dev[i];
                    long self = waitNs[i] + devNs[i];
                    Eval e;
                    if (!onHost[i]) {
                        lane[d] -= self;
                        link[d] += linkNs[i];
                        e = new Eval(lane, link, hostSum + hostNs[i], Math.max(top[0], hostNs[i]), devBusy - devNs[i],
                                hostBusy + hostNs[i]);
                        lane[d] += self;
                        link[d] -= linkNs[i];
                    } else {
                        lane[d] += self;
                        link[d] -= linkNs[i];
                        long max = hostNs[i] == top[0] ? top[1] : top[0];
                        e = new Eval(lane, link, hostSum - hostNs[i], max, devBusy + devNs[i], hostBusy - hostNs[i]);
                        lane[d] -= self;
                        link[d] += linkNs[i];
                    }
                    if (e.betterThan(bestEval)) {
                        best = i;
                        bestEval = e;
                    }
                }
                if (best < 0) {
                    return;
                }
                int d = dev[best];
                long self = waitNs[best] + devNs[best];
                if (!onHost[best]) {
                    lane[d] -= self;
                    link[d] += linkNs[best];
                    hostSum += hostNs[best];
                    hostBusy += hostNs[best];
                    devBusy -= devNs[best];
                } else {
                    lane[d] += self;
                    link[d] -= linkNs[best];
                    hostSum -= hostNs[best];
                    hostBusy -= hostNs[best];
                    devBusy += devNs[best];
                }
                onHost[best] = !onHost[best];
                cur = bestEval;
            }
        }

        /** The two largest host times among host splits (ties count twice). */
        long[] topTwo(boolean[] onHost) {
            long a = 0;
            long b = 0;
            for (int i = 0; i < n; i++) {
                if (onHost[i]) {
                    long v = hostNs[i];
                    if (v > a) {
                        b = a;
                        a = v;
                    } else if (v > b) {
                        b = v;
                    }
                }
            }
            return new long[] {a, b};
        }

        /** The assignment's evaluation and a schedule: device lanes in split order, host splits longest first
         * onto the earliest free slot, each lane's durations stretched by its resource's sharing. */
        OffloadPlan plan(OffloadMode mode, boolean[] onHost) {
            long[] lane = new long[devices.length];
            long[] link = new long[devices.length];
            long hostSum = 0;
            long hostMax = 0;
            long devBusy = 0;
            long hostBusy = 0;
            for (int i = 0; i < n; i++) {
                if (onHost[i]) {
                    link[dev[i]] += linkNs[i];
                    hostSum += hostNs[i];
                    hostMax = Math.max(hostMax, hostNs[i]);
                    hostBusy += hostNs[i];
                } else {
                    lane[dev[i]] += waitNs[i] + devNs[i];
                    devBusy += devNs[i];
                }
            }
            Eval e = new Eval(lane, link, hostSum, hostMax, devBusy, hostBusy);
            Placement[] out = new Placement[n];
            // device lanes: one request after another; stretched when the device's flash or link is the bottleneck
            long[] at = new long[devices.length];
            for (int i = 0; i < n; i++) {
                if (onHost[i]) {
                    continue;
                }
                int d = dev[i];
                long resource = Math.max(lane[d], Math.max(devices[d].backlog().flashNanosLeft() + flashNs[d],
                        devices[d].linkWaitNs() + link[d]));
                double stretch = lane[d] == 0 ? 1 : (double) resource / lane[d];
                long dur = Math.round((waitNs[i] + devNs[i]) * stretch);
                out[i] = placement(i, Lane.DEVICE, at[d], dur);
                at[d] += dur;
            }
            // host slots: longest first onto the earliest free slot; stretched when a link is the bottleneck
            long linkBound = 0;
            for (int d = 0; d < devices.length; d++) {
                linkBound = Math.max(linkBound, devices[d].linkWaitNs() + link[d]);
            }
            long hostFluid = Math.max(DeviceModel.ceilDiv(hostSum, host.slots()), hostMax);
            double hostStretch = hostFluid == 0 ? 1 : Math.max(1.0, (double) linkBound / hostFluid);
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            Arrays.sort(order, Comparator.<Integer>comparingLong(i -> -hostNs[i]).thenComparingInt(i -> i));
            long[] slot = new long[host.slots()];
            for (int i : order) {
                if (!onHost[i]) {
                    continue;
                }
                int s = 0;
                for (int k = 1; k < slot.length; k++) {
                    if (slot[k] < slot[s]) {
                        s = k;
                    }
                }
                long dur = Math.round(hostNs[i] * hostStretch);
                out[i] = placement(i, Lane.HOST, slot[s], dur);
                slot[s] += dur;
            }
            return new OffloadPlan(mode, objective, Arrays.asList(out), e.makespan, e.energy, host.availability(),
                    inputs());
        }

        Placement placement(int i, Lane lane, long start, long dur) {
            return new Placement(splits.get(i).index(), deviceIds[dev[i]], lane, devNs[i], waitNs[i], linkNs[i], cpuNs[i],
                    hostNs[i], start, dur);
        }

        String inputs() {
            List<String> parts = new ArrayList<>();
            for (DeviceModel d : devices) {
                parts.add(String.format(Locale.ROOT, "device %s: %d cores at %d MHz, page %d B: core %d ns/page, flash %d"
                        + " ns/page, tasklet %.0f cycles + %.1f DRAM/page (%s, %d pages), wait %.1f ms (%d requests held)",
                        d.device(), d.cores(), d.coreMhz(), d.pageBytes(), d.pageCoreNs(), d.flashPageNs(),
                        d.cost().cyclesPerPage(), d.cost().dramPerPage(), d.cost().source(), d.cost().pagesSampled(),
                        d.waitNs() / 1e6, d.backlog().requests()));
            }
            parts.add(String.format(Locale.ROOT, "host: %.4f ns/B CPU (%s), %.2f of a core per slot, %d slot(s), %d B"
                    + " per read", host.cpuNsPerByte(), host.calibration(), host.availability(), host.slots(),
                    host.readBytes()));
            return String.join("; ", parts);
        }
    }
}
