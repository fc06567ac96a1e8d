package io.smartssd.device;

/**
 * An installed user tasklet program: its name (what {@link SmartSsd#createTasklet} takes), format
 * ("wasm" or "native"), the data object holding it, its size in bytes and content hash.
 */
public record UserTasklet(String name, String format, long programId, long size, String hash) {
}
