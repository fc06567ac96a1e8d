package io.smartssd.device;

import io.smartssd.proto.Expr;
import io.smartssd.proto.Plan;
import io.smartssd.proto.Row;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One execution of a tasklet over an extent, the Smart SSD paper's command sequence (Fig. 5):
 * create_object(TASKLET), create_object(OUTPUT), execute_object, read_object until done (adaptive
 * polling), then delete both objects. Hadoop's map tasks and Spark's partitions both run through it.
 * {@link #close()} always frees the device objects, also when starting failed half-way.
 */
public final class TaskletRun implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskletRun.class);

    /**
     * What to run: the TASKLET object's name, static params, plan and pushed filter (or null), and the
     * OUTPUT object's runtime params.
     */
    public record Spec(String tasklet, Map<String, String> staticParams, Plan plan, Map<String, String> runtimeParams,
                       List<String> keywords, long maxOutputs, Expr filter) {
        public Spec {
            Objects.requireNonNull(tasklet, "tasklet");
            staticParams = staticParams == null ? Map.of() : staticParams;
            runtimeParams = runtimeParams == null ? Map.of() : runtimeParams;
            keywords = keywords == null ? List.of() : keywords;
        }

        /** Without a pushed filter. */
        public Spec(String tasklet, Map<String, String> staticParams, Plan plan, Map<String, String> runtimeParams,
                    List<String> keywords, long maxOutputs) {
            this(tasklet, staticParams, plan, runtimeParams, keywords, maxOutputs, null);
        }

        /** A tasklet with static params only. */
        public static Spec of(String tasklet, Map<String, String> staticParams) {
            return new Spec(tasklet, staticParams, null, Map.of(), List.of(), 0);
        }

        /** The "plan" tasklet. */
        public static Spec plan(Plan plan) {
            return new Spec("plan", Map.of(), Objects.requireNonNull(plan, "plan"), Map.of(), List.of(), 0);
        }
    }

    private final SmartSsd ssd;
    private long taskletId = -1;
    private long outputId = -1;
    private ResultStream rows;
    private long commands;
    private long commandNanos;

    private TaskletRun(SmartSsd ssd) {
        this.ssd = ssd;
    }

    /**
     * Creates the tasklet and output objects and starts the tasklet over extent. A device failure is a
     * {@link DeviceException}; whatever was created by then is deleted again.
     */
    public static TaskletRun start(SmartSsd ssd, Spec spec, Extent extent, PollingPolicy policy,
                                   Consumer<TaskProgress> onProgress) {
        TaskletRun run = new TaskletRun(Objects.requireNonNull(ssd, "ssd"));
        try {
            run.taskletId = run.count(ssd.createTasklet(spec.tasklet(), spec.staticParams(), spec.plan(),
                    spec.filter())).id();
            run.outputId = run.count(ssd.createOutput(spec.runtimeParams(), spec.keywords(), spec.maxOutputs())).id();
            run.count(ssd.execute(run.taskletId, run.outputId, extent));
            run.rows = ssd.results(run.outputId, policy == null ? PollingPolicy.DEFAULT : policy, onProgress);
            return run;
        } catch (RuntimeException e) {
            run.close();
            throw e;
        }
    }

    public boolean hasNext() {
        return rows.hasNext();
    }

    public Row next() {
        return rows.next();
    }

    /** The last progress the device reported (null before the first poll). */
    public TaskProgress progress() {
        return rows == null ? null : rows.progress();
    }

    /** Polls (read_object commands) so far. */
    public long polls() {
        return rows == null ? 0 : rows.polls();
    }

    /** Commands sent: creates, execute, polls, deletes. */
    public long commands() {
        return commands + polls();
    }

    /** Device time of those commands (not the tasklet's own time, which is the progress' deviceNanos). */
    public long commandNanos() {
        return commandNanos + (rows == null ? 0 : rows.pollDeviceNanos());
    }

    /** The tasklet and output object ids (-1 once deleted). */
    long taskletId() {
        return taskletId;
    }

    long outputId() {
        return outputId;
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
                LOG.warn("smartssd: could not delete device object {}: {}", id, e.getMessage());
            }
        }
        return -1;
    }

    private <T extends DeviceTimed> T count(T reply) {
        commands++;
        commandNanos += reply.deviceNanos();
        return reply;
    }
}
