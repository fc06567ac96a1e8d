package io.smartssd.hadoop.mapreduce;

import io.smartssd.device.Extent;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.ResultStream;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskProgress;
import io.smartssd.proto.Row;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One execution of a DeviceMapper's tasklet over an extent of a data object, the paper's command
 * sequence (Fig. 5): create_object(TASKLET), create_object(OUTPUT), execute_object, read_object until
 * done (adaptive polling), then delete both objects. Device failures are {@code DeviceException}s;
 * {@link #close()} always frees the device objects.
 */
final class TaskletRun implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskletRun.class);

    private final SmartSsd ssd;
    private long taskletId = -1;
    private long outputId = -1;
    private ResultStream rows;
    private long commands;
    private long commandNanos;

    TaskletRun(SmartSsd ssd) {
        this.ssd = ssd;
    }

    /** Creates the tasklet and output objects and starts the tasklet over extent. */
    void start(DeviceMapper m, Extent extent, Consumer<TaskProgress> onProgress) {
        taskletId = count(ssd.createTasklet(m.taskletName(), m.staticParams(), m.plan())).id();
        outputId = count(ssd.createOutput(m.runtimeParams(), m.keywords(), m.maxOutputs())).id();
        count(ssd.execute(taskletId, outputId, extent));
        rows = ssd.results(outputId, PollingPolicy.DEFAULT, onProgress);
    }

    boolean hasNext() {
        return rows.hasNext();
    }

    Row next() {
        return rows.next();
    }

    /** The last progress the device reported (null before the first poll). */
    TaskProgress progress() {
        return rows == null ? null : rows.progress();
    }

    long polls() {
        return rows == null ? 0 : rows.polls();
    }

    /** Commands sent: creates, execute, polls, deletes. */
    long commands() {
        return commands + polls();
    }

    /** Device time of those commands (not the tasklet's own time, which is the progress' deviceNanos). */
    long commandNanos() {
        return commandNanos + (rows == null ? 0 : rows.pollDeviceNanos());
    }

    @Override
    public void close() {
        // The output first: deleting a running output cancels its run, which frees the tasklet.
        outputId = delete(outputId);
        taskletId = delete(taskletId);
    }

    private long delete(long id) {
        if (id >= 0) {
            try {
                count(ssd.delete(id));
            } catch (RuntimeException e) {
                LOG.warn("could not delete device object {}: {}", id, e.getMessage());
            }
        }
        return -1;
    }

    private <T extends io.smartssd.device.DeviceTimed> T count(T reply) {
        commands++;
        commandNanos += reply.deviceNanos();
        return reply;
    }
}
