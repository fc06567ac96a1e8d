package io.smartssd.lsm;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** A replay's result as text for people and as one JSON object for benches. */
final class ReplayReport {
    private ReplayReport() {
    }

    static String text(Path trace, String placement, Replayer.Result r) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s on a device with placement %s:%n", trace, placement.isEmpty() ? "-" : placement));
        b.append(String.format(Locale.ROOT, "  %d creates, %d deletes, %d moves, %d compaction input reads; %d files live%n",
                r.creates(), r.deletes(), r.moves(), r.reads(), r.liveSizes().size()));
        b.append(String.format(Locale.ROOT, "  writes: %d commands, %.1f MiB, %.1f us average%n", r.writeCommands(),
                r.writeBytes() / 1048576.0, r.writeCommands() == 0 ? 0 : r.writeNanos() / 1e3 / r.writeCommands()));
        b.append(String.format(Locale.ROOT, "  reads:  %d commands, %.1f MiB, %.1f us average%n", r.readCommands(),
                r.readBytes() / 1048576.0, r.readCommands() == 0 ? 0 : r.readNanos() / 1e3 / r.readCommands()));
        if (r.lookups() > 0) {
            b.append(String.format(Locale.ROOT, "  of them point lookups: %d, %.1f MiB, %.1f us average%n", r.lookups(),
                    r.lookupBytes() / 1048576.0, r.lookupNanos() / 1e3 / r.lookups()));
        }
        if (r.walWriteCommands() > 0) {
            b.append(String.format(Locale.ROOT, "  of the writes write-ahead log: %d commands, %.1f MiB%n",
                    r.walWriteCommands(), r.walBytes() / 1048576.0));
        }
        b.append(String.format(Locale.ROOT, "  average I/O latency %.1f us; device clock %.3f s%n", r.avgIoNanos() / 1e3,
                r.deviceClockNs() / 1e9));
        b.append("  level  written MiB  read MiB\n");
        r.byLevel().forEach((lv, io) -> b.append(String.format(Locale.ROOT, "  %5d  %11.1f  %8.1f%n", lv,
                io.writeBytes() / 1048576.0, io.readBytes() / 1048576.0)));
        b.append("  device counters (change during the replay):\n");
        r.counterDelta().forEach((k, v) -> {
            if (v != 0) {
                b.append("    ").append(k).append(' ').append(v).append('\n');
            }
        });
        return b.toString().stripTrailing();
    }

    static String json(Path trace, String placement, Replayer.Result r) {
        return json(trace, placement, r, null);
    }

    static String json(Path trace, String placement, Replayer.Result r, LevelCheck.Result lc) {
        StringBuilder b = new StringBuilder("{");
        b.append("\"trace\":\"").append(LsmCli.esc(trace.toString())).append("\",");
        b.append("\"placement\":\"").append(LsmCli.esc(placement)).append("\",");
        b.append(String.format(Locale.ROOT, "\"creates\":%d,\"deletes\":%d,\"moves\":%d,\"reads\":%d,\"live_files\":%d,",
                r.creates(), r.deletes(), r.moves(), r.reads(), r.liveSizes().size()));
        b.append(String.format(Locale.ROOT, "\"write_commands\":%d,\"write_bytes\":%d,\"write_ns\":%d,", r.writeCommands(),
                r.writeBytes(), r.writeNanos()));
        b.append(String.format(Locale.ROOT, "\"read_commands\":%d,\"read_bytes\":%d,\"read_ns\":%d,\"delete_ns\":%d,",
                r.readCommands(), r.readBytes(), r.readNanos(), r.deleteNanos()));
        b.append(String.format(Locale.ROOT, "\"lookups\":%d,\"lookup_bytes\":%d,\"lookup_ns\":%d,\"wal_write_commands\":%d,"
                + "\"wal_bytes\":%d,", r.lookups(), r.lookupBytes(), r.lookupNanos(), r.walWriteCommands(), r.walBytes()));
        b.append(String.format(Locale.ROOT, "\"avg_io_ns\":%.1f,\"device_clock_ns\":%d,", r.avgIoNanos(), r.deviceClockNs()));
        if (lc != null) {
            b.append("\"level_check\":").append(levelCheckJson(lc)).append(',');
        }
        b.append("\"levels\":{");
        String sep = "";
        for (Map.Entry<Integer, Replayer.LevelIo> e : r.byLevel().entrySet()) {
            b.append(sep).append(String.format(Locale.ROOT, "\"%d\":{\"write_bytes\":%d,\"read_bytes\":%d}", e.getKey(),
                    e.getValue().writeBytes(), e.getValue().readBytes()));
            sep = ",";
        }
        b.append("},\"counters\":");
        counters(b, r.counters());
        b.append(",\"counters_delta\":");
        counters(b, r.counterDelta());
        return b.append("}").toString();
    }

    static String levelCheckJson(LevelCheck.Result lc) {
        StringBuilder b = new StringBuilder("{");
        b.append(String.format(Locale.ROOT, "\"applicable\":%b,\"ok\":%b,\"deepest\":%d,\"written_bytes\":%d,\"levels\":{",
                lc.applicable(), lc.ok(), lc.shape().deepest(), lc.shape().writtenBytes()));
        String sep = "";
        for (LevelCheck.Level l : lc.shape().levels().values()) {
            b.append(sep).append(String.format(Locale.ROOT, "\"%d\":{\"written_bytes\":%d,\"share_pct\":%.3f,\"final_bytes\":%d,"
                    + "\"limit_bytes\":%d,\"mean_fill\":%.4f,\"max_fill\":%.4f}", l.level(), l.writtenBytes(),
                    lc.shape().share(l.level()), l.finalBytes(), l.limitBytes(), l.meanFill(), l.maxFill()));
            sep = ",";
        }
        b.append("},\"findings\":[");
        sep = "";
        for (LevelCheck.Finding f : lc.findings()) {
            b.append(sep).append(String.format(Locale.ROOT, "{\"what\":\"%s\",\"ours\":\"%s\",\"reference\":\"%s\",\"ok\":%b,"
                    + "\"mark\":\"%s\"}", LsmCli.esc(f.what()), LsmCli.esc(f.ours()), LsmCli.esc(f.reference()), f.ok(), f.mark()));
            sep = ",";
        }
        return b.append("]}").toString();
    }

    private static void counters(StringBuilder b, Map<String, Long> m) {
        b.append('{');
        String sep = "";
        for (Map.Entry<String, Long> e : m.entrySet()) {
            b.append(sep).append('"').append(LsmCli.esc(e.getKey())).append("\":").append(e.getValue());
            sep = ",";
        }
        b.append('}');
    }
}
