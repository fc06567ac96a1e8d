package io.smartssd.hadoop.fs.impl;

import static io.smartssd.hadoop.fs.Constants.MAX_OBJECT_NAME_BYTES;

import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIOException;

/**
 * How paths map to the device's flat object names: {@code smartssd://dev0/a/b/c} is the data object
 * {@code a/b/c}; a directory {@code a/b} is the empty marker object {@code a/b/} (every directory
 * made through this FileSystem has one), or is implied by objects under {@code a/b/}. The root has
 * no name and no marker.
 */
public final class ObjectNames {
    private ObjectNames() {
    }

    /** The object name of an absolute path ({@code ""} for the root). */
    public static String name(Path absolute) {
        String p = absolute.toUri().getPath();
        int i = 0;
        while (i < p.length() && p.charAt(i) == '/') {
            i++;
        }
        return p.substring(i);
    }

    /** The name of a directory's marker object. */
    public static String marker(String dirName) {
        return dirName + "/";
    }

    /** The prefix every object under a directory has ({@code ""} under the root). */
    public static String childPrefix(String dirName) {
        return dirName.isEmpty() ? "" : dirName + "/";
    }

    /** Refuses names the device cannot hold (longer than it allows, counting a marker's slash). */
    public static void check(Path path, String name) throws PathIOException {
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes + 1 > MAX_OBJECT_NAME_BYTES) {
            throw new PathIOException(path.toString(), "object name of " + bytes
                    + " bytes is too long: the device holds names of at most " + MAX_OBJECT_NAME_BYTES
                    + " bytes (" + (MAX_OBJECT_NAME_BYTES - 1) + " for a path, to leave room for a directory marker)");
        }
    }
}
