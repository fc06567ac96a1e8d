package io.smartssd.device.offload;

import java.util.Objects;

/**
 * One split as the planner sees it: which device holds it, its bytes, and the device pages its extent
 * covers (what a tasklet reads). index is the split's position in the job (plans are in this order).
 */
public record SplitWork(int index, String device, long bytes, long pages) {
    public SplitWork {
        Objects.requireNonNull(device, "device");
        if (index < 0 || bytes < 0 || pages < 0) {
            throw new IllegalArgumentException("split " + index + ": negative index, bytes or pages");
        }
    }

    /** The split of [offset, offset + length) of an object on a device of pageBytes pages. */
    public static SplitWork of(int index, String device, long offset, long length, int pageBytes) {
        long pages = length == 0 ? 0 : (offset + length + pageBytes - 1) / pageBytes - offset / pageBytes;
        return new SplitWork(index, device, length, pages);
    }
}
