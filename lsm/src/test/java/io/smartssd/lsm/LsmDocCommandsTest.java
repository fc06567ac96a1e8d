package io.smartssd.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/LSM.md's command block, run as written in a fresh directory: {@code bin/smartssd lsm} as the
 * launcher runs it (LsmCli in its own JVM), {@code bin/smartssd csd} as the native CLI. What the lines
 * print agrees with itself: check's live files are the replay's and are the objects csd ls lists.
 */
@Timeout(300)
class LsmDocCommandsTest {
    static final Path REPO = Path.of(System.getProperty("smartssd.repo", ".."));
    static final Path CSD = Path.of(System.getProperty("smartssd.test.csd", "../native/target/build/csd"));
    @TempDir
    Path dir;

    static List<String> block(String marker) throws IOException {
        String text = Files.readString(REPO.resolve("docs/LSM.md"));
        int at = text.indexOf(marker);
        assertTrue(at >= 0, "docs/LSM.md no longer holds '" + marker + "'");
        int open = text.indexOf("\n```", at);
        int close = text.indexOf("\n```", open + 4);
        List<String> lines = new ArrayList<>();
        for (String l : text.substring(text.indexOf('\n', open + 1) + 1, close).split("\n")) {
            if (l.startsWith("bin/smartssd ")) {
                lines.add(l.strip());
            }
        }
        return lines;
    }

    String run(String line) throws Exception {
        List<String> words = new ArrayList<>(Arrays.asList(line.split("\\s+")));
        List<String> cmd = new ArrayList<>();
        if (words.get(1).equals("lsm")) {
            cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), "io.smartssd.lsm.LsmCli"));
        } else {
            assertEquals("csd", words.get(1), line);
            cmd.add(CSD.toAbsolutePath().toString());
        }
        cmd.addAll(words.subList(2, words.size()));
        Path outFile = dir.resolve("stdout.txt");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(outFile.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), line);
        String out = Files.readString(outFile, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), line + "\n" + out);
        return out;
    }

    @Test
    void theCommandLineBlockRunsAsWritten() throws Exception {
        List<String> lines = block("## From the command line");
        assertEquals(6, lines.size(), lines.toString());
        String workloads = run(lines.get(0));
        for (Workload w : Workload.values()) {
            assertTrue(workloads.contains(w.cliName()) && workloads.contains(w.paperName()), workloads);
        }
        String rec = run(lines.get(1));
        assertTrue(rec.contains("20000 writes") && rec.contains("trace events in out/zipf.trace"), rec);
        assertTrue(Files.size(dir.resolve("out/zipf.trace")) > 0);
        Matcher m = Pattern.compile("(\\d+) creates, (\\d+) deletes, (\\d+) lookups, (\\d+) files live at the end")
                .matcher(run(lines.get(2)));
        assertTrue(m.find());
        long live = Long.parseLong(m.group(4));
        assertEquals(Long.parseLong(m.group(1)) - Long.parseLong(m.group(2)), live);
        run(lines.get(3));
        String replay = run(lines.get(4));
        assertTrue(replay.contains("; " + live + " files live") && replay.contains("placement stripe"), replay);
        String ls = run(lines.get(5));
        assertEquals(live, ls.lines().filter(l -> l.contains(" lsm/") && l.endsWith(".sst")).count(), ls);
    }
}
