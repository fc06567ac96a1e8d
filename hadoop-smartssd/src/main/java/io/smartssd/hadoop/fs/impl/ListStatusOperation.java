package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.ObjectInfo;
import io.smartssd.device.ObjectList;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * listStatus: the device lists a directory's whole subtree by prefix (sorted by name); the first path
 * segment after the prefix is a child, a file when nothing follows it, else a directory.
 */
public final class ListStatusOperation {
    private ListStatusOperation() {
    }

    public static FileStatus[] list(StoreContext ctx, Path dir) throws IOException {
        Probe p = GetFileStatusOperation.probe(ctx, dir);
        if (!p.exists()) {
            throw new FileNotFoundException("listStatus " + dir + ": no such file or directory");
        }
        if (p.isFile()) {
            return new FileStatus[] {p.status()};
        }
        String prefix = ObjectNames.childPrefix(ObjectNames.name(dir));
        ObjectList all = ctx.call("list", dir, () -> ctx.device().list(prefix));
        Map<String, FileStatus> children = new LinkedHashMap<>();
        for (ObjectInfo o : all.objects()) {
            String rest = o.name().substring(prefix.length());
            int slash = rest.indexOf('/');
            if (rest.isEmpty()) {
                continue; // this directory's own marker
            }
            if (slash < 0) {
                children.putIfAbsent(rest, ctx.fileStatus(child(dir, rest), o));
            } else if (slash > 0) {
                String d = rest.substring(0, slash);
                if (slash == rest.length() - 1) {
                    children.put(d, ctx.dirStatus(child(dir, d), o)); // d's marker: its times
                } else {
                    children.putIfAbsent(d, ctx.dirStatus(child(dir, d)));
                }
            }
            // slash == 0: an odd "a//b" name, not a child
        }
        return children.values().toArray(new FileStatus[0]);
    }

    /** dir/name without parsing name as a URI (a ':' in it is not a scheme). */
    static Path child(Path dir, String name) {
        return new Path(dir, new Path(null, null, name));
    }
}
