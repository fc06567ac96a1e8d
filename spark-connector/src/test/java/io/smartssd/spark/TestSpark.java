package io.smartssd.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;

/**
 * One local[2] SparkSession and one embedded device image for every test class of this JVM (Spark
 * starts in seconds; an image can be open once per process). Helpers compare a query on a smartssd
 * table with the same query on Spark's own CSV reader.
 */
final class TestSpark {
    static final String DEVICE = "t0";
    /** A hybrid SLC/TLC device (preset hybrid, placement level) for the write-hint test. */
    static final String HYBRID_DEVICE = "h0";
    /**
     * The session's write-hint rules (set as spark.hadoop. entries, as users do: the FileSystem reads them
     * when it is created). They match only paths under /hints/, which only WriteHintSparkTest writes.
     */
    static final String HINT_RULES = "/hints/scratch/**=0,/hints/**/_temporary/**=1";
    private static SparkSession spark;
    private static Path dir;

    private TestSpark() {
    }

    static synchronized SparkSession session() {
        if (spark == null) {
            try {
                dir = Paths.get(System.getProperty("smartssd.test.tmp", "target/test-tmp")).toAbsolutePath()
                        .resolve("spark-" + ProcessHandle.current().pid());
                Files.createDirectories(dir);
                Path image = dir.resolve("dev.img");
                SmartSsd.format(image, 256L << 20, "smartssd-paper");
                Path hybrid = dir.resolve("hybrid.img");
                SmartSsd.format(hybrid, 256L << 20, "hybrid");
                spark = SparkSession.builder().master("local[2]").appName("smartssd-tests")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "4")
                        .config("spark.sql.adaptive.enabled", "false")
                        .config("spark.driver.bindAddress", "127.0.0.1")
                        .config("spark.driver.host", "127.0.0.1")
                        .config("spark.hadoop.fs.smartssd.device." + DEVICE + ".image", image.toString())
                        .config("spark.hadoop.fs.smartssd.device." + HYBRID_DEVICE + ".image", hybrid.toString())
                        .config("spark.hadoop.fs.smartssd.write.hint.rules", HINT_RULES)
                        .getOrCreate();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return spark;
    }

    static Path localDir() {
        session();
        return dir;
    }

    /** Writes bytes to smartssd://t0/name (through the FileSystem, sharing the JVM's device handle). */
    static String putObject(String name, byte[] data) throws IOException {
        String uri = "smartssd://" + DEVICE + "/" + name;
        FileSystem fs = FileSystem.get(URI.create(uri), session().sparkContext().hadoopConfiguration());
        try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(uri), true)) {
            out.write(data);
        }
        return uri;
    }

    static String putLocal(String name, byte[] data) throws IOException {
        Path p = localDir().resolve(name);
        Files.write(p, data);
        return p.toString();
    }

    /** The query on the device table equals the same query on the reference table (as multisets). */
    static List<Row> sameRows(String sql, String table, String ref) {
        Dataset<Row> dev = session().sql(sql.replace("{t}", table));
        List<Row> a = sorted(dev.collectAsList());
        List<Row> b = sorted(session().sql(sql.replace("{t}", ref)).collectAsList());
        assertEquals(b.size(), a.size(), "row count of: " + sql);
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).equals(b.get(i))) {
                fail("row " + i + " of [" + sql + "]: smartssd " + a.get(i) + " but Spark's CSV reader " + b.get(i));
            }
        }
        return a;
    }

    /** The same, in order (for ORDER BY queries whose keys are unique). */
    static void sameOrderedRows(String sql, String table, String ref) {
        List<Row> a = session().sql(sql.replace("{t}", table)).collectAsList();
        List<Row> b = session().sql(sql.replace("{t}", ref)).collectAsList();
        assertEquals(b, a, sql);
    }

    private static List<Row> sorted(List<Row> rows) {
        List<Row> out = new ArrayList<>(rows);
        out.sort(Comparator.comparing(Row::toString));
        return out;
    }

    /** A Scala collection's elements (Scala 2.12 and 2.13 alike: no converter that only one of them has). */
    static <T> List<T> list(scala.collection.Iterable<T> c) {
        List<T> out = new ArrayList<>();
        scala.collection.Iterator<T> it = c.iterator();
        while (it.hasNext()) {
            out.add(it.next());
        }
        return out;
    }

    /** The smartssd scan of a query's physical plan (its description is what EXPLAIN prints). */
    static BatchScanExec scan(Dataset<Row> df) {
        SparkPlan plan = df.queryExecution().executedPlan();
        for (SparkPlan p : list(plan.collectLeaves())) {
            if (p instanceof BatchScanExec b) {
                return b;
            }
        }
        throw new AssertionError("no BatchScan in\n" + plan);
    }

    static String explain(String sql, String table) {
        return scan(session().sql(sql.replace("{t}", table))).scan().description();
    }
}
