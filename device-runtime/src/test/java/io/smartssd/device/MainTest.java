package io.smartssd.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's diagnostic command line: help everywhere, usage errors exit 2, device failures 1. */
class MainTest {
    @TempDir
    Path dir;

    record Run(int rc, String out, String err) {
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = Main.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpOnEveryCommand() {
        for (List<String> cmd : List.of(List.of("--help"), List.of("version", "--help"), List.of("format", "--help"),
                List.of("identify", "-h"))) {
            Run r = run(cmd.toArray(new String[0]));
            assertEquals(0, r.rc(), cmd + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: device-runtime"), cmd + ": " + r.out());
        }
        for (String[] v : new String[][] {{}, {"version"}, {"--version"}}) {
            Run r = run(v);
            assertEquals(0, r.rc(), r.err());
            assertTrue(r.out().startsWith("smartssd native " + SmartSsd.nativeVersion() + " (loaded from "), r.out());
        }
    }

    @Test
    void usageErrorsExitTwo() {
        Run r = run("format", "x.img");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("Missing required parameter: 'CAPACITY'"), r.err());
        assertTrue(r.err().contains("Usage: device-runtime format"), r.err());
        r = run("format", "x.img", "lots");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("'lots' is not a long"), r.err());
        r = run("frobnicate");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("Unmatched argument"), r.err());
    }

    @Test
    void formatIdentifyAndAFailure() {
        Path image = dir.resolve("m.img");
        Run r = run("format", image.toString(), "8388608", "tiny", "--param", "cores=3");
        assertEquals(0, r.rc(), r.err());
        assertEquals("formatted " + image + "\n", r.out());
        r = run("identify", image.toString());
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().contains("preset=tiny") && r.out().contains("capacity=8388608") && r.out().contains("cores=3"),
                r.out());
        r = run("identify", dir.resolve("none.img").toString());
        assertEquals(1, r.rc());
        assertTrue(r.err().startsWith("identify: NOT_FOUND"), r.err());
        assertTrue(r.err().contains("none.img"), r.err());
    }
}
