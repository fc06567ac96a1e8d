package io.smartssd.lsm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One line of an LSM trace: {@code time_ns,op,file,level,bytes,offset}, CSV with that header line (and
 * {@code #} comment lines; version 1 traces have no offset column). Ops:
 * <ul>
 *   <li>{@code create}: an SST file was written: its name, its level, its size in bytes;</li>
 *   <li>{@code delete}: an SST file was removed (level and size as last seen);</li>
 *   <li>{@code move}: a compaction moved a file to another level without rewriting it (a trivial move):
 *       file, new level, size;</li>
 *   <li>{@code read}: a compaction read the whole file as its input (level and size of the file);</li>
 *   <li>{@code flush} and {@code compaction}: a job ended; file is {@code job-<id>}, level its output
 *       level, bytes what it wrote (informational: a replayer applies creates, deletes and moves);</li>
 *   <li>{@code lookup}: a point lookup read part of a file: bytes at offset (a data block a Get read);</li>
 *   <li>{@code phase}: a phase of the workload starts (file: its name; {@code run}: what a replay measures,
 *       after a load phase).</li>
 * </ul>
 * offset is 0 except for lookups.
 * time_ns is nanoseconds since the recording started (monotonic, non-decreasing).
 */
public record TraceEvent(long timeNs, Op op, String file, int level, long bytes, long offset) {
    public static final String HEADER = "time_ns,op,file,level,bytes,offset";
    /** The header of version 1 traces (no lookups, no offset column): still read. */
    public static final String HEADER_V1 = "time_ns,op,file,level,bytes";

    /** What happened. */
    public enum Op {
        CREATE, DELETE, MOVE, READ, FLUSH, COMPACTION, LOOKUP, PHASE;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Op parse(String s) {
            for (Op o : values()) {
                if (o.wire().equals(s)) {
                    return o;
                }
            }
            return null;
        }
    }

    public TraceEvent {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(file, "file");
    }

    /** An event at offset 0 (everything but a lookup). */
    public TraceEvent(long timeNs, Op op, String file, int level, long bytes) {
        this(timeNs, op, file, level, bytes, 0);
    }

    /** One event and the line of the trace it came from. */
    public record Line(long number, TraceEvent event) {
    }

    /** True for the ops that change which files exist and where (create, delete, move). */
    public boolean isFileOp() {
        return op == Op.CREATE || op == Op.DELETE || op == Op.MOVE;
    }

    /** The CSV line (no newline). */
    public String toCsv() {
        return timeNs + "," + op.wire() + "," + file + "," + level + "," + bytes + "," + offset;
    }

    /** A bad trace line: its number (1-based) and what is wrong with it. */
    public static final class BadTraceException extends IOException {
        private final long line;

        public BadTraceException(long line, String reason) {
            super("trace line " + line + ": " + reason);
            this.line = line;
        }

        public long line() {
            return line;
        }
    }

    /** Every event of a trace, checked line by line (the first bad line fails with its number and why). */
    public static List<TraceEvent> readAll(Reader in) throws IOException {
        List<TraceEvent> out = new ArrayList<>();
        for (Line l : readLines(in)) {
            out.add(l.event());
        }
        return out;
    }

    /** As {@link #readAll}, each event with its line number. */
    public static List<Line> readLines(Reader in) throws IOException {
        List<Line> out = new ArrayList<>();
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        String line;
        long n = 0;
        boolean header = false;
        int fields = 0;
        long lastTime = 0;
        while ((line = r.readLine()) != null) {
            n++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            if (!header) {
                if (!t.equals(HEADER) && !t.equals(HEADER_V1)) {
                    throw new BadTraceException(n, "expected the header '" + HEADER + "' (or version 1's '" + HEADER_V1
                            + "'), got '" + abbreviate(t) + "'");
                }
                header = true;
                fields = t.equals(HEADER) ? 6 : 5;
                continue;
            }
            TraceEvent e = parse(t, n, fields);
            if (e.timeNs() < lastTime) {
                throw new BadTraceException(n, "time_ns " + e.timeNs() + " is before the previous line's " + lastTime);
            }
            lastTime = e.timeNs();
            out.add(new Line(n, e));
        }
        if (!header) {
            throw new BadTraceException(n, "no header line '" + HEADER + "': not a trace");
        }
        return out;
    }

    /** One data line of a current trace (6 fields); n is its line number for messages. */
    public static TraceEvent parse(String line, long n) throws BadTraceException {
        return parse(line, n, 6);
    }

    /** One data line of fields fields (5: version 1, 6: current); n is its line number for messages. */
    static TraceEvent parse(String line, long n, int fields) throws BadTraceException {
        String[] f = line.split(",", -1);
        if (f.length != fields) {
            throw new BadTraceException(n, "expected " + fields + " comma-separated fields ("
                    + (fields == 6 ? HEADER : HEADER_V1) + "), got " + f.length + ": '" + abbreviate(line) + "'");
        }
        long time = number(f[0], "time_ns", n);
        Op op = Op.parse(f[1].strip());
        if (op == null) {
            throw new BadTraceException(n, "unknown op '" + abbreviate(f[1]) + "' (create, delete, move, read, flush, compaction, lookup, phase)");
        }
        String file = f[2].strip();
        if (file.isEmpty()) {
            throw new BadTraceException(n, "empty file name");
        }
        if (file.contains("/")) {
            throw new BadTraceException(n, "file '" + abbreviate(file) + "' is a path: the trace names files without directories");
        }
        long level = number(f[3], "level", n);
        if (level > 1000) {
            throw new BadTraceException(n, "level " + level + " is not an LSM level (0..1000)");
        }
        long bytes = number(f[4], "bytes", n);
        long offset = fields == 6 ? number(f[5], "offset", n) : 0;
        if (op == Op.LOOKUP && fields == 5) {
            throw new BadTraceException(n, "a lookup needs the offset column (header '" + HEADER + "')");
        }
        if (op != Op.LOOKUP && offset != 0) {
            throw new BadTraceException(n, "offset " + offset + " on a " + op.wire() + " (only lookups have an offset)");
        }
        return new TraceEvent(time, op, file, (int) level, bytes, offset);
    }

    private static long number(String s, String field, long n) throws BadTraceException {
        String t = s.strip();
        try {
            long v = Long.parseLong(t);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new BadTraceException(n, field + " must be an integer >= 0, got '" + abbreviate(t) + "'");
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
