package io.smartssd.lsm;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.CompactionJobInfo;
import org.rocksdb.FileOperationInfo;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.RocksDB;
import org.rocksdb.Status;
import org.rocksdb.TableFileCreationInfo;
import org.rocksdb.TableFileCreationReason;
import org.rocksdb.TableFileDeletionInfo;

/**
 * Records a RocksDB store's SST file life cycle into an LSM trace ({@link TraceEvent}: CSV
 * {@code time_ns,op,file,level,bytes,offset}): each file's creation with its level and size, its deletion,
 * trivial moves between levels, flush / compaction job ends, and the reads of SST files made on one
 * thread of your choice, the point lookups ({@link #lookupsOn}). Attach it to your own store:
 *
 * <pre>{@code
 * try (TraceRecorder rec = new TraceRecorder(Path.of("db.trace"));
 *      Options o = new Options().setCreateIfMissing(true).setListeners(List.of(rec.listener()));
 *      RocksDB db = RocksDB.open(o, "/data/db")) {
 *     rec.recordExisting(db);   // a store with files already: they become creates at time 0
 *     ... your workload ...
 * }
 * }</pre>
 *
 * <p>An SST's level is not in RocksDB's file-creation event: it is the output level of the job that
 * wrote it, known from the job's begin event (flushes write level 0). Deletions name only a path, so the
 * recorder keeps each live file's level and size. Callbacks run on RocksDB's background threads; a
 * failure to write the trace is kept and thrown by {@link #close()} (never into RocksDB).
 */
public final class TraceRecorder implements AutoCloseable {
    private record Live(int level, long bytes) {
    }

    private final Writer out;
    private final long t0 = System.nanoTime();
    private final Object lock = new Object();
    private final Map<Integer, Integer> jobLevel = new HashMap<>();      // job id -> output level
    private final Map<Integer, Long> jobBytes = new HashMap<>();         // job id -> bytes it created
    private final Map<String, Live> live = new LinkedHashMap<>();        // file name -> level, size
    private long lastNs;
    private long events;
    private long unknownDeletes;
    private long lookups;
    private long lookupMisses;
    private volatile Thread foreground;
    private IOException failure;
    private boolean closed;
    private final Listener listener = new Listener();

    /** RocksDB's side: the callbacks, each handed to the recorder. */
    private final class Listener extends AbstractEventListener {
        Listener() {
            super(EnabledEventCallback.ON_FLUSH_BEGIN, EnabledEventCallback.ON_FLUSH_COMPLETED,
                    EnabledEventCallback.ON_COMPACTION_BEGIN, EnabledEventCallback.ON_COMPACTION_COMPLETED,
                    EnabledEventCallback.ON_TABLE_FILE_CREATED, EnabledEventCallback.ON_TABLE_FILE_DELETED,
                    EnabledEventCallback.ON_FILE_READ_FINISH, EnabledEventCallback.SHOULD_BE_NOTIFIED_ON_FILE_IO);
        }

        @Override
        public boolean shouldBeNotifiedOnFileIO() {
            return true;
        }

        @Override
        public void onFileReadFinish(FileOperationInfo info) {
            if (Thread.currentThread() == foreground) {
                lookupRead(info);
            }
        }

        @Override
        public void onFlushBegin(RocksDB db, FlushJobInfo info) {
            flushBegin(info);
        }

        @Override
        public void onCompactionBegin(RocksDB db, CompactionJobInfo info) {
            compactionBegin(info);
        }

        @Override
        public void onTableFileCreated(TableFileCreationInfo info) {
            fileCreated(info);
        }

        @Override
        public void onFlushCompleted(RocksDB db, FlushJobInfo info) {
            flushCompleted(info);
        }

        @Override
        public void onCompactionCompleted(RocksDB db, CompactionJobInfo info) {
            compactionCompleted(info);
        }

        @Override
        public void onTableFileDeleted(TableFileDeletionInfo info) {
            fileDeleted(info);
        }
    }

