package io.smartssd.hadoop.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** `hadoop fs` against smartssd://: FsShell finds the FileSystem through META-INF/services. */
class FsShellTest {
    static Configuration conf;
    static FileSystem fs;

    @BeforeAll
    static void setUp() throws Exception {
        conf = TestImages.conf("shell", TestImages.fresh("shell"));
        fs = FileSystem.get(URI.create("smartssd://shell/"), conf);
    }

    @AfterAll
    static void tearDown() throws Exception {
        fs.close();
    }

    private record Run(int rc, String out, String err) {
    }

    private static Run shell(String... args) throws Exception {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            rc = ToolRunner.run(new FsShell(conf), args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void putLsCatMvRm() throws Exception {
        Path local = Files.createTempFile(TestImages.dir(), "shell", ".txt");
        byte[] body = "first line\nsecond line\n".repeat(5000).getBytes(StandardCharsets.UTF_8);
        Files.write(local, body);

        assertEquals(0, shell("-mkdir", "-p", "smartssd://shell/data/in").rc());
        assertEquals(0, shell("-put", local.toString(), "smartssd://shell/data/in/a.txt").rc());
        assertArrayEquals(body, fs.open(new org.apache.hadoop.fs.Path("/data/in/a.txt")).readAllBytes());

        Run ls = shell("-ls", "smartssd://shell/data/in");
        assertEquals(0, ls.rc(), ls.err());
        assertTrue(ls.out().contains("Found 1 items"), ls.out());
        assertTrue(ls.out().contains(" " + body.length + " "), ls.out());
        assertTrue(ls.out().contains("smartssd://shell/data/in/a.txt"), ls.out());

        Run cat = shell("-cat", "smartssd://shell/data/in/a.txt");
        assertEquals(0, cat.rc());
        assertEquals(new String(body, StandardCharsets.UTF_8), cat.out());

        assertEquals(0, shell("-mv", "smartssd://shell/data/in/a.txt", "smartssd://shell/data/b.txt").rc());
        assertFalse(fs.exists(new org.apache.hadoop.fs.Path("/data/in/a.txt")));
        assertEquals(body.length, fs.getFileStatus(new org.apache.hadoop.fs.Path("/data/b.txt")).getLen());
        Run lsr = shell("-ls", "-R", "smartssd://shell/data");
        assertTrue(lsr.out().contains("smartssd://shell/data/in") && lsr.out().contains("/data/b.txt"), lsr.out());

        assertEquals(0, shell("-rm", "smartssd://shell/data/b.txt").rc());
        assertFalse(fs.exists(new org.apache.hadoop.fs.Path("/data/b.txt")));
        Run missing = shell("-cat", "smartssd://shell/data/b.txt");
        assertNotEquals(0, missing.rc());
        assertTrue(missing.err().contains("No such file or directory") || missing.err().contains("no such file"),
                missing.err());
        assertEquals(0, shell("-rm", "-r", "smartssd://shell/data").rc());
        assertFalse(fs.exists(new org.apache.hadoop.fs.Path("/data")));
    }

    /** Times as `hadoop fs` shows and sets them: stored on the device, not 1970. */
    @Test
    void timesAreKeptAndSet() throws Exception {
        Path local = Files.createTempFile(TestImages.dir(), "times", ".txt");
        Files.writeString(local, "x\n");
        assertEquals(0, shell("-mkdir", "-p", "smartssd://shell/times").rc());
        long before = System.currentTimeMillis();
        assertEquals(0, shell("-put", local.toString(), "smartssd://shell/times/a.txt").rc());
        assertEquals(0, shell("-put", local.toString(), "smartssd://shell/times/b.txt").rc());
        long after = System.currentTimeMillis();
        org.apache.hadoop.fs.Path a = new org.apache.hadoop.fs.Path("/times/a.txt");
        org.apache.hadoop.fs.Path b = new org.apache.hadoop.fs.Path("/times/b.txt");
        long mtime = fs.getFileStatus(a).getModificationTime();
        assertTrue(mtime >= before && mtime <= after, mtime + " not in " + before + ".." + after);
        Run ls = shell("-ls", "smartssd://shell/times");
        assertFalse(ls.out().contains("1970-01-01"), ls.out());
        assertEquals(mtime + "\n", shell("-stat", "%Y", "smartssd://shell/times/a.txt").out());

        // -ls -t sorts newest first: move a ahead of b, then behind it
        fs.setTimes(a, 2_000_000_000_000L, -1);
        fs.setTimes(b, 1_000_000_000_000L, -1);
        String byTime = shell("-ls", "-t", "smartssd://shell/times").out();
        assertTrue(byTime.indexOf("a.txt") < byTime.indexOf("b.txt"), byTime);
        fs.setTimes(a, 500_000_000_000L, 1_234L);
        byTime = shell("-ls", "-t", "smartssd://shell/times").out();
        assertTrue(byTime.indexOf("b.txt") < byTime.indexOf("a.txt"), byTime);
        assertEquals(500_000_000_000L, fs.getFileStatus(a).getModificationTime());
        assertEquals(1_234L, fs.getFileStatus(a).getAccessTime());
        fs.setTimes(a, -1, -1);                       // nothing to change
        assertEquals(500_000_000_000L, fs.getFileStatus(a).getModificationTime());

        // touch -m: now
        long t0 = System.currentTimeMillis();
        assertEquals(0, shell("-touch", "-m", "smartssd://shell/times/b.txt").rc());
        long touched = fs.getFileStatus(b).getModificationTime();
        assertTrue(touched >= t0 && touched <= System.currentTimeMillis(), Long.toString(touched));

        // a directory implied by its children (an object put on the device directly, no marker) gets a
        // marker to hold its times
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/times/implied");
        ((SmartSsdFileSystem) fs).device().createData("times/implied/c.txt");
        assertEquals(0L, fs.getFileStatus(dir).getModificationTime());
        fs.setTimes(dir, 777_000L, -1);
        assertEquals(777_000L, fs.getFileStatus(dir).getModificationTime());
        assertTrue(java.util.Arrays.stream(fs.listStatus(new org.apache.hadoop.fs.Path("/times")))
                .anyMatch(st -> st.getPath().getName().equals("implied") && st.getModificationTime() == 777_000L));
        assertEquals(1, fs.listStatus(dir).length);   // the marker is not a child

        Run missing = shell("-touch", "-m", "-c", "smartssd://shell/times/none.txt");
        assertEquals(0, missing.rc());                // -c: no file made
        assertFalse(fs.exists(new org.apache.hadoop.fs.Path("/times/none.txt")));
        assertEquals(0, shell("-rm", "-r", "smartssd://shell/times").rc());
    }

    private static long counter(String name) {
        return ((org.apache.hadoop.fs.statistics.IOStatisticsSource) fs).getIOStatistics().counters().get(name);
    }

    @Test
    void ioStatisticsCountBytesOverTheLink() throws Exception {
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path("/stats/x.bin");
        byte[] data = new byte[300_000];
        new java.util.Random(5).nextBytes(data);
        long before = counter(Statistic.BYTES_TO_HOST.symbol());
        long wBefore = counter(Statistic.BYTES_FROM_HOST.symbol());
        try (var out = fs.create(p, true)) {
            out.write(data);
        }
        try (var in = fs.open(p)) {
            assertArrayEquals(data, in.readAllBytes());
        }
        assertEquals(data.length, counter(Statistic.BYTES_FROM_HOST.symbol()) - wBefore);
        assertEquals(data.length, counter(Statistic.BYTES_TO_HOST.symbol()) - before);
        assertTrue(counter(Statistic.DEVICE_COMMANDS.symbol()) > 3);
    }
}
