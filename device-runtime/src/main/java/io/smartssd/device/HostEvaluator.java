package io.smartssd.device;

import io.smartssd.proto.Row;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A built-in tasklet on the host's CPU (native/include/smartssd/eval.h): the same tasklet code, framing,
 * extent ownership, pushed filter, runtime params and row limit as a device run of the same
 * {@link TaskletRun.Spec}, fed with pages the caller has in memory; no device and no virtual time. Its
 * rows are those a {@link TaskletRun} of the spec gives over the same extent, and it reports what the
 * tasklet charged, which is what the device's cost model prices (cycles and DRAM accesses per page).
 * {@link HostRun} feeds it the pages of a device object read over the host link.
 */
public final class HostEvaluator implements AutoCloseable {
    private long handle;
    private final int pageBytes;
    private long first;
    private long last;

    /**
     * @throws DeviceException as the device would refuse the spec: NOT_FOUND for a tasklet that is not
     *                         built in (user tasklets run on devices only), INVALID_ARGUMENT for a bad param
     *                         ({@link DeviceException#param()} names it) or plan, UNSUPPORTED for a filter
     *                         the tasklet does not declare
     */
    public HostEvaluator(TaskletRun.Spec spec, int pageBytes) {
        if (pageBytes < 512 || pageBytes > 65536 || Integer.bitCount(pageBytes) != 1) {
            throw new IllegalArgumentException("page size " + pageBytes + " is not a power of two in 512..65536");
        }
        byte[] t = SmartSsd.taskletObject(spec.tasklet(), spec.staticParams(), spec.plan(), spec.filter()).toByteArray();
        byte[] o = SmartSsd.outputObject(spec.runtimeParams(), spec.keywords(), spec.maxOutputs()).toByteArray();
        this.handle = NativeEval.nativeCreate(t, o, pageBytes);
        this.pageBytes = pageBytes;
    }

    /** The extent [offset, offset + length) of an object of objectSize bytes; returns {first, last} page. */
    public long[] begin(long objectSize, long offset, long length) {
        long[] r = NativeEval.nativeBegin(open(), objectSize, offset, length);
        first = r[0];
        last = r[1];
        return r;
    }

    /** The first page to feed (after {@link #begin}). */
    public long firstPage() {
        return first;
    }

    /** The last page the extent surely needs (text may need more: see {@link #feed}). */
    public long lastPage() {
        return last;
    }

    public int pageBytes() {
        return pageBytes;
    }

    /**
     * Feeds page {@code page} (pages in order from {@link #firstPage}): {@code length} bytes of a direct
     * buffer at {@code offset}, fewer than a page only for the object's last page. Returns whether the
     * extent needs more pages.
     */
    public boolean feed(long page, ByteBuffer data, int offset, int length) {
        if (!data.isDirect()) {
            throw new IllegalArgumentException("host evaluation takes pages in a direct ByteBuffer");
        }
        return NativeEval.nativeFeed(open(), page, data, offset, length) != 0;
    }

    /** No more input: the tasklet's finish (its rows follow from {@link #take}). */
    public void finish() {
        NativeEval.nativeFinish(open());
    }

    /** The rows produced since the last take, in order. */
    public List<Row> take() {
        byte[] b = NativeEval.nativeTake(open());
        if (b == null || b.length == 0) {
            return List.of();
        }
        java.util.ArrayList<Row> rows = new java.util.ArrayList<>();
        ByteArrayInputStream in = new ByteArrayInputStream(b);
        try {
            for (Row r = Row.parseDelimitedFrom(in); r != null; r = Row.parseDelimitedFrom(in)) {
                rows.add(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("host evaluation produced a malformed row", e);
        }
        return rows;
    }

    /** Cycles the tasklet charged so far. */
    public long cycles() {
        return NativeEval.nativeCost(open())[0];
    }

    /** DRAM accesses the tasklet charged so far. */
    public long dramAccesses() {
        return NativeEval.nativeCost(open())[1];
    }

    /** Pages fed so far. */
    public long pages() {
        return NativeEval.nativeCost(open())[2];
    }

    /** max_outputs rows were produced. */
    public boolean truncated() {
        return NativeEval.nativeCost(open())[3] != 0;
    }

    private long open() {
        if (handle == 0) {
            throw new IllegalStateException("host evaluation is closed");
        }
        return handle;
    }

    @Override
    public void close() {
        if (handle != 0) {
            NativeEval.nativeDestroy(handle);
            handle = 0;
        }
    }
}
