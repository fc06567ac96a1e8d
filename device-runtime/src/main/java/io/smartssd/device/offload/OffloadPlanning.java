package io.smartssd.device.offload;

import io.smartssd.device.DeviceIdentity;
import io.smartssd.device.Extent;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskletRun;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a job end to end from what the devices and the host say now (docs/OFFLOAD.md): for each device
 * holding splits, its identify (parameters), a sample of its first split read over the link, the
 * tasklet's cost measured on it ({@link TaskletProbe}) and its stats (backlog); for the host, the host
 * version's throughput ({@link HostCalibration}, on the first sample) and its load ({@link HostLoad});
 * then {@link OffloadPlanner#plan}. Hadoop's DeviceJob and Spark's scans call it at submission.
 */
public final class OffloadPlanning {
    private static final Logger LOG = LoggerFactory.getLogger(OffloadPlanning.class);

    private OffloadPlanning() {
    }

    /** One split: its planner view, and where its bytes are. */
    public record Split(SplitWork work, SmartSsd ssd, long objectId, long objectSize, long offset) {
        public Split {
            Objects.requireNonNull(work, "work");
            Objects.requireNonNull(ssd, "ssd");
        }
    }

    /**
     * The host version of the job, for calibration: key names the kind of work (the same key is the same
     * cached figure), work(sample) runs it once over a sample.
     */
    public record HostWork(String key, Function<Sample, HostCalibration.Work> work) {
    }

    /** The plan, and how its inputs were obtained. */
    public record Result(OffloadPlan plan, HostCalibration.Result calibration, Map<String, DeviceModel> devices,
                         HostModel host) {
    }

    /**
     * Plans splits (in job order) whose device mapper is spec; host describes the host version.
     *
     * @throws IllegalArgumentException settings or splits the planner cannot use (named)
     */
    public static Result plan(OffloadSettings s, List<Split> splits, TaskletRun.Spec spec, HostWork host) {
        Map<String, Split> firstPerDevice = new LinkedHashMap<>();
        for (Split sp : splits) {
            if (sp.work().bytes() > 0) {
                firstPerDevice.putIfAbsent(sp.work().device(), sp);
            }
        }
        for (Split sp : splits) {
            firstPerDevice.putIfAbsent(sp.work().device(), sp);
        }
        Map<String, DeviceModel> models = new LinkedHashMap<>();
        Sample hostSample = null;
        for (Map.Entry<String, Split> e : firstPerDevice.entrySet()) {
            Split sp = e.getValue();
            DeviceIdentity ident = sp.ssd().identify();
            int pageBytes = ident.geometry().pageBytes();
            Sample sample = Sample.read(sp.ssd(), sp.objectId(), sp.objectSize(), sp.offset(), s.probePages(), pageBytes);
            TaskletCost cost;
            if (ident.tasklets().contains(spec.tasklet())) {
                cost = TaskletProbe.onHost(spec, sample);
            } else {
                long len = Math.min(sample.length(), (long) s.probePages() * pageBytes);
                cost = TaskletProbe.onDevice(sp.ssd(), spec, Extent.of(sp.objectId(), sp.offset(), len));
            }
            models.put(e.getKey(), DeviceModel.of(e.getKey(), ident, sp.ssd().stats(), cost));
            if (hostSample == null && sample.length() > 0) {
                hostSample = sample;
            }
        }
        HostCalibration.Result cal;
        if (hostSample == null) {
            cal = new HostCalibration.Result(0, "no input", false);
        } else {
            Sample hs = hostSample;
            cal = s.calibration().calibrate(host.key(), host.work().apply(hs));
        }
        double avail = HostLoad.availability(s.hostSlots());
        HostModel hm = new HostModel(cal.nsPerByte(), avail, s.hostSlots(), s.readBytes(), cal.source());
        List<SplitWork> works = new ArrayList<>(splits.size());
        for (Split sp : splits) {
            works.add(sp.work());
        }
        OffloadPlan plan = OffloadPlanner.plan(works, models, hm, s.mode(), s.objective(), s.power());
        LOG.info("{}; inputs: {}", plan.summary(), plan.inputs());
        return new Result(plan, cal, models, hm);
    }
}
