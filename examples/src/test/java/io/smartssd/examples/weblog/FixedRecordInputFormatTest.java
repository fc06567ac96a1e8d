package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;

/** A split owns the records that start in it: every way of cutting a file gives each record once, in order. */
class FixedRecordInputFormatTest {
    private static final int ENTRY = 24;
    private static final int RECORDS = 37;

    private static Path file() throws IOException {
        java.nio.file.Path p = TestData.tmpDir("fixed").resolve("r.bin");
        ByteBuffer b = ByteBuffer.allocate(ENTRY * RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            b.putInt(i * ENTRY, i);
            b.put(i * ENTRY + ENTRY - 1, (byte) (i ^ 0x5A));
        }
        Files.write(p, b.array());
        return new Path(p.toUri());
    }

    private static List<Integer> read(Configuration conf, Path f, long start, long len) throws Exception {
        List<Integer> seen = new ArrayList<>();
        try (FixedRecordInputFormat.Reader r = new FixedRecordInputFormat.Reader()) {
            r.initialize(new FileSplit(f, start, len, null), new TaskAttemptContextImpl(conf, new TaskAttemptID()));
            while (r.nextKeyValue()) {
                ByteBuffer v = ByteBuffer.wrap(r.getCurrentValue().getBytes(), 0, r.getCurrentValue().getLength());
                int i = v.getInt(0);
                assertEquals(ENTRY, r.getCurrentValue().getLength());
                assertEquals((long) i * ENTRY, r.getCurrentKey().get());
                assertEquals((byte) (i ^ 0x5A), v.get(ENTRY - 1));
                seen.add(i);
            }
            assertEquals(1f, r.getProgress());
        }
        return seen;
    }

    @Test
    void everyTwoAndThreeWaySplitComposes() throws Exception {
        Path f = file();
        long size = (long) ENTRY * RECORDS;
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            all.add(i);
        }
        for (int readBytes : new int[] {ENTRY, 100, 1 << 20}) {   // buffer refills inside and across splits
            Configuration conf = new Configuration();
            conf.setInt(FixedRecordInputFormat.ENTRY_BYTES, ENTRY);
            conf.setInt(FixedRecordInputFormat.READ_BYTES, readBytes);
            for (long k = 0; k <= size; k++) {
                List<Integer> seen = new ArrayList<>(read(conf, f, 0, k));
                seen.addAll(read(conf, f, k, size - k));
                assertEquals(all, seen, "split at " + k);
            }
            Random rnd = new Random(readBytes);
            for (int t = 0; t < 200; t++) {
                long a = rnd.nextInt((int) size + 1);
                long b = a + rnd.nextInt((int) (size - a) + 1);
                List<Integer> seen = new ArrayList<>(read(conf, f, 0, a));
                seen.addAll(read(conf, f, a, b - a));
                seen.addAll(read(conf, f, b, size - b));
                assertEquals(all, seen, "splits at " + a + ", " + b);
            }
        }
    }

    @Test
    void wrongEntrySizeAndMissingSettingAreClear() throws Exception {
        Path f = file();
        Configuration conf = new Configuration();
        IOException e = assertThrows(IOException.class, () -> read(conf, f, 0, 100));
        assertEquals("smartssd.weblog.entry.bytes must be set to the record size in bytes (got -1)", e.getMessage());
        conf.setInt(FixedRecordInputFormat.ENTRY_BYTES, 25);
        e = assertThrows(IOException.class, () -> read(conf, f, 0, 100));
        assertTrue(e.getMessage().endsWith(": size 888 is not a multiple of entry bytes 25 (wrong --entry-bytes?)"),
                e.getMessage());
    }
}
