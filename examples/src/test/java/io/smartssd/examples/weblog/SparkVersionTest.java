package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The spark-device version (Spark DataFrames over the smartssd format) gives the same answers as the
 * decoders (wc98.py, the Java decoder) and the Hadoop versions, at two entry sizes, with the input cut
 * into several Spark partitions whose edges cut records; EXPLAIN shows the group-by count pushed into
 * the device, and only result rows cross the host link.
 */
class SparkVersionTest {
    private static final int RECORDS = 20_000;
    private static java.nio.file.Path dir;
    private static Configuration conf;

    @BeforeAll
    static void device() throws IOException {
        dir = TestData.tmpDir("spark");
        conf = TestData.device(dir, "sp", 128L << 20);
    }

    private static Path put(String name, java.nio.file.Path local) throws IOException {
        Path onDevice = new Path("smartssd://sp/logs/" + name);
        FileSystem fs = onDevice.getFileSystem(conf);
        fs.copyFromLocalFile(new Path(local.toUri()), onDevice);
        return onDevice;
    }

    private static String decoded(java.nio.file.Path local, int entry, WeblogQuery q) throws Exception {
        String java;
        try (InputStream in = Files.newInputStream(local)) {
            java = Wc98Reference.answer(in, entry, q, 3).text();
        }
        if (TestData.havePython()) {
            assertEquals(TestData.wc98(q.shortName(), local.toString(), "--entry-bytes", "" + entry), java);
        }
        return java;
    }

    @Test
    void sameAnswersAsTheDecodersAndTheOtherVersions() throws Exception {
        List<String> failures = new ArrayList<>();
        // uniform at 128 B reaches region-4..7 and type bytes >= 12 (OTHER); realistic at 32 B
        for (int entry : new int[] {32, 128}) {
            Wc98Generator.Mix mix = entry == 128 ? Wc98Generator.Mix.UNIFORM : Wc98Generator.Mix.REALISTIC;
            java.nio.file.Path local = TestData.generate(dir, "wc98-" + entry + ".bin", RECORDS, entry, 7 + entry, mix);
            Path onDevice = put("wc98-" + entry + ".bin", local);
            long size = (long) RECORDS * entry;
            Configuration c = new Configuration(conf);
            c.setLong(SparkWeblog.SPLIT_SIZE, size / 3 + 5);   // 3 partitions (plus a sliver), edges inside records
            for (WeblogQuery q : WeblogQuery.values()) {
                String want = decoded(local, entry, q);
                RunResult s = WeblogJobs.run(c, Version.SPARK_DEVICE, q, onDevice, entry, 3, null);
                RunResult d = WeblogJobs.run(c, Version.DEVICE, q, onDevice, entry, 3, null);
                RunResult h = WeblogJobs.run(c, Version.HOST_OPTIMIZED, q, onDevice, entry, 3, null);
                for (RunResult r : List.of(s, d, h)) {
                    if (!want.equals(r.answer().text())) {
                        failures.add(q + " " + r.version() + " " + entry + "B:\n" + r.answer().text() + "expected\n"
                                + want);
                    }
                }
                assertEquals(Version.SPARK_DEVICE, s.version());
                assertEquals(size, s.inputBytes());
                assertEquals(RECORDS, s.answer().total());
                assertTrue(s.deviceNanos() > 0, "the device clock moved");
                // Unpushed, each record's region alone would be >= 4 bytes: >= 80 KB; pushed, at most
                // 8 x 14 groups per partition (uniform mix, 4 partitions) of a few bytes each: ~5 KB.
                assertTrue(s.linkBytes() > 0 && s.linkBytes() < 16384, "only result rows cross: " + s.linkBytes());
                assertTrue(s.flashBytes() >= size, "the plan tasklets read it all inside: " + s.flashBytes());
            }
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void explainShowsTheGroupByCountPushed() throws Exception {
        java.nio.file.Path local = TestData.generate(dir, "explain.bin", 500, 64, 3, Wc98Generator.Mix.REALISTIC);
        Path onDevice = put("explain.bin", local);
        var spark = SparkWeblog.session(conf);
        String q1 = SparkWeblog.scanDescription(SparkWeblog.dataFrame(spark, conf, WeblogQuery.Q1, onDevice, 64, 1 << 20));
        assertTrue(q1.contains("wc98 entry_bytes=64"), q1);
        assertTrue(q1.contains("PushedAggregates: [COUNT(*)]"), q1);
        assertTrue(q1.contains("PushedGroupBy: [region]"), q1);
        String q2 = SparkWeblog.scanDescription(SparkWeblog.dataFrame(spark, conf, WeblogQuery.Q2, onDevice, 64, 1 << 20));
        assertTrue(q2.contains("PushedAggregates: [COUNT(*)]"), q2);
        assertTrue(q2.contains("PushedGroupBy: [region, type]"), q2);
    }

    @Test
    void typeBytesFrom12UpCountAsOther() {
        List<Row> rows = List.of(RowFactory.create(1, 12, 5L), RowFactory.create(1, 200, 3L),
                RowFactory.create(1, 0, 2L), RowFactory.create(7, 1, 4L));
        long[][] c = SparkWeblog.counts(WeblogQuery.Q2, rows);
        assertEquals(8, c[1][12]);
        assertEquals(2, c[1][0]);
        assertEquals(4, c[7][1]);
        long[][] q1 = SparkWeblog.counts(WeblogQuery.Q1, List.of(RowFactory.create(3, 10L), RowFactory.create(3, 1L)));
        assertArrayEquals(new long[] {11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, q1[3]);
        assertEquals("Paris\t11\n", WeblogAnswer.of(WeblogQuery.Q1, q1, 3).text());
    }

    @Test
    void wrongPlaceEntrySizeOrTopNFailsWithTheReason() throws Exception {
        java.nio.file.Path local = TestData.generate(dir, "small.bin", 1000, 32, 1, Wc98Generator.Mix.REALISTIC);
        Path onDevice = put("small.bin", local);
        IOException size = assertThrows(IOException.class,
                () -> WeblogJobs.run(conf, Version.SPARK_DEVICE, WeblogQuery.Q1, onDevice, 24, 3, null));
        assertTrue(size.getMessage().contains("not a multiple of entry_bytes 24"), size.getMessage());
        IOException notDevice = assertThrows(IOException.class,
                () -> WeblogJobs.run(conf, Version.SPARK_DEVICE, WeblogQuery.Q2, new Path(local.toUri()), 32, 3, null));
        assertTrue(notDevice.getMessage().contains("is not on a smartssd:// device"), notDevice.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> WeblogJobs.run(conf, Version.SPARK_DEVICE, WeblogQuery.Q2, onDevice, 32, 14, null));
        assertEquals(Version.SPARK_DEVICE, Version.parse("spark-device"));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Version.parse("spark"));
        assertTrue(bad.getMessage().contains("spark-device"), bad.getMessage());
    }
}
