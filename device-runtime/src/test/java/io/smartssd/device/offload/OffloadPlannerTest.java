package io.smartssd.device.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.DeviceStats;
import io.smartssd.device.offload.OffloadPlan.Lane;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The planner on the smartssd-paper preset's figures (docs/TIMING-MODEL.md: 2 cores at 400 MHz, 380 ns per
 * DRAM access, 2000 cycles per page, 15170 ns of firmware per page, a 300 MB/s link with 20 us per
 * command) and weblog-q1's charges (4 cycles and one DRAM access per record): at 32-byte entries the
 * device is core-bound at about half the link's rate, at 256 bytes flash-bound at 1.8 times it.
 */
class OffloadPlannerTest {
    static final int PAGE = 8192;
    static final long SPLIT = 16L << 20;   // 2048 pages

    static DeviceModel device(String id, int entryBytes, long waitCoreNs) {
        double records = (double) PAGE / entryBytes;
        TaskletCost cost = new TaskletCost(4 * records, records, 320, 0, 16, "test");
        DeviceStats.Backlog b = new DeviceStats.Backlog(waitCoreNs > 0 ? 1 : 0, 0, 0, 0, waitCoreNs * 2, 15170, 0, 0, 0,
                waitCoreNs);
        return new DeviceModel(id, 2, 400, 380, 2000, PAGE, 15170, 214933, 300_000_000L, 20000, cost, b);
    }

    static HostModel host(int slots) {
        return new HostModel(0.5, 1.0, slots, 1 << 20, "test");
    }

