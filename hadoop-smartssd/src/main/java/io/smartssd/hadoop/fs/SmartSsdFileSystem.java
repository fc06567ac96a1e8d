package io.smartssd.hadoop.fs;

import static io.smartssd.hadoop.fs.Constants.AFS_IMPL;
import static io.smartssd.hadoop.fs.Constants.BLOCK_SIZE;
import static io.smartssd.hadoop.fs.Constants.DEFAULT_BLOCK_SIZE;
import static io.smartssd.hadoop.fs.Constants.DEFAULT_READ_BUFFER_SIZE;
import static io.smartssd.hadoop.fs.Constants.FS_IMPL;
import static io.smartssd.hadoop.fs.Constants.DEFAULT_WRITE_BUFFER_SIZE;
import static io.smartssd.hadoop.fs.Constants.FS_SCHEME;
import static io.smartssd.hadoop.fs.Constants.READ_BUFFER_SIZE;
import static io.smartssd.hadoop.fs.Constants.WRITE_BUFFER_SIZE;

import io.smartssd.device.ObjectInfo;
import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.impl.CreateOperation;
import io.smartssd.hadoop.fs.impl.DeleteOperation;
import io.smartssd.hadoop.fs.impl.DeviceLease;
import io.smartssd.hadoop.fs.impl.DeviceRegistry;
import io.smartssd.hadoop.fs.impl.DeviceSpec;
import io.smartssd.hadoop.fs.impl.GetFileStatusOperation;
import io.smartssd.hadoop.fs.impl.ListStatusOperation;
import io.smartssd.hadoop.fs.impl.MkdirsOperation;
import io.smartssd.hadoop.fs.impl.ObjectNames;
import io.smartssd.hadoop.fs.impl.Probe;
import io.smartssd.hadoop.fs.impl.RenameOperation;
import io.smartssd.hadoop.fs.impl.SetTimesOperation;
import io.smartssd.hadoop.fs.impl.SmartSsdInputStream;
import io.smartssd.hadoop.fs.impl.StoreContext;
import io.smartssd.hadoop.fs.impl.WriteHintRules;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.Progressable;

/**
 * The {@code smartssd://<device-id>/<path>} FileSystem: the Smart SSD paper's object-based file system
 * (IV-B), mapping names to the device's data objects. Files are objects; directories are marker objects
 * ({@code a/b/}) or implied by the objects under them. See {@link Constants} for configuration and
 * {@code contract/smartssd.xml} (test resources) for the semantics, stated for Hadoop's contract tests:
 * file rename is atomic, directory rename and delete are not; files are visible as soon as created;
 * append is supported; there are no permissions, owners or times.
 *
 * <p>The device handle comes from a JVM-wide registry (an image can be open by one handle), shared by
 * every instance that names the same image or socket and closed with the last of them.
 */
public class SmartSsdFileSystem extends FileSystem implements IOStatisticsSource {
    private URI uri;
    private Path workingDir;
    private DeviceLease lease;
    private StoreContext ctx;
    private IOStatisticsStore stats;

    @Override
    public String getScheme() {
        return FS_SCHEME;
    }

