package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.explain;
import static io.smartssd.spark.TestSpark.sameRows;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.spark.metrics.BytesToHostMetric;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Format text with LIKE pushed to grep2, against Spark's own text reader over the same bytes: lines
 * longer than a page, keys straddling page and split boundaries, CRLF, no final line break, a key
 * absent from the data; what the scan says it pushed, and the bytes that crossed to the host.
 */
class TextLikePushdownTest {
    static final int SPLIT = 2 * 4096 + 5;   // extents cut pages and lines
    static int size;

    @BeforeAll
    static void data() throws Exception {
        byte[] log = log(new Random(7), 120_000);
        size = log.length;
        String uri = TestSpark.putObject("text/app.log", log);
        String local = TestSpark.putLocal("app.log", log);
        session().read().format("smartssd").option("format", "text").option("split_size", String.valueOf(SPLIT))
                .load(uri).createOrReplaceTempView("tx");
        session().read().format("smartssd").option("format", "text").option("pushdown", "false")
                .option("split_size", String.valueOf(SPLIT)).load(uri).createOrReplaceTempView("tx_nopush");
        session().read().text(local).createOrReplaceTempView("tx_ref");
        // every line CRLF, no final line break, extents of 100 bytes
        byte[] crlf = "GET /a HTTP/1.0\r\nxx\r\n\r\nPOST GET\r\nlast GET line".getBytes(StandardCharsets.UTF_8);
        session().read().format("smartssd").option("format", "text").option("split_size", "7")
                .load(TestSpark.putObject("text/crlf.log", crlf)).createOrReplaceTempView("crlf");
        session().read().text(TestSpark.putLocal("crlf.log", crlf)).createOrReplaceTempView("crlf_ref");
    }

    /**
     * Lines of words (some UTF-8, some CRLF, some longer than a page); ERROR planted in some, and
     * "ERROR" / "timeout" placed across every page and split boundary in turn; no final line break.
     */
    static byte[] log(Random r, int bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TreeSet<Integer> cuts = new TreeSet<>();
        for (int b = 4096; b < bytes; b += 4096) {
            cuts.add(b);
        }
        for (int b = SPLIT; b < bytes; b += SPLIT) {
            cuts.add(b);
        }
        String[] words = {"get", "the", "café", "index", "timeout", "ok", "GET", "x"};
        int n = 0;
        while (out.size() < bytes) {
            int off = out.size();
            Integer cut = cuts.ceiling(off + 2);
            StringBuilder line = new StringBuilder();
            if (cut != null && cut - off < 600) {
                // a key cut by the boundary: "ERR|OR" on even cuts, "time|out ERROR" on odd ones
                String key = (n++ % 2 == 0) ? "ERROR" : "timeout";
                line.append("y".repeat(cut - off - 2)).append(key).append(" after");
                if (key.equals("timeout")) {
                    line.append(" ERROR");
                }
                cuts.remove(cut);
            } else {
                int len = r.nextInt(20) == 0 ? 5000 + r.nextInt(6000) : r.nextInt(120);
                if (r.nextInt(8) == 0) {
                    line.append("ERROR ");
                }
                while (line.length() < len) {
                    line.append(words[r.nextInt(words.length)]).append(' ');
                }
            }
            byte[] b = line.toString().getBytes(StandardCharsets.UTF_8);
            out.write(b, 0, b.length);
            if (r.nextInt(4) == 0) {
                out.write('\r');
            }
            out.write('\n');
        }
        byte[] tail = "final ERROR line without a break".getBytes(StandardCharsets.UTF_8);
        out.write(tail, 0, tail.length);
        return out.toByteArray();
    }

    @Test
    void containsIsPushedToGrep2AndMatchesSparksTextReader() {
        for (String key : new String[] {"ERROR", "timeout", "café", "OR after", "yERR", "no such key here"}) {
            String sql = "SELECT value FROM {t} WHERE value LIKE '%" + key + "%'";
            sameRows(sql, "tx", "tx_ref");
            String d = explain(sql, "tx");
            assertTrue(d.contains("grep2 start='" + key + "'") && !d.contains("Spark re-checks"), d);
            assertTrue(d.contains("PushedFilters: [value LIKE '%" + key + "%'"), d);
        }
        assertEquals(0, session().sql("SELECT * FROM tx WHERE value LIKE '%no such key here%'").count());
        sameRows("SELECT count(*) FROM {t} WHERE contains(value, 'ERROR')", "tx", "tx_ref");
        sameRows("SELECT length(value) FROM {t} WHERE value LIKE '%timeout%' AND value LIKE '%ERROR%'", "tx", "tx_ref");
    }

