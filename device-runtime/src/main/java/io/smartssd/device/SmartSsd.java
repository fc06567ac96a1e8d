package io.smartssd.device;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import io.smartssd.proto.CreateObject;
import io.smartssd.proto.DeleteObject;
import io.smartssd.proto.ExecuteObject;
import io.smartssd.proto.Identify;
import io.smartssd.proto.InstallTasklet;
import io.smartssd.proto.InstallTaskletReply;
import io.smartssd.proto.ListTasklets;
import io.smartssd.proto.ProgramFormat;
import io.smartssd.proto.RemoveTasklet;
import io.smartssd.proto.TaskletInfo;
import io.smartssd.proto.IdentifyReply;
import io.smartssd.proto.ListObjects;
import io.smartssd.proto.ListObjectsReply;
import io.smartssd.proto.Param;
import io.smartssd.proto.Expr;
import io.smartssd.proto.Plan;
import io.smartssd.proto.ReadObject;
import io.smartssd.proto.ReadObjectReply;
import io.smartssd.proto.RenameObject;
import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import io.smartssd.proto.SetTimes;
import io.smartssd.proto.Row;
import io.smartssd.proto.StatObject;
import io.smartssd.proto.Stats;
import io.smartssd.proto.StatsReply;
import io.smartssd.proto.Status;
import io.smartssd.proto.TrimObject;
import io.smartssd.proto.WriteObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A handle on one Smart SSD: the paper's object-based I/O library (IV-C). Every method is one device
 * command (list pages through long listings), thread-safe, and returns a typed reply with the device
 * time the command took. Failures the device reports are {@link DeviceException}s; the device keeps
 * serving after them. After {@link #close()} every method throws {@link IllegalStateException}.
 *
 * <pre>{@code
 * try (SmartSsd ssd = SmartSsd.openEmbedded(image)) {
 *     long logs = ssd.stat("wc98.bin").info().id();
 *     long q1 = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
 *     long out = ssd.createOutput(Map.of(), List.of(), 0).id();
 *     ssd.execute(q1, out, Extent.whole(logs));
 *     ssd.results(out).forEachRemaining(row -> ...);
 * }
 * }</pre>
 */
public final class SmartSsd implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SmartSsd.class);
    /** Largest byte[] write: the packet limit (CSD_MAX_PACKET, 64 MiB) less room for the header. */
    public static final int MAX_INLINE_BYTES = (64 << 20) - 4096;

    private final Transport transport;
    private final AtomicLong tags = new AtomicLong();
    private final Thread exitHook;

    private SmartSsd(Transport transport, boolean closeOnExit) {
        this.transport = transport;
        if (closeOnExit) {
            exitHook = new Thread(this::closeAtExit, "smartssd-close-at-exit");
            Runtime.getRuntime().addShutdownHook(exitHook);
        } else {
            exitHook = null;
        }
    }

    // ------------------------------------------------------------------------------------ opening

    /** Opens the device in image inside this process, with a background device thread. */
    public static SmartSsd openEmbedded(Path image) {
        return openEmbedded(image, OpenOptions.defaults());
    }

    public static SmartSsd openEmbedded(Path image, OpenOptions options) {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(options, "options");
        EmbeddedTransport t = EmbeddedTransport.open(image, options.background(), options.params());
        LOG.debug("opened embedded device {} (background={})", image, options.background());
        try {
            return new SmartSsd(t, options.closeOnExit());
        } catch (RuntimeException e) { // e.g. the JVM is already shutting down: do not leak the device
            t.close();
            throw e;
        }
    }

    /**
     * Connects to a device daemon ({@code csdd IMAGE --socket PATH}, or {@code bin/smartssd csd serve}) on
     * its Unix domain socket. Same interface as an embedded device; see {@link RemoteTransport} for
     * connections, reconnects and failures. A missing daemon fails here with
     * {@link DeviceUnavailableException} naming the socket.
     */
    public static SmartSsd openRemote(Path socket) {
        return openRemote(socket, RemoteOptions.defaults());
    }

    public static SmartSsd openRemote(Path socket, RemoteOptions options) {
        RemoteTransport t = RemoteTransport.connect(socket, options);
        LOG.debug("connected to device daemon at {}", socket);
        // No exit hook: the daemon owns the device and flushes it; the OS closes the sockets.
        return new SmartSsd(t, false);
    }

    /** A handle over any transport (e.g. a remote daemon connection); the handle owns and closes it. */
    public static SmartSsd over(Transport transport) {
        return new SmartSsd(Objects.requireNonNull(transport, "transport"), false);
    }

    /** Creates a device image of capacity host-visible bytes from a named preset ("smartssd-paper", "tiny"). */
    public static void format(Path image, long capacity, String preset) {
        format(image, capacity, preset, Map.of());
    }

    /**
     * Creates a device image from a preset (null = the default, "smartssd-paper") with some parameters
     * changed, e.g. {@code Map.of("page_bytes", "4096")}. Fails if the image exists.
     */
    public static void format(Path image, long capacity, String preset, Map<String, String> params) {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(params, "params");
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0 bytes, got " + capacity);
        }
        NativeDevice.format(image, capacity, preset, params);
    }

    /** The C library's version string. */
    public static String nativeVersion() {
        return NativeDevice.version();
    }

    // ------------------------------------------------------------------------------------ tasklets

    /** Creates a tasklet object: a built-in tasklet name and its static params. */
    public Created createTasklet(String name, Map<String, String> staticParams) {
        return createTasklet(name, staticParams, null);
    }

    /** Creates a tasklet object; plan is the declarative program of the "plan" tasklet (or null). */
    public Created createTasklet(String name, Map<String, String> staticParams, Plan plan) {
        return createTasklet(name, staticParams, plan, null);
    }

    /**
     * Creates a tasklet object whose output rows the device filters before shipping them: filter (or
     * null) compares the tasklet's declared columns ({@link UserTasklet#columns()}, by index) with literals,
     * using only the filters each column declares. Anything else is a {@link DeviceException}:
     * UNSUPPORTED for an undeclared column or operator, INVALID_ARGUMENT for another shape.
     */
    public Created createTasklet(String name, Map<String, String> staticParams, Plan plan, Expr filter) {
        Response r = call(Request.newBuilder().setCreateObject(taskletObject(name, staticParams, plan, filter)), null,
                null);
        return new Created(r.getCreateObject().getObjectId(), r.getDeviceNs());
    }

    /** The create_object(TASKLET) message of {@link #createTasklet(String, Map, Plan, Expr)}. */
    static CreateObject taskletObject(String name, Map<String, String> staticParams, Plan plan, Expr filter) {
        CreateObject.Builder c = CreateObject.newBuilder().setKind(io.smartssd.proto.ObjectKind.TASKLET)
                .setName(Objects.requireNonNull(name, "tasklet name"))
                .addAllParams(params(staticParams));
        if (plan != null) {
            c.setPlan(plan);
        }
        if (filter != null) {
            c.setFilter(filter);
        }
        return c.build();
    }

    /**
     * Creates an output object: where one execution's results go, with its runtime params, search
     * keywords, and a row limit (0 = unlimited).
     */
    public Created createOutput(Map<String, String> runtimeParams, List<String> keywords, long maxOutputs) {
        Response r = call(Request.newBuilder().setCreateObject(outputObject(runtimeParams, keywords, maxOutputs)),
                null, null);
        return new Created(r.getCreateObject().getObjectId(), r.getDeviceNs());
    }

    /** The create_object(OUTPUT) message of {@link #createOutput}. */
    static CreateObject outputObject(Map<String, String> runtimeParams, List<String> keywords, long maxOutputs) {
        Objects.requireNonNull(keywords, "keywords");
        if (maxOutputs < 0) {
            throw new IllegalArgumentException("maxOutputs must be >= 0 (0 = unlimited), got " + maxOutputs);
        }
        for (String k : keywords) {
            Objects.requireNonNull(k, "keyword");
        }
        return CreateObject.newBuilder().setKind(io.smartssd.proto.ObjectKind.OUTPUT)
                .addAllParams(params(runtimeParams)).addAllKeywords(keywords).setMaxOutputs(maxOutputs).build();
    }

    /** Starts tasklet on input, its rows going to output. */
    public Executed execute(long taskletId, long outputId, Extent input) {
        checkId(taskletId, "tasklet id");
        checkId(outputId, "output id");
        Objects.requireNonNull(input, "input extent");
        checkId(input.objectId(), "input object id");
        Response r = call(Request.newBuilder().setExecuteObject(ExecuteObject.newBuilder()
                .setTaskletId(taskletId).setOutputId(outputId).setInput(input.toProto())), null, null);
        return new Executed(r.getExecuteObject().getPagesTotal(), r.getDeviceNs());
    }

    /** The rows of output as they come, polling adaptively ({@link PollingPolicy#DEFAULT}). */
    public ResultStream results(long outputId) {
        return results(outputId, PollingPolicy.DEFAULT, null);
    }

    /** The rows of output, with a polling policy and a progress callback (null for none). */
    public ResultStream results(long outputId, PollingPolicy policy, Consumer<TaskProgress> onProgress) {
        checkId(outputId, "output id");
        return new ResultStream(this, outputId, Objects.requireNonNull(policy, "policy"), onProgress,
                transport.background());
    }

    /**
     * One read_object of an output: the rows ready now (at most about maxBytes of them; 0 = the device's
     * default) and the progress. The building block of {@link ResultStream}, for callers that poll
     * themselves.
     */
    public ResultChunk readResults(long outputId, int maxBytes) {
        checkId(outputId, "output id");
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes must be >= 0, got " + maxBytes);
        }
        Response r = call(Request.newBuilder().setReadObject(ReadObject.newBuilder()
                .setObjectId(outputId).setLength(maxBytes)), null, null);
        ReadObjectReply rr = r.getReadObject();
        if (!rr.hasProgress()) {
            throw new DeviceException(DeviceException.Code.INVALID_ARGUMENT,
                    "object " + outputId + " is not an output object (its read reply has no progress)");
        }
        return new ResultChunk(parseRows(rr.getData()), TaskProgress.of(rr.getProgress()), r.getDeviceNs());
    }

    // ------------------------------------------------------------------------------------ data objects

    /** Creates an empty data object. */
    public Created createData(String name) {
        Response r = call(Request.newBuilder().setCreateObject(CreateObject.newBuilder()
                .setKind(io.smartssd.proto.ObjectKind.DATA).setName(Objects.requireNonNull(name, "name"))),
                null, null);
        return new Created(r.getCreateObject().getObjectId(), r.getDeviceNs());
    }

    /**
     * Writes src's remaining bytes at offset (at most the object's size: no holes). The bytes stay in
     * the direct buffer (no copy into the command packet); on success src's position moves to its limit.
     */
    public Written write(long objectId, long offset, ByteBuffer src) {
        return write(objectId, offset, src, WriteHints.NONE);
    }

    /**
     * {@link #write(long, long, ByteBuffer)} with a placement hint: the data's lifetime class (e.g.
     * {@link WriteHints#forLevel} of an LSM level; {@link WriteHints#NONE} = no hint). A device with a
     * placement policy chooses the flash region by it (hybrid paper, section V-A); others ignore it.
     */
    public Written write(long objectId, long offset, ByteBuffer src, int hint) {
        checkId(objectId, "object id");
        checkOffset(offset);
        WriteHints.check(hint);
        direct(src, "write");
        int n = src.remaining();
        Response r = call(Request.newBuilder().setWriteObject(WriteObject.newBuilder()
                .setObjectId(objectId).setOffset(offset).setHint(hint)), src, null);
        src.position(src.position() + n);
        return new Written(n, r.getWriteObject().getSize(), r.getDeviceNs());
    }

    /** Writes bytes at offset, the bytes travelling inside the command packet (for small writes). */
    public Written write(long objectId, long offset, byte[] data) {
        return write(objectId, offset, data, WriteHints.NONE);
    }

    /** {@link #write(long, long, byte[])} with a placement hint, as {@link #write(long, long, ByteBuffer, int)}. */
    public Written write(long objectId, long offset, byte[] data, int hint) {
        checkId(objectId, "object id");
        checkOffset(offset);
        WriteHints.check(hint);
        Objects.requireNonNull(data, "data");
        if (data.length > MAX_INLINE_BYTES) {
            throw new IllegalArgumentException("an inline write carries at most " + MAX_INLINE_BYTES + " bytes, got "
                    + data.length + "; write large data from a direct ByteBuffer");
        }
        Response r = call(Request.newBuilder().setWriteObject(WriteObject.newBuilder()
                .setObjectId(objectId).setOffset(offset).setHint(hint).setData(ByteString.copyFrom(data))), null, null);
        return new Written(data.length, r.getWriteObject().getSize(), r.getDeviceNs());
    }

    /**
     * Reads up to dst.remaining() bytes from offset into dst (direct, writable), straight from the device
     * into the buffer; dst's position advances by the bytes read. Reading at the end gives 0 bytes and eof.
     */
    public ReadResult read(long objectId, long offset, ByteBuffer dst) {
        checkId(objectId, "object id");
        checkOffset(offset);
        direct(dst, "read");
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read needs a writable buffer; got a read-only one");
        }
        int cap = dst.remaining();
        Response r = call(Request.newBuilder().setReadObject(ReadObject.newBuilder()
                .setObjectId(objectId).setOffset(offset).setLength(cap)), null, dst);
        ReadObjectReply rr = r.getReadObject();
        int n;
        if (!rr.getData().isEmpty()) {
            // The device may answer inline; the caller still gets the bytes in its buffer.
            n = Math.min(cap, rr.getData().size());
            rr.getData().substring(0, n).copyTo(dst.duplicate());
        } else {
            if (rr.getPayloadLength() > cap) {
                throw new DeviceException(DeviceException.Code.INTERNAL, "device reported " + rr.getPayloadLength()
                        + " bytes read into a " + cap + "-byte buffer");
            }
            n = (int) rr.getPayloadLength();
        }
        dst.position(dst.position() + n);
        return new ReadResult(n, rr.getEof(), r.getDeviceNs());
    }

    /** Deletes an object of any kind. */
    public Completed delete(long objectId) {
        checkId(objectId, "object id");
        Response r = call(Request.newBuilder().setDeleteObject(DeleteObject.newBuilder().setObjectId(objectId)),
                null, null);
        return new Completed(r.getDeviceNs());
    }

    /** Renames a data object; with replace, an existing object of that name is deleted. */
    public Completed rename(long objectId, String newName, boolean replace) {
        checkId(objectId, "object id");
        Response r = call(Request.newBuilder().setRename(RenameObject.newBuilder().setObjectId(objectId)
                .setNewName(Objects.requireNonNull(newName, "new name")).setReplace(replace)), null, null);
        return new Completed(r.getDeviceNs());
    }

    /**
     * Sets a data object's modification and access times, in ms since the epoch, as Hadoop's
     * {@code FileSystem.setTimes}: a time of -1 leaves that time as it is.
     *
     * @throws DeviceException NOT_FOUND for an unknown id, INVALID_ARGUMENT for a negative time other than -1
     *                         or when both are -1
     */
    public Completed setTimes(long objectId, long mtimeMillis, long atimeMillis) {
        checkId(objectId, "object id");
        if (mtimeMillis < -1 || atimeMillis < -1) {
            throw new IllegalArgumentException("times are ms since the epoch, or -1 to keep one: " + mtimeMillis
                    + ", " + atimeMillis);
        }
        SetTimes.Builder b = SetTimes.newBuilder().setObjectId(objectId);
        if (mtimeMillis >= 0) {
            b.setMtimeMs(mtimeMillis).setSetMtime(true);
        }
        if (atimeMillis >= 0) {
            b.setAtimeMs(atimeMillis).setSetAtime(true);
        }
        Response r = call(Request.newBuilder().setSetTimes(b), null, null);
        return new Completed(r.getDeviceNs());
    }

    /** Every object whose name starts with prefix, sorted by name (pages through the device's listing). */
    public ObjectList list(String prefix) {
        List<io.smartssd.device.ObjectInfo> all = new ArrayList<>();
        long ns = 0;
        String after = "";
        while (true) {
            ObjectList page = list(prefix, 0, after);
            ns += page.deviceNanos();
            all.addAll(page.objects());
            if (!page.more() || page.objects().isEmpty()) {
                return new ObjectList(all, false, ns);
            }
            after = page.objects().get(page.objects().size() - 1).name();
        }
    }

    /** One page of the listing: at most limit objects (0 = the device's default) after startAfter. */
    public ObjectList list(String prefix, int limit, String startAfter) {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(startAfter, "startAfter");
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, got " + limit);
        }
        Response r = call(Request.newBuilder().setList(ListObjects.newBuilder().setPrefix(prefix)
                .setLimit(limit).setStartAfter(startAfter)), null, null);
        ListObjectsReply lr = r.getList();
        List<io.smartssd.device.ObjectInfo> objs = new ArrayList<>(lr.getObjectsCount());
        for (io.smartssd.proto.ObjectInfo o : lr.getObjectsList()) {
            objs.add(io.smartssd.device.ObjectInfo.of(o));
        }
        return new ObjectList(objs, lr.getMore(), r.getDeviceNs());
    }

    public ObjectStat stat(long objectId) {
        checkId(objectId, "object id");
        return stat(StatObject.newBuilder().setObjectId(objectId).build());
    }

    /** Stat of the data object called name. */
    public ObjectStat stat(String name) {
        return stat(StatObject.newBuilder().setName(Objects.requireNonNull(name, "name")).build());
    }

    private ObjectStat stat(StatObject s) {
        Response r = call(Request.newBuilder().setStat(s), null, null);
        return new ObjectStat(io.smartssd.device.ObjectInfo.of(r.getStat().getInfo()), r.getDeviceNs());
    }

    /** Tells the device a byte range of a data object is no longer needed (it reads as zeros). */
    public Completed trim(long objectId, long offset, long length) {
        checkId(objectId, "object id");
        checkOffset(offset);
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        }
        Response r = call(Request.newBuilder().setTrim(TrimObject.newBuilder().setObjectId(objectId)
                .setOffset(offset).setLength(length)), null, null);
        return new Completed(r.getDeviceNs());
    }

    // ------------------------------------------------------------------------------------ device

    public DeviceIdentity identify() {
        Response r = call(Request.newBuilder().setIdentify(Identify.getDefaultInstance()), null, null);
        IdentifyReply i = r.getIdentify();
        io.smartssd.proto.Geometry g = i.getGeometry();
        Map<String, String> params = new LinkedHashMap<>();
        for (Param p : i.getParamsList()) {
            params.put(p.getKey(), p.getValue());
        }
        return new DeviceIdentity(i.getModel(), i.getPreset(),
                new DeviceIdentity.Geometry(g.getChannels(), g.getChipsPerChannel(), g.getDiesPerChip(),
                        g.getPlanesPerDie(), g.getBlocksPerPlane(), g.getPagesPerBlock(), g.getPageBytes()),
                i.getCapacityBytes(), i.getPhysicalBytes(), i.getCores(), i.getRequestScheduler(),
                i.getChipScheduler(), i.getFtl(), i.getTaskletsList(), params, i.getProtocolVersion(),
                r.getDeviceNs());
    }

    public DeviceStats stats() {
        Response r = call(Request.newBuilder().setStats(Stats.getDefaultInstance()), null, null);
        StatsReply s = r.getStats();
        Map<String, Long> counters = new LinkedHashMap<>();
        for (Param p : s.getCountersList()) {
            try {
                counters.put(p.getKey(), Long.parseUnsignedLong(p.getValue().trim()));
            } catch (NumberFormatException e) {
                LOG.debug("stats counter {} is not a number: {}", p.getKey(), p.getValue());
            }
        }
        return new DeviceStats(counters, s.getDeviceClockNs(), r.getDeviceNs(),
                s.hasBacklog() ? DeviceStats.Backlog.of(s.getBacklog()) : DeviceStats.Backlog.NONE);
    }

    /** What this handle talks to. */
    public Transport transport() {
        return transport;
    }

    /** Closes the device: waits for commands in flight, flushes metadata. Idempotent. */
    @Override
    public void close() {
        if (exitHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(exitHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to: it closes the transport too, which is idempotent
            }
        }
        transport.close();
    }

    private void closeAtExit() {
        try {
            transport.close();
        } catch (RuntimeException e) {
            LOG.warn("closing {} at JVM exit failed: {}", transport.description(), e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "SmartSsd[" + transport.description() + "]";
    }

    // ------------------------------------------------------------------------------- user tasklets

    /**
     * Downloads a user tasklet (Smart SSD paper III-C: users add and remove tasklets): a WebAssembly
     * module built with the tasklet SDK ({@code bin/smartssd tasklet build}), stored in the device
     * under name and run in its sandbox. {@link #createTasklet} then takes that name like a
     * built-in's. The same bytes again change nothing ({@link TaskletInstalled#unchanged()}); other
     * bytes under an installed name fail with ALREADY_EXISTS unless {@code replace}. A malformed
     * program fails with INVALID_ARGUMENT naming what is wrong, before anything is written.
     */
    public TaskletInstalled installTasklet(String name, byte[] wasm) {
        return installTasklet(name, wasm, false);
    }

    /** {@link #installTasklet(String, byte[])}, replacing a program of that name that holds other bytes. */
    public TaskletInstalled installTasklet(String name, byte[] wasm, boolean replace) {
        return install(name, ProgramFormat.WASM, ByteString.copyFrom(Objects.requireNonNull(wasm, "program")), replace);
    }

    /**
     * Installs a native tasklet: a shared object (SDK {@code --native}) in the directory the device's
     * {@code tasklet_trusted_dir} names; {@code file} is its name there. Refused when it resolves
     * outside that directory, or when the device names none.
     */
    public TaskletInstalled installNativeTasklet(String name, String file, boolean replace) {
        return install(name, ProgramFormat.NATIVE, ByteString.copyFromUtf8(Objects.requireNonNull(file, "file")), replace);
    }

    private TaskletInstalled install(String name, ProgramFormat format, ByteString program, boolean replace) {
        if (program.size() > MAX_INLINE_BYTES) {
            throw new IllegalArgumentException("a program of " + program.size() + " bytes exceeds " + MAX_INLINE_BYTES);
        }
        Response r = call(Request.newBuilder().setInstallTasklet(InstallTasklet.newBuilder()
                .setName(Objects.requireNonNull(name, "tasklet name")).setFormat(format).setProgram(program)
                .setReplace(replace)), null, null);
        InstallTaskletReply ir = r.getInstallTasklet();
        return new TaskletInstalled(ir.getProgramId(), ir.getHash(), ir.getUnchanged(), r.getDeviceNs());
    }

    /** The installed user tasklet programs, by name. */
    public List<UserTasklet> listTasklets() {
        Response r = call(Request.newBuilder().setListTasklets(ListTasklets.getDefaultInstance()), null, null);
        List<UserTasklet> out = new ArrayList<>();
        for (TaskletInfo t : r.getListTasklets().getTaskletsList()) {
            List<UserTasklet.Column> cols = new ArrayList<>();
            for (io.smartssd.proto.DeclaredColumn c : t.getColumnsList()) {
                cols.add(new UserTasklet.Column(c.getName(), c.getType(), java.util.EnumSet.copyOf(
                        c.getFiltersCount() == 0 ? java.util.EnumSet.noneOf(io.smartssd.proto.FilterOp.class)
                                : c.getFiltersList())));
            }
            out.add(new UserTasklet(t.getName(), t.getFormat() == ProgramFormat.WASM ? "wasm"
                    : t.getFormat() == ProgramFormat.NATIVE ? "native" : "unknown", t.getProgramId(), t.getSize(),
                    t.getHash(), t.getSummary(), t.getSchema(), cols));
        }
        return out;
    }

    /** Removes an installed user tasklet (NOT_FOUND when none has that name); running executions finish. */
    public Completed removeTasklet(String name) {
        Response r = call(Request.newBuilder().setRemoveTasklet(RemoveTasklet.newBuilder()
                .setName(Objects.requireNonNull(name, "tasklet name"))), null, null);
        return new Completed(r.getDeviceNs());
    }

    // ------------------------------------------------------------------------------------ plumbing

    private Response call(Request.Builder req, ByteBuffer in, ByteBuffer out) {
        long tag = tags.incrementAndGet();
        Response r = transport.call(req.setTag(tag).build(), in, out);
        if (r.getStatus() != Status.OK) {
            throw new DeviceException(DeviceException.Code.of(r.getStatus()), r.getMessage(), r.getParam());
        }
        if (r.getTag() != tag) {
            throw new DeviceException(DeviceException.Code.INTERNAL,
                    "response tag " + r.getTag() + " does not match request tag " + tag);
        }
        return r;
    }

    static List<Row> parseRows(ByteString data) {
        if (data.isEmpty()) {
            return List.of();
        }
        List<Row> rows = new ArrayList<>();
        CodedInputStream in = data.newCodedInput();
        try {
            while (!in.isAtEnd()) {
                rows.add(in.readMessage(Row.parser(), ExtensionRegistryLite.getEmptyRegistry()));
            }
        } catch (IOException e) {
            throw new DeviceException(DeviceException.Code.BAD_PACKET,
                    "result rows do not decode after " + rows.size() + " rows: " + e.getMessage());
        }
        return rows;
    }

    private static List<Param> params(Map<String, String> m) {
        Objects.requireNonNull(m, "params");
        List<Param> ps = new ArrayList<>(m.size());
        for (Map.Entry<String, String> e : m.entrySet()) {
            ps.add(Param.newBuilder().setKey(Objects.requireNonNull(e.getKey(), "parameter name"))
                    .setValue(Objects.requireNonNull(e.getValue(), "value of parameter " + e.getKey())).build());
        }
        return ps;
    }

    private static void checkId(long id, String what) {
        if (id < 0) {
            throw new IllegalArgumentException(what + " must be >= 0, got " + id);
        }
    }

    private static void checkOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
    }

    private static void direct(ByteBuffer b, String op) {
        Objects.requireNonNull(b, "buffer");
        if (!b.isDirect()) {
            throw new IllegalArgumentException(op + " needs a direct ByteBuffer (ByteBuffer.allocateDirect), so the"
                    + " bytes cross JNI without a copy; got a heap buffer");
        }
    }
}
