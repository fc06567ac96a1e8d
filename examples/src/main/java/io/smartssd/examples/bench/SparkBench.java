package io.smartssd.examples.bench;

import io.smartssd.device.SmartSsd;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The driver of {@code bin/smartssd bench spark} (bench/spark.py): one web-log CSV dataset, the same
 * selective queries through the {@code smartssd} format (pushdown into the device), Spark's CSV reader
 * on a local copy, Parquet on a local copy, and the {@code smartssd} format over the same Parquet
 * data written by Spark to the device (the device's plan reads the Parquet objects); one CSV line of
 * results per (query, path, sample).
 *
 * <p>Like with like: each timed run starts from the path (the DataFrame is loaded, then the query
 * runs), so listing the files and reading the Parquet footers (Spark's reader: schema inference at
 * load, then each task its file's footer; the smartssd table: every object's footer at load) are
 * inside the time on both Parquet paths. The samples go round the four paths in turn, so load that
 * drifts hits every path alike.
 *
 * <pre>SparkBench DIR SIZE_BYTES RESULTS.csv [SAMPLES [AB_PAIRS]]</pre>
 */
public final class SparkBench {
    static final String SCHEMA = "ts BIGINT, client BIGINT, object BIGINT, size BIGINT, method INT, status INT,"
            + " type INT, region INT, server INT, url STRING";

    static final String[][] QUERIES = {
        {"filter+groupby-count", "SELECT region, count(*) AS n FROM {t} WHERE type = 3 AND status = 404 GROUP BY region"},
        {"top-n", "SELECT size, ts FROM {t} ORDER BY size DESC, ts DESC LIMIT 10"},
        {"filter-few-rows", "SELECT * FROM {t} WHERE client = 4242 AND method = 1"},
    };

    static final String[] PATHS = {"smartssd", "csv", "parquet", "smartssd_parquet"};

    private SparkBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]).toAbsolutePath();
        long size = Long.parseLong(args[1]);
        Path results = Paths.get(args[2]);
        int samples = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        int abPairs = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        Files.createDirectories(dir);
        Path csv = dir.resolve("weblog.csv");
        Path image = dir.resolve("dev.img");
        Path parquet = dir.resolve("weblog.parquet");
        if (!Files.exists(csv) || Files.size(csv) < size * 0.99 || Files.size(csv) > size * 1.01) {
            generate(csv, size);
            Files.deleteIfExists(image);
            deleteTree(parquet);
        }
        boolean fresh = !Files.exists(image);
        if (fresh) {
            // the CSV and its Parquet copy (about half its size)
            SmartSsd.format(image, Math.max(256L << 20, Files.size(csv) * 7 / 4 + (64L << 20)), "smartssd-paper");
        }
        SparkSession spark = SparkSession.builder().master("local[2]").appName("smartssd-bench")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.shuffle.partitions", "4")
                .config("spark.hadoop.fs.smartssd.device.b0.image", image.toString()).getOrCreate();
        String obj = "smartssd://b0/weblog.csv";
        if (fresh) {
            long t0 = System.nanoTime();
            FileSystem fs = FileSystem.get(URI.create(obj), spark.sparkContext().hadoopConfiguration());
            try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(obj), true)) {
                Files.copy(csv, out);
            }
            log("loaded %s into the device in %.1f s", csv, (System.nanoTime() - t0) / 1e9);
        }
        if (!Files.exists(parquet)) {
            long t0 = System.nanoTime();
            spark.read().schema(SCHEMA).csv(csv.toString()).write().parquet(parquet.toString());
            log("wrote %s in %.1f s", parquet, (System.nanoTime() - t0) / 1e9);
        }
        String pqObj = "smartssd://b0/weblog.parquet";
        FileSystem dfs = FileSystem.get(URI.create(pqObj), spark.sparkContext().hadoopConfiguration());
        if (!dfs.exists(new org.apache.hadoop.fs.Path(pqObj + "/_SUCCESS"))) {
            long t0 = System.nanoTime();
            // as many objects as the local copy has files: one device partition each
            spark.read().parquet(parquet.toString()).write().mode("overwrite").parquet(pqObj);
            log("wrote %s in %.1f s", pqObj, (System.nanoTime() - t0) / 1e9);
        }
        spark.read().format("smartssd").schema(SCHEMA).load(obj).createOrReplaceTempView("smartssd");
        spark.read().format("smartssd").option("format", "parquet").load(pqObj).createOrReplaceTempView("smartssd_parquet");
        // the same tables with every extent in a partition of its own (Spark merges): the A/B's "before"
        spark.read().format("smartssd").schema(SCHEMA).options(PER_EXTENT).load(obj).createOrReplaceTempView("smartssd_per_extent");
        spark.read().format("smartssd").option("format", "parquet").options(PER_EXTENT).load(pqObj)
                .createOrReplaceTempView("smartssd_parquet_per_extent");
        spark.read().schema(SCHEMA).csv(csv.toString()).createOrReplaceTempView("csv");
        spark.read().parquet(parquet.toString()).createOrReplaceTempView("parquet");

        AtomicLong bytesRead = new AtomicLong();
        spark.sparkContext().addSparkListener(new SparkListener() {
            @Override
            public void onTaskEnd(SparkListenerTaskEnd e) {
                if (e.taskMetrics() != null) {
                    bytesRead.addAndGet(e.taskMetrics().inputMetrics().bytesRead());
                }
            }
        });
        long raw = Files.size(csv);
        // Each path's DataFrame from its source, made anew inside every timed run.
        java.util.Map<String, java.util.function.Supplier<Dataset<Row>>> sources = java.util.Map.of(
                "smartssd", () -> spark.read().format("smartssd").schema(SCHEMA).load(obj),
                "csv", () -> spark.read().schema(SCHEMA).csv(csv.toString()),
                "parquet", () -> spark.read().parquet(parquet.toString()),
                "smartssd_parquet", () -> spark.read().format("smartssd").option("format", "parquet").load(pqObj));
        // One pass over every query and path before any is timed: otherwise the first (query, path)
        // timed, the smartssd group-by, runs in a JVM that has run one query (Spark's planner and
        // the connector still being compiled) while the later ones run in a warm one.
        for (String[] q : QUERIES) {
            for (String path : PATHS) {
                spark.sql(q[1].replace("{t}", path)).collectAsList();
            }
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(results, StandardCharsets.UTF_8))) {
            w.println("query,path,sample,wall_s,bytes_to_host,raw_bytes,rows,device_ms,flash_bytes,answer");
            for (String[] q : QUERIES) {
                String reference = null;
                for (String path : PATHS) {
                    timedRun(spark, path, q[1], bytesRead, sources); // warm-up: JIT, codegen, page cache
                }
                for (int sample = 0; sample < samples; sample++) {
                    for (String path : PATHS) {
                        Timed t = timedRun(spark, path, q[1], bytesRead, sources);
                        String answer = canonical(t.rows);
                        if (reference == null) {
                            reference = answer;
                        }
                        w.printf(Locale.ROOT, "%s,%s,%d,%.4f,%d,%d,%d,%.3f,%d,%s%n", q[0], path, sample, t.seconds,
                                t.toHost, raw, t.rows.size(), t.deviceNs / 1e6, t.flash,
                                answer.equals(reference) ? "ok" : "MISMATCH");
                        w.flush();
                        log("%-22s %-16s #%d %8.3f s  %,14d B to host  %d rows", q[0], path, sample + 1, t.seconds,
                                t.toHost, t.rows.size());
                    }
                }
            }
        }
        if (abPairs > 0) {
            abTest(spark, abPairs, results.resolveSibling("ab.csv"));
        }
        spark.stop();
    }

    /** One timed run: the DataFrame loaded from its path, the view registered, the query collected. */
    private record Timed(double seconds, List<Row> rows, long toHost, long deviceNs, long flash) {
    }

    private static Timed timedRun(SparkSession spark, String path, String sqlTemplate, AtomicLong bytesRead,
            java.util.Map<String, java.util.function.Supplier<Dataset<Row>>> sources)
            throws java.util.concurrent.TimeoutException { // the listener bus's wait (Spark 4 declares it)
        String view = path + "_timed";
        String sql = sqlTemplate.replace("{t}", view);
        bytesRead.set(0);
        long t0 = System.nanoTime();
        sources.get(path).get().createOrReplaceTempView(view);
        Dataset<Row> df = spark.sql(sql);
        List<Row> rows = df.collectAsList();
        double s = (System.nanoTime() - t0) / 1e9;
        spark.sparkContext().listenerBus().waitUntilEmpty();
        BatchScanExec scan = path.startsWith("smartssd") ? scanOf(df) : null;
        long toHost = scan != null ? metric(scan, "smartssdBytesToHost") : bytesRead.get();
        long deviceNs = scan != null ? metric(scan, "smartssdDeviceTime") : 0;
        long flash = scan != null ? metric(scan, "smartssdFlashBytesRead") : 0;
        return new Timed(s, rows, toHost, deviceNs, flash);
    }

    /** Options that give every extent a partition of its own, as before complete aggregates and one-partition top-N. */
    static final java.util.Map<String, String> PER_EXTENT = java.util.Map.of(
            "pushdown.aggregate.complete", "false", "pushdown.topn.one_partition", "false");

    /**
     * Paired runs in one JVM: each query on each smartssd table with one partition per extent, then with
     * the defaults, `pairs` times in turn; every pair's wall times (answers checked equal).
     */
    private static void abTest(SparkSession spark, int pairs, Path out) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            w.println("query,table,pair,per_extent_s,default_s");
            for (String[] q : QUERIES) {
                for (String t : new String[] {"smartssd", "smartssd_parquet"}) {
                    String before = q[1].replace("{t}", t + "_per_extent");
                    String after = q[1].replace("{t}", t);
                    String expected = canonical(spark.sql(before).collectAsList()); // warm-up of both
                    if (!canonical(spark.sql(after).collectAsList()).equals(expected)) {
                        throw new IllegalStateException("A/B answers differ for " + q[0] + " on " + t);
                    }
                    for (int i = 0; i < pairs; i++) {
                        double a = timed(spark, before);
                        double b = timed(spark, after);
                        w.printf(Locale.ROOT, "%s,%s,%d,%.4f,%.4f%n", q[0], t, i, a, b);
                        w.flush();
                    }
                }
            }
        }
    }

    private static double timed(SparkSession spark, String sql) {
        Dataset<Row> df = spark.sql(sql);
        long t0 = System.nanoTime();
        df.collectAsList();
        return (System.nanoTime() - t0) / 1e9;
    }

    private static String canonical(List<Row> rows) {
        return rows.stream().map(Row::toString).sorted().reduce("", (a, b) -> a + b + ";");
    }

    private static BatchScanExec scanOf(Dataset<Row> df) {
        return find(df.queryExecution().executedPlan());
    }

    /** The scan that ran: through adaptive plans (their final plan) and query stages. */
    private static BatchScanExec find(SparkPlan plan) {
        if (plan instanceof BatchScanExec b) {
            return b;
        }
        if (plan instanceof org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec a) {
            return find(a.executedPlan());
        }
        if (plan instanceof org.apache.spark.sql.execution.adaptive.QueryStageExec q) {
            return find(q.plan());
        }
        for (SparkPlan c : CollectionConverters.asJava(plan.children())) {
            BatchScanExec b = find(c);
            if (b != null) {
                return b;
            }
        }
        return null;
    }

    private static long metric(BatchScanExec scan, String name) {
        return scan.metrics().get(name).get().value();
    }

    /** Web-log lines of about 80 bytes: 1 in ~2000 lines is type 3 with status 404; clients 0..99999. */
    static void generate(Path csv, long size) throws IOException {
        long t0 = System.nanoTime();
        SplittableRandom r = new SplittableRandom(1998);
        String[] paths = {"/english/index.html", "/images/hm_bg.jpg", "/french/news/3004.htm", "/images/logo.gif",
            "/english/competition/stage1.htm", "/cgi-bin/trivia.pl", "/images/space.gif"};
        int[] statuses = {200, 200, 200, 200, 200, 200, 200, 304, 304, 206, 404, 500};
        long written = 0;
        long ts = 893964000L;
        StringBuilder line = new StringBuilder(128);
        try (BufferedWriter w = Files.newBufferedWriter(csv, StandardCharsets.US_ASCII)) {
            while (written < size) {
                ts += r.nextInt(3);
                int type = r.nextInt(13);
                int status = statuses[r.nextInt(statuses.length)];
                if (status == 404 && r.nextInt(8) != 0) {
                    status = 200; // 404s are rare: ~1/100 of lines, 1/13 of those type 3
                }
                line.setLength(0);
                line.append(ts).append(',').append(r.nextInt(100000)).append(',').append(r.nextInt(90000)).append(',')
                    .append(r.nextInt(20) == 0 ? "" : Integer.toString(r.nextInt(1_000_000))).append(',')
                    .append(r.nextInt(4)).append(',').append(status).append(',').append(type).append(',')
                    .append(r.nextInt(8)).append(',').append(r.nextInt(32)).append(',')
                    .append(paths[r.nextInt(paths.length)]).append('\n');
                w.append(line);
                written += line.length();
            }
        }
        log("generated %s (%,d bytes) in %.1f s", csv, written, (System.nanoTime() - t0) / 1e9);
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.exists(p)) {
            try (var s = Files.walk(p)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static void log(String fmt, Object... args) {
        System.err.println("[bench spark] " + String.format(Locale.ROOT, fmt, args));
    }
}
