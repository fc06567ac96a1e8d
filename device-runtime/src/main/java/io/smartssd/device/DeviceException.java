package io.smartssd.device;

import io.smartssd.proto.Status;

/**
 * A command the device refused or failed: the device's {@link Code} and its message.
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

    public DeviceException(Code code, String deviceMessage) {
        super(code + (deviceMessage == null || deviceMessage.isEmpty() ? "" : ": " + deviceMessage));
        this.code = code;
        this.deviceMessage = deviceMessage == null ? "" : deviceMessage;
    }

    /** Called from the JNI glue, which knows only the status number. */
    DeviceException(int status, String deviceMessage) {
        this(Code.of(status), deviceMessage);
    }

    public Code code() {
        return code;
    }

    /** The device's own message, without the code. */
    public String deviceMessage() {
        return deviceMessage;
    }
}
