package io.smartssd.device;

import io.smartssd.proto.Status;
import java.util.Optional;

/**
 * A command the device refused or failed: the device's {@link Code}, its message and, when the device
 * rejected one tasklet parameter, that parameter's name ({@link #param()}).
 *
 * <p>Unchecked on purpose: device commands are called from iterators, lambdas and engine callbacks
 * (Spark readers, Hadoop record readers) where a checked exception only gets wrapped; the Hadoop layer
 * turns it into an {@link java.io.IOException} at its own boundary. The device keeps serving after
 * any DeviceException. Misuse of the Java API itself (null arguments, negative lengths, heap buffers
 * where direct ones are required) is an {@link IllegalArgumentException} or
 * {@link NullPointerException} before anything reaches the device; use of a closed handle is an
 * {@link IllegalStateException}.
 */
public class DeviceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Mirrors {@code smartssd.v1.Status} (and {@code csd_status} in C), same numbers. */
    public enum Code {
        OK(0), INVALID_ARGUMENT(1), NOT_FOUND(2), ALREADY_EXISTS(3), NO_SPACE(4), BAD_PACKET(5),
        UNSUPPORTED(6), TASKLET_ERROR(7), BUSY(8), IO_ERROR(9), OUT_OF_RANGE(10),
        RESOURCE_EXHAUSTED(11), INTERNAL(12),
        /** The daemon does not serve this client's user (csdd --allow); it hangs up after saying so. */
        PERMISSION_DENIED(60),
        /** A number this library does not know (a newer device). */
        UNKNOWN(-1),
        /**
         * Not a device status: the device could not be reached (no daemon at the socket, or the connection
         * broke). Thrown as {@link DeviceUnavailableException}.
         */
        UNAVAILABLE(-2);

        private final int number;

        Code(int number) {
            this.number = number;
        }

        public int number() {
            return number;
        }

        public static Code of(int number) {
            if (number < 0) {
                return UNKNOWN; // the negative numbers are this library's own, never a device's
            }
            for (Code c : values()) {
                if (c.number == number) {
                    return c;
                }
            }
            return UNKNOWN;
        }

        static Code of(Status s) {
            return s == Status.UNRECOGNIZED ? UNKNOWN : of(s.getNumber());
        }
    }

    private final Code code;
    private final String deviceMessage;
    private final String param;

    public DeviceException(Code code, String deviceMessage) {
        this(code, deviceMessage, null);
    }

    /**
     * @param param the tasklet parameter the device rejected ({@code smartssd.v1.Response.param}), or
     *              null or empty when the failure is not about one parameter
     */
    public DeviceException(Code code, String deviceMessage, String param) {
        super(code + (deviceMessage == null || deviceMessage.isEmpty() ? "" : ": " + deviceMessage));
        this.code = code;
        this.deviceMessage = deviceMessage == null ? "" : deviceMessage;
        this.param = param == null || param.isEmpty() ? null : param;
    }

    /** Called from the JNI glue, which knows only the status number. */
    DeviceException(int status, String deviceMessage) {
        this(Code.of(status), deviceMessage);
    }

    /** Called from the JNI glue of a host evaluation (NativeEval), with the param a tasklet rejected. */
    DeviceException(int status, String deviceMessage, String param) {
        this(Code.of(status), deviceMessage, param);
    }

    public Code code() {
        return code;
    }

    /** The device's own message, without the code. */
    public String deviceMessage() {
        return deviceMessage;
    }

    /**
     * The name of the tasklet parameter the device rejected (a static param of the TASKLET object, a
     * runtime param of the OUTPUT object, or {@code pattern} for a grep keyword), as the device reports
     * it in the response's {@code param} field; empty when the failure is not about one parameter. The
     * message says why it was rejected.
     */
    public Optional<String> param() {
        return Optional.ofNullable(param);
    }
}
