package io.smartssd.device.offload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every offload setting: its default when unset, its value when well formed, a typed error naming it when not. */
class OffloadSettingsTest {
    static OffloadSettings read(String prefix, Map<String, String> conf) {
        return OffloadSettings.read(prefix, conf::get, 3);
    }

    @Test
    void defaults() {
        OffloadSettings s = read("smartssd.offload", Map.of());
        assertEquals(OffloadMode.DEVICE, s.mode());
        assertEquals(OffloadMode.parse("k", OffloadSettings.DEFAULT_MODE), s.mode());
        assertEquals(OffloadObjective.MAKESPAN, s.objective());
        assertEquals(3, s.hostSlots(), "the caller's slots");
        assertEquals(OffloadSettings.DEFAULT_READ_BYTES, s.readBytes());
        assertEquals(OffloadSettings.DEFAULT_PROBE_PAGES, s.probePages());
        assertEquals(HostCalibration.defaultFile(), s.calibrationFile());
        assertEquals(Duration.ofDays(7), s.calibrationMaxAge());
        assertEquals(OffloadSettings.DEFAULT_CALIBRATION_TOLERANCE, s.calibrationTolerance());
        assertEquals(OffloadSettings.DEFAULT_REPLAN_TOLERANCE, s.replanTolerance());
        assertEquals(PowerModel.PAPER, s.power());
        assertNull(s.report());
    }

    @Test
    void wellFormedValues() {
        OffloadSettings s = read("offload", Map.ofEntries(Map.entry("offload", " AUTO "),
                Map.entry("offload.objective", "energy"), Map.entry("offload.host.slots", "8"),
                Map.entry("offload.host.read-bytes", "65536"), Map.entry("offload.probe.pages", "4"),
                Map.entry("offload.calibration.file", "/tmp/cal.properties"),
                Map.entry("offload.calibration.max-age-hours", "1.5"), Map.entry("offload.calibration.tolerance", "3"),
                Map.entry("offload.replan.tolerance", "0"), Map.entry("offload.power.host-idle-w", "10"),
                Map.entry("offload.power.host-active-w", "20"), Map.entry("offload.power.device-w", "1"),
                Map.entry("offload.report", "/tmp/r.jsonl")));
        assertEquals(OffloadMode.AUTO, s.mode());
        assertEquals(OffloadObjective.ENERGY, s.objective());
        assertEquals(8, s.hostSlots());
        assertEquals(65536, s.readBytes());
        assertEquals(4, s.probePages());
        assertEquals(Path.of("/tmp/cal.properties"), s.calibrationFile());
        assertEquals(Duration.ofMinutes(90), s.calibrationMaxAge());
        assertEquals(3.0, s.calibrationTolerance());
        assertEquals(0.0, s.replanTolerance());
        assertEquals(new PowerModel(10, 20, 1), s.power());
        assertEquals(Path.of("/tmp/r.jsonl"), s.report());
    }

    @ParameterizedTest
    @CsvSource({
        "'', maybe, not an offload mode; give device, host or auto",
        "'', '', not an offload mode",
        ".objective, speed, not an offload objective; give makespan or energy",
        ".host.slots, 0, give a whole number in 1..4096",
        ".host.slots, two, give a whole number in 1..4096",
        ".host.slots, 4097, give a whole number in 1..4096",
        ".host.read-bytes, 100, give a whole number in 4096..67108864",
        ".probe.pages, 1, give a whole number in 2..4096",
        ".calibration.max-age-hours, -1, give a number in 0..1000000",
        ".calibration.tolerance, 1, give a number in 1.00010..1000",
        ".replan.tolerance, NaN, give a number in 0..100",
        ".power.host-idle-w, -3, give a number in 0..1000000",
        ".power.host-active-w, lots, give a number in 0..1000000",
        ".power.device-w, Infinity, give a number in 0..1000000",
    })
    void aMalformedValueIsATypedErrorNamingItsKey(String suffix, String value, String expected) {
        String key = "smartssd.offload" + suffix;
        OffloadSettingException e = assertThrows(OffloadSettingException.class,
                () -> read("smartssd.offload", Map.of(key, value)));
        assertEquals(key, e.key());
        assertEquals(value, e.value());
        assertTrue(e.getMessage().startsWith(key + " = '" + value + "': " + expected), e.getMessage());
    }
}
