package io.smartssd.device;

import java.util.List;

/** Reply to list: objects sorted by name; {@code more} when the limit cut the list short. */
public record ObjectList(List<ObjectInfo> objects, boolean more, long deviceNanos) implements DeviceTimed {
    public ObjectList {
        objects = List.copyOf(objects);
    }
}
