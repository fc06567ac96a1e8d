package io.smartssd.examples.weblog;

import io.smartssd.device.Extent;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskletRun;
import io.smartssd.hadoop.fs.SmartSsdFileSystem;
import io.smartssd.hadoop.mapreduce.DeviceMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Other tenants of a device (a busy device for the offload bench): n threads, each sending weblog-q1
 * requests over the whole input object one after another until closed. The device holds their work in its
 * queues, so its stats' backlog shows it and the offload planner sees it; closing cancels the requests in
 * flight.
 */
final class Tenants implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong finished = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile Throwable failure;

    Tenants(Configuration conf, Path input, int entryBytes, int n) throws IOException {
        if (n <= 0) {
            return;
        }
        FileSystem fs = input.getFileSystem(conf);
        if (!(fs instanceof SmartSsdFileSystem s)) {
            throw new IllegalArgumentException("--tenants: the input is not on a device: " + input);
        }
        SmartSsd ssd = s.device();
        Extent whole = Extent.of(s.objectOf(input).id(), 0, fs.getFileStatus(input).getLen());
        TaskletRun.Spec spec = DeviceMapper.tasklet("weblog-q1").param("entry_bytes", Integer.toString(entryBytes)).spec();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        try (TaskletRun run = TaskletRun.start(ssd, spec, whole, PollingPolicy.DEFAULT, null)) {
                            while (!stop.get() && run.hasNext()) {
                                run.next();
                            }
                        }
                        finished.incrementAndGet();
                    }
                } catch (RuntimeException e) {
                    if (!stop.get()) {
                        failure = e;
                    }
                }
            }, "smartssd-tenant-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
    }

    /** Tenant requests run to their end (or cancelled at close) so far. */
    long finished() {
        return finished.get();
    }

    @Override
    public void close() throws IOException {
        stop.set(true);
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted stopping the tenants", e);
            }
        }
        if (failure != null) {
            throw new IOException("a tenant's request failed: " + failure, failure);
        }
    }
}
