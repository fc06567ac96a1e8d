package io.smartssd.device;

import static io.smartssd.device.TestDevices.direct;
import static io.smartssd.device.TestDevices.get;
import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Bad input from Java: each a clear exception, and the device keeps serving after every one (both modes). */
@ParameterizedClass
@EnumSource(Mode.class)
class BadInputTest {
    @Parameter
    Mode mode;
    @TempDir
    Path dir;
    TestDevice dev;
    SmartSsd ssd;
    long obj;
    final byte[] content = "the quick brown fox".getBytes();

    @BeforeEach
    void open() {
        dev = TestDevice.fresh(mode, dir, "bad.img");
        ssd = dev.ssd();
        obj = put(ssd, "obj", content);
    }

    @AfterEach
    void stillServing() {
        // After whatever the test threw at it, the device answers and the data is intact.
        assertArrayEquals(content, get(ssd, obj, 0, content.length));
        assertEquals("tiny", ssd.identify().preset());
        dev.close();
    }

    private static <T extends Throwable> T fails(Class<T> type, String fragment, Executable e) {
        T t = assertThrows(type, e);
        assertTrue(t.getMessage() != null && t.getMessage().contains(fragment),
                "message should mention '" + fragment + "': " + t.getMessage());
        return t;
    }

    private DeviceException device(DeviceException.Code code, Executable e) {
        DeviceException t = assertThrows(DeviceException.class, e);
        assertEquals(code, t.code(), t.getMessage());
        assertTrue(!t.deviceMessage().isEmpty(), "the device says why");
        return t;
    }

    @Test
    void negativeNumbers() {
        ByteBuffer b = ByteBuffer.allocateDirect(8);
        fails(IllegalArgumentException.class, "offset", () -> ssd.read(obj, -1, b));
        fails(IllegalArgumentException.class, "offset", () -> ssd.write(obj, -5, direct(content)));
        fails(IllegalArgumentException.class, "length", () -> ssd.trim(obj, 0, -1));
        fails(IllegalArgumentException.class, "object id", () -> ssd.read(-3, 0, b));
        fails(IllegalArgumentException.class, "maxOutputs", () -> ssd.createOutput(Map.of(), List.of(), -1));
        fails(IllegalArgumentException.class, "offset", () -> Extent.of(obj, -1, 10));
        fails(IllegalArgumentException.class, "length", () -> Extent.of(obj, 0, -10));
        fails(IllegalArgumentException.class, "limit", () -> ssd.list("", -1, ""));
        fails(IllegalArgumentException.class, "maxBytes", () -> ssd.readResults(1L << 40, -1));
    }

