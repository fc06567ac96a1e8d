package io.smartssd.device.offload;

import java.util.Locale;

/** What the planner minimizes: the job's makespan (default) or its modeled energy. */
public enum OffloadObjective {
    MAKESPAN, ENERGY;

    /** As {@link OffloadMode#parse}: an {@link OffloadSettingException} names the key. */
    public static OffloadObjective parse(String key, String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (OffloadObjective o : values()) {
            if (o.label().equals(v)) {
                return o;
            }
        }
        throw new OffloadSettingException(key, value, "not an offload objective; give makespan or energy");
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
