package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.ReadResult;
import io.smartssd.hadoop.fs.Statistic;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * Reads one data object through a direct read-ahead buffer (the device writes into it, no packet
 * copy). Seeks inside the buffer are free; others refill it at the new position on the next read.
 * Positioned reads go to the device directly and leave the stream position alone. Seeking past the end
 * is refused (the length is known at open).
 */
public final class SmartSsdInputStream extends FSInputStream implements StreamCapabilities, CanUnbuffer,
        IOStatisticsSource {
    private final StoreContext ctx;
    private final Path path;
    private final long objectId;
    private final long length;
    private final IOStatisticsStore streamStats = IOStatisticsBinding.iostatisticsStore()
            .withCounters(StreamStatisticNames.STREAM_READ_BYTES, StreamStatisticNames.STREAM_READ_OPERATIONS,
                    StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS)
            .build();
    private ByteBuffer buffer;     // bytes [bufferStart, bufferStart + buffer.limit()) of the object
    private long bufferStart;
    private long pos;
    private boolean closed;

    public SmartSsdInputStream(StoreContext ctx, Path path, long objectId, long length) {
        this.ctx = ctx;
        this.path = path;
        this.objectId = objectId;
        this.length = length;
    }

    @Override
    public synchronized void seek(long target) throws IOException {
        checkOpen();
        if (target < 0) {
            throw new EOFException(path + ": " + FSExceptionMessages.NEGATIVE_SEEK + " " + target);
        }
        if (target > length) {
            throw new EOFException(path + ": " + FSExceptionMessages.CANNOT_SEEK_PAST_EOF + " " + target
                    + " (length " + length + ")");
        }
        streamStats.incrementCounter(StreamStatisticNames.STREAM_READ_SEEK_OPERATIONS);
        pos = target;
    }

    @Override
    public synchronized long getPos() throws IOException {
        return pos;
    }

    @Override
    public boolean seekToNewSource(long targetPos) {
        return false;
    }

    @Override
    public synchronized int available() throws IOException {
        checkOpen();
        return (int) Math.min(Integer.MAX_VALUE, length - pos);
    }

    @Override
    public synchronized int read() throws IOException {
        checkOpen();
        if (!fill()) {
            return -1;
        }
        int b = buffer.get((int) (pos - bufferStart)) & 0xff;
        pos++;
        counted(1);
        return b;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        checkOpen();
        validatePositionedReadArgs(pos, b, off, len);
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int at = (int) (pos - bufferStart);
        int n = Math.min(len, buffer.limit() - at);
        buffer.get(at, b, off, n);
        pos += n;
        counted(n);
        return n;
    }

    /** A positioned read: straight from the device into a buffer of its own; pos does not move. */
    @Override
    public int read(long position, byte[] b, int off, int len) throws IOException {
        checkOpen();
        validatePositionedReadArgs(position, b, off, len);
        if (len == 0) {
            return 0;
        }
        if (position >= length) {
            return -1;
        }
        ByteBuffer dst = ByteBuffer.allocateDirect((int) Math.min(len, length - position));
        deviceRead(position, dst);
        int n = dst.position();
        if (n == 0) {
            return -1;
        }
        dst.flip().get(b, off, n);
        counted(n);
        return n;
    }

    @Override
    public synchronized void unbuffer() {
        buffer = null;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            buffer = null;
            ctx.stats().aggregate(streamStats);
        }
    }

    @Override
    public boolean hasCapability(String capability) {
        switch (capability.toLowerCase(java.util.Locale.ROOT)) {
            case StreamCapabilities.IOSTATISTICS:
            case StreamCapabilities.UNBUFFER:
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
        return "SmartSsdInputStream[" + path + " pos " + pos + " of " + length + "]";
    }

    /** Makes the buffer hold pos; false at the end of the object. */
    private boolean fill() throws IOException {
        if (pos >= length) {
            return false;
        }
        if (buffer != null && pos >= bufferStart && pos < bufferStart + buffer.limit()) {
            return true;
        }
        if (buffer == null) {
            buffer = ByteBuffer.allocateDirect((int) Math.min(ctx.readBufferSize(), Math.max(1, length)));
        }
        buffer.clear();
        buffer.limit((int) Math.min(buffer.capacity(), length - pos));
        deviceRead(pos, buffer);
        buffer.flip();
        bufferStart = pos;
        return buffer.hasRemaining();
    }

    /** Fills dst from the object at offset (the device may answer in several reads). */
    private void deviceRead(long offset, ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            long at = offset + dst.position();
            ReadResult r = ctx.call("read", path, () -> ctx.device().read(objectId, at, dst));
            ctx.increment(Statistic.BYTES_TO_HOST, r.bytes());
            ctx.fsStats().incrementBytesRead(r.bytes());
            ctx.fsStats().incrementReadOps(1);
            streamStats.incrementCounter(StreamStatisticNames.STREAM_READ_OPERATIONS);
            if (r.bytes() == 0 || r.eof()) {
                return;
            }
        }
    }

    private void counted(int n) {
        streamStats.incrementCounter(StreamStatisticNames.STREAM_READ_BYTES, n);
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(path + ": " + FSExceptionMessages.STREAM_IS_CLOSED);
        }
    }
}