    @Test
    void oversizedRanges() {
        device(DeviceException.Code.OUT_OF_RANGE, () -> ssd.read(obj, content.length + 1L, ByteBuffer.allocateDirect(4)));
        device(DeviceException.Code.OUT_OF_RANGE, () -> ssd.read(obj, Long.MAX_VALUE, ByteBuffer.allocateDirect(4)));
        device(DeviceException.Code.OUT_OF_RANGE, () -> ssd.write(obj, Long.MAX_VALUE, direct(content)));
        device(DeviceException.Code.OUT_OF_RANGE, () -> ssd.trim(obj, 3, Long.MAX_VALUE));
        long t = ssd.createTasklet("weblog-q1", Map.of()).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        device(DeviceException.Code.OUT_OF_RANGE, () -> ssd.execute(t, out, Extent.of(obj, 0, 1L << 40)));
        // A name longer than the device allows.
        device(DeviceException.Code.INVALID_ARGUMENT, () -> ssd.createData("n".repeat(5000)));
        // More params than the device takes.
        Map<String, String> many = new HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            many.put("k" + i, "v");
        }
        device(DeviceException.Code.INVALID_ARGUMENT, () -> ssd.createTasklet("grep", many));
        // An inline write larger than a packet is refused before it is built.
        fails(IllegalArgumentException.class, "direct ByteBuffer", () -> ssd.write(obj, 0, new byte[64 << 20]));
        // Reading more than the object holds is fine: a short read with eof.
        ReadResult r = ssd.read(obj, 0, ByteBuffer.allocateDirect(1 << 20));
        assertEquals(content.length, r.bytes());
        assertTrue(r.eof());
    }

    @Test
    void unknownIdsAndNames() {
        ByteBuffer b = ByteBuffer.allocateDirect(8);
        device(DeviceException.Code.NOT_FOUND, () -> ssd.read(999_999, 0, b));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.write(999_999, 0, direct(content)));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.stat(999_999));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.stat("no such object"));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.delete(999_999));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.rename(999_999, "x", false));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.trim(999_999, 0, 1));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.delete((1L << 40) + 12345));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.readResults((1L << 40) + 12345, 0));
        DeviceException e = device(DeviceException.Code.NOT_FOUND, () -> ssd.createTasklet("no-such-tasklet", Map.of()));
        assertTrue(e.deviceMessage().contains("no-such-tasklet"), e.deviceMessage());
        long t = ssd.createTasklet("weblog-q1", Map.of()).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        device(DeviceException.Code.NOT_FOUND, () -> ssd.execute(t, out, Extent.whole(999_999)));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.execute(999_999, out, Extent.whole(obj)));
        device(DeviceException.Code.NOT_FOUND, () -> ssd.execute(t, 999_999, Extent.whole(obj)));
        // Ids of the wrong kind.
        device(DeviceException.Code.UNSUPPORTED, () -> ssd.read(t, 0, b));
        device(DeviceException.Code.INVALID_ARGUMENT, () -> ssd.readResults(obj, 0));
    }

    @Test
    void buffersThatAreNotDirectOrNotWritable() {
        fails(IllegalArgumentException.class, "direct", () -> ssd.read(obj, 0, ByteBuffer.allocate(8)));
        fails(IllegalArgumentException.class, "direct", () -> ssd.write(obj, 0, ByteBuffer.wrap(content)));
        fails(IllegalArgumentException.class, "writable",
                () -> ssd.read(obj, 0, ByteBuffer.allocateDirect(8).asReadOnlyBuffer()));
        // A read-only direct buffer is fine as the source of a write.
        ByteBuffer ro = direct(content).asReadOnlyBuffer();
        assertEquals(content.length, ssd.write(obj, 0, ro).bytes());
        // An empty buffer reads nothing and writes nothing.
        assertEquals(0, ssd.read(obj, 0, ByteBuffer.allocateDirect(0)).bytes());
        assertEquals(content.length, ssd.write(obj, 0, ByteBuffer.allocateDirect(0)).size());
    }

    @Test
    void nulls() {
        fails(NullPointerException.class, "buffer", () -> ssd.read(obj, 0, null));
        fails(NullPointerException.class, "buffer", () -> ssd.write(obj, 0, (ByteBuffer) null));
        fails(NullPointerException.class, "data", () -> ssd.write(obj, 0, (byte[]) null));
        fails(NullPointerException.class, "name", () -> ssd.createData(null));
        fails(NullPointerException.class, "name", () -> ssd.stat((String) null));
        fails(NullPointerException.class, "tasklet name", () -> ssd.createTasklet(null, Map.of()));
        fails(NullPointerException.class, "params", () -> ssd.createTasklet("grep", null));
        Map<String, String> nullValue = new HashMap<>();
        nullValue.put("pattern", null);
        fails(NullPointerException.class, "pattern", () -> ssd.createTasklet("grep", nullValue));
        fails(NullPointerException.class, "keywords", () -> ssd.createOutput(Map.of(), null, 0));
        List<String> nullKeyword = new ArrayList<>(Collections.singletonList(null));
        fails(NullPointerException.class, "keyword", () -> ssd.createOutput(Map.of(), nullKeyword, 0));
        fails(NullPointerException.class, "input", () -> ssd.execute(1L << 40, 1L << 40, null));
        fails(NullPointerException.class, "new name", () -> ssd.rename(obj, null, false));
        fails(NullPointerException.class, "prefix", () -> ssd.list(null));
        fails(NullPointerException.class, "policy", () -> ssd.results(1L << 40, null, null));
    }

    @Test
    void wrongUseOfTaskletsAndOutputs() {
        long t = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "20")).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        // 19 bytes are not a whole number of 20-byte records.
        DeviceException e = device(DeviceException.Code.INVALID_ARGUMENT, () -> ssd.execute(t, out, Extent.whole(obj)));
        assertTrue(e.deviceMessage().contains("multiple"), e.deviceMessage());
        // Reading an output that never ran, then a plan tasklet without a plan.
        long idle = ssd.createOutput(Map.of(), List.of(), 0).id();
        device(DeviceException.Code.INVALID_ARGUMENT, () -> ssd.readResults(idle, 0));
        device(DeviceException.Code.INVALID_ARGUMENT, () -> ssd.createTasklet("plan", Map.of()));
        // Static params are checked when the tasklet starts.
        long bad = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "7")).id();
        long out2 = ssd.createOutput(Map.of(), List.of(), 0).id();
        DeviceException eb = device(DeviceException.Code.INVALID_ARGUMENT, () -> ssd.execute(bad, out2, Extent.whole(obj)));
        assertTrue(eb.deviceMessage().contains("entry_bytes"), eb.deviceMessage());
    }

    /** A rejected tasklet parameter is named in its own field, whatever the message's wording. */
    @Test
    void rejectedParamIsNamed() {
        // a static param out of range
        long q1 = ssd.createTasklet("weblog-q1", Map.of("entry_bytes", "7")).id();
        DeviceException e = device(DeviceException.Code.INVALID_ARGUMENT,
                () -> ssd.execute(q1, ssd.createOutput(Map.of(), List.of(), 0).id(), Extent.whole(obj)));
        assertEquals(Optional.of("entry_bytes"), e.param());
        // a runtime param (the OUTPUT object's) that is not a number
        long q2 = ssd.createTasklet("weblog-q2", Map.of("entry_bytes", "20")).id();
        e = device(DeviceException.Code.INVALID_ARGUMENT,
                () -> ssd.execute(q2, ssd.createOutput(Map.of("top_n", "three"), List.of(), 0).id(), Extent.whole(obj)));
        assertEquals(Optional.of("top_n"), e.param());
        // a missing one, whose message does not say "param NAME"
        long grep = ssd.createTasklet("grep", Map.of()).id();
        e = device(DeviceException.Code.INVALID_ARGUMENT,
                () -> ssd.execute(grep, ssd.createOutput(Map.of(), List.of(), 0).id(), Extent.whole(obj)));
        assertEquals(Optional.of("pattern"), e.param());
        assertFalse(e.deviceMessage().contains("param pattern"), e.deviceMessage());
        // failures that are not about a parameter name none
        assertEquals(Optional.empty(), device(DeviceException.Code.NOT_FOUND, () -> ssd.stat(999_999)).param());
        assertEquals(Optional.empty(), new DeviceException(DeviceException.Code.INTERNAL, "x", "").param());
    }
}
