package io.smartssd.device;

import static io.smartssd.device.TestDevices.direct;
import static io.smartssd.device.TestDevices.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes with a placement hint: the command packet the host sends carries it (seen by a transport that
 * records each request on its way to a real embedded device), the device accepts it and the bytes read
 * back; a bad hint is refused before anything is sent.
 */
class WriteHintTest {
    /** Passes every command to the real device, keeping a copy of each request. */
    static final class Recording implements Transport {
        final Transport inner;
        final List<Request> sent = new ArrayList<>();

        Recording(Transport inner) {
            this.inner = inner;
        }

        @Override
        public synchronized Response call(Request request, ByteBuffer in, ByteBuffer out) {
            sent.add(request);
            return inner.call(request, in, out);
        }

        @Override
        public boolean background() {
            return inner.background();
        }

        @Override
        public String description() {
            return "recording " + inner.description();
        }

        @Override
        public void close() {
            inner.close();
        }

        List<Request> writes() {
            return sent.stream().filter(Request::hasWriteObject).toList();
        }
    }

    @TempDir
    Path dir;
    Recording rec;
    SmartSsd ssd;

    @BeforeEach
    void open() {
        rec = new Recording(EmbeddedTransport.open(TestDevices.tinyImage(dir, "hint.img"), false, Map.of()));
        ssd = SmartSsd.over(rec);
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
    void eachWriteCarriesItsHintAndTheBytesReadBack() {
        long id = ssd.createData("sst/000007.sst").id();
        byte[] a = random(3 * 4096 + 17, 1);
        byte[] b = random(1000, 2);
        byte[] c = random(5000, 3);
        ssd.write(id, 0, direct(a), WriteHints.forLevel(2));            // direct buffer, level 2 -> hint 3
        ssd.write(id, a.length, b, 7);                                   // inline bytes, a host's own class
        assertEquals(a.length + b.length + c.length, ssd.write(id, a.length + b.length, direct(c)).size()); // none
        List<Request> w = rec.writes();
        assertEquals(3, w.size());
        assertEquals(List.of(3, 7, 0), w.stream().map(r -> r.getWriteObject().getHint()).toList());
        assertEquals(List.of(0L, (long) a.length, (long) a.length + b.length),
                w.stream().map(r -> r.getWriteObject().getOffset()).toList());
        byte[] all = new byte[a.length + b.length + c.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        System.arraycopy(c, 0, all, a.length + b.length, c.length);
        assertArrayEquals(all, get(ssd, id, 0, all.length));
    }

    @Test
    void theLargestHintTravelsUnchanged() {
        long id = ssd.createData("x").id();
        ssd.write(id, 0, new byte[10], WriteHints.MAX);
        assertEquals(WriteHints.MAX, rec.writes().get(0).getWriteObject().getHint());
        assertEquals(10, ssd.stat(id).info().size());
    }

    @Test
    void aNegativeHintIsRefusedBeforeAnythingIsSentAndTheDeviceKeepsServing() {
        long id = ssd.createData("y").id();
        int before = rec.sent.size();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ssd.write(id, 0, direct(new byte[8]), -1));
        assertTrue(e.getMessage().contains("hint"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ssd.write(id, 0, new byte[8], Integer.MIN_VALUE));
        e = assertThrows(IllegalArgumentException.class, () -> ssd.write(id, 0, new byte[8], WriteHints.MAX + 1));
        assertTrue(e.getMessage().contains("0..255"), e.getMessage());
        assertEquals(before, rec.sent.size());
        assertEquals(8, ssd.write(id, 0, new byte[8], 1).size());
    }

    @Test
    void levelsAndHints() {
        assertEquals(1, WriteHints.forLevel(0));
        assertEquals(7, WriteHints.forLevel(6));
        assertEquals(0, WriteHints.level(1));
        assertEquals(-1, WriteHints.level(WriteHints.NONE));
        assertThrows(IllegalArgumentException.class, () -> WriteHints.forLevel(-1));
        assertThrows(IllegalArgumentException.class, () -> WriteHints.forLevel(255));
        assertEquals(255, WriteHints.forLevel(254));
    }

    @Test
    void theTinyPresetPlacesWithoutHints() {
        // one cell type: round-robin placement, which accepts hints and ignores them (as above)
        assertEquals("stripe", ssd.identify().placement());
    }
}
