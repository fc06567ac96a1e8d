package io.smartssd.hadoop.mapreduce;

import io.smartssd.device.offload.HostCalibration;
import io.smartssd.device.offload.OffloadMode;
import io.smartssd.device.offload.OffloadPlan;
import io.smartssd.device.offload.OffloadPlanning;
import io.smartssd.device.offload.OffloadSettings;
import io.smartssd.device.offload.Sample;
import io.smartssd.device.offload.SplitWork;
import io.smartssd.device.ObjectInfo;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * A DeviceJob's offload at submission (docs/OFFLOAD.md): its settings checked (a bad one fails the job
 * naming its key), and with {@code smartssd.offload = host | auto} every split planned, device or host,
 * from what the devices and this host say now ({@link OffloadPlanning}); the splits become
 * {@link OffloadSplit}s in the order the plan starts them.
 */
final class DeviceOffload {
    /** The mode: device (default), host or auto; the other settings are keys under it. */
    static final String PREFIX = DeviceJob.OFFLOAD;
    /** The plan's one-line summary, set at submission for the job's record. */
    static final String SUMMARY = DeviceJob.OFFLOAD_PLAN_SUMMARY;
    /** The plan's inputs as the planner saw them. */
    static final String INPUTS = "smartssd.offload.plan.inputs";
    /** How the host's throughput was obtained (cached, measured, re-measured: why). */
    static final String CALIBRATION = "smartssd.offload.plan.calibration";

    private DeviceOffload() {
    }

    /** The job's offload settings; an IOException names a malformed key. */
    static OffloadSettings settings(Configuration conf) throws IOException {
        try {
            return OffloadSettings.read(PREFIX, k -> conf.getTrimmed(k), conf.getInt("mapreduce.local.map.tasks.maximum",
                    Runtime.getRuntime().availableProcessors()));
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** The job's HostMapper, or an IOException naming the keys when the mode needs one and it is missing or bad. */
    static HostMapper hostMapper(Configuration conf, OffloadMode mode) throws IOException {
        Class<?> c;
        try {
            c = conf.getClass(DeviceJob.HOST_MAPPER, null);
        } catch (RuntimeException e) {
            throw new IOException(DeviceJob.HOST_MAPPER + " = " + conf.get(DeviceJob.HOST_MAPPER) + ": " + e.getMessage(), e);
        }
        if (c == null) {
            throw new IOException(PREFIX + " = " + mode.label() + " runs splits on the host, which needs the DeviceMapper's"
                    + " host counterpart: " + DeviceJob.HOST_MAPPER + " is not set (DeviceJob.setHostMapper)");
        }
        if (!HostMapper.class.isAssignableFrom(c)) {
            throw new IOException(DeviceJob.HOST_MAPPER + " = " + c.getName() + " is not a " + HostMapper.class.getName());
        }
        try {
            return (HostMapper) ReflectionUtils.newInstance(c, conf);
        } catch (RuntimeException e) {
            throw new IOException(DeviceJob.HOST_MAPPER + " = " + c.getName() + " cannot be made: " + e.getMessage(), e);
        }
    }

    /** The calibration key of this job's host version: its class and the mapper it stands for. */
    static String workKey(Configuration conf, DeviceMapper mapper) {
        return "hadoop:" + conf.get(DeviceJob.HOST_MAPPER) + ":" + mapper.taskletName() + new TreeMap<>(mapper.staticParams())
                + new TreeMap<>(mapper.runtimeParams());
    }

    /** The splits planned under settings s (mode host or auto), host being the job's host version. */
    static List<InputSplit> plan(Configuration conf, OffloadSettings s, HostMapper host, List<InputSplit> splits)
            throws IOException {
        DeviceMapper mapper = DeviceMapper.readFrom(conf);
        List<OffloadPlanning.Split> parts = new ArrayList<>();
        Map<String, Integer> pageBytes = new HashMap<>();
        for (int i = 0; i < splits.size(); i++) {
            FileSplit f = (FileSplit) splits.get(i);
            SmartSsdFileSystem fs = DeviceRecordReader.smartssd(f.getPath(), conf);
            String id = fs.deviceSpec().id();
            int pb = pageBytes.computeIfAbsent(id, k -> fs.device().identify().geometry().pageBytes());
            ObjectInfo o = fs.objectOf(f.getPath());
            parts.add(new OffloadPlanning.Split(SplitWork.of(i, id, f.getStart(), f.getLength(), pb), fs.device(), o.id(),
                    o.size(), f.getStart()));
        }
        OffloadPlanning.HostWork work = new OffloadPlanning.HostWork(workKey(conf, mapper),
                sample -> calibrationRun(host, sample, mapper, conf));
        OffloadPlanning.Result r;
        try {
            r = OffloadPlanning.plan(s, parts, mapper.spec(), work);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } catch (RuntimeException e) {
            throw new IOException("offload planning (" + PREFIX + " = " + s.mode().label() + ") failed: " + e.getMessage(), e);
        }
        OffloadPlan plan = r.plan();
        conf.set(SUMMARY, plan.summary());
        conf.set(INPUTS, plan.inputs());
        conf.set(CALIBRATION, r.calibration().source());
        List<OffloadSplit> out = new ArrayList<>();
        for (int i = 0; i < splits.size(); i++) {
            FileSplit f = (FileSplit) splits.get(i);
            out.add(new OffloadSplit(f.getPath(), f.getStart(), f.getLength(), f.getLocations(), i,
                    plan.only(i).encode()));
        }
        // the order the plan starts them in, so that free map slots take them as planned
        out.sort(Comparator.comparingLong((OffloadSplit o) -> plan.placement(o.index()).startNs())
                .thenComparingInt(OffloadSplit::index));
        return new ArrayList<InputSplit>(out);
    }

    /** One run of the host version over a planning sample (calibration): the sample's extent less its last page. */
    private static HostCalibration.Work calibrationRun(HostMapper host, Sample s, DeviceMapper mapper, Configuration conf) {
        byte[] bytes = new byte[s.pages().limit()];
        s.pages().duplicate().get(bytes);
        long start = s.firstPage() * s.pageBytes();
        long end = start + bytes.length;
        long len = end == s.objectSize() ? end - s.offset() : Math.max(0, end - s.pageBytes() - s.offset());
        return () -> {
            HostInput in = HostInput.inMemory(s.offset(), len, s.objectSize(), start, bytes, mapper, conf);
            try {
                host.map(in, row -> { });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return len;
        };
    }
}
