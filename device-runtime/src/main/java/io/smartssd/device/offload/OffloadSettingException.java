package io.smartssd.device.offload;

/**
 * A malformed offload setting: {@link #key()} names it as the caller spelled it ({@code smartssd.offload.host.slots},
 * Spark's {@code offload.host.slots}), {@link #value()} is what it held; the message says what would do.
 */
public final class OffloadSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String key;
    private final String value;

    public OffloadSettingException(String key, String value, String expected) {
        super(key + " = '" + value + "': " + expected);
        this.key = key;
        this.value = value;
    }

    public String key() {
        return key;
    }

    public String value() {
        return value;
    }
}
