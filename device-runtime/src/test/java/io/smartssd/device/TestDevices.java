package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smartssd.proto.Row;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Shared set-up for tests against a real embedded device. */
final class TestDevices {
    static final long CAPACITY = 32L << 20;

    private TestDevices() {
    }

    /** A fresh "tiny" image (4 KiB pages, 2 cores) in dir. */
    static Path tinyImage(Path dir, String name) {
        Path image = dir.resolve(name);
        SmartSsd.format(image, CAPACITY, "tiny");
        return image;
    }

    static ByteBuffer direct(byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length);
        b.put(bytes).flip();
        return b;
    }

    /** Creates name holding bytes; returns its id. */
    static long put(SmartSsd ssd, String name, byte[] bytes) {
        long id = ssd.createData(name).id();
        Written w = ssd.write(id, 0, direct(bytes));
        assertEquals(bytes.length, w.size());
        return id;
    }

    static byte[] get(SmartSsd ssd, long id, long offset, int len) {
        ByteBuffer b = ByteBuffer.allocateDirect(len);
        while (b.hasRemaining()) {
            ReadResult r = ssd.read(id, offset + b.position(), b);
            if (r.bytes() == 0) {
                break;
            }
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    /** Runs weblog-q1 over an extent and returns region -> count from its rows. */
    static TreeMap<String, Long> q1(SmartSsd ssd, long object, int entryBytes, Extent extent) {
        long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", Integer.toString(entryBytes))).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        try {
            ssd.execute(t, out, extent);
            TreeMap<String, Long> got = new TreeMap<>();
            for (Row row : ssd.results(out).toList()) {
                assertEquals(2, row.getValuesCount(), "weblog-q1 rows are (region, count): " + row);
                Long prev = got.put(row.getValues(0).getS().toStringUtf8(), row.getValues(1).getI());
                assertEquals(null, prev, "region twice in " + row);
            }
            return got;
        } finally {
            ssd.delete(out);
            ssd.delete(t);
        }
    }
}
