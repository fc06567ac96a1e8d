package io.smartssd.examples.hadoop;

import io.smartssd.hadoop.mapreduce.DeviceCounter;
import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * The paper's first web-log query as a DeviceJob: accesses per region of WorldCup98 records, counted
 * inside the device, summed on the host.
 * {@code bin/smartssd hadoop weblog-q1 -D fs.smartssd.device.dev0.image=/data/dev.img
 * smartssd://dev0/wc98.bin out [entry_bytes]}
 */
public class WeblogQ1 extends Configured implements Tool {
    @Override
    public int run(String[] args) throws Exception {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: WeblogQ1 [generic options] INPUT OUTPUT [ENTRY_BYTES]");
            ToolRunner.printGenericCommandUsage(System.err);
            return 2;
        }
        DeviceJob job = DeviceJob.counting(getConf(), "weblog-q1 " + args[0],
                DeviceMapper.tasklet("weblog-q1").param("entry_bytes", args.length > 2 ? args[2] : "20"),
                new Path(args[1]), new Path(args[0]));
        boolean ok = job.waitForCompletion(true);
        printDeviceCounters(job.getCounters());
        return ok ? 0 : 1;
    }

    static void printDeviceCounters(Counters c) {
        if (c == null) {
            return;
        }
        System.err.printf("device time %d ns, flash bytes read %d, bytes to host %d, commands %d, polls %d%n",
                c.findCounter(DeviceCounter.DEVICE_NANOS).getValue(),
                c.findCounter(DeviceCounter.FLASH_BYTES_READ).getValue(),
                c.findCounter(DeviceCounter.BYTES_TO_HOST).getValue(),
                c.findCounter(DeviceCounter.COMMANDS).getValue(), c.findCounter(DeviceCounter.POLLS).getValue());
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new WeblogQ1(), args));
    }
}