    /**
     * Names this class and {@link SmartSsdFs} for {@code smartssd://} in conf ({@value Constants#FS_IMPL},
     * {@value Constants#AFS_IMPL}) where conf names none, and returns conf. Hadoop finds a FileSystem by
     * its service entry, but reads the entries once per JVM, through the class loader of that moment: a
     * jar added later (Spark's {@code spark.jars} and {@code --jars}, Hadoop's {@code -libjars}) is not
     * among them, and {@code No FileSystem for scheme "smartssd"} follows. A class the configuration
     * names is loaded through the configuration's own class loader instead.
     */
    public static Configuration register(Configuration conf) {
        if (conf.get(FS_IMPL) == null) {
            conf.set(FS_IMPL, SmartSsdFileSystem.class.getName());
        }
        if (conf.get(AFS_IMPL) == null) {
            conf.set(AFS_IMPL, SmartSsdFs.class.getName());
        }
        return conf;
    }

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        super.initialize(name, conf);
        setConf(conf);
        String id = name.getAuthority();
        DeviceSpec spec = DeviceSpec.resolve(conf, id);
        this.uri = URI.create(FS_SCHEME + "://" + id);
        this.workingDir = new Path("/").makeQualified(uri, null);
        List<String> counters = new ArrayList<>();
        for (Statistic s : Statistic.values()) {
            counters.add(s.symbol());
        }
        this.stats = IOStatisticsBinding.iostatisticsStore().withCounters(counters.toArray(new String[0])).build();
        long blockSize = conf.getLongBytes(BLOCK_SIZE, DEFAULT_BLOCK_SIZE);
        int writeBuffer = (int) conf.getLongBytes(WRITE_BUFFER_SIZE, DEFAULT_WRITE_BUFFER_SIZE);
        int readBuffer = (int) conf.getLongBytes(READ_BUFFER_SIZE, DEFAULT_READ_BUFFER_SIZE);
        positive(BLOCK_SIZE, blockSize);
        positive(WRITE_BUFFER_SIZE, writeBuffer);
        positive(READ_BUFFER_SIZE, readBuffer);
        WriteHintRules hints = WriteHintRules.from(conf);
        this.lease = DeviceRegistry.acquire(spec);
        String owner = UserGroupInformation.getCurrentUser().getShortUserName();
        this.ctx = new StoreContext(lease, stats, statistics, owner, blockSize, writeBuffer, readBuffer, hints);
    }

    private static void positive(String key, long v) throws IOException {
        if (v <= 0) {
            throw new IOException(key + " must be a positive number of bytes, got " + v);
        }
    }

    @Override
    public URI getUri() {
        return uri;
    }

    @Override
    public Path getWorkingDirectory() {
        return workingDir;
    }

    @Override
    public void setWorkingDirectory(Path dir) {
        workingDir = makeQualified(dir);
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
        Path p = qualify(f);
        stats.incrementCounter(Statistic.OP_OPEN.symbol());
        Probe probe = GetFileStatusOperation.probe(ctx, p);
        if (!probe.exists()) {
            throw new FileNotFoundException("open " + p + ": no such file");
        }
        if (!probe.isFile()) {
            throw new FileNotFoundException("open " + p + ": is a directory");
        }
        return new FSDataInputStream(new SmartSsdInputStream(ctx, p, probe.file().id(), probe.file().size()));
    }

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                     short replication, long blockSize, Progressable progress) throws IOException {
        Path p = qualify(f);
        stats.incrementCounter(Statistic.OP_CREATE.symbol());
        return new FSDataOutputStream(CreateOperation.create(ctx, p, overwrite, true), statistics);
    }

    @Override
    public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, EnumSet<CreateFlag> flags,
                                                 int bufferSize, short replication, long blockSize,
                                                 Progressable progress) throws IOException {
        Path p = qualify(f);
        stats.incrementCounter(Statistic.OP_CREATE.symbol());
        boolean overwrite = flags.contains(CreateFlag.OVERWRITE);
        return new FSDataOutputStream(CreateOperation.create(ctx, p, overwrite, false), statistics);
    }

    @Override
    public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
        Path p = qualify(f);
        stats.incrementCounter(Statistic.OP_APPEND.symbol());
        return new FSDataOutputStream(CreateOperation.append(ctx, p), statistics, getFileStatus(p).getLen());
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        stats.incrementCounter(Statistic.OP_RENAME.symbol());
        return RenameOperation.rename(ctx, qualify(src), qualify(dst));
    }

    @Override
    public boolean delete(Path f, boolean recursive) throws IOException {
        stats.incrementCounter(Statistic.OP_DELETE.symbol());
        return DeleteOperation.delete(ctx, qualify(f), recursive);
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        stats.incrementCounter(Statistic.OP_LIST_STATUS.symbol());
        statistics.incrementReadOps(1);
        return ListStatusOperation.list(ctx, qualify(f));
    }

    @Override
    public boolean mkdirs(Path f, FsPermission permission) throws IOException {
        stats.incrementCounter(Statistic.OP_MKDIRS.symbol());
        MkdirsOperation.mkdirs(ctx, qualify(f));
        return true;
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
        Path p = qualify(f);
        stats.incrementCounter(Statistic.OP_GET_FILE_STATUS.symbol());
        statistics.incrementReadOps(1);
        Probe probe = GetFileStatusOperation.probe(ctx, p);
        if (!probe.exists()) {
            throw new FileNotFoundException(p + ": no such file or directory");
        }
        return probe.status();
    }

    /**
     * Sets a file's (or a directory's) modification and access times, kept on the device with the object;
     * -1 leaves one as it is.
     */
    @Override
    public void setTimes(Path f, long mtime, long atime) throws IOException {
        stats.incrementCounter(Statistic.OP_SET_TIMES.symbol());
        statistics.incrementWriteOps(1);
        SetTimesOperation.setTimes(ctx, qualify(f), mtime, atime);
    }

    /**
     * One location per block, each naming the device's host ({@code fs.smartssd.device.<id>.host}), so
     * splits carry the node the device is attached to.
     */
    @Override
    public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len) throws IOException {
        if (file == null) {
            return null;
        }
        if (start < 0 || len < 0) {
            throw new IllegalArgumentException("invalid start " + start + " or len " + len);
        }
        long size = file.getLen();
        if (file.isDirectory() || size <= start) {
            return new BlockLocation[0];
        }
        String host = ctx.spec().host();
        String[] hosts = {host};
        String[] names = {host + ":0"};
        long bs = ctx.blockSize();
        long end = Math.min(size, start + len);
        List<BlockLocation> blocks = new ArrayList<>();
        for (long b = (start / bs) * bs; b < end || (len == 0 && b == start); b += bs) {
            blocks.add(new BlockLocation(names, hosts, b, Math.min(bs, size - b)));
            if (len == 0) {
                break;
            }
        }
        return blocks.toArray(new BlockLocation[0]);
    }

    @Override
    @SuppressWarnings("deprecation")
    public long getDefaultBlockSize() {
        return ctx.blockSize();
    }

    /** No delegation tokens: a device is reached through its image or socket, not a service. */
    @Override
    public String getCanonicalServiceName() {
        return null;
    }

    @Override
    public boolean hasPathCapability(Path path, String capability) throws IOException {
        switch (org.apache.hadoop.fs.impl.PathCapabilitiesSupport.validatePathCapabilityArgs(makeQualified(path), capability).toLowerCase(Locale.ROOT)) {
            case CommonPathCapabilities.FS_APPEND:
                return true;
            case CommonPathCapabilities.FS_CONCAT:
            case CommonPathCapabilities.FS_PERMISSIONS:
            case CommonPathCapabilities.FS_ACLS:
            case CommonPathCapabilities.FS_XATTRS:
            case CommonPathCapabilities.FS_SNAPSHOTS:
            case CommonPathCapabilities.FS_CHECKSUMS:
            case CommonPathCapabilities.FS_TRUNCATE:
            case CommonPathCapabilities.FS_SYMLINKS:
                return false;
            default:
                return super.hasPathCapability(path, capability);
        }
    }

    @Override
    public IOStatistics getIOStatistics() {
        return stats;
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (lease != null) {
                lease.close();
            }
        }
    }

    @Override
    public String toString() {
        return "SmartSsdFileSystem[" + uri + " -> " + (ctx == null ? "uninitialized" : ctx.spec().locationKey() + "="
                + ctx.spec().location()) + "]";
    }

    // ------------------------------------------------------------------ for DeviceJob and tools

    /** The device handle (shared: do not close it). */
    public SmartSsd device() {
        return lease.device();
    }

    /** The device as configured: id, image or socket, host. */
    public DeviceSpec deviceSpec() {
        return ctx.spec();
    }

    /** The data object of a file, or FileNotFoundException. */
    public ObjectInfo objectOf(Path f) throws IOException {
        Path p = qualify(f);
        ObjectInfo o = ctx.statOrNull(ObjectNames.name(p));
        if (o == null) {
            throw new FileNotFoundException(p + ": no such file on smartssd device '" + ctx.spec().id() + "'");
        }
        return o;
    }

    /** Counts result bytes a tasklet sent to the host (a DeviceJob's reads) like data read. */
    public void recordBytesToHost(long bytes) {
        stats.incrementCounter(Statistic.BYTES_TO_HOST.symbol(), bytes);
        statistics.incrementBytesRead(bytes);
    }

    /** Counts device commands issued on this FileSystem's device by a DeviceJob. */
    public void recordCommands(long commands, long deviceNanos) {
        stats.incrementCounter(Statistic.DEVICE_COMMANDS.symbol(), commands);
        stats.incrementCounter(Statistic.DEVICE_NANOS.symbol(), deviceNanos);
    }

    private Path qualify(Path f) {
        return makeQualified(f);
    }
}