    /** Records into a new file at trace (replaced if it exists). */
    public TraceRecorder(Path trace) throws IOException {
        this(Files.newBufferedWriter(trace, StandardCharsets.UTF_8));
    }

    /** Records into out (closed by {@link #close()}). */
    public TraceRecorder(Writer out) throws IOException {
        this.out = out instanceof BufferedWriter ? out : new BufferedWriter(out);
        this.out.write("# smartssd LSM trace v2: SST files of a RocksDB store (docs/LSM.md)\n");
        this.out.write(TraceEvent.HEADER + "\n");
    }

    /**
     * Writes the recording's meta line ({@link TraceMeta}: what the trace was recorded from). Call it
     * before the store is opened, so it comes before every event.
     */
    public void meta(TraceMeta meta) throws IOException {
        synchronized (lock) {
            out.write(meta.line());
            out.write('\n');
        }
    }

    /**
     * Records the SST reads RocksDB makes on thread t as point lookups (op {@code lookup}, with offset and
     * length): the thread that runs your Gets. Reads on RocksDB's own threads (compactions, opening new
     * tables) are not lookups; a compaction's inputs are recorded whole when it ends. null stops it.
     */
    public void lookupsOn(Thread t) {
        foreground = t;
    }

    /**
     * Marks the start of a phase of the workload (op {@code phase}, file = name): a replay measures from
     * the {@code run} mark on, as the paper measures a YCSB run after its load.
     */
    public void phase(String name) {
        synchronized (lock) {
            emit(TraceEvent.Op.PHASE, name, 0, 0);
        }
    }

    /** Lookups recorded; reads of files the trace does not hold live (not recorded). */
    public long lookups() {
        synchronized (lock) {
            return lookups;
        }
    }

    public long lookupMisses() {
        synchronized (lock) {
            return lookupMisses;
        }
    }

    private void lookupRead(FileOperationInfo info) {
        String name = name(info.getPath());
        if (!name.endsWith(".sst") || info.getLength() <= 0
                || (info.getStatus() != null && info.getStatus().getCode() != Status.Code.Ok)) {
            return;
        }
        synchronized (lock) {
            Live l = live.get(name);
            if (l == null || info.getOffset() + info.getLength() > l.bytes()) {
                lookupMisses++;
                return;
            }
            lookups++;
            emit(TraceEvent.Op.LOOKUP, name, l.level(), info.getLength(), info.getOffset());
        }
    }

    /**
     * Emits a create for every SST file db has now (at its level and size), so a trace of a store that
     * already had files is self-contained. Call it right after opening, before the workload.
     */
    public void recordExisting(RocksDB db) {
        for (LiveFileMetaData f : db.getLiveFilesMetaData()) {
            synchronized (lock) {
                String name = name(f.fileName());
                if (!live.containsKey(name)) {
                    live.put(name, new Live(f.level(), f.size()));
                    emit(TraceEvent.Op.CREATE, name, f.level(), f.size());
                }
            }
        }
    }

    private void flushBegin(FlushJobInfo info) {
        synchronized (lock) {
            jobLevel.put(info.getJobId(), 0);
        }
    }

    private void compactionBegin(CompactionJobInfo info) {
        synchronized (lock) {
            jobLevel.put(info.jobId(), info.outputLevel());
        }
    }

    private void fileCreated(TableFileCreationInfo info) {
        if (info.getStatus() != null && info.getStatus().getCode() != Status.Code.Ok) {
            return; // a failed write: RocksDB deletes the file, and no one ever read it
        }
        synchronized (lock) {
            Integer level = jobLevel.get(info.getJobId());
            if (level == null) {
                // a job without a begin event: recovery and flush write level 0
                TableFileCreationReason r = info.getReason();
                level = r == TableFileCreationReason.COMPACTION ? -1 : 0;
            }
            if (level < 0) {
                return; // cannot happen with RocksDB's event order; never guess a level
            }
            String name = name(info.getFilePath());
            live.put(name, new Live(level, info.getFileSize()));
            jobBytes.merge(info.getJobId(), info.getFileSize(), Long::sum);
            emit(TraceEvent.Op.CREATE, name, level, info.getFileSize());
        }
    }

