package io.smartssd.hadoop.mapreduce;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * A DeviceJob split the offload planner placed ({@code smartssd.offload = host | auto}): the extent, its
 * index in the job, and its placement (lane, predicted times) as an encoded one-split
 * {@link io.smartssd.device.offload.OffloadPlan}, which the task rechecks when it starts.
 */
public class OffloadSplit extends FileSplit {
    private int index;
    private String plan = "";

    /** For Hadoop's deserialization. */
    public OffloadSplit() {
    }

    OffloadSplit(Path path, long start, long length, String[] hosts, int index, String plan) {
        super(path, start, length, hosts);
        this.index = index;
        this.plan = plan;
    }

    /** The split's index in the job (the plan's numbering). */
    public int index() {
        return index;
    }

    /** Its placement: an encoded OffloadPlan holding this split only. */
    public String plan() {
        return plan;
    }

    @Override
    public void write(DataOutput out) throws IOException {
        super.write(out);
        out.writeInt(index);
        Text.writeString(out, plan);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
        super.readFields(in);
        index = in.readInt();
        plan = Text.readString(in);
    }

    @Override
    public String toString() {
        return super.toString() + " [split " + index + "]";
    }
}
