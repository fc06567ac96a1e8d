package io.smartssd.examples.bench;

import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The Spark job of {@code bin/smartssd bench 2pm}'s jobs section: {@code SELECT value FROM log WHERE value
 * LIKE '%KEY%'} on a device daemon's text object (format text: the filter runs as grep2 in the device),
 * run twice, the second measured. Prints one JSON object: matching lines, wall time, how far the device's
 * virtual clock moved during the query, the partitions' device time summed, bytes to host, and the
 * scan's description.
 *
 *   SparkLike SOCKET OBJECT_PATH KEY SPLIT_SIZE
 */
public final class SparkLike {
    private SparkLike() {
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: SparkLike SOCKET OBJECT_PATH KEY SPLIT_SIZE");
            System.exit(2);
        }
        String uri = "smartssd://j0/" + args[1].replaceFirst("^/", "");
        SparkSession spark = SparkSession.builder().master("local[2]").appName("smartssd-2pm-jobs")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.shuffle.partitions", "2")
                .config("spark.hadoop.fs.smartssd.device.j0.socket", args[0]).getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        spark.read().format("smartssd").option("format", "text").option("split_size", args[3]).load(uri)
                .createOrReplaceTempView("log");
        String sql = "SELECT value FROM log WHERE value LIKE '%" + args[2].replace("'", "\\'") + "%'";
        try (SmartSsd ssd = SmartSsd.openRemote(Path.of(args[0]))) {
            spark.sql(sql).collectAsList(); // warm-up: class loading and JIT
            DeviceStats before = ssd.stats();
            long t0 = System.nanoTime();
            Dataset<Row> df = spark.sql(sql);
            List<Row> rows = df.collectAsList();
            long wall = System.nanoTime() - t0;
            DeviceStats after = ssd.stats();
            BatchScanExec scan = scan(df.queryExecution().executedPlan());
            long dev = scan.metrics().get("smartssdDeviceTime").get().value();
            long host = scan.metrics().get("smartssdBytesToHost").get().value();
            System.out.printf(Locale.ROOT, "{\"count\":%d,\"wall_ns\":%d,\"device_clock_ns\":%d,\"partitions_device_ns\":%d,"
                    + "\"bytes_to_host\":%d,\"scan\":\"%s\"}%n", rows.size(), wall,
                    after.deviceClockNanos() - before.deviceClockNanos(), dev, host,
                    scan.scan().description().replace("\\", "\\\\").replace("\"", "\\\""));
        }
        spark.stop();
    }

    private static BatchScanExec scan(SparkPlan plan) {
        for (SparkPlan p : CollectionConverters.asJava(plan.collectLeaves())) {
            if (p instanceof BatchScanExec b) {
                return b;
            }
        }
        throw new IllegalStateException("no BatchScan in " + plan);
    }
}