    private void flushCompleted(FlushJobInfo info) {
        synchronized (lock) {
            jobLevel.remove(info.getJobId());
            Long b = jobBytes.remove(info.getJobId());
            emit(TraceEvent.Op.FLUSH, "job-" + info.getJobId(), 0, b == null ? 0 : b);
        }
    }

    private void compactionCompleted(CompactionJobInfo info) {
        synchronized (lock) {
            jobLevel.remove(info.jobId());
            Long b = jobBytes.remove(info.jobId());
            int level = info.outputLevel();
            if (info.status() == null || info.status().getCode() == Status.Code.Ok) {
                // a compaction reads its inputs whole; a trivial move (its outputs are its inputs) reads nothing
                Set<String> ins = new HashSet<>();
                info.inputFiles().forEach(p -> ins.add(name(p)));
                Set<String> outs = new HashSet<>();
                info.outputFiles().forEach(p -> outs.add(name(p)));
                if (!ins.equals(outs)) {
                    for (String path : info.inputFiles()) {
                        Live in = live.get(name(path));
                        if (in != null) {
                            emit(TraceEvent.Op.READ, name(path), in.level(), in.bytes());
                        }
                    }
                }
                for (String path : info.outputFiles()) {
                    String name = name(path);
                    Live l = live.get(name);
                    if (l != null && l.level() != level) { // a trivial move: same file, new level
                        live.put(name, new Live(level, l.bytes()));
                        emit(TraceEvent.Op.MOVE, name, level, l.bytes());
                    }
                }
            }
            emit(TraceEvent.Op.COMPACTION, "job-" + info.jobId(), level, b == null ? 0 : b);
        }
    }

    private void fileDeleted(TableFileDeletionInfo info) {
        synchronized (lock) {
            String name = name(info.getFilePath());
            Live l = live.remove(name);
            if (l == null) {
                unknownDeletes++; // a file from before recording (see recordExisting) or a failed write
                return;
            }
            emit(TraceEvent.Op.DELETE, name, l.level(), l.bytes());
        }
    }

    /** The listener to give RocksDB ({@code Options.setListeners}). */
    public AbstractEventListener listener() {
        return listener;
    }

    /** Events written so far. */
    public long events() {
        synchronized (lock) {
            return events;
        }
    }

    /** Deletions of files the trace never created (they are not written to the trace). */
    public long unknownDeletes() {
        synchronized (lock) {
            return unknownDeletes;
        }
    }

    /** The live files as the trace has them: name to level. */
    public Map<String, Integer> liveLevels() {
        synchronized (lock) {
            Map<String, Integer> m = new LinkedHashMap<>();
            live.forEach((k, v) -> m.put(k, v.level()));
            return m;
        }
    }

    /** Flushes the trace so far to its file. */
    public void flush() throws IOException {
        synchronized (lock) {
            rethrow();
            out.flush();
        }
    }

    /**
     * Flushes and closes the trace and frees the native listener. Close the store first (RocksDB deletes
     * obsolete files then): events after this are dropped.
     */
    @Override
    public void close() throws IOException {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            listener.close();
            try {
                out.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
            rethrow();
        }
    }

    private void rethrow() throws IOException {
        if (failure != null) {
            throw new IOException("writing the LSM trace failed: " + failure.getMessage(), failure);
        }
    }

    private void emit(TraceEvent.Op op, String file, int level, long bytes) {
        emit(op, file, level, bytes, 0);
    }

    private void emit(TraceEvent.Op op, String file, int level, long bytes, long offset) {
        if (closed || failure != null) {
            return;
        }
        long now = Math.max(lastNs, System.nanoTime() - t0);
        lastNs = now;
        try {
            out.write(new TraceEvent(now, op, file, level, bytes, offset).toCsv());
            out.write('\n');
            events++;
        } catch (IOException e) {
            failure = e;
        }
    }

    private static String name(String path) {
        Path p = Paths.get(path).getFileName();
        return p == null ? path : p.toString();
    }

}
