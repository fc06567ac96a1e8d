package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smartssd.proto.Status;
import org.junit.jupiter.api.Test;

class NativeLibraryTest {
    @Test
    void resourcePathForThisPlatform() {
        // The build only ships linux/amd64; the mapping itself is what is tested here.
        if (System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64")) {
            assertEquals("/linux/amd64/libsmartssd_jni.so", NativeLibrary.resourcePath());
        }
    }

    @Test
    void codeMirrorsTheProtoStatus() {
        for (Status s : Status.values()) {
            if (s == Status.UNRECOGNIZED) {
                continue;
            }
            DeviceException.Code c = DeviceException.Code.of(s.getNumber());
            assertEquals(s.name(), c.name());
            assertEquals(s.getNumber(), c.number());
        }
        assertEquals(Status.values().length - 1, DeviceException.Code.values().length - 2,
                "one Code per Status, plus UNKNOWN and UNAVAILABLE (the library's own)");
        assertEquals(DeviceException.Code.UNKNOWN, DeviceException.Code.of(99));
        assertEquals(DeviceException.Code.UNKNOWN, DeviceException.Code.of(-2), "no device sends UNAVAILABLE");
        DeviceException e = new DeviceException(2, "no object 7");
        assertEquals(DeviceException.Code.NOT_FOUND, e.code());
        assertEquals("NOT_FOUND: no object 7", e.getMessage());
        assertEquals("no object 7", e.deviceMessage());
    }
}
