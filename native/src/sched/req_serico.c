/* Request-scheduling policy "serico": SERICO (Huang et al., DATE 2023; the REMUS paper's ref. [17])
 * adapted to stage mode, per core. SERICO decouples I/O from computation with a ping-pong buffer and
 * serves stages earliest deadline first, with deadlines recomputed periodically.
 *   Buffer: two halves of H = ceil(Q / 2) pages (B = 2H; H = B / 2 if admission gave less, and at
 *   least one whole flash request); a sub-request sends only into an empty half, one half (H pages,
 *   fewer at its end) at a time. Under the paper adaptation (CSD_ADAPT_PAPER_POLICY) the two halves
 *   add up to the other baselines' buffer: H = Q, B = 2Q (or eq. 12's B_i with CSD_ADAPT_EQ12);
 *   serico_half_pages sets H under either.
 *   Deadlines: every request has the same deadline D (REMUS paper IV-A: "We assign the same deadline
 *   for all requests"). Every serico_period_ns (1 ms) the core recomputes, for each sub-request, the latest
 *   start of its remaining processing, d_P = D - (total - P) * c_i, and of its next fetch,
 *   d_S = d_P - T_f (the data must arrive before it is processed). Between updates they are stale.
 *   The eligible stage (S: a half is empty and quota allows; P: data ready) with the earliest
 *   deadline runs; ties: P before S, then admission order.
 *   Under the paper adaptation stage P is the ping-pong's: it starts when a whole half has landed
 *   and processes that half to its end without a decision in between (the compute side consumes
 *   one half while the I/O side fills the other); a send whose deadline passes meanwhile waits (the
 *   REMUS paper's section II-B: with I/O and computation on one core "the CPU missing the deadline to
 *   send a request").
 * D is a constant: only the differences between deadlines matter for EDF. */
#include "sched/sched.h"
#include "sched/stage_common.h"

#include <stdint.h>
#include <string.h>

#define SERICO_D ((int64_t)1 << 62)

/* per core: the last deadline update, the sub-request whose half is being processed, and the
 * parameters (the update period, serico_period_ns: 1 ms by default, an assumption; the half's pages,
 * serico_half_pages: 0 = the adaptation's) */
enum { LAST_UPDATE, RUN_ID, PERIOD, HALF, BY_REQUEST, SERICO_SLOTS };
enum { D_P, D_S, D_SET, RUN_END };   /* csd_sreq.pol; RUN_END: P at which its half's run ends */

static int serico_init(void **state, const csd_params *p) {
    int rc = csd_sched_percore_init(state, p, SERICO_SLOTS);
    if (rc == 0) {
        for (uint32_t k = 0; k < ((csd_sched_percore *)*state)->cores; k++) {
            int64_t *st = csd_sched_slot(*state, k);
            st[LAST_UPDATE] = -1;
            st[PERIOD] = (int64_t)p->serico_period_ns;
            st[HALF] = p->serico_half_pages;
            st[BY_REQUEST] = !strcmp(p->serico_edf, "request");
        }
    }
    return rc;
}

static uint64_t half(const csd_core_view *cv) { return (cv->Q + 1) / 2; }

static uint64_t serico_buffer(void *state, const csd_core_view *cv, const csd_sreq *s) {
    uint64_t h = (uint64_t)csd_sched_slot(state, cv->core)[HALF];
    if (h) return 2 * h;
    if (cv->adapt & (CSD_ADAPT_PAPER_POLICY | CSD_ADAPT_EQ12)) return csd_sched_buffer_2q(cv, s);
    return 2 * half(cv);
}

/* The half of the buffer v got (admission may have given less than asked): at least one whole flash
 * request, at most the quota (a half is sent at once; with eq. 12's B_i, B / 2 can exceed Q). */
static uint64_t half_of(const csd_core_view *cv, const csd_sreq *v) {
    uint64_t h = v->B / 2;
    if (h > cv->Q) h = cv->Q;
    return h > v->unit ? h : v->unit;
}

static void deadlines(const csd_core_view *cv, csd_sreq *v) {
    v->pol[D_P] = SERICO_D - (int64_t)((v->total - v->P) * v->ci_ns);
    v->pol[D_S] = v->pol[D_P] - (int64_t)cv->t_read_ns;
    v->pol[D_SET] = 1;
}

static csd_stage_choice serico_decide(void *state, const csd_core_view *cv) {
    int64_t *st = csd_sched_slot(state, cv->core);
    int update = st[LAST_UPDATE] < 0 || cv->now >= (uint64_t)(st[LAST_UPDATE] + st[PERIOD]);
    if (update) st[LAST_UPDATE] = (int64_t)cv->now;
    uint64_t qcur = csd_sched_qcur(cv);
    int halves = (cv->adapt & CSD_ADAPT_PAPER_POLICY) != 0;
    if (halves) {            /* a half being processed goes on to its end */
        for (size_t i = 0; i < cv->n; i++) {
            csd_sreq *v = cv->reqs[i];
            if ((uint64_t)st[RUN_ID] == v->id && (int64_t)v->P < v->pol[RUN_END] && csd_sreq_ready(v))
                return csd_stage_process(i);
        }
        st[RUN_ID] = 0;
    }
    /* serico_edf = request: the request with the earliest deadline holds the core; only its stages run */
    size_t holder = SIZE_MAX;
    for (size_t i = 0; i < cv->n; i++) {
        csd_sreq *v = cv->reqs[i];
        if (update || !v->pol[D_SET]) deadlines(cv, v);
        if (st[BY_REQUEST] && v->P < v->total && (holder == SIZE_MAX || v->pol[D_P] < cv->reqs[holder]->pol[D_P]))
            holder = i;
    }
    csd_stage_choice best = csd_stage_wait();
    int64_t best_d = INT64_MAX;
    for (size_t i = 0; i < cv->n; i++) {
        csd_sreq *v = cv->reqs[i];
        if (st[BY_REQUEST] && i != holder) continue;
        uint64_t h = half_of(cv, v), left = v->total - v->S;
        uint64_t unprocessed = v->total - v->P, run = unprocessed < h ? unprocessed : h;
        /* ping-pong: a half is processed once it has landed (all of it, or all that was sent) */
        int landed = csd_sreq_ready(v) >= run || v->S == v->F;
        if (csd_sreq_ready(v) && (!halves || landed) && v->pol[D_P] < best_d) {
            best = csd_stage_process(i);
            best_d = v->pol[D_P];
        }
        uint64_t want = left < h ? left : h;
        if (!want) want = 1;
        /* ping-pong: a whole half must be free, and the quota must take the whole half */
        if (left && csd_sreq_room(v) >= want && qcur >= want && v->pol[D_S] < best_d) {
            best = csd_stage_send(i, want);
            best_d = v->pol[D_S];
        }
    }
    if (halves && best.stage == CSD_STAGE_P) {
        csd_sreq *v = cv->reqs[best.idx];
        uint64_t run = half_of(cv, v), unprocessed = v->total - v->P;
        if (unprocessed < run) run = unprocessed;
        if (csd_sreq_ready(v) < run) run = csd_sreq_ready(v);
        st[RUN_ID] = (int64_t)v->id;
        v->pol[RUN_END] = (int64_t)(v->P + run);
    }
    return best;
}

const csd_req_stage_ops csd_req_stage_serico = {
    .name = "serico", .init = serico_init,
    .destroy = csd_sched_percore_destroy, .buffer = serico_buffer, .decide = serico_decide,
};
