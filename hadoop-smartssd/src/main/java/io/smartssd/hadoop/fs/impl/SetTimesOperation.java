package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.ObjectInfo;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.Path;

/**
 * setTimes: the device keeps a modification and an access time on each data object, so a file's times are
 * its object's, and a directory's are its marker's. A directory implied only by the objects under it gets
 * its marker first, so the times have somewhere to live. The root has no object: its times stay 0.
 */
public final class SetTimesOperation {
    private SetTimesOperation() {
    }

    /** Sets path's times in ms since the epoch; -1 leaves one as it is (both -1: nothing to do). */
    public static void setTimes(StoreContext ctx, Path path, long mtime, long atime) throws IOException {
        if (mtime < -1 || atime < -1) {
            throw new IllegalArgumentException("setTimes " + path + ": times are ms since the epoch, or -1 to keep one");
        }
        Probe probe = GetFileStatusOperation.probe(ctx, path);
        if (!probe.exists()) {
            throw new FileNotFoundException("setTimes " + path + ": no such file or directory");
        }
        if ((mtime == -1 && atime == -1) || path.isRoot()) {
            return;
        }
        ObjectInfo target = probe.isFile() ? probe.file() : probe.marker();
        if (target == null) {
            MkdirsOperation.createMarker(ctx, path);
            target = ctx.statOrNull(ObjectNames.marker(ObjectNames.name(path)));
            if (target == null) {
                throw new FileNotFoundException("setTimes " + path + ": the directory went away");
            }
        }
        long id = target.id();
        ctx.call("setTimes", path, () -> ctx.device().setTimes(id, mtime, atime));
    }
}
