package io.smartssd.hadoop.mapreduce;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Test inputs with answers computed here, independently of the device and of Hadoop. */
final class TestData {
    static final String[] REGIONS = {"Santa Clara", "Plano", "Herndon", "Paris", "region-4", "region-5",
        "region-6", "region-7"};
    static final int BASE_TS = 893_000_000;

    private TestData() {
    }

    /**
     * WorldCup98 records (TASKLETS.md: 20 bytes big-endian, padded to entryBytes); record i has timestamp
     * BASE_TS + i, and a server byte whose region (bits 7-5) is skewed so counts differ.
     */
    static byte[] wc98(int records, int entryBytes, long seed) {
        Random r = new Random(seed);
        ByteBuffer b = ByteBuffer.allocate(records * entryBytes);
        for (int i = 0; i < records; i++) {
            int at = i * entryBytes;
            b.putInt(at, BASE_TS + i);
            b.putInt(at + 4, r.nextInt(100_000));
            b.putInt(at + 8, r.nextInt(5_000));
            b.putInt(at + 12, r.nextInt(50_000));
            b.put(at + 16, (byte) r.nextInt(8));
            b.put(at + 17, (byte) 0x40);
            b.put(at + 18, (byte) r.nextInt(13));
            int region = Math.min(7, (int) Math.abs(r.nextGaussian() * 2.5));
            b.put(at + 19, (byte) ((region << 5) | r.nextInt(32)));
        }
        return b.array();
    }

    /** Accesses per region of wc98 bytes, as weblog-q1 defines it (only regions with accesses). */
    static Map<String, Long> q1(byte[] data, int entryBytes) {
        Map<String, Long> m = new TreeMap<>();
        for (int at = 0; at + entryBytes <= data.length; at += entryBytes) {
            m.merge(REGIONS[(data[at + 19] & 0xff) >> 5], 1L, Long::sum);
        }
        return m;
    }

    /** Text lines, some containing the word "needle", of varied lengths (some longer than small splits). */
    static byte[] text(int lines, long seed) {
        Random r = new Random(seed);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            int len = r.nextInt(10) == 0 ? 200 + r.nextInt(3000) : r.nextInt(80);
            StringBuilder line = new StringBuilder();
            for (int j = 0; j < len; j++) {
                line.append((char) ('a' + r.nextInt(26)));
            }
            if (r.nextInt(7) == 0) {
                line.insert(r.nextInt(line.length() + 1), "needle");
            }
            sb.append(line).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static long linesContaining(byte[] text, String word) {
        return new String(text, StandardCharsets.US_ASCII).lines().filter(l -> l.contains(word)).count();
    }
}
