package io.smartssd.lsm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Runs a {@link Workload} against a real RocksDB store with a {@link TraceRecorder} attached, at one
 * scale: Table 3's record count and RocksDB's default sizes when the paper was written (64 MiB memtables
 * and files, 256 MiB level 1, x10 per level, pending-compaction limits of 64 / 256 GiB, an 8 MiB block
 * cache) all divided by the same factor ({@link Sizes#scaled}; 256 by default: 781,250 records against
 * 256 KiB memtables and files and a 1 MiB level 1, so the tree spans levels 0-4 as the paper's 200 GB do).
 *
 * <p>Recording is paced by default: before each batch of puts the driver waits until RocksDB has no
 * flush or compaction pending or running, so compaction keeps up as on the paper's device, whatever this
 * machine's speed, and the tree's levels stay near their targets ({@link LevelCheck}). The run ends
 * once background work is done. Unpaced, puts run as fast as RocksDB takes them and background work is
 * paused at the end (a tree compaction may lag far behind: see docs/LSM.md).
 */
public final class WorkloadDriver {
    /** RocksDB's size options for a run. */
    public record Sizes(long writeBufferBytes, long targetFileBytes, long levelBaseBytes, int levelMultiplier,
                        long softPendingBytes, long hardPendingBytes, long blockCacheBytes) {
        /** The default scale: everything / 256. */
        public static final long DEFAULT_SCALE = 256;
        /** The default scaling: {@link #scaled}(256). */
        public static final Sizes DEFAULT = scaled(DEFAULT_SCALE);

        /** The sizes with RocksDB's own pending-compaction limits (64 / 256 GiB) and block cache (8 MiB). */
        public Sizes(long writeBufferBytes, long targetFileBytes, long levelBaseBytes, int levelMultiplier) {
            this(writeBufferBytes, targetFileBytes, levelBaseBytes, levelMultiplier, 64L << 30, 256L << 30, 8L << 20);
        }

        /** RocksDB's defaults (the paper's) divided by denominator. */
        public static Sizes scaled(long denominator) {
            if (denominator < 1 || denominator > 1024) {
                throw new IllegalArgumentException("scale must be 1/1 .. 1/1024 (RocksDB's smallest memtable is 64 KiB), got 1/"
                        + denominator);
            }
            long d = denominator;
            return new Sizes((64L << 20) / d, (64L << 20) / d, (256L << 20) / d, 10, (64L << 30) / d, (256L << 30) / d,
                    (8L << 20) / d);
        }
    }

    /** Table 3's record count (every row counts records of 1 KiB; we load half for the update-heavy rows). */
    public static final long TABLE3_RECORDS = 200_000_000L;

    /** What a run did. */
    public record Result(Workload workload, long records, long writes, long reads, long readHits, long wallNanos,
                         long traceEvents, List<Integer> levelsUsed, long lookups) {
    }

    static final int KEY_BYTES = 16;
    static final int VALUE_BYTES = 1024 - KEY_BYTES;
    /** Puts between two looks at RocksDB's background work when paced (64 KiB of records). */
    static final int PACE_PUTS = 64;

    private WorkloadDriver() {
    }

    /** As {@link #run(Workload, long, long, Sizes, boolean, TraceMeta, Path, Path, boolean)}, paced, no meta. */
    public static Result run(Workload workload, long records, long seed, Sizes sizes, Path dbDir, Path trace,
                             boolean keepDb) throws IOException {
        return run(workload, records, seed, sizes, true, null, dbDir, trace, keepDb);
    }

    /**
     * Runs workload with records N into a new store in dbDir (must not exist or be empty), recording into
     * trace (with meta as its meta line, if not null). The store is closed (and its obsolete files deleted)
     * before this returns; keepDb false deletes the store afterwards.
     */
    public static Result run(Workload workload, long records, long seed, Sizes sizes, boolean paced, TraceMeta meta,
                             Path dbDir, Path trace, boolean keepDb) throws IOException {
        if (records < 10) {
            throw new IllegalArgumentException("records must be >= 10, got " + records);
        }
        RocksDB.loadLibrary();
        Files.createDirectories(dbDir);
        try (Stream<Path> s = Files.list(dbDir)) {
            if (s.findAny().isPresent()) {
                throw new IOException(dbDir + " is not empty: the workload needs a new store");
            }
        }
        long start = System.nanoTime();
        long[] counts = new long[3];
        TreeSet<Integer> levels = new TreeSet<>();
        long events;
        long lookups;
        try (TraceRecorder rec = new TraceRecorder(trace)) {
            if (meta != null) {
                rec.meta(meta);
            }
            try (Cache cache = new LRUCache(Math.max(sizes.blockCacheBytes(), 1));
                 Options o = options(sizes, rec, cache);
                 WriteOptions wo = new WriteOptions().setDisableWAL(true);
                 RocksDB db = RocksDB.open(o, dbDir.toString())) {
                rec.lookupsOn(Thread.currentThread());
                drive(workload, records, seed, db, wo, counts, paced, rec);
                rec.lookupsOn(null);
                if (paced) {
                    settle(db);
                } else {
                    quiesce(db);
                }
            } catch (RocksDBException e) {
                throw new IOException("RocksDB: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            levels.addAll(rec.liveLevels().values());
            events = rec.events();
            lookups = rec.lookups();
        }
        if (!keepDb) {
            deleteTree(dbDir);
        }
        return new Result(workload, records, counts[0], counts[1], counts[2], System.nanoTime() - start, events,
                List.copyOf(levels), lookups);
    }

    /**
     * Flushes the memtable and waits for running compactions, starting no more: the trace then ends with
     * the store's final files. Close the store next (closing flushes nothing more: the memtable is empty).
     */
    public static void quiesce(RocksDB db) throws RocksDBException {
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            db.flush(fo);
        }
        db.pauseBackgroundWork();
    }

    /** Flushes the memtable and waits until no flush or compaction is pending or running. */
    public static void settle(RocksDB db) throws RocksDBException, InterruptedException {
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            db.flush(fo);
        }
        pace(db);
    }

    /** Waits until RocksDB has no flush or compaction pending or running (paced recording). */
    static void pace(RocksDB db) throws RocksDBException, InterruptedException {
        long idleSince = 0;
        while (true) {
            boolean running = db.getLongProperty("rocksdb.num-running-flushes") > 0
                    || db.getLongProperty("rocksdb.num-running-compactions") > 0;
            boolean pending = db.getLongProperty("rocksdb.mem-table-flush-pending") > 0
                    || db.getLongProperty("rocksdb.compaction-pending") > 0;
            if (!running && !pending) {
                return;
            }
            // work pending that RocksDB does not start within 10 s (it never should): stop waiting for it
            long now = System.nanoTime();
            if (running) {
                idleSince = 0;
            } else if (idleSince == 0) {
                idleSince = now;
            } else if (now - idleSince > 10_000_000_000L) {
                return;
            }
            Thread.sleep(1);
        }
    }

    /**
     * The store's options: the scaled sizes, leveled compaction as in the paper's RocksDB, no compression,
     * no bloom filters (db_bench's and YCSB's default then), the block cache given (null: RocksDB's own).
     */
    static Options options(Sizes sizes, TraceRecorder rec, Cache cache) {
        Options o = new Options().setCreateIfMissing(true)
                .setWriteBufferSize(sizes.writeBufferBytes())
                .setTargetFileSizeBase(sizes.targetFileBytes())
                .setMaxBytesForLevelBase(sizes.levelBaseBytes())
                .setMaxBytesForLevelMultiplier(sizes.levelMultiplier())
                .setSoftPendingCompactionBytesLimit(sizes.softPendingBytes())
                .setHardPendingCompactionBytesLimit(sizes.hardPendingBytes())
                // the paper's RocksDB filled levels top-down (level N+1 = 10 x level N, section III-B)
                .setLevelCompactionDynamicLevelBytes(false)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setMaxBackgroundJobs(2)
                .setListeners(List.of(rec.listener()));
        return cache == null ? o : o.setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
    }

    /** As {@link #options(Sizes, TraceRecorder, Cache)} with RocksDB's own block cache. */
    static Options options(Sizes sizes, TraceRecorder rec) {
        return options(sizes, rec, null);
    }

    /** The workload's operations, unpaced; counts = {writes, reads, read hits}. */
    static void drive(Workload w, long n, long seed, RocksDB db, WriteOptions wo, long[] counts)
            throws RocksDBException {
        try {
            drive(w, n, seed, db, wo, counts, false, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The workload's operations; counts = {writes, reads, read hits}; paced: see the class comment. The
     * update-heavy workloads load their keys first (YCSB's load phase), then run; between the two the
     * trace gets a {@code phase run} mark (rec, if not null), after the load's background work is done
     * (paced): what the paper measures of them is the run (docs/LSM.md).
     */
    static void drive(Workload w, long n, long seed, RocksDB db, WriteOptions wo, long[] counts, boolean paced,
                      TraceRecorder rec) throws RocksDBException, InterruptedException {
        Random rnd = new Random(seed);
        long[] ops = {0};
        byte[] key = new byte[KEY_BYTES];
        byte[] value = new byte[VALUE_BYTES];
        switch (w) {
            case FILL_RANDOM -> {
                for (long i = 0; i < n; i++) {
                    put(db, wo, paced, ops, key, value, Math.floorMod(rnd.nextLong(), n), rnd, counts);
                }
            }
            case ZIPF_WRITE -> {
                Zipfian z = new Zipfian(n, Zipfian.THETA);
                for (long i = 0; i < n; i++) {
                    put(db, wo, paced, ops, key, value, Math.floorMod(Zipfian.fnv64(z.next(rnd)), n), rnd, counts);
                }
            }
            case LATEST_WRITE -> {
                long inserted = 1;
                put(db, wo, paced, ops, key, value, 0, rnd, counts);
                Zipfian z = new Zipfian(1, Zipfian.THETA);
                for (long i = 1; i < n; i++) {
                    if (rnd.nextBoolean()) {
                        put(db, wo, paced, ops, key, value, inserted++, rnd, counts);
                        z.grow(inserted);
                    } else {
                        put(db, wo, paced, ops, key, value, inserted - 1 - z.next(rnd), rnd, counts);
                    }
                }
            }
            case ZIPF_UPDATE, LATEST_UPDATE -> {
                long loaded = n / 2;
                for (long i = 0; i < loaded; i++) {
                    put(db, wo, paced, ops, key, value, i, rnd, counts);
                }
                if (paced) {
                    settle(db);
                }
                if (rec != null) {
                    rec.phase("run");
                }
                Zipfian z = new Zipfian(loaded, Zipfian.THETA);
                for (long i = 0; i < n - loaded; i++) {
                    long rank = z.next(rnd);
                    long item = w == Workload.ZIPF_UPDATE ? Math.floorMod(Zipfian.fnv64(rank), loaded) : loaded - 1 - rank;
                    if (rnd.nextBoolean()) {
                        keyOf(item, key);
                        counts[1]++;
                        if (db.get(key) != null) {
                            counts[2]++;
                        }
                        tick(db, paced, ops);
                    } else {
                        put(db, wo, paced, ops, key, value, item, rnd, counts);
                    }
                }
            }
            default -> throw new IllegalStateException(w.toString());
        }
    }

    private static void put(RocksDB db, WriteOptions wo, boolean paced, long[] ops, byte[] key, byte[] value, long item,
                            Random rnd, long[] counts) throws RocksDBException, InterruptedException {
        keyOf(item, key);
        rnd.nextBytes(value);
        db.put(wo, key, value);
        counts[0]++;
        tick(db, paced, ops);
    }

    /** Every PACE_PUTS operations, a paced run waits for RocksDB's background work. */
    private static void tick(RocksDB db, boolean paced, long[] ops) throws RocksDBException, InterruptedException {
        if (paced && ++ops[0] % PACE_PUTS == 0) {
            pace(db);
        }
    }

    /** Item number to key: its hash first (keys scattered over the key space, YCSB's hashed order), then it. */
    static void keyOf(long item, byte[] key) {
        ByteBuffer.wrap(key).putLong(Zipfian.fnv64(item)).putLong(item);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
