package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.RandomAccessFile;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How many map tasks a weblog job gets, counted by Hadoop's own FileInputFormat: one split per object for
 * the device version, one per map slot for host-optimized and one per block for host-normal, also after an earlier job in the JVM has
 * loaded mapred-default.xml (whose split minimum of 0 every Configuration then reads); a split size the
 * user set is left alone.
 */
class WeblogJobsSplitTest {
    private static final long SIZE = 256L << 20; // 8 of the local file system's 32 MiB blocks
    private static Path input;

    @BeforeAll
    static void sparseInput() throws Exception {
        java.nio.file.Path p = TestData.tmpDir("splits").resolve("records.bin");
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(SIZE);
        }
        input = new Path(p.toUri());
        new JobConf(); // what any earlier job does: mapred-default.xml becomes a default resource
    }

    private static List<InputSplit> splits(Configuration conf) throws Exception {
        conf.setInt(FixedRecordInputFormat.ENTRY_BYTES, 128);
        Job job = Job.getInstance(conf);
        FileInputFormat.addInputPath(job, input);
        return new FixedRecordInputFormat().getSplits(job);
    }

    private static long covered(List<InputSplit> splits) {
        long n = 0;
        for (InputSplit s : splits) {
            n += ((FileSplit) s).getLength();
        }
        return n;
    }

    @Test
    void theDefaultsAreLoaded() {
        assertEquals("0", new Configuration().get(WeblogJobs.MIN_SPLIT));
    }

    @Test
    void deviceVersionOneSplitPerObject() throws Exception {
        Configuration conf = new Configuration();
        assertEquals(8, splits(new Configuration(conf)).size()); // Hadoop alone: one per block
        WeblogJobs.splitEvenly(conf, input, Version.DEVICE);
        List<InputSplit> s = splits(conf);
        assertEquals(1, s.size());
        assertEquals(SIZE, covered(s));
    }

    @Test
    void hostOptimizedOneSplitPerMapSlot() throws Exception {
        Configuration conf = new Configuration();
        conf.setInt("mapreduce.local.map.tasks.maximum", 2);
        WeblogJobs.splitEvenly(conf, input, Version.HOST_OPTIMIZED);
        List<InputSplit> s = splits(conf);
        assertEquals(2, s.size());
        assertEquals(SIZE, covered(s));
    }

    @Test
    void hostNormalKeepsHadoopsSplits() throws Exception {
        Configuration conf = new Configuration();
        conf.setInt("mapreduce.local.map.tasks.maximum", 2);
        WeblogJobs.splitEvenly(conf, input, Version.HOST_NORMAL);
        List<InputSplit> s = splits(conf);
        assertEquals(8, s.size());
        assertEquals(SIZE, covered(s));
    }

    @Test
    void aSplitSizeTheUserSetIsKept() throws Exception {
        Configuration max = new Configuration();
        max.setLong(WeblogJobs.MAX_SPLIT, 16L << 20); // below the block size: 16 splits
        WeblogJobs.splitEvenly(max, input, Version.DEVICE);
        assertEquals(16, splits(max).size());

        Configuration min = new Configuration();
        min.setLong(WeblogJobs.MIN_SPLIT, 128L << 20);
        WeblogJobs.splitEvenly(min, input, Version.DEVICE);
        assertEquals(2, splits(min).size());
    }
}
