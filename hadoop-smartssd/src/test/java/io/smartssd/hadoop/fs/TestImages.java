package io.smartssd.hadoop.fs;

import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;

/** Fresh device images for tests, under target/test-tmp, and configurations naming them. */
public final class TestImages {
    /** Room for the contract suites and the job tests' data; "tiny" preset (4 KiB pages). */
    public static final long CAPACITY = 128L << 20;

    private TestImages() {
    }

    public static Path dir() {
        Path d = Paths.get(System.getProperty("smartssd.test.tmp", "target/test-tmp")).toAbsolutePath();
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return d;
    }

    /** A new formatted image with a unique name. */
    public static Path fresh(String label) {
        Path image = dir().resolve(label + "-" + UUID.randomUUID() + ".img");
        SmartSsd.format(image, CAPACITY, "tiny");
        return image;
    }

    /** A configuration where device id names image, without the FileSystem cache (each test its own). */
    public static Configuration conf(String id, Path image) {
        Configuration conf = new Configuration();
        conf.set(Constants.DEVICE_PREFIX + id + Constants.DEVICE_IMAGE_SUFFIX, image.toString());
        return conf;
    }
}
