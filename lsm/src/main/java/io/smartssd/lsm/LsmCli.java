package io.smartssd.lsm;

import io.smartssd.device.DeviceException;
import io.smartssd.device.OpenOptions;
import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/smartssd lsm}: record a RocksDB workload's SST file life cycle into a trace, check a trace,
 * replay it on a device as level-hinted writes and deletes. Usage errors exit 2, failures 1 (a bad trace
 * line names its number and reason).
 */
@Command(name = "lsm", mixinStandardHelpOptions = true, versionProvider = LsmCli.VersionInfo.class,
        description = "LSM traces: record RocksDB's SST file creations and deletions with their levels, replay them"
            + " on a device as level-hinted writes and TRIMs (docs/LSM.md).",
        subcommands = {LsmCli.Record.class, LsmCli.Replay.class, LsmCli.Check.class, LsmCli.Workloads.class})
public final class LsmCli implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    public static void main(String[] args) {
        System.exit(commandLine(System.out, System.err).execute(args));
    }

    /** The command line wired to out and err, with the error handling of every smartssd command line. */
    static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new LsmCli());
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setExecutionExceptionHandler((ex, line, parsed) -> {
            line.getErr().println(line.getCommandName() + ": " + ex.getMessage());
            if (System.getenv("SMARTSSD_DEBUG") != null) {
                ex.printStackTrace(line.getErr());
            }
            return ex instanceof IllegalArgumentException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
        });
        return cl;
    }

    /** A size like 1M, 64K, 4096. */
    static long size(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mul = 1;
        if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
            mul = switch (t.charAt(t.length() - 1)) {
                case 'K' -> 1L << 10;
                case 'M' -> 1L << 20;
                default -> 1L << 30;
            };
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t) * mul;
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("not a size in bytes: '" + s + "' (e.g. 4096, 64K, 1M)");
    }

    @Command(name = "record", mixinStandardHelpOptions = true,
            description = "Run a Table 3 workload on a new RocksDB store and record its SST file events into a trace.")
    static final class Record implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Option(names = "--workload", required = true, description = "fill-random, zipf-write, zipf-update, latest-write, latest-update")
        String workload;
        @Option(names = "--scale", defaultValue = "256", description = "scale 1/N of Table 3's records and RocksDB's"
            + " default sizes (default 1/${DEFAULT-VALUE}; 1..1024)")
        long scale;
        @Option(names = "--records", description = "records N of 1 KiB (default: Table 3's 200,000,000 x scale)")
        Long records;
        @Option(names = "--seed", defaultValue = "1", description = "random seed (default ${DEFAULT-VALUE})")
        long seed;
        @Option(names = {"--out", "-o"}, required = true, description = "the trace file to write")
        Path out;
        @Option(names = "--db", description = "the store's directory (default: a temporary one, deleted after)")
        Path db;
        @Option(names = "--keep-db", description = "keep the store (with --db)")
        boolean keepDb;
        @Option(names = "--write-buffer", description = "memtable size (default 64M x scale)")
        String writeBuffer;
        @Option(names = "--target-file", description = "SST file size (default 64M x scale)")
        String targetFile;
        @Option(names = "--level-base", description = "level 1 size (default 256M x scale)")
        String levelBase;
        @Option(names = "--soft-pending", description = "soft pending-compaction limit (default 64G x scale)")
        String softPending;
        @Option(names = "--hard-pending", description = "hard pending-compaction limit (default 256G x scale)")
        String hardPending;
        @Option(names = "--no-pace", description = "put as fast as RocksDB takes it, pause background work at the end"
            + " (default: wait for flushes and compactions, so compaction keeps up)")
        boolean noPace;
        @Option(names = "--json", description = "one JSON object")
        boolean json;

        @Override
        public Integer call() throws IOException {
            Workload w = Workload.of(workload);
            WorkloadDriver.Sizes d = WorkloadDriver.Sizes.scaled(scale);
            WorkloadDriver.Sizes sizes = new WorkloadDriver.Sizes(or(writeBuffer, d.writeBufferBytes()),
                    or(targetFile, d.targetFileBytes()), or(levelBase, d.levelBaseBytes()), 10,
                    or(softPending, d.softPendingBytes()), or(hardPending, d.hardPendingBytes()), d.blockCacheBytes());
            long n = records != null ? records : WorkloadDriver.TABLE3_RECORDS / scale;
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Path dir = db != null ? db : Files.createTempDirectory("smartssd-lsm-");
            if (db == null) {
                Files.delete(dir); // the driver wants to create it
            }
            Map<String, String> m = new java.util.LinkedHashMap<>();
            m.put("workload", w.cliName());
            m.put("records", Long.toString(n));
            m.put("seed", Long.toString(seed));
            m.put("scale", Long.toString(scale));
            m.put("write_buffer", Long.toString(sizes.writeBufferBytes()));
            m.put("target_file", Long.toString(sizes.targetFileBytes()));
            m.put("level_base", Long.toString(sizes.levelBaseBytes()));
            m.put("multiplier", Integer.toString(sizes.levelMultiplier()));
            m.put("soft_pending", Long.toString(sizes.softPendingBytes()));
            m.put("hard_pending", Long.toString(sizes.hardPendingBytes()));
            m.put("block_cache", Long.toString(sizes.blockCacheBytes()));
            m.put("paced", noPace ? "0" : "1");
            WorkloadDriver.Result r = WorkloadDriver.run(w, n, seed, sizes, !noPace, new TraceMeta(m), dir, out,
                    keepDb && db != null);
            PrintWriter o = spec.commandLine().getOut();
            if (json) {
                o.printf(Locale.ROOT, "{\"workload\":\"%s\",\"paper\":\"%s\",\"records\":%d,\"writes\":%d,\"reads\":%d,"
                        + "\"read_hits\":%d,\"lookups\":%d,\"wall_ms\":%.1f,\"trace\":\"%s\",\"trace_events\":%d,\"levels\":%s}%n",
                        w.cliName(), w.paperName(), r.records(), r.writes(), r.reads(), r.readHits(), r.lookups(),
                        r.wallNanos() / 1e6, esc(out.toString()), r.traceEvents(), r.levelsUsed());
            } else {
                o.printf(Locale.ROOT, "%s (%s): %d writes, %d reads in %.1f s; %d trace events in %s; live levels %s%n",
                        w.cliName(), w.paperName(), r.writes(), r.reads(), r.wallNanos() / 1e9, r.traceEvents(), out,
                        r.levelsUsed());
            }
            return 0;
        }

        private static long or(String size, long dflt) {
            return size == null ? dflt : size(size);
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Check a trace: every line parses, its file events are consistent, and (for a trace recorded"
                + " by lsm record) its tree is shaped like the paper's: levels near their limits, level 1's share of"
                + " the writes near the paper's. Exits 1 on a tree far off, unless --force.")
    static final class Check implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", description = "the trace")
        Path trace;
        @Option(names = "--force", description = "report a tree far from the paper's, but exit 0")
        boolean force;
        @Option(names = "--json", description = "one JSON object")
        boolean json;

        @Override
        public Integer call() throws IOException {
            List<TraceEvent.Line> lines = read(trace);
            Replayer.check(lines);
            long creates = lines.stream().filter(l -> l.event().op() == TraceEvent.Op.CREATE).count();
            long deletes = lines.stream().filter(l -> l.event().op() == TraceEvent.Op.DELETE).count();
            long lookups = lines.stream().filter(l -> l.event().op() == TraceEvent.Op.LOOKUP).count();
            LevelCheck.Result lc = LevelCheck.check(lines, TraceMeta.read(trace));
            PrintWriter o = spec.commandLine().getOut();
            if (json) {
                o.printf(Locale.ROOT, "{\"trace\":\"%s\",\"events\":%d,\"creates\":%d,\"deletes\":%d,\"lookups\":%d,"
                        + "\"live_files\":%d,\"level_check\":%s}%n", esc(trace.toString()), lines.size(), creates, deletes,
                        lookups, creates - deletes, ReplayReport.levelCheckJson(lc));
            } else {
                o.printf("%s: %d events, %d creates, %d deletes, %d lookups, %d files live at the end%n",
                        trace, lines.size(), creates, deletes, lookups, creates - deletes);
                o.println(lc.text());
            }
            if (lc.applicable() && !lc.ok() && !force) {
                spec.commandLine().getErr().println("check: " + trace + ": the tree is far from the paper's (FAR above;"
                        + " docs/LSM.md, the level check); --force to accept it");
                return 1;
            }
            return 0;
        }
    }

    @Command(name = "replay", mixinStandardHelpOptions = true,
            description = "Apply a trace to a device: one object per SST file written with hint level + 1, deleted files"
                + " deleted (a whole-file TRIM), compaction inputs read; prints latency, bytes per level and device counters.")
    static final class Replay implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(index = "0", description = "the trace")
        Path trace;
        @Option(names = "--image", description = "a device image (opened embedded)")
        Path image;
        @Option(names = "--socket", description = "a csdd daemon's socket")
        Path socket;
        @Option(names = "--prefix", defaultValue = "lsm/", description = "object name prefix (default ${DEFAULT-VALUE})")
        String prefix;
        @Option(names = "--chunk", defaultValue = "1M", description = "bytes per host read or write command (default ${DEFAULT-VALUE})")
        String chunk;
        @Option(names = "--set", description = "a device parameter for this session, KEY=VALUE (embedded)")
        Map<String, String> params = new java.util.LinkedHashMap<>();
        @Option(names = "--repeat", defaultValue = "1", description = "run the trace this many times, the store's"
            + " files of one run deleted before the next; report the last (default ${DEFAULT-VALUE})")
        int repeat;
        @Option(names = "--wal", description = "also write each memtable's write-ahead log, unhinted, deleted after its"
            + " flush (as large as the flush; not in the trace)")
        boolean wal;
        @Option(names = "--force", description = "replay a recorded trace whose tree is far from the paper's")
        boolean force;
        @Option(names = "--json", description = "one JSON object")
        boolean json;

        @Override
        public Integer call() throws IOException {
            if (repeat < 1) {
                throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
            }
            if ((image == null) == (socket == null)) {
                throw new IllegalArgumentException("give exactly one of --image and --socket");
            }
            long c = size(chunk);
            if (c > SmartSsd.MAX_INLINE_BYTES) {
                throw new IllegalArgumentException("--chunk must be at most " + SmartSsd.MAX_INLINE_BYTES + " bytes");
            }
            List<TraceEvent.Line> lines = read(trace);
            Replayer.check(lines);
            LevelCheck.Result lc = LevelCheck.check(lines, TraceMeta.read(trace));
            if (lc.applicable() && !lc.ok() && !force) {
                throw new IOException(trace + ": the recorded tree is far from the paper's (lsm check " + trace
                        + " shows where); --force to replay it anyway\n" + lc.text());
            }
            OpenOptions oo = OpenOptions.defaults().background(false);
            params.forEach(oo::param);
            if (image != null && !Files.isRegularFile(image)) {
                throw new IOException(image + ": no device image (make one with bin/smartssd csd format)");
            }
            try (SmartSsd ssd = image != null ? SmartSsd.openEmbedded(image, oo) : SmartSsd.openRemote(socket)) {
                String placement = ssd.identify().placement();
                Replayer rp = new Replayer(ssd, prefix, (int) c).withWal(wal);
                Replayer.Result r = rp.replay(lines);
                for (int i = 1; i < repeat; i++) {
                    rp.dropLive(r); // the store is dropped and the workload runs again on the aged device
                    r = rp.replay(lines);
                }
                PrintWriter o = spec.commandLine().getOut();
                o.println(json ? ReplayReport.json(trace, placement, r, lc) : ReplayReport.text(trace, placement, r));
            } catch (DeviceException e) {
                throw new IOException(e.getMessage(), e);
            }
            return 0;
        }
    }

    @Command(name = "workloads", mixinStandardHelpOptions = true,
            description = "The Table 3 workloads the record command drives.")
    static final class Workloads implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter o = spec.commandLine().getOut();
            for (Workload w : Workload.values()) {
                o.printf("%-14s %-26s %s%n", w.cliName(), w.paperName(),
                        w.updateHeavy() ? "load N/2, then N/2 ops: 50% reads, 50% updates" : "N writes (0:100)");
            }
            return 0;
        }
    }

    static List<TraceEvent.Line> read(Path trace) throws IOException {
        try (Reader r = Files.newBufferedReader(trace, StandardCharsets.UTF_8)) {
            return TraceEvent.readLines(r);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException(trace + ": no such trace file");
        }
    }

    static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** {@code --version}. */
    public static final class VersionInfo implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = LsmCli.class.getPackage().getImplementationVersion();
            return new String[] {"smartssd lsm " + (v != null ? v : "(development build)")};
        }
    }
}
