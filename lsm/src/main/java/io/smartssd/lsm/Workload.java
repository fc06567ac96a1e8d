package io.smartssd.lsm;

import java.util.Locale;

/**
 * The hybrid paper's Table 3 workloads (section VI-A), as key streams for a RocksDB store:
 * <ul>
 *   <li>{@code fill-random} (Full_Random_Write, DBBench fillrandom): N writes, keys uniform over N;</li>
 *   <li>{@code zipf-write} (Zipf_Random_Write, YCSB): N writes, zipfian (theta 0.99) keys over N, the
 *       popular ones scattered over the key space (YCSB's scrambled zipfian);</li>
 *   <li>{@code latest-write} (Latest_Random_Write, YCSB "latest"): N writes over a growing key space:
 *       half insert the next new key, half update a key chosen zipfian by recency (newest first);</li>
 *   <li>{@code zipf-update} and {@code latest-update} (the UpdateHeavy rows, YCSB workload A): load N/2
 *       keys, then N/2 operations, 50% reads and 50% updates, keys zipfian resp. latest.</li>
 * </ul>
 * Every record is 1 KiB (a 16-byte key, a 1008-byte value), as in Table 3; N is the record count.
 */
public enum Workload {
    FILL_RANDOM("fill-random", "Full_Random_Write", false),
    ZIPF_WRITE("zipf-write", "Zipf_Random_Write", false),
    ZIPF_UPDATE("zipf-update", "Zipf_Random_UpdateHeavy", true),
    LATEST_WRITE("latest-write", "Latest_Random_Write", false),
    LATEST_UPDATE("latest-update", "Latest_Random_UpdateHeavy", true);

    private final String cli;
    private final String paper;
    private final boolean updateHeavy;

    Workload(String cli, String paper, boolean updateHeavy) {
        this.cli = cli;
        this.paper = paper;
        this.updateHeavy = updateHeavy;
    }

    /** The name on the command line, e.g. {@code fill-random}. */
    public String cliName() {
        return cli;
    }

    /** The row of the paper's Table 3. */
    public String paperName() {
        return paper;
    }

    /** 50:50 reads and updates after a load phase (else write-only). */
    public boolean updateHeavy() {
        return updateHeavy;
    }

    public static Workload of(String name) {
        for (Workload w : values()) {
            if (w.cli.equals(name.toLowerCase(Locale.ROOT))) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "' (fill-random, zipf-write, zipf-update,"
                + " latest-write, latest-update)");
    }

    @Override
    public String toString() {
        return cli;
    }
}
