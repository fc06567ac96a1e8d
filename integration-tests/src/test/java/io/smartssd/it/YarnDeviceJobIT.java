package io.smartssd.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smartssd.device.SmartSsd;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.hadoop.mapreduce.DeviceCounter;
import io.smartssd.hadoop.mapreduce.DeviceJob;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import io.smartssd.hadoop.mapreduce.DeviceRecordReader;
import io.smartssd.hadoop.mapreduce.format.RowTextFormat;
import io.smartssd.proto.Binary;
import io.smartssd.proto.BinaryOp;
import io.smartssd.proto.Column;
import io.smartssd.proto.ColumnType;
import io.smartssd.proto.Expr;
import io.smartssd.proto.FixedRecords;
import io.smartssd.proto.Literal;
import io.smartssd.proto.Plan;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A DeviceJob on a real cluster engine: MiniMRYarnCluster with two NodeManagers, each beside its own
 * csdd daemon holding different objects (dev1: a.bin, dev2: b.bin). Map tasks run in YARN containers
 * (separate JVMs) and reach their split's device over its socket. Checks the answer, that each split was
 * served by its own device (per-device task counters, and each daemon's own execute_object count), and
 * that a device failure fails the task attempts with the device's message, Hadoop retries, the job fails.
 */
class YarnDeviceJobIT {
    static final String[] REGIONS = {"Santa Clara", "Plano", "Herndon", "Paris", "region-4", "region-5",
        "region-6", "region-7"};
    static final int A_RECORDS = 8_000;
    static final int B_RECORDS = 6_000;
    static final long SPLIT = 100_000;

    static Path tmp;
    static Csdd dev1;
    static Csdd dev2;
    static MiniMRYarnCluster cluster;
    static Configuration conf;
    static byte[] a;
    static byte[] b;
    static Path jobJar;

    @BeforeAll
    static void setUp() throws Exception {
        Csdd.binary();
        tmp = Files.createTempDirectory("smartssd-yarn"); // short: socket paths are limited to 107 bytes
        Path img1 = tmp.resolve("dev1.img");
        Path img2 = tmp.resolve("dev2.img");
        SmartSsd.format(img1, 32L << 20, "tiny");
        SmartSsd.format(img2, 32L << 20, "tiny");
        dev1 = Csdd.start(img1, tmp.resolve("dev1.sock"), tmp.resolve("dev1.log"));
        dev2 = Csdd.start(img2, tmp.resolve("dev2.sock"), tmp.resolve("dev2.log"));

        Configuration c = new YarnConfiguration();
        c.setInt("yarn.scheduler.minimum-allocation-mb", 256);
        c.setInt("yarn.nodemanager.resource.memory-mb", 2048);
        c.setInt("yarn.nodemanager.resource.cpu-vcores", 4);
        c.setBoolean("yarn.nodemanager.vmem-check-enabled", false);
        c.setBoolean("yarn.nodemanager.pmem-check-enabled", false);
        c.setInt("yarn.app.mapreduce.am.resource.mb", 512);
        c.set("yarn.app.mapreduce.am.command-opts", "-Xmx400m");
        c.setInt("mapreduce.map.memory.mb", 512);
        c.setInt("mapreduce.reduce.memory.mb", 512);
        c.set("mapreduce.map.java.opts", "-Xmx400m");
        c.set("mapreduce.reduce.java.opts", "-Xmx400m");
        c.setInt("mapreduce.client.completion.pollinterval", 200);
        cluster = new MiniMRYarnCluster("smartssd-it", 2);
        cluster.init(c);
        cluster.start();

        conf = new Configuration(cluster.getConfig());
        conf.set("fs.smartssd.device.dev1.socket", dev1.socket.toString());
        conf.set("fs.smartssd.device.dev2.socket", dev2.socket.toString());
        // both NodeManagers of a mini cluster run on this host: locality names it for both devices
        conf.set("fs.smartssd.device.dev1.host", "localhost");
        conf.set("fs.smartssd.device.dev2.host", "localhost");

        a = wc98(A_RECORDS, 1);
        b = wc98(B_RECORDS, 2);
        put("smartssd://dev1/logs/a.bin", a);
        put("smartssd://dev2/logs/b.bin", b);
        jobJar = JobJar.build(tmp.resolve("job.jar"), DeviceJob.class, SmartSsd.class,
                com.google.protobuf.Message.class);
    }

    @AfterAll
    static void tearDown() throws Exception {
        try {
            if (cluster != null) {
                cluster.stop();
            }
            FileSystem.closeAll();
        } finally {
            if (dev1 != null) {
                dev1.close();
            }
            if (dev2 != null) {
                dev2.close();
            }
            if (tmp != null) {
                try (java.util.stream.Stream<Path> all = Files.walk(tmp)) {
                    all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    @Test
    void eachSplitIsServedByItsOwnDevice() throws Exception {
        long exec1 = executions("dev1");
        long exec2 = executions("dev2");
        Path out = tmp.resolve("out-q1");
        DeviceJob job = DeviceJob.counting(conf, "yarn weblog-q1",
                DeviceMapper.tasklet("weblog-q1").param("entry_bytes", "20"), new org.apache.hadoop.fs.Path(out.toUri()),
                new org.apache.hadoop.fs.Path("smartssd://dev1/logs/a.bin"),
                new org.apache.hadoop.fs.Path("smartssd://dev2/logs/b.bin"));
        job.setJar(jobJar.toString());
        FileInputFormat.setMaxInputSplitSize(job, SPLIT);
        assertTrue(job.waitForCompletion(true), "the DeviceJob failed on YARN");

        Map<String, Long> expected = q1(a);
        q1(b).forEach((k, v) -> expected.merge(k, v, Long::sum));
        assertEquals(expected, output(out));

        Counters c = job.getCounters();
        long splitsA = splits(a.length);
        long splitsB = splits(b.length);
        assertEquals(splitsA, c.findCounter(DeviceRecordReader.DEVICES_GROUP, "dev1.splits").getValue());
        assertEquals(splitsB, c.findCounter(DeviceRecordReader.DEVICES_GROUP, "dev2.splits").getValue());
        assertTrue(c.findCounter(DeviceRecordReader.DEVICES_GROUP, "dev1.flash_bytes_read").getValue() >= a.length);
        assertTrue(c.findCounter(DeviceRecordReader.DEVICES_GROUP, "dev2.flash_bytes_read").getValue() >= b.length);
        assertTrue(c.findCounter(DeviceCounter.BYTES_TO_HOST).getValue() * 100 < a.length + b.length);
        // each daemon ran exactly its own splits, plus the submission check's one trial run
        assertEquals(splitsA + 1, executions("dev1") - exec1);
        assertEquals(splitsB + 1, executions("dev2") - exec2);
    }

    /** Only b.bin's last record divides by zero: the last split's attempts fail on the device. */
    @Test
    void deviceFailureFailsTheAttemptsWithTheDevicesMessage() throws Exception {
        Plan plan = Plan.newBuilder().setFixed(FixedRecords.newBuilder().setEntryBytes(20))
                .addColumns(Column.newBuilder().setName("ts").setType(ColumnType.INT64).setOffset(0).setWidth(4)
                        .setBigEndian(true))
                .addProject(Expr.newBuilder().setBinary(Binary.newBuilder().setOp(BinaryOp.DIV)
                        .setLeft(Expr.newBuilder().setLiteral(Literal.newBuilder().setI(1)))
                        .setRight(Expr.newBuilder().setBinary(Binary.newBuilder().setOp(BinaryOp.SUB)
                                .setLeft(Expr.newBuilder().setColumn(0))
                                .setRight(Expr.newBuilder().setLiteral(Literal.newBuilder().setI(B_RECORDS - 1)))))))
                .build();
        DeviceJob job = DeviceJob.getInstance(conf, "yarn failing plan");
        job.setJar(jobJar.toString());
        job.getConfiguration().setInt("mapreduce.map.maxattempts", 2);
        job.addInputPath(new org.apache.hadoop.fs.Path("smartssd://dev2/logs/b.bin"));
        job.setDeviceMapper(DeviceMapper.plan(plan));
        job.setDeviceMapperFormat(RowTextFormat.class);
        job.setNumReduceTasks(0);
        job.setOutputKeyClass(Text.class);
        job.setOutputValueClass(NullWritable.class);
        FileInputFormat.setMaxInputSplitSize(job, SPLIT);
        FileOutputFormat.setOutputPath(job, new org.apache.hadoop.fs.Path(tmp.resolve("out-fail").toUri()));
        assertFalse(job.waitForCompletion(false));
        int failedAttempts = 0;
        StringBuilder diag = new StringBuilder();
        for (TaskCompletionEvent ev : job.getTaskCompletionEvents(0, 100)) {
            // the attempt that exhausts the retries is reported as TIPFAILED
            if (ev.getStatus() == TaskCompletionEvent.Status.FAILED
                    || ev.getStatus() == TaskCompletionEvent.Status.TIPFAILED) {
                failedAttempts++;
                for (String d : job.getTaskDiagnostics(ev.getTaskAttemptId())) {
                    diag.append(d).append('\n');
                }
            }
        }
        assertEquals(2, failedAttempts, "the failing split was tried twice: " + diag);
        assertTrue(diag.toString().contains("division by zero"), diag.toString());
        assertTrue(diag.toString().contains("smartssd device 'dev2'"), diag.toString());
        assertEquals(org.apache.hadoop.mapreduce.JobStatus.State.FAILED, job.getStatus().getState());
    }

    // ------------------------------------------------------------------ helpers

    private static long executions(String dev) throws Exception {
        SmartSsdFileSystem fs = (SmartSsdFileSystem) FileSystem.get(URI.create("smartssd://" + dev + "/"), conf);
        return fs.device().stats().counters().getOrDefault("commands.execute_object", -1L);
    }

    private static void put(String uri, byte[] data) throws Exception {
        FileSystem fs = FileSystem.get(URI.create(uri), conf);
        try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(uri), true)) {
            out.write(data);
        }
    }

    /** FileInputFormat's rule: whole splits while more than 1.1 split sizes remain, then the rest. */
    private static long splits(long length) {
        long n = 0;
        long rest = length;
        while ((double) rest / SPLIT > 1.1) {
            n++;
            rest -= SPLIT;
        }
        return rest > 0 ? n + 1 : n;
    }

    /** WorldCup98 records (docs/TASKLETS.md); record i has timestamp i. */
    private static byte[] wc98(int records, long seed) {
        Random r = new Random(seed);
        ByteBuffer buf = ByteBuffer.allocate(records * 20);
        for (int i = 0; i < records; i++) {
            int at = i * 20;
            buf.putInt(at, i);
            buf.putInt(at + 4, r.nextInt(100_000));
            buf.putInt(at + 8, r.nextInt(5_000));
            buf.putInt(at + 12, r.nextInt(50_000));
            buf.put(at + 17, (byte) 0x40);
            buf.put(at + 19, (byte) ((Math.min(7, (int) Math.abs(r.nextGaussian() * 2.5)) << 5) | r.nextInt(32)));
        }
        return buf.array();
    }

    private static Map<String, Long> q1(byte[] data) {
        Map<String, Long> m = new TreeMap<>();
        for (int at = 0; at < data.length; at += 20) {
            m.merge(REGIONS[(data[at + 19] & 0xff) >> 5], 1L, Long::sum);
        }
        return m;
    }

    private static Map<String, Long> output(Path dir) throws Exception {
        Map<String, Long> m = new HashMap<>();
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(dir, "part-*")) {
            for (Path p : parts) {
                for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
                    int tab = line.lastIndexOf('\t');
                    m.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
                }
            }
        }
        return new TreeMap<>(m);
    }
}
