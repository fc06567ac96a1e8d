package io.smartssd.device;

import java.nio.file.Path;

/**
 * One device on an image, opened in a {@link Mode}: embedded in this JVM, or a csdd started for the test
 * with a remote handle on it. Tests written against {@link #ssd()} run unchanged in both modes.
 */
final class TestDevice implements AutoCloseable {
    final Mode mode;
    final Path image;
    private Daemon daemon;
    private SmartSsd ssd;

    private TestDevice(Mode mode, Path image) {
        this.mode = mode;
        this.image = image;
    }

    static TestDevice open(Mode mode, Path image) {
        TestDevice d = new TestDevice(mode, image);
        if (mode == Mode.REMOTE) {
            d.daemon = Daemon.start(image, Daemon.socketIn(image.getParent()));
        }
        d.connect();
        return d;
    }

    /** A fresh tiny image in dir, opened in mode. */
    static TestDevice fresh(Mode mode, Path dir, String name) {
        return open(mode, TestDevices.tinyImage(dir, name));
    }

    private void connect() {
        ssd = mode == Mode.EMBEDDED ? SmartSsd.openEmbedded(image) : SmartSsd.openRemote(daemon.socket);
    }

    SmartSsd ssd() {
        return ssd;
    }

    /** The daemon (remote mode only). */
    Daemon daemon() {
        if (daemon == null) {
            throw new IllegalStateException("no daemon in " + mode + " mode");
        }
        return daemon;
    }

    /** Closes the device (embedded: closes the image; remote: stops the daemon cleanly) and opens it again. */
    void reopen() {
        ssd.close();
        if (daemon != null) {
            daemon.restart();
        }
        connect();
    }

    @Override
    public void close() {
        try {
            if (ssd != null) {
                ssd.close();
            }
        } finally {
            if (daemon != null) {
                daemon.stop();
            }
        }
    }
}
