package io.smartssd.device;

/**
 * What the device knows about one object.
 *
 * @param id         object id (never reused on a device)
 * @param kind       data, tasklet or output
 * @param name       object name (data objects) or tasklet name
 * @param size       bytes
 * @param pages      flash pages mapped
 * @param createdSeq creation order on the device
 */
public record ObjectInfo(long id, ObjectKind kind, String name, long size, long pages, long createdSeq) {
    static ObjectInfo of(io.smartssd.proto.ObjectInfo p) {
        return new ObjectInfo(p.getObjectId(), ObjectKind.of(p.getKind()), p.getName(), p.getSize(),
                p.getPages(), p.getCreatedSeq());
    }
}
