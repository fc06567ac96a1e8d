package io.smartssd.device;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * The JNI entry points (native/jni/smartssd_jni.c). Handles are plain longs (a {@code csd_device*});
 * keeping them valid is {@link EmbeddedTransport}'s job. Each wrapper checks what C cannot check
 * cheaply, so no bad value reaches the device as a crash.
 */
final class NativeDevice {
    static {
        NativeLibrary.load();
    }

    private NativeDevice() {
    }

    static long open(Path image, boolean background, Map<String, String> params) {
        String[][] kv = split(params);
        return nativeOpen(pathBytes(image), background, kv[0], kv[1]);
    }

    static void close(long handle) {
        nativeClose(handle);
    }

    /**
     * One command. The request bytes cross once; in/out payloads stay in their direct buffers.
     * Offsets and lengths are absolute positions in the buffers and were checked by the caller.
     */
    static byte[] command(long handle, byte[] request, ByteBuffer in, int inOff, int inLen,
                          ByteBuffer out, int outOff, int outLen) {
        return nativeCommand(handle, request, in, inOff, inLen, out, outOff, outLen);
    }

    static void format(Path image, long capacity, String preset, Map<String, String> params) {
        String[][] kv = split(params);
        nativeFormat(pathBytes(image), capacity, preset, kv[0], kv[1]);
    }

    static String version() {
        return nativeVersion();
    }

    private static byte[] pathBytes(Path p) {
        String s = p.toString();
        if (s.isEmpty() || s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("bad image path '" + s + "'");
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String[][] split(Map<String, String> params) {
        String[] keys = new String[params.size()];
        String[] values = new String[params.size()];
        int i = 0;
        for (Map.Entry<String, String> e : params.entrySet()) {
            keys[i] = java.util.Objects.requireNonNull(e.getKey(), "parameter name");
            values[i] = java.util.Objects.requireNonNull(e.getValue(), "value of parameter " + e.getKey());
            i++;
        }
        return new String[][] {keys, values};
    }

    private static native long nativeOpen(byte[] path, boolean background, String[] keys, String[] values);

    private static native void nativeClose(long handle);

    private static native byte[] nativeCommand(long handle, byte[] request, ByteBuffer in, int inOff, int inLen,
                                               ByteBuffer out, int outOff, int outLen);

    private static native void nativeFormat(byte[] path, long capacity, String preset, String[] keys,
                                            String[] values);

    private static native String nativeVersion();
}
