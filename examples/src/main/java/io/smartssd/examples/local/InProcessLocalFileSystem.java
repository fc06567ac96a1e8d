package io.smartssd.examples.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's {@code file://} FileSystem (checksummed {@link LocalFileSystem}, same files, same modes) whose
 * permission changes run in this JVM. Without Hadoop's native library (libhadoop, which no package of this
 * machine's distribution ships) {@link RawLocalFileSystem#setPermission} starts a {@code chmod} process;
 * every mkdirs and create with a permission calls it, and one LocalJobRunner job (staging directory,
 * split files, job.xml, task directories, output) made ~39 such processes: tens of ms per job, much
 * more on a loaded machine. Here the same mode is set through {@code java.nio}; a sticky bit, a file
 * system without POSIX attributes, or an available native library take Hadoop's own path.
 * Installed per configuration by {@link #use(Configuration)}.
 */
public class InProcessLocalFileSystem extends LocalFileSystem {
    /** {@code fs.file.impl}: the FileSystem class of {@code file://} paths. */
    public static final String FS_IMPL = "fs.file.impl";
    /** {@code fs.AbstractFileSystem.file.impl}: the same for FileContext (LocalJobRunner's local directories). */
    public static final String AFS_IMPL = "fs.AbstractFileSystem.file.impl";

    public InProcessLocalFileSystem() {
        super(new Raw());
    }

    /**
     * Makes {@code file://} paths of this configuration use this FileSystem and {@link InProcessLocalFs},
     * unless the configuration names other classes already. The FileSystem cache is keyed by scheme and
     * user, not by configuration: this takes effect for the first {@code file://} FileSystem of a JVM
     * (or with {@code fs.file.impl.disable.cache}); either class behaves as Hadoop's.
     */
    public static Configuration use(Configuration conf) {
        if (userSet(conf, FS_IMPL)) {
            return conf;
        }
        conf.setClass(FS_IMPL, InProcessLocalFileSystem.class, org.apache.hadoop.fs.FileSystem.class);
        if (!userSet(conf, AFS_IMPL)) {
            conf.setClass(AFS_IMPL, InProcessLocalFs.class, org.apache.hadoop.fs.AbstractFileSystem.class);
        }
        return conf;
    }

    private static boolean userSet(Configuration conf, String key) {
        String[] from = conf.getPropertySources(key);
        return from != null && !(from.length == 1 && from[0].endsWith("-default.xml"));
    }

    /** The raw file system with an in-process chmod. */
    public static class Raw extends RawLocalFileSystem {
        @Override
        public void setPermission(Path p, FsPermission permission) throws IOException {
            if (NativeIO.isAvailable() || permission.getStickyBit()) {
                super.setPermission(p, permission);
                return;
            }
            // FsPermission.toString() is "rwxr-x---" (ls -l's nine characters) without a sticky bit
            String mode = permission.getUserAction().SYMBOL + permission.getGroupAction().SYMBOL
                    + permission.getOtherAction().SYMBOL;
            try {
                Files.setPosixFilePermissions(pathToFile(p).toPath(), PosixFilePermissions.fromString(mode));
            } catch (UnsupportedOperationException e) {
                super.setPermission(p, permission); // not a POSIX file system: Hadoop's way
            }
        }
    }
}
