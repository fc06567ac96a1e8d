package io.smartssd.hadoop.runtime;

import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * A user's job driver, run by RuntimeJarIT in a JVM with Hadoop's client jars and the runtime jar only:
 * writes {@code smartssd://d0/in.txt} and counts its lines holding "needle" with a DeviceJob (LocalJobRunner).
 * Arguments after Hadoop's generic options (-D, -libjars): the output directory.
 */
public final class RuntimeJarDriver extends Configured implements Tool {
    @Override
    public int run(String[] args) throws Exception {
        Path in = new Path("smartssd://d0/in.txt");
        FileSystem fs = FileSystem.get(URI.create("smartssd://d0/"), getConf());
        try (OutputStream o = fs.create(in, true)) {
            o.write("a needle\nhay\nneedle b\nmore hay\nthe needle\n".getBytes(StandardCharsets.UTF_8));
        }
        DeviceJob job = DeviceJob.counting(getConf(), "grep with the runtime jar",
                DeviceMapper.tasklet("grep").keyword("needle"), new Path(args[0]), in);
        return job.waitForCompletion(false) ? 0 : 1;
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new RuntimeJarDriver(), args));
    }
}
