package io.smartssd.examples.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-process chmod leaves exactly the modes Hadoop's own LocalFileSystem leaves (its chmod process is
 * the reference), through FileSystem and FileContext, and the files' bytes and checksums are Hadoop's.
 */
class InProcessLocalFileSystemTest {
    private static final short[] MODES = {0700, 0755, 0644, 0600, 0750, 0640, 0777, 0000, 0711, 0754, 01777};

    @TempDir
    java.nio.file.Path dir;

    private static int mode(java.nio.file.Path p) throws Exception {
        return (Integer) Files.getAttribute(p, "unix:mode") & 07777;
    }

    private static FileSystem hadoops(Configuration conf) throws Exception {
        LocalFileSystem fs = new LocalFileSystem();
        fs.initialize(java.net.URI.create("file:///"), conf);
        return fs;
    }

    private static FileSystem ours(Configuration conf) throws Exception {
        InProcessLocalFileSystem fs = new InProcessLocalFileSystem();
        fs.initialize(java.net.URI.create("file:///"), conf);
        return fs;
    }

    @Test
    void createAndMkdirsLeaveHadoopsModes() throws Exception {
        Configuration conf = new Configuration();
        try (FileSystem ref = hadoops(conf); FileSystem fs = ours(conf)) {
            for (short m : MODES) {
                FsPermission perm = new FsPermission(m);
                String n = Integer.toOctalString(m);
                for (FileSystem f : new FileSystem[]{ref, fs}) {
                    String who = f == ref ? "ref" : "ours";
                    try (OutputStream os = FileSystem.create(f, new Path(dir.toUri() + "/" + who + "-f" + n), perm)) {
                        os.write(("mode " + n).getBytes(StandardCharsets.UTF_8));
                    }
                    FileSystem.mkdirs(f, new Path(dir.toUri() + "/" + who + "-d" + n), perm);
                }
                assertEquals(m, mode(dir.resolve("ref-f" + n)), "Hadoop's own chmod, file " + n);
                assertEquals(mode(dir.resolve("ref-f" + n)), mode(dir.resolve("ours-f" + n)), "file " + n);
                assertEquals(mode(dir.resolve("ref-d" + n)), mode(dir.resolve("ours-d" + n)), "directory " + n);
                if ((m & 0400) != 0) {
                    assertArrayEquals(Files.readAllBytes(dir.resolve("ref-f" + n)), Files.readAllBytes(dir.resolve("ours-f" + n)));
                    assertArrayEquals(Files.readAllBytes(dir.resolve(".ref-f" + n + ".crc")),
                            Files.readAllBytes(dir.resolve(".ours-f" + n + ".crc")), "checksum file " + n);
                }
            }
            // setPermission on an existing file changes only the mode
            Path p = new Path(dir.toUri() + "/ours-f644");
            fs.setPermission(p, new FsPermission((short) 0604));
            assertEquals(0604, mode(dir.resolve("ours-f644")));
        }
    }

    @Test
    void fileContextMkdirAndCreateLeaveHadoopsModes() throws Exception {
        Configuration mine = InProcessLocalFileSystem.use(new Configuration());
        FileContext ours = FileContext.getLocalFSFileContext(mine);
        FileContext ref = FileContext.getLocalFSFileContext(new Configuration());
        assertInstanceOf(InProcessLocalFs.class, ours.getDefaultFileSystem());
        for (short m : MODES) {
            String n = Integer.toOctalString(m);
            FsPermission perm = new FsPermission(m);
            ref.mkdir(new Path(dir.toUri() + "/cref-d" + n), perm, true);
            ours.mkdir(new Path(dir.toUri() + "/cours-d" + n), perm, true);
            ref.setPermission(new Path(dir.toUri() + "/cref-d" + n), perm);
            ours.setPermission(new Path(dir.toUri() + "/cours-d" + n), perm);
            assertEquals(mode(dir.resolve("cref-d" + n)), mode(dir.resolve("cours-d" + n)), "directory " + n);
            assertEquals(m, mode(dir.resolve("cours-d" + n)), "directory " + n);
        }
        try (var os = ours.create(new Path(dir.toUri() + "/cours-f"), EnumSet.of(CreateFlag.CREATE),
                org.apache.hadoop.fs.Options.CreateOpts.perms(new FsPermission((short) 0640)))) {
            os.write(1);
        }
        ours.setPermission(new Path(dir.toUri() + "/cours-f"), new FsPermission((short) 0640));
        assertEquals(0640, mode(dir.resolve("cours-f")));
    }

    @Test
    void installedUnlessTheUserNamesAnotherClass() {
        Configuration conf = InProcessLocalFileSystem.use(new Configuration());
        assertEquals(InProcessLocalFileSystem.class, conf.getClass(InProcessLocalFileSystem.FS_IMPL, null));
        assertEquals(InProcessLocalFs.class, conf.getClass(InProcessLocalFileSystem.AFS_IMPL, null));

        Configuration mine = new Configuration();
        mine.set(InProcessLocalFileSystem.FS_IMPL, LocalFileSystem.class.getName());
        InProcessLocalFileSystem.use(mine);
        assertEquals(LocalFileSystem.class, mine.getClass(InProcessLocalFileSystem.FS_IMPL, null));
        assertEquals("org.apache.hadoop.fs.local.LocalFs", mine.get(InProcessLocalFileSystem.AFS_IMPL)); // Hadoop's default kept
    }
}
