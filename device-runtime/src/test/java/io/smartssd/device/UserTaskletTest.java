package io.smartssd.device;

import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.Row;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SmartSsd.installTasklet / listTasklets / removeTasklet, embedded and remote: the web-log Q1 written as
 * a user tasklet (examples/tasklets/weblog-q1, built here with the tasklet SDK) answers as the built-in
 * does; bad programs and a hostile one come back as typed DeviceExceptions and the device keeps serving.
 */
@ParameterizedClass
@EnumSource(Mode.class)
class UserTaskletTest {
    @Parameter
    Mode mode;
    @TempDir
    Path dir;
    @TempDir
    static Path built;
    static byte[] q1Wasm;
    static byte[] hostileWasm;

    @BeforeAll
    static void buildWithTheSdk() throws IOException, InterruptedException {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        q1Wasm = sdkBuild(repo, repo.resolve("examples/tasklets/weblog-q1/weblog-q1.c"), built.resolve("q1.wasm"));
        hostileWasm = sdkBuild(repo, repo.resolve("native/tests/tasklets/hostile.c"), built.resolve("hostile.wasm"));
    }

    private static byte[] sdkBuild(Path repo, Path src, Path out) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", repo.resolve("native/sdk/tasklet_sdk.py").toString(), "build", "-q",
                src.toString(), "-o", out.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "tasklet SDK build failed: " + log);
        return Files.readAllBytes(out);
    }

    private static TreeMap<String, Long> q1(SmartSsd ssd, String tasklet, long object) {
        long t = ssd.createTasklet(tasklet, Map.of("entry_bytes", "32")).id();
        long out = ssd.createOutput(Map.of(), List.of(), 0).id();
        try {
            ssd.execute(t, out, Extent.whole(object));
            TreeMap<String, Long> got = new TreeMap<>();
            for (Row row : ssd.results(out).toList()) {
                got.put(row.getValues(0).getS().toStringUtf8(), row.getValues(1).getI());
            }
            return got;
        } finally {
            ssd.delete(out);
            ssd.delete(t);
        }
    }

    private static io.smartssd.proto.Expr regionIs(String region) {
        return io.smartssd.proto.Expr.newBuilder().setBinary(io.smartssd.proto.Binary.newBuilder()
                .setOp(io.smartssd.proto.BinaryOp.EQ)
                .setLeft(io.smartssd.proto.Expr.newBuilder().setColumn(0))
                .setRight(io.smartssd.proto.Expr.newBuilder().setLiteral(io.smartssd.proto.Literal.newBuilder()
                        .setS(com.google.protobuf.ByteString.copyFromUtf8(region))))).build();
    }

    @Test
    void theDeviceAppliesAFilterTheTaskletDeclaresAndRefusesOthers() {
        byte[] logs = Wc98.generate(3000, 32, 17);
        try (TestDevice dev = TestDevice.fresh(mode, dir, "f.img")) {
            SmartSsd ssd = dev.ssd();
            long id = put(ssd, "wc98", logs);
            ssd.installTasklet("q1-user", q1Wasm);
            TreeMap<String, Long> all = Wc98.q1(logs, 32, 0, logs.length);
            String region = all.firstKey();
            TaskletRun.Spec spec = new TaskletRun.Spec("q1-user", Map.of("entry_bytes", "32"), null, Map.of(),
                    List.of(), 0, regionIs(region));
            List<Row> rows = new java.util.ArrayList<>();
            TaskProgress last;
            try (TaskletRun run = TaskletRun.start(ssd, spec, Extent.whole(id), PollingPolicy.DEFAULT, null)) {
                while (run.hasNext()) {
                    rows.add(run.next());
                }
                last = run.progress();
            }
            assertEquals(1, rows.size(), "only the region asked for crosses from the device: " + rows);
            assertEquals(region, rows.get(0).getValues(0).getS().toStringUtf8());
            assertEquals(all.get(region), rows.get(0).getValues(1).getI());
            assertTrue(last.bytesToHost() > 0 && last.bytesToHost() < 40, "bytes to host " + last.bytesToHost());

            // count declares no IN: the device refuses, naming the column and what it does declare
            io.smartssd.proto.Expr countIn = io.smartssd.proto.Expr.newBuilder().setIn(io.smartssd.proto.In.newBuilder()
                    .setArg(io.smartssd.proto.Expr.newBuilder().setColumn(1))
                    .addValues(io.smartssd.proto.Literal.newBuilder().setI(3))).build();
            DeviceException e = assertThrows(DeviceException.class,
                    () -> ssd.createTasklet("q1-user", Map.of("entry_bytes", "32"), null, countIn));
            assertEquals(DeviceException.Code.UNSUPPORTED, e.code());
            assertTrue(e.getMessage().contains("tasklet 'q1-user' does not take filter IN on column 'count'"),
                    e.getMessage());
        }
    }

    @Test
    void installedUserQ1AnswersAsTheBuiltIn() {
        byte[] logs = Wc98.generate(20_000, 32, 3);
        try (TestDevice dev = TestDevice.fresh(mode, dir, "u.img")) {
            SmartSsd ssd = dev.ssd();
            long id = put(ssd, "wc98", logs);
            TaskletInstalled first = ssd.installTasklet("q1-user", q1Wasm);
            assertFalse(first.unchanged());
            TaskletInstalled again = ssd.installTasklet("q1-user", q1Wasm);
            assertTrue(again.unchanged(), "the same bytes again are a no-op");
            assertEquals(first.hash(), again.hash());
            List<UserTasklet> listed = ssd.listTasklets();
            assertEquals(1, listed.size());
            UserTasklet q1 = listed.get(0);
            assertEquals(new UserTasklet("q1-user", "wasm", first.programId(), q1Wasm.length, first.hash()),
                    new UserTasklet(q1.name(), q1.format(), q1.programId(), q1.size(), q1.hash()));
            // what the example declares in its source, as the device read it from the WebAssembly program
            assertTrue(q1.summary().startsWith("accesses per region"), q1.summary());
            assertEquals("region STRING FILTER(= <> IN STARTS_WITH NULL), count BIGINT FILTER(= <> < <= > >=)",
                    q1.schema());
            assertEquals(List.of(
                    new UserTasklet.Column("region", io.smartssd.proto.ColumnType.STRING, java.util.EnumSet.of(
                            io.smartssd.proto.FilterOp.FILTER_EQ, io.smartssd.proto.FilterOp.FILTER_NE,
                            io.smartssd.proto.FilterOp.FILTER_IN, io.smartssd.proto.FilterOp.FILTER_STARTS_WITH,
                            io.smartssd.proto.FilterOp.FILTER_NULL)),
                    new UserTasklet.Column("count", io.smartssd.proto.ColumnType.INT64, java.util.EnumSet.range(
                            io.smartssd.proto.FilterOp.FILTER_EQ, io.smartssd.proto.FilterOp.FILTER_GE))),
                    q1.columns());
            TreeMap<String, Long> want = Wc98.q1(logs, 32, 0, logs.length);
            assertEquals(want, q1(ssd, "weblog-q1", id));
            assertEquals(want, q1(ssd, "q1-user", id));

            DeviceException other = assertThrows(DeviceException.class, () -> ssd.installTasklet("q1-user", hostileWasm));
            assertEquals(DeviceException.Code.ALREADY_EXISTS, other.code());
            ssd.removeTasklet("q1-user");
            assertTrue(ssd.listTasklets().isEmpty());
            DeviceException gone = assertThrows(DeviceException.class, () -> ssd.createTasklet("q1-user", Map.of()));
            assertEquals(DeviceException.Code.NOT_FOUND, gone.code());
        }
    }

    @Test
    void badAndHostileProgramsAreTypedErrorsAndTheDeviceKeepsServing() {
        byte[] logs = Wc98.generate(5_000, 32, 4);
        try (TestDevice dev = TestDevice.fresh(mode, dir, "h.img")) {
            SmartSsd ssd = dev.ssd();
            long id = put(ssd, "wc98", logs);
            DeviceException bad = assertThrows(DeviceException.class,
                    () -> ssd.installTasklet("junk", "not a program".getBytes(StandardCharsets.UTF_8)));
            assertEquals(DeviceException.Code.INVALID_ARGUMENT, bad.code());
            assertTrue(bad.getMessage().contains("tasklet program 'junk' is not a WebAssembly module"), bad.getMessage());
            DeviceException nat = assertThrows(DeviceException.class, () -> ssd.installNativeTasklet("n", "x.so", false));
            assertTrue(nat.getMessage().contains("tasklet_trusted_dir"), nat.getMessage());

            ssd.installTasklet("spin", hostileWasm);
            long t = ssd.createTasklet("spin", Map.of("attack", "loop")).id();
            long out = ssd.createOutput(Map.of(), List.of(), 0).id();
            ssd.execute(t, out, Extent.whole(id));
            DeviceException stopped = assertThrows(DeviceException.class, () -> ssd.results(out).toList());
            assertEquals(DeviceException.Code.TASKLET_ERROR, stopped.code());
            assertTrue(stopped.getMessage().contains("tasklet 'spin' exceeded its instruction budget"), stopped.getMessage());
            assertEquals(Wc98.q1(logs, 32, 0, logs.length), q1(ssd, "weblog-q1", id));
            assertEquals(List.of("spin"), ssd.listTasklets().stream().map(UserTasklet::name).toList());
        }
    }
}
