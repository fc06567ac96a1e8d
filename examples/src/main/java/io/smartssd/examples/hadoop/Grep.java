package io.smartssd.examples.hadoop;

import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * grep -c as a DeviceJob: lines containing a literal pattern, counted inside the device.
 * {@code bin/smartssd hadoop grep -D fs.smartssd.device.dev0.image=/data/dev.img
 * smartssd://dev0/access.log out /images/}
 */
public class Grep extends Configured implements Tool {
    @Override
    public int run(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: Grep [generic options] INPUT OUTPUT PATTERN");
            ToolRunner.printGenericCommandUsage(System.err);
            return 2;
        }
        DeviceJob job = DeviceJob.counting(getConf(), "grep " + args[2], DeviceMapper.tasklet("grep").keyword(args[2]),
                new Path(args[1]), new Path(args[0]));
        boolean ok = job.waitForCompletion(true);
        WeblogQ1.printDeviceCounters(job.getCounters());
        return ok ? 0 : 1;
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new Grep(), args));
    }
}
