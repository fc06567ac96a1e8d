package io.smartssd.device.offload;

import io.smartssd.device.Extent;
import io.smartssd.device.HostEvaluator;
import io.smartssd.device.PollingPolicy;
import io.smartssd.device.SmartSsd;
import io.smartssd.device.TaskProgress;
import io.smartssd.device.TaskletRun;

/** Measures a tasklet's {@link TaskletCost} on a sample of the job's own data. */
public final class TaskletProbe {
    private TaskletProbe() {
    }

    /**
     * A built-in tasklet: its own code over the sample on the host (native/include/smartssd/eval.h), which
     * charges exactly what it charges on a device, page by page, with finish apart. No device time.
     */
    public static TaskletCost onHost(TaskletRun.Spec spec, Sample s) {
        try (HostEvaluator ev = new HostEvaluator(spec, s.pageBytes())) {
            long[] pages = ev.begin(s.objectSize(), s.offset(), extentLength(s));
            boolean more = pages[1] >= pages[0];
            int i = 0;
            for (; more && i < s.pageCount(); i++) {
                int n = Math.min(s.pageBytes(), s.pages().limit() - i * s.pageBytes());
                more = ev.feed(pages[0] + i, s.pages(), i * s.pageBytes(), n);
            }
            long fed = ev.pages();
            long cyc = ev.cycles();
            long dram = ev.dramAccesses();
            ev.finish();
            return new TaskletCost(fed == 0 ? 0 : (double) cyc / fed, fed == 0 ? 0 : (double) dram / fed,
                    ev.cycles() - cyc, ev.dramAccesses() - dram, fed, "host-eval");
        }
    }

    /**
     * The extent a probe of sample s covers: the sample less its last page, unless it ends the object (a
     * record or line that starts near the sample's end needs bytes past it, which the sample does not hold).
     */
    public static long extentLength(Sample s) {
        long end = s.firstPage() * s.pageBytes() + s.pages().limit();
        return end == s.objectSize() ? s.length() : Math.max(0, end - s.pageBytes() - s.offset());
    }

    /**
     * Any tasklet (a user tasklet's code runs on devices only): a run on the device over the sample
     * extent, its charges from the run's progress (a sandboxed tasklet's instruction counts, priced at
     * tasklet_cycles_per_kfuel). Finish cannot be told apart here: it counts in the per-page figures.
     */
    public static TaskletCost onDevice(SmartSsd ssd, TaskletRun.Spec spec, Extent sample) {
        try (TaskletRun run = TaskletRun.start(ssd, spec, sample, PollingPolicy.DEFAULT, null)) {
            while (run.hasNext()) {
                run.next();
            }
            TaskProgress p = run.progress();
            long pages = Math.max(1, p.pagesDone());
            return new TaskletCost((double) p.cycles() / pages, (double) p.dramAccesses() / pages, 0, 0, p.pagesDone(),
                    "device-probe");
        }
    }
}
