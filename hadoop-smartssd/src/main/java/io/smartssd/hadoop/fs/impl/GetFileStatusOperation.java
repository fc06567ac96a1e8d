package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.ObjectInfo;
import io.smartssd.device.ObjectList;
import java.io.IOException;
import org.apache.hadoop.fs.Path;

/**
 * getFileStatus: a path is a file if an object has its name, a directory if its marker exists or any
 * object lies under it (an implied directory), else nothing. At most three device commands.
 */
public final class GetFileStatusOperation {
    private GetFileStatusOperation() {
    }

    public static Probe probe(StoreContext ctx, Path path) throws IOException {
        String name = ObjectNames.name(path);
        if (name.isEmpty()) {
            return new Probe(ctx.dirStatus(path), null, null);
        }
        ObjectNames.check(path, name);
        ObjectInfo file = ctx.statOrNull(name);
        if (file != null) {
            return new Probe(ctx.fileStatus(path, file), file, null);
        }
        ObjectInfo marker = ctx.statOrNull(ObjectNames.marker(name));
        if (marker != null) {
            return new Probe(ctx.dirStatus(path, marker), null, marker);
        }
        String prefix = ObjectNames.childPrefix(name);
        ObjectList under = ctx.call("list", path, () -> ctx.device().list(prefix, 1, ""));
        if (!under.objects().isEmpty()) {
            return new Probe(ctx.dirStatus(path), null, null);
        }
        return new Probe(null, null, null);
    }
}
