package io.smartssd.device;

/**
 * Input of an execution: a byte range of a data object. Text extents own the lines that start in them
 * and record extents the records whose first byte is in them (Hadoop's convention), so the extents of
 * a split compose to exactly the whole object's answer.
 */
public record Extent(long objectId, long offset, long length, boolean whole) {
    public Extent {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("extent offset and length must be >= 0, got offset "
                    + offset + " length " + length);
        }
        if (whole && (offset != 0 || length != 0)) {
            throw new IllegalArgumentException("a whole-object extent has offset 0 and length 0");
        }
    }

    /** The whole object. */
    public static Extent whole(long objectId) {
        return new Extent(objectId, 0, 0, true);
    }

    /** {@code length} bytes from {@code offset}. */
    public static Extent of(long objectId, long offset, long length) {
        return new Extent(objectId, offset, length, false);
    }

    io.smartssd.proto.Extent toProto() {
        return io.smartssd.proto.Extent.newBuilder().setObjectId(objectId).setOffset(offset)
                .setLength(length).setWhole(whole).build();
    }
}
