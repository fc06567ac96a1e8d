package io.smartssd.examples.weblog;

import com.google.protobuf.ByteString;
import io.smartssd.hadoop.mapreduce.HostInput;
import io.smartssd.hadoop.mapreduce.HostMapper;
import io.smartssd.proto.Row;
import io.smartssd.proto.Value;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

/**
 * The web-log job's host version of its device mapper (the weblog-q1 and weblog-q2 tasklets): what a
 * split runs when the offload planner leaves it to the host. It reads the records the split owns (those
 * whose first byte lies in it) over the host link in large reads and counts them into the same 8 x 13
 * array as host-optimized's map, then emits exactly the tasklet's rows: Q1 (region, count), Q2 (region,
 * type, count, rank) with the ranks of its top_n, ranked types first, so the job's format and reducer do
 * not care where a split ran.
 */
public class WeblogHostMapper implements HostMapper {
    /** Bytes read from the stream at a time (whole records are counted from it). */
    private static final int BUFFER = 1 << 16;

    @Override
    public void map(HostInput in, Consumer<Row> rows) throws IOException {
        String tasklet = in.mapper().taskletName();
        boolean q2 = tasklet.equals("weblog-q2");
        if (!q2 && !tasklet.equals("weblog-q1")) {
            throw new IOException("WeblogHostMapper stands for weblog-q1 and weblog-q2, not '" + tasklet + "'");
        }
        int e = param(in, "entry_bytes", 20, 20, 65536);
        int topN = q2 ? param(in, "top_n", 3, 1, Wc98.NUM_TYPES) : 0;
        if (in.objectSize() % e != 0) {
            throw new IOException("object size " + in.objectSize() + " is not a multiple of entry_bytes " + e);
        }
        long first = (in.offset() + e - 1) / e * e;
        long end = Math.min(in.objectSize(), (in.offset() + in.length() + e - 1) / e * e);
        long[][] counts = new long[Wc98.NUM_REGIONS][Wc98.NUM_TYPES];
        if (end > first) {
            count(in.open(first, end), end - first, e, q2, counts);
        }
        for (int r = 0; r < Wc98.NUM_REGIONS; r++) {
            if (q2) {
                emitQ2(Wc98.REGIONS.get(r), counts[r], topN, rows);
            } else if (counts[r][0] > 0) {
                rows.accept(Row.newBuilder().addValues(str(Wc98.REGIONS.get(r))).addValues(num(counts[r][0])).build());
            }
        }
    }

    private static void count(InputStream s, long bytes, int e, boolean q2, long[][] counts) throws IOException {
        byte[] buf = new byte[Math.max(e, BUFFER / e * e)];
        try (s) {
            long left = bytes;
            while (left > 0) {
                int want = (int) Math.min(buf.length, left);
                int n = 0;
                while (n < want) {
                    int k = s.read(buf, n, want - n);
                    if (k < 0) {
                        throw new EOFException("the object ended " + left + " bytes early");
                    }
                    n += k;
                }
                for (int at = 0; at < n; at += e) {
                    int region = Wc98.region(buf[at + Wc98.OFF_SERVER]);
                    counts[region][q2 ? Wc98.type(buf[at + Wc98.OFF_TYPE]) : 0]++;
                }
                left -= n;
            }
        }
    }

    /** The tasklet's Q2 rows of one region: its top-N types by count (ties: lower type first), then the others. */
    private static void emitQ2(String region, long[] c, int topN, Consumer<Row> rows) {
        Integer[] order = new Integer[Wc98.NUM_TYPES];
        for (int t = 0; t < order.length; t++) {
            order[t] = t;
        }
        java.util.Arrays.sort(order, (a, b) -> c[a] != c[b] ? Long.compare(c[b], c[a]) : Integer.compare(a, b));
        int[] rank = new int[Wc98.NUM_TYPES];
        for (int k = 0; k < topN; k++) {
            if (c[order[k]] > 0) {
                rank[order[k]] = k + 1;
            }
        }
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < Wc98.NUM_TYPES; k++) {
                int t = pass == 0 ? order[k] : k;
                if (c[t] == 0 || (pass == 0) != (rank[t] > 0)) {
                    continue;
                }
                rows.accept(Row.newBuilder().addValues(str(region)).addValues(str(Wc98.TYPES.get(t))).addValues(num(c[t]))
                        .addValues(num(rank[t])).build());
            }
        }
    }

    private static int param(HostInput in, String key, int dflt, int min, int max) throws IOException {
        String v = in.mapper().runtimeParams().getOrDefault(key, in.mapper().staticParams().get(key));
        if (v == null) {
            return dflt;
        }
        try {
            int x = Integer.parseInt(v.trim());
            if (x >= min && x <= max) {
                return x;
            }
        } catch (NumberFormatException ignored) {
            // below
        }
        throw new IOException(key + " = '" + v + "': out of range [" + min + ", " + max + "]");
    }

    private static Value str(String s) {
        return Value.newBuilder().setS(ByteString.copyFromUtf8(s)).build();
    }

    private static Value num(long v) {
        return Value.newBuilder().setI(v).build();
    }
}
