package io.smartssd.device;

import static io.smartssd.device.TestDevices.direct;
import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Close twice, use after close, close while other threads are inside commands. */
class LifecycleTest {
    @TempDir
    Path dir;

    @Test
    void closeTwiceIsHarmless() {
        SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "a.img"));
        ssd.close();
        ssd.close();
        assertTrue(((EmbeddedTransport) ssd.transport()).isClosed());
    }

    @Test
    void aSecondHandleOnAnImageInUseIsRefused() {
        Path image = TestDevices.tinyImage(dir, "twice.img");
        try (SmartSsd first = SmartSsd.openEmbedded(image)) {
            DeviceException e = assertThrows(DeviceException.class, () -> SmartSsd.openEmbedded(image));
            assertEquals(DeviceException.Code.BUSY, e.code());
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
            assertEquals("tiny", first.identify().preset());
        }
        try (SmartSsd again = SmartSsd.openEmbedded(image)) { // free once closed
            assertEquals("tiny", again.identify().preset());
        }
    }

    @Test
    void everyOperationAfterCloseThrowsIllegalState() {
        SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "b.img"));
        long id = put(ssd, "x", new byte[100]);
        long t = ssd.createTasklet("weblog-q1", Map.of()).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        ssd.close();
        ByteBuffer b = ByteBuffer.allocateDirect(10);
        List<Executable> ops = List.of(
                () -> ssd.read(id, 0, b), () -> ssd.write(id, 0, direct(new byte[1])),
                () -> ssd.write(id, 0, new byte[1]), () -> ssd.createData("y"),
                () -> ssd.createTasklet("grep", Map.of("pattern", "a")),
                () -> ssd.createOutput(Map.of(), List.of(), 0), () -> ssd.execute(t, out, Extent.whole(id)),
                () -> ssd.readResults(out, 0), () -> ssd.results(out).hasNext(), () -> ssd.delete(id),
                () -> ssd.rename(id, "z", false), () -> ssd.list(""), () -> ssd.stat(id), () -> ssd.stat("x"),
                () -> ssd.trim(id, 0, 1), () -> ssd.identify(), () -> ssd.stats());
        for (Executable op : ops) {
            IllegalStateException e = assertThrows(IllegalStateException.class, op);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    void closeWhileReadsAreInFlight() throws Exception {
        Path image = TestDevices.tinyImage(dir, "c.img");
        SmartSsd ssd = SmartSsd.openEmbedded(image);
        byte[] data = new byte[4 << 20];
        new Random(5).nextBytes(data);
        long id = put(ssd, "big", data);

        int threads = 4;
        CountDownLatch started = new CountDownLatch(threads);
        AtomicInteger reads = new AtomicInteger();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            final int seed = i;
            Thread th = new Thread(() -> {
                Random r = new Random(seed);
                ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
                started.countDown();
                try {
                    while (true) {
                        int off = r.nextInt(data.length - buf.capacity());
                        buf.clear();
                        ssd.read(id, off, buf);
                        for (int k = 0; k < buf.capacity(); k += 4099) {
                            if (buf.get(k) != data[off + k]) {
                                throw new AssertionError("wrong byte at " + (off + k));
                            }
                        }
                        reads.incrementAndGet();
                    }
                } catch (IllegalStateException closed) {
                    // the expected end
                } catch (Throwable t) {
                    unexpected.set(t);
                }
            });
            th.start();
            readers.add(th);
        }
        started.await();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (reads.get() < 8 && unexpected.get() == null && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(reads.get() >= 8 || unexpected.get() != null, "readers made no progress");
        ssd.close();
        for (Thread th : readers) {
            th.join(10_000);
            assertTrue(!th.isAlive(), "reader stuck after close");
        }
        if (unexpected.get() != null) {
            throw new AssertionError("a reader failed other than with IllegalStateException", unexpected.get());
        }
        // The device was closed cleanly under load: it opens again with the data intact.
        try (SmartSsd again = SmartSsd.openEmbedded(image)) {
            assertEquals(data.length, again.stat("big").info().size());
            assertEquals(data[123_456], TestDevices.get(again, id, 123_456, 1)[0]);
        }
    }

    @Test
    void closeWhileAResultStreamWaits() throws Exception {
        SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "d.img"));
        byte[] logs = Wc98.generate(200_000, 20, 3);
        long id = put(ssd, "wc98", logs);
        long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        ssd.execute(t, out, Extent.whole(id));
        AtomicReference<Throwable> ended = new AtomicReference<>();
        Thread consumer = new Thread(() -> {
            try {
                ResultStream rs = ssd.results(out);
                while (true) {
                    while (rs.hasNext()) {
                        rs.next();
                    }
                    // keep polling a finished stream's device until close ends it
                    ssd.readResults(out, 0);
                }
            } catch (Throwable e) {
                ended.set(e);
            }
        });
        consumer.start();
        Thread.sleep(20);
        ssd.close();
        consumer.join(10_000);
        assertTrue(ended.get() instanceof IllegalStateException, "consumer ended with " + ended.get());
    }
}
