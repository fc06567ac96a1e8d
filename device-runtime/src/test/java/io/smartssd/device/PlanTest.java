package io.smartssd.device;

import static io.smartssd.device.TestDevices.put;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.proto.AggFn;
import io.smartssd.proto.Aggregate;
import io.smartssd.proto.Column;
import io.smartssd.proto.ColumnType;
import io.smartssd.proto.Expr;
import io.smartssd.proto.FixedRecords;
import io.smartssd.proto.Plan;
import io.smartssd.proto.Row;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** A declarative plan built with protobuf-java runs on the device: the Spark pushdown path. */
@ParameterizedClass
@EnumSource(Mode.class)
class PlanTest {
    @Parameter
    Mode mode;
    @TempDir
    Path dir;

    /** GROUP BY region (server byte >> 5) COUNT(*) over WorldCup98 records. */
    private static Plan regionCounts(int entryBytes) {
        Column region = Column.newBuilder().setName("region").setType(ColumnType.INT64)
                .setOffset(19).setWidth(1).setShift(5).setMask(7).build();
        return Plan.newBuilder().setFixed(FixedRecords.newBuilder().setEntryBytes(entryBytes))
                .addColumns(region)
                .addGroupBy(Expr.newBuilder().setColumn(0))
                .addAggregates(Aggregate.newBuilder().setFn(AggFn.COUNT_ALL))
                .build();
    }

    @Test
    void groupByCountEqualsJava() {
        byte[] logs = Wc98.generate(25_000, 20, 9);
        try (TestDevice dev = TestDevice.fresh(mode, dir, "plan.img")) {
            SmartSsd ssd = dev.ssd();
            long id = put(ssd, "wc98", logs);
            long t = ssd.createTasklet("plan", Map.of(), regionCounts(20)).id();
            long out = ssd.createOutput(Map.of(), List.of(), 0).id();
            ssd.execute(t, out, Extent.whole(id));
            TreeMap<String, Long> got = new TreeMap<>();
            for (Row r : ssd.results(out).toList()) {
                got.put(Wc98.REGIONS[(int) r.getValues(0).getI()], r.getValues(1).getI());
            }
            assertEquals(Wc98.q1(logs, 20, 0, logs.length), got);
        }
    }

    @Test
    void anInvalidPlanIsRefusedAtCreate() {
        try (TestDevice dev = TestDevice.fresh(mode, dir, "bad-plan.img")) {
            SmartSsd ssd = dev.ssd();
            Plan pastRecord = regionCounts(20).toBuilder()
                    .setColumns(0, regionCounts(20).getColumns(0).toBuilder().setOffset(16).setWidth(8)).build();
            DeviceException e = assertThrows(DeviceException.class, () -> ssd.createTasklet("plan", Map.of(), pastRecord));
            assertEquals(DeviceException.Code.INVALID_ARGUMENT, e.code());
            assertTrue(e.deviceMessage().contains("region"), e.deviceMessage());
            DeviceException notPlan = assertThrows(DeviceException.class,
                    () -> ssd.createTasklet("grep", Map.of("pattern", "x"), regionCounts(20)));
            assertEquals(DeviceException.Code.INVALID_ARGUMENT, notPlan.code());
        }
    }
}
