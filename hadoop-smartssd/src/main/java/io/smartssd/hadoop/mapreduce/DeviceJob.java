package io.smartssd.hadoop.mapreduce;

import java.io.IOException;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import org.apache.hadoop.conf.Configuration;
import io.smartssd.hadoop.mapreduce.format.ColumnsFormat;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * A MapReduce job whose map stage runs inside Smart SSDs (paper III-C, Fig. 3b): configured like a
 * {@link Job} (it is one), but instead of an InputFormat and a host map function it takes a
 * {@link DeviceMapper} (a tasklet) and a {@link DeviceMapperFormat} (device rows to key/value pairs).
 * Each map task runs the tasklet over its split where the data lies and only the tasklet's output
 * crosses to the host; combiner, shuffle, sort, reducer and output format are Hadoop's as usual.
 *
 * The common shape, a tasklet that emits (key, count) rows summed per key on the host, is one call:
 * <pre>{@code
 * DeviceJob job = DeviceJob.counting(conf, "accesses per region",
 *         DeviceMapper.tasklet("weblog-q1").param("entry_bytes", "20"), out, new Path("smartssd://dev0/wc98.bin"));
 * job.waitForCompletion(true);
 * }</pre>
 * and in full:
 * <pre>{@code
 * DeviceJob job = DeviceJob.getInstance(conf, "accesses per region");
 * job.addInputPath(new Path("smartssd://dev0/logs/wc98.bin"));
 * job.setDeviceMapper(DeviceMapper.tasklet("weblog-q1").param("entry_bytes", "20"));
 * job.setDeviceMapperFormat(ColumnsFormat.class);       // (region, count) -> Text, LongWritable
 * job.setCombinerClass(LongSumReducer.class);
 * job.setReducerClass(LongSumReducer.class);
 * FileOutputFormat.setOutputPath(job, out);
 * job.waitForCompletion(true);
 * }</pre>
 */
public class DeviceJob extends Job {
    /** The DeviceMapperFormat class. */
    public static final String FORMAT = "smartssd.mapper.format";
    /** The DeviceMapper's host counterpart ({@link HostMapper}): what splits left to the host run. */
    public static final String HOST_MAPPER = "smartssd.host.mapper";
    /**
     * Where splits run: {@code device} (the default: every split in its device), {@code host} (every split
     * on the host, by the {@link HostMapper}) or {@code auto} (each split where the offload planner predicts
     * the job ends soonest; docs/OFFLOAD.md). host and auto need {@link #HOST_MAPPER}; a bad value fails the
     * job at submission, naming the key.
     */
    public static final String OFFLOAD = "smartssd.offload";
    /**
     * With {@link #OFFLOAD} host or auto: a file each split appends one JSON line to (split, device, bytes,
     * planned and actual lane, why, predicted and actual ns, the plan's figures); unset: no report.
     */
    public static final String OFFLOAD_REPORT = "smartssd.offload.report";
    /** Set at submission (host or auto): the plan's one line (splits per lane, predicted makespan and energy). */
    public static final String OFFLOAD_PLAN_SUMMARY = "smartssd.offload.plan.summary";
    /**
     * Counter group of a planned job: {@code device.splits}, {@code host.splits}, {@code *.splits.replanned},
     * {@code *.predicted_ns}, {@code *.actual_ns}, {@code host.bytes_read}, {@code host.cpu_ns},
     * {@code host.calibration_disagreed}.
     */
    public static final String OFFLOAD_COUNTERS = "Smart SSD offload";

    @SuppressWarnings("deprecation") // Job's public constructors are deprecated in favour of getInstance
    protected DeviceJob(Configuration conf, String name) throws IOException {
        super(conf, name);
        setInputFormatClass(DeviceInputFormat.class);
        setMapperClass(Mapper.class); // identity: the tasklet is the map function
        setJarByClass(DeviceJob.class);
        smallSortBuffer(getConfiguration());
        // the scheme resolves when this jar came with -libjars or a job's classpath, not Hadoop's own
        SmartSsdFileSystem.register(getConfiguration());
    }

    /** Map-side sort buffer (MB) a DeviceJob uses unless the job's configuration sets one. */
    public static final int DEFAULT_SORT_MB = 16;

