package io.smartssd.spark;

import static io.smartssd.spark.TestSpark.session;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.DeviceIdentity;
import io.smartssd.device.DeviceStats;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Spark scan with a pushed filter over CSV on a device with the map-cached FTL and the DRS flash
 * scheduler (preset drs, ftl = dftl with a 1 KiB map cache, flash_scheduler = drs), the device named
 * by a read option: the rows equal Spark's CSV reader over the same bytes, and the scan's page reads
 * went through the map cache (its misses rose by at least one per uncached line of the object).
 */
class DrsScanTest {
    static final String DEV = "drs0";
    static final String SCHEMA = "id BIGINT, v INT, name STRING";
    static final int ROWS = 100_000;
    static final int PAGE = 4096;

    static String imageKey;
    static String image;
    static SmartSsd dev;
    static int bytes;

    @BeforeAll
    static void data() throws Exception {
        Path img = TestSpark.localDir().resolve("drs.img");
        SmartSsd.format(img, 64L << 20, "drs", Map.of("map_cache_bytes", "1024", "flash_scheduler", "drs"));
        imageKey = "fs.smartssd.device." + DEV + ".image";
        image = img.toString();
        Random r = new Random(11);
        StringBuilder csv = new StringBuilder();
        for (int k = 0; k < ROWS; k++) {
            csv.append(k).append(',').append(r.nextInt(10_000)).append(",name-").append(r.nextInt(500)).append('\n');
        }
        byte[] data = csv.toString().getBytes(StandardCharsets.UTF_8);
        bytes = data.length;
        Configuration conf = new Configuration(session().sparkContext().hadoopConfiguration());
        conf.set(imageKey, image);
        String uri = "smartssd://" + DEV + "/csv/drs.csv";
        FileSystem fs = FileSystem.get(URI.create(uri), conf);   // shares the JVM's handle with the scans
        try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(uri), true)) {
            out.write(data);
        }
        dev = ((SmartSsdFileSystem) fs).device();
        session().read().format("smartssd").schema(SCHEMA).option(imageKey, image).option("split_size", "300000")
                .load(uri).createOrReplaceTempView("drs_c");
        session().read().schema(SCHEMA).csv(TestSpark.putLocal("drs.csv", data)).createOrReplaceTempView("drs_ref");
    }

    @Test
    void pushedFilterOnDftlAndDrsReadsThroughTheMapCache() {
        DeviceIdentity id = dev.identify();
        assertEquals("dftl", id.ftl());
        assertEquals("drs", id.params().get("flash_scheduler"));
        assertEquals(PAGE, id.geometry().pageBytes());
        long lineEntries = Long.parseLong(id.params().get("map_cache_line_entries"));
        long cacheLines = 1024 / (8 * lineEntries);

        String sql = "SELECT * FROM {t} WHERE v < 700";
        String described = TestSpark.explain(sql, "drs_c");
        assertTrue(described.contains("PushedFilters") && described.contains("v < 700"), described);
        DeviceStats before = dev.stats();
        List<Row> rows = TestSpark.sameRows(sql, "drs_c", "drs_ref");
        DeviceStats after = dev.stats();
        assertTrue(rows.size() > 1000 && rows.size() < ROWS / 10, rows.size() + " rows");

        long pages = (bytes + PAGE - 1) / PAGE;
        long misses = after.counter("ftl.map_misses") - before.counter("ftl.map_misses");
        long hits = after.counter("ftl.map_hits") - before.counter("ftl.map_hits");
        long minMisses = (pages + lineEntries - 1) / lineEntries - cacheLines;
        assertTrue(minMisses > 20, "object of " + pages + " pages");
        assertTrue(misses >= minMisses, misses + " map misses for " + pages + " pages, at least " + minMisses);
        assertTrue(hits + misses >= pages, (hits + misses) + " translations for " + pages + " pages");
    }
}
