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
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every operation of SmartSsd on a fresh tiny image, in both modes: an embedded device, and a csdd daemon
 * started by the test with a remote handle on it. The same assertions hold in both.
 */
@ParameterizedClass
@EnumSource(Mode.class)
class DeviceOperationsTest {
    @Parameter
    Mode mode;
    @TempDir
    Path dir;
    TestDevice dev;
    SmartSsd ssd;

    @BeforeEach
    void open() {
        dev = TestDevice.fresh(mode, dir, "dev.img");
        ssd = dev.ssd();
    }

    @AfterEach
    void close() {
        dev.close();
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void identifyDescribesTheTinyPreset() {
        assertEquals(mode == Mode.REMOTE ? RemoteTransport.class : EmbeddedTransport.class, ssd.transport().getClass());
        DeviceIdentity id = ssd.identify();
        assertEquals("tiny", id.preset());
        assertEquals(4096, id.geometry().pageBytes());
        assertEquals(2, id.geometry().channels());
        assertEquals(2, id.geometry().chipsPerChannel());
        assertEquals(16, id.geometry().pagesPerBlock());
        assertTrue(id.geometry().blocksPerPlane() > 0, "derived at format: " + id.geometry());
        assertEquals(2, id.cores());
        assertEquals(TestDevices.CAPACITY, id.capacityBytes());
        assertTrue(id.physicalBytes() > id.capacityBytes(), "over-provisioned: " + id.physicalBytes());
        assertEquals(1, id.protocolVersion());
        assertEquals("fcfs", id.requestScheduler());
        assertTrue(id.tasklets().containsAll(List.of("weblog-q1", "weblog-q2", "filter", "grep", "plan")),
                "tasklets: " + id.tasklets());
        assertEquals("4096", id.params().get("page_bytes"));
        assertEquals("2", id.params().get("cores"));
    }

    @Test
    void writeReadRoundTripThroughDirectBuffers() {
        byte[] data = random(3 * 4096 + 123, 1);
        long id = ssd.createData("a/one").id();
        ByteBuffer src = direct(data);
        Written w = ssd.write(id, 0, src);
        assertEquals(data.length, w.bytes());
        assertEquals(data.length, w.size());
        assertFalse(src.hasRemaining(), "write consumes the buffer");
        assertTrue(w.deviceNanos() > 0, "a write takes device time");

        ByteBuffer dst = ByteBuffer.allocateDirect(data.length + 100);
        ReadResult r = ssd.read(id, 0, dst);
        assertEquals(data.length, r.bytes());
        assertTrue(r.eof());
        assertEquals(data.length, dst.position());
        assertTrue(r.deviceNanos() > 0);
        byte[] back = new byte[data.length];
        dst.flip().get(back);
        assertArrayEquals(data, back);

        // A read from the middle into the middle of a buffer: position and limit are respected.
        ByteBuffer mid = ByteBuffer.allocateDirect(64);
        mid.position(10).limit(30);
        ReadResult r2 = ssd.read(id, 5000, mid);
        assertEquals(20, r2.bytes());
        assertFalse(r2.eof());
        assertEquals(30, mid.position());
        byte[] part = new byte[20];
        mid.position(10);
        mid.get(part);
        assertArrayEquals(Arrays.copyOfRange(data, 5000, 5020), part);
        assertEquals(0, mid.get(0), "bytes before the position stay untouched");

        // At the end: nothing, and eof.
        ReadResult end = ssd.read(id, data.length, ByteBuffer.allocateDirect(10));
        assertEquals(0, end.bytes());
        assertTrue(end.eof());
    }

    /** Megabytes through buffers whose data does not start at 0: the remote mode streams them. */
    @Test
    void largeWritesAndReadsAtBufferOffsets() {
        byte[] data = random(3 << 20, 11);
        long id = ssd.createData("big").id();
        ByteBuffer src = ByteBuffer.allocateDirect(data.length + 5000);
        src.position(1000).put(data).flip().position(1000);
        Written w = ssd.write(id, 0, src);
        assertEquals(data.length, w.size());
        assertEquals(1000 + data.length, src.position());
        ByteBuffer dst = ByteBuffer.allocateDirect((1 << 20) + 300);
        for (int off = 0; off < data.length; off += 1 << 20) {
            dst.clear().position(300);
            ReadResult r = ssd.read(id, off, dst);
            assertEquals(1 << 20, r.bytes());
            assertEquals(off + (1 << 20) == data.length, r.eof());
            byte[] got = new byte[1 << 20];
            dst.position(300);
            dst.get(got);
            assertArrayEquals(Arrays.copyOfRange(data, off, off + (1 << 20)), got, "at " + off);
        }
        // A buffer larger than what is left: a short read with eof.
        ByteBuffer tail = ByteBuffer.allocateDirect(1 << 20);
        ReadResult r = ssd.read(id, data.length - 10_000, tail);
        assertEquals(10_000, r.bytes());
        assertTrue(r.eof());
        assertEquals(10_000, tail.position());
        assertEquals(data[data.length - 1], tail.get(9_999));
    }

    @Test
    void overwriteAppendAndInlineWrites() {
        byte[] data = random(10_000, 2);
        long id = put(ssd, "b", data);
        byte[] patch = random(5000, 3);
        ssd.write(id, 7000, direct(patch)); // overwrites 3000, appends 2000
        byte[] expect = Arrays.copyOf(data, 12_000);
        System.arraycopy(patch, 0, expect, 7000, 5000);
        assertArrayEquals(expect, get(ssd, id, 0, 20_000));
        Written w = ssd.write(id, 12_000, "tail".getBytes());
        assertEquals(12_004, w.size());
        assertEquals("tail", new String(get(ssd, id, 12_000, 4)));
        DeviceException hole = assertThrows(DeviceException.class, () -> ssd.write(id, 20_000, direct(patch)));
        assertEquals(DeviceException.Code.OUT_OF_RANGE, hole.code());
        assertTrue(hole.deviceMessage().contains("past the end"), hole.deviceMessage());
    }

    @Test
    void timesAreTheWallClocksAndSetTimesKeepsMinusOne() throws Exception {
        long before = System.currentTimeMillis();
        long id = put(ssd, "t/a", random(3000, 7));
        long after = System.currentTimeMillis();
        ObjectInfo i = ssd.stat(id).info();
        assertTrue(i.mtimeMillis() >= before && i.mtimeMillis() <= after, i + " not in " + before + ".." + after);
        assertTrue(i.ctimeMillis() >= before && i.ctimeMillis() <= i.mtimeMillis(), i.toString());
        assertEquals(i.mtimeMillis(), i.atimeMillis());

        Thread.sleep(20);
        ssd.write(id, 0, direct(random(10, 8)));
        ObjectInfo w = ssd.stat(id).info();
        assertTrue(w.mtimeMillis() >= i.mtimeMillis() + 20, w + " after " + i);
        assertEquals(i.ctimeMillis(), w.ctimeMillis());

        ssd.setTimes(id, 1_000_000L, -1);
        ObjectInfo m = ssd.stat(id).info();
        assertEquals(1_000_000L, m.mtimeMillis());
        assertEquals(1_000_000L, m.atimeMillis());   // an access time never set reads as the modification time
        ssd.setTimes(id, -1, 2_000_000L);
        ObjectInfo a = ssd.stat("t/a").info();
        assertEquals(1_000_000L, a.mtimeMillis());
        assertEquals(2_000_000L, a.atimeMillis());
        assertEquals(a, ssd.list("t/").objects().get(0));

        DeviceException none = assertThrows(DeviceException.class, () -> ssd.setTimes(id, -1, -1));
        assertEquals(DeviceException.Code.INVALID_ARGUMENT, none.code());
        DeviceException gone = assertThrows(DeviceException.class, () -> ssd.setTimes(id + 1000, 5, 5));
        assertEquals(DeviceException.Code.NOT_FOUND, gone.code());
        assertThrows(IllegalArgumentException.class, () -> ssd.setTimes(id, -2, 5));
        assertEquals(a, ssd.stat(id).info());   // nothing changed by the refused calls
    }

    @Test
    void statListRenameDelete() {
        long a = put(ssd, "logs/a", random(100, 4));
        long b = put(ssd, "logs/b", random(5000, 5));
        put(ssd, "other", random(1, 6));

        ObjectStat s = ssd.stat(b);
        assertEquals(new ObjectInfo(b, ObjectKind.DATA, "logs/b", 5000, 2, s.info().createdSeq(), s.info().mtimeMillis(),
                s.info().atimeMillis(), s.info().ctimeMillis()), s.info());
        assertEquals(s.info(), ssd.stat("logs/b").info());

        ObjectList l = ssd.list("logs/");
        assertEquals(List.of("logs/a", "logs/b"), l.objects().stream().map(ObjectInfo::name).collect(Collectors.toList()));
        assertFalse(l.more());
        assertEquals(3, ssd.list("").objects().size());

        ObjectList page = ssd.list("", 1, "");
        assertEquals(List.of("logs/a"), page.objects().stream().map(ObjectInfo::name).collect(Collectors.toList()));
        assertTrue(page.more());
        assertEquals("logs/b", ssd.list("", 1, "logs/a").objects().get(0).name());

        ssd.rename(a, "logs/c", false);
        assertEquals(a, ssd.stat("logs/c").info().id());
        DeviceException exists = assertThrows(DeviceException.class, () -> ssd.rename(a, "logs/b", false));
        assertEquals(DeviceException.Code.ALREADY_EXISTS, exists.code());
        ssd.rename(a, "logs/b", true); // replaces b
        assertEquals(100, ssd.stat("logs/b").info().size());
        assertEquals(DeviceException.Code.NOT_FOUND, assertThrows(DeviceException.class, () -> ssd.stat(b)).code());

        ssd.delete(a);
        assertEquals(DeviceException.Code.NOT_FOUND, assertThrows(DeviceException.class, () -> ssd.stat(a)).code());
        assertEquals(DeviceException.Code.NOT_FOUND,
                assertThrows(DeviceException.class, () -> ssd.stat("logs/b")).code());
        assertEquals(List.of("other"), ssd.list("").objects().stream().map(ObjectInfo::name).collect(Collectors.toList()));
        DeviceException dup = assertThrows(DeviceException.class, () -> ssd.createData("other"));
        assertEquals(DeviceException.Code.ALREADY_EXISTS, dup.code());
    }

    @Test
    void trimReadsAsZeros() {
        byte[] data = random(4 * 4096, 7);
        long id = put(ssd, "t", data);
        ssd.trim(id, 4096, 2 * 4096);
        Arrays.fill(data, 4096, 3 * 4096, (byte) 0);
        assertArrayEquals(data, get(ssd, id, 0, data.length));
        assertEquals(data.length, ssd.stat(id).info().size(), "trim keeps the size");
        DeviceException past = assertThrows(DeviceException.class, () -> ssd.trim(id, 0, data.length + 1L));
        assertEquals(DeviceException.Code.OUT_OF_RANGE, past.code());
    }

    @Test
    void statsCountCommandsAndTheClockMoves() {
        DeviceStats before = ssd.stats();
        put(ssd, "s", random(8192, 8));
        DeviceStats after = ssd.stats();
        assertFalse(after.counters().isEmpty(), "counters");
        assertTrue(after.deviceClockNanos() > before.deviceClockNanos(), before + " -> " + after);
    }

    @Test
    void dataSurvivesCloseAndReopen() {
        byte[] data = random(50_000, 9);
        long id = put(ssd, "keep", data);
        ssd.close();
        ssd.close(); // idempotent
        dev.reopen(); // remote: the daemon stops cleanly (SIGTERM) and starts again
        ssd = dev.ssd();
        assertEquals(id, ssd.stat("keep").info().id());
        assertArrayEquals(data, get(ssd, id, 0, data.length));
    }
}
