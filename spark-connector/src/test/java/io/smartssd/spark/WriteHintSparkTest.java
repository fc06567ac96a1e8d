package io.smartssd.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Spark's writes through the smartssd:// FileSystem carry the hints of the session's
 * spark.hadoop.fs.smartssd.write.hint.rules (TestSpark.HINT_RULES). On the hybrid device (placement
 * level) a job whose committer writes under {@code /hints/out/_temporary/} (rule: hint 1) programs
 * exactly its files' pages in SLC and none in TLC, and one under {@code /hints/scratch/} (an earlier rule:
 * hint 0 = none) exactly its pages in TLC and none in SLC; Spark's own CSV reader reads the rows back.
 * A malformed rule fails the write naming the key.
 */
class WriteHintSparkTest {
    private static final String ROOT = "smartssd://" + TestSpark.HYBRID_DEVICE;

    private static SmartSsdFileSystem fs(SparkSession spark) throws IOException {
        return (SmartSsdFileSystem) FileSystem.get(URI.create(ROOT + "/"), spark.sparkContext().hadoopConfiguration());
    }

    private static long delta(DeviceStats before, DeviceStats after, String counter) {
        return after.counter(counter) - before.counter(counter);
    }

    private static List<Row> sorted(List<Row> rows) {
        List<Row> out = new ArrayList<>(rows);
        out.sort(Comparator.comparing(Row::toString));
        return out;
    }

    /**
     * Writes the rows as CSV to dir and checks where their pages went: the host's page programs of the
     * region named by hinted grow by the sum over the output files of ceil(length / page) (each file is
     * below the FileSystem's 1 MiB write buffer, so it reaches the device in one write from offset 0), and
     * the other region's by none. Before the first SLC GC every hinted write goes to SLC.
     */
    private static void writeAndCheck(String dir, boolean hinted) throws IOException {
        SparkSession spark = TestSpark.session();
        SmartSsdFileSystem fs = fs(spark);
        SmartSsd dev = fs.device();
        assertEquals("level", dev.identify().placement());
        long page = Long.parseLong(dev.identify().params().get("page_bytes"));
        Dataset<Row> df = spark.range(0, 8000, 1, 2).selectExpr("id", "concat('row-', id, '-', id * 7919 % 1000) AS name");

        DeviceStats before = dev.stats();
        df.write().mode(SaveMode.ErrorIfExists).csv(ROOT + dir);
        DeviceStats after = dev.stats();

        long pages = 0;
        int files = 0;
        for (FileStatus st : fs.listStatus(new Path(ROOT + dir))) {
            assertTrue(st.getLen() < (1 << 20), st.toString());
            if (st.getPath().getName().startsWith("part-")) {
                assertTrue(st.getLen() > page, "a part file spans several pages: " + st);
                files++;
            }
            pages += (st.getLen() + page - 1) / page;
        }
        assertEquals(2, files, "one file per partition");
        String in = hinted ? "region.slc.host_programs" : "region.tlc.host_programs";
        String out = hinted ? "region.tlc.host_programs" : "region.slc.host_programs";
        assertEquals(pages, delta(before, after, in), in);
        assertEquals(0, delta(before, after, out), out);

        List<Row> back = spark.read().schema("id BIGINT, name STRING").csv(ROOT + dir).collectAsList();
        assertEquals(sorted(df.collectAsList()), sorted(back));
    }

    @Test
    void committerOutputUnderTemporaryLandsInSlc() throws IOException {
        writeAndCheck("/hints/out", true);
    }

    @Test
    void anEarlierRuleWithoutAHintKeepsScratchOutputInTlc() throws IOException {
        writeAndCheck("/hints/scratch/stage1", false);
    }

    /**
     * A write's own options reach a FileSystem created for it (fs.smartssd.impl.disable.cache=true): a
     * malformed rule fails the write with the key, the rule and the reason, and the device keeps serving.
     */
    @Test
    void aBadRuleFailsTheWriteNamingTheKey() throws IOException {
        SparkSession spark = TestSpark.session();
        Dataset<Row> df = spark.range(0, 10).toDF();
        Exception e = assertThrows(Exception.class, () -> df.write()
                .option("fs.smartssd.impl.disable.cache", "true")
                .option("fs.smartssd.write.hint.rules", "/hints/**=short")
                .csv(ROOT + "/hints/bad"));
        StringBuilder msgs = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            msgs.append(t.getMessage()).append('\n');
        }
        assertTrue(msgs.toString().contains("fs.smartssd.write.hint.rules: rule '/hints/**=short'")
                && msgs.toString().contains("got 'short'"), msgs.toString());
        assertEquals(false, fs(spark).exists(new Path(ROOT + "/hints/bad")));
    }
}
