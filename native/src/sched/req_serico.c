/* Request-scheduling policy "serico": SERICO (Huang et al., DATE 2023; the REMUS paper's ref. [17])
 * adapted to stage mode, per core. SERICO decouples I/O from computation with a ping-pong buffer and
 * serves stages earliest deadline first, with deadlines recomputed periodically.
 *   Buffer: two halves of H = ceil(Q / 2) pages (B = 2H; H = B / 2 if admission gave less, and at
 *   least one whole flash request); a sub-request sends only into an empty half, one half (H pages,
 *   fewer at its end) at a time.
 *   Deadlines: every request has the same deadline D (REMUS paper IV-A: "We assign the same deadline
 *   for all requests"). Every SERICO_PERIOD_NS the core recomputes, for each sub-request, the latest
 *   start of its remaining processing, d_P = D - (total - P) * c_i, and of its next fetch,
 *   d_S = d_P - T_f (the data must arrive before it is processed). Between updates they are stale.
 *   The eligible stage (S: a half is empty and quota allows; P: data ready) with the earliest
 *   deadline runs; ties: P before S, then admission order.
 * D is a constant: only the differences between deadlines matter for EDF. */
#include "sched/sched.h"
#include "sched/stage_common.h"

#include <stdint.h>

#define SERICO_PERIOD_NS 1000000     /* deadline update period: 1 ms (assumption, docs/SCHEDULERS.md) */
#define SERICO_D ((int64_t)1 << 62)

enum { LAST_UPDATE, SERICO_SLOTS };
enum { D_P, D_S, D_SET };            /* csd_sreq.pol */

static int serico_init(void **state, const csd_params *p) {
    int rc = csd_sched_percore_init(state, p, SERICO_SLOTS);
    if (rc == 0)
        for (uint32_t k = 0; k < p->cores; k++) csd_sched_slot(*state, k)[LAST_UPDATE] = -1;
    return rc;
}

static uint64_t half(const csd_core_view *cv) { return (cv->Q + 1) / 2; }

static uint64_t serico_buffer(void *state, const csd_core_view *cv, const csd_sreq *s) {
    (void)state; (void)s;
    return 2 * half(cv);
}

static void deadlines(const csd_core_view *cv, csd_sreq *v) {
    v->pol[D_P] = SERICO_D - (int64_t)((v->total - v->P) * v->ci_ns);
    v->pol[D_S] = v->pol[D_P] - (int64_t)cv->t_read_ns;
    v->pol[D_SET] = 1;
}

static csd_stage_choice serico_decide(void *state, const csd_core_view *cv) {
    int64_t *st = csd_sched_slot(state, cv->core);
    int update = st[LAST_UPDATE] < 0 || cv->now >= (uint64_t)st[LAST_UPDATE] + SERICO_PERIOD_NS;
    if (update) st[LAST_UPDATE] = (int64_t)cv->now;
    uint64_t qcur = csd_sched_qcur(cv);
    csd_stage_choice best = csd_stage_wait();
    int64_t best_d = INT64_MAX;
    for (size_t i = 0; i < cv->n; i++) {
        csd_sreq *v = cv->reqs[i];
        if (update || !v->pol[D_SET]) deadlines(cv, v);
        if (csd_sreq_ready(v) && v->pol[D_P] < best_d) {
            best = csd_stage_process(i);
            best_d = v->pol[D_P];
        }
        /* the halves of the buffer it got (admission may have given less than asked), each at least
         * one whole flash request */
        uint64_t h = v->B / 2 > v->unit ? v->B / 2 : v->unit, left = v->total - v->S;
        uint64_t want = left < h ? left : h;
        if (!want) want = 1;
        /* ping-pong: a whole half must be free, and the quota must take the whole half */
        if (left && csd_sreq_room(v) >= want && qcur >= want && v->pol[D_S] < best_d) {
            best = csd_stage_send(i, want);
            best_d = v->pol[D_S];
        }
    }
    return best;
}

const csd_req_sched_ops csd_req_sched_serico = {
    .name = "serico", .init = serico_init, .submit = csd_sched_nop_submit, .remove = csd_sched_nop_remove,
    .destroy = csd_sched_percore_destroy, .buffer = serico_buffer, .decide = serico_decide,
};
