package io.smartssd.device;

/**
 * Reply to {@link SmartSsd#installTasklet}: the program's id on the device (the data object that
 * holds it), its content hash, and whether the same bytes were already installed (then nothing was
 * written).
 */
public record TaskletInstalled(long programId, String hash, boolean unchanged, long deviceNanos) implements DeviceTimed {
}
