package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Malformed options and schemas fail at analysis time naming themselves; SQL tables; option precedence. */
class OptionsAndSqlTest {
    static String csv;
    static String wc98;

    @BeforeAll
    static void data() throws Exception {
        csv = TestSpark.putObject("opt/small.csv", "1,a\n2,b\n3,\n".getBytes(StandardCharsets.UTF_8));
        wc98 = TestSpark.putObject("opt/odd.bin", new byte[50]);
    }

    private static DataFrameReader reader() {
        return session().read().format("smartssd");
    }

    private static void fails(Executable load, String... mentions) {
        Throwable t = assertThrows(Throwable.class, load);
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append(" | ");
        }
        for (String m : mentions) {
            assertTrue(all.toString().contains(m), "message should name " + m + ": " + all);
        }
    }

    @Test
    void configurationSharedPerEntriesAndHoldsThem() {
        var a = DeviceObject.configuration(java.util.Map.of("fs.smartssd.device.x.image", "/a", "k", "1"));
        assertTrue(a == DeviceObject.configuration(new java.util.HashMap<>(
                java.util.Map.of("k", "1", "fs.smartssd.device.x.image", "/a"))));
        var b = DeviceObject.configuration(java.util.Map.of("fs.smartssd.device.x.image", "/b", "k", "1"));
        assertTrue(a != b);
        assertEquals("/a", a.get("fs.smartssd.device.x.image"));
        assertEquals("/b", b.get("fs.smartssd.device.x.image"));
        // Hadoop's defaults are there as in a new Configuration
        assertEquals(new org.apache.hadoop.conf.Configuration().get("fs.defaultFS"), a.get("fs.defaultFS"));
    }

    @Test
    void defaultSplitIs128MiBAndCoversTheObjectOnce() {
        // the default (no read option, no session conf): a 1 GiB + 31 B object as 8 extents of 128 MiB and
        // its 31 B tail, contiguous; checked against the offsets computed here
        SmartSsdOptions o = SmartSsdOptions.parse(java.util.Map.of("path", "smartssd://d/o"), java.util.Map.of());
        assertEquals(128L << 20, o.splitSize);
        long size = (1L << 30) + 31;
        List<SmartSsdPartition> parts = new DeviceObject("smartssd://d/o", 7, size, "h").partitions(o.splitSize);
        assertEquals(9, parts.size());
        long next = 0;
        for (SmartSsdPartition p : parts) {
            assertEquals(next, p.offset());
            assertEquals(Math.min(128L << 20, size - next), p.length());
            next += p.length();
        }
        assertEquals(size, next);
        // a read option still wins: 32 MiB gives the 33 extents of before
        SmartSsdOptions small = SmartSsdOptions.parse(java.util.Map.of("path", "smartssd://d/o", "split_size", "32m"),
                java.util.Map.of());
        assertEquals(33, new DeviceObject("smartssd://d/o", 7, size, "h").partitions(small.splitSize).size());
    }

    @Test
    void malformedOptionsFailAtLoad() {
        fails(() -> reader().option("format", "xml").load(csv), "format", "xml");
        fails(() -> reader().option("format", "wc98").option("entry_bytes", "abc").load(wc98), "entry_bytes", "abc");
        fails(() -> reader().option("format", "wc98").option("entry_bytes", "19").load(wc98), "entry_bytes", "19");
        fails(() -> reader().option("format", "wc98").option("entry_bytes", "20").load(wc98), "entry_bytes", "50 bytes");
        fails(() -> reader().schema("a INT").option("split_size", "0").load(csv), "split_size");
        fails(() -> reader().schema("a INT").option("split_size", "12q").load(csv), "split_size", "12q");
        fails(() -> reader().schema("a INT").option("header", "maybe").load(csv), "header", "maybe");
        fails(() -> reader().schema("a INT").option("delimiter", ";;").load(csv), "delimiter");
        fails(() -> reader().schema("a INT").load("/tmp/x.csv"), "path", "smartssd://");
        fails(() -> reader().schema("a INT").load("smartssd://nodev/x"), "unknown smartssd device 'nodev'");
        fails(() -> reader().schema("a INT").load("smartssd://" + TestSpark.DEVICE + "/missing.csv"), "missing.csv");
    }

    /**
     * The character options read as Spark's CSV reader reads them, checked against it on the same bytes:
     * values taken as given (a space, a literal tab), Spark's escapes, `sep` before `delimiter`, quote and
     * escape as one literal character or empty (off); what Spark refuses is refused.
     */
    @Test
    void characterOptionsAsSparksCsvReader() throws Exception {
        String schema = "a STRING, b STRING, c STRING";
        Object[][] cases = {
            {"1 \"x y\" z\n2  w\n", new String[] {"sep", " "}},
            {"1\t\"x\ty\"\tz\n", new String[] {"delimiter", "\t"}},
            {"1\t\"x\ty\"\tz\n", new String[] {"delimiter", "\\t"}},
            {"1|2;3|4\n", new String[] {"sep", "|", "delimiter", ";"}},
            {"1,'x,y',z\n2,'a b',w\n", new String[] {"quote", "'"}},
            {"1,\"x,y\",z\n", new String[] {"quote", ""}},
            {"1,\"x^\"y\",z\n", new String[] {"escape", "^"}},
        };
        int k = 0;
        for (Object[] c : cases) {
            byte[] data = ((String) c[0]).getBytes(StandardCharsets.UTF_8);
            String dev = TestSpark.putObject("opt/chars-" + k + ".csv", data);
            String local = TestSpark.putLocal("chars-" + k + ".csv", data);
            k++;
            DataFrameReader mine = reader().schema(schema);
            DataFrameReader spark = session().read().schema(schema);
            String[] opts = (String[]) c[1];
            for (int i = 0; i < opts.length; i += 2) {
                mine = mine.option(opts[i], opts[i + 1]);
                spark = spark.option(opts[i], opts[i + 1]);
            }
            List<Row> want = spark.csv(local).collectAsList();
            assertEquals(want, mine.load(dev).collectAsList(), "options " + List.of(opts) + " over " + c[0]);
        }
        String[][] refused = {{"quote", "ab"}, {"escape", "\\\\"}, {"delimiter", "\\"}, {"delimiter", ""}};
        for (String[] o : refused) {
            // Spark's CSV reader parses its options in CSVOptions and hands them to its parser (univocity)
            // when a task starts; either may refuse
            scala.collection.immutable.Map<String, String> m = new scala.collection.immutable.Map.Map1<>(o[0], o[1]);
            assertThrows(Exception.class,
                    () -> new org.apache.spark.sql.catalyst.csv.CSVOptions(m, true, "UTC").asParserSettings(),
                    "Spark refuses " + o[0] + " = '" + o[1] + "'");
            fails(() -> reader().schema(schema).option(o[0], o[1]).load(csv), o[0]);
        }
        // more than one byte: Spark's reader takes it, the device (one-byte splitter) refuses it by name
        fails(() -> reader().schema(schema).option("delimiter", "::").load(csv), "delimiter", "::", "one single-byte");
    }

    @Test
    void malformedSchemasFailAtLoad() {
        fails(() -> reader().load(csv), "schema", "format csv needs a schema");
        fails(() -> reader().schema("a INT, b DATE").load(csv), "'b'", "date");
        fails(() -> reader().schema("a INT, b DECIMAL(10,2)").load(csv), "'b'");
        fails(() -> reader().option("format", "wc98").schema("region INT, colour STRING").option("entry_bytes", "25")
                .load(wc98), "'colour'", "not a WorldCup98 field");
        fails(() -> reader().option("format", "wc98").schema("region BIGINT").option("entry_bytes", "25").load(wc98),
                "'region'", "int");
    }

    @Test
    void sqlCreateTableAndSessionDefaults() {
        // CREATE TABLE ... USING a DataSource V2 provider in the session catalog came with Spark 4.0 (3.5
        // answers "smartssd is not a valid Spark SQL Data Source"); docs/SPARK.md says so
        org.junit.jupiter.api.Assumptions.assumeTrue(Integer.parseInt(session().version().split("\\.")[0]) >= 4,
                "Spark " + session().version() + ": CREATE TABLE ... USING smartssd needs Spark 4 (DataSource V2 in"
                        + " the session catalog)");
        session().sql("DROP TABLE IF EXISTS small");
        session().sql("CREATE TABLE small (n INT, s STRING) USING smartssd OPTIONS (path '" + csv + "')");
        List<Row> rows = session().sql("SELECT n, s FROM small WHERE n >= 2 ORDER BY n").collectAsList();
        assertEquals("[[2,b], [3,null]]", rows.toString());
        String plan = session().sql("SELECT count(*) FROM small WHERE s IS NOT NULL").queryExecution().executedPlan()
                .toString();
        assertTrue(plan.contains("PushedAggregates: [COUNT(*)]") && plan.contains("s IS NOT NULL"), plan);
        assertEquals(2L, session().sql("SELECT count(*) FROM small WHERE s IS NOT NULL").first().getLong(0));
        session().sql("DROP TABLE small");

        // session conf spark.smartssd.<option> is the default; a read option wins over it
        session().conf().set("spark.smartssd.split_size", "2");
        try {
            assertEquals(6, reader().schema("n INT, s STRING").load(csv).rdd().getNumPartitions());
            assertEquals(1, reader().schema("n INT, s STRING").option("split_size", "1m").load(csv).rdd()
                    .getNumPartitions());
            session().conf().set("spark.smartssd.split_size", "zero");
            fails(() -> reader().schema("n INT").load(csv), "split_size", "zero");
        } finally {
            session().conf().unset("spark.smartssd.split_size");
        }
    }
}
