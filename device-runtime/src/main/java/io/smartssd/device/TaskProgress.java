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
 */
public record TaskProgress(long pagesDone, long pagesTotal, boolean finished, boolean done,
                           boolean truncated, DeviceException.Code status, String message,
                           long deviceNanos, long flashBytesRead, long bytesToHost, long rows)
        implements DeviceTimed {

    static TaskProgress of(Progress p) {
        return new TaskProgress(p.getPagesDone(), p.getPagesTotal(), p.getFinished(), p.getDone(),
                p.getTruncated(), DeviceException.Code.of(p.getStatus()), p.getMessage(), p.getDeviceNs(),
                p.getFlashBytesRead(), p.getBytesToHost(), p.getRows());
    }

    /** Fraction of input pages processed, 0..1 (1 when there is no input). */
    public double fraction() {
        return pagesTotal == 0 ? (finished ? 1.0 : 0.0) : Math.min(1.0, (double) pagesDone / pagesTotal);
    }
}
