package io.smartssd.device;

import static io.smartssd.device.TestDevices.direct;
import static io.smartssd.device.TestDevices.get;
import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.CreateObject;
import io.smartssd.proto.ObjectKind;
import io.smartssd.proto.Request;
import io.smartssd.proto.WriteObject;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote handle's lifecycle against a real csdd: a missing daemon, close twice and use after close,
 * the daemon killed (SIGKILL) or stopped (SIGTERM) and restarted under a connected client, connections
 * dropped mid-command on either side, close while commands are in flight or the daemon hangs.
 */
class RemoteLifecycleTest {
    @TempDir
    Path dir;
    Path image;
    Daemon daemon;

    @BeforeEach
    void start() {
        image = TestDevices.tinyImage(dir, "remote.img");
        daemon = Daemon.start(image, Daemon.socketIn(dir));
    }

    @AfterEach
    void stop() {
        if (daemon.alive()) {
            daemon.resume(); // in case a test left it stopped
            daemon.stop();
        }
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Runs body on a new thread and returns what it threw (or null), waiting at most 20 s. */
    private static Thread async(AtomicReference<Throwable> thrown, Executable body) {
        Thread t = new Thread(() -> {
            try {
                body.execute();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        return t;
    }

    private static void joined(Thread t) throws InterruptedException {
        t.join(20_000);
        assertFalse(t.isAlive(), "thread still stuck");
    }

    private static void eventually(String what, Supplier<Boolean> cond) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!cond.get()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(1);
        }
    }

    @Test
    void aMissingDaemonIsAClearErrorNamingThePath() throws Exception {
        Path none = dir.resolve("no-daemon.sock");
        DeviceUnavailableException e = assertThrows(DeviceUnavailableException.class, () -> SmartSsd.openRemote(none));
        assertEquals(DeviceException.Code.UNAVAILABLE, e.code());
        assertEquals(none, e.socket());
        assertFalse(e.mayHaveRun());
        assertTrue(e.getMessage().contains(none.toString()) && e.getMessage().contains("no such socket"), e.getMessage());
        // A path that is there but is no socket: still a clear error naming it.
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        DeviceUnavailableException f = assertThrows(DeviceUnavailableException.class, () -> SmartSsd.openRemote(file));
        assertTrue(f.getMessage().contains(file.toString()), f.getMessage());
        Path tooLong = dir.resolve("x".repeat(120) + ".sock");
        DeviceUnavailableException l = assertThrows(DeviceUnavailableException.class, () -> SmartSsd.openRemote(tooLong));
        assertTrue(l.getMessage().contains("longer than"), l.getMessage());
        assertThrows(NullPointerException.class, () -> SmartSsd.openRemote(null));
        assertThrows(IllegalArgumentException.class, () -> RemoteOptions.defaults().maxConnections(0));
    }

    @Test
    void closeTwiceAndEveryOperationAfterClose() {
        SmartSsd ssd = SmartSsd.openRemote(daemon.socket);
        long id = put(ssd, "x", new byte[100]);
        long t = ssd.createTasklet("weblog-q1", Map.of()).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        RemoteTransport rt = (RemoteTransport) ssd.transport();
        assertEquals(1, rt.connectionsOpen(), "a single-threaded caller reuses one connection");
        ssd.close();
        ssd.close();
        assertTrue(rt.isClosed());
        assertEquals(0, rt.connectionsOpen());
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
            assertTrue(e.getMessage().contains("closed") && e.getMessage().contains(daemon.socket.toString()),
                    e.getMessage());
        }
        // Closing a handle does not touch the daemon: a new handle sees the data.
        try (SmartSsd again = SmartSsd.openRemote(daemon.socket)) {
            assertEquals(100, again.stat("x").info().size());
        }
    }

    @Test
    void daemonKilledAndRestartedUnderAConnectedClient() {
        byte[] data = random(300_000, 1);
        try (SmartSsd ssd = SmartSsd.openRemote(daemon.socket)) {
            long id = put(ssd, "survivor", data);
            long tasklet = ssd.createTasklet("weblog-q1", Map.of()).id();
            daemon.kill(); // SIGKILL: no flush, the socket file stays behind

            DeviceUnavailableException down = assertThrows(DeviceUnavailableException.class, () -> ssd.stat(id));
            assertEquals(DeviceException.Code.UNAVAILABLE, down.code());
            assertFalse(down.mayHaveRun(), "a command that could not be sent did not run");
            assertTrue(down.getMessage().contains(daemon.socket.toString()), down.getMessage());
            assertTrue(down.getMessage().contains("cannot connect"), down.getMessage());
            // Still down: the same clear error again, not a stale state.
            assertThrows(DeviceUnavailableException.class, () -> ssd.identify());

            daemon.restart();
            // The same handle reconnects by itself and sees every acknowledged write (the image is
            // crash-consistent); volatile objects (tasklets, outputs) died with the daemon.
            assertEquals(data.length, ssd.stat("survivor").info().size());
            assertArrayEquals(data, get(ssd, id, 0, data.length));
            assertEquals(DeviceException.Code.NOT_FOUND,
                    assertThrows(DeviceException.class, () -> ssd.delete(tasklet)).code());
            assertTrue(((RemoteTransport) ssd.transport()).connectionsOpened() >= 2, "it reconnected");

            // A clean stop (SIGTERM) and restart under the client: same story, and the socket is gone meanwhile.
            daemon.stop();
            DeviceUnavailableException gone = assertThrows(DeviceUnavailableException.class, () -> ssd.stat(id));
            assertTrue(gone.getMessage().contains("no such socket"), gone.getMessage());
            daemon.restart();
            assertArrayEquals(data, get(ssd, id, 0, data.length));

            // Killed and back before the client notices: its pooled connection is stale, the command is
            // sent again on a fresh one, and the caller sees nothing.
            daemon.kill();
            daemon.restart();
            assertEquals(data.length, ssd.stat(id).info().size());
        }
    }

    @Test
    void daemonKilledInTheMiddleOfACommand() throws Exception {
        try (SmartSsd ssd = SmartSsd.openRemote(daemon.socket)) {
            long id = put(ssd, "obj", random(5000, 2));
            daemon.pause(); // SIGSTOP: the next command is sent but never answered
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = async(thrown, () -> ssd.stat(id));
            Thread.sleep(200);
            assertTrue(t.isAlive(), "the command waits for the stopped daemon; it ended with " + thrown.get());
            daemon.kill();
            joined(t);
            DeviceUnavailableException e = assertInstanceOf(DeviceUnavailableException.class, thrown.get());
            assertTrue(e.mayHaveRun(), "the command had been sent");
            assertTrue(e.getMessage().contains("in the middle of a command"), e.getMessage());
            daemon.restart();
            assertEquals(5000, ssd.stat(id).info().size());
        }
    }

    private static <T> T assertInstanceOf(Class<T> type, Throwable t) {
        assertTrue(type.isInstance(t), "expected " + type.getSimpleName() + ", got " + t);
        return type.cast(t);
    }

    @Test
    void aClientDroppingMidCommandDoesNotDisturbOthers() throws Exception {
        byte[] data = random(200_000, 3);
        try (SmartSsd ssd = SmartSsd.openRemote(daemon.socket)) {
            long id = put(ssd, "steady", data);

            // 1. A Java caller interrupted while its command waits: that connection closes, nothing else.
            daemon.pause();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = async(thrown, () -> ssd.read(id, 0, ByteBuffer.allocateDirect(100_000)));
            Thread.sleep(100);
            t.interrupt();
            joined(t);
            CancellationException ce = assertInstanceOf(CancellationException.class, thrown.get());
            assertTrue(ce.getMessage().contains("interrupted"), ce.getMessage());
            daemon.resume();

            // 2. Raw clients that drop: half a frame; a whole write frame, never reading the answer; a
            //    frame announcing more than the packet limit.
            try (SocketChannel half = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                half.connect(UnixDomainSocketAddress.of(daemon.socket));
                half.write(ByteBuffer.wrap(new byte[] {100, 0, 0, 0, 0x08, 0x01}));
            }
            Request create = Request.newBuilder().setTag(7).setCreateObject(CreateObject.newBuilder()
                    .setKind(ObjectKind.DATA).setName("from-a-dropped-client")).build();
            byte[] raw = RemoteTransport.frame(create, null)[0].array();
            try (SocketChannel drop = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                drop.connect(UnixDomainSocketAddress.of(daemon.socket));
                drop.write(ByteBuffer.wrap(raw));
            }
            try (SocketChannel huge = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                huge.connect(UnixDomainSocketAddress.of(daemon.socket));
                huge.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0x7fffffff));
            }

            // Meanwhile and after, this handle's commands all succeed, from several threads.
            List<Thread> workers = new ArrayList<>();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            for (int i = 0; i < 4; i++) {
                workers.add(async(failed, () -> {
                    for (int k = 0; k < 50; k++) {
                        assertArrayEquals(data, get(ssd, id, 0, data.length));
                    }
                }));
            }
            for (Thread w : workers) {
                joined(w);
            }
            if (failed.get() != null) {
                throw new AssertionError("a client of the same daemon failed", failed.get());
            }
            // The dropped client's complete command ran (atomically) even though nobody read the answer.
            eventually("the dropped client's create", () -> {
                try {
                    return ssd.stat("from-a-dropped-client").info().size() == 0;
                } catch (DeviceException e) {
                    return false;
                }
            });
        }
        daemon.stop(); // and the daemon still shuts down cleanly
        daemon.restart();
        try (SmartSsd ssd = SmartSsd.openRemote(daemon.socket)) {
            assertArrayEquals(data, get(ssd, ssd.stat("steady").info().id(), 0, data.length));
        }
    }

    @Test
    void closeWhileReadsAreInFlight() throws Exception {
        SmartSsd ssd = SmartSsd.openRemote(daemon.socket);
        byte[] data = random(4 << 20, 5);
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
        eventually("8 reads", () -> reads.get() >= 8 || unexpected.get() != null);
        ssd.close();
        for (Thread th : readers) {
            joined(th);
        }
        if (unexpected.get() != null) {
            throw new AssertionError("a reader failed other than with IllegalStateException", unexpected.get());
        }
        try (SmartSsd again = SmartSsd.openRemote(daemon.socket)) {
            assertEquals(data[123_456], get(again, id, 123_456, 1)[0]);
        }
    }

    @Test
    void closeDoesNotHangOnAStuckDaemon() throws Exception {
        SmartSsd ssd = SmartSsd.openRemote(daemon.socket, RemoteOptions.defaults().closeTimeout(Duration.ofMillis(200)));
        long id = put(ssd, "obj", random(1000, 6));
        daemon.pause();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = async(thrown, () -> ssd.stat(id));
        Thread.sleep(100);
        long t0 = System.nanoTime();
        ssd.close();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 150 && ms < 5000, "close waited " + ms + " ms for the command in flight, then gave up");
        joined(t);
        IllegalStateException e = assertInstanceOf(IllegalStateException.class, thrown.get());
        assertTrue(e.getMessage().contains("closed while this command was in flight"), e.getMessage());
        daemon.resume();
        try (SmartSsd again = SmartSsd.openRemote(daemon.socket)) {
            assertEquals(1000, again.stat(id).info().size());
        }
    }

    @Test
    void maxConnectionsBoundsTheConnectionsOfAHandle() throws Exception {
        try (SmartSsd ssd = SmartSsd.openRemote(daemon.socket, RemoteOptions.defaults().maxConnections(2))) {
            long id = put(ssd, "shared", random(10_000, 7));
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ts.add(async(failed, () -> {
                    for (int k = 0; k < 100; k++) {
                        assertEquals(10_000, ssd.stat(id).info().size());
                    }
                }));
            }
            for (Thread t : ts) {
                joined(t);
            }
            if (failed.get() != null) {
                throw new AssertionError(failed.get());
            }
            RemoteTransport rt = (RemoteTransport) ssd.transport();
            assertTrue(rt.connectionsOpened() <= 2, "opened " + rt.connectionsOpened());
        }
    }

    @Test
    void aResultStreamWhoseDaemonDiesFailsClearly() throws Exception {
        try (SmartSsd ssd = SmartSsd.openRemote(daemon.socket)) {
            byte[] logs = Wc98.generate(200_000, 20, 3);
            long id = put(ssd, "wc98", logs);
            long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
            long out = ssd.createOutput(Map.of(), List.of(), 0).id();
            ssd.execute(t, out, Extent.whole(id));
            daemon.kill();
            DeviceUnavailableException e = assertThrows(DeviceUnavailableException.class,
                    () -> ssd.results(out).toList());
            assertTrue(e.getMessage().contains(daemon.socket.toString()), e.getMessage());
            daemon.restart();
            assertEquals(Wc98.q1(logs, 20, 0, logs.length), TestDevices.q1(ssd, id, 20, Extent.whole(id)),
                    "after the restart the query runs again on the same data");
        }
    }
}
