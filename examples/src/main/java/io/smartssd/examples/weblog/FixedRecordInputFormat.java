package io.smartssd.examples.weblog;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * Fixed-size records read through the FileSystem (so on {@code smartssd://} every byte crosses the
 * host link): key = the record's offset in the file, value = the record's bytes. A split owns the
 * records whose first byte lies in it, the same rule as the device's record framing, so any split
 * of a file gives each record exactly once.
 */
public class FixedRecordInputFormat extends FileInputFormat<LongWritable, BytesWritable> {
    /** The record size in bytes (required). */
    public static final String ENTRY_BYTES = "smartssd.weblog.entry.bytes";
    /** Bytes a reader asks the FileSystem for at a time (rounded down to whole records). */
    public static final String READ_BYTES = "smartssd.weblog.read.bytes";
    static final int DEFAULT_READ_BYTES = 1 << 20;

    public static int entryBytes(Configuration conf) throws IOException {
        int r = conf.getInt(ENTRY_BYTES, -1);
        if (r <= 0) {
            throw new IOException(ENTRY_BYTES + " must be set to the record size in bytes (got " + r + ")");
        }
        return r;
    }

    @Override
    protected boolean isSplitable(JobContext context, Path file) {
        return true;
    }

    @Override
    public RecordReader<LongWritable, BytesWritable> createRecordReader(InputSplit split, TaskAttemptContext ctx) {
        return new Reader();
    }

    static final class Reader extends RecordReader<LongWritable, BytesWritable> {
        private final LongWritable key = new LongWritable();
        private final BytesWritable value = new BytesWritable();
        private FSDataInputStream in;
        private int entry;
        private byte[] buf;
        private int bufLen;
        private int bufPos;
        private long first;
        private long next;          // offset of the next record to deliver
        private long end;           // records starting before this belong to the split

        @Override
        public void initialize(InputSplit genericSplit, TaskAttemptContext ctx) throws IOException {
            FileSplit split = (FileSplit) genericSplit;
            Configuration conf = ctx.getConfiguration();
            entry = entryBytes(conf);
            Path file = split.getPath();
            FileSystem fs = file.getFileSystem(conf);
            long size = fs.getFileStatus(file).getLen();
            if (size % entry != 0) {
                throw new IOException(file + ": size " + size + " is not a multiple of entry bytes " + entry
                        + " (wrong --entry-bytes?)");
            }
            long start = split.getStart();
            first = (start + entry - 1) / entry * entry;
            next = first;
            end = Math.min(size, start + split.getLength());
            int per = Math.max(1, conf.getInt(READ_BYTES, DEFAULT_READ_BYTES) / entry);
            buf = new byte[per * entry];
            value.setCapacity(entry);
            value.setSize(entry);
            in = fs.open(file);
            in.seek(first);
        }

        @Override
        public boolean nextKeyValue() throws IOException {
            if (next >= end) {
                return false;
            }
            if (bufPos == bufLen) {
                long ownedBytes = (end - next + entry - 1) / entry * entry;
                int want = (int) Math.min(buf.length, ownedBytes);
                in.readFully(buf, 0, want);
                bufLen = want;
                bufPos = 0;
            }
            System.arraycopy(buf, bufPos, value.getBytes(), 0, entry);
            key.set(next);
            bufPos += entry;
            next += entry;
            return true;
        }

        @Override
        public LongWritable getCurrentKey() {
            return key;
        }

        @Override
        public BytesWritable getCurrentValue() {
            return value;
        }

        @Override
        public float getProgress() {
            return end <= first ? 1f : Math.min(1f, (next - first) / (float) (end - first));
        }

        @Override
        public void close() throws IOException {
            if (in != null) {
                in.close();
                in = null;
            }
        }
    }
}
