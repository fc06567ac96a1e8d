package io.smartssd.device;

import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    private static void assertGone(SmartSsd ssd, long id) {
        DeviceException e = assertThrows(DeviceException.class, () -> ssd.stat(id));
        assertEquals(DeviceException.Code.NOT_FOUND, e.code());
    }
}
