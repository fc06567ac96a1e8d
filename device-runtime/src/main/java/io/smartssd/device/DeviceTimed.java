package io.smartssd.device;

/** Every reply carries the virtual device time its command took. */
public interface DeviceTimed {
    /** Virtual nanoseconds the command took on the device (link, firmware, flash). */
    long deviceNanos();
}
