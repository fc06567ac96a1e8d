package io.smartssd.device;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reply to stats: the device's counters (name to value) and its clock. */
public record DeviceStats(Map<String, Long> counters, long deviceClockNanos, long deviceNanos)
        implements DeviceTimed {
    public DeviceStats {
        counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters)); // device order
    }

    /** A counter's value, or 0 when the device has no such counter. */
    public long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }
}
