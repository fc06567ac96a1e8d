package io.smartssd.hadoop.fs.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.Constants;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.hadoop.fs.TestImages;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

/**
 * fs.smartssd.device.ID.host-threads: an embedded device's session runs with that many host threads
 * (auto = the JVM's available processors, the default), the value the device itself reports; a bad
 * value fails before the device is opened, naming the key.
 */
class HostThreadsTest {
    private static final String KEY = Constants.DEVICE_PREFIX + "ht" + Constants.DEVICE_HOST_THREADS_SUFFIX;

    private static String deviceHostThreads(Configuration conf) throws IOException {
        conf.setBoolean("fs.smartssd.impl.disable.cache", true);
        try (FileSystem fs = FileSystem.get(URI.create("smartssd://ht/"), conf)) {
            SmartSsd dev = ((SmartSsdFileSystem) fs).device();
            return dev.identify().params().get("host_threads");
        }
    }

    @Test
    void theDefaultIsTheAvailableProcessors() throws IOException {
        Configuration conf = TestImages.conf("ht", TestImages.fresh("ht-auto"));
        int cpus = Math.min(Runtime.getRuntime().availableProcessors(), 64);
        assertEquals(Integer.toString(cpus), deviceHostThreads(conf));
    }

    @Test
    void aCountIsTheSessionsHostThreads() throws IOException {
        Path img = TestImages.fresh("ht-3");
        Configuration conf = TestImages.conf("ht", img);
        conf.set(KEY, "3");
        assertEquals("3", deviceHostThreads(conf));
        conf.set(KEY, " 1 ");
        assertEquals("1", deviceHostThreads(conf));
    }

    @Test
    void aBadValueNamesTheKey() {
        Path img = TestImages.fresh("ht-bad");
        for (String bad : new String[] {"0", "65", "two", "-1"}) {
            Configuration conf = TestImages.conf("ht", img);
            conf.set(KEY, bad);
            IOException e = assertThrows(IOException.class, () -> deviceHostThreads(conf));
            assertTrue(e.getMessage().contains(KEY + " = " + bad), e.getMessage());
            assertTrue(e.getMessage().contains("1..64 or auto"), e.getMessage());
        }
    }
}
