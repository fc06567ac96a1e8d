package io.smartssd.hadoop.mapreduce;

import io.smartssd.device.ReadAhead;
import io.smartssd.device.SmartSsd;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;

/**
 * What a {@link HostMapper} reads: one extent [offset, offset + length) of a device object of objectSize
 * bytes, the job's {@link DeviceMapper} (its params) and configuration, and streams over any range of the
 * object (a record or line may run past the extent). On a device the bytes cross the host link in read
 * commands of a planned size, a chunk ahead of the reader; the planner also runs the host mapper over a
 * sample in memory, to calibrate the host's throughput.
 */
public final class HostInput {
    private final long offset;
    private final long length;
    private final long objectSize;
    private final DeviceMapper mapper;
    private final Configuration conf;
    private final Source source;
    private long bytesRead;
    private long commands;

    /** Where the bytes come from: a device, or a sample in memory. */
    interface Source {
        InputStream open(HostInput in, long from, long to) throws IOException;
    }

    HostInput(long offset, long length, long objectSize, DeviceMapper mapper, Configuration conf, Source source) {
        this.offset = offset;
        this.length = length;
        this.objectSize = objectSize;
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.conf = conf;
        this.source = source;
    }

    /** The extent of a device object, read in commands of readBytes. */
    static HostInput onDevice(SmartSsd ssd, long objectId, long offset, long length, long objectSize,
                              DeviceMapper mapper, Configuration conf, int readBytes) {
        return new HostInput(offset, length, objectSize, mapper, conf, (in, from, to) ->
                new DeviceStream(in, new ReadAhead(ssd, objectId, from, to, readBytes)));
    }

    /**
     * The extent [offset, offset + length) of an object of objectSize bytes whose bytes
     * [start, start + bytes.length) are in memory; a read outside them is an IOException.
     */
    public static HostInput inMemory(long offset, long length, long objectSize, long start, byte[] bytes,
                                     DeviceMapper mapper, Configuration conf) {
        return new HostInput(offset, length, objectSize, mapper, conf, (in, from, to) -> {
            if (from < start || to > start + bytes.length) {
                throw new EOFException("bytes [" + from + ", " + to + ") are outside the " + bytes.length
                        + " bytes in memory from " + start);
            }
            in.bytesRead += to - from;
            return new java.io.ByteArrayInputStream(bytes, (int) (from - start), (int) (to - from));
        });
    }

    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    public long objectSize() {
        return objectSize;
    }

    public DeviceMapper mapper() {
        return mapper;
    }

    public Configuration configuration() {
        return conf;
    }

    /** The bytes [from, to) of the object, in order (0 <= from <= to <= objectSize). Close it when done. */
    public InputStream open(long from, long to) throws IOException {
        if (from < 0 || to < from || to > objectSize) {
            throw new EOFException("range [" + from + ", " + to + ") is outside the object's " + objectSize + " bytes");
        }
        return source.open(this, from, to);
    }

    /** Bytes read so far. */
    public long bytesRead() {
        return bytesRead;
    }

    /** Read commands sent so far (0 in memory). */
    public long commands() {
        return commands;
    }

    /** A stream over a device range, chunk by chunk from a read-ahead. */
    private static final class DeviceStream extends InputStream {
        private final HostInput in;
        private final ReadAhead ahead;
        private ReadAhead.Chunk chunk;
        private ByteBuffer buf;
        private boolean ended;

        DeviceStream(HostInput in, ReadAhead ahead) {
            this.in = in;
            this.ahead = ahead;
        }

        private boolean fill() {
            while (!ended && (buf == null || !buf.hasRemaining())) {
                if (chunk != null) {
                    ahead.recycle(chunk);
                    chunk = null;
                }
                chunk = ahead.next();
                if (chunk == null) {
                    ended = true;
                    return false;
                }
                buf = chunk.buf();
                in.bytesRead += chunk.length();
            }
            return !ended;
        }

        @Override
        public int read() {
            return fill() ? buf.get() & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (!fill()) {
                return -1;
            }
            int n = Math.min(len, buf.remaining());
            buf.get(b, off, n);
            return n;
        }

        @Override
        public void close() {
            ahead.close();
            in.commands += ahead.commands();
        }
    }
}
