package io.smartssd.hadoop.fs.impl;

import io.smartssd.device.DeviceException;
import io.smartssd.device.DeviceTimed;
import io.smartssd.device.ObjectInfo;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.Statistic;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/**
 * What the operations of one FileSystem instance share: the device lease, the statistics, the
 * settings, and {@link #call}, the one way they send a command (counting it, translating failures).
 */
public final class StoreContext {
    private final DeviceLease lease;
    private final IOStatisticsStore stats;
    private final FileSystem.Statistics fsStats;
    private final String owner;
    private final long blockSize;
    private final int writeBufferSize;
    private final int readBufferSize;
    private final WriteHintRules hints;

    public StoreContext(DeviceLease lease, IOStatisticsStore stats, FileSystem.Statistics fsStats, String owner,
                        long blockSize, int writeBufferSize, int readBufferSize, WriteHintRules hints) {
        this.lease = lease;
        this.stats = stats;
        this.fsStats = fsStats;
        this.owner = owner;
        this.blockSize = blockSize;
        this.writeBufferSize = writeBufferSize;
        this.readBufferSize = readBufferSize;
        this.hints = hints;
    }

    /** One device command: counted, timed in device nanoseconds, failures as IOExceptions naming path. */
    public <T extends DeviceTimed> T call(String operation, Object path, Supplier<T> command) throws IOException {
        SmartSsd ssd = lease.device();
        stats.incrementCounter(Statistic.DEVICE_COMMANDS.symbol());
        T r;
        try {
            r = command.get();
        } catch (RuntimeException e) {
            throw DeviceErrors.translate(operation, String.valueOf(path), e);
        }
        stats.incrementCounter(Statistic.DEVICE_NANOS.symbol(), r.deviceNanos());
        return r;
    }

    /** The data object called name, or null when there is none. */
    public ObjectInfo statOrNull(String name) throws IOException {
        if (name.isEmpty()) {
            return null;
        }
        try {
            return call("stat", name, () -> device().stat(name)).info();
        } catch (IOException e) {
            if (e.getCause() instanceof DeviceException de && de.code() == DeviceException.Code.NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    public SmartSsd device() {
        return lease.device();
    }

    public DeviceSpec spec() {
        return lease.spec();
    }

    public IOStatisticsStore stats() {
        return stats;
    }

    public void increment(Statistic s, long n) {
        stats.incrementCounter(s.symbol(), n);
    }

    /** Hadoop's per-scheme FileSystem statistics (what the FileSystemCounter group of a job shows). */
    public FileSystem.Statistics fsStats() {
        return fsStats;
    }

    public long blockSize() {
        return blockSize;
    }

    public int writeBufferSize() {
        return writeBufferSize;
    }

    public int readBufferSize() {
        return readBufferSize;
    }

    /** The placement hint of writes to path ({@code fs.smartssd.write.hint[.rules]}). */
    public int writeHint(Path path) {
        return hints.hintFor(path);
    }

    /** A file: its object's size and times. */
    public FileStatus fileStatus(Path path, ObjectInfo info) {
        return new FileStatus(info.size(), false, 1, blockSize, info.mtimeMillis(), info.atimeMillis(),
                FsPermission.getFileDefault(), owner, owner, path);
    }

    /** A directory without a marker (implied by the objects under it, or the root): no times, 0. */
    public FileStatus dirStatus(Path path) {
        return new FileStatus(0L, true, 1, 0L, 0L, 0L, FsPermission.getDirDefault(), owner, owner, path);
    }

    /** A directory with its marker object: the marker's times. */
    public FileStatus dirStatus(Path path, ObjectInfo marker) {
        return new FileStatus(0L, true, 1, 0L, marker.mtimeMillis(), marker.atimeMillis(), FsPermission.getDirDefault(),
                owner, owner, path);
    }
}
