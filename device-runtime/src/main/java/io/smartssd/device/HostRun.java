package io.smartssd.device;

import io.smartssd.proto.Row;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One extent evaluated by the host instead of the device (docs/OFFLOAD.md): its pages read over the host
 * link with ordinary read commands, a chunk ahead on a reader thread, and fed to a {@link HostEvaluator}
 * on the caller's thread; the rows are those a {@link TaskletRun} of the same spec gives on the device.
 * It measures what the planner's host model predicts: bytes read, read commands, wall time, and the
 * caller's CPU time spent evaluating.
 */
public final class HostRun implements Iterator<Row>, AutoCloseable {
    /** Bytes per read command (a multiple of the page size is used): 128 pages of 8 KiB. */
    public static final int DEFAULT_READ_BYTES = 1 << 20;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final HostEvaluator eval;
    private final Reader reader;
    private final long started = System.nanoTime();
    private final ArrayDeque<Row> ready = new ArrayDeque<>();
    private long cpuNanos;
    private long wallNanos = -1;
    private long nextPage;
    private boolean needMore = true;
    private boolean finished;
    private boolean closed;

    private HostRun(HostEvaluator eval, Reader reader) {
        this.eval = eval;
        this.reader = reader;
    }

    /** The spec over extent, asking the device for the object's size and the page size. */
    public static HostRun start(SmartSsd ssd, TaskletRun.Spec spec, Extent extent) {
        long size = ssd.stat(extent.objectId()).info().size();
        return start(ssd, spec, extent, size, ssd.identify().geometry().pageBytes(), DEFAULT_READ_BYTES);
    }

    /**
     * The spec over extent of an object of objectSize bytes on a device of pageBytes pages, reading
     * readBytes (rounded down to whole pages, at least one) per command.
     *
     * @throws DeviceException the spec refused as the device would refuse it (see {@link HostEvaluator})
     */
    public static HostRun start(SmartSsd ssd, TaskletRun.Spec spec, Extent extent, long objectSize, int pageBytes,
                                int readBytes) {
        HostEvaluator ev = new HostEvaluator(spec, pageBytes);
        try {
            long off = extent.whole() ? 0 : extent.offset();
            long len = extent.whole() ? objectSize - off : extent.length();
            long[] pages = ev.begin(objectSize, off, len);
            int chunk = Math.max(pageBytes, readBytes / pageBytes * pageBytes);
            Reader r = new Reader(ssd, extent.objectId(), objectSize, pageBytes, chunk, pages[0], pages[1]);
            return new HostRun(ev, r);
        } catch (RuntimeException e) {
            ev.close();
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        while (ready.isEmpty() && !finished) {
            step();
        }
        return !ready.isEmpty();
    }

    @Override
    public Row next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return ready.poll();
    }

    /** Feeds the next chunk of pages (past the extent's last page, one page, as text asks), or finishes. */
    private void step() {
        Reader.Chunk c = reader.next();
        if (c == null && needMore) {
            c = reader.readPage(nextPage);
        }
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        try {
            boolean more = c != null;
            if (c != null) {
                for (int i = 0; i < c.pages && more; i++) {
                    int n = (int) Math.min(eval.pageBytes(), c.bytes - (long) i * eval.pageBytes());
                    more = eval.feed(c.firstPage + i, c.buf, i * eval.pageBytes(), n);
                    nextPage = c.firstPage + i + 1;
                }
                reader.recycle(c);
            }
            needMore = more;
            if (!more) {
                reader.stop();
                eval.finish();
                finished = true;
                wallNanos = System.nanoTime() - started;
            }
            ready.addAll(eval.take());
        } finally {
            cpuNanos += THREADS.getCurrentThreadCpuTime() - cpu0;
        }
    }

    /** Bytes read from the device over the link. */
    public long bytesRead() {
        return reader.bytesRead;
    }

    /** Read commands sent. */
    public long readCommands() {
        return reader.commands;
    }

    /** Device time of the read commands, summed, ns. */
    public long readDeviceNanos() {
        return reader.deviceNanos;
    }

