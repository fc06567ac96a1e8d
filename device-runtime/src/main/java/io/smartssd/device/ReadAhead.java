package io.smartssd.device;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reads a byte range of a data object over the host link in chunks, two chunks ahead of the consumer on
 * a thread of its own (a host's read-ahead): the host side of an offloaded split reads while it computes.
 * Chunks come in order in direct buffers the consumer hands back with {@link #recycle}.
 */
public final class ReadAhead implements AutoCloseable {
    /** One chunk: length bytes of the object from offset, in buf (position 0). */
    public record Chunk(ByteBuffer buf, long offset, int length) {
    }

    private static final Chunk END = new Chunk(null, -1, 0);
    private final SmartSsd ssd;
    private final long object;
    private final BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(3);   // two buffers and the end
    private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(3);
    private volatile boolean stopped;
    private volatile RuntimeException failure;
    private volatile long bytesRead;
    private volatile long commands;
    private volatile long deviceNanos;

    /** Reads [from, to) of object in chunks of chunkBytes (to <= from: nothing). */
    public ReadAhead(SmartSsd ssd, long object, long from, long to, int chunkBytes) {
        if (chunkBytes < 1) {
            throw new IllegalArgumentException("chunk bytes must be >= 1, got " + chunkBytes);
        }
        this.ssd = ssd;
        this.object = object;
        free.add(ByteBuffer.allocateDirect(chunkBytes));
        free.add(ByteBuffer.allocateDirect(chunkBytes));
        Thread t = new Thread(() -> run(from, to), "smartssd-read-ahead-" + object);
        t.setDaemon(true);
        t.start();
    }

    private void run(long at, long to) {
        try {
            while (!stopped && at < to) {
                ByteBuffer b = free.take();
                if (stopped) {
                    break;
                }
                Chunk c = fill(b, at, (int) Math.min(b.capacity(), to - at));
                full.put(c);
                at += c.length();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
        full.offer(END);
    }

    private Chunk fill(ByteBuffer b, long offset, int length) {
        b.clear();
        b.limit(length);
        while (b.hasRemaining()) {
            ReadResult r = ssd.read(object, offset + b.position(), b);
            commands++;
            deviceNanos += r.deviceNanos();
            if (r.bytes() <= 0) {
                throw new DeviceException(DeviceException.Code.IO_ERROR, "object " + object + " ended at "
                        + (offset + b.position()) + " reading [" + offset + ", +" + length + ")");
            }
        }
        bytesRead += length;
        b.flip();
        return new Chunk(b, offset, length);
    }

    /** The next chunk, or null after the range; a failed read is thrown here. */
    public Chunk next() {
        try {
            Chunk c = full.take();
            if (c == END) {
                full.put(END);   // later calls see the end too
                if (failure != null) {
                    throw failure;
                }
                return null;
            }
            return c;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading from the device", e);
        }
    }

    /** Hands a chunk's buffer back for the next read. */
    public void recycle(Chunk c) {
        if (c != null && c.buf().capacity() > 0) {
            free.offer(c.buf());
        }
    }

    /** Reads [offset, +length) now on the caller's thread (past the range: a text line that runs on). */
    public Chunk readNow(long offset, int length) {
        ByteBuffer b = free.poll();
        return fill(b != null && b.capacity() >= length ? b : ByteBuffer.allocateDirect(length), offset, length);
    }

    /** Bytes read from the device. */
    public long bytesRead() {
        return bytesRead;
    }

    /** Read commands sent. */
    public long commands() {
        return commands;
    }

    /** Device time of the read commands, ns. */
    public long deviceNanos() {
        return deviceNanos;
    }

    /**
     * Stops reading ahead; the thread ends after the read in progress (it is never interrupted: a socket
     * transport would close its channel).
     */
    @Override
    public void close() {
        stopped = true;
        full.clear();
        free.offer(ByteBuffer.allocateDirect(0));
    }
}
