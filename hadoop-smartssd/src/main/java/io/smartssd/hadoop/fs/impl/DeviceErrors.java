package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.DeviceException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileAlreadyExistsException;

/** Turns a device's refusal into the IOException Hadoop callers expect, keeping the device's message. */
public final class DeviceErrors {
    private DeviceErrors() {
    }

    public static IOException translate(String operation, String path, RuntimeException e) {
        if (e instanceof DeviceException de) {
            String msg = operation + " " + path + ": " + de.getMessage();
            IOException io = switch (de.code()) {
                case NOT_FOUND -> new FileNotFoundException(msg);
                case ALREADY_EXISTS -> new FileAlreadyExistsException(msg);
                case OUT_OF_RANGE -> new EOFException(msg);
                default -> new IOException(msg);
            };
            io.initCause(de);
            return io;
        }
        // A closed handle (IllegalStateException) or a bad argument: still an IOException at this boundary.
        return new IOException(operation + " " + path + ": " + e, e);
    }
}
