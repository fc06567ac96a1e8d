package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.Created;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsDirectoryException;

/**
 * create and append. create makes the object at once (it is visible, empty, as on HDFS), after
 * deleting a file it overwrites and making the missing parent directories; append continues an
 * object at its end (objects have no holes, so that is the only place a write may start).
 */
public final class CreateOperation {
    private CreateOperation() {
    }

    public static SmartSsdOutputStream create(StoreContext ctx, Path path, boolean overwrite, boolean makeParents)
            throws IOException {
        if (path.isRoot()) {
            throw new FileAlreadyExistsException("create " + path + ": the root is a directory");
        }
        String name = ObjectNames.name(path);
        ObjectNames.check(path, name);
        Probe p = GetFileStatusOperation.probe(ctx, path);
        if (p.isDirectory()) {
            throw new FileAlreadyExistsException("create " + path + ": a directory exists there");
        }
        if (p.isFile() && !overwrite) {
            throw new FileAlreadyExistsException("create " + path + ": the file exists (overwrite=false)");
        }
        Path parent = path.getParent();
        if (makeParents) {
            try {
                MkdirsOperation.mkdirs(ctx, parent);
            } catch (FileAlreadyExistsException parentIsFile) {
                throw new ParentNotDirectoryException("create " + path + ": parent " + parent + " is a file");
            }
        } else if (!parent.isRoot()) {
            Probe pp = GetFileStatusOperation.probe(ctx, parent);
            if (!pp.exists()) {
                throw new FileNotFoundException("create " + path + ": parent directory " + parent + " does not exist");
            }
            if (pp.isFile()) {
                throw new ParentNotDirectoryException("create " + path + ": parent " + parent + " is a file");
            }
        }
        if (p.isFile()) {
            DeleteOperation.deleteObject(ctx, path, p.file());
        }
        Created c = ctx.call("create", path, () -> ctx.device().createData(name));
        return new SmartSsdOutputStream(ctx, path, c.id(), 0);
    }

    public static SmartSsdOutputStream append(StoreContext ctx, Path path) throws IOException {
        Probe p = GetFileStatusOperation.probe(ctx, path);
        if (!p.exists()) {
            throw new FileNotFoundException("append " + path + ": no such file");
        }
        if (!p.isFile()) {
            throw new PathIsDirectoryException(path.toString());
        }
        return new SmartSsdOutputStream(ctx, path, p.file().id(), p.file().size());
    }
}
