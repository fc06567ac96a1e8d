package io.smartssd.hadoop.fs;

/**
 * Every configuration key of the {@code smartssd://} FileSystem, each with its default beside it.
 *
 * <p>A device is named by the authority of its URIs ({@code smartssd://dev0/logs/wc98.bin} is the
 * object {@code logs/wc98.bin} of device {@code dev0}) and described by keys under
 * {@code fs.smartssd.device.<id>.}: exactly one of {@link #DEVICE_IMAGE_SUFFIX .image} (an embedded
 * device running inside this JVM) or {@link #DEVICE_SOCKET_SUFFIX .socket} (a {@code csdd} daemon), and
 * optionally {@link #DEVICE_HOST_SUFFIX .host}, the node the device is attached to (split locality).
 */
public final class Constants {
    private Constants() {
    }

    /** The URI scheme: {@value}. */
    public static final String FS_SCHEME = "smartssd";

    /** {@value}: the FileSystem class of {@code smartssd://} paths ({@link SmartSsdFileSystem#register}). */
    public static final String FS_IMPL = "fs.smartssd.impl";

    /** {@value}: the same for FileContext ({@link SmartSsdFs}). */
    public static final String AFS_IMPL = "fs.AbstractFileSystem.smartssd.impl";

    /** Prefix of the per-device keys: {@value}{@code <id>.<name>}. */
    public static final String DEVICE_PREFIX = "fs.smartssd.device.";

    /**
     * {@code fs.smartssd.device.<id>.image}: path of a device image (made by {@code csd format} or
     * {@code SmartSsd.format}) that this JVM opens as an embedded device. An image can be open in one
     * process at a time; within a JVM every FileSystem and job shares one handle per image.
     */
    public static final String DEVICE_IMAGE_SUFFIX = ".image";

    /** {@code fs.smartssd.device.<id>.socket}: Unix socket of a {@code csdd} daemon serving the device. */
    public static final String DEVICE_SOCKET_SUFFIX = ".socket";

    /**
     * {@code fs.smartssd.device.<id>.host}: the host name of the node the device is attached to. Block
     * locations (and so the locations of DeviceJob splits) name it, so YARN runs each map task on the node
     * whose device holds its data.
     */
    public static final String DEVICE_HOST_SUFFIX = ".host";
    /** Default of {@link #DEVICE_HOST_SUFFIX}: {@value}. */
    public static final String DEFAULT_DEVICE_HOST = "localhost";

    /**
     * {@code fs.smartssd.device.<id>.background}: embedded devices only; true runs tasklets in a device
     * thread while the host polls (as a real device does), false advances them only inside commands.
     */
    public static final String DEVICE_BACKGROUND_SUFFIX = ".background";
    /** Default of {@link #DEVICE_BACKGROUND_SUFFIX}: {@value}. */
    public static final boolean DEFAULT_DEVICE_BACKGROUND = true;

    /**
     * {@code fs.smartssd.device.<id>.host-threads}: embedded devices only; the device parameter
     * {@code host_threads} for this JVM's session (host threads that compute tasklet pages ahead of the
     * device's event engine: wall time only, device times and rows do not change), or {@code auto}: the
     * JVM's available processors (at most 64), so the tasks of one JVM (Spark's local[N]) are served on
     * that many cores instead of one.
     */
    public static final String DEVICE_HOST_THREADS_SUFFIX = ".host-threads";
    /** Default of {@link #DEVICE_HOST_THREADS_SUFFIX}: {@value}. */
    public static final String DEFAULT_DEVICE_HOST_THREADS = "auto";

    /**
     * {@code fs.smartssd.device.<id>.host-reader}: embedded devices only; the device parameter
     * {@code host_reader} for this JVM's session, 1 or 0: with more than one host thread, a reader thread
     * reads and checksums the pages of tasklet requests the event engine's thread feeds itself (the
     * cheap ones: a request run ahead on host threads keeps those busy already), ahead of the engine
     * (wall time only).
     */
    public static final String DEVICE_HOST_READER_SUFFIX = ".host-reader";
    /** Default of {@link #DEVICE_HOST_READER_SUFFIX}: {@value}. */
    public static final String DEFAULT_DEVICE_HOST_READER = "1";

    /**
     * Block size reported for objects (bytes): FileInputFormat cuts splits at block boundaries, so this
     * is the default split size of jobs over {@code smartssd://} objects.
     */
    public static final String BLOCK_SIZE = "fs.smartssd.block.size";
    /** Default of {@link #BLOCK_SIZE}: 32 MiB. */
    public static final long DEFAULT_BLOCK_SIZE = 32L << 20;

    /** Bytes an output stream buffers (in one direct buffer) before it writes them to the device. */
    public static final String WRITE_BUFFER_SIZE = "fs.smartssd.write.buffer.size";
    /** Default of {@link #WRITE_BUFFER_SIZE}: 1 MiB. */
    public static final int DEFAULT_WRITE_BUFFER_SIZE = 1 << 20;

    /** Bytes an input stream reads from the device at a time (its direct read-ahead buffer). */
    public static final String READ_BUFFER_SIZE = "fs.smartssd.read.buffer.size";
    /** Default of {@link #READ_BUFFER_SIZE}: 256 KiB. */
    public static final int DEFAULT_READ_BUFFER_SIZE = 256 << 10;

    /**
     * {@code fs.smartssd.write.hint}: the placement hint (the data's lifetime class; {@code WriteObject.hint}
     * of the protocol) of writes whose path matches none of {@link #WRITE_HINT_RULES}, 0..255. 0 is no hint; smaller
     * non-zero classes are shorter-lived (an LSM store sends level + 1). A device with a placement policy
     * puts short-lived data in its fast region (hybrid paper, section V-A); others ignore hints.
     */
    public static final String WRITE_HINT = "fs.smartssd.write.hint";
    /** Default of {@link #WRITE_HINT}: {@value} (no hint). */
    public static final int DEFAULT_WRITE_HINT = 0;

    /**
     * {@code fs.smartssd.write.hint.rules}: per-path hints, {@code glob=hint} separated by commas, the
     * first glob matching a file's path (e.g. {@code /out/_temporary/0/part-0}) giving its writes' hint.
     * In a glob {@code **} matches anything, {@code *} and {@code ?} anything within one path segment,
     * {@code {a,b}} either; e.g. <code>/tmp/**=1,**&#47;_temporary/**=1,**&#47;*.ckpt=2</code>. A file's hint
     * is fixed when it is created (a rename keeps its data where it is).
     */
    public static final String WRITE_HINT_RULES = "fs.smartssd.write.hint.rules";
    /** Default of {@link #WRITE_HINT_RULES}: none, every write carries {@link #WRITE_HINT}. */
    public static final String DEFAULT_WRITE_HINT_RULES = "";

    /** The longest object name the device accepts, in UTF-8 bytes (a directory marker adds one). */
    public static final int MAX_OBJECT_NAME_BYTES = 1024;
}
