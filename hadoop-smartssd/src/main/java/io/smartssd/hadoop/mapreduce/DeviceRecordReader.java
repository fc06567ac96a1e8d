package io.smartssd.hadoop.mapreduce;

import io.smartssd.device.DeviceException;
import io.smartssd.device.Extent;
import io.smartssd.device.ObjectInfo;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.TaskProgress;
import io.smartssd.device.TaskletRun;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * A DeviceJob map task's input: instead of reading the split, it runs the DeviceMapper's tasklet over
 * the split's extent inside the device and yields the DeviceMapperFormat's pairs of the result rows.
 * A device failure becomes an IOException carrying the device's message, which fails the task attempt
 * (and Hadoop retries it). Counters: {@link DeviceCounter}, plus per device
 * {@code "Smart SSD devices" / "<id>.splits"} and {@code "<id>.flash_bytes_read"}.
 */
public class DeviceRecordReader<K, V> extends RecordReader<K, V> {
    /** Counter group of the per-device counters (which device served how much). */
    public static final String DEVICES_GROUP = "Smart SSD devices";

    private final ArrayDeque<Map.Entry<K, V>> pending = new ArrayDeque<>();
    private TaskAttemptContext context;
    private SmartSsdFileSystem fs;
    private DeviceMapperFormat<K, V> format;
    private TaskletRun run;
    private String where;
    private Map.Entry<K, V> current;
    private OffloadTask offload;   // a planned split (smartssd.offload = host | auto), else null
    private boolean finished;
    private boolean closed;

    @Override
    public void initialize(InputSplit genericSplit, TaskAttemptContext ctx) throws IOException {
        this.context = ctx;
        FileSplit split = (FileSplit) genericSplit;
        Configuration conf = ctx.getConfiguration();
        Path path = split.getPath();
        fs = smartssd(path, conf);
        DeviceMapper mapper = DeviceMapper.readFrom(conf);
        format = DeviceJob.newFormat(conf);
        where = "smartssd device '" + fs.deviceSpec().id() + "' running " + mapper + " over " + path + " ["
                + split.getStart() + ", +" + split.getLength() + ")";
        ObjectInfo object = fs.objectOf(path);
        if (split.getLength() == 0) {
            finished = true; // an empty object: nothing to run
            return;
        }
        if (split instanceof OffloadSplit os) {
            offload = OffloadTask.start(os, fs, conf);
            ctx.setStatus("offload " + offload.why() + ": " + path.getName() + " [" + split.getStart() + ", +"
                    + split.getLength() + ")");
            if (offload.lane() == io.smartssd.device.offload.OffloadPlan.Lane.HOST) {
                where = "the host running " + conf.get(DeviceJob.HOST_MAPPER) + " over " + path + " [" + split.getStart()
                        + ", +" + split.getLength() + ")";
                for (io.smartssd.proto.Row row : offload.runOnHost(fs, object, mapper, conf)) {
                    format.convert(row, (k, v) -> pending.add(Map.entry(k, v)));
                }
                finished = true;
                return;
            }
        } else {
            ctx.setStatus("device " + fs.deviceSpec().id() + ": " + path.getName() + " [" + split.getStart() + ", +"
                    + split.getLength() + ")");
        }
        try {
            run = TaskletRun.start(fs.device(), mapper.spec(), Extent.of(object.id(), split.getStart(), split.getLength()),
                    PollingPolicy.DEFAULT, this::onProgress);
        } catch (RuntimeException e) {
            throw failure(e);
        }
    }

    /** The smartssd FileSystem of a DeviceJob input, or an error naming the path. */
    static SmartSsdFileSystem smartssd(Path path, Configuration conf) throws IOException {
        FileSystem fs = path.getFileSystem(conf);
        if (!(fs instanceof SmartSsdFileSystem s)) {
            throw new IOException("DeviceJob input " + path + " is not on a smartssd:// device (its FileSystem is "
                    + fs.getClass().getName() + "); a DeviceMapper runs inside the device that holds its input");
        }
        return s;
    }

    private void onProgress(TaskProgress p) {
        context.progress();
    }

    @Override
    public boolean nextKeyValue() throws IOException {
        while (pending.isEmpty() && !finished) {
            try {
                if (run.hasNext()) {
                    format.convert(run.next(), (k, v) -> pending.add(Map.entry(k, v)));
                } else {
                    finished = true;
                }
            } catch (DeviceException | java.util.concurrent.CancellationException e) {
                throw failure(e);
            }
        }
        current = pending.poll();
        return current != null;
    }

    private IOException failure(RuntimeException e) {
        return new IOException(where + " failed: " + e.getMessage(), e);
    }

    @Override
    public K getCurrentKey() {
        return current == null ? null : current.getKey();
    }

    @Override
    public V getCurrentValue() {
        return current == null ? null : current.getValue();
    }

    @Override
    public float getProgress() {
        if (finished) {
            return 1f;
        }
        TaskProgress p = run == null ? null : run.progress();
        return p == null ? 0f : (float) p.fraction();
    }

    @Override
    public void close() throws IOException {
        if (fs == null || closed) {
            return; // never initialized, or closed already
        }
        closed = true;
        TaskProgress p = run == null ? null : run.progress();   // no run: an empty split, or on the host
        if (run != null) {
            run.close();
        }
        if (offload != null) {
            offload.finish(context, p);
            if (offload.lane() == io.smartssd.device.offload.OffloadPlan.Lane.HOST) {
                run = null;
                return;   // the host's reads are counted by the FileSystem's device, not as a device split
            }
        }
        long commands = (run == null ? 0 : run.commands()) + 1; // + the stat of the input object
        context.getCounter(DeviceCounter.COMMANDS).increment(commands);
        context.getCounter(DeviceCounter.POLLS).increment(run == null ? 0 : run.polls());
        context.getCounter(DeviceCounter.SPLITS).increment(1);
        fs.recordCommands(commands, run == null ? 0 : run.commandNanos());
        String id = fs.deviceSpec().id();
        context.getCounter(DEVICES_GROUP, id + ".splits").increment(1);
        if (p != null) {
            context.getCounter(DeviceCounter.DEVICE_NANOS).increment(p.deviceNanos());
            context.getCounter(DeviceCounter.FLASH_BYTES_READ).increment(p.flashBytesRead());
            context.getCounter(DeviceCounter.BYTES_TO_HOST).increment(p.bytesToHost());
            context.getCounter(DeviceCounter.ROWS).increment(p.rows());
            context.getCounter(DEVICES_GROUP, id + ".flash_bytes_read").increment(p.flashBytesRead());
            fs.recordBytesToHost(p.bytesToHost());
        }
        run = null;
    }
}
