package io.smartssd.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.Partition;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spark on more than one JVM: {@code local-cluster[2,1,1024]} (a standalone master and two workers in
 * this JVM, each launching its executor as a separate JVM, as on a standalone cluster) against two csdd
 * daemons holding different objects (d1: a.csv, d2: b.csv), configured with distinct {@code .host}s.
 *
 * <p>The executors get Spark from {@code $SPARK_HOME/jars} (the pom points SPARK_HOME at
 * target/spark-home, which this test fills with the test classpath's jars except this project's) and the
 * connector only as a user ships it: {@code spark.jars} = the connector jar plus its runtime
 * dependencies (target/runtime-classpath.txt), fetched by each executor from the driver.
 *
 * <p>Checks: answers equal Spark's CSV reader over local copies on the same cluster; each partition's
 * preferred location is its device's host; each daemon executed exactly its own partitions (its own
 * {@code commands.execute_object} counter, read over its socket; the connector runs no trial). Both
 * workers share this host, so where Spark placed each task is not what is checked: the devices are.
 */
class LocalClusterIT {
    static final String SCHEMA = "id BIGINT, region STRING, status INT, bytes BIGINT";
    static final String[] REGIONS = {"Santa Clara", "Plano", "Herndon", "Paris"};
    static final int[] STATUS = {200, 200, 200, 304, 404, 500};
    static final long SPLIT = 4000;

    static Path tmp;
    static Csdd d1;
    static Csdd d2;
    static SparkSession spark;
    static byte[] a;
    static byte[] b;

    @BeforeAll
    static void setUp() throws Exception {
        tmp = Files.createTempDirectory("smartssd-lc"); // short: socket paths are limited to 107 bytes
        d1 = Csdd.start(tmp.resolve("d1.img"), tmp.resolve("d1.sock"));
        d2 = Csdd.start(tmp.resolve("d2.img"), tmp.resolve("d2.sock"));
        fillSparkHome();
        spark = SparkSession.builder().master("local-cluster[2,1,1024]").appName("smartssd-local-cluster")
                .config("spark.jars", String.join(",", shippedJars()))
                .config("spark.executor.memory", "768m")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.hadoop.fs.smartssd.device.d1.socket", d1.socket.toString())
                .config("spark.hadoop.fs.smartssd.device.d1.host", "node-a")
                .config("spark.hadoop.fs.smartssd.device.d2.socket", d2.socket.toString())
                .config("spark.hadoop.fs.smartssd.device.d2.host", "node-b")
                .getOrCreate();
        // local-cluster registers its executors asynchronously
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (spark.sparkContext().statusTracker().getExecutorInfos().length < 3) { // the driver + 2
            if (System.nanoTime() > deadline) {
                fail("the 2 executors of local-cluster did not register within 60 s:\n" + executorLogs());
            }
            Thread.sleep(100);
        }
        a = csv(600, 1);
        b = csv(400, 2);
        put("smartssd://d1/logs/a.csv", a);
        put("smartssd://d2/logs/b.csv", b);
        Files.write(tmp.resolve("a.csv"), a);
        Files.write(tmp.resolve("b.csv"), b);
        spark.read().format("smartssd").schema(SCHEMA).option("split_size", Long.toString(SPLIT))
                .load("smartssd://d1/logs/a.csv").createOrReplaceTempView("a");
        spark.read().format("smartssd").schema(SCHEMA).option("split_size", Long.toString(SPLIT))
                .load("smartssd://d2/logs/b.csv").createOrReplaceTempView("b");
        spark.read().schema(SCHEMA).csv(tmp.resolve("a.csv").toString()).createOrReplaceTempView("a_ref");
        spark.read().schema(SCHEMA).csv(tmp.resolve("b.csv").toString()).createOrReplaceTempView("b_ref");
    }

