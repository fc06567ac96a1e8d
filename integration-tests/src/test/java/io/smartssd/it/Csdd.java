package io.smartssd.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** One csdd daemon process serving an image on a Unix socket, for the length of a test. */
final class Csdd implements AutoCloseable {
    private final Process process;
    final Path socket;

    private Csdd(Process process, Path socket) {
        this.process = process;
        this.socket = socket;
    }

    static Path binary() {
        Path p = Path.of(System.getProperty("smartssd.csdd", "../native/target/build/csdd")).toAbsolutePath();
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException("no csdd at " + p + ": build native first (mvn -pl native compile)");
        }
        return p;
    }

    static Csdd start(Path image, Path socket, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary().toString(), image.toString(), "--socket", socket.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(socket)) {
            if (!p.isAlive()) {
                throw new IOException("csdd exited with " + p.exitValue() + ": " + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException("csdd did not create " + socket + " within 20 s");
            }
            Thread.sleep(20);
        }
        return new Csdd(p, socket);
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
