package io.smartssd.lsm;

import io.smartssd.device.DeviceException;
import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.WriteHints;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Applies an LSM trace to a device as the hybrid paper's host does (section V-A): each SST file is one
 * data object (named prefix + file), written in chunks whose every write carries the file's level as
 * its hint ({@link WriteHints#forLevel}: level + 1); a deleted file's object is deleted (the paper's
 * TRIM of the file: every page of it becomes invalid at once); a compaction's input reads are read back
 * from the device, and a point lookup reads its bytes (a data block) at its offset. A trivial move
 * changes nothing on the device (the data stays where it was written). With a write-ahead log
 * ({@link #withWal}), each memtable's log is written unhinted before it is flushed and deleted after.
 *
 * <p>The whole trace is checked first (a create of a live file, a delete, move or read of a file that is
 * not live, a delete whose size differs from the create's): a bad trace fails with its line number and
 * reason before anything reaches the device.
 */
public final class Replayer {
    /** Per level: the host's writes and reads the replay sent. */
    public record LevelIo(long writeBytes, long readBytes) {
    }

    /**
     * What a replay did and what the device said: its counters after the replay (counters) and their change
     * during it (counterDelta; for gauges such as free blocks, the change of the gauge).
     */
    public record Result(long creates, long deletes, long moves, long reads, long writeCommands, long writeBytes,
                         long writeNanos, long readCommands, long readBytes, long readNanos, long deleteNanos,
                         Map<Integer, LevelIo> byLevel, Map<String, Long> liveSizes, Map<String, Long> counters,
                         Map<String, Long> counterDelta, long deviceClockNs, long lookups, long lookupBytes,
                         long lookupNanos, long walWriteCommands, long walBytes) {
        /**
         * Average device time of one host I/O command (writes, compaction reads, lookups), ns. Lookups are
         * among the read commands (readCommands, readBytes, readNanos); WAL writes among the writes.
         */
        public double avgIoNanos() {
            long n = writeCommands + readCommands;
            return n == 0 ? 0 : (double) (writeNanos + readNanos) / n;
        }
    }

    private final SmartSsd ssd;
    private final String prefix;
    private final int chunkBytes;
    private boolean wal;

    /** Replays onto ssd, objects named prefix + file, host I/O in commands of at most chunkBytes. */
    public Replayer(SmartSsd ssd, String prefix, int chunkBytes) {
        if (chunkBytes <= 0) {
            throw new IllegalArgumentException("chunk must be > 0 bytes, got " + chunkBytes);
        }
        this.ssd = ssd;
        this.prefix = prefix;
        this.chunkBytes = chunkBytes;
    }

    /**
     * Also replay a write-ahead log: at each flush's end, the log of the memtable it flushed is deleted and
     * the next memtable's, as large as the flush wrote, is written unhinted (no level) in chunk-sized
     * commands. RocksDB's log is not in the trace; this is its size and lifetime, not its timing.
     */
    public Replayer withWal(boolean on) {
        this.wal = on;
        return this;
    }

    /** Checks the trace's file events are consistent (see the class comment); throws at the first bad line. */
    public static void check(List<TraceEvent.Line> lines) throws TraceEvent.BadTraceException {
        Map<String, long[]> live = new HashMap<>(); // file -> {size, line created}
        for (TraceEvent.Line l : lines) {
            TraceEvent e = l.event();
            long[] f = live.get(e.file());
            switch (e.op()) {
                case CREATE -> {
                    if (f != null) {
                        throw new TraceEvent.BadTraceException(l.number(), "create of " + e.file()
                                + ", which is live (created at line " + f[1] + ")");
                    }
                    live.put(e.file(), new long[] {e.bytes(), l.number()});
                }
                case DELETE, MOVE, READ, LOOKUP -> {
                    if (f == null) {
                        throw new TraceEvent.BadTraceException(l.number(), e.op().wire() + " of " + e.file()
                                + ", which is not live (no create before it, or deleted already)");
                    }
                    if (e.op() == TraceEvent.Op.LOOKUP) {
                        if (e.bytes() == 0 || e.offset() + e.bytes() > f[0]) {
                            throw new TraceEvent.BadTraceException(l.number(), "lookup of " + e.file() + " reads bytes "
                                    + e.offset() + ".." + (e.offset() + e.bytes()) + ", outside its " + f[0] + " bytes");
                        }
                    } else if (e.bytes() != f[0]) {
                        throw new TraceEvent.BadTraceException(l.number(), e.op().wire() + " of " + e.file() + " says "
                                + e.bytes() + " bytes; it was created with " + f[0] + " (line " + f[1] + ")");
                    }
                    if (e.op() == TraceEvent.Op.DELETE) {
                        live.remove(e.file());
                    }
                }
                default -> {
                    // job ends: informational
                }
            }
        }
    }

    /**
     * Deletes the files a replay left live (as when the store is dropped), so the trace can run again on
     * the same, now aged, device: a workload's steady state (the paper's durability counts runs of a workload).
     */
    public void dropLive(Result r) {
        for (String f : r.liveSizes().keySet()) {
            ssd.delete(ssd.stat(prefix + f).info().id());
        }
    }

    /**
     * Checks, then applies every event in order. The result counts what follows a {@code phase run} mark
     * (the whole trace when it has none): the load phase before it only sets the device up.
     */
    public Result replay(List<TraceEvent.Line> lines) throws TraceEvent.BadTraceException {
        check(lines);
        DeviceStats before = ssd.stats();
        boolean measuring = lines.stream().noneMatch(l -> l.event().op() == TraceEvent.Op.PHASE && l.event().file().equals("run"));
        // SST contents do not matter to placement or timing: zeros, which a timing-only device
        // (discard_data = 1: no page bytes kept, every read zeros) reads back as written
        ByteBuffer buf = ByteBuffer.allocateDirect(chunkBytes);
        Map<String, long[]> live = new LinkedHashMap<>(); // file -> {object id, size, level}
        Map<Integer, long[]> byLevel = new TreeMap<>();
        long creates = 0;
        long deletes = 0;
        long moves = 0;
        long reads = 0;
        long wCmds = 0;
        long wBytes = 0;
        long wNs = 0;
        long rCmds = 0;
        long rBytes = 0;
        long rNs = 0;
        long tNs = 0;
        long lookups = 0;
        long lBytes = 0;
        long lNs = 0;
        long walCmds = 0;
        long walBytes = 0;
        long walId = -1;
        long walN = 0;
        for (TraceEvent.Line l : lines) {
            TraceEvent e = l.event();
            try {
                switch (e.op()) {
                    case CREATE -> {
                        long id = ssd.createData(prefix + e.file()).id();
                        int hint = WriteHints.forLevel(e.level());
                        for (long off = 0; off < e.bytes(); off += chunkBytes) {
                            int n = (int) Math.min(chunkBytes, e.bytes() - off);
                            buf.clear().limit(n);
                            wNs += ssd.write(id, off, buf, hint).deviceNanos();
                            wCmds++;
                        }
                        wBytes += e.bytes();
                        byLevel.computeIfAbsent(e.level(), k -> new long[2])[0] += e.bytes();
                        live.put(e.file(), new long[] {id, e.bytes(), e.level()});
                        creates++;
                    }
                    case READ -> {
                        long[] f = live.get(e.file());
                        for (long off = 0; off < f[1]; off += chunkBytes) {
                            int n = (int) Math.min(chunkBytes, f[1] - off);
                            buf.clear().limit(n);
                            rNs += ssd.read(f[0], off, buf).deviceNanos();
                            rCmds++;
                        }
                        rBytes += f[1];
                        byLevel.computeIfAbsent((int) f[2], k -> new long[2])[1] += f[1];
                        reads++;
                    }
                    case DELETE -> {
                        // deleting the object is the paper's TRIM of the whole file: its pages become invalid
                        // and GC never copies them; a trim command would add a tombstone program per page
                        tNs += ssd.delete(live.remove(e.file())[0]).deviceNanos();
                        deletes++;
                    }
                    case MOVE -> {
                        live.get(e.file())[2] = e.level();
                        moves++;
                    }
                    case LOOKUP -> {
                        long[] f = live.get(e.file());
                        for (long off = 0; off < e.bytes(); off += chunkBytes) {
                            int n = (int) Math.min(chunkBytes, e.bytes() - off);
                            buf.clear().limit(n);
                            long ns = ssd.read(f[0], e.offset() + off, buf).deviceNanos();
                            rNs += ns;
                            lNs += ns;
                            rCmds++;
                        }
                        rBytes += e.bytes();
                        lBytes += e.bytes();
                        byLevel.computeIfAbsent((int) f[2], k -> new long[2])[1] += e.bytes();
                        lookups++;
                    }
                    case PHASE -> {
                        if (e.file().equals("run") && !measuring) {
                            measuring = true;
                            before = ssd.stats();
                            byLevel.clear();
                            creates = deletes = moves = reads = wCmds = wBytes = wNs = rCmds = rBytes = rNs = tNs = 0;
                            lookups = lBytes = lNs = walCmds = walBytes = 0;
                        }
                    }
                    case FLUSH -> {
                        if (wal) {
                            if (walId >= 0) {
                                tNs += ssd.delete(walId).deviceNanos();
                            }
                            walId = ssd.createData(prefix + "wal-" + (walN++) + ".log").id();
                            for (long off = 0; off < e.bytes(); off += chunkBytes) {
                                int n = (int) Math.min(chunkBytes, e.bytes() - off);
                                buf.clear().limit(n);
                                wNs += ssd.write(walId, off, buf, 0).deviceNanos();
                                wCmds++;
                                walCmds++;
                            }
                            wBytes += e.bytes();
                            walBytes += e.bytes();
                        }
                    }
                    default -> {
                    }
                }
            } catch (DeviceException ex) {
                throw new DeviceException(ex.code(), "trace line " + l.number() + " (" + e.op().wire() + " "
                        + e.file() + "): " + ex.getMessage());
            }
        }
        DeviceStats after = ssd.stats();
        Map<String, Long> delta = new LinkedHashMap<>();
        Map<String, Long> start = before.counters();
        after.counters().forEach((k, v) -> delta.put(k, v - start.getOrDefault(k, 0L)));
        Map<Integer, LevelIo> levels = new TreeMap<>();
        byLevel.forEach((k, v) -> levels.put(k, new LevelIo(v[0], v[1])));
        Map<String, Long> sizes = new TreeMap<>();
        live.forEach((k, v) -> sizes.put(k, v[1]));
        if (walId >= 0) {
            ssd.delete(walId); // the store is closed: its last log goes too
        }
        return new Result(creates, deletes, moves, reads, wCmds, wBytes, wNs, rCmds, rBytes, rNs, tNs, levels, sizes,
                after.counters(), delta, after.deviceClockNanos(), lookups, lBytes, lNs, walCmds, walBytes);
    }
}
