package io.smartssd.examples.hadoop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.SmartSsd;
import io.smartssd.examples.weblog.Wc98;
import io.smartssd.examples.weblog.Wc98Generator;
import io.smartssd.examples.weblog.Wc98Reference;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ToolRunner tools as `bin/smartssd hadoop weblog-q1|grep` runs them (through ToolRunner, generic
 * options first): --help and --version exit 0, usage errors exit 2 with the message and the usage on
 * stderr, failures exit 1; and their answers equal counts made here from the same bytes.
 */
class HadoopToolsTest {
    static Path dir;
    static Path image;
    static byte[] records;
    static byte[] clf;

    record Run(int rc, String out, String err) {
    }

    @BeforeAll
    static void device() throws IOException {
        Path base = Path.of(System.getProperty("smartssd.test.tmp", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        dir = Files.createTempDirectory(base, "tools");
        image = dir.resolve("dev.img");
        SmartSsd.format(image, 64L << 20, "smartssd-paper");
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        new Wc98Generator(5, Wc98Generator.Mix.UNIFORM).writeBinary(b, 30_000, 32, null);
        records = b.toByteArray();
        b = new ByteArrayOutputStream();
        new Wc98Generator(6, Wc98Generator.Mix.REALISTIC).writeClf(b, 5_000, null);
        clf = b.toByteArray();
        try (SmartSsd ssd = SmartSsd.openEmbedded(image)) {
            ssd.write(ssd.createData("wc98.bin").id(), 0, java.nio.ByteBuffer.allocateDirect(records.length).put(records).flip());
            ssd.write(ssd.createData("access.log").id(), 0, java.nio.ByteBuffer.allocateDirect(clf.length).put(clf).flip());
        }
    }

    @AfterAll
    static void close() throws IOException {
        FileSystem.closeAll();
    }

    static Run run(BiFunction<PrintStream, PrintStream, Tool> tool, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Configuration conf = new Configuration();
        conf.set("mapreduce.framework.name", "local");
        conf.set("fs.defaultFS", "file:///");
        int rc = ToolRunner.run(conf, tool.apply(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)), args);
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static final BiFunction<PrintStream, PrintStream, Tool> Q1 = WeblogQ1::new;
    static final BiFunction<PrintStream, PrintStream, Tool> GREP = Grep::new;

    @Test
    void helpAndVersion() throws Exception {
        for (var t : List.of(Map.entry("weblog-q1", Q1), Map.entry("grep", GREP))) {
            Run r = run(t.getValue(), "--help");
            assertEquals(0, r.rc(), r.err());
            assertTrue(r.out().startsWith("Usage: " + t.getKey() + " "), r.out());
            assertTrue(r.out().contains("-D <property=value>"), "lists Hadoop's generic options: " + r.out());
            r = run(t.getValue(), "-D", "a=b", "-h");
            assertEquals(0, r.rc(), r.err());
            assertTrue(r.out().startsWith("Usage: " + t.getKey() + " "), r.out());
            r = run(t.getValue(), "--version");
            assertEquals(0, r.rc(), r.err());
            assertTrue(r.out().startsWith("smartssd "), r.out());
        }
    }

    @Test
    void usageErrorsExitTwo() throws Exception {
        Run r = run(Q1, "--bogus", "in", "out");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("Unknown option: '--bogus'"), r.err());
        assertTrue(r.err().contains("Usage: weblog-q1"), r.err());
        r = run(Q1, "in");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("Missing required parameter: 'OUTPUT'"), r.err());
        r = run(Q1, "in", "out", "twenty");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("'twenty' is not an int"), r.err());
        r = run(GREP, "in", "out");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("Missing required parameter: 'PATTERN'"), r.err());
        r = run(GREP, "in", "out", "");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("PATTERN must not be empty"), r.err());
        r = run(GREP, "in", "out", "p", "extra");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("Unmatched argument"), r.err());
    }

    @Test
    void failuresExitOne() throws Exception {
        String out = dir.resolve("out-missing").toUri().toString();
        Run r = run(Q1, "-D", "fs.smartssd.device.t.image=" + image, "smartssd://t/no-such.bin", out);
        assertEquals(1, r.rc());
        assertTrue(r.err().startsWith("weblog-q1: "), r.err());
        assertTrue(r.err().contains("no-such.bin"), r.err());
        // a device that refuses the job's parameter: 30,000 records of 32 bytes are not 36-byte records
        r = run(Q1, "-D", "fs.smartssd.device.t.image=" + image, "smartssd://t/wc98.bin",
                dir.resolve("out-36").toUri().toString(), "36");
        assertEquals(1, r.rc());
        assertTrue(r.err().contains("not a multiple of entry_bytes 36"), r.err());
    }

    @Test
    void weblogQ1CountsAsTheDecoderDoes() throws Exception {
        Path out = dir.resolve("out-q1");
        Run r = run(Q1, "-D", "fs.smartssd.device.t.image=" + image, "smartssd://t/wc98.bin", out.toUri().toString(),
                "32");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().contains("device time "), r.err());
        long[][] counts = Wc98Reference.count(new ByteArrayInputStream(records), 32);
        Map<String, Long> expected = new TreeMap<>();
        for (int region = 0; region < counts.length; region++) {
            long n = 0;
            for (long c : counts[region]) {
                n += c;
            }
            if (n > 0) {
                expected.put(Wc98.REGIONS.get(region), n);
            }
        }
        assertEquals(expected, output(out));
    }

    @Test
    void grepCountsAsStringContainsDoes() throws Exception {
        Path out = dir.resolve("out-grep");
        Run r = run(GREP, "-D", "fs.smartssd.device.t.image=" + image, "smartssd://t/access.log",
                out.toUri().toString(), "/images/");
        assertEquals(0, r.rc(), r.err());
        long want = new String(clf, StandardCharsets.US_ASCII).lines().filter(l -> l.contains("/images/")).count();
        assertTrue(want > 0);
        assertEquals(Map.of("", want), output(out));
    }

    /** key TAB count lines of the job's part files. */
    static Map<String, Long> output(Path dir) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        List<Path> parts = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.filter(p -> p.getFileName().toString().startsWith("part-")).forEach(parts::add);
        }
        for (Path p : parts) {
            for (String l : Files.readAllLines(p)) {
                int tab = l.lastIndexOf('\t');
                m.merge(l.substring(0, tab), Long.parseLong(l.substring(tab + 1)), Long::sum);
            }
        }
        return m;
    }
}
