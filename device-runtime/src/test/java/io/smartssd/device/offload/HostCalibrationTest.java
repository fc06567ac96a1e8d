package io.smartssd.device.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host calibration cache: measured once, trusted after a spot check, re-measured when wrong or stale. */
class HostCalibrationTest {
    /**
     * Burns 200 us of this thread's CPU time per 100,000 bytes: 2 ns/B whatever the JIT has compiled by then
     * (a real loop runs several times slower before it is compiled, which a spot check after a measurement
     * would see as a disagreement).
     */
    static HostCalibration.Work work() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        return () -> {
            long t0 = threads.getCurrentThreadCpuTime();
            while (threads.getCurrentThreadCpuTime() - t0 < 200_000L) {
                Thread.onSpinWait();
            }
            return 100_000L;
        };
    }

    @Test
    void aPlantedFigureTenTimesTooFastIsReMeasured(@TempDir Path dir) {
        HostCalibration cal = new HostCalibration(dir.resolve("cal.properties"), Duration.ofDays(7), 2.0);
        HostCalibration.Work w = work();
        HostCalibration.Result first = cal.calibrate("sum", w);
        assertEquals("measured", first.source());
        assertFalse(first.remeasured());
        HostCalibration.Result again = cal.calibrate("sum", w);
        assertEquals("cached", again.source(), "a figure that a spot check agrees with is used as it is");
        double planted = first.nsPerByte() / 10;
        cal.put("sum", planted);   // planted: the host 10x faster than it is
        HostCalibration.Result fixed = cal.calibrate("sum", w);
        assertTrue(fixed.remeasured(), fixed.toString());
        assertTrue(fixed.source().contains("spot check"), fixed.source());
        // the work's figure again (2 ns/B and a little for the loop that reads the clock), not the planted one
        assertEquals(2.0, fixed.nsPerByte(), 0.5, "re-measured " + fixed.nsPerByte() + " against planted " + planted);
        assertEquals(fixed.nsPerByte(), cal.cached("sum"), 0.0, "the cache now holds the new figure");
    }

    @Test
    void aRunThatDisagreesMarksTheFigureStale(@TempDir Path dir) {
        HostCalibration cal = new HostCalibration(dir.resolve("cal.properties"), Duration.ofDays(7), 2.0);
        cal.put("k", 1.0);
        assertTrue(cal.check("k", 1_500_000, 1_000_000));
        assertFalse(cal.check("k", 10_000_000, 1_000_000));
        HostCalibration.Result r = cal.calibrate("k", work());
        assertTrue(r.remeasured() && r.source().contains("stale"), r.source());
    }

    @Test
    void anOldFigureIsMeasuredAgain(@TempDir Path dir) {
        HostCalibration cal = new HostCalibration(dir.resolve("cal.properties"), Duration.ZERO, 2.0);
        cal.put("k", 1.0);
        assertTrue(cal.calibrate("k", work()).source().contains("older than"));
    }
}
