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
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Runs a {@link Workload} against a real RocksDB store with a {@link TraceRecorder} attached. RocksDB's
 * size options are scaled down with the data ({@link Sizes}): Table 3's 200 M records of 1 KiB (200 GB)
 * against RocksDB's defaults (64 MiB memtables and files, 256 MiB level 1, x10 per level) become, by
 * default, 200 K records against 1 MiB memtables and files and a 4 MiB level 1, so the tree keeps several
 * levels (0-3 instead of the paper's 0-4) in a run of seconds.
 */
public final class WorkloadDriver {
    /** RocksDB's size options for a run. */
    public record Sizes(long writeBufferBytes, long targetFileBytes, long levelBaseBytes, int levelMultiplier) {
        /** The default scaling: RocksDB's defaults / 64 (memtable and file 1 MiB, level 1 4 MiB). */
        public static final Sizes DEFAULT = new Sizes(1L << 20, 1L << 20, 4L << 20, 10);
    }

    /** What a run did. */
    public record Result(Workload workload, long records, long writes, long reads, long readHits, long wallNanos,
                         long traceEvents, List<Integer> levelsUsed) {
    }

    static final int KEY_BYTES = 16;
    static final int VALUE_BYTES = 1024 - KEY_BYTES;

    private WorkloadDriver() {
    }

    /**
     * Runs workload with records N into a new store in dbDir (must not exist or be empty), recording into
     * trace. The store is closed (and its obsolete files deleted) before this returns; keepDb false
     * deletes the store afterwards.
     */
    public static Result run(Workload workload, long records, long seed, Sizes sizes, Path dbDir, Path trace,
                             boolean keepDb) throws IOException {
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
        try (TraceRecorder rec = new TraceRecorder(trace)) {
            try (Options o = options(sizes, rec);
                 WriteOptions wo = new WriteOptions().setDisableWAL(true);
                 RocksDB db = RocksDB.open(o, dbDir.toString())) {
                drive(workload, records, seed, db, wo, counts);
                quiesce(db);
            } catch (RocksDBException e) {
                throw new IOException("RocksDB: " + e.getMessage(), e);
            }
            levels.addAll(rec.liveLevels().values());
            events = rec.events();
        }
        if (!keepDb) {
            deleteTree(dbDir);
        }
        return new Result(workload, records, counts[0], counts[1], counts[2], System.nanoTime() - start, events,
                List.copyOf(levels));
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

    /** The store's options: the scaled sizes, leveled compaction as in the paper's RocksDB, no compression. */
    static Options options(Sizes sizes, TraceRecorder rec) {
        return new Options().setCreateIfMissing(true)
                .setWriteBufferSize(sizes.writeBufferBytes())
                .setTargetFileSizeBase(sizes.targetFileBytes())
                .setMaxBytesForLevelBase(sizes.levelBaseBytes())
                .setMaxBytesForLevelMultiplier(sizes.levelMultiplier())
                // the paper's RocksDB filled levels top-down (level N+1 = 10 x level N, section III-B)
                .setLevelCompactionDynamicLevelBytes(false)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setMaxBackgroundJobs(2)
                .setListeners(List.of(rec.listener()));
    }

    /** The workload's operations; counts = {writes, reads, read hits}. */
    static void drive(Workload w, long n, long seed, RocksDB db, WriteOptions wo, long[] counts)
            throws RocksDBException {
        Random rnd = new Random(seed);
        byte[] key = new byte[KEY_BYTES];
        byte[] value = new byte[VALUE_BYTES];
        switch (w) {
            case FILL_RANDOM -> {
                for (long i = 0; i < n; i++) {
                    put(db, wo, key, value, Math.floorMod(rnd.nextLong(), n), rnd, counts);
                }
            }
            case ZIPF_WRITE -> {
                Zipfian z = new Zipfian(n, Zipfian.THETA);
                for (long i = 0; i < n; i++) {
                    put(db, wo, key, value, Math.floorMod(Zipfian.fnv64(z.next(rnd)), n), rnd, counts);
                }
            }
            case LATEST_WRITE -> {
                long inserted = 1;
                put(db, wo, key, value, 0, rnd, counts);
                Zipfian z = new Zipfian(1, Zipfian.THETA);
                for (long i = 1; i < n; i++) {
                    if (rnd.nextBoolean()) {
                        put(db, wo, key, value, inserted++, rnd, counts);
                        z.grow(inserted);
                    } else {
                        put(db, wo, key, value, inserted - 1 - z.next(rnd), rnd, counts);
                    }
                }
            }
            case ZIPF_UPDATE, LATEST_UPDATE -> {
                long loaded = n / 2;
                for (long i = 0; i < loaded; i++) {
                    put(db, wo, key, value, i, rnd, counts);
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
                    } else {
                        put(db, wo, key, value, item, rnd, counts);
                    }
                }
            }
            default -> throw new IllegalStateException(w.toString());
        }
    }

    private static void put(RocksDB db, WriteOptions wo, byte[] key, byte[] value, long item, Random rnd,
                            long[] counts) throws RocksDBException {
        keyOf(item, key);
        rnd.nextBytes(value);
        db.put(wo, key, value);
        counts[0]++;
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
