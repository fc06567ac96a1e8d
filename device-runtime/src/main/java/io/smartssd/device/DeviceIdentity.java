package io.smartssd.device;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reply to identify: what the device is, its geometry, policies, tasklets and every parameter. */
public record DeviceIdentity(String model, String preset, Geometry geometry, long capacityBytes,
                             long physicalBytes, int cores, String requestScheduler, String chipScheduler,
                             String ftl, List<String> tasklets, Map<String, String> params,
                             int protocolVersion, long deviceNanos) implements DeviceTimed {

    /** Flash geometry. */
    public record Geometry(int channels, int chipsPerChannel, int diesPerChip, int planesPerDie,
                           int blocksPerPlane, int pagesPerBlock, int pageBytes) {
    }

    public DeviceIdentity {
        tasklets = List.copyOf(tasklets);
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params)); // device order
    }

    /**
     * The device's placement policy, its {@code placement} parameter: which page a host write takes and
     * which block GC reclaims (e.g. {@code stripe}; on a hybrid SLC/TLC device {@code level}, the hybrid
     * paper's method that places by write hint, or {@code combo}, its size/update-frequency baseline).
     */
    public String placement() {
        return params.getOrDefault("placement", "");
    }
}
