package io.smartssd.device.offload;

import io.smartssd.device.DeviceIdentity;
import io.smartssd.device.DeviceStats;
import java.util.Map;
import java.util.Objects;

/**
 * The device side of the cost model (docs/OFFLOAD.md), every input from the device itself: its parameters
 * from identify, the read path's steady time per page and the work it holds now from stats' backlog, and
 * the tasklet's measured charges ({@link TaskletCost}). It prices
 * <ul>
 * <li>a request over P pages: {@code REQUEST_COMMANDS x cmd_overhead + first page + P x period + finish},
 *   the period {@code max(flash page, core page / cores)} with the core page
 *   {@code ceil((page_cycles + cycles per page) x 1000 / core_mhz) + DRAM per page x dram_access_ns}
 *   (docs/TIMING-MODEL.md sections 2 and 4);</li>
 * <li>its wait behind the work the device holds: the backlog's drain time (its core time over the cores,
 *   its flash reads, its link, whichever is longest), taken as the device's steady load (every request
 *   sent waits that long; re-planning corrects it);</li>
 * <li>the host reading B bytes in commands of R bytes: {@code ceil(B/R) x (cmd_overhead + first page) +
 *   B / host_link_bytes_per_s} (section 3).</li>
 * </ul>
 */
public record DeviceModel(String device, int cores, int coreMhz, long dramAccessNs, long pageCycles, int pageBytes,
                          long flashPageNs, long firstPageNs, long linkBytesPerSecond, long cmdOverheadNs,
                          TaskletCost cost, DeviceStats.Backlog backlog) {
    /**
     * Commands on a request's critical path: create_object twice, execute_object, and the read_object that
     * finds it done (the deletes follow the answer).
     */
    public static final int REQUEST_COMMANDS = 4;

    public DeviceModel {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(cost, "cost");
        backlog = backlog == null ? DeviceStats.Backlog.NONE : backlog;
        if (cores < 1 || coreMhz < 1 || pageBytes < 1 || linkBytesPerSecond < 1) {
            throw new IllegalArgumentException("device " + device + ": cores, core_mhz, page_bytes and "
                    + "host_link_bytes_per_s must be positive");
        }
    }

    /** The model of device id from its identify reply, its stats (backlog) and the tasklet's cost. */
    public static DeviceModel of(String id, DeviceIdentity ident, DeviceStats stats, TaskletCost cost) {
        Map<String, String> p = ident.params();
        int pageBytes = ident.geometry().pageBytes();
        long channelRate = num(p, "channel_bytes_per_s", id);
        long xfer = channelRate == 0 ? 0 : ceilDiv(pageBytes * 1_000_000_000L, channelRate);
        long firstPage = num(p, "t_read_ns", id) + xfer + num(p, "fw_page_ns", id);
        DeviceStats.Backlog b = stats.backlog();
        long flashPage = b.flashPageNanos() > 0 ? b.flashPageNanos() : num(p, "fw_page_ns", id);
        return new DeviceModel(id, (int) num(p, "cores", id), (int) num(p, "core_mhz", id), num(p, "dram_access_ns", id),
                num(p, "page_cycles", id), pageBytes, flashPage, firstPage, num(p, "host_link_bytes_per_s", id),
                num(p, "cmd_overhead_ns", id), cost, b);
    }

    private static long num(Map<String, String> p, String key, String id) {
        String v = p.get(key);
        if (v == null) {
            throw new IllegalArgumentException("device " + id + " did not report its parameter " + key);
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device " + id + " reported " + key + " = '" + v + "', not a number", e);
        }
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /** Core time of one page of this tasklet, ns. */
    public long pageCoreNs() {
        double cycles = pageCycles + cost.cyclesPerPage();
        return (long) Math.ceil(cycles * 1000.0 / coreMhz) + Math.round(cost.dramPerPage() * dramAccessNs);
    }

    /** A page's share of a request in steady state, ns: the flash path or the cores, whichever is slower. */
    public long pagePeriodNs() {
        return Math.max(flashPageNs, ceilDiv(pageCoreNs(), cores));
    }

    /** finish() on one core, ns. */
    public long finishNs() {
        return ceilDiv(cost.finishCycles() * 1000, coreMhz) + cost.finishDram() * dramAccessNs;
    }

    /** A request over `pages` pages on an idle device, ns. */
    public long requestNs(long pages) {
        return REQUEST_COMMANDS * cmdOverheadNs + (pages > 0 ? firstPageNs : 0) + pages * pagePeriodNs() + finishNs();
    }

    /** What a request sent now waits behind, ns: the device's own estimate of when it would be idle
     * (backlog drain: its held core time over its cores, its flash reads, its link, whichever is longest). */
    public long waitNs() {
        return backlog.drainNanos();
    }

    /** The host link reserved past now, ns (host reads wait behind it). */
    public long linkWaitNs() {
        return backlog.linkNanosLeft();
    }

    /** The host reading `bytes` in commands of readBytes, ns of link. */
    public long hostReadNs(long bytes, int readBytes) {
        if (bytes <= 0) {
            return 0;
        }
        long commands = ceilDiv(bytes, readBytes);
        return commands * (cmdOverheadNs + firstPageNs) + ceilDiv(bytes * 1_000_000_000L, linkBytesPerSecond);
    }

    /** This model with another backlog (re-planning with what the device holds now). */
    public DeviceModel withBacklog(DeviceStats.Backlog now) {
        return new DeviceModel(device, cores, coreMhz, dramAccessNs, pageCycles, pageBytes, flashPageNs, firstPageNs,
                linkBytesPerSecond, cmdOverheadNs, cost, now);
    }
}
