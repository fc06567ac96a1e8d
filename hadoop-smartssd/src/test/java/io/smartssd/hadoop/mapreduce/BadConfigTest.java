package io.smartssd.hadoop.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.hadoop.fs.Constants;
import io.smartssd.hadoop.fs.TestImages;
import io.smartssd.hadoop.mapreduce.format.ColumnsFormat;
import io.smartssd.hadoop.mapreduce.format.RowTextFormat;
import io.smartssd.proto.Binary;
import io.smartssd.proto.BinaryOp;
import io.smartssd.proto.Column;
import io.smartssd.proto.ColumnType;
import io.smartssd.proto.Expr;
import io.smartssd.proto.FixedRecords;
import io.smartssd.proto.Literal;
import io.smartssd.proto.Plan;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import java.util.List;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad configuration fails fast, before any task runs, with a message naming the key or value; a device
 * failure during a map fails the task attempt with the device's message and the job ends (no hang).
 */
class BadConfigTest {
    static final String DEV = "bad";
    static final int RECORDS = 4_000;
    static final String LOGS = "smartssd://" + DEV + "/logs.bin";
    static Configuration conf;
    static FileSystem fs;

    @BeforeAll
    static void setUp() throws Exception {
        conf = JobRunner.localConf(DEV, TestImages.fresh("bad"));
        fs = FileSystem.get(URI.create("smartssd://" + DEV + "/"), conf);
        JobRunner.put(fs, LOGS, TestData.wc98(RECORDS, 20, 3));
    }

    @AfterAll
    static void tearDown() throws Exception {
        fs.close();
    }

    private static IOException fsError(Configuration c, String uri) {
        Configuration copy = new Configuration(c);
        copy.setBoolean("fs.smartssd.impl.disable.cache", true);
        return assertThrows(IOException.class, () -> FileSystem.get(URI.create(uri), copy).close());
    }

    @Test
    void unknownDeviceIdNamesTheKeys() {
        IOException e = fsError(conf, "smartssd://nosuch/x");
        assertTrue(e.getMessage().contains("unknown smartssd device 'nosuch'"), e.getMessage());
        assertTrue(e.getMessage().contains("fs.smartssd.device.nosuch.image"), e.getMessage());
        assertTrue(e.getMessage().contains("fs.smartssd.device.nosuch.socket"), e.getMessage());
    }

