package io.smartssd.device;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** How to open an embedded device. Defaults: background thread on, the image's own params, close on JVM exit. */
public final class OpenOptions {
    private boolean background = true;
    private boolean closeOnExit = true;
    private final Map<String, String> params = new LinkedHashMap<>();

    public static OpenOptions defaults() {
        return new OpenOptions();
    }

    /**
     * true (default): tasklets advance in a device thread while the host does other things, as on a real
     * device; false: they advance only inside commands (deterministic, single-threaded).
     */
    public OpenOptions background(boolean on) {
        this.background = on;
        return this;
    }

    /**
     * Override one non-geometry device parameter for this session (timing, cores, policies, emulation),
     * e.g. {@code param("cores", "4")}; the names are those of identify's params and the config file.
     */
    public OpenOptions param(String key, String value) {
        params.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /** true (default): a JVM shutdown hook closes the device if the program did not, so metadata is flushed. */
    public OpenOptions closeOnExit(boolean on) {
        this.closeOnExit = on;
        return this;
    }

    public boolean background() {
        return background;
    }

    public boolean closeOnExit() {
        return closeOnExit;
    }

    public Map<String, String> params() {
        return Collections.unmodifiableMap(params);
    }
}
