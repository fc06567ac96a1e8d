package io.smartssd.hadoop.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;

/**
 * The scheme named in a configuration (what a jar that came with -libjars or spark.jars needs: Hadoop
 * reads FileSystem service entries once per JVM): register fills both keys only where unset, and
 * FileContext reaches the device through SmartSsdFs.
 */
class RegisterTest {
    @Test
    void namesBothClassesOnlyWhereUnset() {
        Configuration conf = new Configuration(false);
        assertSame(conf, SmartSsdFileSystem.register(conf));
        assertEquals(SmartSsdFileSystem.class.getName(), conf.get(Constants.FS_IMPL));
        assertEquals(SmartSsdFs.class.getName(), conf.get(Constants.AFS_IMPL));

        Configuration mine = new Configuration(false);
        mine.set(Constants.FS_IMPL, "com.example.MySmartSsd");
        SmartSsdFileSystem.register(mine);
        assertEquals("com.example.MySmartSsd", mine.get(Constants.FS_IMPL), "a class the user names wins");
        assertEquals(SmartSsdFs.class.getName(), mine.get(Constants.AFS_IMPL));
        assertNull(new Configuration(false).get(Constants.FS_IMPL), "nothing is set behind the caller's back");
    }

    @Test
    void fileContextThroughSmartSsdFs() throws Exception {
        Configuration conf = SmartSsdFileSystem.register(TestImages.conf("fc0", TestImages.fresh("fc")));
        FileContext fc = FileContext.getFileContext(URI.create("smartssd://fc0/"), conf);
        Path p = new Path("smartssd://fc0/dir/a.txt");
        byte[] data = "written through FileContext\n".getBytes(StandardCharsets.UTF_8);
        try (FSDataOutputStream out = fc.create(p, EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE),
                org.apache.hadoop.fs.Options.CreateOpts.perms(FsPermission.getFileDefault()),
                org.apache.hadoop.fs.Options.CreateOpts.createParent())) {
            out.write(data);
        }
        assertEquals(data.length, fc.getFileStatus(p).getLen());
        byte[] back = new byte[data.length];
        try (FSDataInputStream in = fc.open(p)) {
            in.readFully(back);
        }
        assertArrayEquals(data, back);
        assertEquals("a.txt", fc.util().listStatus(new Path("smartssd://fc0/dir"))[0].getPath().getName());
    }
}
