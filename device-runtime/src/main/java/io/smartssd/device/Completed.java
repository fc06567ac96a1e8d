package io.smartssd.device;

/** Reply to a command without a result (delete, rename, trim). */
public record Completed(long deviceNanos) implements DeviceTimed {
}
