package io.smartssd.spark;

import io.smartssd.device.TaskletRun;
import io.smartssd.device.offload.OffloadPlan;
import io.smartssd.device.offload.OffloadPlanning;
import io.smartssd.device.offload.OffloadSettings;
import io.smartssd.device.offload.SplitWork;
import io.smartssd.device.offload.TaskletProbe;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A scan's input partitions planned device or host (option offload host or auto; docs/OFFLOAD.md), as a
 * DeviceJob's splits are: the same cost model and planner ({@link OffloadPlanning}). The host version of a
 * device plan is the plan itself evaluated on the executor by the built-in's own code over the bytes read
 * over the link ({@code HostRun}), so a partition's rows do not depend on where it ran; the calibration
 * runs that code over the planning sample.
 */
final class SparkOffload {
    private SparkOffload() {
    }

    /** The partitions with their placements, and the plan. */
    record Planned(List<SmartSsdPartition> parts, OffloadPlan plan) {
    }

    static Planned plan(OffloadSettings s, List<SmartSsdPartition> parts, List<DeviceObject> objects,
                        TaskletRun.Spec spec, String workKey, Map<String, String> fsConf) {
        Map<String, Long> sizes = new HashMap<>();
        for (DeviceObject o : objects) {
            sizes.put(o.uri(), o.size());
        }
        Map<String, Integer> pageBytes = new HashMap<>();
        List<OffloadPlanning.Split> splits = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            SmartSsdPartition p = parts.get(i);
            SmartSsdFileSystem fs = DeviceObject.fileSystem(p.uri(), fsConf);
            String id = fs.deviceSpec().id();
            int pb = pageBytes.computeIfAbsent(id, k -> fs.device().identify().geometry().pageBytes());
            splits.add(new OffloadPlanning.Split(SplitWork.of(i, id, p.offset(), p.length(), pb), fs.device(),
                    p.objectId(), sizes.get(p.uri()), p.offset()));
        }
        OffloadPlanning.HostWork work = new OffloadPlanning.HostWork(workKey, sample -> () -> {
            TaskletProbe.onHost(spec, sample);
            return TaskletProbe.extentLength(sample);
        });
        OffloadPlan plan = OffloadPlanning.plan(s, splits, spec, work).plan();
        List<SmartSsdPartition> out = new ArrayList<>(parts.size());
        for (int i = 0; i < parts.size(); i++) {
            out.add(parts.get(i).withOffload(plan.only(i).encode()));
        }
        return new Planned(out, plan);
    }

    /** Whether a partition's placement puts it on the host. */
    static boolean onHost(SmartSsdPartition p) {
        if (p.offload() == null) {
            return false;
        }
        OffloadPlan plan = OffloadPlan.decode(p.offload());
        return plan.placements().get(0).lane() == OffloadPlan.Lane.HOST;
    }
}
