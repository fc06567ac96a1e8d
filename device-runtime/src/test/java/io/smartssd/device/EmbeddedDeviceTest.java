package io.smartssd.device;

import static io.smartssd.device.TestDevices.direct;
import static io.smartssd.device.TestDevices.get;
import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only an embedded device has: session parameter overrides, foreground (deterministic) mode, format
 * and open of images, the native library. The operations themselves are in DeviceOperationsTest.
 */
class EmbeddedDeviceTest {
    @TempDir
    Path dir;
    Path image;
    SmartSsd ssd;

    @BeforeEach
    void open() {
        image = TestDevices.tinyImage(dir, "dev.img");
        ssd = SmartSsd.openEmbedded(image);
    }

    @AfterEach
    void close() {
        ssd.close();
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void openOptionsOverrideSessionParams() {
        ssd.close();
        ssd = SmartSsd.openEmbedded(image, OpenOptions.defaults().param("cores", "4").background(false));
        assertEquals(4, ssd.identify().cores());
        assertFalse(ssd.transport().background());
        ssd.close();
        DeviceException bad = assertThrows(DeviceException.class,
                () -> SmartSsd.openEmbedded(image, OpenOptions.defaults().param("no_such_param", "1")));
        assertEquals(DeviceException.Code.INVALID_ARGUMENT, bad.code());
        assertTrue(bad.getMessage().contains("no_such_param"), bad.getMessage());
        ssd = SmartSsd.openEmbedded(image);
        assertEquals(2, ssd.identify().cores(), "an override lasts one session");
    }

    @Test
    void formatAndOpenFailuresAreClear() {
        DeviceException missing = assertThrows(DeviceException.class,
                () -> SmartSsd.openEmbedded(dir.resolve("absent.img")));
        assertTrue(missing.getMessage().contains("absent.img"), missing.getMessage());
        DeviceException preset = assertThrows(DeviceException.class,
                () -> SmartSsd.format(dir.resolve("x.img"), 1 << 20, "no-such-preset"));
        assertEquals(DeviceException.Code.INVALID_ARGUMENT, preset.code());
        assertTrue(preset.getMessage().contains("no-such-preset"), preset.getMessage());
        DeviceException param = assertThrows(DeviceException.class,
                () -> SmartSsd.format(dir.resolve("y.img"), 1 << 20, "tiny", java.util.Map.of("page_bytes", "1000")));
        assertEquals(DeviceException.Code.INVALID_ARGUMENT, param.code());
        assertThrows(IllegalArgumentException.class, () -> SmartSsd.format(dir.resolve("z.img"), 0, "tiny"));
        assertThrows(NullPointerException.class, () -> SmartSsd.format(null, 1 << 20, "tiny"));
        assertThrows(NullPointerException.class, () -> SmartSsd.openEmbedded(null));
    }

    @Test
    void nativeVersionAndLibrarySource() {
        assertFalse(SmartSsd.nativeVersion().isEmpty());
        String expected = System.getProperty(NativeLibrary.PATH_PROPERTY) != null ? "property:" : "jar:/linux/amd64/";
        assertTrue(NativeLibrary.source().startsWith(expected), NativeLibrary.source());
    }

    /** Without the device thread everything is deterministic: same data, same virtual time. */
    @Test
    void foregroundModeIsDeterministicAndAgrees() {
        byte[] logs = Wc98.generate(40_000, 32, 4);
        long[] ns = new long[2];
        for (int k = 0; k < 2; k++) {
            Path image = TestDevices.tinyImage(dir, "det" + k + ".img");
            try (SmartSsd ssd = SmartSsd.openEmbedded(image, OpenOptions.defaults().background(false))) {
                long id = put(ssd, "wc98", logs);
                long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "32")).id();
                long out = ssd.createOutput(Map.of(), List.of(), 0).id();
                ssd.execute(t, out, Extent.whole(id));
                ResultStream rs = ssd.results(out);
                TreeMap<String, Long> got = new TreeMap<>();
                rs.forEachRemaining(r -> got.put(r.getValues(0).getS().toStringUtf8(), r.getValues(1).getI()));
                assertEquals(Wc98.q1(logs, 32, 0, logs.length), got);
                ns[k] = rs.progress().deviceNanos();
            }
        }
        assertTrue(ns[0] > 0);
        assertEquals(ns[0], ns[1], "virtual time of the same run on the same data");
    }
}
