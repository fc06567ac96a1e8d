package io.smartssd.device;

import io.smartssd.proto.Progress;

/**
 * Progress of a tasklet execution, as the device reports it with every result read.
 *
 * @param pagesDone      input pages processed so far
 * @param pagesTotal     input pages in all
 * @param finished       the tasklet finished (or failed); results may remain to be read
 * @param done           finished and every result has been read
 * @param truncated      max_outputs was reached
 * @param status         the tasklet's status once finished
 * @param message        the tasklet's message (e.g. why it failed)
 * @param deviceNanos    virtual time from execute to finish (or so far)
 * @param flashBytesRead bytes read from flash for this execution
 * @param bytesToHost    result bytes sent to the host so far
 * @param rows           rows produced so far
 * @param coreNanos      core time of the pages processed so far (and of finish, once it ran)
 * @param cycles         cycles the tasklet charged over those pages (csd_io_charge; a user tasklet's
 *                       instruction count times tasklet_cycles_per_kfuel / 1000)
 * @param dramAccesses   DRAM accesses the tasklet charged; with the device's core_mhz, dram_access_ns
 *                       and page_cycles these give coreNanos (docs/TIMING-MODEL.md section 4)
 */
public record TaskProgress(long pagesDone, long pagesTotal, boolean finished, boolean done,
                           boolean truncated, DeviceException.Code status, String message,
                           long deviceNanos, long flashBytesRead, long bytesToHost, long rows,
                           long coreNanos, long cycles, long dramAccesses)
        implements DeviceTimed {

    static TaskProgress of(Progress p) {
        return new TaskProgress(p.getPagesDone(), p.getPagesTotal(), p.getFinished(), p.getDone(),
                p.getTruncated(), DeviceException.Code.of(p.getStatus()), p.getMessage(), p.getDeviceNs(),
                p.getFlashBytesRead(), p.getBytesToHost(), p.getRows(), p.getCoreNs(), p.getCycles(),
                p.getDramAccesses());
    }

    /** Fraction of input pages processed, 0..1 (1 when there is no input). */
    public double fraction() {
        return pagesTotal == 0 ? (finished ? 1.0 : 0.0) : Math.min(1.0, (double) pagesDone / pagesTotal);
    }
}
