package io.smartssd.examples.bench;

import io.smartssd.device.SmartSsd;
import io.smartssd.device.Written;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The host workload of {@code bin/smartssd bench 2pm}'s jobs section: over its own connection to a device
 * daemon, overwrites an object WRITE_KIB at a time, one command after the other, round the object's
 * SPAN_MIB (so the FTL also collects garbage), until the file STOP exists. Then writes one CSV line to
 * OUT: writes, mean and p99 of the device (virtual) time per write, mean and p99 of the wall time.
 *
 *   HostWriter SOCKET OBJECT_NAME SPAN_MIB WRITE_KIB STOP OUT
 */
public final class HostWriter {
    private HostWriter() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 6) {
            System.err.println("usage: HostWriter SOCKET OBJECT_NAME SPAN_MIB WRITE_KIB STOP OUT");
            System.exit(2);
        }
        Path stop = Path.of(args[4]);
        long span = Long.parseLong(args[2]) << 20;
        byte[] data = new byte[Integer.parseInt(args[3]) << 10];
        long[] dev = new long[1 << 16];
        long[] wall = new long[1 << 16];
        int n = 0;
        try (SmartSsd ssd = SmartSsd.openRemote(Path.of(args[0]))) {
            long id;
            try {
                id = ssd.stat(args[1]).info().id(); // the previous policy's run left it: overwrite it
            } catch (io.smartssd.device.DeviceException e) {
                id = ssd.createData(args[1]).id();
            }
            long off = 0;
            while (!Files.exists(stop)) {
                Arrays.fill(data, 0, 8, (byte) n); // every write different, as a real overwrite
                long t0 = System.nanoTime();
                Written w = ssd.write(id, off, data);
                long t = System.nanoTime() - t0;
                if (n == dev.length) {
                    dev = Arrays.copyOf(dev, n * 2);
                    wall = Arrays.copyOf(wall, n * 2);
                }
                dev[n] = w.deviceNanos();
                wall[n++] = t;
                off = (off + data.length) % span;
            }
        }
        Files.writeString(Path.of(args[5]), String.format(Locale.ROOT, "writes,write_dev_mean_ns,write_dev_p99_ns,"
                + "write_wall_mean_ns,write_wall_p99_ns%n%d,%.0f,%d,%.0f,%d%n", n, mean(dev, n), p99(dev, n),
                mean(wall, n), p99(wall, n)));
    }

    private static double mean(long[] v, int n) {
        return n == 0 ? 0 : Arrays.stream(v, 0, n).average().orElse(0);
    }

    private static long p99(long[] v, int n) {
        if (n == 0) {
            return 0;
        }
        long[] s = Arrays.copyOf(v, n);
        Arrays.sort(s);
        return s[Math.min(n - 1, (int) Math.ceil(0.99 * n) - 1)];
    }
}
