package io.smartssd.device.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host calibration cache: measured once, trusted after a spot check, re-measured when wrong or stale. */
class HostCalibrationTest {
    /** Sums a 256 KiB array: a steady amount of CPU work per byte. */
    static HostCalibration.Work work() {
        byte[] data = new byte[256 << 10];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        long[] sink = new long[1];
        return () -> {
            long s = 0;
            for (byte b : data) {
                s += b * 7 + (s >>> 3);
            }
            sink[0] += s;
            return data.length;
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
        // not the planted figure: the first measurement may have run before the JIT warmed up (up to a few
        // times slower on a loaded machine), so only the order of magnitude is asserted
        double ratio = fixed.nsPerByte() / planted;
        assertTrue(ratio > 3 && ratio < 30, "re-measured " + fixed.nsPerByte() + " against planted " + planted);
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
