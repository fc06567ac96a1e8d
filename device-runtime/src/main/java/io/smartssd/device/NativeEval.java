package io.smartssd.device;

import java.nio.ByteBuffer;

/**
 * The JNI entry points of a host evaluation (native/include/smartssd/eval.h): handles are plain longs
 * (a {@code csd_eval*}); {@link HostEvaluator} owns one and closes it exactly once.
 */
final class NativeEval {
    static {
        NativeLibrary.load();
    }

    private NativeEval() {
    }

    static native long nativeCreate(byte[] tasklet, byte[] output, int pageBytes);

    /** {first page, last page}. */
    static native long[] nativeBegin(long handle, long objectSize, long offset, long length);

    /** 1 while the extent needs more pages. */
    static native int nativeFeed(long handle, long page, ByteBuffer data, int offset, int length);

    static native void nativeFinish(long handle);

    /** Rows since the last take: length-delimited smartssd.v1.Row messages. */
    static native byte[] nativeTake(long handle);

    /** {cycles, DRAM accesses, pages fed, 1 if max_outputs was reached}. */
    static native long[] nativeCost(long handle);

    static native void nativeDestroy(long handle);
}
