package io.smartssd.examples.weblog;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * The plain decoder: reads records one after another from a stream and counts accesses per
 * (region, type). No Hadoop, no device: the yardstick the three versions are checked against (and
 * itself checked against native/tests/wc98.py in the tests).
 */
public final class Wc98Reference {
    private Wc98Reference() {
    }

    /** {@code counts[region][type]} over every record of the stream. */
    public static long[][] count(InputStream in, int entryBytes) throws IOException {
        Wc98.checkEntryBytes(entryBytes);
        long[][] counts = new long[Wc98.NUM_REGIONS][Wc98.NUM_TYPES];
        int per = Math.max(1, (1 << 20) / entryBytes);
        byte[] buf = new byte[per * entryBytes];
        long offset = 0;
        while (true) {
            int n = in.readNBytes(buf, 0, buf.length);
            if (n % entryBytes != 0) {
                throw new EOFException("the data ends inside a record: " + (offset + n) + " bytes is not a multiple"
                        + " of entry bytes " + entryBytes);
            }
            for (int off = 0; off < n; off += entryBytes) {
                counts[Wc98.region(buf[off + Wc98.OFF_SERVER])][Wc98.type(buf[off + Wc98.OFF_TYPE])]++;
            }
            offset += n;
            if (n < buf.length) {
                return counts;
            }
        }
    }

    public static WeblogAnswer answer(InputStream in, int entryBytes, WeblogQuery q, int topN) throws IOException {
        return WeblogAnswer.of(q, count(in, entryBytes), topN);
    }
}
