package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A csdd process serving an image, started by a test: {@code csdd IMAGE --socket PATH}. The binary comes
 * from the system property smartssd.test.csdd (the pom points it at ../native/target/build/csdd).
 */
final class Daemon implements AutoCloseable {
    final Path image;
    final Path socket;
    final Path log;
    private Process process;

    private Daemon(Path image, Path socket, Path log) {
        this.image = image;
        this.socket = socket;
        this.log = log;
    }

    static Path binary(String name) {
        Path p = Path.of(System.getProperty("smartssd.test." + name, "../native/target/build/" + name));
        assertTrue(Files.isExecutable(p), name + " not built at " + p.toAbsolutePath()
                + " (build native first, or set -Dsmartssd.test." + name + "=PATH)");
        return p;
    }

    /** A socket path short enough for sun_path (108 bytes), in a fresh directory under the temp dir. */
    static Path socketIn(Path dir) {
        Path s = dir.resolve("dev.sock");
        if (s.toAbsolutePath().toString().length() < 100) {
            return s;
        }
        try {
            return Files.createTempDirectory("csdd").resolve("dev.sock");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Starts csdd on image and waits until it accepts connections. */
    static Daemon start(Path image, Path socket) {
        Daemon d = new Daemon(image, socket, socket.resolveSibling(socket.getFileName() + ".log"));
        d.launch();
        return d;
    }

    private void launch() {
        try {
            process = new ProcessBuilder(binary("csdd").toString(), image.toString(), "--socket", socket.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            process.getOutputStream().close();
            Process p = process;
            Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly)); // a dying test JVM leaves none
        } catch (IOException e) {
            throw new IllegalStateException("cannot start csdd: " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(socket)); // a killed daemon's stale socket refuses
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("csdd did not come up on " + socket + ":\n" + log());
                }
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** SIGKILL: no clean shutdown, the socket file stays behind. */
    void kill() {
        process.destroyForcibly();
        waitExit();
    }

    /** SIGTERM: a clean shutdown (metadata flushed, socket removed); exit status 0. */
    void stop() {
        process.destroy();
        assertEquals(0, waitExit(), "csdd exit status after SIGTERM:\n" + log());
        assertTrue(log().contains("stopped cleanly"), log());
        assertTrue(!Files.exists(socket), "a clean stop removes the socket");
    }

    /** Starts the daemon again on the same image and socket (after kill or stop). */
    void restart() {
        if (process.isAlive()) {
            stop();
        }
        launch();
    }

    /** SIGSTOP / SIGCONT: the daemon keeps its sockets but answers nothing while stopped. */
    void pause() {
        signal("STOP");
        // kill returns once the signal is sent; wait until the kernel shows the process stopped.
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                String st = Files.readString(stat);
                char state = st.charAt(st.lastIndexOf(')') + 2);
                if (state == 'T' || state == 't') {
                    return;
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + stat, e);
            }
            assertTrue(System.nanoTime() < deadline, "csdd did not stop after SIGSTOP");
            Thread.onSpinWait();
        }
    }

    void resume() {
        signal("CONT");
    }

    private void signal(String sig) {
        try {
            Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start();
            assertEquals(0, k.waitFor(), "kill -" + sig);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private int waitExit() {
        try {
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "csdd did not exit:\n" + log());
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String log() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            waitExit();
        }
    }
}
