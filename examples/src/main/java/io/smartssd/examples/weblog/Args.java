package io.smartssd.examples.weblog;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code --key value} and {@code --flag} command-line options; unknown options are errors. */
final class Args {
    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final Set<String> flags = new HashSet<>();

    Args(String[] argv, int from, Set<String> flagNames, Set<String> valueNames) {
        for (int i = from; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
            String k = a.substring(2);
            String v = null;
            int eq = k.indexOf('=');
            if (eq > 0) {
                v = k.substring(eq + 1);
                k = k.substring(0, eq);
            }
            if (flagNames.contains(k) && v == null) {
                flags.add(k);
            } else if (valueNames.contains(k)) {
                if (v == null) {
                    if (i + 1 >= argv.length) {
                        throw new IllegalArgumentException("--" + k + " needs a value");
                    }
                    v = argv[++i];
                }
                values.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
            } else {
                throw new IllegalArgumentException("unknown option --" + k);
            }
        }
    }

    boolean flag(String k) {
        return flags.contains(k);
    }

    String get(String k, String def) {
        List<String> v = values.get(k);
        return v == null ? def : v.get(v.size() - 1);
    }

    String require(String k) {
        String v = get(k, null);
        if (v == null) {
            throw new IllegalArgumentException("--" + k + " is required");
        }
        return v;
    }

    List<String> all(String k) {
        return values.getOrDefault(k, List.of());
    }

    int getInt(String k, int def) {
        String v = get(k, null);
        try {
            return v == null ? def : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + k + " " + v + ": not an integer");
        }
    }

    /** A list given as commas and/or repeated options. */
    List<String> list(String k, String def) {
        List<String> out = new ArrayList<>();
        List<String> raw = values.containsKey(k) ? values.get(k) : List.of(def);
        for (String r : raw) {
            for (String p : r.split(",")) {
                if (!p.isBlank()) {
                    out.add(p.trim());
                }
            }
        }
        return out;
    }

    /** A byte size: 123, 64K, 256M, 1G, 1.5G (binary units). */
    static long bytes(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT).replaceAll("I?B$", "");
        long mult = 1;
        if (t.endsWith("K")) {
            mult = 1L << 10;
        } else if (t.endsWith("M")) {
            mult = 1L << 20;
        } else if (t.endsWith("G")) {
            mult = 1L << 30;
        } else if (t.endsWith("T")) {
            mult = 1L << 40;
        }
        if (mult > 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            double v = Double.parseDouble(t);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return (long) (v * mult);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + s + "' is not a size (e.g. 512M, 1G, 1048576)");
        }
    }
}
