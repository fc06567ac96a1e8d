package io.smartssd.examples.weblog;

import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The spark-device version: both queries as Spark DataFrame programs over the {@code smartssd} format
 * (spark-connector). The group-by count is pushed into the device as one {@code plan} tasklet per input
 * partition, so only (region[, type], count) rows cross the host link; Spark sums the partial counts.
 * <pre>
 *   Q1: spark.read.format("smartssd").option("format", "wc98").option("entry_bytes", N).load(path)
 *            .groupBy("region").count()
 *   Q2: ... .groupBy("region", "type").count()     then the top-N ranking in Java on those few rows
 * </pre>
 * The ranking is {@link WeblogAnswer}'s, the one every version uses (ties: lower type index first), and
 * type bytes from 12 up are summed into OTHER as the tasklets and the decoder do.
 */
public final class SparkWeblog {
    /**
     * Bytes per Spark input partition (each runs its own plan tasklet). Default: the whole object, for
     * the reason {@link WeblogJobs#splitEvenly} gives the device version one split per object: the
     * device already runs one tasklet over all its channels and cores.
     */
    public static final String SPLIT_SIZE = "smartssd.weblog.spark.split.size";

    private SparkWeblog() {
    }

    /**
     * The JVM's SparkSession (created on first use, then reused: Spark allows one context per JVM),
     * local[maps] as the Hadoop versions' LocalJobRunner slots.
     */
    public static SparkSession session(Configuration conf) {
        int cores = Math.max(1, conf.getInt("mapreduce.local.map.tasks.maximum", 2));
        SparkSession s = SparkSession.builder().master("local[" + cores + "]").appName("smartssd-weblog")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", Integer.toString(cores))
                // a few result rows: adaptive execution would only add a stage boundary to re-plan
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .getOrCreate();
        s.sparkContext().setLogLevel("ERROR");
        return s;
    }

    /** The query as a DataFrame: Q1 {@code (region, count)}, Q2 {@code (region, type, count)}. */
    public static Dataset<Row> dataFrame(SparkSession spark, Configuration conf, WeblogQuery q, Path input,
                                         int entryBytes, long splitSize) {
        DataFrameReader r = spark.read().format("smartssd").option("format", "wc98")
                .option("entry_bytes", Integer.toString(entryBytes))
                .option("split_size", Long.toString(splitSize));
        // The device keys of this run (image or socket of each device) travel as read options.
        for (Map.Entry<String, String> e : conf.getPropsWithPrefix("fs.smartssd.").entrySet()) {
            r = r.option("fs.smartssd." + e.getKey(), e.getValue());
        }
        Dataset<Row> logs = r.load(input.toString());
        return q == WeblogQuery.Q1 ? logs.groupBy("region").count() : logs.groupBy("region", "type").count();
    }

    /** {@code counts[region][type]} from the DataFrame's rows (Q1 rows count under type 0). */
    static long[][] counts(WeblogQuery q, List<Row> rows) {
        long[][] c = new long[Wc98.NUM_REGIONS][Wc98.NUM_TYPES];
        for (Row row : rows) {
            int region = row.getInt(0);
            int type = q == WeblogQuery.Q1 ? 0 : Math.min(row.getInt(1), Wc98.NUM_TYPES - 1);
            c[region][type] += row.getLong(row.length() - 1);
        }
        return c;
    }

    /** What the smartssd scan of a DataFrame's physical plan says was pushed (the EXPLAIN text). */
    public static String scanDescription(Dataset<Row> df) {
        SparkPlan plan = df.queryExecution().executedPlan();
        for (SparkPlan p : CollectionConverters.asJava(plan.collectLeaves())) {
            if (p instanceof BatchScanExec b) {
                return b.scan().description();
            }
        }
        return "no smartssd scan in the plan:\n" + plan;
    }

    /** Runs one query and measures it as {@link WeblogJobs#run} measures the Hadoop versions. */
    public static RunResult run(Configuration conf, WeblogQuery q, Path input, int entryBytes, int topN,
                                DoubleConsumer progress) throws IOException {
        Wc98.checkEntryBytes(entryBytes);
        if (topN < 1 || topN > Wc98.NUM_TYPES) {
            throw new IllegalArgumentException("top-n " + topN + " is out of range [1, 13]");
        }
        FileSystem fs = input.getFileSystem(conf);
        if (!(fs instanceof SmartSsdFileSystem sfs)) {
            throw new IOException(input + " is not on a smartssd:// device: the spark-device version pushes the"
                    + " query into the device that holds the data");
        }
        long inputBytes = fs.getFileStatus(input).getLen();
        if (inputBytes % entryBytes != 0) {
            throw new IOException(input + ": size " + inputBytes + " is not a multiple of entry_bytes " + entryBytes
                    + " (wrong --entry-bytes?)");
        }
        long splitSize = conf.getLong(SPLIT_SIZE, Math.max(1, inputBytes));
        SparkSession spark = session(conf);
        SmartSsd ssd = sfs.device();
        DeviceStats before = ssd.stats();
        long t0 = System.nanoTime();
        List<Row> rows;
        try {
            rows = dataFrame(spark, conf, q, input, entryBytes, splitSize).collectAsList();
        } catch (RuntimeException e) {
            throw new IOException(q.shortName() + " spark-device on " + input + " failed: " + rootMessage(e), e);
        }
        long wall = System.nanoTime() - t0;
        DeviceStats after = ssd.stats();
        if (progress != null) {
            progress.accept(1.0);
        }
        WeblogAnswer answer = WeblogAnswer.of(q, counts(q, rows), topN);
        return new RunResult(Version.SPARK_DEVICE, q, entryBytes, inputBytes, answer, wall,
                after.deviceClockNanos() - before.deviceClockNanos(), delta(before, after, "host.bytes_out"),
                delta(before, after, "flash.bytes_read"));
    }

    private static long delta(DeviceStats a, DeviceStats b, String counter) {
        return b.counters().getOrDefault(counter, 0L) - a.counters().getOrDefault(counter, 0L);
    }

    /** Spark wraps a task's failure several times; the innermost message names the cause. */
    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
