package io.smartssd.examples.weblog;

import java.util.Locale;

/** Byte sizes as the command lines take them. */
final class Sizes {
    private Sizes() {
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
