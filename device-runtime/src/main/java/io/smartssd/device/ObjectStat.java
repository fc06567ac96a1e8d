package io.smartssd.device;

/** Reply to stat. */
public record ObjectStat(ObjectInfo info, long deviceNanos) implements DeviceTimed {
}