    /**
     * A device map emits the tasklet's results, not the input's records, so Hadoop's default 100 MB
     * map-side sort buffer is never filled; allocating it cost more than the tasklet itself on a 1 GB
     * web-log job (0.7 s of a 2 s map task). A value the user set wins.
     */
    private static void smallSortBuffer(Configuration conf) {
        String[] from = conf.getPropertySources(MRJobConfig.IO_SORT_MB);
        boolean defaulted = from == null || from.length == 0
                || (from.length == 1 && from[0].endsWith("-default.xml"));
        if (defaulted) {
            conf.setInt(MRJobConfig.IO_SORT_MB, DEFAULT_SORT_MB);
        }
    }

    public static DeviceJob getInstance(Configuration conf, String name) throws IOException {
        return new DeviceJob(conf, name);
    }

    public static DeviceJob getInstance(Configuration conf) throws IOException {
        return new DeviceJob(conf, "DeviceJob");
    }

    /**
     * A counting job: the tasklet's rows are (key, count) ({@link ColumnsFormat}: the last column is
     * the count, the others the key), combined and summed per key on the host ({@link LongSumReducer})
     * and written as Text / LongWritable to {@code output}.
     */
    public static DeviceJob counting(Configuration conf, String name, DeviceMapper mapper, Path output,
                                     Path... inputs) throws IOException {
        DeviceJob job = getInstance(conf, name);
        for (Path in : inputs) {
            job.addInputPath(in);
        }
        job.setDeviceMapper(mapper);
        job.setDeviceMapperFormat(ColumnsFormat.class);
        job.setCombinerClass(LongSumReducer.class);
        job.setReducerClass(LongSumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(LongWritable.class);
        FileOutputFormat.setOutputPath(job, output);
        return job;
    }

    /** The tasklet each map task runs in the device. */
    public DeviceJob setDeviceMapper(DeviceMapper mapper) {
        setMapperClass(Mapper.class); // also refuses a job already submitted
        mapper.writeTo(getConfiguration());
        return this;
    }

    /** How device rows become map output pairs; also sets the map output key and value classes. */
    public DeviceJob setDeviceMapperFormat(Class<? extends DeviceMapperFormat<?, ?>> format) {
        setMapperClass(Mapper.class); // also refuses a job already submitted
        getConfiguration().setClass(FORMAT, format, DeviceMapperFormat.class);
        DeviceMapperFormat<?, ?> f = ReflectionUtils.newInstance(format, getConfiguration());
        setMapOutputKeyClass(f.keyClass());
        setMapOutputValueClass(f.valueClass());
        return this;
    }

    /**
     * The DeviceMapper's host counterpart: what a split runs when the offload planner leaves it to the host
     * ({@link #OFFLOAD} host or auto, which require it).
     */
    public DeviceJob setHostMapper(Class<? extends HostMapper> hostMapper) {
        setMapperClass(Mapper.class); // also refuses a job already submitted
        getConfiguration().setClass(HOST_MAPPER, hostMapper, HostMapper.class);
        return this;
    }

    /** Where splits run ({@link #OFFLOAD}): device (default), host or auto. */
    public DeviceJob setOffload(io.smartssd.device.offload.OffloadMode mode) {
        setMapperClass(Mapper.class); // also refuses a job already submitted
        getConfiguration().set(OFFLOAD, mode.label());
        return this;
    }

    /** Adds an input object or directory on a {@code smartssd://} device. */
    public DeviceJob addInputPath(Path path) throws IOException {
        FileInputFormat.addInputPath(this, path);
        return this;
    }

    /** The job's DeviceMapperFormat, configured; an IOException names the key when it is missing or wrong. */
    @SuppressWarnings("unchecked")
    static <K, V> DeviceMapperFormat<K, V> newFormat(Configuration conf) throws IOException {
        Class<?> c;
        try {
            c = conf.getClass(FORMAT, null);
        } catch (RuntimeException e) {
            throw new IOException(FORMAT + " = " + conf.get(FORMAT) + ": " + e.getMessage(), e);
        }
        if (c == null) {
            throw new IOException(FORMAT + " is not set: a DeviceJob needs a DeviceMapperFormat"
                    + " (DeviceJob.setDeviceMapperFormat)");
        }
        if (!DeviceMapperFormat.class.isAssignableFrom(c)) {
            throw new IOException(FORMAT + " = " + c.getName() + " is not a DeviceMapperFormat");
        }
        return (DeviceMapperFormat<K, V>) ReflectionUtils.newInstance(c, conf);
    }
}
