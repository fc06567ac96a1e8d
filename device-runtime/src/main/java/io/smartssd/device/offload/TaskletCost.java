package io.smartssd.device.offload;

/**
 * What a tasklet charges per page of this job's data, in the units of the device's cost model (Smart SSD
 * paper V-B, Fig. 6: cycles at the core clock and DRAM accesses at a fixed latency; docs/TIMING-MODEL.md
 * section 4): measured, never assumed. A built-in tasklet is measured on the host by its own code
 * ({@link TaskletProbe#onHost}, the same charges as on a device); a user tasklet on the device
 * ({@link TaskletProbe#onDevice}, its instruction counts as the sandbox charges them), finish included
 * in its per-page figures.
 *
 * @param cyclesPerPage  cycles per page (csd_io_charge), mean over the sample
 * @param dramPerPage    DRAM accesses per page
 * @param finishCycles   cycles of finish() over the sample
 * @param finishDram     DRAM accesses of finish()
 * @param pagesSampled   pages the figures come from
 * @param source         how they were measured: "host-eval" or "device-probe"
 */
public record TaskletCost(double cyclesPerPage, double dramPerPage, long finishCycles, long finishDram,
                          long pagesSampled, String source) {
    public TaskletCost {
        if (!(cyclesPerPage >= 0 && dramPerPage >= 0) || finishCycles < 0 || finishDram < 0 || pagesSampled < 0) {
            throw new IllegalArgumentException("tasklet cost figures must be >= 0");
        }
    }
}
