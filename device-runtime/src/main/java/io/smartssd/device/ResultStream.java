package io.smartssd.device;

import io.smartssd.proto.Row;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The rows of one output object, in order, with the polling hidden: {@link #hasNext()} reads results
 * from the device and, while the tasklet runs without new rows, waits as {@link PollingPolicy} says.
 * A tasklet that fails surfaces as a {@link DeviceException} with the tasklet's status and message,
 * after the rows it produced before failing. Not thread-safe (one consumer per stream).
 */
public final class ResultStream implements Iterator<Row> {
    private final SmartSsd device;
    private final long outputId;
    private final PollingPolicy.Poller poller;
    private final Consumer<TaskProgress> onProgress;
    private final boolean sleeps;
    private final ArrayDeque<Row> pending = new ArrayDeque<>();
    private TaskProgress progress;
    private long polls;
    private long deviceNanos;

    ResultStream(SmartSsd device, long outputId, PollingPolicy policy, Consumer<TaskProgress> onProgress,
                 boolean sleeps) {
        this.device = device;
        this.outputId = outputId;
        this.poller = policy.newPoller();
        this.onProgress = onProgress;
        this.sleeps = sleeps;
    }

    @Override
    public boolean hasNext() {
        while (pending.isEmpty()) {
            if (progress != null && progress.finished() && progress.status() != DeviceException.Code.OK) {
                throw new DeviceException(progress.status(), "tasklet failed on output " + outputId
                        + (progress.message().isEmpty() ? "" : ": " + progress.message()));
            }
            if (progress != null && progress.done()) {
                return false;
            }
            poll();
        }
        return true;
    }

    @Override
    public Row next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more rows in output " + outputId);
        }
        return pending.poll();
    }

    /** Reads every remaining row. */
    public List<Row> toList() {
        List<Row> all = new ArrayList<>();
        forEachRemaining(all::add);
        return all;
    }

    /** The last progress the device reported, or null before the first poll. */
    public TaskProgress progress() {
        return progress;
    }

    /** read_object commands sent so far. */
    public long polls() {
        return polls;
    }

    /** Sum of the device time of the read_object commands sent so far. */
    public long pollDeviceNanos() {
        return deviceNanos;
    }

    /** A callback per poll would be noise: report when pages, rows or the state moved. */
    private static boolean moved(TaskProgress a, TaskProgress b) {
        return a == null || a.pagesDone() != b.pagesDone() || a.rows() != b.rows()
                || a.finished() != b.finished() || a.done() != b.done();
    }

    private void poll() {
        ResultChunk c = device.readResults(outputId, 0);
        polls++;
        deviceNanos += c.deviceNanos();
        TaskProgress before = progress;
        progress = c.progress();
        if (onProgress != null && moved(before, progress)) {
            onProgress.accept(progress);
        }
        pending.addAll(c.rows());
        if (!c.rows().isEmpty()) {
            poller.gotRows();
            return;
        }
        if (progress.finished() || !sleeps) {
            // Rows may remain, or (without a device thread) each poll is what advances the tasklet.
            return;
        }
        long wait = poller.next(System.nanoTime(), progress.pagesDone(), progress.pagesTotal());
        LockSupport.parkNanos(this, wait);
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the results of output " + outputId);
        }
    }
}
