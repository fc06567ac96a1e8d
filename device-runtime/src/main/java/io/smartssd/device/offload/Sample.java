package io.smartssd.device.offload;

import io.smartssd.device.DeviceException;
import io.smartssd.device.ReadResult;
import io.smartssd.device.SmartSsd;
import java.nio.ByteBuffer;

/**
 * A few pages of a job's input, read from the device over the host link once at planning: what the
 * tasklet's cost and the host's throughput are measured on. The extent [offset, offset + length) starts
 * in page firstPage; pages holds whole pages from there (the object's last page may be short).
 */
public record Sample(long object, long objectSize, long offset, long length, long firstPage, int pageBytes,
                     ByteBuffer pages) {
    /** Up to maxPages pages of the object from the page holding offset (at least one byte of extent). */
    public static Sample read(SmartSsd ssd, long object, long objectSize, long offset, int maxPages, int pageBytes) {
        long first = offset / pageBytes;
        long end = Math.min(objectSize, (first + maxPages) * pageBytes);
        int n = (int) (end - first * pageBytes);
        ByteBuffer b = ByteBuffer.allocateDirect(Math.max(n, 0));
        while (b.hasRemaining()) {
            ReadResult r = ssd.read(object, first * pageBytes + b.position(), b);
            if (r.bytes() <= 0) {
                throw new DeviceException(DeviceException.Code.IO_ERROR, "object " + object + " ended at "
                        + (first * pageBytes + b.position()) + " reading a planning sample");
            }
        }
        b.flip();
        return new Sample(object, objectSize, offset, Math.max(0, end - offset), first, pageBytes, b);
    }

    /** Whole pages in the sample (the object's short last page counts). */
    public int pageCount() {
        return (pages.limit() + pageBytes - 1) / pageBytes;
    }

    /** The sample's bytes of the extent (from offset) as a heap array, for host versions that take arrays. */
    public byte[] extentBytes() {
        ByteBuffer d = pages.duplicate();
        d.position((int) (offset - firstPage * pageBytes));
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }
}
