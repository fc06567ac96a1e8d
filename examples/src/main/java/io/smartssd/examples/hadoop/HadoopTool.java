package io.smartssd.examples.hadoop;

import io.smartssd.examples.cli.Cli;
import io.smartssd.examples.local.InProcessLocalFileSystem;
import io.smartssd.hadoop.mapreduce.DeviceCounter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import picocli.CommandLine;

/**
 * A {@link ToolRunner} tool whose own arguments picocli parses: ToolRunner takes Hadoop's generic
 * options first ({@code -D key=value}, {@code -conf}, {@code -fs}, ...), picocli the rest, with
 * {@code --help} (which lists the generic options too), {@code --version}, and the exit codes of every
 * smartssd command line (2 for a usage error, 1 for a failure).
 */
abstract class HadoopTool extends Configured implements Tool, Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    HadoopTool(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public final int run(String[] args) {
        if ("local".equals(getConf().get("mapreduce.framework.name", "local"))) {
            // LocalJobRunner stages and runs in this JVM: no chmod process per staged file
            InProcessLocalFileSystem.use(getConf());
        }
        CommandLine cl = Cli.configure(new CommandLine(this), out, err);
        List<String> generic = genericOptions();
        cl.getCommandSpec().usageMessage()
                .footerHeading("%nHadoop's generic options (before the arguments):%n")
                .footer(generic.toArray(new String[0]))
                .width(Math.max(80, generic.stream().mapToInt(String::length).max().orElse(0) + 2));
        return cl.execute(args);
    }

    PrintStream err() {
        return err;
    }

    /** ToolRunner's own lines on the generic options (without its heading and its syntax line). */
    private static List<String> genericOptions() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ToolRunner.printGenericCommandUsage(new PrintStream(b, true, StandardCharsets.UTF_8));
        return b.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("-"))
                .map(l -> "  " + l.replace("%", "%%")).toList();
    }

    /** The job's device counters, one line on stderr. */
    void printDeviceCounters(Counters c) {
        if (c == null) {
            return;
        }
        err.printf("device time %d ns, flash bytes read %d, bytes to host %d, commands %d, polls %d%n",
                c.findCounter(DeviceCounter.DEVICE_NANOS).getValue(),
                c.findCounter(DeviceCounter.FLASH_BYTES_READ).getValue(),
                c.findCounter(DeviceCounter.BYTES_TO_HOST).getValue(),
                c.findCounter(DeviceCounter.COMMANDS).getValue(), c.findCounter(DeviceCounter.POLLS).getValue());
    }
}
