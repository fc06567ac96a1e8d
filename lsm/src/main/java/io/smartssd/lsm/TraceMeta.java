package io.smartssd.lsm;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What a recording was made of, kept in the trace as a comment line {@code # meta key=value ...} (the
 * workload, record count, scale and RocksDB sizes: what {@link LevelCheck} compares the tree with).
 * A trace without it (made by hand, or by a recorder attached to someone's own store) has empty meta.
 */
public record TraceMeta(Map<String, String> values) {
    static final String PREFIX = "# meta ";

    public TraceMeta {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The comment line (no newline). */
    String line() {
        StringBuilder b = new StringBuilder(PREFIX.strip());
        values.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }

    /** The meta of a trace file: its first {@code # meta} line (read up to the header's first events). */
    public static TraceMeta read(Path trace) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(trace, StandardCharsets.UTF_8)) {
            String l;
            int n = 0;
            while ((l = r.readLine()) != null && n++ < 100) {
                if (l.startsWith(PREFIX)) {
                    return parse(l);
                }
            }
        }
        return new TraceMeta(Map.of());
    }

    static TraceMeta parse(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : line.substring(PREFIX.length()).trim().split("\\s+")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return new TraceMeta(m);
    }

    public String get(String key) {
        return values.get(key);
    }

    public OptionalLong number(String key) {
        String v = values.get(key);
        try {
            return v == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(v));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
