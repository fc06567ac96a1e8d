package io.smartssd.examples.weblog;

import io.smartssd.device.SmartSsd;
import io.smartssd.examples.cli.Cli;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The Java side of {@code bin/smartssd} (picocli): {@code weblog} (one query, one version),
 * {@code weblog gen} (WorldCup98-format data), {@code grep} (CLF lines as a DeviceJob and a host job),
 * the demo's and the bench's {@code sweep}, and {@code completion} (a bash completion script for
 * {@code bin/smartssd}). Every command and subcommand has {@code --help}; a usage error exits 2 with
 * the usage, a failure exits 1 with its message. The launcher's own commands (demo, test, csd, ...)
 * are listed so completion knows them; bin/smartssd runs those itself.
 */
@Command(name = "smartssd", mixinStandardHelpOptions = true, versionProvider = Cli.VersionInfo.class,
        description = "Run the data-heavy first stage of Hadoop and Spark jobs inside an emulated Smart SSD.",
        subcommands = {WeblogCli.Weblog.class, WeblogCli.Grep.class, WeblogCli.Sweep.class,
            WeblogCli.Launcher.Demo.class, WeblogCli.Launcher.Test.class, WeblogCli.Launcher.Build.class,
            WeblogCli.Launcher.Csd.class, WeblogCli.Launcher.Hadoop.class, WeblogCli.Launcher.Bench.class,
            WeblogCli.Launcher.Plot.class, WeblogCli.Launcher.Deps.class})
public final class WeblogCli implements Callable<Integer> {
    private static final String DEMO_DEVICE = "demo";

    private final PrintStream out;
    private final PrintStream err;
    private final boolean tty = System.console() != null;
    @Spec
    CommandSpec spec;

    WeblogCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(out);
        return 0;
    }

    /** The command line, wired to out/err: usage errors exit 2, failures 1 with their message ({@link Cli}). */
    static CommandLine commandLine(PrintStream out, PrintStream err) {
        WeblogCli cli = new WeblogCli(out, err);
        CommandLine cl = new CommandLine(cli, new Factory(cli));
        cl.addSubcommand("completion", new AutoComplete.GenerateCompletion());
        return Cli.configure(cl, out, err);
    }

    public static void main(String[] argv) {
        int rc = commandLine(System.out, System.err).execute(argv);
        try {
            FileSystem.closeAll();   // releases (and flushes) embedded devices
        } catch (IOException e) {
            System.err.println("smartssd: closing: " + e.getMessage());
            rc = rc == 0 ? 1 : rc;
        }
        System.exit(rc);
    }

    /** Subcommands reach the CLI's streams and helpers through their enclosing instance. */
    private record Factory(WeblogCli cli) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            for (java.lang.reflect.Constructor<?> c : cls.getDeclaredConstructors()) {
                if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == WeblogCli.class) {
                    c.setAccessible(true);
                    return cls.cast(c.newInstance(cli));
                }
            }
            return CommandLine.defaultFactory().create(cls);
        }
    }

    /** Options every command that touches a device shares. */
    static final class DeviceOptions {
        @Option(names = "--image", paramLabel = "IMG",
                description = "the embedded device image of every smartssd://ID/... path given")
        String image;
        @Option(names = "--maps", paramLabel = "N", defaultValue = "2", description = "parallel map tasks (default: ${DEFAULT-VALUE})")
        int maps;
        @Option(names = "--conf", paramLabel = "KEY=VALUE", description = "a Hadoop configuration entry (repeatable)")
        List<String> conf = new ArrayList<>();
    }

    // ------------------------------------------------------------------ configuration

    /** LocalJobRunner conf; {@code --image} becomes the image of every smartssd:// device named. */
    static Configuration conf(DeviceOptions a, String... uris) {
        Configuration conf = WeblogJobs.localConf(a.maps);
        for (String kv : a.conf) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--conf " + kv + ": expected KEY=VALUE");
            }
            conf.set(kv.substring(0, eq), kv.substring(eq + 1));
        }
        String image = a.image;
        for (String u : uris) {
            if (u == null || !u.startsWith("smartssd://")) {
                continue;
            }
            String id = URI.create(u).getAuthority();
            if (id == null) {
                throw new IllegalArgumentException(u + ": a smartssd:// URI names its device: smartssd://ID/PATH");
            }
            String key = "fs.smartssd.device." + id + ".image";
            if (image != null) {
                conf.set(key, java.nio.file.Path.of(image).toAbsolutePath().toString());
            } else if (conf.get(key) == null && conf.get("fs.smartssd.device." + id + ".socket") == null) {
                throw new IllegalArgumentException(u + ": give the device image with --image IMG (or --conf " + key
                        + "=IMG)");
            }
        }
        return conf;
    }

    /** A local path becomes a file: URI, so it never resolves against another default FS. */
    static Path path(String s) {
        if (s.contains("://")) {
            return new Path(s);
        }
        return new Path(java.nio.file.Path.of(s).toAbsolutePath().toUri());
    }

    // ------------------------------------------------------------------ gen

    @Command(name = "gen", mixinStandardHelpOptions = true, versionProvider = Cli.VersionInfo.class,
            description = "Write WorldCup98-format records (binary, padded to --entry-bytes) or Common Log Format text.")
    static final class Gen implements Callable<Integer> {
        private final WeblogCli cli;
        @Option(names = "--output", required = true, paramLabel = "PATH|smartssd://ID/NAME", description = "where to write")
        String output;
        @Option(names = "--records", paramLabel = "N", description = "how many requests (or give --size)")
        Long records;
        @Option(names = "--size", paramLabel = "S", description = "about this many bytes, e.g. 512M, 1G")
        String size;
        @Option(names = "--entry-bytes", paramLabel = "B", defaultValue = "20", description = "binary record size (default: ${DEFAULT-VALUE})")
        int entryBytes;
        @Option(names = "--seed", defaultValue = "1998", description = "generator seed (default: ${DEFAULT-VALUE})")
        long seed;
        @Option(names = "--mix", defaultValue = "realistic", paramLabel = "realistic|uniform",
                description = "request mix (default: ${DEFAULT-VALUE})")
        String mix;
        @Option(names = "--format", defaultValue = "binary", paramLabel = "binary|clf", description = "default: ${DEFAULT-VALUE}")
        String format;
        @Mixin
        DeviceOptions device;

        Gen(WeblogCli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws IOException {
            if (!format.equals("binary") && !format.equals("clf")) {
                throw new IllegalArgumentException("--format " + format + ": binary or clf");
            }
            int perRecord = format.equals("clf") ? 70 : entryBytes;
            long n;
            if (records != null) {
                n = records;
            } else if (size != null) {
                n = Math.max(1, Sizes.bytes(size) / perRecord);
            } else {
                throw new IllegalArgumentException("give --records N or --size S");
            }
            Wc98Generator g = new Wc98Generator(seed, mix(mix));
            Configuration conf = conf(device, output);
            Path p = path(output);
            long t0 = System.nanoTime();
            long bytes;
            try (OutputStream os = p.getFileSystem(conf).create(p, true)) {
                Progress pr = cli.new Progress("generate " + p.getName(), n * perRecord);
                bytes = format.equals("clf") ? g.writeClf(os, n, pr::bytes) : g.writeBinary(os, n, entryBytes, pr::bytes);
                pr.done();
            }
            cli.err.printf(Locale.ROOT, "wrote %,d records (%,d bytes) to %s in %.1f s%n", n, bytes, p,
                    (System.nanoTime() - t0) / 1e9);
            return 0;
        }
    }

    static Wc98Generator.Mix mix(String s) {
        try {
            return Wc98Generator.Mix.valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--mix " + s + ": realistic or uniform");
        }
    }

    // ------------------------------------------------------------------ weblog

    @Command(name = "weblog", subcommands = Gen.class,
            description = {"One web-log query (the Smart SSD paper's Q1 or Q2) in one version over WorldCup98 records.",
                "A local --input runs the device versions on an embedded device it is loaded onto first."})
    static final class Weblog implements Callable<Integer> {
        private final WeblogCli cli;
        // required, but checked in call(): picocli would demand them of `weblog gen` too
        @Option(names = "--input", paramLabel = "PATH|smartssd://ID/PATH", description = "the records (required)")
        String input;
        @Option(names = "--entry-bytes", paramLabel = "B", description = "bytes per record, 20 or padded (required)")
        Integer entryBytes;
        @Option(names = "--query", paramLabel = "q1|q2", description = "q1: requests per region; q2: top types per region (required)")
        String query;
        @Option(names = "--version", paramLabel = "V",
                description = "host-normal, host-optimized, device or spark-device (required)")
        String version;
        @Spec
        CommandSpec spec;
        @Option(names = "--top-n", defaultValue = "3", paramLabel = "N", description = "q2's types per region (default: ${DEFAULT-VALUE})")
        int topN;
        @Option(names = "--json", description = "print one JSON object")
        boolean json;
        @Option(names = "--offload", paramLabel = "device|host|auto",
                description = "device version: where its splits run (smartssd.offload; default device); host and auto"
                        + " print the plan split by split")
        String offload;
        @Option(names = "--tenants", defaultValue = "0", paramLabel = "N",
                description = "device version: N other tenants send weblog-q1 requests over the input to the same"
                        + " device throughout (a busy device; default: ${DEFAULT-VALUE})")
        int tenants;
        @Option(names = "--repeat", defaultValue = "1", paramLabel = "N",
                description = "run it N times in this JVM (the answer once, each wall time and their median; "
                        + "the first run pays the JVM's warm-up)")
        int repeat;
        @Mixin
        DeviceOptions device;
        // not mixinStandardHelpOptions: its --version would take this command's --version
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        Weblog(WeblogCli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            List<String> missing = new ArrayList<>();
            if (input == null) missing.add("--input");
            if (entryBytes == null) missing.add("--entry-bytes");
            if (query == null) missing.add("--query");
            if (version == null) missing.add("--version");
            if (!missing.isEmpty()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Missing required options: "
                        + String.join(", ", missing));
            }
            if (repeat < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--repeat " + repeat + ": need at least 1");
            }
            WeblogQuery q = WeblogQuery.parse(query);
            Version v = Version.parse(version);
            if (offload != null) {
                if (v != Version.DEVICE) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--offload " + offload
                            + ": only the device version is planned split by split");
                }
                io.smartssd.device.offload.OffloadMode.parse("--offload", offload);   // a bad value: usage error
                device.conf.add("smartssd.offload=" + offload);
            }
            if (tenants < 0 || (tenants > 0 && v != Version.DEVICE)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--tenants " + tenants
                        + ": 0 or more, with --version device");
            }
            if (v == Version.DEVICE || v == Version.SPARK_DEVICE) {
                try (LocalOnDevice in = LocalOnDevice.load(cli, device, input);
                     Tenants others = new Tenants(conf(device, in.uri()), path(in.uri()), entryBytes, tenants)) {
                    return cli.weblogOn(device, in.uri(), entryBytes, q, v, topN, json, repeat);
                }
            }
            return cli.weblogOn(device, input, entryBytes, q, v, topN, json, repeat);
        }
    }

    /**
     * A local input of a device version, put on an embedded device first as the demo does: on the image
     * --image names (formatted if missing, kept, so the next run finds the object there), or on a scratch
     * image in $TMPDIR deleted on {@link #close()} (and by a shutdown hook on Ctrl-C). A smartssd:// input
     * is used as it is.
     */
    static final class LocalOnDevice implements AutoCloseable {
        private final String uri;
        private final java.nio.file.Path scratch;
        private final Thread removeAtExit;

        private LocalOnDevice(String uri, java.nio.file.Path scratch, Thread removeAtExit) {
            this.uri = uri;
            this.scratch = scratch;
            this.removeAtExit = removeAtExit;
        }

        static LocalOnDevice load(WeblogCli cli, DeviceOptions device, String input) throws IOException {
            if (input.startsWith("smartssd://")) {
                return new LocalOnDevice(input, null, null);
            }
            java.nio.file.Path local = java.nio.file.Path.of(input).toAbsolutePath();
            if (!Files.isRegularFile(local)) {
                throw new IllegalArgumentException("--input " + input + ": no such file");
            }
            java.nio.file.Path scratch = null;
            Thread removeAtExit = null;
            java.nio.file.Path image;
            if (device.image != null) {
                image = java.nio.file.Path.of(device.image).toAbsolutePath();
            } else {
                scratch = Files.createTempDirectory(scratchParent(), "smartssd-weblog-");
                image = scratch.resolve("dev.img");
                java.nio.file.Path dir = scratch;
                removeAtExit = new Thread(() -> deleteQuietly(dir), "smartssd scratch image");
                Runtime.getRuntime().addShutdownHook(removeAtExit);   // also on Ctrl-C
                cli.err.println("scratch device image " + image + " (deleted afterwards; --image IMG keeps one)");
            }
            LocalOnDevice l = new LocalOnDevice(null, scratch, removeAtExit);
            try {
                String uri = cli.loadOntoDevice(local, image);
                device.image = image.toString();
                return new LocalOnDevice(uri, scratch, removeAtExit);
            } catch (IOException | RuntimeException e) {
                l.close();
                throw e;
            }
        }

        String uri() {
            return uri;
        }

        @Override
        public void close() throws IOException {
            if (scratch != null) {
                FileSystem.closeAll();   // the device handle holds the image's lock
                deleteQuietly(scratch);
                Runtime.getRuntime().removeShutdownHook(removeAtExit);
            }
        }
    }

    /** Where scratch images go: $TMPDIR if set, else java.io.tmpdir. */
    static java.nio.file.Path scratchParent() throws IOException {
        String tmp = System.getenv("TMPDIR");
        java.nio.file.Path dir = java.nio.file.Path.of(tmp != null && !tmp.isEmpty() ? tmp : System.getProperty("java.io.tmpdir"));
        Files.createDirectories(dir);
        return dir;
    }

    private static void deleteQuietly(java.nio.file.Path dir) {
        try {
            WeblogJobs.deleteTree(dir);
        } catch (IOException e) {
            System.err.println("smartssd: could not delete " + dir + ": " + e.getMessage());
        }
    }

    /**
     * Copies a local file to smartssd://local/NAME on the image (formatted when it does not exist yet,
     * large enough for the file); an object of the same name and size already there is reused.
     */
    private String loadOntoDevice(java.nio.file.Path local, java.nio.file.Path image) throws IOException {
        long size = Files.size(local);
        if (!Files.exists(image)) {
            long capacity = Math.max(64L << 20, size * 5 / 4 + (32L << 20));
            err.printf(Locale.ROOT, "formatting %s: %,d MiB device, preset smartssd-paper%n", image, capacity >> 20);
            SmartSsd.format(image, capacity, "smartssd-paper");
        }
        Configuration conf = WeblogJobs.localConf(1);
        conf.set("fs.smartssd.device.local.image", image.toString());
        Path dst = new Path("smartssd://local/" + local.getFileName());
        FileSystem fs = dst.getFileSystem(conf);
        if (fs.exists(dst) && fs.getFileStatus(dst).getLen() == size) {
            return dst.toString();
        }
        Progress pr = new Progress("load " + local.getFileName(), size);
        try (InputStream in = Files.newInputStream(local); OutputStream os = fs.create(dst, true)) {
            byte[] buf = new byte[1 << 20];
            for (int n; (n = in.read(buf)) > 0; ) {
                os.write(buf, 0, n);
                pr.bytes(n);
            }
        }
        pr.done();
        return dst.toString();
    }

    private int weblogOn(DeviceOptions a, String input, int entry, WeblogQuery q, Version v, int topN, boolean json,
                         int repeat) throws Exception {
        Configuration conf = conf(a, input);
        RunResult r = null;
        long[] walls = new long[repeat];
        for (int i = 0; i < repeat; i++) {
            Progress pr = new Progress(q.shortName() + " " + v.label(), 0);
            RunResult ri = WeblogJobs.run(conf, v, q, path(input), entry, topN, pr::fraction);
            pr.done();
            if (r != null && !ri.answer().equals(r.answer())) {
                throw new IOException("run " + (i + 1) + " answered differently from run 1:\n" + ri.answer().text()
                        + "run 1:\n" + r.answer().text());
            }
            r = ri;
            walls[i] = ri.wallNanos();
            if (!json) {
                err.printf(Locale.ROOT, "%s %s: %,d bytes in %.3f s wall, device %s, %,d bytes over the host link%n",
                        q.shortName(), v.label(), r.inputBytes(), r.wallNanos() / 1e9,
                        r.deviceNanos() < 0 ? "n/a (not a device)" : String.format(Locale.ROOT, "%.1f ms", r.deviceNanos() / 1e6),
                        r.linkBytes());
                if (r.offload() != null) {
                    err.println(r.offload().summary());
                    r.offload().lines().forEach(l -> err.println("  " + l));
                }
            }
        }
        if (json) {
            out.println(r.toJson());
        } else {
            out.print(r.answer().text());
        }
        if (repeat > 1) {
            long[] sorted = walls.clone();
            java.util.Arrays.sort(sorted);
            err.printf(Locale.ROOT, "%s %s: %d runs, wall median %.3f s, min %.3f s, max %.3f s%n", q.shortName(),
                    v.label(), repeat, sorted[repeat / 2] / 1e9, sorted[0] / 1e9, sorted[repeat - 1] / 1e9);
        }
        return 0;
    }

    // ------------------------------------------------------------------ sweep

    /**
     * The demo and the bench: one dataset per entry size on an embedded device (the same records in
     * each, padded, as in the paper), every query in every version, each answer checked against the
     * plain decoder; one JSON line per run in --results.
     */
    @Command(name = "sweep", hidden = true,
            description = "Every query in every version at each entry size, answers checked (the demo's and bench's engine).")
    static final class Sweep implements Callable<Integer> {
        private final WeblogCli cli;
        @Option(names = "--image", required = true, paramLabel = "IMG")
        String image;
        @Option(names = "--results", required = true, paramLabel = "FILE", description = "one JSON line per run")
        String results;
        @Option(names = "--size", defaultValue = "256M", paramLabel = "S")
        String size;
        @Option(names = "--entry-bytes", defaultValue = "32,64,128,256", split = ",", paramLabel = "B")
        List<Integer> entries;
        @Option(names = "--query", defaultValue = "q1,q2", split = ",")
        List<String> queries;
        @Option(names = "--version", defaultValue = "host-normal,host-optimized,device", split = ",")
        List<String> versions;
        @Option(names = "--seed", defaultValue = "1998")
        long seed;
        @Option(names = "--maps", defaultValue = "2")
        int maps;
        @Option(names = "--top-n", defaultValue = "3")
        int topN;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
        boolean help;

        Sweep(WeblogCli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            return cli.sweep(this);
        }
    }

    private int sweep(Sweep a) throws Exception {
        java.nio.file.Path image = java.nio.file.Path.of(a.image).toAbsolutePath();
        java.nio.file.Path results = java.nio.file.Path.of(a.results);
        List<Integer> entries = a.entries;
        entries.forEach(Wc98::checkEntryBytes);
        List<WeblogQuery> queries = a.queries.stream().map(WeblogQuery::parse).toList();
        List<Version> versions = a.versions.stream().map(Version::parse).toList();
        long size = Sizes.bytes(a.size);
        int maxEntry = entries.stream().max(Integer::compare).orElseThrow();
        long records = Math.max(1, size / maxEntry);
        long seed = a.seed;
        int topN = a.topN;
        long need = entries.stream().mapToLong(e -> e * records).sum();
        long capacity = Math.max(256L << 20, need * 5 / 4 + (128L << 20));
        if (Files.exists(image)) {
            long has;
            try (SmartSsd s = SmartSsd.openEmbedded(image)) {
                has = s.identify().capacityBytes();
            }
            if (has < capacity) {   // the datasets are regenerated from the seed: nothing is lost
                err.printf(Locale.ROOT, "%s holds %,d MiB; these datasets need %,d MiB: replacing it%n", image,
                        has >> 20, capacity >> 20);
                Files.delete(image);
            }
        }
        if (!Files.exists(image)) {
            err.printf(Locale.ROOT, "formatting %s: %,d MiB device, preset smartssd-paper%n", image, capacity >> 20);
            Files.createDirectories(image.toAbsolutePath().getParent());
            SmartSsd.format(image, capacity, "smartssd-paper");
        }
        Configuration conf = WeblogJobs.localConf(a.maps);
        conf.set("fs.smartssd.device." + DEMO_DEVICE + ".image", image.toString());
        Files.deleteIfExists(results);
        warmUp(conf, versions, queries, topN);
        int mismatches = 0;
        for (int entry : entries) {
            Path data = new Path("smartssd://" + DEMO_DEVICE + "/wc98/" + records + "r-" + entry + "B-seed" + seed + ".bin");
            FileSystem fs = data.getFileSystem(conf);
            if (!fs.exists(data) || fs.getFileStatus(data).getLen() != records * entry) {
                deleteOtherDatasets(fs, entry, data);
                Progress pr = new Progress(String.format(Locale.ROOT, "generate %3d B", entry), records * entry);
                try (OutputStream os = fs.create(data, true)) {
                    new Wc98Generator(seed, Wc98Generator.Mix.REALISTIC).writeBinary(os, records, entry, pr::bytes);
                }
                pr.done();
            }
            Progress pr = new Progress(String.format(Locale.ROOT, "decode   %3d B", entry), records * entry);
            long[][] truth;
            try (InputStream in = new CountingInput(fs.open(data), pr)) {
                truth = Wc98Reference.count(in, entry);
            }
            pr.done();
            for (WeblogQuery q : queries) {
                WeblogAnswer expected = WeblogAnswer.of(q, truth, topN);
                for (Version v : versions) {
                    Progress p = new Progress(String.format(Locale.ROOT, "%s %-14s %3d B", q.shortName(), v.label(),
                            entry), 0);
                    RunResult r = WeblogJobs.run(conf, v, q, data, entry, topN, p::fraction);
                    boolean ok = r.answer().equals(expected);
                    p.done(String.format(Locale.ROOT, "%6.2f s wall, device %8.1f ms, link %,13d B  %s",
                            r.wallNanos() / 1e9, r.deviceNanos() / 1e6, r.linkBytes(),
                            ok ? "answer = decoder's" : "MISMATCH"));
                    if (!ok) {
                        mismatches++;
                        err.println("expected:\n" + expected.text() + "got:\n" + r.answer().text());
                    }
                    String json = r.toJson();
                    json = json.substring(0, json.length() - 1) + ",\"records\":" + records
                            + ",\"matches_decoder\":" + ok + "}";
                    Files.writeString(results, json + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                }
            }
        }
        if (mismatches > 0) {
            err.println(mismatches + " answers differ from the decoder's");
            return 1;
        }
        return 0;
    }

    /**
     * Runs every version once on a small dataset first, so no measured run pays for loading Hadoop's
     * classes, JIT compilation or LocalJobRunner's first-job setup (several seconds in a fresh JVM).
     */
    private void warmUp(Configuration conf, List<Version> versions, List<WeblogQuery> queries, int topN)
            throws Exception {
        Path warm = new Path("smartssd://" + DEMO_DEVICE + "/wc98/warm-up.bin");
        FileSystem fs = warm.getFileSystem(conf);
        if (!fs.exists(warm)) {
            try (OutputStream os = fs.create(warm, true)) {
                new Wc98Generator(1, Wc98Generator.Mix.REALISTIC).writeBinary(os, 50_000, 20, null);
            }
        }
        Progress pr = new Progress("warm-up (not measured)", versions.size() * queries.size());
        int n = 0;
        for (WeblogQuery q : queries) {
            for (Version v : versions) {
                WeblogJobs.run(conf, v, q, warm, 20, topN, null);
                pr.bytes(++n);
            }
        }
        pr.done();
    }

    /** Keeps the device from filling up with datasets of earlier sizes or seeds. */
    private static void deleteOtherDatasets(FileSystem fs, int entry, Path keep) throws IOException {
        Path dir = keep.getParent();
        if (!fs.exists(dir)) {
            return;
        }
        for (var st : fs.listStatus(dir)) {
            if (st.getPath().getName().contains("r-" + entry + "B-")) {
                fs.delete(st.getPath(), false);
            }
        }
    }

    /** An InputStream that reports the bytes read to a Progress. */
    private static final class CountingInput extends java.io.FilterInputStream {
        private final Progress pr;
        private long n;

        CountingInput(InputStream in, Progress pr) {
            super(in);
            this.pr = pr;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int r = super.read(b, off, len);
            if (r > 0) {
                n += r;
                pr.bytes(n);
            }
            return r;
        }
    }

    // ------------------------------------------------------------------ grep

    @Command(name = "grep", mixinStandardHelpOptions = true, versionProvider = Cli.VersionInfo.class,
            description = {"Count Common Log Format lines holding a pattern, as a DeviceJob (the grep tasklet) and as a",
                "host MapReduce job, and compare them. Without --input, a log is generated on the image."})
    static final class Grep implements Callable<Integer> {
        private final WeblogCli cli;
        @Option(names = "--input", paramLabel = "PATH|smartssd://ID/PATH",
                description = "a CLF log on a device, or a local one (put on the --image device, or a scratch one, first)")
        String input;
        @Option(names = "--pattern", defaultValue = "/images/", description = "a literal (default: ${DEFAULT-VALUE})")
        String pattern;
        @Option(names = "--size", defaultValue = "64M", paramLabel = "S", description = "generated log size (default: ${DEFAULT-VALUE})")
        String size;
        @Option(names = "--seed", defaultValue = "1998")
        long seed;
        @Option(names = "--json", description = "print one JSON object")
        boolean json;
        @Option(names = "--tasklet", defaultValue = "grep", paramLabel = "NAME",
                description = "the device's tasklet: grep, or grep2 (two-stage, pages scanned as they land; docs/2PM.md) "
                        + "(default: ${DEFAULT-VALUE})")
        String tasklet;
        @Mixin
        DeviceOptions device;

        Grep(WeblogCli cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() throws Exception {
            if (!tasklet.equals("grep") && !tasklet.equals("grep2")) {
                throw new IllegalArgumentException("--tasklet must be grep or grep2, not " + tasklet);
            }
            return GrepExample.run(cli, device, input, pattern, Sizes.bytes(size), seed, json, tasklet);
        }
    }

    /** bin/smartssd's own commands, here so that completion offers them. */
    static final class Launcher {
        private Launcher() {
        }

        abstract static class Placeholder implements Callable<Integer> {
            @Spec
            CommandSpec spec;
            @Parameters(hidden = true)
            List<String> args;

            @Override
            public Integer call() {
                spec.commandLine().getErr().println(spec.name() + ": run it as `bin/smartssd "
                        + spec.qualifiedName(" ").substring(spec.root().name().length() + 1) + "`");
                return CommandLine.ExitCode.USAGE;
            }
        }

        @Command(name = "demo", description = "the main job: web-log analysis on an embedded device, every version")
        static final class Demo extends Placeholder {
        }

        @Command(name = "test", description = "build everything and run every test")
        static final class Test extends Placeholder {
        }

        @Command(name = "build", description = "build everything without running tests")
        static final class Build extends Placeholder {
        }

        @Command(name = "csd", description = "the device CLI (format, put, get, ls, rm, mv, run, stats, identify, check, serve, top)")
        static final class Csd extends Placeholder {
        }

        @Command(name = "hadoop", description = "Hadoop tools on the smartssd:// FileSystem: fs, weblog-q1, grep",
                subcommands = {Hadoop.Fs.class, Hadoop.WeblogQ1.class, Hadoop.Grep.class})
        static final class Hadoop extends Placeholder {
            @Command(name = "fs", description = "Hadoop's FsShell")
            static final class Fs extends Placeholder {
            }

            @Command(name = "weblog-q1", description = "accesses per region as a DeviceJob (ToolRunner tool; --help)")
            static final class WeblogQ1 extends Placeholder {
            }

            @Command(name = "grep", description = "lines holding a pattern as a DeviceJob (ToolRunner tool; --help)")
            static final class Grep extends Placeholder {
            }
        }

        @Command(name = "bench", description = "a benchmark: writes out/bench/NAME/")
        static final class Bench extends Placeholder {
        }

        @Command(name = "plot", description = "plot trace FILE: a Gantt chart of a device timeline")
        static final class Plot extends Placeholder {
        }

        @Command(name = "deps", description = "install the system packages the build needs (Debian)")
        static final class Deps extends Placeholder {
        }
    }

    // ------------------------------------------------------------------ progress

    /** One status line on stderr, redrawn in place on a terminal, printed once when done otherwise. */
    final class Progress {
        private final String label;
        private final long total;
        private final long t0 = System.nanoTime();
        private long lastDraw;

        Progress(String label, long total) {
            this.label = label;
            this.total = total;
        }

        void bytes(long n) {
            fraction(total > 0 ? (double) n / total : 0);
        }

        void fraction(double f) {
            long now = System.nanoTime();
            if (!tty || now - lastDraw < 100_000_000L) {
                return;
            }
            lastDraw = now;
            int width = 30;
            int fill = (int) Math.round(Math.max(0, Math.min(1, f)) * width);
            err.printf(Locale.ROOT, "\r  %-32s [%s%s] %3.0f%% %5.1f s", label, "#".repeat(fill), ".".repeat(width - fill),
                    f * 100, (now - t0) / 1e9);
            err.flush();
        }

        void done() {
            done(String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - t0) / 1e9));
        }

        void done(String what) {
            if (tty) {
                err.print("\r\033[K");
            }
            err.printf(Locale.ROOT, "  %-32s %s%n", label, what);
            err.flush();
        }
    }

    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }
}
