package io.smartssd.device;

/**
 * What the device knows about one object.
 *
 * @param id          object id (never reused on a device)
 * @param kind        data, tasklet or output
 * @param name        object name (data objects) or tasklet name
 * @param size        bytes
 * @param pages       flash pages mapped
 * @param createdSeq  creation order on the device
 * @param mtimeMillis last write, trim or {@link SmartSsd#setTimes setTimes}, ms since the epoch (0: unknown,
 *                    e.g. an object written by a device that did not keep times)
 * @param atimeMillis access time as last set with {@code setTimes}, else the modification time
 * @param ctimeMillis creation, ms since the epoch (0: unknown)
 */
public record ObjectInfo(long id, ObjectKind kind, String name, long size, long pages, long createdSeq,
                         long mtimeMillis, long atimeMillis, long ctimeMillis) {
    static ObjectInfo of(io.smartssd.proto.ObjectInfo p) {
        return new ObjectInfo(p.getObjectId(), ObjectKind.of(p.getKind()), p.getName(), p.getSize(),
                p.getPages(), p.getCreatedSeq(), p.getMtimeMs(), p.getAtimeMs(), p.getCtimeMs());
    }
}
