package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The generator's bytes: deterministic, well-formed, with the published shares; two decoders agree on them. */
class Wc98GeneratorTest {
    private static byte[] gen(long seed, long records, int entry, Wc98Generator.Mix mix) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = new Wc98Generator(seed, mix).writeBinary(out, records, entry, null);
        assertEquals(records * entry, n);
        return out.toByteArray();
    }

    @Test
    void sameSeedSameBytesAndPaddingIsZero() throws IOException {
        byte[] a = gen(7, 5000, 64, Wc98Generator.Mix.REALISTIC);
        assertArrayEquals(a, gen(7, 5000, 64, Wc98Generator.Mix.REALISTIC));
        assertFalse(java.util.Arrays.equals(a, gen(8, 5000, 64, Wc98Generator.Mix.REALISTIC)));
        byte[] b20 = gen(7, 5000, 20, Wc98Generator.Mix.REALISTIC);
        for (int r = 0; r < 5000; r++) {
            for (int i = 0; i < 20; i++) {   // the same records, only padded
                assertEquals(b20[r * 20 + i], a[r * 64 + i]);
            }
            for (int i = 20; i < 64; i++) {
                assertEquals(0, a[r * 64 + i]);
            }
        }
    }

    @Test
    void realisticMixHasThePublishedShapes() throws IOException {
        int n = 200_000;
        ByteBuffer b = ByteBuffer.wrap(gen(1998, n, 20, Wc98Generator.Mix.REALISTIC));
        long[] region = new long[8];
        long[] type = new long[16];
        long noSize = 0;
        long s200 = 0;
        long http11 = 0;
        long prevTs = 0;
        for (int r = 0; r < n; r++) {
            int off = r * 20;
            long ts = Integer.toUnsignedLong(b.getInt(off));
            assertTrue(ts >= prevTs, "timestamps are non-decreasing");
            assertTrue(ts >= 893_980_800L);
            prevTs = ts;
            assertTrue(Integer.toUnsignedLong(b.getInt(off + 4)) <= 2_770_107L);
            assertTrue(Integer.toUnsignedLong(b.getInt(off + 8)) <= 89_996L);
            long size = Integer.toUnsignedLong(b.getInt(off + 12));
            noSize += size == 0xFFFFFFFFL ? 1 : 0;
            assertTrue(size == 0xFFFFFFFFL || size <= 64_219_310L);
            assertEquals(0, b.get(off + 16), "GET");
            int status = b.get(off + 17) & 0xFF;
            s200 += (status & 0x3F) == 2 ? 1 : 0;
            http11 += status >>> 6 == 2 ? 1 : 0;
            type[b.get(off + 18) & 0xF]++;
            int server = b.get(off + 19) & 0xFF;
            region[server >>> 5]++;
            int[] servers = {6, 11, 10, 6};
            assertTrue((server & 31) < servers[server >>> 5], "servers in use only");
        }
        // Published shares (worldcup98-facts.md); 200k draws put each within about 0.3 points.
        assertEquals(16.60, 100.0 * region[0] / n, 0.5);
        assertEquals(44.50, 100.0 * region[1] / n, 0.5);
        assertEquals(25.91, 100.0 * region[2] / n, 0.5);
        assertEquals(12.99, 100.0 * region[3] / n, 0.5);
        assertEquals(86.3, 100.0 * type[1] / n, 0.5);
        assertEquals(11.2, 100.0 * type[0] / n, 0.5);
        assertEquals(84.4, 100.0 * s200 / n, 0.5);
        assertEquals(10.5, 100.0 * http11 / n, 0.5);
        assertEquals(2.4, 100.0 * noSize / n, 0.3);
    }

    @Test
    void clfLinesRenderTheSameRecords() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Wc98Generator(5, Wc98Generator.Mix.REALISTIC).writeClf(out, 2000, null);
        String[] lines = out.toString(StandardCharsets.US_ASCII).split("\n");
        assertEquals(2000, lines.length);
        Pattern clf = Pattern.compile("\\d+ - - \\[\\d\\d/[A-Z][a-z]{2}/1998:\\d\\d:\\d\\d:\\d\\d \\+0000] "
                + "\"GET /[a-z-]+/\\d+(\\.[a-z]+|/) HTTP/1\\.[01]\" (200|304|206) (\\d+|-)");
        byte[] rec = gen(5, 2000, 20, Wc98Generator.Mix.REALISTIC);
        for (int i = 0; i < lines.length; i++) {
            assertTrue(clf.matcher(lines[i]).matches(), lines[i]);
            ByteBuffer b = ByteBuffer.wrap(rec, i * 20, 20);
            assertTrue(lines[i].startsWith(Integer.toUnsignedLong(b.getInt(i * 20 + 4)) + " - - "), lines[i]);
            boolean image = rec[i * 20 + 18] == 1;
            assertEquals(image, lines[i].contains("/images/"), lines[i]);
        }
        assertTrue(lines[0].contains("[01/May/1998:00:00:0"), lines[0]);
    }

    @Test
    void referenceDecoderRejectsATornRecord() {
        InputStream in = new ByteArrayInputStream(new byte[50]);
        assertEquals("the data ends inside a record: 50 bytes is not a multiple of entry bytes 20",
                org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                        () -> Wc98Reference.count(in, 20)).getMessage());
    }

    /** wc98.py (Python, written separately) and the Java decoder answer the same on the same bytes, both ways. */
    @Test
    void pythonAndJavaDecodersAgree() throws Exception {
        assumeTrue(TestData.havePython(), "python3 and native/tests/wc98.py");
        Path dir = TestData.tmpDir("decoders");
        for (int entry : new int[] {20, 32, 128}) {
            Path javaMade = TestData.generate(dir, "j" + entry + ".bin", 30_000, entry, entry,
                    entry == 32 ? Wc98Generator.Mix.UNIFORM : Wc98Generator.Mix.REALISTIC);
            Path pyMade = dir.resolve("p" + entry + ".bin");
            TestData.wc98("gen", pyMade.toString(), "--records", "30000", "--entry-bytes", "" + entry, "--seed", "3",
                    "--mix", entry == 32 ? "uniform" : "realistic");
            for (Path p : new Path[] {javaMade, pyMade}) {
                for (WeblogQuery q : WeblogQuery.values()) {
                    String py = TestData.wc98(q.shortName(), p.toString(), "--entry-bytes", "" + entry);
                    try (InputStream in = Files.newInputStream(p)) {
                        assertEquals(py, Wc98Reference.answer(in, entry, q, 3).text(), p + " " + q);
                    }
                }
            }
        }
    }
}
