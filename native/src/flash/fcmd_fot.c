/* Flash-command scheduler "fot": RRF with RRQ and WRQ sorted by the flash operation time of the
 * command's own request (DRS paper V-B-2, Fig. 7; reqInfo[0]), smaller first; read deadline 500 ms,
 * write deadline 5 s (V-B-2, V-A). */
#include "flash/fcmd_queue.h"

static int fot_before(const csd_fcmd_sortkey *a, const csd_fcmd_sortkey *b) {
    int ra = csd_fcmd_is_read_req(a, 0), rb = csd_fcmd_is_read_req(b, 0);
    if (ra != rb) return ra;
    return a->ri0_fot < b->ri0_fot;
}

static const csd_fcmd_class fot_class = { fot_before, 500000000ull, 5000000000ull, 0 };
CSD_FCMD_DEFINE(fot, fot_class)
