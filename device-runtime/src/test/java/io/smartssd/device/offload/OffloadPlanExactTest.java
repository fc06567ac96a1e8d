package io.smartssd.device.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.DeviceStats;
import io.smartssd.device.offload.OffloadPlan.Lane;
import io.smartssd.device.offload.OffloadPlan.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The planner on a case small enough to work by hand (numbers chosen so that every figure is a whole
 * number of ns): one device with one core at 1000 MHz (a cycle is a ns), no DRAM charge, no command
 * overhead and no first-page latency, 4096-byte pages read at 100 ns each, a tasklet charging 900 cycles per
 * page, and a 4.096 GB/s link; four splits of 10 pages (40960 B). So
 * <ul>
 * <li>a split on the device: 10 x max(100, 900) = 9000 ns;</li>
 * <li>its bytes over the link: 40960 B / 4.096 GB/s = 10000 ns;</li>
 * <li>on the host (0.25 ns/B, a whole core, 4096-byte reads): max(10000, 10240) + the first read's
 *   min(1000, 1024) = 11240 ns.</li>
 * </ul>
 * All on the device takes 36000 ns, all on one host slot 44960. Moving split 0 to the host (every move is
 * equal; the lowest index wins) makes the device 27000 and the host 11240; then split 1: device 18000 (its
 * link 20000) and host 22480, so the makespan is 22480; a third move would make the host 33720: the search
 * stops at host, host, device, device.
 */
class OffloadPlanExactTest {
    static final int PAGE = 4096;

    static DeviceModel device(long drainNs) {
        TaskletCost cost = new TaskletCost(900, 0, 0, 0, 10, "hand-worked");
        DeviceStats.Backlog b = new DeviceStats.Backlog(drainNs > 0 ? 1 : 0, 0, 0, 0, 0, 100, 0, 0, 0, drainNs);
        return new DeviceModel("d0", 1, 1000, 0, 0, PAGE, 100, 0, 4_096_000_000L, 0, cost, b);
    }

