package io.smartssd.examples.hadoop;

import io.smartssd.examples.cli.Cli;
import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import java.io.PrintStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The paper's first web-log query as a DeviceJob: accesses per region of WorldCup98 records, counted
 * inside the device, summed on the host.
 * {@code bin/smartssd hadoop weblog-q1 -D fs.smartssd.device.dev0.image=/data/dev.img
 * smartssd://dev0/wc98.bin out [entry_bytes]}
 */
@Command(name = "weblog-q1", mixinStandardHelpOptions = true, versionProvider = Cli.VersionInfo.class,
        description = "Accesses per region of WorldCup98 records (the Smart SSD paper's Q1) as a DeviceJob: "
            + "counted inside the device, summed on the host, written to OUTPUT as `region TAB count`.")
public class WeblogQ1 extends HadoopTool {
    @Parameters(index = "0", paramLabel = "INPUT", description = "the records: smartssd://ID/PATH (a file or a directory)")
    String input;
    @Parameters(index = "1", paramLabel = "OUTPUT", description = "the output directory (must not exist)")
    String output;
    @Parameters(index = "2", arity = "0..1", paramLabel = "ENTRY_BYTES", defaultValue = "20",
            description = "bytes per record, 20 or padded (default: ${DEFAULT-VALUE})")
    int entryBytes;

    public WeblogQ1() {
        this(System.out, System.err);
    }

    WeblogQ1(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        DeviceJob job = DeviceJob.counting(getConf(), "weblog-q1 " + input,
                DeviceMapper.tasklet("weblog-q1").param("entry_bytes", Integer.toString(entryBytes)),
                new Path(output), new Path(input));
        boolean ok = job.waitForCompletion(true);
        printDeviceCounters(job.getCounters());
        return ok ? 0 : Cli.FAILURE;
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new WeblogQ1(), args));
    }
}
