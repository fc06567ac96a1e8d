package io.smartssd.hadoop.mapreduce;

import java.io.IOException;
import io.smartssd.device.offload.OffloadMode;
import io.smartssd.device.offload.OffloadSettings;
import java.util.List;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;

/**
 * The input format of a DeviceJob. Splits are FileInputFormat's: byte extents of the input objects,
 * cut at {@code fs.smartssd.block.size} (or the job's split size) with the device's host as their
 * location; they need no alignment because the device applies Hadoop's ownership rules itself (a text
 * extent owns the lines that start in it, a record extent the records whose first byte it holds), so
 * the splits' answers compose exactly. Before any task runs, {@link #getSplits} checks the DeviceMapper
 * on every device involved, so a bad tasklet name or param fails the submission, and with
 * {@code smartssd.offload = host | auto} plans each split, device or host ({@link OffloadSplit}).
 */
public class DeviceInputFormat<K, V> extends FileInputFormat<K, V> {
    @Override
    public List<InputSplit> getSplits(JobContext job) throws IOException {
        // a bad offload setting, or host/auto without a host version, fails before any device is asked
        OffloadSettings s = DeviceOffload.settings(job.getConfiguration());
        HostMapper host = s.mode() == OffloadMode.DEVICE ? null : DeviceOffload.hostMapper(job.getConfiguration(), s.mode());
        List<InputSplit> splits = super.getSplits(job);
        DeviceMapperCheck.check(job.getConfiguration(), splits);
        return host == null ? splits : DeviceOffload.plan(job.getConfiguration(), s, host, splits);
    }

    @Override
    public RecordReader<K, V> createRecordReader(InputSplit split, TaskAttemptContext context) {
        return new DeviceRecordReader<>();
    }
}
