package io.smartssd.device;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.TreeMap;

/**
 * WorldCup98 access-log records (the archive's binary format, docs/TASKLETS.md: 20 big-endian bytes, padded to entry_bytes) generated
 * with the archive's published region shares, and the weblog-q1 answer computed here in Java.
 */
final class Wc98 {
    static final String[] REGIONS = {"Santa Clara", "Plano", "Herndon", "Paris",
        "region-4", "region-5", "region-6", "region-7"};

    private Wc98() {
    }

    /** n records of entryBytes each. */
    static byte[] generate(int n, int entryBytes, long seed) {
        Random r = new Random(seed);
        ByteBuffer b = ByteBuffer.allocate(n * entryBytes); // big-endian by default
        int ts = 894_000_000;
        for (int i = 0; i < n; i++) {
            ts += r.nextInt(3);
            int region = region(r.nextInt(10_000));
            int server = (region << 5) | r.nextInt(region < 4 ? 11 : 32);
            int at = i * entryBytes;
            b.putInt(at, ts);
            b.putInt(at + 4, r.nextInt(2_770_108));
            b.putInt(at + 8, r.nextInt(89_997));
            b.putInt(at + 12, r.nextInt(40) == 0 ? -1 : r.nextInt(60_000));
            b.put(at + 16, (byte) 0);
            b.put(at + 17, (byte) ((1 << 6) | 2));
            b.put(at + 18, (byte) (r.nextInt(100) < 86 ? 1 : 0));
            b.put(at + 19, (byte) server);
            for (int p = 20; p < entryBytes; p++) {
                b.put(at + p, (byte) r.nextInt(256)); // padding must not matter
            }
        }
        return b.array();
    }

    /** 16.60 / 44.50 / 25.91 / 12.99 %, and a sliver of the unnamed regions 4..7. */
    private static int region(int x) {
        if (x < 1650) {
            return 0;
        }
        if (x < 1650 + 4440) {
            return 1;
        }
        if (x < 1650 + 4440 + 2581) {
            return 2;
        }
        if (x < 1650 + 4440 + 2581 + 1289) {
            return 3;
        }
        return 4 + (x % 4);
    }

    /** Accesses per region name over whole records in [from, to) bytes of data. */
    static TreeMap<String, Long> q1(byte[] data, int entryBytes, long from, long to) {
        TreeMap<String, Long> counts = new TreeMap<>();
        for (long at = 0; at < data.length; at += entryBytes) {
            if (at < from || at >= to) {
                continue; // an extent owns the records whose first byte lies in it
            }
            int server = data[(int) at + 19] & 0xff;
            counts.merge(REGIONS[server >>> 5], 1L, Long::sum);
        }
        return counts;
    }
}
