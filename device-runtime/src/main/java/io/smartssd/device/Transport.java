package io.smartssd.device;

import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import java.nio.ByteBuffer;

/**
 * How command packets reach a device. {@link SmartSsd} builds and checks the packets; a transport only
 * carries them: {@link EmbeddedTransport} calls the C device in this process over JNI, and a remote
 * transport (a device daemon's Unix socket) can implement the same interface.
 *
 * <p>Implementations are thread-safe; each call is one atomic command. After {@link #close()} every
 * call throws {@link IllegalStateException}.
 */
public interface Transport extends AutoCloseable {
    /**
     * Runs one command and returns the device's response, whatever its status.
     *
     * @param request the command
     * @param in      bytes for write_object between position and limit (direct buffer), or null
     * @param out     where read_object puts data, position to limit (direct, writable), or null
     * @throws IllegalStateException if the transport is closed
     * @throws DeviceException       if no response could be had at all (e.g. out of memory)
     */
    Response call(Request request, ByteBuffer in, ByteBuffer out);

    /** True when tasklets advance on their own between commands (result polling then sleeps). */
    boolean background();

    /** For messages: what this transport talks to. */
    String description();

    /** Closes the device; waits for commands in flight. Idempotent. */
    @Override
    void close();
}
