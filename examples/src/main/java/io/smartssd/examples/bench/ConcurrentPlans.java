package io.smartssd.examples.bench;

import io.smartssd.device.Extent;
import io.smartssd.device.ObjectInfo;
import io.smartssd.device.OpenOptions;
import io.smartssd.device.ResultStream;
import io.smartssd.device.SmartSsd;
import io.smartssd.proto.Plan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * N `plan` requests at once over N equal extents of one text object, each consumed by a host thread of
 * its own, as Spark's local[N] tasks do, on an embedded device opened with the given host_threads and
 * its device thread in the background (as the FileSystem opens it): prints the wall time of the
 * requests and each one's rows (which must not depend on host_threads) and device time (which, in the
 * background, also depends on when the host's polls arrive).
 *
 * <pre>java -cp EXAMPLES_CP io.smartssd.examples.bench.ConcurrentPlans IMAGE OBJECT PLAN_FILE N HOST_THREADS</pre>
 */
public final class ConcurrentPlans {
    private ConcurrentPlans() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: ConcurrentPlans IMAGE OBJECT PLAN_FILE N HOST_THREADS");
            System.exit(2);
        }
        Plan plan = Plan.parseFrom(Files.readAllBytes(Paths.get(args[2])));
        int n = Integer.parseInt(args[3]);
        Path image = Paths.get(args[0]);
        try (SmartSsd ssd = SmartSsd.openEmbedded(image, OpenOptions.defaults().param("host_threads", args[4]))) {
            ObjectInfo o = ssd.stat(args[1]).info();
            long tasklet = ssd.createTasklet("plan", Map.of(), plan).id();
            ExecutorService pool = Executors.newFixedThreadPool(n);
            long part = (o.size() + n - 1) / n;
            long t0 = System.nanoTime();
            List<Future<String>> runs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long off = i * part;
                long len = Math.min(part, o.size() - off);
                runs.add(pool.submit(() -> {
                    long out = ssd.createOutput(Map.of(), List.of(), 0).id();
                    ssd.execute(tasklet, out, Extent.of(o.id(), off, len));
                    ResultStream rs = ssd.results(out);
                    List<?> rows = rs.toList();
                    return rows.size() + " rows " + rows.toString().replaceAll("\\s+", " ")
                            + ", device " + rs.progress().deviceNanos() + " ns";
                }));
            }
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < n; i++) {
                sb.append("request ").append(i).append(": ").append(runs.get(i).get()).append('\n');
            }
            double wall = (System.nanoTime() - t0) / 1e9;
            pool.shutdown();
            System.out.printf("%d plan requests at once, host_threads %s: wall %.3f s%n%s", n, args[4], wall, sb);
        }
    }
}
