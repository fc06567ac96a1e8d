package io.smartssd.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The level check on hand-made trees whose fills and shares are worked out by hand: a level held at its
 * limit passes, one held at 4x fails, a level-1 share far above the paper's fails, one far below is only
 * reported, a trace of another size than Table 3's at its scale is not compared on shares, and a trace
 * without meta is not checked.
 */
class LevelCheckTest {
    /** Meta of a fill-random recording at 1/256: Table 3's 781,250 records, level 1 of 1000 bytes here. */
    static TraceMeta meta(long records) {
        return new TraceMeta(Map.of("workload", "fill-random", "records", Long.toString(records), "scale", "256",
                "level_base", "1000", "multiplier", "10"));
    }

    /**
     * A tree over levels 0-2: level 2 holds 5000 bytes (its limit 10000) from the start; then n rounds,
     * each a flush of l0 bytes at level 0 and a compaction rewriting level 1 as a file of l1 bytes (job
     * ends after both, so level 1's fill is sampled at l1 / 1000 each round).
     */
    static List<TraceEvent.Line> tree(int rounds, long l0, long l1) throws IOException {
        List<String> t = new ArrayList<>(List.of("time_ns,op,file,level,bytes", "1,create,deep.sst,2,5000"));
        long time = 2;
        String prev = null;
        for (int i = 0; i < rounds; i++) {
            t.add(time++ + ",create,f" + i + ".sst,0," + l0);
            t.add(time++ + ",flush,job-f" + i + ",0," + l0);
            t.add(time++ + ",create,c" + i + ".sst,1," + l1);
            t.add(time++ + ",delete,f" + i + ".sst,0," + l0);
            if (prev != null) {
                t.add(time++ + ",delete," + prev + ",1," + l1);
            }
            t.add(time++ + ",compaction,job-c" + i + ",1," + l1);
            prev = "c" + i + ".sst";
        }
        return TraceEvent.readLines(new StringReader(String.join("\n", t) + "\n"));
    }

    @Test
    void aLevelAtItsLimitPassesAndOneFourTimesOverIsFar() throws IOException {
        // level 1 at 1000 bytes (fill 1.0): ok; the share of level 1: 10 x 1000 of 10 x (100 + 1000) + 5000
        LevelCheck.Result ok = LevelCheck.check(tree(10, 100, 1000), meta(12345));
        assertTrue(ok.applicable() && ok.ok(), ok.text());
        LevelCheck.Level l1 = ok.shape().levels().get(1);
        assertEquals(1.0, l1.meanFill(), 1e-9);
        assertEquals(1000, l1.finalBytes());
        assertEquals(1000, l1.limitBytes());
        assertEquals(100.0 * 10_000 / 16_000, ok.shape().share(1), 1e-9);
        assertEquals(2, ok.shape().deepest());
        assertEquals(0.5, ok.shape().levels().get(2).meanFill(), 1e-9);
        // level 1 held at 4000 bytes: fill 4.0 > 1.5, far (compaction fell behind); level 2 is the deepest: not checked
        LevelCheck.Result far = LevelCheck.check(tree(10, 100, 4000), meta(12345));
        assertFalse(far.ok(), far.text());
        assertEquals(List.of("level 1 mean fill"), far.findings().stream().filter(f -> !f.ok()).map(LevelCheck.Finding::what).toList());
        assertTrue(far.text().contains("FAR  level 1 mean fill: 4.00"), far.text());
    }

    @Test
    void theLevelOneShareIsComparedForTable3SizedTracesOnly() throws IOException {
        // Table 3's size at 1/256: the share is compared. 10 x 1000 of 16000 = 62.5% > 2 x the paper's 10%: far
        LevelCheck.Result r = LevelCheck.check(tree(10, 100, 1000), meta(781_250));
        assertFalse(r.ok(), r.text());
        assertTrue(r.text().contains("FAR  level-1 share of SST writes: 62.5% (paper 10%, at most 2x)"), r.text());
        // level 1 writing 1000 of 5000 + 100,000 + 1000 bytes (0.9%, below 10% / 2): reported low, not refused
        LevelCheck.Result low = LevelCheck.check(tree(1, 100_000, 1000), meta(781_250));
        assertTrue(low.ok(), low.text());
        assertTrue(low.text().contains("low  level-1 share of SST writes: 0.9%"), low.text());
        // 15%: within 2x of 10%
        LevelCheck.Result mid = LevelCheck.check(tree(3, 4000, 1000), meta(781_250));
        assertEquals(100.0 * 3000 / (12000 + 3000 + 5000), mid.shape().share(1), 1e-9);
        assertTrue(mid.ok(), mid.text());
    }

    @Test
    void theRunPhaseAloneCountsForTheShares() throws IOException {
        String t = String.join("\n", "time_ns,op,file,level,bytes,offset", "1,create,a.sst,2,9000,0",
                "2,phase,run,0,0,0", "3,create,b.sst,1,500,0", "4,create,c.sst,0,500,0", "");
        LevelCheck.Shape s = LevelCheck.check(TraceEvent.readLines(new StringReader(t)), meta(1)).shape();
        assertEquals(1000, s.writtenBytes());
        assertEquals(50.0, s.share(1), 1e-9);
        assertEquals(0.0, s.share(2), 1e-9);
        assertEquals(9000, s.levels().get(2).finalBytes());
    }

    @Test
    void aTraceWithoutMetaIsNotChecked() throws IOException {
        LevelCheck.Result r = LevelCheck.check(tree(10, 100, 4000), new TraceMeta(Map.of()));
        assertFalse(r.applicable());
        assertTrue(r.ok() && r.findings().isEmpty());
        assertTrue(r.text().contains("not compared with the paper"), r.text());
    }
}