    /** CPU time of the caller's thread spent evaluating (feeding pages, taking rows), ns. */
    public long cpuNanos() {
        return cpuNanos;
    }

    /** Start to finish, ns (-1 before the extent is done). */
    public long wallNanos() {
        return wallNanos;
    }

    /** What the tasklet charged: cycles and DRAM accesses (the device's cost model prices them). */
    public long cycles() {
        return eval.cycles();
    }

    public long dramAccesses() {
        return eval.dramAccesses();
    }

    /** Pages fed to the tasklet. */
    public long pages() {
        return eval.pages();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        reader.stop();
        eval.close();
    }

    /** Reads the pages a chunk ahead on its own thread (a real host's read-ahead). */
    private static final class Reader {
        record Chunk(ByteBuffer buf, long firstPage, int pages, long bytes) {
        }

        private static final Chunk END = new Chunk(null, -1, 0, 0);
        private final SmartSsd ssd;
        private final long object;
        private final long size;
        private final int pageBytes;
        private final BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(3);   // two buffers and the end
        private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(2);
        private final Thread thread;
        private volatile boolean stopped;
        private volatile RuntimeException failure;
        private volatile long bytesRead;
        private volatile long commands;
        private volatile long deviceNanos;

        /** Reads pages firstPage..lastPage ahead (none when last < first). */
        Reader(SmartSsd ssd, long object, long size, int pageBytes, int chunkBytes, long firstPage, long lastPage) {
            this.ssd = ssd;
            this.object = object;
            this.size = size;
            this.pageBytes = pageBytes;
            free.add(ByteBuffer.allocateDirect(chunkBytes));
            free.add(ByteBuffer.allocateDirect(chunkBytes));
            thread = new Thread(() -> run(firstPage, lastPage), "smartssd-host-read-" + object);
            thread.setDaemon(true);
            thread.start();
        }

        private void run(long page, long lastPage) {
            try {
                long maxPage = size == 0 ? -1 : Math.min(lastPage, (size - 1) / pageBytes);
                while (!stopped && page <= maxPage) {
                    ByteBuffer b = free.take();
                    if (stopped) {
                        break;
                    }
                    long pages = Math.min(b.capacity() / pageBytes, maxPage - page + 1);
                    Chunk c = fill(b, page, pages);
                    full.put(c);
                    page += c.pages;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                failure = e;
            }
            full.offer(END);
        }

        /** Reads up to `pages` pages from `page` into b (fewer bytes at the object's end). */
        private Chunk fill(ByteBuffer b, long page, long pages) {
            b.clear();
            long off = page * pageBytes;
            int want = (int) Math.min(pages * pageBytes, size - off);
            b.limit(want);
            while (b.hasRemaining()) {
                ReadResult r = ssd.read(object, off + b.position(), b);
                commands++;
                deviceNanos += r.deviceNanos();
                if (r.bytes() <= 0) {
                    throw new DeviceException(DeviceException.Code.IO_ERROR, "object " + object
                            + " ended at " + (off + b.position()) + " of its " + size + " bytes");
                }
            }
            bytesRead += want;
            return new Chunk(b, page, (want + pageBytes - 1) / pageBytes, want);
        }

        /** One page past the extent's last (a line that runs on), read now; null past the object's end. */
        Chunk readPage(long page) {
            if (size == 0 || page > (size - 1) / pageBytes) {
                return null;
            }
            ByteBuffer b = free.poll();
            return fill(b != null ? b : ByteBuffer.allocateDirect(pageBytes), page, 1);
        }

        /** The next chunk, or null at the end of the object. */
        Chunk next() {
            try {
                Chunk c = full.take();
                if (c == END) {
                    full.put(END);   // every later call sees the end too
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

        void recycle(Chunk c) {
            free.offer(c.buf);
        }

        /** The reader thread ends after the read in progress (never interrupted: a socket transport would
         * close its channel). */
        void stop() {
            stopped = true;
            full.clear();
            free.offer(ByteBuffer.allocateDirect(0));
        }
    }
}
