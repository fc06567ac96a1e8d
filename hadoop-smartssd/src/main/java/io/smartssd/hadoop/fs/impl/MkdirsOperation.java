package io.smartssd.hadoop.fs.impl;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;

/**
 * mkdirs: walks up from the path to the first thing that exists (a file there is an error), then
 * creates a marker object for each missing directory, top down, so every level exists on its own.
 */
public final class MkdirsOperation {
    private MkdirsOperation() {
    }

    /**
     * Makes dir and its missing ancestors. A file at dir is a FileAlreadyExistsException, a file above
     * it a ParentNotDirectoryException.
     */
    public static void mkdirs(StoreContext ctx, Path dir) throws IOException {
        Deque<Path> missing = new ArrayDeque<>();
        for (Path p = dir; p != null && !p.isRoot(); p = p.getParent()) {
            Probe probe = GetFileStatusOperation.probe(ctx, p);
            if (probe.isFile()) {
                if (p.equals(dir)) {
                    throw new FileAlreadyExistsException("mkdirs " + dir + ": a file exists there");
                }
                throw new ParentNotDirectoryException("mkdirs " + dir + ": ancestor " + p + " is a file");
            }
            if (probe.exists()) {
                break;
            }
            missing.push(p);
        }
        while (!missing.isEmpty()) {
            createMarker(ctx, missing.pop());
        }
    }

    /** Creates dir's marker object (an existing one, from a racing mkdirs, is fine). */
    static void createMarker(StoreContext ctx, Path dir) throws IOException {
        String marker = ObjectNames.marker(ObjectNames.name(dir));
        try {
            ctx.call("mkdirs", dir, () -> ctx.device().createData(marker));
        } catch (FileAlreadyExistsException raced) {
            // someone made it meanwhile: the directory exists, which is what was asked
        }
    }
}
