package io.smartssd.hadoop.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.DeviceIdentity;
import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.hadoop.fs.TestImages;
import io.smartssd.hadoop.mapreduce.format.ColumnsFormat;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A grep DeviceJob on a device with the map-cached FTL and the DRS flash scheduler (preset drs,
 * ftl = dftl with a 1 KiB map cache, flash_scheduler = drs): the answer is Java's count of the lines
 * containing the word, and the tasklets' page reads went through the map cache: its misses rose by at
 * least one per map-cache line of the object that was not already cached.
 */
class DrsDeviceJobTest {
    static final String DEV = "drsjobs";
    static final String TEXT = "smartssd://" + DEV + "/text/lines.txt";
    static final int PAGE = 4096;

    static Configuration conf;
    static FileSystem fs;
    static byte[] text;

    @BeforeAll
    static void setUp() throws Exception {
        Path image = TestImages.dir().resolve("drs-" + UUID.randomUUID() + ".img");
        SmartSsd.format(image, 64L << 20, "drs", Map.of("map_cache_bytes", "1024", "flash_scheduler", "drs"));
        conf = JobRunner.localConf(DEV, image);
        fs = FileSystem.get(URI.create("smartssd://" + DEV + "/"), conf);
        text = TestData.text(20_000, 23);
        JobRunner.put(fs, TEXT, text);
    }

    @AfterAll
    static void tearDown() throws Exception {
        fs.close();
    }

    @Test
    void grepOnDftlAndDrsCountsThroughTheMapCache() throws Exception {
        SmartSsd dev = ((SmartSsdFileSystem) fs).device();
        DeviceIdentity id = dev.identify();
        assertEquals("dftl", id.ftl());
        assertEquals("drs", id.params().get("flash_scheduler"));
        assertEquals(PAGE, id.geometry().pageBytes());
        long lineEntries = Long.parseLong(id.params().get("map_cache_line_entries"));
        long cacheLines = 1024 / (8 * lineEntries);

        DeviceStats before = dev.stats();
        Path out = TestImages.dir().resolve("out-drsgrep-" + UUID.randomUUID());
        DeviceJob d = DeviceJob.getInstance(conf, "device grep on dftl+drs");
        d.addInputPath(new org.apache.hadoop.fs.Path(TEXT));
        d.setDeviceMapper(DeviceMapper.tasklet("grep").keyword("needle"));
        d.setDeviceMapperFormat(ColumnsFormat.class);
        d.setCombinerClass(LongSumReducer.class);
        d.setReducerClass(LongSumReducer.class);
        d.setOutputKeyClass(Text.class);
        d.setOutputValueClass(LongWritable.class);
        FileInputFormat.setMaxInputSplitSize(d, 1_000_003);   // several splits, two map tasks at once
        FileOutputFormat.setOutputPath(d, new org.apache.hadoop.fs.Path(out.toUri()));
        assertTrue(d.waitForCompletion(false), "device job failed");
        DeviceStats after = dev.stats();

        long expected = TestData.linesContaining(text, "needle");
        assertTrue(expected > 100, "test data has " + expected + " matching lines");
        assertEquals(Map.of("", expected), JobRunner.output(out));
        assertTrue(d.getCounters().findCounter(DeviceCounter.SPLITS).getValue() >= 4);

        // Every page of the object is translated at least once; the lines of its map entries that were
        // not cached when the job started (at most cacheLines were) each cost at least one fetch.
        long pages = (text.length + PAGE - 1) / PAGE;
        long misses = after.counter("ftl.map_misses") - before.counter("ftl.map_misses");
        long hits = after.counter("ftl.map_hits") - before.counter("ftl.map_hits");
        long minMisses = (pages + lineEntries - 1) / lineEntries - cacheLines;
        assertTrue(minMisses > 50, "object of " + pages + " pages");
        assertTrue(misses >= minMisses, misses + " map misses for " + pages + " pages, at least " + minMisses);
        assertTrue(hits + misses >= pages, (hits + misses) + " translations for " + pages + " pages");
        assertTrue(after.deviceClockNanos() > before.deviceClockNanos());
    }
}
