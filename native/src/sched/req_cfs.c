/* Request-scheduling policy "cfs": the Completely Fair Scheduler (Kobus and Szklarski, the REMUS
 * paper's ref. [13]) over the sub-requests of a core, in stage mode. A sub-request is runnable when
 * it can send (quota and buffer) or has a ready page; the one with the least virtual runtime (its
 * core time, S and P, since admission plus the min_vruntime it started from) runs for a time slice
 * of max(min_granularity, latency / runnable) with Linux's defaults (6 ms, 0.75 ms), or until it
 * blocks (nothing to send, nothing ready). While running it does what its own loop would: send while
 * it can, else process. Buffer 2Q (stage_common.h). Flash I/O and buffer play no part in the
 * choice: the weakness the paper describes (section II-B). */
#include "sched/sched.h"
#include "sched/stage_common.h"

#include <stdint.h>

#define CFS_LATENCY_NS 6000000
#define CFS_MIN_GRANULARITY_NS 750000

enum { CUR_ID, SLICE_END, MIN_VRUNTIME, CFS_SLOTS };
enum { VR_BASE, VR_SET };     /* csd_sreq.pol */

static int cfs_init(void **state, const csd_params *p) { return csd_sched_percore_init(state, p, CFS_SLOTS); }

static int64_t vruntime(const csd_sreq *v) { return v->pol[VR_BASE] + (int64_t)v->core_ns; }

static uint64_t cfs_buffer(void *state, const csd_core_view *cv, const csd_sreq *s) {
    (void)state; (void)s;
    return csd_sched_buffer_2q(cv);
}

static csd_stage_choice cfs_decide(void *state, const csd_core_view *cv) {
    int64_t *st = csd_sched_slot(state, cv->core);
    size_t runnable = 0, best = SIZE_MAX, cur = SIZE_MAX;
    int64_t minv = INT64_MAX;
    for (size_t i = 0; i < cv->n; i++) {
        csd_sreq *v = cv->reqs[i];
        if (!v->pol[VR_SET]) {
            /* a newcomer starts at the queue's min_vruntime, so it neither starves nor hogs */
            v->pol[VR_BASE] = st[MIN_VRUNTIME] - (int64_t)v->core_ns;
            v->pol[VR_SET] = 1;
        }
        if (vruntime(v) < minv) minv = vruntime(v);
        if (!csd_sched_can_run(cv, i)) continue;
        runnable++;
        if ((uint64_t)st[CUR_ID] == v->id) cur = i;
        if (best == SIZE_MAX || vruntime(v) < vruntime(cv->reqs[best])) best = i;
    }
    if (minv != INT64_MAX && minv > st[MIN_VRUNTIME]) st[MIN_VRUNTIME] = minv;
    if (!runnable) return csd_stage_wait();
    if (cur != SIZE_MAX && (int64_t)cv->now < st[SLICE_END]) return csd_sched_run(cv, cur);
    uint64_t slice = CFS_LATENCY_NS / runnable;
    if (slice < CFS_MIN_GRANULARITY_NS) slice = CFS_MIN_GRANULARITY_NS;
    st[CUR_ID] = (int64_t)cv->reqs[best]->id;
    st[SLICE_END] = (int64_t)(cv->now + slice);
    return csd_sched_run(cv, best);
}

const csd_req_sched_ops csd_req_sched_cfs = {
    .name = "cfs", .init = cfs_init, .submit = csd_sched_nop_submit, .remove = csd_sched_nop_remove,
    .destroy = csd_sched_percore_destroy, .buffer = cfs_buffer, .decide = cfs_decide,
};
