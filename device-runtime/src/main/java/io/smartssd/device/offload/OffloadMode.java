package io.smartssd.device.offload;

import java.util.Locale;

/** Where a job's splits run: all on the devices that hold them, all on the host, or each where the cost model says. */
public enum OffloadMode {
    DEVICE, HOST, AUTO;

    /**
     * The mode a setting names (case-insensitive), or an {@link OffloadSettingException} naming the setting's
     * key, the value and the choices.
     */
    public static OffloadMode parse(String key, String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (OffloadMode m : values()) {
            if (m.label().equals(v)) {
                return m;
            }
        }
        throw new OffloadSettingException(key, value, "not an offload mode; give device, host or auto");
    }

    /** The setting's spelling: device, host, auto. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
