/* Flash-command scheduler "rrf": read request first (DRS paper V-A, Fig. 5): commands of read
 * requests (RRQ: map reads, map programs and data reads alike) before those of write requests (WRQ),
 * each in arrival order; a WRQ command waiting 5 s (the deadline I/O scheduler's write expiry) goes
 * first. */
#include "flash/fcmd_queue.h"

static int rrf_before(const csd_fcmd_sortkey *a, const csd_fcmd_sortkey *b) {
    return csd_fcmd_is_read_req(a, 0) && !csd_fcmd_is_read_req(b, 0);
}

static const csd_fcmd_class rrf_class = { rrf_before, 0, 5000000000ull, 0 };
CSD_FCMD_DEFINE(rrf, rrf_class)