    @Test
    void anchoredLikeIsASupersetSparkRechecks() {
        for (String like : new String[] {"ERROR%", "%line", "GET%", "%café "}) {
            String sql = "SELECT value FROM {t} WHERE value LIKE '" + like + "'";
            sameRows(sql, "tx", "tx_ref");
            assertTrue(explain(sql, "tx").contains("Spark re-checks"), explain(sql, "tx"));
        }
    }

    @Test
    void whatGrep2CannotSayStaysWithSpark() {
        // '%a%b%' and '_' reach a V2 source as no predicate at all: the lines are read as stored
        for (String sql : new String[] {"SELECT value FROM {t} WHERE value LIKE '%ERROR%timeout%'",
            "SELECT value FROM {t} WHERE value LIKE '%ERR_R%'", "SELECT value FROM {t} WHERE NOT contains(value, 'ERROR')",
            "SELECT value FROM {t} WHERE contains(value, 'ERROR') OR contains(value, 'café')",
            "SELECT value FROM {t}", "SELECT count(*) FROM {t}", "SELECT value FROM {t} WHERE value = ''"}) {
            sameRows(sql, "tx", "tx_ref");
            String d = explain(sql, "tx");
            assertTrue(d.contains("PushedFilters: []") && d.contains("lines read as stored"), d);
        }
        sameRows("SELECT value FROM {t} WHERE value LIKE '%ERROR%'", "tx_nopush", "tx_ref");
    }

    @Test
    void aUserSchemaRenamesTheColumn() {
        session().read().format("smartssd").option("format", "text").schema("line STRING")
                .option("split_size", String.valueOf(SPLIT)).load("smartssd://t0/text/app.log")
                .createOrReplaceTempView("tx_line");
        session().read().text(TestSpark.localDir().resolve("app.log").toString()).withColumnRenamed("value", "line")
                .createOrReplaceTempView("tx_line_ref");
        String sql = "SELECT line FROM {t} WHERE line LIKE '%ERROR%'";
        sameRows(sql, "tx_line", "tx_line_ref");
        assertTrue(explain(sql, "tx_line").contains("grep2 start='ERROR'"), explain(sql, "tx_line"));
    }

    @Test
    void crlfAndNoFinalLineBreak() {
        for (String sql : new String[] {"SELECT value FROM {t}", "SELECT value FROM {t} WHERE value LIKE '%GET%'",
            "SELECT value FROM {t} WHERE value LIKE '%line%'", "SELECT value FROM {t} WHERE value LIKE 'GET%'"}) {
            sameRows(sql, "crlf", "crlf_ref");
        }
        assertEquals(3, session().sql("SELECT * FROM crlf WHERE value LIKE '%GET%'").count());
    }

    @Test
    void onlyMatchingLinesCrossToTheHost() {
        long pushed = hostBytes("SELECT value FROM tx WHERE value LIKE '%after ERROR%'");
        long all = hostBytes("SELECT value FROM tx_nopush WHERE value LIKE '%after ERROR%'");
        assertTrue(all >= size, "without pushdown every byte crosses: " + all + " of " + size);
        assertTrue(pushed > 0 && pushed * 10 < all, "grep2 ships the matching lines only: " + pushed + " vs " + all);
    }

    private static long hostBytes(String sql) {
        Dataset<Row> df = session().sql(sql);
        List<Row> rows = df.collectAsList();
        assertTrue(!rows.isEmpty());
        return TestSpark.scan(df).metrics().get(BytesToHostMetric.NAME).get().value();
    }

    @Test
    void converterRefusesWhatGrep2CannotSay() {
        assertEquals(new TextTable.Grep2Pattern("ab", "", true), TextTable.grep2Of(pred("CONTAINS", "value", "ab"), "value"));
        assertEquals(new TextTable.Grep2Pattern("ab", "", false),
                TextTable.grep2Of(pred("STARTS_WITH", "value", "ab"), "value"));
        assertNull(TextTable.grep2Of(pred("CONTAINS", "other", "ab"), "value"));
        assertNull(TextTable.grep2Of(pred("CONTAINS", "value", ""), "value"));
        assertNull(TextTable.grep2Of(pred("CONTAINS", "value", "a\nb"), "value"));
        assertNull(TextTable.grep2Of(pred("CONTAINS", "value", "x".repeat(1025)), "value"));
        assertNull(TextTable.grep2Of(pred("=", "value", "ab"), "value"));
        assertNull(TextTable.grep2Of(new Predicate("CONTAINS", new Expression[] {FieldReference.apply("value")}), "value"));
        assertThrows(IllegalArgumentException.class, () -> session().read().format("smartssd").option("format", "text")
                .schema("a STRING, b STRING").load("smartssd://t0/text/crlf.log"));
    }

    private static Predicate pred(String name, String col, String value) {
        return new Predicate(name, new Expression[] {FieldReference.apply(col),
            new LiteralValue<>(UTF8String.fromString(value), DataTypes.StringType)});
    }
}
