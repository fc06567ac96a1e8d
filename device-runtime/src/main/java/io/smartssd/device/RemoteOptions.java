package io.smartssd.device;

import java.time.Duration;
import java.util.Objects;

/**
 * How to talk to a device daemon ({@link SmartSsd#openRemote(java.nio.file.Path, RemoteOptions)}).
 * Defaults: at most 16 connections, a lone command spins up to 100 µs for its answer, close waits 10 s for
 * commands in flight.
 */
public final class RemoteOptions {
    private int maxConnections = 16;
    private Duration closeTimeout = Duration.ofSeconds(10);
    private long spinNanos = 100_000;

    public static RemoteOptions defaults() {
        return new RemoteOptions();
    }

    /**
     * At most this many connections (so daemon threads) at once. Each command borrows an idle connection
     * or opens one; threads beyond the limit wait for a connection. Up to this many commands of one
     * handle run on the device at the same time.
     */
    public RemoteOptions maxConnections(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("maxConnections must be >= 1, got " + n);
        }
        this.maxConnections = n;
        return this;
    }

    /**
     * How long {@link SmartSsd#close()} waits for commands in flight before it closes their connections
     * under them (they then fail with IllegalStateException). A daemon that hangs cannot hang close.
     */
    public RemoteOptions closeTimeout(Duration d) {
        Objects.requireNonNull(d, "closeTimeout");
        if (d.isNegative()) {
            throw new IllegalArgumentException("closeTimeout must be >= 0, got " + d);
        }
        this.closeTimeout = d;
        return this;
    }

    /**
     * How long a lone command spins for its answer before it blocks (default 100 µs; 0 = always block).
     * A blocked thread pays a wake-up of tens of microseconds per command on top of the daemon's own;
     * spinning saves that at the price of a busy core while it waits. Commands only spin while they are
     * the handle's only command in flight, so many threads never spin against each other.
     */
    public RemoteOptions spinNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("spinNanos must be >= 0, got " + nanos);
        }
        this.spinNanos = nanos;
        return this;
    }

    public long spinNanos() {
        return spinNanos;
    }

    public int maxConnections() {
        return maxConnections;
    }

    public Duration closeTimeout() {
        return closeTimeout;
    }
}
