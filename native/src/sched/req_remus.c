/* Request-scheduling policy "remus": the resource-aware scheduler of REMUS (Huang et al., section
 * III-C, Algorithm 1) with the buffer allocation of section III-D (eq. 12). The workload assignment
 * of section III-B (eq. 4-5, multi-plane sub-requests) is the engine's stage mode (issue_stage.c,
 * sched/assign.c), which REMUS always gets (own_assignment), whatever baseline_adaptation says. Each
 * core runs its own instance, with its own Q_thres.
 *
 * Terms, per core: Q_cur = Q - pages in flight (the quota left); remaining buffer of R_i =
 * B_i - (S_i - P_i) (section III-C1: B_i - (K - P_i)); b_ri = what R_i can send now
 * (min(remaining buffer, pages left), in whole flash requests: csd_sreq_sendable); "available
 * buffer in CSD" = the sum over requests of min(remaining buffer, pages left), raw pages (counting
 * whole flash requests only there makes line 3 fire while whole requests could still go).
 *
 * Algorithm 1, as written:
 *   2: if Q_cur >= Q_thres
 *   3:   if available buffer < Q_cur:  4: Q_thres += N_pl, switch to stage P
 *   5:   else: 6-7: pick the R_i with the largest remaining buffer, stage S, send min(Q_cur, b_ri)
 *   9: else (and after line 4)
 *  10:   if data is ready: 11-12: pick the R_i with the smallest remaining buffer, stage P
 *  13:   else: 14: wait for the quota; 15: Q_thres = max(Q_cur, N_pl)
 * Line 4's text reads "Increase Q_cur by N_pl"; the prose of III-C2 says Q_thres is what is raised
 * ("the Q_thres should be raised, so that the CPU can process more data while fetching less"), and
 * a core cannot create quota, so Q_thres it is. Q_thres never exceeds Q: Q_cur <= Q, so a higher
 * threshold would stop all fetching until the buffer runs dry (the core then idles a whole T_f; the
 * prose wants "fetching less", not none; remus_qthres_cap = 0 runs it uncapped, as written;
 * docs/SCHEDULERS.md measures both). Q_thres starts at N_pl
 * (III-C2). Ties go to the
 * earlier admitted request. The engine wakes the core when a page lands, so "wait" is a real wait.
 * One addition: with nothing in flight that wait would never end (the end of a request: fewer pages
 * left to send than Q_cur, so line 3 always holds), and then the core sends as lines 6-7 would. */
#include "sched/sched.h"
#include "sched/stage_common.h"

#include <stdint.h>

enum { Q_THRES, CAP, REMUS_SLOTS };

static int remus_init(void **state, const csd_params *p) {
    int rc = csd_sched_percore_init(state, p, REMUS_SLOTS);
    if (rc == 0) {
        for (uint32_t k = 0; k < p->cores; k++) {
            csd_sched_slot(*state, k)[Q_THRES] = p->planes_per_die ? p->planes_per_die : 1;
            csd_sched_slot(*state, k)[CAP] = p->remus_qthres_cap;   /* 0: Algorithm 1 as written */
        }
    }
    return rc;
}

/* Equation (12): B_i = Q + ceil(c_i) * PageSize, c_i in microseconds; here counted in pages. */
static uint64_t remus_buffer(void *state, const csd_core_view *cv, const csd_sreq *s) {
    (void)state;
    return csd_sched_buffer_eq12(cv, s);
}

static csd_stage_choice remus_decide(void *state, const csd_core_view *cv) {
    int64_t *qthres = &csd_sched_slot(state, cv->core)[Q_THRES];
    int cap = csd_sched_slot(state, cv->core)[CAP] != 0;
    uint64_t npl = cv->planes ? cv->planes : 1;
    uint64_t qcur = csd_sched_qcur(cv);
    /* The CPU runs Algorithm 1 whenever it is ready; line 15 changes Q_thres while it still is, so
     * the algorithm runs once more (a second line 15 means a real wait). */
    for (int pass = 0; pass < 2; pass++) {
        if ((int64_t)qcur >= *qthres) {                       /* line 2 */
            uint64_t avail = 0;
            for (size_t i = 0; i < cv->n; i++) {   /* raw pages, whole flash requests or not */
                const csd_sreq *v = cv->reqs[i];
                uint64_t left = v->total - v->S, room = csd_sreq_room(v);
                avail += left < room ? left : room;
            }
            if (avail < qcur) {                               /* line 3 */
                *qthres += (int64_t)npl;                      /* line 4 */
                if (cap && *qthres > (int64_t)cv->Q) *qthres = (int64_t)cv->Q;
            } else {
                size_t best = SIZE_MAX;                       /* line 6 */
                for (size_t i = 0; i < cv->n; i++) {
                    if (!csd_sreq_sendable(cv->reqs[i])) continue;
                    if (best == SIZE_MAX || csd_sreq_room(cv->reqs[i]) > csd_sreq_room(cv->reqs[best])) best = i;
                }
                if (best != SIZE_MAX) {
                    uint64_t b = csd_sreq_sendable(cv->reqs[best]);
                    return csd_stage_send(best, qcur < b ? qcur : b);   /* line 7 */
                }
            }
        }
        size_t best = SIZE_MAX;                               /* line 11 */
        for (size_t i = 0; i < cv->n; i++) {
            if (!csd_sreq_ready(cv->reqs[i])) continue;
            if (best == SIZE_MAX || csd_sreq_room(cv->reqs[i]) < csd_sreq_room(cv->reqs[best])) best = i;
        }
        if (best != SIZE_MAX) return csd_stage_process(best); /* line 12 */
        *qthres = (int64_t)(qcur > npl ? qcur : npl);         /* line 15 */
    }
    if (cv->inflight == 0) {
        /* End game: fewer pages left to send than Q_cur (line 3 holds for ever), nothing ready and
         * nothing in flight, so the wait of line 14 would never end. Send as lines 6-7 would. */
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < cv->n; i++) {
            if (!csd_sreq_sendable(cv->reqs[i])) continue;
            if (best == SIZE_MAX || csd_sreq_room(cv->reqs[i]) > csd_sreq_room(cv->reqs[best])) best = i;
        }
        if (best != SIZE_MAX) {
            uint64_t b = csd_sreq_sendable(cv->reqs[best]);
            return csd_stage_send(best, qcur < b ? qcur : b);
        }
    }
    return csd_stage_wait();                                  /* line 14 */
}

const csd_req_stage_ops csd_req_stage_remus = {
    .name = "remus", .own_assignment = 1, .init = remus_init,
    .destroy = csd_sched_percore_destroy, .buffer = remus_buffer, .decide = remus_decide,
};