    @AfterAll
    static void tearDown() throws IOException {
        try {
            if (spark != null) {
                spark.stop();
            }
            FileSystem.closeAll();
        } finally {
            if (d1 != null) {
                d1.close();
            }
            if (d2 != null) {
                d2.close();
            }
            if (tmp != null) {
                try (Stream<Path> all = Files.walk(tmp)) {
                    all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    @Test
    void answersFromTwoDevicesOnSeparateExecutors() {
        assertEquals(2, spark.sparkContext().statusTracker().getExecutorInfos().length - 1, "executors");
        String both = "(SELECT * FROM {a} UNION ALL SELECT * FROM {b})";
        same("SELECT region, count(*), count(bytes), sum(bytes), min(status), max(bytes), avg(bytes) FROM " + both
                + " GROUP BY region");
        same("SELECT id, bytes FROM {a} WHERE status = 404 AND bytes > 1000");
        same("SELECT id, region FROM {b} WHERE bytes IS NULL OR region LIKE 'P%'");
        List<Row> top = spark.sql("SELECT id, bytes FROM b ORDER BY bytes DESC, id LIMIT 5").collectAsList();
        assertEquals(spark.sql("SELECT id, bytes FROM b_ref ORDER BY bytes DESC, id LIMIT 5").collectAsList(), top);
    }

    @Test
    void eachPartitionPrefersItsDevicesHost() {
        assertLocations("a", a.length, "node-a");
        assertLocations("b", b.length, "node-b");
    }

    @Test
    void eachDaemonExecutesExactlyItsPartitions() {
        long before1 = d1.counter("commands.execute_object");
        long before2 = d2.counter("commands.execute_object");
        List<Row> rows = spark.sql("SELECT status, count(*) FROM (SELECT * FROM a UNION ALL SELECT * FROM b)"
                + " GROUP BY status").collectAsList();
        long total = rows.stream().mapToLong(r -> r.getLong(1)).sum();
        assertEquals(600 + 400, total);
        assertEquals(partitions(a.length), d1.counter("commands.execute_object") - before1, "d1 executions");
        assertEquals(partitions(b.length), d2.counter("commands.execute_object") - before2, "d2 executions");
    }

    // ------------------------------------------------------------------ helpers

    private static void assertLocations(String table, long length, String host) {
        RDD<InternalRow> rdd = scan(spark.table(table)).inputRDD();
        Partition[] parts = rdd.partitions();
        assertEquals(partitions(length), parts.length, table + " partitions");
        for (Partition p : parts) {
            assertEquals(List.of(host), TestSpark.list(rdd.preferredLocations(p)),
                    table + " partition " + p.index());
        }
    }

    private static long partitions(long length) {
        return (length + SPLIT - 1) / SPLIT;
    }

    private static BatchScanExec scan(Dataset<Row> df) {
        SparkPlan plan = df.queryExecution().executedPlan();
        for (SparkPlan p : TestSpark.list(plan.collectLeaves())) {
            if (p instanceof BatchScanExec s) {
                return s;
            }
        }
        throw new AssertionError("no BatchScan in\n" + plan);
    }

    /** The query over the device tables equals it over Spark's CSV reader (as multisets). */
    private static void same(String sql) {
        List<Row> dev = sorted(spark.sql(sql.replace("{a}", "a").replace("{b}", "b")).collectAsList());
        List<Row> ref = sorted(spark.sql(sql.replace("{a}", "a_ref").replace("{b}", "b_ref")).collectAsList());
        assertTrue(!ref.isEmpty(), "the reference answer of [" + sql + "] is empty: a weak check");
        assertEquals(ref, dev, sql);
    }

    private static List<Row> sorted(List<Row> rows) {
        List<Row> out = new ArrayList<>(rows);
        out.sort(Comparator.comparing(Row::toString));
        return out;
    }

    private static void put(String uri, byte[] data) throws IOException {
        FileSystem fs = FileSystem.get(URI.create(uri), spark.sparkContext().hadoopConfiguration());
        try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(uri), true)) {
            out.write(data);
        }
    }

    /** Access-log-like CSV lines; about one size in ten is missing (NULL). */
    private static byte[] csv(int lines, long seed) {
        Random r = new Random(seed);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            String bytes = r.nextInt(10) == 0 ? "" : Integer.toString(r.nextInt(50_000));
            s.append(seed * 1_000_000 + i).append(',').append(REGIONS[r.nextInt(REGIONS.length)]).append(',')
                    .append(STATUS[r.nextInt(STATUS.length)]).append(',').append(bytes).append('\n');
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * $SPARK_HOME/jars as a Spark distribution has it: Spark and its dependencies (here: the jars of the
     * test classpath), without this project's jars, which reach the executors through spark.jars only.
     */
    private static void fillSparkHome() throws IOException {
        String home = System.getenv("SPARK_HOME");
        assertTrue(home != null && !home.isEmpty(), "SPARK_HOME is not set (the pom's failsafe configuration sets it)");
        Path jars = Path.of(home, "jars");
        if (Files.isDirectory(jars)) {
            try (Stream<Path> old = Files.list(jars)) {
                for (Path p : (Iterable<Path>) old::iterator) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(jars);
        Path repo = Path.of(System.getProperty("smartssd.repo", "..")).toAbsolutePath().normalize();
        int sparkCore = 0;
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(e).toAbsolutePath().normalize();
            if (!e.endsWith(".jar") || !Files.isRegularFile(p) || p.startsWith(repo) || e.contains("/io/smartssd/")) {
                continue;
            }
            Path link = jars.resolve(p.getFileName());
            if (!Files.exists(link)) {
                Files.createSymbolicLink(link, p);
                sparkCore += p.getFileName().toString().startsWith("spark-core_") ? 1 : 0;
            }
        }
        assertEquals(1, sparkCore, "spark-core on the test classpath (java.class.path)");
    }

    /** What a user ships with the job: the connector jar and its runtime dependencies. */
    private static List<String> shippedJars() throws IOException {
        List<String> out = new ArrayList<>();
        out.add(System.getProperty("smartssd.connector.jar"));
        String cp = Files.readString(Path.of(System.getProperty("smartssd.runtime.classpath"))).trim();
        for (String e : cp.split(java.io.File.pathSeparator)) {
            out.add(e);
        }
        for (String j : out) {
            assertTrue(j.endsWith(".jar") && Files.isRegularFile(Path.of(j)),
                    "spark.jars needs jars: " + j + " (run through the reactor's package phase: mvn -pl spark-connector -am verify)");
        }
        return out;
    }

    /** The executors' stderr (the workers write it under $SPARK_HOME/work), for a failure message. */
    private static String executorLogs() {
        StringBuilder s = new StringBuilder();
        try (Stream<Path> all = Files.walk(Path.of(System.getenv("SPARK_HOME"), "work"))) {
            for (Path p : (Iterable<Path>) all.filter(x -> x.getFileName().toString().equals("stderr"))::iterator) {
                List<String> lines = Files.readAllLines(p);
                s.append("== ").append(p).append('\n')
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())))
                        .append('\n');
            }
        } catch (IOException e) {
            s.append("(no executor logs: ").append(e.getMessage()).append(')');
        }
        return s.toString();
    }
}
