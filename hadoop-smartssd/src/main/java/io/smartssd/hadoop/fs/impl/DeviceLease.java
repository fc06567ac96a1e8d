package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.SmartSsd;
import java.io.Closeable;
import java.util.concurrent.atomic.AtomicBoolean;

/** One user's share of a device handle from {@link DeviceRegistry}; close gives it back (once). */
public final class DeviceLease implements Closeable {
    private final DeviceSpec spec;
    private final SmartSsd ssd;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    DeviceLease(DeviceSpec spec, SmartSsd ssd, Runnable release) {
        this.spec = spec;
        this.ssd = ssd;
        this.release = release;
    }

    public DeviceSpec spec() {
        return spec;
    }

    public SmartSsd device() {
        if (closed.get()) {
            throw new IllegalStateException("smartssd device '" + spec.id() + "' lease is closed");
        }
        return ssd;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            release.run();
        }
    }
}
