package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.DeviceException;
import io.smartssd.device.OpenOptions;
import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device handles of this JVM, shared and reference-counted. A device image is locked by the one
 * process (and handle) that opens it, so every FileSystem instance and map task of a JVM that names the
 * same image must share one handle; it is closed when the last {@link DeviceLease} is released.
 * This is the one piece of process-wide state, and it exists because the image lock is process-wide.
 */
public final class DeviceRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceRegistry.class);

    private static final class Entry {
        final SmartSsd ssd;
        int refs;

        Entry(SmartSsd ssd) {
            this.ssd = ssd;
        }
    }

    private static final Map<String, Entry> OPEN = new HashMap<>();

    private DeviceRegistry() {
    }

    /** A lease on the device spec describes, opening it if no one in this JVM has. */
    public static DeviceLease acquire(DeviceSpec spec) throws IOException {
        String key = spec.registryKey();
        synchronized (OPEN) {
            Entry e = OPEN.get(key);
            if (e == null) {
                e = new Entry(open(spec));
                OPEN.put(key, e);
                LOG.debug("opened smartssd device {} ({})", spec.id(), key);
            }
            e.refs++;
            return new DeviceLease(spec, e.ssd, () -> release(key));
        }
    }

    /** Handles open in this JVM (for tests and diagnostics). */
    public static int openCount() {
        synchronized (OPEN) {
            return OPEN.size();
        }
    }

    private static void release(String key) {
        SmartSsd toClose = null;
        synchronized (OPEN) {
            Entry e = OPEN.get(key);
            if (e != null && --e.refs == 0) {
                OPEN.remove(key);
                toClose = e.ssd;
            }
        }
        if (toClose != null) {
            LOG.debug("closing smartssd device {}", key);
            try {
                toClose.close();
            } catch (RuntimeException ex) {
                LOG.warn("closing smartssd device {} failed: {}", key, ex.getMessage());
            }
        }
    }

    private static SmartSsd open(DeviceSpec spec) throws IOException {
        try {
            if (spec.image() != null) {
                return SmartSsd.openEmbedded(spec.image(), OpenOptions.defaults().background(spec.background())
                        .param("host_threads", Integer.toString(spec.hostThreads()))
                        .param("host_reader", spec.hostReader() ? "1" : "0"));
            }
            return SmartSsd.openRemote(spec.socket());
        } catch (DeviceException e) {
            String why = e.code() == DeviceException.Code.BUSY && spec.image() != null
                    ? "the image is in use by another process (an image can be open in one process at a time;"
                      + " serve it with a csdd daemon and set .socket instead to share it)"
                    : e.getMessage();
            throw new IOException(spec.locationKey() + " = " + spec.location() + ": cannot open smartssd device '"
                    + spec.id() + "': " + why, e);
        } catch (RuntimeException e) {
            throw new IOException(spec.locationKey() + " = " + spec.location() + ": cannot open smartssd device '"
                    + spec.id() + "': " + e, e);
        }
    }
}
