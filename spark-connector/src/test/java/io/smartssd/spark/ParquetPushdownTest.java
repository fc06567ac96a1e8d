package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.explain;
import static io.smartssd.spark.TestSpark.sameOrderedRows;
import static io.smartssd.spark.TestSpark.sameRows;
import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.spark.metrics.BytesSkippedMetric;
import io.smartssd.spark.metrics.FlashBytesReadMetric;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Parquet objects Spark wrote to the device, read by the device's plan and by Spark's own Parquet
 * reader over the same objects: every type the device reads, NULLs in every nullable column, snappy
 * with dictionary pages (several files, several row groups each) and zstd with PLAIN pages, and every
 * pushdown kind. Doubles and floats are multiples of 1/4, so sums are exact in any order.
 */
class ParquetPushdownTest {
    static final int ROWS = 20000;
    static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "abacus", "zulu", "midnight", "amid", "x", "yz"};
    static final String DEV = "smartssd://" + TestSpark.DEVICE + "/";

    @BeforeAll
    static void data() {
        StructType schema = new StructType().add("id", DataTypes.LongType, false).add("i", DataTypes.IntegerType)
                .add("sm", DataTypes.ShortType).add("tn", DataTypes.ByteType).add("d", DataTypes.DoubleType)
                .add("f", DataTypes.FloatType).add("name", DataTypes.StringType).add("flag", DataTypes.BooleanType);
        Random r = new Random(5);
        List<Row> rows = new ArrayList<>();
        for (int k = 0; k < ROWS; k++) {
            rows.add(RowFactory.create((long) k * 3 - 20000,
                    r.nextInt(11) == 0 ? null : r.nextInt(2001) - 1000,
                    r.nextInt(11) == 0 ? null : (short) (r.nextInt(601) - 300),
                    r.nextInt(11) == 0 ? null : (byte) (r.nextInt(21) - 10),
                    r.nextInt(11) == 0 ? null : (r.nextInt(1601) - 800) / 4.0,
                    r.nextInt(11) == 0 ? null : (float) ((r.nextInt(401) - 200) / 4.0),
                    r.nextInt(11) == 0 ? null : WORDS[r.nextInt(WORDS.length)] + (r.nextInt(3) == 0 ? "-" + r.nextInt(40) : ""),
                    r.nextInt(11) == 0 ? null : r.nextBoolean()));
        }
        Dataset<Row> df = session().createDataFrame(rows, schema);
        // rows in id order within each file, so row groups cover disjoint id ranges
        df.coalesce(2).write().mode("overwrite").option("parquet.block.size", "65536").parquet(DEV + "pq_snappy");
        df.coalesce(1).write().mode("overwrite").option("compression", "zstd")
                .option("parquet.enable.dictionary", "false").option("parquet.block.size", "131072")
                .parquet(DEV + "pq_zstd");
        for (String name : new String[] {"pq_snappy", "pq_zstd"}) {
            session().read().format("smartssd").option("format", "parquet").load(DEV + name).createOrReplaceTempView(name);
            session().read().parquet(DEV + name).createOrReplaceTempView(name + "_ref");
        }
    }

    private static void both(String sql, String... expected) {
        for (String t : new String[] {"pq_snappy", "pq_zstd"}) {
            sameRows(sql, t, t + "_ref");
            String d = explain(sql, t);
            for (String e : expected) {
                assertTrue(d.contains(e), "EXPLAIN must show " + e + ": " + d);
            }
        }
    }

    @Test
    void schemaFromTheFooterAndEveryRow() {
        StructType s = session().table("pq_snappy").schema();
        assertEquals("struct<id:bigint,i:int,sm:smallint,tn:tinyint,d:double,f:float,name:string,flag:boolean>",
                s.simpleString());
        List<Row> all = sameRows("SELECT * FROM {t}", "pq_snappy", "pq_snappy_ref");
        assertEquals(ROWS, all.size());
        sameRows("SELECT * FROM {t}", "pq_zstd", "pq_zstd_ref");
        assertEquals(2, session().table("pq_snappy").rdd().getNumPartitions());
        String d = explain("SELECT * FROM {t}", "pq_snappy");
        assertTrue(d.contains("[parquet, 2 object(s), row groups by split_size=134217728]"), d);
    }

    @Test
    void filters() {
        both("SELECT id, name FROM {t} WHERE id > 50000", "PushedFilters: [", "id > 50000");
        both("SELECT id, i, f FROM {t} WHERE i < 0 AND name = 'alpha'", "name = 'alpha'");
        both("SELECT id FROM {t} WHERE d >= 10.5 OR flag = true");
        both("SELECT id, name FROM {t} WHERE name LIKE 'mid%' AND tn <> 3");
        both("SELECT id, sm FROM {t} WHERE i IS NULL", "i IS NULL");
        both("SELECT id FROM {t} WHERE name IN ('beta', 'zulu', 'x') AND sm > 100");
        both("SELECT count(*) FROM {t} WHERE id < -19000 OR id > 39000");
    }

    @Test
    void aggregates() {
        both("SELECT name, count(*), sum(i), min(d), max(f), count(flag), sum(d), min(sm), max(tn) FROM {t} GROUP BY name",
                "PushedAggregates: [", "PushedGroupBy: [name]");
        both("SELECT count(*), sum(id), max(name) FROM {t} WHERE flag", "PushedAggregates: [");
        both("SELECT flag, min(name), max(id) FROM {t} WHERE id BETWEEN 0 AND 30000 GROUP BY flag");
    }

    @Test
    void topNAndLimit() {
        for (String t : new String[] {"pq_snappy", "pq_zstd"}) {
            sameOrderedRows("SELECT id, name, d FROM {t} ORDER BY id DESC LIMIT 7", t, t + "_ref");
            sameOrderedRows("SELECT id, i FROM {t} WHERE i > 990 ORDER BY i, id LIMIT 5", t, t + "_ref");
            assertTrue(explain("SELECT id, name FROM {t} ORDER BY id DESC LIMIT 7", t).contains("PushedTopN: "));
            List<Row> some = session().sql("SELECT id, name FROM " + t + " WHERE name = 'beta' LIMIT 5").collectAsList();
            assertEquals(5, some.size());
            for (Row x : some) {
                assertEquals("beta", x.getString(1));
            }
            assertTrue(explain("SELECT id FROM {t} LIMIT 5", t).contains("PushedLimit: 5"));
        }
    }

    /** Row groups the filter excludes by their statistics, and unused columns, are not read from flash. */
    @Test
    void readsLessThanTheObjects() throws Exception {
        long total = 0;
        FileSystem fs = FileSystem.get(URI.create(DEV), session().sparkContext().hadoopConfiguration());
        for (FileStatus st : fs.listStatus(new Path(DEV + "pq_snappy"))) {
            if (st.getPath().getName().endsWith(".parquet")) {
                total += st.getLen();
            }
        }
        Dataset<Row> df = session().sql("SELECT count(*), sum(i) FROM pq_snappy WHERE id >= 39000");
        List<Row> got = df.collectAsList();
        assertEquals(session().sql("SELECT count(*), sum(i) FROM pq_snappy_ref WHERE id >= 39000").collectAsList(), got);
        assertEquals(333L, got.get(0).getLong(0));
        BatchScanExec scan = TestSpark.scan(df);
        long flash = scan.metrics().get(FlashBytesReadMetric.NAME).get().value();
        long skipped = scan.metrics().get(BytesSkippedMetric.NAME).get().value();
        assertTrue(flash > 0 && flash * 5 < total, "flash bytes read " + flash + " of " + total);
        assertEquals(total - flash, skipped, "bytes skipped");
        // without a filter every row group is read, but still only the columns used
        Dataset<Row> all = session().sql("SELECT sum(id) FROM pq_snappy");
        all.collectAsList();
        long flashAll = TestSpark.scan(all).metrics().get(FlashBytesReadMetric.NAME).get().value();
        assertTrue(flashAll > flash && flashAll < total, "flash bytes " + flashAll + " of " + total);
    }

    @Test
    void refusals() throws Exception {
        TestSpark.putObject("pq_bad/part-0.parquet", "not parquet at all, PAR1".getBytes());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> session().read().format("smartssd").option("format", "parquet").load(DEV + "pq_bad").schema());
        assertTrue(e.getMessage().contains("cannot read the Parquet footer of " + DEV + "pq_bad/part-0.parquet"),
                e.getMessage());
        session().sql("SELECT 1 AS a, named_struct('x', 1) AS s, current_timestamp() AS ts").write().mode("overwrite")
                .parquet(DEV + "pq_nested");
        e = assertThrows(IllegalArgumentException.class,
                () -> session().read().format("smartssd").option("format", "parquet").load(DEV + "pq_nested").schema());
        assertTrue(e.getMessage().contains("s: a nested (group) column") && e.getMessage().contains("ts: INT96"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> session().read().format("smartssd")
                .option("format", "parquet").schema("a INT").load(DEV + "pq_nested").collectAsList());
        assertTrue(e.getMessage().contains("has the nested (group) column 's': the device reads flat Parquet schemas"
                + " only"), e.getMessage());
        // a flat file with a timestamp: the columns the device reads, named, are served
        session().sql("SELECT 7 AS a, current_timestamp() AS ts, 'z' AS b").write().mode("overwrite")
                .parquet(DEV + "pq_ts");
        List<Row> a = session().read().format("smartssd").option("format", "parquet").schema("b STRING, a INT")
                .load(DEV + "pq_ts").collectAsList();
        assertEquals(List.of(RowFactory.create("z", 7)), a);
    }

    /**
     * With split_size under a row group, one partition per row group: the answers equal Spark's reader
     * on the same multi-row-group files, each partition's request returns exactly its row group's rows
     * and reads from flash less than the request over the whole object, and prefers the device's host.
     */
    @Test
    void partitionsPerRowGroup() throws Exception {
        session().read().format("smartssd").option("format", "parquet").option("split_size", "1")
                .load(DEV + "pq_snappy").createOrReplaceTempView("pq_rg");
        FileSystem fs = FileSystem.get(URI.create(DEV), session().sparkContext().hadoopConfiguration());
        java.util.Map<String, long[]> rowsPerGroup = new java.util.HashMap<>();
        int groups = 0;
        for (FileStatus st : fs.listStatus(new Path(DEV + "pq_snappy"))) {
            if (st.getPath().getName().endsWith(".parquet")) {
                try (org.apache.parquet.hadoop.ParquetFileReader r = org.apache.parquet.hadoop.ParquetFileReader.open(
                        org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(st.getPath(),
                                session().sparkContext().hadoopConfiguration()))) {
                    long[] rows = r.getFooter().getBlocks().stream()
                            .mapToLong(org.apache.parquet.hadoop.metadata.BlockMetaData::getRowCount).toArray();
                    rowsPerGroup.put(st.getPath().toString(), rows);
                    groups += rows.length;
                }
            }
        }
        assertTrue(groups > 2, "row groups: " + groups);
        assertEquals(groups, session().table("pq_rg").rdd().getNumPartitions());
        sameRows("SELECT * FROM {t}", "pq_rg", "pq_snappy_ref");
        sameRows("SELECT name, count(*), sum(i), max(d) FROM {t} WHERE flag GROUP BY name", "pq_rg", "pq_snappy_ref");
        sameOrderedRows("SELECT id, name FROM {t} WHERE i > 900 ORDER BY id DESC LIMIT 6", "pq_rg", "pq_snappy_ref");
        sameRows("SELECT id, sm FROM {t} WHERE id >= 39000", "pq_rg", "pq_snappy_ref");

        // each partition's own request: its row group's rows, fewer flash bytes than the whole object's
        Dataset<Row> df = session().sql("SELECT * FROM pq_rg");
        df.collectAsList();
        SmartSsdScan scan = (SmartSsdScan) TestSpark.scan(df).scan();
        Dataset<Row> whole = session().sql("SELECT * FROM pq_snappy");
        whole.collectAsList();
        String wholeHost = ((SmartSsdPartition) TestSpark.scan(whole).scan().toBatch().planInputPartitions()[0]).host();
        assertTrue(wholeHost != null && !wholeHost.isEmpty());
        org.apache.spark.sql.connector.read.PartitionReaderFactory f = scan.createReaderFactory();
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        for (org.apache.spark.sql.connector.read.InputPartition ip : scan.planInputPartitions()) {
            SmartSsdPartition part = (SmartSsdPartition) ip;
            assertEquals(1, part.rowGroups().length);
            int g = part.rowGroups()[0];
            assertEquals(seen.getOrDefault(part.uri(), 0), g, "row groups in footer order, each once");
            seen.put(part.uri(), g + 1);
            assertEquals(List.of(wholeHost), List.of(part.preferredLocations()));
            long rows = 0;
            long flash = -1;
            try (org.apache.spark.sql.connector.read.PartitionReader<org.apache.spark.sql.catalyst.InternalRow> r =
                         f.createReader(part)) {
                while (r.next()) {
                    rows++;
                }
                for (org.apache.spark.sql.connector.metric.CustomTaskMetric m : r.currentMetricsValues()) {
                    if (m.name().equals(FlashBytesReadMetric.NAME)) {
                        flash = m.value();
                    }
                }
            }
            assertEquals(rowsPerGroup.get(part.uri())[g], rows, part.uri() + " row group " + g);
            assertTrue(flash > 0 && flash < part.length(), "flash " + flash + " of " + part.length());
        }
        for (java.util.Map.Entry<String, long[]> e : rowsPerGroup.entrySet()) {
            assertEquals(e.getValue().length, seen.get(e.getKey()), e.getKey());
        }
    }
}
