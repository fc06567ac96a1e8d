package io.smartssd.device;

import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** The Fig. 5 command sequence as one object: rows, counts, and no device objects left behind. */
class TaskletRunTest {
    @TempDir
    Path dir;

    @Test
    void runsAndDeletesItsObjects() {
        try (SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "run.img"))) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 5000; i++) {
                text.append(i % 3 == 0 ? "GET /images/a.gif\n" : "GET /index.html\n");
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
            long obj = put(ssd, "log", bytes);
            long tasklet;
            long output;
            try (TaskletRun run = TaskletRun.start(ssd, TaskletRun.Spec.of("grep", Map.of("pattern", "/images/")),
                    Extent.whole(obj), PollingPolicy.DEFAULT, null)) {
                tasklet = run.taskletId();
                output = run.outputId();
                assertTrue(run.hasNext());
                assertEquals(1667, run.next().getValues(0).getI());   // lines i % 3 == 0 of 0..4999
                assertTrue(!run.hasNext());
                assertEquals(bytes.length / 4096 + 1, run.progress().pagesDone());
                assertTrue(run.commands() >= 4, "create x2, execute, >= 1 poll");
            }
            assertGone(ssd, tasklet);
            assertGone(ssd, output);
        }
    }

    @Test
    void aFailedStartLeavesNothingBehind() {
        try (SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "fail.img"))) {
            long obj = put(ssd, "odd", new byte[100]);
            long before = ssd.stats().counters().getOrDefault("commands.delete_object", 0L);
            // 100 bytes are not whole 32-byte records: execute_object fails after both creates succeeded.
            DeviceException e = assertThrows(DeviceException.class, () -> TaskletRun.start(ssd,
                    new TaskletRun.Spec("weblog-q1", Map.of("entry_bytes", "32"), null, Map.of(), List.of(), 0),
                    Extent.whole(obj), null, null));
            assertEquals(DeviceException.Code.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("entry_bytes"), e.getMessage());
            long after = ssd.stats().counters().getOrDefault("commands.delete_object", 0L);
            assertEquals(before + 2, after, "the output and the tasklet were deleted again");
        }
    }

    /** Closed before its rows are all read: the run is cancelled and both objects are deleted. */
    @Test
    void closingEarlyDeletesBothObjects() {
        try (SmartSsd ssd = SmartSsd.openEmbedded(TestDevices.tinyImage(dir, "early.img"))) {
            long obj = put(ssd, "log", "GET /images/a.gif\n".repeat(20_000).getBytes(StandardCharsets.US_ASCII));
            long tasklet;
            long output;
            long deletes = ssd.stats().counters().getOrDefault("commands.delete_object", 0L);
            try (TaskletRun run = TaskletRun.start(ssd, new TaskletRun.Spec("grep", Map.of("pattern", "/images/",
                    "mode", "lines"), null, Map.of(), List.of(), 0), Extent.whole(obj), PollingPolicy.DEFAULT, null)) {
                tasklet = run.taskletId();
                output = run.outputId();
                assertTrue(run.hasNext());
                run.next();
            }
            assertGone(ssd, tasklet);
            assertGone(ssd, output);
            assertEquals(deletes + 2, ssd.stats().counters().get("commands.delete_object"));
        }
    }

    /**
     * The example in docs/JAVA-API.md ("One tasklet run"), compiled as it stands there and run on a
     * device: it prints the same counts as Java computes from the bytes, and leaves no object behind.
     */
    @Test
    void theDocumentedExampleRuns() throws Exception {
        Path doc = Path.of(System.getProperty("smartssd.test.docs", "../docs"), "JAVA-API.md");
        String snippet = javaBlockAfter(Files.readString(doc), "## One tasklet run: `TaskletRun`");
        Path src = dir.resolve("src/DocExample.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, String.join("\n",
                "import io.smartssd.device.*;",
                "import io.smartssd.proto.Row;",
                "import java.util.*;",
                "public class DocExample {",
                "  public static void run(SmartSsd ssd, long logs) {",
                snippet,
                "  }",
                "}"));
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diag = new ByteArrayOutputStream();
        int rc = javac.run(null, diag, diag, "-cp", System.getProperty("java.class.path"), "-d", classes.toString(),
                src.toString());
        assertEquals(0, rc, "the documented example does not compile:\n" + diag + "\n" + snippet);

        Path image = dir.resolve("doc.img");
        SmartSsd.format(image, 64L << 20, "tiny");
        byte[] data = Wc98.generate(1_100_000, 20, 5);
        try (SmartSsd ssd = SmartSsd.openEmbedded(image);
             URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                     TaskletRunTest.class.getClassLoader())) {
            long logs = put(ssd, "wc98.bin", data);
            Map<String, Long> before = ssd.stats().counters();
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            PrintStream stdout = System.out;
            PrintStream stderr = System.err;
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(OutputStream.nullOutputStream()));
            try {
                loader.loadClass("DocExample").getMethod("run", SmartSsd.class, long.class).invoke(null, ssd, logs);
            } finally {
                System.setOut(stdout);
                System.setErr(stderr);
            }
            String out = printed.toString(StandardCharsets.UTF_8);
            assertTrue(out.startsWith(Wc98.q1(data, 20, 0, 20L * 1_000_000) + " in "), out);
            assertTrue(out.endsWith(" commands\n"), out);
            Map<String, Long> after = ssd.stats().counters();
            assertEquals(2, after.get("commands.create_object") - before.getOrDefault("commands.create_object", 0L));
            assertEquals(2, after.get("commands.delete_object") - before.getOrDefault("commands.delete_object", 0L));
        }
    }

    /** The body of the first ```java block after a heading. */
    static String javaBlockAfter(String markdown, String heading) {
        int h = markdown.indexOf("\n" + heading + "\n");
        assertTrue(h >= 0, "no heading " + heading);
        int start = markdown.indexOf("```java\n", h);
        int end = markdown.indexOf("\n```", start + 8);
        assertTrue(start > 0 && end > start, "no java block after " + heading);
        return markdown.substring(start + 8, end);
    }

    private static void assertGone(SmartSsd ssd, long id) {
        DeviceException e = assertThrows(DeviceException.class, () -> ssd.stat(id));
        assertEquals(DeviceException.Code.NOT_FOUND, e.code());
    }
}