    static List<SplitWork> splits(int n, String... devices) {
        List<SplitWork> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(SplitWork.of(i, devices[i % devices.length], i * SPLIT, SPLIT, PAGE));
        }
        return out;
    }

    static OffloadPlan plan(List<SplitWork> s, Map<String, DeviceModel> d, HostModel h, OffloadMode m, OffloadObjective o) {
        return OffloadPlanner.plan(s, d, h, m, o, PowerModel.PAPER);
    }

    @Test
    void staticModesPlaceEverySplitThere() {
        Map<String, DeviceModel> d = Map.of("d0", device("d0", 32, 0));
        OffloadPlan dev = plan(splits(8, "d0"), d, host(2), OffloadMode.DEVICE, OffloadObjective.MAKESPAN);
        OffloadPlan h = plan(splits(8, "d0"), d, host(2), OffloadMode.HOST, OffloadObjective.MAKESPAN);
        assertEquals(8, dev.count(Lane.DEVICE));
        assertEquals(8, h.count(Lane.HOST));
        // 32 B: the device's core time per page (7560 + 256 x 380 = 104840 ns over 2 cores) loses to the link
        assertTrue(h.makespanNs() < dev.makespanNs(), h + " vs " + dev);
    }

    @Test
    void smallEntriesSplitTheJobBetweenDeviceAndHost() {
        Map<String, DeviceModel> d = Map.of("d0", device("d0", 32, 0));
        OffloadPlan dev = plan(splits(16, "d0"), d, host(2), OffloadMode.DEVICE, OffloadObjective.MAKESPAN);
        OffloadPlan h = plan(splits(16, "d0"), d, host(2), OffloadMode.HOST, OffloadObjective.MAKESPAN);
        OffloadPlan auto = plan(splits(16, "d0"), d, host(2), OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        assertTrue(auto.count(Lane.DEVICE) > 0 && auto.count(Lane.HOST) > 0, auto.toString());
        // both at once: the device's cores and the link work side by side (the flash path has room for both)
        assertTrue(auto.makespanNs() < Math.min(dev.makespanNs(), h.makespanNs()) * 0.8, auto + " " + dev + " " + h);
    }

    @Test
    void largeEntriesStayOnAnIdleDevice() {
        // 256 B: flash-bound at 15170 ns per page; the host's reads would take the same flash path, so at most
        // the gaps between the device's requests (commands, the first page's latency) are left to fill
        Map<String, DeviceModel> d = Map.of("d0", device("d0", 256, 0));
        OffloadPlan auto = plan(splits(16, "d0"), d, host(2), OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        OffloadPlan dev = plan(splits(16, "d0"), d, host(2), OffloadMode.DEVICE, OffloadObjective.MAKESPAN);
        assertTrue(auto.count(Lane.DEVICE) >= 15, auto.toString());
        assertTrue(auto.makespanNs() <= dev.makespanNs() && auto.makespanNs() > dev.makespanNs() * 0.97, auto + " " + dev);
    }

    @Test
    void aBusyDeviceShedsSplitsToTheHost() {
        Map<String, DeviceModel> idle = Map.of("d0", device("d0", 256, 0));
        Map<String, DeviceModel> busy = Map.of("d0", device("d0", 256, 60_000_000L));
        OffloadPlan a = plan(splits(16, "d0"), idle, host(2), OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        OffloadPlan b = plan(splits(16, "d0"), busy, host(2), OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        OffloadPlan dev = plan(splits(16, "d0"), busy, host(2), OffloadMode.DEVICE, OffloadObjective.MAKESPAN);
        OffloadPlan h = plan(splits(16, "d0"), busy, host(2), OffloadMode.HOST, OffloadObjective.MAKESPAN);
        assertTrue(b.count(Lane.HOST) > a.count(Lane.HOST), a + " / " + b);
        assertTrue(b.makespanNs() < Math.min(dev.makespanNs(), h.makespanNs()), b + " " + dev + " " + h);
        Lane waitedLane = b.placement(0).lane();
        assertTrue(b.placement(0).waitNs() == 60_000_000L, "the wait is the device's backlog: " + waitedLane);
    }

    @Test
    void twoEquallyLoadedDevicesShedAlike() {
        Map<String, DeviceModel> d = new TreeMap<>(Map.of("d0", device("d0", 32, 0), "d1", device("d1", 32, 0)));
        OffloadPlan auto = plan(splits(16, "d0", "d1"), d, host(2), OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        long h0 = auto.placements().stream().filter(p -> p.device().equals("d0") && p.lane() == Lane.HOST).count();
        long h1 = auto.placements().stream().filter(p -> p.device().equals("d1") && p.lane() == Lane.HOST).count();
        assertTrue(h0 > 0 && Math.abs(h0 - h1) <= 1, auto + ": " + h0 + " and " + h1 + " to the host");
    }

    @Test
    void theEnergyObjectiveKeepsMoreOnTheDevice() {
        Map<String, DeviceModel> d = Map.of("d0", device("d0", 32, 0));
        OffloadPlan time = plan(splits(16, "d0"), d, host(2), OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        OffloadPlan energy = plan(splits(16, "d0"), d, host(2), OffloadMode.AUTO, OffloadObjective.ENERGY);
        assertTrue(energy.count(Lane.DEVICE) >= time.count(Lane.DEVICE), time + " / " + energy);
        assertTrue(energy.energyJoules() <= time.energyJoules());
        assertTrue(energy.makespanNs() >= time.makespanNs());
    }

    @Test
    void theSameInputsGiveTheSamePlan() {
        Map<String, DeviceModel> d = new TreeMap<>(Map.of("d1", device("d1", 64, 3_000_000L), "d0", device("d0", 32, 0)));
        String a = plan(splits(24, "d0", "d1"), d, host(3), OffloadMode.AUTO, OffloadObjective.MAKESPAN).encode();
        String b = plan(splits(24, "d0", "d1"), Map.copyOf(d), host(3), OffloadMode.AUTO, OffloadObjective.MAKESPAN).encode();
        assertEquals(a, b);
        OffloadPlan decoded = OffloadPlan.decode(a);
        assertEquals(a, decoded.encode());
        assertThrows(IllegalArgumentException.class, () -> OffloadPlan.decode("auto,makespan,1"));
    }

    @Test
    void recheckMovesASplitWhenItsDeviceFallsBehind() {
        Map<String, DeviceModel> d = Map.of("d0", device("d0", 256, 0));
        OffloadPlan p = plan(splits(4, "d0"), d, host(2), OffloadMode.AUTO, OffloadObjective.MAKESPAN);
        assertEquals(Lane.DEVICE, p.placement(2).lane());
        OffloadPlan.Recheck same = p.recheck(2, 0, () -> 1.0, 0.1);
        assertFalse(same.moved());
        OffloadPlan.Recheck late = p.recheck(2, 500_000_000L, () -> 1.0, 0.1);
        assertTrue(late.moved(), late.toString());
        assertEquals(Lane.HOST, late.lane());
        // a busier host does not pull it back while the device is on time
        assertFalse(p.recheck(2, 0, () -> 0.1, 0.1).moved());
    }

    @Test
    void settingsNameTheKeyTheyRefuse() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OffloadSettings.read("smartssd.offload", k -> k.equals("smartssd.offload") ? "maybe" : null, 2));
        assertTrue(e.getMessage().contains("smartssd.offload = 'maybe'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> OffloadSettings.read("offload",
                k -> k.equals("offload.host.slots") ? "0" : null, 2));
        assertTrue(e.getMessage().contains("offload.host.slots"), e.getMessage());
        OffloadSettings s = OffloadSettings.read("smartssd.offload", k -> null, 3);
        assertEquals(OffloadMode.DEVICE, s.mode());
        assertEquals(3, s.hostSlots());
    }
}
