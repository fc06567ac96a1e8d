package io.smartssd.device;

/** Reply to a write: bytes written and the object's size afterwards. */
public record Written(long bytes, long size, long deviceNanos) implements DeviceTimed {
}
