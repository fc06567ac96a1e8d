package io.smartssd.examples.weblog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java command lines behind bin/smartssd, as a user meets them: --help on every command, usage
 * errors with exit code 2, a completion script, and the README's web-log example on a local file
 * (loaded onto an embedded device for the device versions) answering as the decoder does.
 */
class WeblogCliTest {
    record Run(int rc, String out, String err) {
    }

    static Run run(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int rc = WeblogCli.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute(argv);
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpOnEveryCommand() {
        List<List<String>> commands = List.of(List.of(), List.of("weblog"), List.of("weblog", "gen"), List.of("grep"),
                List.of("sweep"), List.of("completion"));
        for (List<String> cmd : commands) {
            List<String> withHelp = new java.util.ArrayList<>(cmd);
            withHelp.add("--help");
            String[] argv = withHelp.toArray(new String[0]);
            Run r = run(argv);
            assertEquals(0, r.rc(), String.join(" ", argv) + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: smartssd"), String.join(" ", argv) + " printed " + r.out());
        }
        assertTrue(run("--version").out().startsWith("smartssd "));
    }

    @Test
    void usageErrorsExitTwo() {
        Run r = run("weblog", "gen", "--output", "x", "--bogus");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("--bogus"), r.err());
        r = run("weblog", "--input", "x.bin");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("Missing required options: --entry-bytes, --query, --version"), r.err());
        r = run("weblog", "gen", "--output", "x", "--size", "lots");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("'lots' is not a size"), r.err());
        r = run("weblog", "gen", "--output", "x", "--format", "xml", "--records", "1");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("binary or clf"), r.err());
        r = run("weblog", "--input", "/no/such/file.bin", "--entry-bytes", "20", "--query", "q1", "--version",
                "device");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("no such file"), r.err());
        r = run("weblog", "--input", "x.bin", "--entry-bytes", "20", "--query", "q1", "--version", "device",
                "--offload", "maybe");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("--offload = 'maybe': not an offload mode; give device, host or auto"), r.err());
        r = run("weblog", "--input", "x.bin", "--entry-bytes", "20", "--query", "q1", "--version", "host-optimized",
                "--offload", "auto");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("only the device version is planned split by split"), r.err());
        r = run("weblog", "--input", "x.bin", "--entry-bytes", "20", "--query", "q1", "--version", "host-normal",
                "--tenants", "2");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("--tenants 2: 0 or more, with --version device"), r.err());
        r = run("grep", "--tasklet", "agrep", "--image", "x.img");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("--tasklet must be grep or grep2"), r.err());
        r = run("frobnicate");
        assertEquals(2, r.rc());
        r = run("demo");   // the launcher's own commands are listed, not run here
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("bin/smartssd demo"), r.err());
    }

    @Test
    void completionScript() throws Exception {
        Run r = run("completion");
        assertEquals(0, r.rc());
        assertTrue(r.out().contains("complete -F"), "a bash completion script");
        for (String word : List.of("weblog", "grep", "demo", "csd", "bench", "--entry-bytes", "--version")) {
            assertTrue(r.out().contains(word), "completes " + word);
        }
        // bash itself, completing as a user would type: bin/smartssd weblog gen --e<TAB>, bin/smartssd hadoop <TAB>
        Path script = TestData.tmpDir("completion").resolve("smartssd.bash");
        Files.writeString(script, r.out());
        assertEquals(List.of("--entry-bytes"), complete(script, "bin/smartssd", "weblog", "gen", "--e"));
        assertEquals(List.of("fs", "weblog-q1", "grep"), complete(script, "bin/smartssd", "hadoop", ""));
        assertEquals(List.of("gen"), complete(script, "bin/smartssd", "weblog", "g"));
    }

    /** What bash's completion function offers for the last word. */
    static List<String> complete(Path script, String... words) throws Exception {
        String line = String.join(" ", words);
        StringBuilder arr = new StringBuilder();
        for (String w : words) {
            arr.append(" '").append(w).append('\'');
        }
        String prog = "source '" + script + "'; COMP_WORDS=(" + arr + "); COMP_CWORD=" + (words.length - 1)
                + "; COMP_LINE='" + line + "'; COMP_POINT=${#COMP_LINE}; _complete_smartssd 2>/dev/null;"
                + " printf '%s\\n' \"${COMPREPLY[@]}\"";
        Process p = new ProcessBuilder("bash", "-c", prog).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor());
        return out.lines().filter(l -> !l.isEmpty()).toList();
    }

    /** grep on a local CLF file: loaded onto the device, the device and host jobs count what String.contains counts. */
    @Test
    void grepOnALocalFile() throws Exception {
        Path dir = TestData.tmpDir("cli-grep");
        Path log = dir.resolve("access.log");
        Run g = run("weblog", "gen", "--format", "clf", "--output", log.toString(), "--records", "3000");
        assertEquals(0, g.rc(), g.err());
        long want = Files.readAllLines(log).stream().filter(l -> l.contains("/images/")).count();
        Run r = run("grep", "--input", log.toString(), "--pattern", "/images/", "--json");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().contains("\"version\":\"device\",\"count\":" + want + ","), r.out());
        assertTrue(r.out().contains("\"version\":\"host\",\"count\":" + want + ","), r.out());
        assertTrue(r.out().contains("\"counts_equal\":true"), r.out());
    }

    /** The README's example: generate records to a local file, then run q1 in the device version on it. */
    @Test
    void readmeExampleOnALocalFile() throws Exception {
        Path dir = TestData.tmpDir("cli");
        Path data = dir.resolve("wc98.bin");
        Run g = run("weblog", "gen", "--output", data.toString(), "--records", "20000", "--entry-bytes", "128");
        assertEquals(0, g.rc(), g.err());
        String expected;
        try (var in = Files.newInputStream(data)) {
            expected = WeblogAnswer.of(WeblogQuery.Q1, Wc98Reference.count(in, 128), WeblogAnswer.DEFAULT_TOP_N).text();
        }
        for (String version : List.of("device", "host-optimized")) {
            Run r = run("weblog", "--input", data.toString(), "--entry-bytes", "128", "--query", "q1", "--version",
                    version);
            assertEquals(0, r.rc(), version + ": " + r.err());
            assertEquals(expected, r.out(), version);
        }
        Run j = run("weblog", "--input", data.toString(), "--entry-bytes", "128", "--query", "q1", "--version",
                "device", "--json");
        assertEquals(0, j.rc(), j.err());
        assertTrue(j.out().contains("\"version\":\"device\""), j.out());
        // the scratch image is named, and gone afterwards; with --image it is kept and reused
        var named = java.util.regex.Pattern.compile("scratch device image (\\S+) ").matcher(j.err());
        assertTrue(named.find(), j.err());
        Path scratch = Path.of(named.group(1));
        assertTrue(scratch.getFileName().toString().equals("dev.img"), j.err());
        assertFalse(Files.exists(scratch) || Files.exists(scratch.getParent()), scratch + " is left behind");
        Path image = dir.resolve("kept.img");
        Run k = run("weblog", "--input", data.toString(), "--entry-bytes", "128", "--query", "q1", "--version",
                "device", "--image", image.toString());
        assertEquals(0, k.rc(), k.err());
        assertEquals(expected, k.out());
        assertTrue(Files.exists(image));
        assertFalse(k.err().contains("formatting") && run("weblog", "--input", data.toString(), "--entry-bytes",
                "128", "--query", "q1", "--version", "device", "--image", image.toString()).err().contains("formatting"));
    }

    /** --repeat N: N jobs in one JVM, the answer printed once (the decoder's), a wall time per run and their median. */
    @Test
    void repeatRunsTheJobNTimes() throws Exception {
        Path data = TestData.tmpDir("cli-repeat").resolve("wc98.bin");
        Run g = run("weblog", "gen", "--output", data.toString(), "--records", "5000", "--entry-bytes", "64");
        assertEquals(0, g.rc(), g.err());
        String expected;
        try (var in = Files.newInputStream(data)) {
            expected = WeblogAnswer.of(WeblogQuery.Q2, Wc98Reference.count(in, 64), WeblogAnswer.DEFAULT_TOP_N).text();
        }
        Run r = run("weblog", "--input", data.toString(), "--entry-bytes", "64", "--query", "q2", "--version", "device",
                "--repeat", "3");
        assertEquals(0, r.rc(), r.err());
        assertEquals(expected, r.out());
        assertEquals(3, r.err().lines().filter(l -> l.startsWith("q2 device: 320,000 bytes in ")).count(), r.err());
        assertTrue(r.err().contains("q2 device: 3 runs, wall median "), r.err());

        Run bad = run("weblog", "--input", data.toString(), "--entry-bytes", "64", "--query", "q2", "--version",
                "device", "--repeat", "0");
        assertEquals(2, bad.rc(), bad.err()); // a usage error
        assertTrue(bad.err().contains("--repeat 0: need at least 1"), bad.err());
    }
}
