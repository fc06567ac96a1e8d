package io.smartssd.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
 * (and sizes) that RocksDB's getLiveFilesMetaData reports for the store, opened again after the run.
 */
@Timeout(120)
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
