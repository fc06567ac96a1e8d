package io.smartssd.device;

import io.smartssd.proto.Row;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;

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
    private final ReadAhead reader;
    private final long objectSize;
    private final long started = System.nanoTime();
    private final ArrayDeque<Row> ready = new ArrayDeque<>();
    private long cpuNanos;
    private long wallNanos = -1;
    private long nextPage;
    private boolean needMore = true;
    private boolean finished;
    private boolean closed;

    private HostRun(HostEvaluator eval, ReadAhead reader, long objectSize) {
        this.eval = eval;
        this.reader = reader;
        this.objectSize = objectSize;
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
            long from = pages[0] * pageBytes;
            long to = pages[1] < pages[0] ? from : Math.min(objectSize, (pages[1] + 1) * pageBytes);
            return new HostRun(ev, new ReadAhead(ssd, extent.objectId(), from, to, chunk), objectSize);
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
        ReadAhead.Chunk c = reader.next();
        int pb = eval.pageBytes();
        if (c == null && needMore && nextPage > 0 && nextPage * pb < objectSize) {
            c = reader.readNow(nextPage * pb, (int) Math.min(pb, objectSize - nextPage * pb));
        }
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        try {
            boolean more = c != null;
            if (c != null) {
                long first = c.offset() / pb;
                int pages = (c.length() + pb - 1) / pb;
                for (int i = 0; i < pages && more; i++) {
                    int n = Math.min(pb, c.length() - i * pb);
                    more = eval.feed(first + i, c.buf(), i * pb, n);
                    nextPage = first + i + 1;
                }
                reader.recycle(c);
            }
            needMore = more;
            if (!more) {
                reader.close();
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
        return reader.bytesRead();
    }

    /** Read commands sent. */
    public long readCommands() {
        return reader.commands();
    }

    /** Device time of the read commands, summed, ns. */
    public long readDeviceNanos() {
        return reader.deviceNanos();
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
        reader.close();
        eval.close();
    }
}
