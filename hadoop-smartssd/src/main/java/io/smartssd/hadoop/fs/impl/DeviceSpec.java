package io.smartssd.hadoop.fs.impl;

import static io.smartssd.hadoop.fs.Constants.DEFAULT_DEVICE_BACKGROUND;
import static io.smartssd.hadoop.fs.Constants.DEFAULT_DEVICE_HOST;
import static io.smartssd.hadoop.fs.Constants.DEFAULT_DEVICE_HOST_READER;
import static io.smartssd.hadoop.fs.Constants.DEFAULT_DEVICE_HOST_THREADS;
import static io.smartssd.hadoop.fs.Constants.DEVICE_BACKGROUND_SUFFIX;
import static io.smartssd.hadoop.fs.Constants.DEVICE_HOST_READER_SUFFIX;
import static io.smartssd.hadoop.fs.Constants.DEVICE_HOST_SUFFIX;
import static io.smartssd.hadoop.fs.Constants.DEVICE_HOST_THREADS_SUFFIX;
import static io.smartssd.hadoop.fs.Constants.DEVICE_IMAGE_SUFFIX;
import static io.smartssd.hadoop.fs.Constants.DEVICE_PREFIX;
import static io.smartssd.hadoop.fs.Constants.DEVICE_SOCKET_SUFFIX;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;

/**
 * One device as the configuration describes it: an embedded image or a daemon socket, and its host.
 * {@link #resolve} checks what can be checked without opening it, so a wrong key fails at once and
 * names itself.
 */
public record DeviceSpec(String id, Path image, Path socket, String host, boolean background, int hostThreads,
                         boolean hostReader) {

    /** The device's host_threads ceiling (params.c validates 1..64). */
    private static final int MAX_HOST_THREADS = 64;

    /** The full name of a per-device key, e.g. {@code fs.smartssd.device.dev0.image}. */
    public static String key(String id, String suffix) {
        return DEVICE_PREFIX + id + suffix;
    }

    public static DeviceSpec resolve(Configuration conf, String id) throws IOException {
        if (id == null || id.isEmpty()) {
            throw new IOException("a smartssd:// URI needs a device id as its authority, e.g. smartssd://dev0/path;"
                    + " the devices are configured by " + key("<id>", DEVICE_IMAGE_SUFFIX) + " or "
                    + key("<id>", DEVICE_SOCKET_SUFFIX));
        }
        String imageKey = key(id, DEVICE_IMAGE_SUFFIX);
        String socketKey = key(id, DEVICE_SOCKET_SUFFIX);
        String image = conf.getTrimmed(imageKey, "");
        String socket = conf.getTrimmed(socketKey, "");
        if (image.isEmpty() && socket.isEmpty()) {
            throw new IOException("unknown smartssd device '" + id + "': set " + imageKey
                    + " (an embedded device image) or " + socketKey + " (a csdd daemon socket)");
        }
        if (!image.isEmpty() && !socket.isEmpty()) {
            throw new IOException("smartssd device '" + id + "' has both " + imageKey + " and " + socketKey
                    + "; set exactly one");
        }
        String host = conf.getTrimmed(key(id, DEVICE_HOST_SUFFIX), DEFAULT_DEVICE_HOST);
        boolean background = conf.getBoolean(key(id, DEVICE_BACKGROUND_SUFFIX), DEFAULT_DEVICE_BACKGROUND);
        String threadsKey = key(id, DEVICE_HOST_THREADS_SUFFIX);
        String threads = conf.getTrimmed(threadsKey, DEFAULT_DEVICE_HOST_THREADS);
        int hostThreads;
        if (threads.equalsIgnoreCase("auto")) {
            hostThreads = Math.min(Runtime.getRuntime().availableProcessors(), MAX_HOST_THREADS);
        } else {
            try {
                hostThreads = Integer.parseInt(threads);
            } catch (NumberFormatException e) {
                hostThreads = 0;
            }
            if (hostThreads < 1 || hostThreads > MAX_HOST_THREADS) {
                throw new IOException(threadsKey + " = " + threads + ": not a thread count; give 1.."
                        + MAX_HOST_THREADS + " or auto (the available processors)");
            }
        }
        String readerKey = key(id, DEVICE_HOST_READER_SUFFIX);
        String reader = conf.getTrimmed(readerKey, DEFAULT_DEVICE_HOST_READER);
        boolean hostReader;
        switch (reader.toLowerCase(java.util.Locale.ROOT)) {
            case "0", "false", "off" -> hostReader = false;
            case "1", "true", "on" -> hostReader = true;
            default -> throw new IOException(readerKey + " = " + reader + ": not a switch; give 1 (on) or 0 (off)");
        }
        if (!image.isEmpty()) {
            Path p = Paths.get(image).toAbsolutePath().normalize();
            if (!Files.isRegularFile(p)) {
                throw new IOException(imageKey + " = " + image + ": no device image there"
                        + (Files.exists(p) ? " (not a regular file)" : " (file does not exist)")
                        + "; create one with `csd format` or SmartSsd.format");
            }
            return new DeviceSpec(id, p, null, host, background, hostThreads, hostReader);
        }
        Path s = Paths.get(socket).toAbsolutePath().normalize();
        if (!Files.exists(s)) {
            throw new IOException(socketKey + " = " + socket + ": unreachable, no such socket"
                    + " (is `csd csdd IMAGE --socket " + socket + "` running?)");
        }
        return new DeviceSpec(id, null, s, host, background, hostThreads, hostReader);
    }

    /** The key that names where the device is ({@code .image} or {@code .socket}), for messages. */
    public String locationKey() {
        return image != null ? key(id, DEVICE_IMAGE_SUFFIX) : key(id, DEVICE_SOCKET_SUFFIX);
    }

    /** The image or socket path. */
    public Path location() {
        return image != null ? image : socket;
    }

    /** What the registry shares handles by: one handle per image (its lock allows one) or socket. */
    String registryKey() {
        return (image != null ? "image:" : "socket:") + location();
    }
}
