package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.explain;
import static io.smartssd.spark.TestSpark.sameOrderedRows;
import static io.smartssd.spark.TestSpark.sameRows;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.spark.metrics.BytesToHostMetric;
import io.smartssd.spark.metrics.DeviceTimeMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
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
 * WorldCup98 records on the device against the same records decoded to CSV and read by Spark's own CSV
 * reader: every pushdown shape, NULL sizes, empty results, several partitions, padded records; and
 * what EXPLAIN says was (or was not) pushed.
 */
class Wc98PushdownTest {
    static final int RECORDS = 3000;
    static final String SCHEMA = "timestamp BIGINT, client_id BIGINT, object_id BIGINT, size BIGINT, method INT,"
            + " http_version INT, status_code INT, type INT, region INT, server INT";

    @BeforeAll
    static void data() throws Exception {
        Random r = new Random(42);
        ByteBuffer bin = ByteBuffer.allocate(RECORDS * 20);
        ByteBuffer padded = ByteBuffer.allocate(RECORDS * 32);
        StringBuilder csv = new StringBuilder();
        for (int i = 0; i < RECORDS; i++) {
            long ts = 894000000L + 3L * i;
            long client = r.nextInt(5000);
            long object = r.nextInt(3000);
            boolean noSize = r.nextInt(10) == 0;
            long size = noSize ? 0xFFFFFFFFL : (r.nextInt(4) == 0 ? 3_000_000_000L + r.nextInt(1000) : r.nextInt(100000));
            int method = r.nextInt(6);
            int version = r.nextInt(4);
            int code = r.nextInt(41);
            int type = r.nextInt(14);
            int region = r.nextInt(8);
            int server = r.nextInt(32);
            for (ByteBuffer b : new ByteBuffer[] {bin, padded}) {
                b.putInt((int) ts).putInt((int) client).putInt((int) object).putInt((int) size)
                 .put((byte) method).put((byte) (version << 6 | code)).put((byte) type).put((byte) (region << 5 | server));
            }
            padded.put(new byte[12]);
            csv.append(ts).append(',').append(client).append(',').append(object).append(',')
               .append(noSize ? "" : Long.toString(size)).append(',').append(method).append(',').append(version)
               .append(',').append(code).append(',').append(type).append(',').append(region).append(',')
               .append(server).append('\n');
        }
        String dev = TestSpark.putObject("wc98/log.bin", bin.array());
        String dev32 = TestSpark.putObject("wc98-32/log.bin", padded.array());
        String local = TestSpark.putLocal("wc98.csv", csv.toString().getBytes(StandardCharsets.UTF_8));
        // 60000 bytes in 16 KiB splits: 4 partitions, whose edges cut records
        session().read().format("smartssd").option("format", "wc98").option("split_size", "16k").load(dev)
                .createOrReplaceTempView("w");
        session().read().format("smartssd").option("format", "wc98").option("entry_bytes", "32")
                .option("split_size", "10000").load(dev32).createOrReplaceTempView("w32");
        session().read().schema(SCHEMA).csv(local).createOrReplaceTempView("w_ref");
    }

    private static String check(String sql, String... expected) {
        sameRows(sql, "w", "w_ref");
        String d = explain(sql, "w");
        for (String e : expected) {
            if (e.startsWith("!")) {
                assertFalse(d.contains(e.substring(1)), "EXPLAIN must not show " + e.substring(1) + ": " + d);
            } else {
                assertTrue(d.contains(e), "EXPLAIN must show " + e + ": " + d);
            }
        }
        return d;
    }

    @Test
    void fullScanEveryColumnSeveralPartitions() {
        List<Row> rows = sameRows("SELECT * FROM {t}", "w", "w_ref");
        assertEquals(RECORDS, rows.size());
        assertEquals(4, session().table("w").rdd().getNumPartitions());
        sameRows("SELECT * FROM {t}", "w32", "w_ref");
        check("SELECT status_code, server FROM {t}", "PushedFilters: []", "ReadSchema: struct<status_code:int,server:int>");
    }

    @Test
    void comparisonsAndBitFields() {
        check("SELECT * FROM {t} WHERE status_code = 5", "PushedFilters: [status_code IS NOT NULL, status_code = 5]");
        check("SELECT timestamp, region FROM {t} WHERE region >= 6 AND http_version < 2", "region >= 6",
              "http_version < 2");
        check("SELECT * FROM {t} WHERE object_id <> 7 AND client_id <= 100");
        check("SELECT * FROM {t} WHERE size > 2999999999", "size > 2999999999");
        sameRows("SELECT * FROM {t} WHERE status_code = 5 AND region = 1", "w32", "w_ref");
    }

    @Test
    void nullsInAndBooleanLogic() {
        check("SELECT * FROM {t} WHERE size IS NULL", "size IS NULL");
        check("SELECT * FROM {t} WHERE size IS NOT NULL AND object_id < 100", "size IS NOT NULL");
        check("SELECT * FROM {t} WHERE region IN (1, 3) OR method = 2", "PushedFilters: [(region IN (1, 3)) OR (method = 2)]");
        check("SELECT * FROM {t} WHERE NOT (type = 1 OR size < 5000)", "NOT");
        check("SELECT * FROM {t} WHERE size <=> 5", "size = 5");
        check("SELECT * FROM {t} WHERE NOT (size IN (1, 2, 3))");
    }

