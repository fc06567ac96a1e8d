package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.sameRows;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Complete aggregate pushdown: one partition runs every extent's request and merges their partial
 * groups, so Spark's physical plan has no exchange and no aggregate over the scan. Answers are checked
 * against Spark's own CSV and Parquet readers on random data: NULL group keys, many groups, empty and
 * all-filtered input, long sums overflowing across extents (ANSI on and off), AVG (Spark finishes it over
 * the one merged partition), and the option off (Spark's partial path). A pushed top-N likewise can run
 * every extent's request from one partition (option), Spark's own take over their rows.
 */
class CompleteAggregateTest {
    static final String SCHEMA = "k INT, g STRING, v BIGINT, d DOUBLE, s STRING, b BOOLEAN";
    static final String DEV = "smartssd://" + TestSpark.DEVICE + "/";

    @BeforeAll
    static void data() throws Exception {
        Random r = new Random(11);
        StringBuilder csv = new StringBuilder();
        for (int n = 0; n < 6000; n++) {
            String[] f = {
                r.nextInt(9) == 0 ? "" : Integer.toString(r.nextInt(7) - 3),
                r.nextInt(9) == 0 ? "" : "g" + r.nextInt(1500),            // many groups, some NULL
                r.nextInt(9) == 0 ? "" : Long.toString(r.nextLong() % 1_000_000_000_000L),
                r.nextInt(9) == 0 ? "" : Double.toString((r.nextInt(4001) - 2000) / 8.0),
                r.nextInt(9) == 0 ? "" : "s" + Integer.toString(r.nextInt(100_000), 36),
                r.nextInt(9) == 0 ? "" : Boolean.toString(r.nextBoolean()),
            };
            csv.append(String.join(",", f)).append('\n');
        }
        byte[] bytes = csv.toString().getBytes(StandardCharsets.UTF_8);
        String dev = TestSpark.putObject("agg/data.csv", bytes);
        String local = TestSpark.putLocal("agg.csv", bytes);
        // 16 KiB extents: about 12 requests for one query
        session().read().format("smartssd").schema(SCHEMA).option("split_size", "16k").load(dev)
                .createOrReplaceTempView("a");
        session().read().format("smartssd").schema(SCHEMA).option("split_size", "16k")
                .option("pushdown.aggregate.complete", "false").option("pushdown.topn.one_partition", "false")
                .load(dev).createOrReplaceTempView("a_partial");
        session().read().schema(SCHEMA).csv(local).createOrReplaceTempView("a_ref");

        // sums that overflow a long only when two extents' partial sums are added
        long big = Long.MAX_VALUE / 2 + 1000;
        String over = "1," + big + "\n".repeat(1) + "1," + (-5) + "\n" + "2,7\n" + "1," + big + "\n";
        String o = TestSpark.putObject("agg/over.csv", over.getBytes(StandardCharsets.UTF_8));
        session().read().format("smartssd").schema("k INT, v BIGINT").option("split_size", "20").load(o)
                .createOrReplaceTempView("o");
        session().read().schema("k INT, v BIGINT").csv(TestSpark.putLocal("over.csv",
                over.getBytes(StandardCharsets.UTF_8))).createOrReplaceTempView("o_ref");

        TestSpark.putObject("agg/empty.csv", new byte[0]);
        session().read().format("smartssd").schema(SCHEMA).load(DEV + "agg/empty.csv").createOrReplaceTempView("e");
        session().read().schema(SCHEMA).csv(TestSpark.putLocal("empty.csv", new byte[0])).createOrReplaceTempView("e_ref");

        session().read().schema(SCHEMA).csv(local).coalesce(3).write().mode("overwrite")
                .option("parquet.block.size", "32768").parquet(DEV + "agg_pq");
        session().read().format("smartssd").option("format", "parquet").option("split_size", "8k")
                .load(DEV + "agg_pq").createOrReplaceTempView("p");
        session().read().parquet(DEV + "agg_pq").createOrReplaceTempView("p_ref");
    }

    @AfterEach
    void ansiBack() {
        session().conf().unset("spark.sql.ansi.enabled");
    }

    private static List<SparkPlan> nodes(Dataset<Row> df) {
        List<SparkPlan> out = new ArrayList<>();
        List<SparkPlan> todo = new ArrayList<>(List.of(df.queryExecution().executedPlan()));
        while (!todo.isEmpty()) {
            SparkPlan p = todo.remove(todo.size() - 1);
            out.add(p);
            todo.addAll(TestSpark.list(p.children()));
        }
        return out;
    }

    /** The query's answer equals Spark's reader's, and its plan has (complete) or lacks an aggregate + exchange. */
    private static void check(String sql, String table, String ref, boolean complete) {
        sameRows(sql, table, ref);
        Dataset<Row> df = session().sql(sql.replace("{t}", table));
        List<SparkPlan> plan = nodes(df);
        String text = df.queryExecution().executedPlan().toString();
        BatchScanExec scan = (BatchScanExec) plan.stream().filter(p -> p instanceof BatchScanExec).findFirst()
                .orElseThrow();
        String d = scan.scan().description();
        assertTrue(d.contains("PushedAggregates"), d);
        if (complete) {
            assertFalse(plan.stream().anyMatch(p -> p instanceof Exchange), "no exchange:\n" + text);
            assertFalse(plan.stream().anyMatch(p -> p instanceof BaseAggregateExec), "no aggregate:\n" + text);
            assertEquals(1, scan.inputPartitions().size(), text);
            assertTrue(d.contains("AggregateComplete: merged in one partition"), d);
        } else {
            assertTrue(plan.stream().anyMatch(p -> p instanceof BaseAggregateExec), "an aggregate:\n" + text);
            assertFalse(d.contains("AggregateComplete"), d);
        }
    }

    @Test
    void groupByWithoutShuffleEqualsSparksReaders() {
        String[] queries = {
            "SELECT k, count(*), count(v), sum(v), sum(d), min(s), max(s), min(d), max(d), min(b), max(b) FROM {t} GROUP BY k",
            "SELECT g, count(*), sum(v), max(k) FROM {t} GROUP BY g",                     // ~1500 groups and NULL
            "SELECT k, b, count(*), min(v) FROM {t} WHERE d > 0 GROUP BY k, b",
            "SELECT d, count(*) FROM {t} GROUP BY d",                                       // double keys
            "SELECT count(*), sum(v), min(g), max(d) FROM {t}",                             // global
            "SELECT count(*), sum(v), min(g) FROM {t} WHERE v > 9000000000000000",          // all filtered, global
            "SELECT k, count(*), sum(v) FROM {t} WHERE v > 9000000000000000 GROUP BY k",    // all filtered
            "SELECT k AS key, sum(v) AS total, count(*) + 1 FROM {t} GROUP BY k HAVING sum(v) > 0",
        };
        for (int w : new int[] {1, 5, 1024}) { // requests in flight: one at a time, a window, all at once
            session().read().format("smartssd").schema(SCHEMA).option("split_size", "16k")
                    .option("requests_in_flight", Integer.toString(w)).load(DEV + "agg/data.csv")
                    .createOrReplaceTempView("a_w" + w);
            check(queries[0], "a_w" + w, "a_ref", true);
            check(queries[1], "a_w" + w, "a_ref", true);
            TestSpark.sameOrderedRows("SELECT v, k, g FROM {t} ORDER BY v DESC LIMIT 20", "a_w" + w, "a_ref");
        }
        for (String q : queries) {
            check(q, "a", "a_ref", true);
            check(q, "p", "p_ref", true);
            check(q, "a_partial", "a_ref", false);
        }
        // the empty object: no rows per group, one row (0, NULL, NULL) for the global aggregate
        check("SELECT count(*), sum(v), max(s) FROM {t}", "e", "e_ref", true);
        check("SELECT k, count(*) FROM {t} GROUP BY k", "e", "e_ref", true);
    }

    @Test
    void averageAndDistinctStayCorrect() {
        // Spark asks again with AVG as SUM / COUNT, pushed complete: the division is a projection over the scan
        check("SELECT k, avg(v), avg(d), count(*) FROM {t} GROUP BY k", "a", "a_ref", true);
        check("SELECT avg(k) FROM {t}", "p", "p_ref", true);
        // not pushable: COUNT(DISTINCT) stays in Spark
        sameRows("SELECT k, count(DISTINCT g) FROM {t} GROUP BY k", "a", "a_ref");
        assertFalse(TestSpark.explain("SELECT k, count(DISTINCT g) FROM {t} GROUP BY k", "a").contains("PushedAggregates"));
    }

    @Test
    void sumOverflowAcrossExtentsAsSpark() {
        // the partials (big - 5, big) fit; their sum does not
        assertTrue(session().sql("SELECT * FROM o").collectAsList().size() == 4);
        for (String ansi : new String[] {"true", "false"}) {
            session().conf().set("spark.sql.ansi.enabled", ansi);
            for (String t : new String[] {"o", "o_ref"}) {
                Dataset<Row> q = session().sql("SELECT k, sum(v) FROM " + t + " GROUP BY k");
                if (ansi.equals("true")) {
                    Throwable e = assertThrows(Throwable.class, q::collectAsList, t);
                    StringBuilder all = new StringBuilder();
                    for (Throwable c = e; c != null; c = c.getCause()) {
                        all.append(c.getMessage()).append(" | ");
                    }
                    assertTrue(all.toString().contains("overflow"), all.toString());
                }
            }
            if (ansi.equals("false")) {
                sameRows("SELECT k, sum(v), count(*) FROM {t} GROUP BY k", "o", "o_ref");
                long big = Long.MAX_VALUE / 2 + 1000;
                Row one = session().sql("SELECT sum(v) FROM o WHERE k = 1").collectAsList().get(0);
                assertEquals(big + big - 5, one.getLong(0)); // wrapped, as Spark's Sum without ANSI
            }
        }
        String d = TestSpark.explain("SELECT k, sum(v) FROM {t} GROUP BY k", "o");
        assertTrue(d.contains("AggregateComplete"), d);
    }

    @Test
    void topNFromOnePartition() {
        session().read().format("smartssd").schema(SCHEMA).option("split_size", "16k")
                .option("pushdown.topn.one_partition", "true").load(DEV + "agg/data.csv").createOrReplaceTempView("a_top");
        session().read().format("smartssd").option("format", "parquet").option("split_size", "8k")
                .option("pushdown.topn.one_partition", "true").load(DEV + "agg_pq").createOrReplaceTempView("p_top");
        String[] queries = {
            "SELECT v, k, g FROM {t} ORDER BY v DESC LIMIT 20",
            "SELECT v, s FROM {t} WHERE v IS NOT NULL ORDER BY v LIMIT 7",
            "SELECT g, v FROM {t} WHERE g IS NOT NULL ORDER BY g DESC, v DESC LIMIT 30",
        };
        for (String q : queries) {
            for (String[] t : new String[][] {{"a_top", "a_ref"}, {"p_top", "p_ref"}, {"a_partial", "a_ref"}, {"a", "a_ref"}}) {
                TestSpark.sameOrderedRows(q, t[0], t[1]);
                BatchScanExec scan = TestSpark.scan(session().sql(q.replace("{t}", t[0])));
                String d = scan.scan().description();
                assertTrue(d.contains("PushedTopN"), d);
                if (t[0].equals("a_partial") || t[0].equals("a")) { // off, and off by default
                    assertTrue(scan.inputPartitions().size() > 1, d);
                    assertFalse(d.contains("one partition"), d);
                } else {
                    assertEquals(1, scan.inputPartitions().size(), d);
                    assertTrue(d.contains("TopN: every extent in one partition"), d);
                }
            }
        }
    }

    @Test
    void badOptionIsRefusedByName() {
        Throwable t = assertThrows(Throwable.class, () -> session().read().format("smartssd").schema(SCHEMA)
                .option("pushdown.aggregate.complete", "maybe").load(DEV + "agg/data.csv"));
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append(" | ");
        }
        assertTrue(all.toString().contains("pushdown.aggregate.complete") && all.toString().contains("maybe"),
                all.toString());
        t = assertThrows(Throwable.class, () -> session().read().format("smartssd").schema(SCHEMA)
                .option("pushdown.topn.one_partition", "2").load(DEV + "agg/data.csv"));
        all.setLength(0);
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append(" | ");
        }
        assertTrue(all.toString().contains("pushdown.topn.one_partition"), all.toString());
        t = assertThrows(Throwable.class, () -> session().read().format("smartssd").schema(SCHEMA)
                .option("requests_in_flight", "0").load(DEV + "agg/data.csv"));
        assertTrue(t.getMessage().contains("requests_in_flight"), t.getMessage());
    }
}
