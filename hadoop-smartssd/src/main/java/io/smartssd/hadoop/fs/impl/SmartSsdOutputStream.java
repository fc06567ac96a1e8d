package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.Written;
import io.smartssd.hadoop.fs.Statistic;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * Appends to one data object: bytes collect in a direct buffer and go to the device a buffer at a time
 * (the device copies straight from it: no packet copy). flush() keeps buffering; hflush/hsync send what
 * is buffered, and a write the device acknowledged is durable (the image is crash-consistent), so hsync
 * needs no more.
 */
public final class SmartSsdOutputStream extends OutputStream implements Syncable, StreamCapabilities,
        IOStatisticsSource {
    private final StoreContext ctx;
    private final Path path;
    private final long objectId;
    private final ByteBuffer buffer;
    private final int hint;
    private final IOStatisticsStore streamStats = IOStatisticsBinding.iostatisticsStore()
            .withCounters(StreamStatisticNames.STREAM_WRITE_BYTES).build();
    private long offset;
    private boolean closed;

    public SmartSsdOutputStream(StoreContext ctx, Path path, long objectId, long startOffset) {
        this.ctx = ctx;
        this.path = path;
        this.objectId = objectId;
        this.offset = startOffset;
        this.buffer = ByteBuffer.allocateDirect(ctx.writeBufferSize());
        this.hint = ctx.writeHint(path);
    }

    /** The placement hint every write of this stream carries (from the path, fixed at open). */
    public int hint() {
        return hint;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        checkOpen();
        if (!buffer.hasRemaining()) {
            send();
        }
        buffer.put((byte) b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        checkOpen();
        if (off < 0 || len < 0 || len > b.length - off) {
            throw new IndexOutOfBoundsException("write of " + len + " bytes at " + off + " of a " + b.length
                    + "-byte array");
        }
        while (len > 0) {
            if (!buffer.hasRemaining()) {
                send();
            }
            int n = Math.min(len, buffer.remaining());
            buffer.put(b, off, n);
            off += n;
            len -= n;
        }
    }

    /** Keeps buffering: writers flush often (DataOutputStream, codecs), the device wants big writes. */
    @Override
    public void flush() {
    }

    /** Sends the buffered bytes: after this every reader sees them. */
    @Override
    public synchronized void hflush() throws IOException {
        checkOpen();
        send();
    }

    /** As hflush: an acknowledged device write is already durable. */
    @Override
    public void hsync() throws IOException {
        hflush();
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            send();
        } finally {
            closed = true;
            ctx.stats().aggregate(streamStats);
        }
    }

    @Override
    public boolean hasCapability(String capability) {
        switch (capability.toLowerCase(java.util.Locale.ROOT)) {
            case "hflush": // StreamCapabilities.HFLUSH, deprecated as a constant but still probed
            case StreamCapabilities.HSYNC:
            case StreamCapabilities.IOSTATISTICS:
                return true;
            default:
                return false;
        }
    }

    @Override
    public IOStatistics getIOStatistics() {
        return streamStats;
    }

    @Override
    public String toString() {
        return "SmartSsdOutputStream[" + path + " at " + offset + " + " + buffer.position() + " buffered, hint "
                + hint + "]";
    }

    private void send() throws IOException {
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                int n = buffer.remaining();
                Written w = ctx.call("write", path, () -> ctx.device().write(objectId, offset, buffer, hint));
                offset += n;
                streamStats.incrementCounter(StreamStatisticNames.STREAM_WRITE_BYTES, n);
                ctx.increment(Statistic.BYTES_FROM_HOST, n);
                ctx.fsStats().incrementBytesWritten(n);
                ctx.fsStats().incrementWriteOps(1);
                if (w.size() < offset) {
                    throw new IOException("write " + path + ": device reports size " + w.size() + " after writing up to "
                            + offset);
                }
            }
        } finally {
            buffer.clear();
        }
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(path + ": " + FSExceptionMessages.STREAM_IS_CLOSED);
        }
    }
}
