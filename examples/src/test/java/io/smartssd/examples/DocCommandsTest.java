package io.smartssd.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.examples.weblog.RunResult;
import io.smartssd.examples.weblog.Version;
import io.smartssd.examples.weblog.Wc98Reference;
import io.smartssd.examples.weblog.WeblogAnswer;
import io.smartssd.examples.weblog.WeblogQuery;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

/**
 * The command lines the README and the docs show for the web-log and Hadoop examples, taken from the
 * files themselves and run as written, in order, in a fresh working directory; every answer is checked
 * against the plain decoder ({@link Wc98Reference}) or {@code String.contains}. {@code bin/smartssd X}
 * runs here what the launcher runs for X ({@code weblog}: WeblogCli; {@code hadoop weblog-q1|grep}: the
 * ToolRunner tools; {@code csd}: the native CLI), each in its own process: the launcher itself would first
 * build the examples jar, which does not exist yet while this module's tests run.
 */
class DocCommandsTest {
    private static final Path REPO = Path.of(System.getProperty("smartssd.repo", ".."));

    record Run(List<String> line, int rc, String out, String err) {
    }

    /** README: the web-log lines of the block that generates a local file and queries it. */
    @Test
    void readmeWeblogExample() throws Exception {
        List<String> lines = block("README.md", "bin/smartssd weblog gen --output out/", l -> l.startsWith("bin/smartssd weblog"));
        assertTrue(lines.stream().anyMatch(l -> l.contains("--version device") && l.contains("--input out/")),
                "the README's device example on a local file: " + lines);
        runAll(lines);
    }

    /** docs/WEBLOG.md, "Your own data": local files and a device image, every version. */
    @Test
    void weblogOwnData() throws Exception {
        List<String> lines = block("docs/WEBLOG.md", "Your own data:", l -> true);
        assertTrue(lines.stream().anyMatch(l -> l.contains("--version spark-device") && l.contains("--input out/")),
                "spark-device on a local file: " + lines);
        runAll(lines);
    }

    /** docs/PERFORMANCE.md, the web-log section: the fixed cost of one job, measured with --repeat. */
    @Test
    void performanceJobCost() throws Exception {
        List<String> lines = block("docs/PERFORMANCE.md", "bin/smartssd weblog gen --output out/small.bin", l -> true);
        assertTrue(lines.stream().anyMatch(l -> l.contains("--version device") && l.contains("--repeat")),
                "the device version repeated: " + lines);
        runAll(lines);
    }

