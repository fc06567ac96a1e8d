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
 * grep -c as a DeviceJob: lines containing a literal pattern, counted inside the device.
 * {@code bin/smartssd hadoop grep -D fs.smartssd.device.dev0.image=/data/dev.img
 * smartssd://dev0/access.log out /images/}
 */
@Command(name = "grep", mixinStandardHelpOptions = true, versionProvider = Cli.VersionInfo.class,
        description = "Lines of text holding a literal PATTERN, counted inside the device as a DeviceJob (the grep "
            + "tasklet), summed on the host and written to OUTPUT.")
public class Grep extends HadoopTool {
    @Parameters(index = "0", paramLabel = "INPUT", description = "the text: smartssd://ID/PATH (a file or a directory)")
    String input;
    @Parameters(index = "1", paramLabel = "OUTPUT", description = "the output directory (must not exist)")
    String output;
    @Parameters(index = "2", paramLabel = "PATTERN", description = "a literal, not empty")
    String pattern;

    public Grep() {
        this(System.out, System.err);
    }

    Grep(PrintStream out, PrintStream err) {
        super(out, err);
    }

    @Override
    public Integer call() throws Exception {
        if (pattern.isEmpty()) {
            throw new IllegalArgumentException("PATTERN must not be empty");
        }
        DeviceJob job = DeviceJob.counting(getConf(), "grep " + pattern, DeviceMapper.tasklet("grep").keyword(pattern),
                new Path(output), new Path(input));
        boolean ok = job.waitForCompletion(true);
        printDeviceCounters(job.getCounters());
        return ok ? 0 : Cli.FAILURE;
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new Grep(), args));
    }
}