    @Test
    void emptyResults() {
        check("SELECT * FROM {t} WHERE timestamp < 0", "timestamp < 0");
        check("SELECT count(*), sum(size), min(size) FROM {t} WHERE timestamp < 0", "PushedAggregates");
        check("SELECT region, count(*) FROM {t} WHERE timestamp < 0 GROUP BY region", "PushedGroupBy: [region]");
    }

    @Test
    void aggregatesArePartialOnTheDevice() {
        check("SELECT region, count(*) FROM {t} WHERE status_code = 5 GROUP BY region",
              "status_code = 5", "PushedAggregates: [COUNT(*)]", "PushedGroupBy: [region]");
        check("SELECT type, count(*), count(size), sum(size), min(size), max(size), avg(size) FROM {t} GROUP BY type",
              "PushedAggregates: [COUNT(*), COUNT(size), SUM(size), MIN(size), MAX(size)]");
        check("SELECT count(*) FROM {t}", "PushedAggregates: [COUNT(*)]", "PushedGroupBy: []");
        check("SELECT region, http_version, max(timestamp), min(method) FROM {t} GROUP BY region, http_version",
              "PushedGroupBy: [region, http_version]");
        sameRows("SELECT region, count(*), sum(size) FROM {t} GROUP BY region", "w32", "w_ref");
    }

    @Test
    void limitAndTopN() {
        String sql = "SELECT timestamp, object_id FROM {t} WHERE region = 2 LIMIT 7";
        Dataset<Row> df = session().sql(sql.replace("{t}", "w"));
        List<Row> rows = df.collectAsList();
        assertEquals(7, rows.size());
        List<Row> all = session().sql("SELECT timestamp, object_id FROM w_ref WHERE region = 2").collectAsList();
        assertTrue(all.containsAll(rows), "limited rows come from the answer");
        assertTrue(explain(sql, "w").contains("PushedLimit: 7"), explain(sql, "w"));
        sameOrderedRows("SELECT timestamp, object_id FROM {t} ORDER BY timestamp DESC LIMIT 5", "w", "w_ref");
        sameOrderedRows("SELECT * FROM {t} WHERE size IS NOT NULL ORDER BY size, timestamp LIMIT 10", "w", "w_ref");
        // NULL sizes first, as Spark's ascending default
        sameOrderedRows("SELECT size, timestamp FROM {t} ORDER BY size, timestamp LIMIT 12", "w", "w_ref");
        String d = explain("SELECT timestamp FROM {t} ORDER BY timestamp DESC LIMIT 5", "w");
        assertTrue(d.contains("PushedTopN: [timestamp DESC NULLS LAST] LIMIT 5"), d);
    }

    @Test
    void whatMustNotBePushed() {
        // arithmetic stays in Spark, and then aggregates cannot be pushed either
        check("SELECT * FROM {t} WHERE object_id % 7 = 3", "PushedFilters: [object_id IS NOT NULL]", "!%");
        check("SELECT region, count(*) FROM {t} WHERE object_id % 2 = 0 GROUP BY region", "!%",
              "!PushedAggregates");
        // a mixed conjunction: the pushable half goes down, the rest stays
        check("SELECT * FROM {t} WHERE region = 3 AND client_id + object_id > 4000", "region = 3", "!+");
        check("SELECT count(DISTINCT region) FROM {t}", "!PushedAggregates");
        check("SELECT region, sum(size * 2) FROM {t} GROUP BY region", "!PushedAggregates");
        // NULLS LAST ascending is not the device's order: Spark sorts everything
        sameOrderedRows("SELECT size, timestamp FROM {t} ORDER BY size NULLS LAST, timestamp LIMIT 4", "w", "w_ref");
        assertFalse(explain("SELECT size FROM {t} ORDER BY size NULLS LAST LIMIT 4", "w").contains("PushedTopN"));
    }

    @Test
    void pushdownOffStillAnswers() {
        session().read().format("smartssd").option("format", "wc98").option("pushdown", "false")
                .load("smartssd://" + TestSpark.DEVICE + "/wc98/log.bin").createOrReplaceTempView("w_nopush");
        String sql = "SELECT region, count(*) FROM {t} WHERE status_code = 5 GROUP BY region";
        sameRows(sql, "w_nopush", "w_ref");
        String d = explain(sql, "w_nopush");
        assertTrue(d.contains("PushedFilters: []") && !d.contains("PushedAggregates"), d);
    }

    @Test
    void metricsCountDeviceTimeAndBytes() {
        Dataset<Row> df = session().sql("SELECT region, count(*) FROM w WHERE status_code = 5 GROUP BY region");
        df.collectAsList();
        BatchScanExec scan = TestSpark.scan(df);
        long flash = scan.metrics().get(FlashBytesReadMetric.NAME).get().value();
        long host = scan.metrics().get(BytesToHostMetric.NAME).get().value();
        long dev = scan.metrics().get(DeviceTimeMetric.NAME).get().value();
        assertTrue(flash >= RECORDS * 20L, "flash bytes read " + flash);
        assertTrue(host > 0 && host < 4 * 8 * 20, "bytes to host: 4 partitions x at most 8 regions, got " + host);
        assertTrue(dev > 0, "device time " + dev);
    }
}
