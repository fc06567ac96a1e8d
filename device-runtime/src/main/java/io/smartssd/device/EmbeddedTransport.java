package io.smartssd.device;

import com.google.protobuf.InvalidProtocolBufferException;
import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The device runs inside this JVM's process on an image file; commands go straight to
 * {@code csd_device_command} over JNI.
 *
 * <p>Lifetime: every command holds the read side of a lock while it uses the native handle, close takes
 * the write side. So close waits for the commands in flight, frees the device exactly once, and a
 * command that starts after close sees handle 0 and throws IllegalStateException instead of touching
 * freed memory. (The lock is not fair, but a waiting writer blocks new readers, so close cannot starve.)
 */
public final class EmbeddedTransport implements Transport {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Path image;
    private final boolean background;
    private long handle; // guarded by lock; 0 once closed

    private EmbeddedTransport(Path image, boolean background, long handle) {
        this.image = image;
        this.background = background;
        this.handle = handle;
    }

    /** Opens the device in image. */
    public static EmbeddedTransport open(Path image, boolean background, Map<String, String> params) {
        long h = NativeDevice.open(image, background, params);
        return new EmbeddedTransport(image, background, h);
    }

    @Override
    public Response call(Request request, ByteBuffer in, ByteBuffer out) {
        byte[] req = request.toByteArray();
        byte[] resp;
        Lock r = lock.readLock();
        r.lock();
        try {
            if (handle == 0) {
                throw new IllegalStateException("device " + image + " is closed");
            }
            resp = NativeDevice.command(handle, req,
                    in, in == null ? 0 : in.position(), in == null ? 0 : in.remaining(),
                    out, out == null ? 0 : out.position(), out == null ? 0 : out.remaining());
        } finally {
            r.unlock();
        }
        try {
            return Response.parseFrom(resp);
        } catch (InvalidProtocolBufferException e) {
            throw new DeviceException(DeviceException.Code.BAD_PACKET,
                    "the device sent a response that does not decode: " + e.getMessage());
        }
    }

    @Override
    public boolean background() {
        return background;
    }

    @Override
    public String description() {
        return "embedded device " + image;
    }

    /** True once closed. */
    public boolean isClosed() {
        Lock r = lock.readLock();
        r.lock();
        try {
            return handle == 0;
        } finally {
            r.unlock();
        }
    }

    @Override
    public void close() {
        Lock w = lock.writeLock();
        w.lock();
        try {
            if (handle != 0) {
                long h = handle;
                handle = 0; // even if the native close reports an error, the device is gone
                NativeDevice.close(h);
            }
        } finally {
            w.unlock();
        }
    }
}
