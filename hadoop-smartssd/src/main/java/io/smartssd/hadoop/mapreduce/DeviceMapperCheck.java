package io.smartssd.hadoop.mapreduce;

import io.smartssd.device.DeviceException;
import io.smartssd.device.DeviceIdentity;
import io.smartssd.device.Extent;
import io.smartssd.device.ObjectInfo;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.TaskletRun;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * Fail-fast check of a DeviceMapper at job submission, once per device: the device must know the
 * tasklet, and a trial run over the first byte of the first split (at most one record or line) must
 * succeed, which makes the device validate the static and runtime params, the plan, and the fit of the
 * tasklet's framing to the object (e.g. a size that is not a multiple of entry_bytes).
 */
final class DeviceMapperCheck {
    private DeviceMapperCheck() {
    }

    static void check(Configuration conf, List<InputSplit> splits) throws IOException {
        DeviceMapper mapper = DeviceMapper.readFrom(conf);
        DeviceJob.newFormat(conf); // the format class must load and instantiate
        Map<URI, FileSplit> firstPerDevice = new LinkedHashMap<>();
        for (InputSplit s : splits) {
            FileSplit fsplit = (FileSplit) s;
            firstPerDevice.putIfAbsent(fsplit.getPath().toUri().resolve("/"), fsplit);
        }
        for (FileSplit split : firstPerDevice.values()) {
            SmartSsdFileSystem fs = DeviceRecordReader.smartssd(split.getPath(), conf);
            checkOn(fs, mapper, split);
        }
    }

    private static void checkOn(SmartSsdFileSystem fs, DeviceMapper mapper, FileSplit split) throws IOException {
        String id = fs.deviceSpec().id();
        DeviceIdentity ident;
        try {
            ident = fs.device().identify();
        } catch (RuntimeException e) {
            throw new IOException("smartssd device '" + id + "' did not answer identify: " + e.getMessage(), e);
        }
        if (mapper.program() != null) {
            /* the job's own tasklet: installed here like a job resource (the same bytes again are a no-op) */
            try {
                fs.device().installTasklet(mapper.taskletName(), mapper.program(), true);
            } catch (DeviceException e) {
                throw new IOException("smartssd device '" + id + "' refused the job's tasklet program '"
                        + mapper.taskletName() + "' (" + DeviceMapper.PROGRAM + "): " + e.getMessage(), e);
            }
        } else if (!ident.tasklets().contains(mapper.taskletName())
                && fs.device().listTasklets().stream().noneMatch(t -> t.name().equals(mapper.taskletName()))) {
            throw new IOException(DeviceMapper.TASKLET + " = '" + mapper.taskletName() + "': smartssd device '" + id
                    + "' has no such tasklet (it has: " + String.join(", ", ident.tasklets()) + ")");
        }
        ObjectInfo object = fs.objectOf(split.getPath());
        if (split.getLength() == 0) {
            return;
        }
        try (TaskletRun trial = TaskletRun.start(fs.device(), mapper.spec(), Extent.of(object.id(), split.getStart(), 1),
                PollingPolicy.DEFAULT, null)) {
            while (trial.hasNext()) {
                trial.next();
            }
        } catch (DeviceException e) {
            throw new IOException(describe(mapper, id, split, e), e);
        }
    }

    /** The device's message, and the configuration key of the parameter it rejected (if it named one). */
    static String describe(DeviceMapper mapper, String id, FileSplit split, DeviceException e) {
        StringBuilder sb = new StringBuilder("smartssd device '").append(id).append("' rejected the DeviceMapper (tasklet '")
                .append(mapper.taskletName()).append("') on ").append(split.getPath()).append(": ")
                .append(e.getMessage());
        e.param().ifPresent(p -> sb.append(" [configuration key ").append(configKey(mapper, p)).append(" = ")
                .append(mapper.runtimeParams().getOrDefault(p, mapper.staticParams().getOrDefault(p, "(unset)")))
                .append(']'));
        return sb.toString();
    }

    /**
     * Where a device parameter comes from in the job's configuration: a runtime param if the mapper sets
     * one of that name (the device reads runtime params first), else a static param.
     */
    static String configKey(DeviceMapper mapper, String param) {
        return mapper.runtimeParams().containsKey(param) ? DeviceMapper.RUNTIME_PARAM_PREFIX + param
                : DeviceMapper.paramKey(param);
    }
}
