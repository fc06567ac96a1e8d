package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.explain;
import static io.smartssd.spark.TestSpark.sameRows;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.spark.metrics.DeviceSplitsMetric;
import io.smartssd.spark.metrics.HostSplitsMetric;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Option offload (docs/OFFLOAD.md) on WorldCup98 records: under device, host and auto every pushdown shape
 * (filters, projections, partial aggregates merged in one partition) answers as Spark's own CSV reader does
 * over the same records decoded; EXPLAIN names the plan; the metrics count where the partitions ran; a bad
 * setting is refused naming its option.
 */
class OffloadSparkTest {
    static final int RECORDS = 6000;
    static final String SCHEMA = "timestamp BIGINT, client_id BIGINT, object_id BIGINT, size BIGINT, method INT,"
            + " http_version INT, status_code INT, type INT, region INT, server INT";
    static final List<String> QUERIES = List.of(
            "SELECT * FROM {t} WHERE status_code = 5",
            "SELECT timestamp, region FROM {t} WHERE region >= 6 AND size IS NOT NULL",
            "SELECT region, count(*) FROM {t} GROUP BY region",
            "SELECT type, count(*), sum(size) FROM {t} WHERE status_code < 20 GROUP BY type");
    private static String dev;

    @BeforeAll
    static void data() throws Exception {
        Random r = new Random(34);
        ByteBuffer bin = ByteBuffer.allocate(RECORDS * 20);
        StringBuilder csv = new StringBuilder();
        for (int i = 0; i < RECORDS; i++) {
            long ts = 894000000L + 5L * i;
            long client = r.nextInt(5000);
            long object = r.nextInt(3000);
            boolean noSize = r.nextInt(10) == 0;
            long size = noSize ? 0xFFFFFFFFL : r.nextInt(100000);
            int method = r.nextInt(6);
            int version = r.nextInt(4);
            int code = r.nextInt(41);
            int type = r.nextInt(14);
            int region = r.nextInt(8);
            int server = r.nextInt(32);
            bin.putInt((int) ts).putInt((int) client).putInt((int) object).putInt((int) size)
               .put((byte) method).put((byte) (version << 6 | code)).put((byte) type).put((byte) (region << 5 | server));
            csv.append(ts).append(',').append(client).append(',').append(object).append(',')
               .append(noSize ? "" : Long.toString(size)).append(',').append(method).append(',').append(version)
               .append(',').append(code).append(',').append(type).append(',').append(region).append(',')
               .append(server).append('\n');
        }
        dev = TestSpark.putObject("offload/log.bin", bin.array());
        String local = TestSpark.putLocal("offload.csv", csv.toString().getBytes(StandardCharsets.UTF_8));
        for (String mode : List.of("device", "host", "auto")) {
            // 120000 bytes in 16 KiB splits: 8 partitions, whose edges cut records
            session().read().format("smartssd").option("format", "wc98").option("split_size", "16k")
                    .option("offload", mode).option("offload.calibration.file",
                            TestSpark.localDir().resolve("offload-calibration.properties").toString())
                    .load(dev).createOrReplaceTempView("o_" + mode);
        }
        session().read().schema(SCHEMA).csv(local).createOrReplaceTempView("o_ref");
    }

    @Test
    void everyModeAnswersAsSparksOwnReader() {
        for (String q : QUERIES) {
            for (String mode : List.of("device", "host", "auto")) {
                sameRows(q, "o_" + mode, "o_ref");
            }
        }
    }

    @Test
    void explainNamesThePlanAndMetricsCountTheLanes() {
        String q = "SELECT region, count(*) FROM {t} GROUP BY region";
        assertTrue(!explain(q, "o_device").contains("Offload"), explain(q, "o_device"));
        String host = explain(q, "o_host");
        assertTrue(host.contains("Offload: offload host (makespan): 0 split(s) on devices, 8 on the host"), host);
        String auto = explain(q, "o_auto");
        assertTrue(auto.contains("Offload: offload auto (makespan): "), auto);
        Dataset<Row> df = session().sql("SELECT * FROM o_host WHERE status_code = 5");
        df.collect();
        BatchScanExec scan = TestSpark.scan(df);
        assertEquals(8, scan.metrics().get(HostSplitsMetric.NAME).get().value());
        assertEquals(0, scan.metrics().get(DeviceSplitsMetric.NAME).get().value());
    }

    @Test
    void aBadSettingIsRefusedNamingItsOption() {
        Exception e = assertThrows(Exception.class, () -> session().read().format("smartssd").option("format", "wc98")
                .option("offload", "maybe").load(dev).collect());
        Throwable t = e;
        while (t.getCause() != null && !(t instanceof IllegalArgumentException)) {
            t = t.getCause();
        }
        assertTrue(t.getMessage().contains("offload = 'maybe': not an offload mode"), String.valueOf(t.getMessage()));
    }
}
