package io.smartssd.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.DeviceException;
import io.smartssd.device.EmbeddedTransport;
import io.smartssd.device.ObjectInfo;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.Transport;
import io.smartssd.proto.Request;
import io.smartssd.proto.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replayer on a real embedded device: the objects left on the device are the trace's live files
 * (names and sizes; for a recorded RocksDB run, RocksDB's own live files), every write carries its file's
 * level + 1 as hint (seen on the commands sent), compaction inputs are read back, deleted files are
 * trimmed and gone; a bad trace fails with the line number and reason before the device is touched, and a
 * device failure names the trace line.
 */
@Timeout(120)
class ReplayerTest {
    /** Passes every command to the device, keeping the requests. */
    static final class Recording implements Transport {
        final Transport inner;
        final List<Request> sent = new ArrayList<>();

        Recording(Transport inner) {
            this.inner = inner;
        }

        @Override
        public synchronized Response call(Request request, ByteBuffer in, ByteBuffer out) {
            sent.add(request);
            return inner.call(request, in, out);
        }

        @Override
        public boolean background() {
            return inner.background();
        }

        @Override
        public String description() {
            return inner.description();
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @TempDir
    Path dir;
    Path image;
    Recording rec;
    SmartSsd ssd;

    @BeforeEach
    void open() {
        image = dir.resolve("dev.img");
        SmartSsd.format(image, 128L << 20, "tiny");
        rec = new Recording(EmbeddedTransport.open(image, false, Map.of()));
        ssd = SmartSsd.over(rec);
    }

    @AfterEach
    void close() {
        ssd.close();
    }

    static List<TraceEvent.Line> lines(String csv) throws IOException {
        return TraceEvent.readLines(new StringReader(csv));
    }

    Map<String, Long> deviceObjects(String prefix) {
        Map<String, Long> m = new TreeMap<>();
        for (ObjectInfo o : ssd.list(prefix).objects()) {
            m.put(o.name().substring(prefix.length()), o.size());
        }
        return m;
    }

    static final String SMALL = String.join("\n",
            "time_ns,op,file,level,bytes",
            "10,create,a.sst,0,10000",
            "20,create,b.sst,1,5000",
            "30,flush,job-1,0,15000",
            "40,read,a.sst,0,10000",
            "50,move,b.sst,2,5000",
            "60,delete,a.sst,0,10000",
            "70,create,c.sst,2,12289",
            "80,compaction,job-2,2,12289", "");

    @Test
    void aHandMadeTraceLeavesItsLiveFilesWithEachWriteHintedByLevel() throws IOException {
        Replayer.Result r = new Replayer(ssd, "lsm/", 4096).replay(lines(SMALL));
        assertEquals(Map.of("b.sst", 5000L, "c.sst", 12289L), deviceObjects("lsm/"));
        assertEquals(r.liveSizes(), deviceObjects("lsm/"));
        // a: 3 writes of level 0 (hint 1); b: 2 of level 1 (hint 2); c: 4 of level 2 (hint 3), in 4 KiB chunks
        List<Request> writes = rec.sent.stream().filter(Request::hasWriteObject).toList();
        assertEquals(List.of(1, 1, 1, 2, 2, 3, 3, 3, 3), writes.stream().map(q -> q.getWriteObject().getHint()).toList());
        assertEquals(List.of(0L, 4096L, 8192L, 0L, 4096L, 0L, 4096L, 8192L, 12288L),
                writes.stream().map(q -> q.getWriteObject().getOffset()).toList());
        assertEquals(9, r.writeCommands());
        assertEquals(10000 + 5000 + 12289, r.writeBytes());
        // the compaction input a.sst read back whole: 3 reads; then deleted (its whole-file TRIM)
        assertEquals(3, r.readCommands());
        assertEquals(10000, r.readBytes());
        assertEquals(0, rec.sent.stream().filter(Request::hasTrim).count());
        assertEquals(1, rec.sent.stream().filter(Request::hasDeleteObject).count());
        assertEquals(Map.of(0, new Replayer.LevelIo(10000, 10000), 1, new Replayer.LevelIo(5000, 0),
                2, new Replayer.LevelIo(12289, 0)), r.byLevel());
        assertEquals(1, r.moves());
        assertTrue(r.writeNanos() > 0 && r.readNanos() > 0, "device time is charged");
    }

    /** Version 2: point lookups with their offsets, a load phase before the run mark. */
    static final String LOOKUPS = String.join("\n",
            "time_ns,op,file,level,bytes,offset",
            "10,create,a.sst,0,20000,0",
            "20,create,b.sst,1,9000,0",
            "25,lookup,a.sst,0,4101,0",
            "30,phase,run,0,0,0",
            "40,lookup,a.sst,0,4101,12288",
            "50,lookup,b.sst,1,300,8000",
            "60,create,c.sst,0,5000,0",
            "70,lookup,c.sst,0,5000,0",
            "80,delete,a.sst,0,20000,0", "");

    @Test
    void lookupsReadTheirBytesAndTheRunIsMeasuredFromItsMark() throws IOException {
        Replayer.Result r = new Replayer(ssd, "lsm/", 4096).replay(lines(LOOKUPS));
        List<Request> reads = rec.sent.stream().filter(Request::hasReadObject).toList();
        // every lookup is its own read commands at its offset (one per chunk): 4101 bytes at 0 (load phase,
        // 2 commands), at 12288 (2), 300 at 8000 (1), 5000 at 0 (2)
        assertEquals(List.of(0L, 4096L, 12288L, 16384L, 8000L, 0L, 4096L),
                reads.stream().map(q -> q.getReadObject().getOffset()).toList());
        assertEquals(List.of(4096L, 5L, 4096L, 5L, 300L, 4096L, 904L),
                reads.stream().map(q -> q.getReadObject().getLength()).toList());
        // counted from the run mark: 3 lookups, 5 read commands, 1 create (5000 bytes in 2 commands), 1 delete
        assertEquals(3, r.lookups());
        assertEquals(4101 + 300 + 5000, r.lookupBytes());
        assertEquals(5, r.readCommands());
        assertEquals(4101 + 300 + 5000, r.readBytes());
        assertEquals(1, r.creates());
        assertEquals(2, r.writeCommands());
        assertEquals(5000, r.writeBytes());
        assertEquals(1, r.deletes());
        assertEquals(5, r.counterDelta().get("commands.read_object"));
        assertEquals(2, r.counterDelta().get("commands.write_object"));
        assertTrue(r.lookupNanos() > 0 && r.lookupNanos() == r.readNanos(), "lookups are all the run's reads");
        assertEquals(Map.of(0, new Replayer.LevelIo(5000, 4101 + 5000), 1, new Replayer.LevelIo(0, 300)), r.byLevel());
        assertEquals(Map.of("b.sst", 9000L, "c.sst", 5000L), deviceObjects("lsm/"));
    }

    @Test
    void aWriteAheadLogIsWrittenUnhintedPerFlushAndDeletedAfterTheNext() throws IOException {
        String t = String.join("\n", "time_ns,op,file,level,bytes",
                "10,create,a.sst,0,6000", "11,flush,job-1,0,6000",
                "20,create,b.sst,0,3000", "21,flush,job-2,0,3000", "");
        Replayer.Result r = new Replayer(ssd, "lsm/", 4096).withWal(true).replay(lines(t));
        List<Request> writes = rec.sent.stream().filter(Request::hasWriteObject).toList();
        // a (hint 1, 2 commands), the log after flush 1 (hint 0, 6000 bytes: 2), b (1), the log after flush 2 (1)
        assertEquals(List.of(1, 1, 0, 0, 1, 0), writes.stream().map(q -> q.getWriteObject().getHint()).toList());
        assertEquals(3, r.walWriteCommands());
        assertEquals(9000, r.walBytes());
        assertEquals(6, r.writeCommands(), "the log's writes are among the writes");
        assertEquals(6000 + 3000 + 9000, r.writeBytes());
        assertEquals(2, rec.sent.stream().filter(Request::hasDeleteObject).count(), "each log deleted: one after the"
                + " next flush, the last as the store closes");
        assertEquals(Map.of("a.sst", 6000L, "b.sst", 3000L), deviceObjects("lsm/"));
    }

    @Test
    void aTraceRunsAgainAfterItsLiveFilesAreDropped() throws IOException {
        Replayer rp = new Replayer(ssd, "lsm/", 4096);
        Replayer.Result first = rp.replay(lines(SMALL));
        rp.dropLive(first);
        assertEquals(Map.of(), deviceObjects("lsm/"));
        Replayer.Result second = rp.replay(lines(SMALL));
        assertEquals(Map.of("b.sst", 5000L, "c.sst", 12289L), deviceObjects("lsm/"));
        // the second run's counters are its own: 9 writes, 3 reads, 3 creates, 1 delete
        assertEquals(9, second.counterDelta().get("commands.write_object"));
        assertEquals(3, second.counterDelta().get("commands.read_object"));
        assertEquals(3, second.counterDelta().get("commands.create_object"));
        assertEquals(1, second.counterDelta().get("commands.delete_object"));
        assertEquals(1 + 2 + 1, second.counters().get("commands.delete_object"), "the session's: 1, 2 dropped, 1");
    }

    @Test
    void aRecordedRocksDbRunLeavesRocksDbsLiveFilesOnTheDevice() throws Exception {
        Path db = dir.resolve("db");
        Path trace = dir.resolve("t.trace");
        WorkloadDriver.run(Workload.ZIPF_WRITE, 20_000, 5, WorkloadDriver.Sizes.DEFAULT, db, trace, true);
        Map<String, List<Long>> rocks = TraceRecorderTest.rocksView(db);
        Replayer.Result r;
        try (var in = Files.newBufferedReader(trace)) {
            r = new Replayer(ssd, "db1/", 1 << 20).replay(TraceEvent.readLines(in));
        }
        Map<String, Long> want = new TreeMap<>();
        rocks.forEach((k, v) -> want.put(k, v.get(1)));
        assertEquals(want, deviceObjects("db1/"));
        assertEquals(r.creates() - r.deletes(), want.size());
        // the hint of every write is the level its file was created at
        Map<Long, Integer> levelOfObject = new TreeMap<>();
        for (Request q : rec.sent) {
            if (q.hasWriteObject()) {
                levelOfObject.merge(q.getWriteObject().getObjectId(), q.getWriteObject().getHint(), (a, b) -> {
                    assertEquals(a, b, "one hint per file");
                    return a;
                });
            }
        }
        assertTrue(levelOfObject.values().stream().allMatch(h -> h >= 1), "every write hinted");
        assertTrue(levelOfObject.values().stream().anyMatch(h -> h >= 2), "compaction outputs below level 0");
    }

    @Test
    void badLinesGiveTheirNumberAndReasonAndTheDeviceIsUntouched() throws IOException {
        String h = "time_ns,op,file,level,bytes\n";
        assertBad("# a comment\nt,op\n", 2, "expected the header");
        assertBad("", 0, "no header line");
        assertBad(h + "1,create,a,0\n", 2, "expected 5 comma-separated fields");
        assertBad(h + "1,write,a,0,5\n", 2, "unknown op 'write'");
        assertBad(h + "1,create,a,0,-5\n", 2, "bytes must be an integer >= 0, got '-5'");
        assertBad(h + "1,create,a,zero,5\n", 2, "level must be an integer >= 0, got 'zero'");
        assertBad(h + "1,create,a,1001,5\n", 2, "level 1001 is not an LSM level");
        assertBad(h + "1,create,,0,5\n", 2, "empty file name");
        assertBad(h + "1,create,db/a.sst,0,5\n", 2, "is a path");
        assertBad(h + "5,create,a,0,5\n\n4,create,b,0,5\n", 4, "time_ns 4 is before the previous line's 5");
        assertBad(h + "1,create,a,0,5\n2,create,a,0,5\n", 3, "create of a, which is live (created at line 2)");
        assertBad(h + "1,delete,a,0,5\n", 2, "delete of a, which is not live");
        assertBad(h + "1,create,a,0,5\n2,delete,a,0,5\n3,read,a,0,5\n", 4, "read of a, which is not live");
        assertBad(h + "1,create,a,0,5\n2,move,a,1,6\n", 3, "move of a says 6 bytes; it was created with 5 (line 2)");
        String h2 = "time_ns,op,file,level,bytes,offset\n";
        assertBad(h + "1,create,a,0,5\n2,lookup,a,0,5\n", 3, "a lookup needs the offset column");
        assertBad(h2 + "1,create,a,0,5\n", 2, "expected 6 comma-separated fields");
        assertBad(h2 + "1,create,a,0,5,3\n", 2, "offset 3 on a create (only lookups have an offset)");
        assertBad(h2 + "1,create,a,0,5,0\n2,lookup,a,0,4,2\n", 3, "lookup of a reads bytes 2..6, outside its 5 bytes");
        assertBad(h2 + "1,lookup,a,0,4,0\n", 2, "lookup of a, which is not live");
        assertEquals(0, rec.sent.stream().filter(q -> q.hasCreateObject() || q.hasWriteObject()).count());
        // and the device serves the next (good) trace
        new Replayer(ssd, "", 4096).replay(lines(h + "1,create,a,0,5\n"));
        assertEquals(Map.of("a", 5L), deviceObjects(""));
    }

    private void assertBad(String csv, long line, String reason) {
        TraceEvent.BadTraceException e = assertThrows(TraceEvent.BadTraceException.class,
                () -> new Replayer(ssd, "", 4096).replay(lines(csv)));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("trace line " + line + ": ") && e.getMessage().contains(reason),
                e.getMessage());
    }

    @Test
    void aDeviceFailureNamesTheTraceLineAndTheDeviceKeepsServing() throws IOException {
        ssd.createData("x/a.sst");
        DeviceException e = assertThrows(DeviceException.class, () -> new Replayer(ssd, "x/", 4096)
                .replay(lines("time_ns,op,file,level,bytes\n# c\n1,create,a.sst,0,5\n")));
        assertTrue(e.getMessage().contains("trace line 3 (create a.sst)"), e.getMessage());
        assertEquals(DeviceException.Code.ALREADY_EXISTS, e.code());
        assertEquals(Map.of("a.sst", 0L), deviceObjects("x/"));
    }

    @Test
    void theCommandLineChecksAndReplaysAndExitsOneOnABadLine() throws IOException {
        Path good = dir.resolve("good.trace");
        Files.writeString(good, SMALL);
        Path bad = dir.resolve("bad.trace");
        Files.writeString(bad, "time_ns,op,file,level,bytes\n1,create,a,0,5\n2,delete,b,0,5\n");
        ssd.close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, LsmCli.commandLine(new PrintStream(out), new PrintStream(err)).execute("check", good.toString()));
        assertTrue(out.toString().contains("8 events, 3 creates, 1 deletes, 0 lookups, 2 files live"), out.toString());
        assertEquals(1, LsmCli.commandLine(new PrintStream(out), new PrintStream(err)).execute("check", bad.toString()));
        assertTrue(err.toString().contains("trace line 3: delete of b, which is not live"), err.toString());
        out.reset();
        assertEquals(0, LsmCli.commandLine(new PrintStream(out), new PrintStream(err))
                .execute("replay", good.toString(), "--image", image.toString(), "--chunk", "4K", "--json"));
        String json = out.toString(StandardCharsets.UTF_8);
        assertTrue(json.contains("\"write_commands\":9,") && json.contains("\"read_commands\":3,")
                && json.contains("\"live_files\":2,") && json.contains("\"placement\":\"stripe\""), json);
        assertEquals(2, LsmCli.commandLine(new PrintStream(out), new PrintStream(err))
                .execute("replay", good.toString()));
        assertTrue(err.toString().contains("exactly one of --image and --socket"), err.toString());
        ssd = SmartSsd.openEmbedded(image);
        assertEquals(Map.of("b.sst", 5000L, "c.sst", 12289L), deviceObjects("lsm/"));
    }
}
