package io.smartssd.device;

/**
 * Placement hints of {@link SmartSsd#write(long, long, java.nio.ByteBuffer, int)}: the lifetime class of
 * the data a write carries ({@code WriteObject.hint} of the protocol). 0 is no hint; an LSM store states
 * a file's level as level + 1 (hybrid paper, section V-A: the host tells the device each SSTable's level
 * through an extended write command), and any other host states its own classes the same way (smaller =
 * shorter-lived). A device without a placement policy accepts and ignores hints.
 */
public final class WriteHints {
    /** No hint: the device places the data as it would without one. */
    public static final int NONE = 0;
    /** The largest hint: the device keeps a page's hint in one byte of its out-of-band record. */
    public static final int MAX = 255;

    private WriteHints() {
    }

    /** The hint of an LSM level (0 = the memtable flushes): level + 1. */
    public static int forLevel(int level) {
        if (level < 0 || level >= MAX) {
            throw new IllegalArgumentException("an LSM level is 0.." + (MAX - 1) + ", got " + level);
        }
        return level + 1;
    }

    /** The LSM level a hint stands for, or -1 for {@link #NONE}. */
    public static int level(int hint) {
        check(hint);
        return hint - 1;
    }

    static void check(int hint) {
        if (hint < 0 || hint > MAX) {
            throw new IllegalArgumentException("a write hint is 0.." + MAX + " (0 = none), got " + hint);
        }
    }
}