    @Test
    void missingImageNamesKeyAndPath() {
        Configuration c = new Configuration(conf);
        c.set("fs.smartssd.device.gone.image", "/nonexistent/dir/dev.img");
        IOException e = fsError(c, "smartssd://gone/");
        assertTrue(e.getMessage().contains("fs.smartssd.device.gone.image = /nonexistent/dir/dev.img"), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void bothImageAndSocketIsRefused() {
        Configuration c = new Configuration(conf);
        c.set("fs.smartssd.device.two.image", "/a.img");
        c.set("fs.smartssd.device.two.socket", "/a.sock");
        IOException e = fsError(c, "smartssd://two/");
        assertTrue(e.getMessage().contains("set exactly one"), e.getMessage());
    }

    @Test
    void missingSocketNamesKey() {
        Configuration c = new Configuration(conf);
        c.set("fs.smartssd.device.remote.socket", "/nonexistent/csdd.sock");
        IOException e = fsError(c, "smartssd://remote/");
        assertTrue(e.getMessage().contains("fs.smartssd.device.remote.socket = /nonexistent/csdd.sock"), e.getMessage());
        assertTrue(e.getMessage().contains("unreachable"), e.getMessage());
    }

    /** A socket file nobody listens on (a daemon that died): the connect fails, naming the key. */
    @Test
    void deadSocketNamesKey() throws Exception {
        Path sock = Files.createTempDirectory(TestImages.dir(), "sock").resolve("dead.sock");
        try (ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.bind(UnixDomainSocketAddress.of(sock));
        }
        assertTrue(Files.exists(sock));
        Configuration c = new Configuration(conf);
        c.set("fs.smartssd.device.dead.socket", sock.toString());
        IOException e = fsError(c, "smartssd://dead/");
        assertTrue(e.getMessage().contains("fs.smartssd.device.dead.socket = " + sock), e.getMessage());
    }

    @Test
    void imageInUseByAnotherHandleIsBusy() throws Exception {
        Path image = TestImages.fresh("busy");
        io.smartssd.device.SmartSsd other = io.smartssd.device.SmartSsd.openEmbedded(image);
        try {
            Configuration c = new Configuration(conf);
            c.set(Constants.DEVICE_PREFIX + "busy" + Constants.DEVICE_IMAGE_SUFFIX, image.toString());
            IOException e = fsError(c, "smartssd://busy/");
            assertTrue(e.getMessage().contains("fs.smartssd.device.busy.image"), e.getMessage());
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        } finally {
            other.close();
        }
    }

    private static DeviceJob job(DeviceMapper m) throws IOException {
        DeviceJob job = DeviceJob.getInstance(conf, "bad");
        job.addInputPath(new org.apache.hadoop.fs.Path(LOGS));
        job.setDeviceMapper(m);
        job.setDeviceMapperFormat(ColumnsFormat.class);
        job.setReducerClass(LongSumReducer.class);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(LongWritable.class);
        FileOutputFormat.setOutputPath(job, new org.apache.hadoop.fs.Path(
                TestImages.dir().resolve("out-bad-" + UUID.randomUUID()).toUri()));
        return job;
    }

    @Test
    void unknownTaskletFailsAtSubmission() throws Exception {
        DeviceJob job = job(DeviceMapper.tasklet("nosuch"));
        IOException e = assertThrows(IOException.class, () -> job.waitForCompletion(false));
        assertTrue(e.getMessage().contains("smartssd.mapper.tasklet = 'nosuch'"), e.getMessage());
        assertTrue(e.getMessage().contains("weblog-q1"), "lists the known tasklets: " + e.getMessage());
    }

    @Test
    void rejectedStaticParamNamesItsKey() throws Exception {
        DeviceJob job = job(DeviceMapper.tasklet("weblog-q1").param("entry_bytes", "19"));
        IOException e = assertThrows(IOException.class, () -> job.waitForCompletion(false));
        assertTrue(e.getMessage().contains("smartssd.mapper.param.entry_bytes = 19"), e.getMessage());
        assertTrue(e.getMessage().contains("out of range"), e.getMessage());
    }

    @Test
    void rejectedRuntimeParamNamesItsKey() throws Exception {
        DeviceJob job = job(DeviceMapper.tasklet("weblog-q2").param("entry_bytes", "20").runtimeParam("top_n", "14"));
        IOException e = assertThrows(IOException.class, () -> job.waitForCompletion(false));
        assertTrue(e.getMessage().contains("smartssd.mapper.runtime.top_n = 14"), e.getMessage());
    }

    /** The device names the parameter in its own field; its message need not (grep's does not). */
    @Test
    void missingParamNamesItsKey() throws Exception {
        DeviceJob job = job(DeviceMapper.tasklet("grep"));
        IOException e = assertThrows(IOException.class, () -> job.waitForCompletion(false));
        assertTrue(e.getMessage().contains("[configuration key smartssd.mapper.param.pattern = (unset)]"), e.getMessage());
    }

    /** 4000 records of 20 bytes are not a whole number of 32-byte records: refused at submission. */
    @Test
    void framingThatDoesNotFitTheObjectFailsAtSubmission() throws Exception {
        DeviceJob job = job(DeviceMapper.tasklet("weblog-q1").param("entry_bytes", "48"));
        IOException e = assertThrows(IOException.class, () -> job.waitForCompletion(false));
        assertTrue(e.getMessage().contains("not a multiple of entry_bytes 48"), e.getMessage());
    }

    @Test
    void inputOffTheDeviceIsRefused() throws Exception {
        Path local = Files.createTempFile(TestImages.dir(), "local", ".bin");
        DeviceJob job = job(DeviceMapper.tasklet("weblog-q1"));
        FileInputFormat.setInputPaths(job, new org.apache.hadoop.fs.Path(local.toUri()));
        IOException e = assertThrows(IOException.class, () -> job.waitForCompletion(false));
        assertTrue(e.getMessage().contains("is not on a smartssd:// device"), e.getMessage());
    }

    /**
     * A plan dividing by (timestamp - last timestamp): only the object's last record divides by zero, so
     * the trial run at submission passes and the last split's map fails on the device.
     */
    @Test
    void deviceFailureFailsTheTaskWithTheDevicesMessage() throws Exception {
        Plan plan = Plan.newBuilder().setFixed(FixedRecords.newBuilder().setEntryBytes(20))
                .addColumns(Column.newBuilder().setName("ts").setType(ColumnType.INT64).setOffset(0).setWidth(4)
                        .setBigEndian(true))
                .addProject(div(Expr.newBuilder().setLiteral(Literal.newBuilder().setI(1)).build(),
                        Expr.newBuilder().setBinary(Binary.newBuilder().setOp(BinaryOp.SUB)
                                .setLeft(Expr.newBuilder().setColumn(0))
                                .setRight(Expr.newBuilder().setLiteral(
                                        Literal.newBuilder().setI(TestData.BASE_TS + RECORDS - 1)))).build()))
                .build();
        DeviceJob job = job(DeviceMapper.plan(plan));
        job.setDeviceMapperFormat(RowTextFormat.class);
        job.setReducerClass(org.apache.hadoop.mapreduce.Reducer.class);
        job.setOutputValueClass(org.apache.hadoop.io.NullWritable.class);
        job.getConfiguration().setInt("mapreduce.map.maxattempts", 2);
        FileInputFormat.setMaxInputSplitSize(job, 20_000);
        long t0 = System.nanoTime();
        assertFalse(job.waitForCompletion(false));
        assertTrue(System.nanoTime() - t0 < 60_000_000_000L, "the failed job ended promptly");

        // LocalJobRunner keeps no task diagnostics (the YARN test checks them there): run the failing
        // split's record reader as its map task does and look at what fails the attempt.
        List<InputSplit> splits = new DeviceInputFormat<Text, NullWritable>().getSplits(job);
        InputSplit last = splits.get(splits.size() - 1);
        TaskAttemptContext ctx = new TaskAttemptContextImpl(job.getConfiguration(),
                new TaskAttemptID("local", 1, TaskType.MAP, splits.size() - 1, 0));
        DeviceRecordReader<Text, NullWritable> reader = new DeviceRecordReader<>();
        IOException e = assertThrows(IOException.class, () -> {
            reader.initialize(last, ctx);
            while (reader.nextKeyValue()) {
                reader.getCurrentKey();
            }
        });
        reader.close();
        assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
        assertTrue(e.getMessage().contains("smartssd device 'bad'"), e.getMessage());
        assertTrue(e.getMessage().contains("TASKLET_ERROR"), e.getMessage());
        // every split before the last answers (the first record divides by -3999, ...)
        DeviceRecordReader<Text, NullWritable> first = new DeviceRecordReader<>();
        first.initialize(splits.get(0), ctx);
        int rows = 0;
        while (first.nextKeyValue()) {
            rows++;
        }
        first.close();
        assertEquals(1000, rows);
        // the device keeps serving: the next job runs
        DeviceJob ok = job(DeviceMapper.tasklet("weblog-q1"));
        assertTrue(ok.waitForCompletion(false));
        assertEquals(RECORDS, JobRunner.output(Path.of(FileOutputFormat.getOutputPath(ok).toUri())).values().stream()
                .mapToLong(Long::longValue).sum());
    }

    private static Expr div(Expr a, Expr b) {
        return Expr.newBuilder().setBinary(Binary.newBuilder().setOp(BinaryOp.DIV).setLeft(a).setRight(b)).build();
    }
}
