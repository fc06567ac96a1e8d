package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.explain;
import static io.smartssd.spark.TestSpark.sameOrderedRows;
import static io.smartssd.spark.TestSpark.sameRows;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Web logs in the Combined Log Format, the most common there is: space-delimited, with the request,
 * the referrer and the user agent quoted (they hold spaces), {@code -} for a missing size and a
 * bracketed timestamp that itself holds a space ({@code [10/Oct/2000:13:55:36 -0700]}, which a
 * space delimiter cuts in two fields, for Spark's CSV reader as for the device). Every pushdown kind
 * answers as Spark's own CSV reader does with the same options; the same data tab-delimited too.
 */
class CsvSpaceDelimitedTest {
    static final int LINES = 3000;
    static final String SCHEMA = "host STRING, ident STRING, user STRING, ts STRING, tz STRING, request STRING,"
            + " status INT, size BIGINT, referrer STRING, agent STRING";
    static final String[] PATHS = {"/index.html", "/images/logo.gif", "/images/ball.jpg", "/cgi-bin/search?q=a b",
        "/english/news.html", "/french/teams.html"};
    static final String[] AGENTS = {"Mozilla/4.0 (compatible; MSIE 4.01; Windows 95)", "Mozilla/3.01 (X11; I; Linux)",
        "Lynx/2.8", "-"};
    static final int[] STATUS = {200, 200, 200, 304, 404, 206};

    @BeforeAll
    static void data() throws Exception {
        Random r = new Random(7);
        StringBuilder space = new StringBuilder(), tab = new StringBuilder();
        for (int k = 0; k < LINES; k++) {
            String host = "10.0." + r.nextInt(8) + "." + k;
            String user = r.nextInt(10) == 0 ? "frank" : "-";
            String ts = String.format("[%02d/May/1998:%02d:%02d:%02d", 1 + r.nextInt(28), r.nextInt(24), r.nextInt(60),
                    r.nextInt(60));
            String tz = r.nextBoolean() ? "-0700]" : "+0000]";
            String req = (r.nextInt(8) == 0 ? "POST " : "GET ") + PATHS[r.nextInt(PATHS.length)] + " HTTP/1."
                    + r.nextInt(2);
            int status = STATUS[r.nextInt(STATUS.length)];
            String size = status == 304 || r.nextInt(20) == 0 ? "-" : Integer.toString(r.nextInt(100000));
            String ref = r.nextInt(3) == 0 ? "-" : "http://www.france98.com" + PATHS[r.nextInt(PATHS.length)];
            String agent = AGENTS[r.nextInt(AGENTS.length)];
            space.append(String.join(" ", host, "-", user, ts, tz, '"' + req + '"', Integer.toString(status), size,
                    '"' + ref + '"', '"' + agent + '"')).append('\n');
            tab.append(String.join("\t", host, "-", user, ts + " " + tz, '"' + req + '"', Integer.toString(status), size,
                    '"' + ref + '"', '"' + agent + '"')).append('\n');
        }
        byte[] s = space.toString().getBytes(StandardCharsets.UTF_8);
        byte[] t = tab.toString().getBytes(StandardCharsets.UTF_8);
        String devSpace = TestSpark.putObject("clf/access.log", s);
        String devTab = TestSpark.putObject("clf/access.tsv", t);
        String localSpace = TestSpark.putLocal("access.log", s);
        String localTab = TestSpark.putLocal("access.tsv", t);
        // split_size cuts lines, so partitions meet mid-line
        session().read().format("smartssd").schema(SCHEMA).option("delimiter", " ").option("split_size", "20000")
                .load(devSpace).createOrReplaceTempView("clf");
        session().read().schema(SCHEMA).option("delimiter", " ").csv(localSpace).createOrReplaceTempView("clf_ref");
        String tabSchema = "host STRING, ident STRING, user STRING, ts STRING, request STRING, status INT,"
                + " size BIGINT, referrer STRING, agent STRING";
        // a literal tab, and Spark's escape for it, read the same
        session().read().format("smartssd").schema(tabSchema).option("sep", "\t").load(devTab)
                .createOrReplaceTempView("tsv");
        session().read().format("smartssd").schema(tabSchema).option("delimiter", "\\t").load(devTab)
                .createOrReplaceTempView("tsv_escaped");
        session().read().schema(tabSchema).option("sep", "\t").csv(localTab).createOrReplaceTempView("tsv_ref");
    }

    @Test
    void everyRowAsSparkReadsIt() {
        List<Row> rows = sameRows("SELECT * FROM {t}", "clf", "clf_ref");
        assertEquals(LINES, rows.size());
        sameRows("SELECT * FROM {t}", "tsv", "tsv_ref");
        sameRows("SELECT * FROM {t}", "tsv_escaped", "tsv_ref");
        assertTrue(explain("SELECT * FROM {t}", "clf").contains("delimiter=' '"), explain("SELECT * FROM {t}", "clf"));
    }

    @Test
    void filtersOfEveryKind() {
        sameRows("SELECT host, status FROM {t} WHERE status = 404", "clf", "clf_ref");
        sameRows("SELECT host FROM {t} WHERE status <> 200 AND size >= 50000", "clf", "clf_ref");
        sameRows("SELECT host, size FROM {t} WHERE size IS NULL", "clf", "clf_ref");
        sameRows("SELECT host FROM {t} WHERE size IS NOT NULL AND size < 100", "clf", "clf_ref");
        sameRows("SELECT host FROM {t} WHERE status IN (206, 404)", "clf", "clf_ref");
        sameRows("SELECT host FROM {t} WHERE NOT (status = 200 OR user = 'frank')", "clf", "clf_ref");
        sameRows("SELECT host, request FROM {t} WHERE request LIKE 'POST%'", "clf", "clf_ref");
        sameRows("SELECT host FROM {t} WHERE request LIKE '%HTTP/1.1'", "clf", "clf_ref");
        sameRows("SELECT host FROM {t} WHERE agent LIKE '%Linux%'", "clf", "clf_ref");
        sameRows("SELECT host FROM {t} WHERE referrer <=> '-'", "clf", "clf_ref");
        sameRows("SELECT host, tz FROM {t} WHERE tz = '-0700]' AND ts > '[15/May'", "clf", "clf_ref");
        String sql = "SELECT host FROM {t} WHERE status = 404";
        assertTrue(explain(sql, "clf").contains("status = 404"), explain(sql, "clf"));
        sameRows("SELECT host FROM {t} WHERE request LIKE '%search?q=a b%'", "tsv", "tsv_ref");
    }

    @Test
    void aggregatesLimitsAndTopN() {
        String sql = "SELECT status, count(*), count(size), sum(size), min(size), max(size), avg(size) FROM {t}"
                + " GROUP BY status";
        sameRows(sql, "clf", "clf_ref");
        assertTrue(explain(sql, "clf").contains("PushedGroupBy: [status]"), explain(sql, "clf"));
        sameRows("SELECT user, referrer, count(*) FROM {t} WHERE status = 200 GROUP BY user, referrer", "clf",
                "clf_ref");
        sameRows("SELECT count(*), sum(size) FROM {t} WHERE agent = '-'", "tsv", "tsv_ref");
        // LIMIT picks any rows: 7 of the reference's, the limit pushed
        String lim = "SELECT host, request, status FROM {t} WHERE status = 200 LIMIT 7";
        List<Row> some = session().sql(lim.replace("{t}", "clf")).collectAsList();
        assertEquals(7, some.size());
        assertTrue(new java.util.HashSet<>(session().sql("SELECT host, request, status FROM clf_ref WHERE status = 200")
                .collectAsList()).containsAll(some), some.toString());
        assertTrue(explain(lim, "clf").contains("PushedLimit: 7"), explain(lim, "clf"));
        // required columns: only the quoted request and the size reach Spark
        String cols = "SELECT request, size FROM {t} WHERE size > 99000";
        sameRows(cols, "clf", "clf_ref");
        assertTrue(explain(cols, "clf").contains("ReadSchema: struct<request:string,size:bigint>"), explain(cols, "clf"));
        // host is unique, so the order is decided: top-N on the device equals Spark's
        sameOrderedRows("SELECT host, size FROM {t} WHERE size IS NOT NULL ORDER BY size DESC, host LIMIT 9", "clf",
                "clf_ref");
    }
}
