package io.smartssd.spark;

import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A csdd daemon ({@code csdd IMAGE --socket PATH}, native/target/build/csdd) serving a fresh image for
 * the length of a test; its counters are read over its own socket, apart from Spark's handles.
 */
final class Csdd implements AutoCloseable {
    final Path socket;
    final Path log;
    private final Process process;

    private Csdd(Process process, Path socket, Path log) {
        this.process = process;
        this.socket = socket;
        this.log = log;
    }

    static Path binary() {
        Path p = Path.of(System.getProperty("smartssd.csdd", "../native/target/build/csdd")).toAbsolutePath();
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException("no csdd at " + p + ": build native first (mvn -pl native compile)");
        }
        return p;
    }

    /** Formats image, serves it on socket and waits until the daemon accepts connections. */
    static Csdd start(Path image, Path socket) throws IOException, InterruptedException {
        SmartSsd.format(image, 64L << 20, "tiny");
        Path log = socket.resolveSibling(socket.getFileName() + ".log");
        Process p = new ProcessBuilder(binary().toString(), image.toString(), "--socket", socket.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly)); // a dying test JVM leaves none
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(socket));
                return new Csdd(p, socket, log);
            } catch (IOException notYet) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    throw new IOException("csdd did not come up on " + socket + ":\n" + Files.readString(log));
                }
                Thread.sleep(20);
            }
        }
    }

    /** The daemon's own count of a command ({@code commands.execute_object}, ...), over a new connection. */
    long counter(String name) {
        try (SmartSsd ssd = SmartSsd.openRemote(socket)) {
            return ssd.stats().counter(name);
        }
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: the daemon flushes and removes its socket
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
