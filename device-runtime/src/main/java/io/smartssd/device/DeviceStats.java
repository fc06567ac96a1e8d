package io.smartssd.device;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reply to stats: the device's counters (name to value), its clock, and the work it holds (backlog). */
public record DeviceStats(Map<String, Long> counters, long deviceClockNanos, long deviceNanos, Backlog backlog)
        implements DeviceTimed {
    public DeviceStats {
        counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters)); // device order
        backlog = backlog == null ? Backlog.NONE : backlog;
    }

    public DeviceStats(Map<String, Long> counters, long deviceClockNanos, long deviceNanos) {
        this(counters, deviceClockNanos, deviceNanos, Backlog.NONE);
    }

    /** A counter's value, or 0 when the device has no such counter. */
    public long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }

    /**
     * The work the device holds for tasklet requests, as it estimates it (smartssd.v1.Backlog): what a new
     * request would wait behind. A request's pages to come are priced at its own mean core time per page
     * so far (pages of a request with no page done yet at the device's mean: {@code pagesUnpriced}).
     *
     * @param requests       tasklet requests not finished
     * @param pagesLeft      their pages not processed yet
     * @param pagesUnpriced  of those, pages priced at the device's mean
     * @param pagesUnread    of pagesLeft, not in device DRAM yet
     * @param coreNanosLeft  core time of pagesLeft, ns (all cores together)
     * @param flashPageNanos the read path's steady time per page, ns
     * @param flashNanosLeft pagesUnread x flashPageNanos
     * @param linkNanosLeft  the host link reserved past now, ns
     * @param blockInService host block requests in service
     * @param drainNanos     max(coreNanosLeft / cores, flashNanosLeft, linkNanosLeft)
     */
    public record Backlog(int requests, long pagesLeft, long pagesUnpriced, long pagesUnread, long coreNanosLeft,
                          long flashPageNanos, long flashNanosLeft, long linkNanosLeft, long blockInService,
                          long drainNanos) {
        /** A device that reports no backlog (an older device): nothing held. */
        public static final Backlog NONE = new Backlog(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        static Backlog of(io.smartssd.proto.Backlog b) {
            return new Backlog(b.getRequests(), b.getPagesLeft(), b.getPagesUnpriced(), b.getPagesUnread(),
                    b.getCoreNsLeft(), b.getFlashPageNs(), b.getFlashNsLeft(), b.getLinkNsLeft(), b.getBlockInService(),
                    b.getDrainNs());
        }
    }
}
