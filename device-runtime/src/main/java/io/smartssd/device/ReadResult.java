package io.smartssd.device;

/** Reply to a data read: bytes placed in the caller's buffer, and whether the end of the object was reached. */
public record ReadResult(int bytes, boolean eof, long deviceNanos) implements DeviceTimed {
}
