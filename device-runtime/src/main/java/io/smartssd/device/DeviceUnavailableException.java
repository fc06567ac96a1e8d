package io.smartssd.device;

import java.nio.file.Path;

/**
 * The device could not be reached: no daemon listens at the socket, or the connection to it broke (the
 * daemon was killed or restarted). Code {@link DeviceException.Code#UNAVAILABLE}.
 *
 * <p>{@link #mayHaveRun()} tells whether the command had been sent completely before the connection
 * broke: if so the device may or may not have carried it out, and a caller that retries a non-idempotent
 * command (create, write at the end, rename) must check first. A remote handle reconnects by itself on the
 * next command, so after the daemon is back the same handle works again.
 */
public class DeviceUnavailableException extends DeviceException {
    private static final long serialVersionUID = 1L;

    private final transient Path socket;
    private final boolean mayHaveRun;

    public DeviceUnavailableException(Path socket, String message, boolean mayHaveRun, Throwable cause) {
        super(Code.UNAVAILABLE, message);
        this.socket = socket;
        this.mayHaveRun = mayHaveRun;
        if (cause != null) {
            initCause(cause);
        }
    }

    /** The daemon's socket. */
    public Path socket() {
        return socket;
    }

    /** True when the command reached the daemon before the connection broke (it may have run). */
    public boolean mayHaveRun() {
        return mayHaveRun;
    }
}
