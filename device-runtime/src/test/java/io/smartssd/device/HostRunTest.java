package io.smartssd.device;

import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.Row;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host run (the extent read over the link, the tasklet's own code on the host) gives the rows and the
 * charges of the same run on the device, over extents that cut records and pages; a spec the device
 * refuses is refused the same way.
 */
class HostRunTest {
    @TempDir
    Path dir;

    static List<Row> drain(java.util.Iterator<Row> it) {
        List<Row> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    @Test
    void sameRowsAndChargesAsTheDevice() {
        byte[] logs = Wc98.generate(60_000, 32, 7);
        try (TestDevice dev = TestDevice.fresh(Mode.EMBEDDED, dir, "h.img")) {
            SmartSsd ssd = dev.ssd();
            long id = put(ssd, "wc98", logs);
            long[] cuts = {0, 7, 100_003, logs.length / 2 + 3, logs.length};
            for (String q : List.of("weblog-q1", "weblog-q2")) {
                TaskletRun.Spec spec = TaskletRun.Spec.of(q, Map.of("entry_bytes", "32"));
                for (int i = 0; i + 1 < cuts.length; i++) {
                    Extent e = Extent.of(id, cuts[i], cuts[i + 1] - cuts[i]);
                    List<Row> onDevice;
                    TaskProgress p;
                    try (TaskletRun run = TaskletRun.start(ssd, spec, e, PollingPolicy.DEFAULT, null)) {
                        onDevice = new ArrayList<>();
                        while (run.hasNext()) {
                            onDevice.add(run.next());
                        }
                        p = run.progress();
                    }
                    try (HostRun host = HostRun.start(ssd, spec, e, logs.length, 4096, 64 << 10)) {
                        assertEquals(onDevice, drain(host), q + " over " + e);
                        assertEquals(p.cycles(), host.cycles(), "cycles charged");
                        assertEquals(p.dramAccesses(), host.dramAccesses(), "DRAM accesses charged");
                        assertEquals(p.pagesTotal(), host.pages());
                        assertTrue(host.bytesRead() >= e.length() && host.bytesRead() <= e.length() + 2 * 4096,
                                "reads the extent's pages only: " + host.bytesRead());
                        assertTrue(host.wallNanos() > 0 && host.cpuNanos() > 0);
                    }
                }
            }
            // a text plan (filter, group, count) over extents that cut lines, the last line running past a page
            StringBuilder csv = new StringBuilder();
            for (int i = 0; i < 5000; i++) {
                csv.append(i).append(',').append(i % 3 == 0 ? "post" : "get").append(',').append("x".repeat(i % 50))
                        .append('\n');
            }
            byte[] text = csv.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            long tid = put(ssd, "log.csv", text);
            io.smartssd.proto.Plan plan = io.smartssd.proto.Plan.newBuilder()
                    .setText(io.smartssd.proto.DelimitedText.newBuilder().setDelimiter(","))
                    .addColumns(io.smartssd.proto.Column.newBuilder().setName("id").setType(io.smartssd.proto.ColumnType.INT64).setField(0))
                    .addColumns(io.smartssd.proto.Column.newBuilder().setName("m").setType(io.smartssd.proto.ColumnType.STRING).setField(1))
                    .setFilter(io.smartssd.proto.Expr.newBuilder().setBinary(io.smartssd.proto.Binary.newBuilder()
                            .setOp(io.smartssd.proto.BinaryOp.GT).setLeft(io.smartssd.proto.Expr.newBuilder().setColumn(0))
                            .setRight(io.smartssd.proto.Expr.newBuilder().setLiteral(io.smartssd.proto.Literal.newBuilder().setI(100)))))
                    .addGroupBy(io.smartssd.proto.Expr.newBuilder().setColumn(1))
                    .addAggregates(io.smartssd.proto.Aggregate.newBuilder().setFn(io.smartssd.proto.AggFn.COUNT_ALL))
                    .build();
            long[] tcuts = {0, 4095, 4096 * 3 + 17, text.length};
            for (int i = 0; i + 1 < tcuts.length; i++) {
                Extent e = Extent.of(tid, tcuts[i], tcuts[i + 1] - tcuts[i]);
                List<Row> onDevice = new ArrayList<>();
                try (TaskletRun run = TaskletRun.start(ssd, TaskletRun.Spec.plan(plan), e, PollingPolicy.DEFAULT, null)) {
                    while (run.hasNext()) {
                        onDevice.add(run.next());
                    }
                }
                try (HostRun host = HostRun.start(ssd, TaskletRun.Spec.plan(plan), e, text.length, 4096, 8192)) {
                    assertEquals(onDevice, drain(host), "plan over " + e);
                }
            }
            // refused as the device refuses it, naming the param
            DeviceException bad = assertThrows(DeviceException.class, () -> HostRun.start(ssd,
                    TaskletRun.Spec.of("weblog-q1", Map.of("entry_bytes", "7")), Extent.whole(id)));
            assertEquals("entry_bytes", bad.param().orElse(""));
            DeviceException unknown = assertThrows(DeviceException.class, () -> HostRun.start(ssd,
                    TaskletRun.Spec.of("no-such-tasklet", Map.of()), Extent.whole(id)));
            assertEquals(DeviceException.Code.NOT_FOUND, unknown.code());
        }
    }
}