    static List<SplitWork> splits() {
        List<SplitWork> s = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            s.add(SplitWork.of(i, "d0", i * 10L * PAGE, 10L * PAGE, PAGE));
        }
        return s;
    }

    static OffloadPlan plan(long drainNs, int slots, OffloadMode mode, OffloadObjective objective) {
        return OffloadPlanner.plan(splits(), Map.of("d0", device(drainNs)), new HostModel(0.25, 1.0, slots, PAGE, "test"),
                mode, objective, new PowerModel(1, 2, 0.5));
    }

    static List<Lane> lanes(OffloadPlan p) {
        return p.placements().stream().map(Placement::lane).toList();
    }

    @Test
    void theFiguresOfOneSplit() {
        DeviceModel d = device(0);
        assertEquals(900, d.pageCoreNs());
        assertEquals(900, d.pagePeriodNs());
        assertEquals(9000, d.requestNs(10));
        assertEquals(10000, d.hostReadNs(40960, PAGE));
        assertEquals(11240, new HostModel(0.25, 1.0, 1, PAGE, "test").splitNs(40960, d));
        assertEquals(10, splits().get(1).pages());
    }

    @Test
    void staticModes() {
        OffloadPlan dev = plan(0, 1, OffloadMode.DEVICE, OffloadObjective.MAKESPAN);
        assertEquals(List.of(Lane.DEVICE, Lane.DEVICE, Lane.DEVICE, Lane.DEVICE), lanes(dev));
        assertEquals(36000, dev.makespanNs());
        OffloadPlan host = plan(0, 1, OffloadMode.HOST, OffloadObjective.MAKESPAN);
        assertEquals(44960, host.makespanNs());
        // two slots: the link (4 x 10000 ns) is the bottleneck, not the host's 2 x 11240
        assertEquals(40000, plan(0, 2, OffloadMode.HOST, OffloadObjective.MAKESPAN).makespanNs());
    }

    @Test
    void autoOnOneHostSlot() {
        OffloadPlan p = plan(0, 1, OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        assertEquals(List.of(Lane.HOST, Lane.HOST, Lane.DEVICE, Lane.DEVICE), lanes(p));
        assertEquals(22480, p.makespanNs());
        // the schedule: host splits one after another on the slot; the device's two stretched by its link
        // (20000 ns of host reads share the path its 18000 ns of requests take): 9000 x 20000 / 18000
        assertEquals(List.of(0L, 11240L, 0L, 10000L), p.placements().stream().map(Placement::startNs).toList());
        assertEquals(List.of(11240L, 11240L, 10000L, 10000L), p.placements().stream().map(Placement::predictedNs).toList());
        Placement s0 = p.placement(0);
        assertEquals(9000, s0.deviceNs());
        assertEquals(0, s0.waitNs());
        assertEquals(10000, s0.hostLinkNs());
        assertEquals(10240, s0.hostCpuNs());
        assertEquals(11240, s0.hostNs());
        // idle 1 W x 22480 ns + host 2 W x 22480 ns + device 0.5 W x 18000 ns
        assertEquals(76440e-9, p.energyJoules(), 1e-15);
        assertEquals("offload auto (makespan): 2 split(s) on devices, 2 on the host; predicted 0.0 ms, 0.00 J modeled",
                p.summary());
    }

    @Test
    void autoOnTwoHostSlotsStopsAtTheLink() {
        // two host splits: host max(22480 / 2, 11240) = 11240, but the link carries 20000 ns: makespan 20000;
        // a third would put 30000 ns on the link
        OffloadPlan p = plan(0, 2, OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        assertEquals(List.of(Lane.HOST, Lane.HOST, Lane.DEVICE, Lane.DEVICE), lanes(p));
        assertEquals(20000, p.makespanNs());
    }

    @Test
    void energyKeepsEverySplitOnTheDevice() {
        // all device: 1 x 36000 + 0.5 x 36000 = 54000e-9 J; one split moved: 27000 + 2 x 11240 + 0.5 x 27000
        // = 62980e-9 J
        OffloadPlan p = plan(0, 1, OffloadMode.AUTO, OffloadObjective.ENERGY);
        assertEquals(List.of(Lane.DEVICE, Lane.DEVICE, Lane.DEVICE, Lane.DEVICE), lanes(p));
        assertEquals(54000e-9, p.energyJoules(), 1e-15);
    }

    @Test
    void aBacklogMovesAThirdSplit() {
        // every request waits 3000 ns behind other tenants' work: a device split costs 12000. One move: device
        // 36000, host 11240; two: 24000 / link 20000 / host 22480 -> 24000; three: 12000 / link 30000 / host
        // 33720 -> 33720: still two, but now the device's lane sets the makespan
        OffloadPlan p = plan(3000, 1, OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        assertEquals(List.of(Lane.HOST, Lane.HOST, Lane.DEVICE, Lane.DEVICE), lanes(p));
        assertEquals(24000, p.makespanNs());
        assertEquals(3000, p.placement(2).waitNs());
        // 8000 ns of backlog per request: the device would take 17000 per split; three on two host slots
        // (link 30000, host max(33720 / 2, 11240) = 16860) beat two (device 34000)
        OffloadPlan busy = plan(8000, 2, OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        assertEquals(List.of(Lane.HOST, Lane.HOST, Lane.HOST, Lane.DEVICE), lanes(busy));
        assertEquals(30000, busy.makespanNs());
    }

    @Test
    void recheckAtASplitsStart() {
        OffloadPlan p = plan(0, 1, OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        // split 2 (device, planned 9000 ns): 500 ns of backlog now is within 10 %: it stays, the host unasked
        OffloadPlan.Recheck r = p.recheck(2, 500, () -> { throw new AssertionError("the host need not be measured"); }, 0.1);
        assertEquals(new OffloadPlan.Recheck(Lane.DEVICE, null, 9500, -1), r);
        // 5000 ns: 14000 > 9900 and the host takes 11240: it moves
        r = p.recheck(2, 5000, () -> 1.0, 0.1);
        assertTrue(r.moved());
        assertEquals(Lane.HOST, r.lane());
        assertEquals(14000, r.deviceNowNs());
        assertEquals(11240, r.hostNowNs());
        assertTrue(r.why().startsWith("re-planned to host at its start: device now"), r.why());
        // half a core free on the host: its CPU part doubles (11240 - 10240 + 20480 = 21480 > 14000): it stays
        r = p.recheck(2, 5000, () -> 0.5, 0.1);
        assertEquals(new OffloadPlan.Recheck(Lane.DEVICE, null, 14000, 21480), r);
        // split 0 (host, planned 11240): at half a core 21480 > 12364 and the idle device takes 9000: back to it
        r = p.recheck(0, 0, () -> 0.5, 0.1);
        assertEquals(Lane.DEVICE, r.lane());
        assertEquals(9000, r.deviceNowNs());
        assertEquals(21480, r.hostNowNs());
        // a host within tolerance keeps its split
        assertFalse(p.recheck(0, 0, () -> 1.0, 0.1).moved());
        assertNull(p.recheck(0, 0, () -> 1.0, 0.1).why());
    }
}
