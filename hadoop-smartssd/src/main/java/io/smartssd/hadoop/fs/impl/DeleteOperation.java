package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.ObjectInfo;
import io.smartssd.hadoop.fs.Statistic;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;

/**
 * delete: a file is one object; a directory is its marker and every object under its prefix, deleted
 * deepest name first (so an interrupted delete leaves a consistent, smaller tree). Not atomic.
 */
public final class DeleteOperation {
    private DeleteOperation() {
    }

    public static boolean delete(StoreContext ctx, Path path, boolean recursive) throws IOException {
        Probe p = GetFileStatusOperation.probe(ctx, path);
        if (!p.exists()) {
            return false;
        }
        if (p.isFile()) {
            deleteObject(ctx, path, p.file());
            return true;
        }
        String name = ObjectNames.name(path);
        String prefix = ObjectNames.childPrefix(name);
        List<ObjectInfo> under = new ArrayList<>(ctx.call("list", path, () -> ctx.device().list(prefix)).objects());
        boolean empty = under.stream().allMatch(o -> o.name().equals(prefix));
        if (!empty && !recursive) {
            throw new PathIsNotEmptyDirectoryException(path.toString());
        }
        under.sort(Comparator.comparing(ObjectInfo::name).reversed());
        for (ObjectInfo o : under) {
            deleteObject(ctx, path, o);
        }
        return true;
    }

    static void deleteObject(StoreContext ctx, Path path, ObjectInfo o) throws IOException {
        try {
            ctx.call("delete", path, () -> ctx.device().delete(o.id()));
            ctx.increment(Statistic.OBJECTS_DELETED, 1);
        } catch (FileNotFoundException gone) {
            // deleted by someone else meanwhile: the outcome asked for
        }
    }
}
