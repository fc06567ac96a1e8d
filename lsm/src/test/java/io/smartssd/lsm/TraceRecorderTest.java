package io.smartssd.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * The recorder against RocksDB's own view: for every workload, the files a trace leaves live (its creates,
 * less its deletes, at the level of their last create or move) are exactly the SST files and levels
 * (and sizes) that RocksDB's getLiveFilesMetaData reports for the store, opened again after the run; the
 * update-heavy ones record their point lookups and their run phase. A recording whose compaction falls
 * behind (unpaced) is refused by the level check, the paced recording of the same workload is not.
 */
@Timeout(300)
class TraceRecorderTest {
    static final long RECORDS = 20_000;
    @TempDir
    Path dir;

    /** The trace's live files: name -> {level, bytes}. */
    static Map<String, List<Long>> fold(Path trace) throws IOException {
        Map<String, List<Long>> live = new TreeMap<>();
        try (Reader r = Files.newBufferedReader(trace, StandardCharsets.UTF_8)) {
            for (TraceEvent e : TraceEvent.readAll(r)) {
                switch (e.op()) {
                    case CREATE, MOVE -> live.put(e.file(), List.of((long) e.level(), e.bytes()));
                    case DELETE -> live.remove(e.file());
                    default -> {
                    }
                }
            }
        }
        return live;
    }

    /** RocksDB's live files of the store in db: name -> {level, bytes}. */
    static Map<String, List<Long>> rocksView(Path db) throws Exception {
        Map<String, List<Long>> m = new TreeMap<>();
        try (Options o = new Options(); RocksDB r = RocksDB.openReadOnly(o, db.toString())) {
            for (LiveFileMetaData f : r.getLiveFilesMetaData()) {
                m.put(f.fileName().replaceFirst("^/", ""), List.of((long) f.level(), f.size()));
            }
        }
        return m;
    }

    @ParameterizedTest
    @EnumSource(Workload.class)
    void liveFilesOfTheTraceAreRocksDbsLiveFiles(Workload w) throws Exception {
        Path db = dir.resolve("db");
        Path trace = dir.resolve(w + ".trace");
        WorkloadDriver.Result r = WorkloadDriver.run(w, RECORDS, 7, WorkloadDriver.Sizes.DEFAULT, db, trace, true);
        Map<String, List<Long>> rocks = rocksView(db);
        assertTrue(rocks.size() >= 3, "a tree worth the name: " + rocks);
        assertEquals(rocks, fold(trace));
        // the tree reached below level 1: compactions happened and were recorded with their levels
        assertTrue(r.levelsUsed().stream().anyMatch(l -> l >= 1), "levels " + r.levelsUsed());
        long deletes = TraceEvent.readAll(Files.newBufferedReader(trace)).stream()
                .filter(e -> e.op() == TraceEvent.Op.DELETE).count();
        assertTrue(deletes > 0, "compactions delete their inputs");
        // the trace is consistent (every delete, move and read is of a live file, sizes agree) and
        // compactions that rewrote files read their inputs first
        List<TraceEvent.Line> lines = TraceEvent.readLines(Files.newBufferedReader(trace));
        Replayer.check(lines);
        assertTrue(lines.stream().anyMatch(l -> l.event().op() == TraceEvent.Op.READ), "compaction input reads");
        // the update-heavy workloads: a run mark after the load, Gets that reached SST files recorded as
        // lookups of live files (checked above: within their files), each at least a block header
        long lookups = lines.stream().filter(l -> l.event().op() == TraceEvent.Op.LOOKUP).count();
        long marks = lines.stream().filter(l -> l.event().op() == TraceEvent.Op.PHASE && l.event().file().equals("run")).count();
        assertEquals(w.updateHeavy() ? 1 : 0, marks);
        assertEquals(r.lookups(), lookups);
        if (w.updateHeavy()) {
            assertTrue(lookups > 0, "Gets reach SST files");
            assertTrue(lines.stream().filter(l -> l.event().op() == TraceEvent.Op.LOOKUP).allMatch(l -> l.event().bytes() > 5),
                    "a lookup reads a block");
        } else {
            assertEquals(0, lookups, "a write-only workload reads nothing in the foreground");
        }
        // the counts of what the driver did follow the workload's definition
        if (w.updateHeavy()) {
            assertEquals(RECORDS, r.writes() + r.reads());
            assertTrue(r.reads() > RECORDS / 4 - 1000 && r.reads() < RECORDS / 4 + 1000, "about half of N/2: " + r.reads());
            assertEquals(r.reads(), r.readHits(), "every read is of a loaded key");
        } else {
            assertEquals(RECORDS, r.writes());
        }
    }

