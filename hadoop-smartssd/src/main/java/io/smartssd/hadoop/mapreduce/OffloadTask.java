package io.smartssd.hadoop.mapreduce;

import io.smartssd.device.ObjectInfo;
import io.smartssd.device.TaskProgress;
import io.smartssd.device.offload.HostLoad;
import io.smartssd.device.offload.OffloadMode;
import io.smartssd.device.offload.OffloadPlan;
import io.smartssd.device.offload.OffloadPlan.Lane;
import io.smartssd.device.offload.OffloadSettings;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.proto.Row;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * One planned split in its map task: rechecked at its start against what its device and this host hold
 * now ({@link OffloadPlan#recheck}), run on the host by the job's {@link HostMapper} when that is its lane,
 * and accounted for: counters in {@link #GROUP} say how many splits ran where, how many were re-planned,
 * and the predicted and measured times per lane; with {@code smartssd.offload.report} set, one JSON line
 * per split gives where, why, predicted and actual.
 */
final class OffloadTask {
    /** Counter group of the offload counters. */
    static final String GROUP = DeviceJob.OFFLOAD_COUNTERS;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final OffloadSplit split;
    private final OffloadSettings settings;
    private final OffloadPlan.Placement placement;
    private final Lane lane;
    private final String why;
    private final long predictedNs;
    private final long started = System.nanoTime();
    private long hostCpuNs;
    private long hostBytes;
    private boolean calibrationAgrees = true;

    private OffloadTask(OffloadSplit split, OffloadSettings settings, OffloadPlan.Placement placement, Lane lane,
                        String why, long predictedNs) {
        this.split = split;
        this.settings = settings;
        this.placement = placement;
        this.lane = lane;
        this.why = why;
        this.predictedNs = predictedNs;
    }

    /** The split's lane now: its plan, rechecked with its device's backlog and this host's load. */
    static OffloadTask start(OffloadSplit split, SmartSsdFileSystem fs, Configuration conf) throws IOException {
        OffloadSettings s = DeviceOffload.settings(conf);
        OffloadPlan plan;
        try {
            plan = OffloadPlan.decode(split.plan());
        } catch (IllegalArgumentException e) {
            throw new IOException("split " + split.index() + " of " + split.getPath() + " carries a bad offload plan: "
                    + e.getMessage(), e);
        }
        OffloadPlan.Placement p = plan.placement(split.index());
        if (plan.mode() != OffloadMode.AUTO) {   // host: every split on the host, as asked
            return new OffloadTask(split, s, p, p.lane(), "planned " + p.reason(), p.predictedNs());
        }
        long waitNow = fs.device().stats().backlog().drainNanos();
        OffloadPlan.Recheck r = plan.recheck(split.index(), waitNow, () -> HostLoad.availability(1, 1),
                s.replanTolerance());
        String why = r.moved() ? r.why() : "planned " + p.reason();
        long predicted = r.lane() == Lane.DEVICE ? r.deviceNowNs() : r.hostNowNs();
        return new OffloadTask(split, s, p, r.lane(), why, predicted);
    }

    Lane lane() {
        return lane;
    }

    String why() {
        return why;
    }

    /** The split on the host: the host version's rows of the extent, read over the link. */
    List<Row> runOnHost(SmartSsdFileSystem fs, ObjectInfo object, DeviceMapper mapper, Configuration conf)
            throws IOException {
        HostMapper host = DeviceOffload.hostMapper(conf, settings.mode());
        HostInput in = HostInput.onDevice(fs.device(), object.id(), split.getStart(), split.getLength(), object.size(),
                mapper, conf, settings.readBytes());
        List<Row> rows = new ArrayList<>();
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        host.map(in, rows::add);
        hostCpuNs = THREADS.getCurrentThreadCpuTime() - cpu0;
        hostBytes = in.bytesRead();
        calibrationAgrees = settings.calibration().check(DeviceOffload.workKey(conf, mapper), hostCpuNs, split.getLength());
        return rows;
    }

    /** Counters, and the report line; device is the run's last progress (null on the host or for no run). */
    void finish(TaskAttemptContext ctx, TaskProgress device) {
        long actual = System.nanoTime() - started;
        String l = lane.label();
        ctx.getCounter(GROUP, l + ".splits").increment(1);
        if (lane != placement.lane()) {
            ctx.getCounter(GROUP, l + ".splits.replanned").increment(1);
        }
        ctx.getCounter(GROUP, l + ".predicted_ns").increment(predictedNs);
        ctx.getCounter(GROUP, l + ".actual_ns").increment(actual);
        if (lane == Lane.HOST) {
            ctx.getCounter(GROUP, "host.bytes_read").increment(hostBytes);
            ctx.getCounter(GROUP, "host.cpu_ns").increment(hostCpuNs);
            if (!calibrationAgrees) {
                ctx.getCounter(GROUP, "host.calibration_disagreed").increment(1);
            }
        }
        if (settings.report() != null) {
            report(actual, device);
        }
    }

    private void report(long actual, TaskProgress device) {
        String line = String.format(Locale.ROOT, "{\"split\":%d,\"device\":\"%s\",\"bytes\":%d,\"planned\":\"%s\","
                        + "\"lane\":\"%s\",\"why\":\"%s\",\"predicted_ns\":%d,\"actual_ns\":%d,\"device_ns\":%d,"
                        + "\"host_cpu_ns\":%d,\"plan_device_ns\":%d,\"plan_wait_ns\":%d,\"plan_host_ns\":%d}%n",
                split.index(), placement.device(), split.getLength(), placement.lane().label(), lane.label(),
                why.replace("\\", "\\\\").replace("\"", "\\\""), predictedNs, actual,
                device == null ? 0 : device.deviceNanos(), hostCpuNs, placement.deviceNs(), placement.waitNs(),
                placement.hostNs());
        appendLine(settings.report(), line);
    }

    /** Appends a line under a file lock (tasks in several threads or processes share the report). */
    static synchronized void appendLine(java.nio.file.Path file, String line) {
        try {
            java.nio.file.Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND); var lock = ch.lock()) {
                ch.write(java.nio.ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
            }
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(OffloadTask.class).warn("cannot append to the offload report {}: {}", file,
                    e.toString());
        }
    }
}
