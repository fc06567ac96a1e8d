package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.putObject;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        Path repo = Path.of("..").toAbsolutePath().normalize();
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
        // filters are Spark's: the tasklet emits partial counts per split, Spark keeps the ones asked for
        long paris = df.filter("region = 'Paris'").groupBy().sum("count").first().getLong(0);
        assertEquals(want.get("Paris"), paris);
    }

    @Test
    void aUserTaskletNeedsADeclaredSchema() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> session().read().format("smartssd").option("tasklet", "q1-spark").load(uri).count());
        assertTrue(e.getMessage().contains("needs a declared schema"), e.getMessage());
        Exception unknown = assertThrows(Exception.class, () -> session().read().format("smartssd")
                .schema("region STRING, count BIGINT").option("tasklet", "no-such-tasklet").load(uri).count());
        assertTrue(String.valueOf(unknown.getMessage()).contains("unknown tasklet 'no-such-tasklet'")
                || String.valueOf(unknown.getCause()).contains("unknown tasklet"), String.valueOf(unknown));
    }
}
