/* Flash-command scheduler "drs": delayed request scanning (DRS paper V-C, V-D). A command's queue
 * and place come from reqInfo[2], the request with the least FOT among its own and the requests it
 * delays (a read among them makes it an RRQ command: Algorithm 1, lines 1-5), ascending FOT, ties in
 * insertion order (lines 6-14). The submitter keeps reqInfo up to date as delayed requests join and
 * commands of the set complete (Algorithm 2) and re-places a held command (requeue). Deadlines as
 * fot. */
#include "flash/fcmd_queue.h"

static int drs_before(const csd_fcmd_sortkey *a, const csd_fcmd_sortkey *b) {
    int ra = csd_fcmd_is_read_req(a, 1), rb = csd_fcmd_is_read_req(b, 1);
    if (ra != rb) return ra;
    return a->ri2_fot < b->ri2_fot;
}

static const csd_fcmd_class drs_class = { drs_before, 500000000ull, 5000000000ull, 1 };
CSD_FCMD_DEFINE(drs, drs_class)
