package io.smartssd.device.bench;

import io.smartssd.device.ObjectStat;
import io.smartssd.device.ReadResult;
import io.smartssd.device.SmartSsd;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The host-side cost of one device command, the overhead the Smart SSD paper measures for its JNI path
 * (Fig. 7: 150-380 us on top of a ~215 us SATA command). Wall time per call, one caller thread:
 * <ul>
 *   <li>{@code stat}: a no-op-ish command round trip (stat of a data object by id: a small packet each way);</li>
 *   <li>{@code identify}: a round trip with a ~1.5 KB reply (every device parameter);</li>
 *   <li>{@code read1MiB}: a 1 MiB read into a direct buffer (rotating over an 8 MiB object).</li>
 * </ul>
 * {@code mode=embedded}: the device in this JVM over JNI; {@code mode=remote}: a csdd daemon on the same
 * machine over its Unix socket (started here from -Dsmartssd.csdd, default ../native/target/build/csdd).
 * The device is the emulator with its timing model unpaced, so this is host overhead plus the emulator's
 * own CPU work, not emulated device time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class DeviceBenchmark {
    static final int MIB = 1 << 20;
    static final int OBJECT_BYTES = 8 * MIB;

    @Param({"embedded", "remote"})
    public String mode;

    private Path dir;
    private Process daemon;
    private SmartSsd ssd;
    private long id;
    private ByteBuffer buf;
    private long offset;

    @Setup(Level.Trial)
    public void open() throws Exception {
        dir = Files.createTempDirectory("smartssd-jmh");
        Path image = dir.resolve("bench.img");
        SmartSsd.format(image, 256L * MIB, "smartssd-paper");
        if (mode.equals("embedded")) {
            ssd = SmartSsd.openEmbedded(image);
        } else {
            Path socket = dir.resolve("dev.sock");
            Path csdd = Path.of(System.getProperty("smartssd.csdd", "../native/target/build/csdd"));
            daemon = new ProcessBuilder(csdd.toString(), image.toString(), "--socket", socket.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("csdd.log").toFile()).start();
            Process p = daemon;
            // If this fork dies without its tear-down (a failing benchmark), do not leave csdd behind.
            Runtime.getRuntime().addShutdownHook(new Thread(p::destroy));
            waitFor(socket);
            ssd = SmartSsd.openRemote(socket);
        }
        id = ssd.createData("bench/8MiB").id();
        byte[] data = new byte[OBJECT_BYTES];
        new Random(1).nextBytes(data);
        ssd.write(id, 0, ByteBuffer.allocateDirect(OBJECT_BYTES).put(data).flip());
        buf = ByteBuffer.allocateDirect(MIB);
    }

    private void waitFor(Path socket) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(socket));
                return;
            } catch (IOException notYet) {
                if (!daemon.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("csdd did not start; see " + dir.resolve("csdd.log"));
                }
                Thread.sleep(5);
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        ssd.close();
        if (daemon != null) {
            daemon.destroy(); // SIGTERM: clean stop
            daemon.waitFor(20, TimeUnit.SECONDS);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public ObjectStat stat() {
        return ssd.stat(id);
    }

    @Benchmark
    public Object identify() {
        return ssd.identify();
    }

    @Benchmark
    public ReadResult read1MiB() {
        buf.clear();
        offset = (offset + MIB) % OBJECT_BYTES;
        ReadResult r = ssd.read(id, offset, buf);
        if (r.bytes() != MIB) {
            throw new IllegalStateException("short read: " + r.bytes());
        }
        return r;
    }
}
