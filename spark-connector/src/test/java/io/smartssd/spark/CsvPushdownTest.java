package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.explain;
import static io.smartssd.spark.TestSpark.sameOrderedRows;
import static io.smartssd.spark.TestSpark.sameRows;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Delimited text with a user schema of every supported type (bigint, int, smallint, tinyint, double,
 * string, boolean), empty fields (NULL) everywhere, on the device and through Spark's CSV reader.
 * Doubles are multiples of 1/4, so sums are exact in any order of addition.
 */
class CsvPushdownTest {
    static final int ROWS = 2500;
    static final String SCHEMA = "id BIGINT, i INT, sm SMALLINT, tn TINYINT, d DOUBLE, name STRING, flag BOOLEAN";
    static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "abacus", "zulu", "midnight", "amid", "x", "yz"};

    @BeforeAll
    static void data() throws Exception {
        Random r = new Random(7);
        StringBuilder csv = new StringBuilder();
        StringBuilder piped = new StringBuilder("id|i|sm|tn|d|name|flag\n");
        for (int k = 0; k < ROWS; k++) {
            String[] f = {
                Long.toString(k * 1_000_003L - 900_000_000L),
                Integer.toString(r.nextInt(2001) - 1000),
                Integer.toString(r.nextInt(601) - 300),
                Integer.toString(r.nextInt(21) - 10),
                Double.toString((r.nextInt(1601) - 800) / 4.0),
                WORDS[r.nextInt(WORDS.length)] + (r.nextInt(3) == 0 ? "-" + r.nextInt(50) : ""),
                r.nextBoolean() ? "true" : "false",
            };
            for (int j = 1; j < f.length; j++) {
                if (r.nextInt(12) == 0) {
                    f[j] = ""; // NULL
                }
            }
            csv.append(String.join(",", f)).append('\n');
            piped.append(String.join("|", f)).append('\n');
        }
        String dev = TestSpark.putObject("csv/data.csv", csv.toString().getBytes(StandardCharsets.UTF_8));
        TestSpark.putObject("piped/part-0.txt", piped.toString().getBytes(StandardCharsets.UTF_8));
        TestSpark.putObject("piped/part-1.txt", piped.toString().getBytes(StandardCharsets.UTF_8));
        TestSpark.putObject("piped/_SUCCESS", new byte[0]);
        String local = TestSpark.putLocal("data.csv", csv.toString().getBytes(StandardCharsets.UTF_8));
        session().read().format("smartssd").schema(SCHEMA).option("split_size", "20000").load(dev)
                .createOrReplaceTempView("c");
        session().read().schema(SCHEMA).csv(local).createOrReplaceTempView("c_ref");
    }

    private static String check(String sql, String... expected) {
        sameRows(sql, "c", "c_ref");
        String d = explain(sql, "c");
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
    void everyColumnTypeRoundTrips() {
        List<Row> rows = sameRows("SELECT * FROM {t}", "c", "c_ref");
        assertEquals(ROWS, rows.size());
        assertTrue(session().table("c").rdd().getNumPartitions() >= 3);
        // row-at-a-time readers give the same answer as the column batches
        session().read().format("smartssd").schema(SCHEMA).option("columnar", "false").option("split_size", "7000")
                .load("smartssd://" + TestSpark.DEVICE + "/csv/data.csv").createOrReplaceTempView("c_rows");
        sameRows("SELECT * FROM {t}", "c_rows", "c_ref");
    }

    @Test
    void comparisonsOnEveryType() {
        check("SELECT * FROM {t} WHERE id > 0", "id > 0");
        check("SELECT * FROM {t} WHERE i BETWEEN -10 AND 10", "i >= -10", "i <= 10");
        check("SELECT * FROM {t} WHERE sm < 0 AND tn = 3", "sm < 0", "tn = 3");
        check("SELECT * FROM {t} WHERE d >= 12.5", "d >= 12.5");
        check("SELECT * FROM {t} WHERE flag", "flag = true");
        check("SELECT * FROM {t} WHERE flag = false AND d < 0");
        check("SELECT * FROM {t} WHERE name >= 'm'", "name >= 'm'");
        check("SELECT * FROM {t} WHERE name IN ('x', 'yz', 'beta')", "name IN");
        check("SELECT * FROM {t} WHERE d = 12.25 OR i = 15", "(d = 12.25) OR (i = 15)");
        check("SELECT * FROM {t} WHERE i > 2.5");
        check("SELECT id FROM {t} WHERE tn IN (1, 2, NULL)");
        check("SELECT id FROM {t} WHERE NOT (tn IN (1, 2))", "NOT (tn IN (1, 2))");
    }

    @Test
    void stringPredicates() {
        check("SELECT * FROM {t} WHERE name LIKE 'a%'", "name LIKE 'a%'");
        check("SELECT * FROM {t} WHERE name LIKE '%a'", "name LIKE '%a'");
        check("SELECT * FROM {t} WHERE name LIKE '%mid%'", "name LIKE '%mid%'");
        check("SELECT id FROM {t} WHERE startswith(name, 'ab') OR endswith(name, '-1')");
        check("SELECT * FROM {t} WHERE name LIKE 'a%a'"); // may or may not push; the answer must hold
        check("SELECT id FROM {t} WHERE upper(name) = 'ZULU'", "!ZULU");
    }

    @Test
    void nullsAndEmpty() {
        check("SELECT * FROM {t} WHERE name IS NULL OR flag IS NULL", "IS NULL");
        check("SELECT count(*), count(d), count(name) FROM {t}", "PushedAggregates: [COUNT(*), COUNT(d), COUNT(name)]");
        check("SELECT * FROM {t} WHERE i > 5000");
        check("SELECT flag, count(*), sum(d) FROM {t} WHERE i > 5000 GROUP BY flag", "PushedGroupBy: [flag]");
        check("SELECT sum(i), min(name), max(d) FROM {t} WHERE i > 5000", "PushedAggregates");
    }

    @Test
    void aggregatesOfEveryType() {
        check("SELECT flag, count(*), sum(i), sum(sm), sum(tn), sum(d), avg(d), avg(i) FROM {t} GROUP BY flag",
              "PushedGroupBy: [flag]");
        check("SELECT tn, min(name), max(name), min(d), max(d), min(flag), max(flag), min(id), max(sm) FROM {t} GROUP BY tn",
              "PushedGroupBy: [tn]", "MIN(name)");
        check("SELECT name, count(*) FROM {t} WHERE name LIKE '%a%' GROUP BY name", "PushedGroupBy: [name]");
        check("SELECT d, flag, count(*) FROM {t} GROUP BY d, flag", "PushedGroupBy: [d, flag]");
    }

    @Test
    void topN() {
        sameOrderedRows("SELECT id, name FROM {t} ORDER BY id DESC LIMIT 9", "c", "c_ref");
        sameOrderedRows("SELECT id, d FROM {t} WHERE d IS NOT NULL ORDER BY d, id LIMIT 15", "c", "c_ref");
        sameOrderedRows("SELECT name, id FROM {t} ORDER BY name DESC, id LIMIT 15", "c", "c_ref");
        String d = explain("SELECT id, name FROM {t} ORDER BY id DESC LIMIT 9", "c");
        assertTrue(d.contains("PushedTopN"), d);
    }

    @Test
    void headerDelimiterAndDirectories() {
        session().read().format("smartssd").schema(SCHEMA).option("delimiter", "|").option("header", "true")
                .load("smartssd://" + TestSpark.DEVICE + "/piped").createOrReplaceTempView("p");
        // the directory holds the data twice (part-0, part-1; _SUCCESS is skipped), header lines dropped
        sameRows("SELECT * FROM {t}", "p", "(SELECT * FROM c_ref UNION ALL SELECT * FROM c_ref)");
        sameRows("SELECT name, count(*), sum(i) FROM {t} GROUP BY name", "p",
                 "(SELECT * FROM c_ref UNION ALL SELECT * FROM c_ref)");
    }
}
