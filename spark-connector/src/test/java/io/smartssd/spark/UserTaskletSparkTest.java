package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.putObject;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.spark.metrics.BytesToHostMetric;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * option("tasklet", NAME) with a declared schema: the rows of a user tasklet (the web-log Q1 of
 * examples/tasklets/weblog-q1, built with the tasklet SDK and installed on the device) as a DataFrame,
 * one run per split; Spark sums the partial counts to the answer computed here from the bytes.
 */
class UserTaskletSparkTest {
    static final String[] REGIONS = {"Santa Clara", "Plano", "Herndon", "Paris", "region-4", "region-5", "region-6",
        "region-7"};
    static final int ENTRY = 32;
    static String uri;
    static TreeMap<String, Long> want = new TreeMap<>();

    @BeforeAll
    static void install() throws Exception {
        Path repo = Path.of(System.getProperty("smartssd.repo", "..")).toAbsolutePath().normalize();
        Path wasm = TestSpark.localDir().resolve("q1.wasm");
        Process p = new ProcessBuilder("python3", repo.resolve("native/sdk/tasklet_sdk.py").toString(), "build", "-q",
                repo.resolve("examples/tasklets/weblog-q1/weblog-q1.c").toString(), "-o", wasm.toString())
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "tasklet SDK build failed: " + log);
        byte[] data = new byte[20_000 * ENTRY];
        Random rnd = new Random(9);
        for (int i = 0; i < 20_000; i++) {
            int region = rnd.nextInt(5);
            data[i * ENTRY + 19] = (byte) (region << 5 | rnd.nextInt(32));
            want.merge(REGIONS[region], 1L, Long::sum);
        }
        uri = putObject("user/wc98.bin", data);
        SmartSsdFileSystem fs = (SmartSsdFileSystem) FileSystem.get(URI.create(uri),
                session().sparkContext().hadoopConfiguration());
        fs.device().installTasklet("q1-spark", Files.readAllBytes(wasm), true);
    }

    @Test
    void userTaskletRowsAreADataFrame() {
        Dataset<Row> df = session().read().format("smartssd").schema("region STRING, count BIGINT")
                .option("tasklet", "q1-spark").option("param.entry_bytes", Integer.toString(ENTRY))
                .option("split_size", "100000").load(uri);
        assertTrue(df.queryExecution().executedPlan().toString().contains("user tasklet q1-spark"),
                df.queryExecution().executedPlan().toString());
        TreeMap<String, Long> got = new TreeMap<>();
        for (Row r : df.groupBy("region").sum("count").collectAsList()) {
            got.put(r.getString(0), r.getLong(1));
        }
        assertEquals(want, got);
        // the tasklet emits partial counts per split; the filter keeps Paris's (on the device), Spark sums them
        long paris = df.filter("region = 'Paris'").groupBy().sum("count").first().getLong(0);
        assertEquals(want.get("Paris"), paris);
    }

    private static Dataset<Row> q1(boolean pushdown) {
        return session().read().format("smartssd").schema("region STRING, count BIGINT")
                .option("tasklet", "q1-spark").option("param.entry_bytes", Integer.toString(ENTRY))
                .option("split_size", "100000").option("pushdown", Boolean.toString(pushdown)).load(uri);
    }

    private static List<String> sorted(List<Row> rows) {
        List<String> out = new ArrayList<>();
        rows.forEach(r -> out.add(r.toString()));
        out.sort(null);
        return out;
    }

    private static long bytesToHost(Dataset<Row> df) {
        df.collectAsList();
        return TestSpark.scan(df).metrics().get(BytesToHostMetric.NAME).get().value();
    }

    /**
     * The example declares region (= <> IN STARTS_WITH NULL) and count (= <> < <= > >=) filterable:
     * those filters run on the device, the rest stay with Spark, and every answer equals Spark's own
     * evaluation of the same filter on the tasklet's unfiltered rows.
     */
    @Test
    void filtersTheTaskletDeclaresRunOnTheDevice() {
        List<Row> unpushed = q1(false).collectAsList();
        assertTrue(unpushed.size() > 20, "partial counts of several splits: " + unpushed.size());
        Dataset<Row> local = session().createDataFrame(unpushed, q1(false).schema());
        String countIn = "count IN (" + unpushed.get(0).getLong(1) + ", " + unpushed.get(1).getLong(1) + ")";
        String[][] cases = {
            // filter, what the plan shows pushed (null: nothing of it), what it must not show pushed
            {"region = 'Paris'", "region = 'Paris'", null},
            {"count > 600", "count > 600", null},
            {"region IN ('Paris', 'Plano') AND count >= 600", "region IN ('Paris', 'Plano')", null},
            {"region LIKE 'P%'", "region LIKE 'P%'", null},
            {"region <> 'Herndon' OR count < 500", "(NOT (region = 'Herndon')) OR (count < 500)", null},
            {"count <= 620 AND count <> 610", "count <= 620", null},
            // not declared: ENDS_WITH on region, IN on count; not translatable: a function of a column
            {"region LIKE '%ris'", null, "ENDS_WITH"},
            {countIn, null, "count IN"},
            {"upper(region) = 'PARIS'", null, "upper"},
        };
        long all = bytesToHost(q1(true));
        for (String[] c : cases) {
            Dataset<Row> df = q1(true).filter(c[0]);
            String plan = TestSpark.scan(df).scan().description();
            assertTrue(plan.contains("PushedFilters: ["), plan);
            if (c[1] != null) {
                assertTrue(plan.contains(c[1]), c[0] + ": " + plan);
            } else {
                assertTrue(!plan.substring(plan.indexOf("PushedFilters")).contains(c[2]), c[0] + ": " + plan);
            }
            List<String> want = sorted(local.filter(c[0]).collectAsList());
            assertEquals(want, sorted(df.collectAsList()), c[0]);
            assertTrue(want.size() < unpushed.size(), c[0] + " drops rows: " + want.size());
            long bytes = bytesToHost(q1(true).filter(c[0]));
            if (c[1] == null) {
                assertEquals(all, bytes, c[0] + ": every row crosses");
            } else {
                assertTrue(!want.isEmpty(), c[0] + " keeps rows");
                assertTrue(bytes < all, c[0] + ": " + bytes + " bytes crossed, unfiltered " + all);
            }
        }
        // the web-log answer: Paris's accesses, from only Paris's rows
        Dataset<Row> paris = q1(true).filter("region = 'Paris'");
        assertEquals(want.get("Paris"), paris.groupBy().sum("count").first().getLong(0));
        // pushdown off: nothing is pushed, the same answer
        assertTrue(TestSpark.scan(q1(false).filter("region = 'Paris'")).scan().description()
                .contains("PushedFilters: []"));
    }

    @Test
    void aUserTaskletNeedsADeclaredSchema() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> session().read().format("smartssd").option("tasklet", "q1-spark").load(uri).count());
        assertTrue(e.getMessage().contains("needs a declared schema"), e.getMessage());
        org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> noSuch = session().read().format("smartssd")
                .schema("region STRING, count BIGINT").option("tasklet", "no-such-tasklet").load(uri);
        if (session().version().startsWith("3.")) {
            // Spark 3.5 reaches the first task: the device refuses the name there (NOT_FOUND, its lists)
            Exception e35 = assertThrows(Exception.class, noSuch::count);
            assertTrue(String.valueOf(e35.getMessage()).contains("unknown tasklet 'no-such-tasklet'"), e35.getMessage());
            return;
        }
        // refused at planning, from the device's lists, before any task runs
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, noSuch::count);
        assertTrue(unknown.getMessage().contains("unknown tasklet 'no-such-tasklet'")
                && unknown.getMessage().contains("q1-spark") && unknown.getMessage().contains("built in: weblog-q1"),
                unknown.getMessage());
    }
}