    @Test
    void anUnpacedRecordingFallsBehindAndTheLevelCheckRefusesIt() throws Exception {
        // RocksDB's own pending-compaction limits (64 / 256 GiB) and no pacing: puts outrun compaction
        WorkloadDriver.Sizes d = WorkloadDriver.Sizes.DEFAULT;
        WorkloadDriver.Sizes starved = new WorkloadDriver.Sizes(d.writeBufferBytes(), d.targetFileBytes(),
                d.levelBaseBytes(), d.levelMultiplier());
        TraceMeta meta = new TraceMeta(Map.of("workload", "fill-random", "records", "20000", "level_base",
                Long.toString(d.levelBaseBytes()), "multiplier", "10"));
        Path unpaced = dir.resolve("unpaced.trace");
        WorkloadDriver.run(Workload.FILL_RANDOM, 20_000, 9, starved, false, meta, dir.resolve("db1"), unpaced, false);
        List<TraceEvent.Line> lines = TraceEvent.readLines(Files.newBufferedReader(unpaced));
        assertEquals(meta, TraceMeta.read(unpaced));
        LevelCheck.Result far = LevelCheck.check(lines, TraceMeta.read(unpaced));
        assertFalse(far.ok(), far.text());
        assertTrue(far.shape().levels().get(1).meanFill() > 2 * LevelCheck.MAX_MEAN_FILL, far.text());
        // the command line refuses to replay it (exit 1, before any device is opened) unless forced
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path image = dir.resolve("none.img");
        assertEquals(1, LsmCli.commandLine(new PrintStream(out), new PrintStream(err))
                .execute("replay", unpaced.toString(), "--image", image.toString()));
        assertTrue(err.toString().contains("the recorded tree is far from the paper's"), err.toString());
        assertEquals(1, LsmCli.commandLine(new PrintStream(out), new PrintStream(err)).execute("check", unpaced.toString()));
        assertEquals(0, LsmCli.commandLine(new PrintStream(out), new PrintStream(err))
                .execute("check", unpaced.toString(), "--force"));
        err.reset();
        assertEquals(1, LsmCli.commandLine(new PrintStream(out), new PrintStream(err))
                .execute("replay", unpaced.toString(), "--image", image.toString(), "--force"));
        assertTrue(err.toString().contains("no device image"), "forced, it goes on to the device: " + err);
        // paced, the same workload keeps every level near its limit and passes
        Path paced = dir.resolve("paced.trace");
        WorkloadDriver.run(Workload.FILL_RANDOM, 20_000, 9, d, true, meta, dir.resolve("db2"), paced, false);
        LevelCheck.Result ok = LevelCheck.check(TraceEvent.readLines(Files.newBufferedReader(paced)), meta);
        assertTrue(ok.ok(), ok.text());
    }

    @Test
    void aStoreWithFilesAlreadyIsSeededByRecordExisting() throws Exception {
        Path db = dir.resolve("db");
        WorkloadDriver.run(Workload.FILL_RANDOM, RECORDS, 3, WorkloadDriver.Sizes.DEFAULT, db, dir.resolve("first.trace"), true);
        Map<String, List<Long>> before = rocksView(db);
        Path trace = dir.resolve("second.trace");
        try (TraceRecorder rec = new TraceRecorder(trace)) {
            try (Options o = WorkloadDriver.options(WorkloadDriver.Sizes.DEFAULT, rec);
                 WriteOptions wo = new WriteOptions().setDisableWAL(true);
                 RocksDB r = RocksDB.open(o, db.toString())) {
                rec.recordExisting(r);
                assertEquals(before.size(), rec.events(), "one create per existing file");
                WorkloadDriver.drive(Workload.ZIPF_WRITE, RECORDS, 4, r, wo, new long[3]);
                WorkloadDriver.quiesce(r);
            }
            assertEquals(0, rec.unknownDeletes(), "every file deleted was in the trace");
        }
        assertEquals(rocksView(db), fold(trace));
    }
}
