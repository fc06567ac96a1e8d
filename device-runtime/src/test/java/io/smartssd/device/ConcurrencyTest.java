package io.smartssd.device;

import static io.smartssd.device.TestDevices.direct;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 16 threads x 1000 mixed commands against one device. Each thread owns one object and keeps a
 * reference copy of it (so its own commands have serial semantics), reads it back constantly, and now
 * and then runs weblog-q1 over a shared object; at the end every object equals its reference, also after
 * a reopen, and equals what the same workers leave when run one after another. Both modes: remotely each
 * thread gets its own connection from the handle's pool (16 connections, 16 daemon threads).
 */
@ParameterizedClass
@EnumSource(Mode.class)
class ConcurrencyTest {
    @Parameter
    Mode mode;
    static final int THREADS = 16;
    static final int COMMANDS = 1000;
    static final int MAX_SIZE = 48 * 1024;
    static final int PAGE = 4096; // the tiny preset's page

    @TempDir
    Path dir;

    @Test
    void sixteenThreadsThousandMixedCommandsEach() throws Exception {
        Path image = TestDevices.tinyImage(dir, "conc.img");
        byte[] logs = Wc98.generate(20_000, 20, 11);
        TreeMap<String, Long> q1Expected = Wc98.q1(logs, 20, 0, logs.length);
        List<byte[]> finals = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        try (TestDevice dev = TestDevice.open(mode, image)) {
            SmartSsd ssd = dev.ssd();
            long shared = TestDevices.put(ssd, "shared/wc98", logs);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<Object[]>> results = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                final int me = i;
                results.add(pool.submit(() -> worker(ssd, me, shared, q1Expected)));
            }
            for (Future<Object[]> f : results) {
                Object[] r = f.get();
                ids.add((Long) r[0]);
                finals.add((byte[]) r[1]);
            }
            pool.shutdown();
            if (mode == Mode.REMOTE) {
                RemoteTransport t = (RemoteTransport) ssd.transport();
                assertTrue(t.connectionsOpened() >= 2 && t.connectionsOpened() <= THREADS,
                        "one pooled connection per concurrent thread at most: " + t.connectionsOpened());
            }
            for (int i = 0; i < THREADS; i++) {
                assertArrayEquals(finals.get(i), TestDevices.get(ssd, ids.get(i), 0, MAX_SIZE + 10), "object " + i);
            }
            assertEquals(THREADS + 1, ssd.list("").objects().size());
        }
        // And after a reopen.
        try (TestDevice dev = TestDevice.open(mode, image)) {
            SmartSsd ssd = dev.ssd();
            for (int i = 0; i < THREADS; i++) {
                assertArrayEquals(finals.get(i), TestDevices.get(ssd, ids.get(i), 0, MAX_SIZE + 10), "object " + i);
            }
        }
        // The same workers one after another on a fresh embedded device: the same objects.
        try (SmartSsd serial = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "serial.img"))) {
            long shared = TestDevices.put(serial, "shared/wc98", logs);
            for (int i = 0; i < THREADS; i++) {
                Object[] r = worker(serial, i, shared, q1Expected);
                assertArrayEquals(finals.get(i), TestDevices.get(serial, (Long) r[0], 0, MAX_SIZE + 10),
                        "object " + i + " of the serial run");
            }
        }
    }

    private static Object[] worker(SmartSsd ssd, int me, long shared, TreeMap<String, Long> q1Expected) {
        Random r = new Random(1000 + me);
        String name = "t/" + me;
        long id = ssd.createData(name).id();
        byte[] ref = new byte[0];
        ByteBuffer io = ByteBuffer.allocateDirect(MAX_SIZE);
        for (int c = 1; c < COMMANDS; c++) {
            int op = r.nextInt(100);
            if (c % 200 == 0) {
                assertEquals(q1Expected, TestDevices.q1(ssd, shared, 20, Extent.whole(shared)), "q1 in thread " + me);
                c += 5; // a q1 run is six commands
            } else if (op < 30) {
                int off = r.nextInt(ref.length + 1);
                int len = 1 + r.nextInt(Math.min(8192, MAX_SIZE - off));
                if (off + len > MAX_SIZE) {
                    continue;
                }
                byte[] chunk = new byte[len];
                r.nextBytes(chunk);
                Written w = ssd.write(id, off, direct(chunk));
                if (off + len > ref.length) {
                    ref = Arrays.copyOf(ref, off + len);
                }
                System.arraycopy(chunk, 0, ref, off, len);
                assertEquals(ref.length, w.size());
            } else if (op < 60) {
                int off = r.nextInt(ref.length + 1);
                int len = r.nextInt(MAX_SIZE);
                io.clear().limit(len);
                ReadResult rr = ssd.read(id, off, io);
                int expect = Math.min(len, ref.length - off);
                assertEquals(expect, rr.bytes());
                byte[] got = new byte[expect];
                io.flip().get(got);
                assertArrayEquals(Arrays.copyOfRange(ref, off, off + expect), got, "thread " + me + " read " + off);
            } else if (op < 70) {
                assertEquals(ref.length, ssd.stat(id).info().size());
            } else if (op < 78) {
                assertTrue(ssd.list("t/").objects().stream().anyMatch(o -> o.id() == id));
            } else if (op < 83) {
                assertEquals("tiny", ssd.identify().preset());
            } else if (op < 88 && ref.length >= PAGE) {
                // trim deallocates whole pages: trim whole pages, which then read as zeros
                int pages = ref.length / PAGE;
                int first = r.nextInt(pages);
                int n = 1 + r.nextInt(pages - first);
                ssd.trim(id, (long) first * PAGE, (long) n * PAGE);
                Arrays.fill(ref, first * PAGE, (first + n) * PAGE, (byte) 0);
            } else if (op < 95) {
                byte[] small = new byte[1 + r.nextInt(64)];
                r.nextBytes(small);
                int off = r.nextInt(Math.min(ref.length, MAX_SIZE - small.length) + 1);
                ssd.write(id, off, small);
                if (off + small.length > ref.length) {
                    ref = Arrays.copyOf(ref, off + small.length);
                }
                System.arraycopy(small, 0, ref, off, small.length);
            } else {
                assertTrue(ssd.stats().deviceClockNanos() > 0);
            }
        }
        return new Object[] {id, ref};
    }
}
