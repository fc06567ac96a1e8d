package io.smartssd.examples.weblog;

import java.util.Locale;

/** The paper's three versions of each query (V-C-1), and a Spark DataFrame version over the device (spark-device). */
public enum Version {
    /** Plain MapReduce over the FileSystem: every record an intermediate pair. */
    HOST_NORMAL,
    /** MapReduce over the FileSystem with in-memory, compacted intermediate results. */
    HOST_OPTIMIZED,
    /** DeviceJob: the weblog tasklet runs inside the device; only its rows reach the host. */
    DEVICE,
    /**
     * Spark DataFrame over the {@code smartssd} format: the group-by count is pushed into the device as
     * a {@code plan} tasklet; Spark merges the partial counts (see {@link SparkWeblog}).
     */
    SPARK_DEVICE;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Version parse(String s) {
        for (Version v : values()) {
            if (v.label().equals(s.toLowerCase(Locale.ROOT))) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown version '" + s + "': host-normal, host-optimized, device or"
                + " spark-device");
    }
}