    /** docs/HADOOP.md, "Tools": the ToolRunner tools on a device image. */
    @Test
    void hadoopTools() throws Exception {
        List<String> lines = block("docs/HADOOP.md", "### Tools", l -> true);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("bin/smartssd hadoop weblog-q1 -D")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("bin/smartssd hadoop grep -D")), lines.toString());
        runAll(lines);
    }

    /** docs/OFFLOAD.md: the device version under --offload auto and host; the plan is printed split by split. */
    @Test
    void offloadExample() throws Exception {
        List<String> lines = block("docs/OFFLOAD.md", "bin/smartssd weblog gen --output out/offload.bin", l -> true);
        assertTrue(lines.stream().anyMatch(l -> l.contains("--offload auto")), lines.toString());
        Path cwd = Files.createTempDirectory(tmpBase(), "doc");
        for (String line : lines) {
            Run r = run(cwd, line);
            assertEquals(0, r.rc(), line + "\nstdout: " + r.out() + "\nstderr: " + r.err());
            check(cwd, r);
            String mode = opt(r.line(), "--offload", null);
            if (mode != null) {
                assertTrue(r.err().contains("offload " + mode + " (makespan): "), line + ": " + r.err());
                assertTrue(r.err().lines().anyMatch(l -> l.matches("  split 0 \\(local, \\d+ B\\): planned \\w+, ran \\w+;.*")),
                        line + ": " + r.err());
            }
        }
    }

    // ------------------------------------------------------------------ reading the docs

    /** The lines of the first fenced block at or after the first occurrence of marker. */
    static List<String> block(String file, String marker, Predicate<String> keep) throws IOException {
        String text = Files.readString(REPO.resolve(file));
        int at = text.indexOf(marker);
        assertTrue(at >= 0, file + " no longer holds '" + marker + "'");
        // inside a block when an odd number of fences precede the marker: that block, else the next one
        int fences = 0;
        int lastFence = -1;
        for (int i = text.indexOf("\n```"); i >= 0 && i < at; i = text.indexOf("\n```", i + 1)) {
            fences++;
            lastFence = i;
        }
        int open = fences % 2 == 1 ? lastFence : text.indexOf("\n```", at);
        int start = text.indexOf('\n', open + 1) + 1;
        int end = text.indexOf("\n```", start);
        List<String> lines = new ArrayList<>();
        for (String l : text.substring(start, end).split("\n")) {
            String cmd = l.replaceAll("\\s+#.*$", "").strip();
            if (!cmd.isEmpty() && keep.test(cmd)) {
                lines.add(cmd);
            }
        }
        assertFalse(lines.isEmpty(), file + ": no commands after '" + marker + "'");
        return lines;
    }

    // ------------------------------------------------------------------ running them

    private void runAll(List<String> lines) throws Exception {
        Path cwd = Files.createTempDirectory(tmpBase(), "doc");
        for (String line : lines) {
            Run r = run(cwd, line);
            assertEquals(0, r.rc(), line + "\nstdout: " + r.out() + "\nstderr: " + r.err());
            check(cwd, r);
        }
    }

    private static Path tmpBase() throws IOException {
        Path base = Path.of(System.getProperty("smartssd.test.tmp", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        return base;
    }

    static Run run(Path cwd, String line) throws Exception {
        assertFalse(line.contains("\"") || line.contains("'") || line.contains("\\"), "no quoting here: " + line);
        List<String> words = new ArrayList<>(Arrays.asList(line.replace("$PWD", cwd.toString()).split("\\s+")));
        assertEquals("bin/smartssd", words.remove(0), line);
        List<String> cmd = new ArrayList<>();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> jvm = List.of(java, "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-cp",
                System.getProperty("java.class.path"));
        switch (words.get(0)) {
            case "weblog" -> {
                cmd.addAll(jvm);
                cmd.add("io.smartssd.examples.weblog.WeblogCli");
                cmd.addAll(words);
            }
            case "csd" -> {
                cmd.add(System.getProperty("smartssd.test.csd", "../native/target/build/csd"));
                cmd.addAll(words.subList(1, words.size()));
            }
            case "hadoop" -> {
                cmd.addAll(jvm);
                cmd.add(switch (words.get(1)) {
                    case "weblog-q1" -> "io.smartssd.examples.hadoop.WeblogQ1";
                    case "grep" -> "io.smartssd.examples.hadoop.Grep";
                    default -> throw new AssertionError("bin/smartssd hadoop " + words.get(1) + ": not run here: " + line);
                });
                cmd.addAll(words.subList(2, words.size()));
            }
            default -> throw new AssertionError("bin/smartssd " + words.get(0) + ": not run here: " + line);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        Path out = Files.createTempFile(cwd, ".out", "");
        Path err = Files.createTempFile(cwd, ".err", "");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(line + ": did not finish in 5 minutes");
        }
        Run r = new Run(List.of(line.replace("$PWD", cwd.toString()).split("\\s+")), p.exitValue(), Files.readString(out),
                Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    // ------------------------------------------------------------------ checking what they printed

    private static String opt(List<String> w, String name, String def) {
        int i = w.indexOf(name);
        return i >= 0 && i + 1 < w.size() ? w.get(i + 1) : def;
    }

    private static void check(Path cwd, Run r) throws Exception {
        List<String> w = r.line();
        String line = String.join(" ", w);
        if (w.contains("--help")) {
            assertTrue(r.out().startsWith("Usage: "), line + ": " + r.out());
        } else if (w.get(1).equals("weblog") && w.contains("--query")) {
            WeblogQuery q = WeblogQuery.parse(opt(w, "--query", null));
            int entry = Integer.parseInt(opt(w, "--entry-bytes", null));
            int topN = Integer.parseInt(opt(w, "--top-n", "3"));
            long[][] counts;
            try (Source s = open(cwd, opt(w, "--input", null), opt(w, "--image", null), null)) {
                counts = Wc98Reference.count(s.in(), entry);
            }
            WeblogAnswer expected = WeblogAnswer.of(q, counts, topN);
            if (w.contains("--json")) {
                String json = new RunResult(Version.parse(opt(w, "--version", null)), q, entry, 0, expected, 0, 0, 0, 0)
                        .toJson();
                assertTrue(r.out().contains(json.substring(json.indexOf("\"answer\":"))), line + ": " + r.out());
            } else {
                assertEquals(expected.text(), r.out(), line);
            }
        } else if (w.get(1).equals("hadoop")) {
            List<String> args = new ArrayList<>();
            String image = null;
            for (int i = 3; i < w.size(); i++) {
                if (w.get(i).equals("-D")) {
                    String kv = w.get(++i);
                    image = kv.substring(kv.indexOf('=') + 1);
                } else {
                    args.add(w.get(i));
                }
            }
            Map<String, Long> got = partFiles(cwd.resolve(args.get(1)));
            try (Source s = open(cwd, args.get(0), null, image)) {
                if (w.get(2).equals("weblog-q1")) {
                    long[][] counts = Wc98Reference.count(s.in(), Integer.parseInt(args.size() > 2 ? args.get(2) : "20"));
                    Map<String, Long> want = new TreeMap<>();
                    for (String l : WeblogAnswer.of(WeblogQuery.Q1, counts, 3).lines()) {
                        String[] f = l.split("\t");
                        want.put(f[0], Long.parseLong(f[1]));
                    }
                    assertEquals(want, got, line);
                } else {
                    String text = new String(s.in().readAllBytes(), StandardCharsets.US_ASCII);
                    long want = text.lines().filter(l -> l.contains(args.get(2))).count();
                    assertTrue(want > 0, line);
                    assertEquals(Map.of("", want), got, line);
                }
            }
        }
    }

    /** A local file (relative to cwd) or a smartssd:// object on the image given (relative to cwd). */
    record Source(InputStream in, FileSystem fs) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            in.close();
            if (fs != null) {
                fs.close();   // frees the image for the next command
            }
        }
    }

    private static Source open(Path cwd, String input, String image, String imageAbsolute) throws IOException {
        if (!input.startsWith("smartssd://")) {
            return new Source(Files.newInputStream(cwd.resolve(input)), null);
        }
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(input);
        Configuration conf = new Configuration();
        conf.setBoolean("fs.smartssd.impl.disable.cache", true);
        String img = imageAbsolute != null ? imageAbsolute : cwd.resolve(image).toString();
        conf.set("fs.smartssd.device." + p.toUri().getAuthority() + ".image", img);
        FileSystem fs = p.getFileSystem(conf);
        return new Source(fs.open(p), fs);
    }

    private static Map<String, Long> partFiles(Path dir) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        try (var s = Files.list(dir)) {
            for (Path p : s.filter(x -> x.getFileName().toString().startsWith("part-")).toList()) {
                for (String l : Files.readAllLines(p)) {
                    int tab = l.lastIndexOf('\t');
                    m.merge(l.substring(0, tab), Long.parseLong(l.substring(tab + 1)), Long::sum);
                }
            }
        }
        return m;
    }
}
