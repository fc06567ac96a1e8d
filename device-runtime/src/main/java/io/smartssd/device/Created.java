package io.smartssd.device;

/** Reply to a create command: the new object's id. */
public record Created(long id, long deviceNanos) implements DeviceTimed {
}
