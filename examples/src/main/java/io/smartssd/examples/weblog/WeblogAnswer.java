package io.smartssd.examples.weblog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A query's answer in its one canonical form, the lines native/tests/wc98.py prints:
 * Q1 {@code region TAB count} for regions with count > 0, in region order; Q2
 * {@code region TAB type TAB count TAB rank} for every (region, type) with count > 0, rank 1..topN for
 * the region's top types by count (ties: lower type index first) and 0 otherwise, rows by region, then
 * rank (ranked first), then type. Every version's answer is brought to this form and compared whole.
 */
public record WeblogAnswer(WeblogQuery query, List<String> lines) {
    public static final int DEFAULT_TOP_N = 3;

    public WeblogAnswer {
        lines = List.copyOf(lines);
    }

    /** The answer from full counts ({@code counts[region][type]}): Q1 sums each region's types. */
    public static WeblogAnswer of(WeblogQuery q, long[][] counts, int topN) {
        List<String> out = new ArrayList<>();
        for (int r = 0; r < Wc98.NUM_REGIONS; r++) {
            if (q == WeblogQuery.Q1) {
                long sum = Arrays.stream(counts[r]).sum();
                if (sum > 0) {
                    out.add(Wc98.REGIONS.get(r) + "\t" + sum);
                }
            } else {
                out.addAll(q2Lines(Wc98.REGIONS.get(r), counts[r], topN));
            }
        }
        return new WeblogAnswer(q, out);
    }

    /** Q1 from per-region totals. */
    public static WeblogAnswer q1(long[] regionCounts) {
        long[][] c = new long[Wc98.NUM_REGIONS][Wc98.NUM_TYPES];
        for (int r = 0; r < Wc98.NUM_REGIONS; r++) {
            c[r][0] = regionCounts[r];
        }
        return of(WeblogQuery.Q1, c, DEFAULT_TOP_N);
    }

    /** One region's Q2 rows: its types ranked as the query (and the weblog-q2 tasklet) rank them. */
    public static List<String> q2Lines(String region, long[] typeCounts, int topN) {
        int[] rank = ranks(typeCounts, topN);
        List<String> out = new ArrayList<>();
        for (int k = 1; k <= topN; k++) {
            for (int t = 0; t < typeCounts.length; t++) {
                if (rank[t] == k) {
                    out.add(region + "\t" + Wc98.TYPES.get(t) + "\t" + typeCounts[t] + "\t" + k);
                }
            }
        }
        for (int t = 0; t < typeCounts.length; t++) {
            if (typeCounts[t] > 0 && rank[t] == 0) {
                out.add(region + "\t" + Wc98.TYPES.get(t) + "\t" + typeCounts[t] + "\t0");
            }
        }
        return out;
    }

    /** rank[t] in 1..topN for the top types by count (ties: lower index first), 0 otherwise or if 0. */
    public static int[] ranks(long[] typeCounts, int topN) {
        List<Integer> present = new ArrayList<>();
        for (int t = 0; t < typeCounts.length; t++) {
            if (typeCounts[t] > 0) {
                present.add(t);
            }
        }
        present.sort((a, b) -> typeCounts[a] != typeCounts[b] ? Long.compare(typeCounts[b], typeCounts[a])
                : Integer.compare(a, b));
        int[] rank = new int[typeCounts.length];
        for (int i = 0; i < Math.min(topN, present.size()); i++) {
            rank[present.get(i)] = i + 1;
        }
        return rank;
    }

    /** The lines as one text, newline-terminated (as wc98.py prints them). */
    public String text() {
        return lines.isEmpty() ? "" : String.join("\n", lines) + "\n";
    }

    /** The Q1 total or, for Q2, the sum of the counts: the number of records the answer covers. */
    public long total() {
        long n = 0;
        for (String l : lines) {
            String[] f = l.split("\t");
            n += Long.parseLong(f[query == WeblogQuery.Q1 ? 1 : 2]);
        }
        return n;
    }
}
