package io.smartssd.device.offload;

/**
 * The host side of the cost model (docs/OFFLOAD.md): a split of B bytes held by device d takes
 * {@code max(link, cpu) + min(link, cpu) of one read} on one host slot, its bytes read a command ahead
 * of the work (read-ahead), where link is the device's {@link DeviceModel#hostReadNs} and cpu is
 * {@code B x cpuNsPerByte / availability}.
 *
 * @param cpuNsPerByte  the host version's CPU time per byte of input on this host, ns: calibrated once
 *                      per host and kind of work and cached ({@link HostCalibration})
 * @param availability  the share of a core one host slot gets now, 0 < a <= 1 ({@link HostLoad}): the host's
 *                      current load
 * @param slots         host splits that run at once
 * @param readBytes     bytes per read command
 * @param calibration   where cpuNsPerByte came from, for reports
 */
public record HostModel(double cpuNsPerByte, double availability, int slots, int readBytes, String calibration) {
    public HostModel {
        if (!(cpuNsPerByte >= 0) || !(availability > 0 && availability <= 1) || slots < 1 || readBytes < 1) {
            throw new IllegalArgumentException("host model: cpu ns/byte >= 0, 0 < availability <= 1, slots >= 1 and"
                    + " read bytes >= 1, got " + cpuNsPerByte + ", " + availability + ", " + slots + ", " + readBytes);
        }
    }

    /** CPU part of a split of `bytes`, ns at the current availability. */
    public long cpuNs(long bytes) {
        return (long) Math.ceil(bytes * cpuNsPerByte / availability);
    }

    /** A split of `bytes` held by device d, ns. */
    public long splitNs(long bytes, DeviceModel d) {
        long link = d.hostReadNs(bytes, readBytes);
        long cpu = cpuNs(bytes);
        long chunk = Math.min(bytes, readBytes);
        long first = Math.min(d.hostReadNs(chunk, readBytes), cpuNs(chunk));
        return Math.max(link, cpu) + first;
    }

    /** This model with the current availability (re-planning). */
    public HostModel withAvailability(double a) {
        return new HostModel(cpuNsPerByte, a, slots, readBytes, calibration);
    }
}
