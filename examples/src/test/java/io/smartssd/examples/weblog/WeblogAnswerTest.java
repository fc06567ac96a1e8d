package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The answer's canonical form and ranking, against hand-written expectations. */
class WeblogAnswerTest {
    @Test
    void ranksByCountThenLowerTypeIndex() {
        // HTML 5, IMAGE 9, AUDIO 5, VIDEO 0, JAVA 7, OTHER 5: IMAGE, JAVA, then the tie HTML/AUDIO/OTHER -> HTML.
        long[] c = new long[13];
        c[0] = 5;
        c[1] = 9;
        c[2] = 5;
        c[4] = 7;
        c[12] = 5;
        assertArrayEquals(new int[] {3, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0}, WeblogAnswer.ranks(c, 3));
        assertEquals(List.of("Paris\tIMAGE\t9\t1", "Paris\tJAVA\t7\t2", "Paris\tHTML\t5\t3", "Paris\tAUDIO\t5\t0",
                "Paris\tOTHER\t5\t0"), WeblogAnswer.q2Lines("Paris", c, 3));
        assertEquals(List.of("Paris\tIMAGE\t9\t1"), WeblogAnswer.q2Lines("Paris", new long[] {0, 9, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0}, 13));
    }

    @Test
    void q1SumsTypesAndSkipsEmptyRegions() {
        long[][] c = new long[8][13];
        c[1][0] = 2;
        c[1][5] = 3;
        c[7][12] = 1;
        WeblogAnswer a = WeblogAnswer.of(WeblogQuery.Q1, c, 3);
        assertEquals(List.of("Plano\t5", "region-7\t1"), a.lines());
        assertEquals("Plano\t5\nregion-7\t1\n", a.text());
        assertEquals(6, a.total());
        assertEquals(a, WeblogAnswer.q1(new long[] {0, 5, 0, 0, 0, 0, 0, 1}));
        assertEquals(6, WeblogAnswer.of(WeblogQuery.Q2, c, 3).total());
    }

    @Test
    void badNamesAreRefusedClearly() {
        assertEquals(WeblogQuery.Q2, WeblogQuery.parse("weblog-q2"));
        assertEquals(Version.HOST_OPTIMIZED, Version.parse("host-optimized"));
        assertEquals("unknown query 'q3': q1 (accesses per region) or q2 (top file types per region)",
                assertThrows(IllegalArgumentException.class, () -> WeblogQuery.parse("q3")).getMessage());
        assertEquals("unknown version 'gpu': host-normal, host-optimized, device or spark-device",
                assertThrows(IllegalArgumentException.class, () -> Version.parse("gpu")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Wc98.checkEntryBytes(19));
        assertEquals(3L << 29, Sizes.bytes("1.5G"));
        assertEquals(64L << 20, Sizes.bytes("64MiB"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.bytes("lots"));
    }
}
