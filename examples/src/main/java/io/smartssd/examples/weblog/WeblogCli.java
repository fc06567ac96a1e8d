package io.smartssd.examples.weblog;

import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The examples' command line ({@code bin/smartssd weblog|grep|demo}, {@code bin/smartssd bench weblog}):
 * <pre>
 *   gen    --output PATH|smartssd://ID/NAME (--records N | --size S) [--entry-bytes 20] [--seed 1998]
 *          [--mix realistic|uniform] [--format binary|clf] [--image IMG]
 *   weblog --input PATH --entry-bytes N --query q1|q2 --version host-normal|host-optimized|device|spark-device
 *          [--top-n 3] [--json] [--image IMG] [--maps 2] [--conf KEY=VALUE]
 *   sweep  --image IMG --results FILE [--size 256M] [--entry-bytes 32,64,128,256] [--query q1,q2]
 *          [--version host-normal,host-optimized,device] [--seed 1998] [--maps 2]
 *   grep   --image IMG [--input smartssd://ID/NAME] [--pattern /images/] [--size 64M] [--json]
 * </pre>
 * {@code --image IMG} names the embedded device image of every {@code smartssd://ID/...} URI given.
 */
public final class WeblogCli {
    private static final String DEMO_DEVICE = "demo";

    private final PrintStream out;
    private final PrintStream err;
    private final boolean tty = System.console() != null;

    WeblogCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] argv) {
        int rc;
        try {
            rc = new WeblogCli(System.out, System.err).run(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("smartssd weblog: " + e.getMessage());
            rc = 2;
        } catch (Exception e) {
            System.err.println("smartssd weblog: " + e.getMessage());
            if (System.getenv("SMARTSSD_DEBUG") != null) {
                e.printStackTrace();
            }
            rc = 1;
        }
        try {
            FileSystem.closeAll();   // releases (and flushes) embedded devices
        } catch (IOException e) {
            System.err.println("smartssd weblog: closing: " + e.getMessage());
            rc = rc == 0 ? 1 : rc;
        }
        System.exit(rc);
    }

    int run(String[] argv) throws Exception {
        if (argv.length == 0) {
            throw new IllegalArgumentException("usage: gen|weblog|sweep|grep [options] (see WeblogCli's javadoc or"
                    + " docs/WEBLOG.md)");
        }
        switch (argv[0]) {
            case "gen":
                return gen(new Args(argv, 1, Set.of(), Set.of("output", "records", "size", "entry-bytes", "seed", "mix",
                        "format", "image", "conf")));
            case "weblog":
                return weblog(new Args(argv, 1, Set.of("json"), Set.of("input", "entry-bytes", "query", "version",
                        "top-n", "image", "maps", "conf")));
            case "sweep":
                return sweep(new Args(argv, 1, Set.of(), Set.of("image", "results", "size", "entry-bytes", "query",
                        "version", "seed", "maps", "top-n")));
            case "grep":
                return GrepExample.run(this, new Args(argv, 1, Set.of("json"), Set.of("image", "input", "pattern",
                        "size", "seed", "maps")));
            default:
                throw new IllegalArgumentException("unknown command '" + argv[0] + "': gen, weblog, sweep or grep");
        }
    }

    // ------------------------------------------------------------------ configuration

    /** LocalJobRunner conf; {@code --image} becomes the image of every smartssd:// device named. */
    static Configuration conf(Args a, String... uris) {
        Configuration conf = WeblogJobs.localConf(a.getInt("maps", 2));
        for (String kv : a.all("conf")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--conf " + kv + ": expected KEY=VALUE");
            }
            conf.set(kv.substring(0, eq), kv.substring(eq + 1));
        }
        String image = a.get("image", null);
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

    private int gen(Args a) throws IOException {
        String output = a.require("output");
        int entry = a.getInt("entry-bytes", 20);
        String format = a.get("format", "binary");
        long records = records(a, format.equals("clf") ? 70 : entry);
        Wc98Generator g = new Wc98Generator(Long.parseLong(a.get("seed", "1998")), mix(a.get("mix", "realistic")));
        Configuration conf = conf(a, output);
        Path p = path(output);
        long t0 = System.nanoTime();
        long bytes;
        try (OutputStream os = p.getFileSystem(conf).create(p, true)) {
            Progress pr = new Progress("generate " + p.getName(), records * (format.equals("clf") ? 70 : entry));
            bytes = switch (format) {
                case "binary" -> g.writeBinary(os, records, entry, pr::bytes);
                case "clf" -> g.writeClf(os, records, pr::bytes);
                default -> throw new IllegalArgumentException("--format " + format + ": binary or clf");
            };
            pr.done();
        }
        err.printf(Locale.ROOT, "wrote %,d records (%,d bytes) to %s in %.1f s%n", records, bytes, p,
                (System.nanoTime() - t0) / 1e9);
        return 0;
    }

    static Wc98Generator.Mix mix(String s) {
        return Wc98Generator.Mix.valueOf(s.toUpperCase(Locale.ROOT));
    }

    private static long records(Args a, int bytesPerRecord) {
        if (a.get("records", null) != null) {
            return Long.parseLong(a.get("records", null));
        }
        if (a.get("size", null) != null) {
            return Math.max(1, Args.bytes(a.get("size", null)) / bytesPerRecord);
        }
        throw new IllegalArgumentException("give --records N or --size S");
    }

    // ------------------------------------------------------------------ weblog

    private int weblog(Args a) throws Exception {
        String input = a.require("input");
        int entry = Integer.parseInt(a.require("entry-bytes"));
        WeblogQuery q = WeblogQuery.parse(a.require("query"));
        Version v = Version.parse(a.require("version"));
        Configuration conf = conf(a, input);
        Progress pr = new Progress(q.shortName() + " " + v.label(), 0);
        RunResult r = WeblogJobs.run(conf, v, q, path(input), entry, a.getInt("top-n", WeblogAnswer.DEFAULT_TOP_N),
                pr::fraction);
        pr.done();
        if (a.flag("json")) {
            out.println(r.toJson());
        } else {
            out.print(r.answer().text());
            err.printf(Locale.ROOT, "%s %s: %,d bytes in %.2f s wall, device %s, %,d bytes over the host link%n",
                    q.shortName(), v.label(), r.inputBytes(), r.wallNanos() / 1e9,
                    r.deviceNanos() < 0 ? "n/a (not a device)" : String.format(Locale.ROOT, "%.1f ms", r.deviceNanos() / 1e6),
                    r.linkBytes());
        }
        return 0;
    }

    // ------------------------------------------------------------------ sweep

    /**
     * The demo and the bench: one dataset per entry size on an embedded device (the same records in
     * each, padded, as in the paper), every query in every version, each answer checked against the
     * plain decoder; one JSON line per run in --results.
     */
    private int sweep(Args a) throws Exception {
        java.nio.file.Path image = java.nio.file.Path.of(a.require("image")).toAbsolutePath();
        java.nio.file.Path results = java.nio.file.Path.of(a.require("results"));
        List<Integer> entries = a.list("entry-bytes", "32,64,128,256").stream().map(Integer::parseInt).toList();
        entries.forEach(Wc98::checkEntryBytes);
        List<WeblogQuery> queries = a.list("query", "q1,q2").stream().map(WeblogQuery::parse).toList();
        List<Version> versions = a.list("version", "host-normal,host-optimized,device").stream()
                .map(Version::parse).toList();
        long size = Args.bytes(a.get("size", "256M"));
        int maxEntry = entries.stream().max(Integer::compare).orElseThrow();
        long records = Math.max(1, size / maxEntry);
        long seed = Long.parseLong(a.get("seed", "1998"));
        int topN = a.getInt("top-n", WeblogAnswer.DEFAULT_TOP_N);
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
        Configuration conf = WeblogJobs.localConf(a.getInt("maps", 2));
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
