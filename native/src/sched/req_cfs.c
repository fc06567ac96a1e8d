/* Request-scheduling policy "cfs": the Completely Fair Scheduler (Kobus and Szklarski, the REMUS
 * paper's ref. [13]) over the sub-requests of a core, in stage mode. A sub-request is runnable when
 * it can send (quota and buffer) or has a ready page; the one with the least virtual runtime (its
 * core time, S and P, since admission plus the min_vruntime it started from) runs for a time slice
 * of max(min_granularity, latency / runnable) with Linux's defaults (6 ms, 0.75 ms), or until it
 * blocks (nothing to send, nothing ready). While running it does what its own loop would: send while
 * it can, else process. Under the paper adaptation the loop is Fig. 2's coupled one (send a batch,
 * wait for it, process it: stage_common.h) and the slice is the request's: it keeps the core while it
 * waits for its batch, and its virtual runtime is the time it held the core. Buffer 2Q
 * (stage_common.h). Flash I/O and buffer play no part in the
 * choice: the weakness the paper describes (section II-B). */
#include "sched/sched.h"
#include "sched/stage_common.h"

#include <stdint.h>

#define CFS_LATENCY_NS 6000000
#define CFS_MIN_GRANULARITY_NS 750000

enum { CUR_ID, SLICE_END, MIN_VRUNTIME, SLICE_START, CFS_SLOTS };
enum { VR_BASE, VR_SET, HELD };     /* csd_sreq.pol */

static int cfs_init(void **state, const csd_params *p) { return csd_sched_percore_init(state, p, CFS_SLOTS); }

/* Virtual runtime: core time (stages S and P); under the coupled loop the time the request held the
 * core, waits for its batch included (its slices are what it was given). */
static int64_t vruntime(const csd_core_view *cv, const csd_sreq *v) {
    return v->pol[VR_BASE] + (cv->adapt & CSD_ADAPT_DECOUPLED ? (int64_t)v->core_ns : v->pol[HELD]);
}

static uint64_t cfs_buffer(void *state, const csd_core_view *cv, const csd_sreq *s) {
    (void)state;
    return csd_sched_buffer_2q(cv, s);
}

static csd_stage_choice cfs_decide(void *state, const csd_core_view *cv) {
    int64_t *st = csd_sched_slot(state, cv->core);
    int coupled = !(cv->adapt & CSD_ADAPT_DECOUPLED);
    size_t runnable = 0, best = SIZE_MAX, cur = SIZE_MAX;
    int64_t minv = INT64_MAX;
    for (size_t i = 0; i < cv->n; i++) {
        csd_sreq *v = cv->reqs[i];
        if (!v->pol[VR_SET]) {
            /* a newcomer starts at the queue's min_vruntime, so it neither starves nor hogs */
            v->pol[VR_BASE] = st[MIN_VRUNTIME] - (vruntime(cv, v) - v->pol[VR_BASE]);
            v->pol[VR_SET] = 1;
        }
        if (vruntime(cv, v) < minv) minv = vruntime(cv, v);
        /* under the coupled loop the slice's holder keeps the core while it waits for its batch */
        if (coupled && (uint64_t)st[CUR_ID] == v->id) cur = i;
        if (!csd_sched_loop_can_run(cv, i)) continue;
        runnable++;
        if ((uint64_t)st[CUR_ID] == v->id) cur = i;
        if (best == SIZE_MAX || vruntime(cv, v) < vruntime(cv, cv->reqs[best])) best = i;
    }
    if (minv != INT64_MAX && minv > st[MIN_VRUNTIME]) st[MIN_VRUNTIME] = minv;
    if (cur != SIZE_MAX && (int64_t)cv->now < st[SLICE_END])
        return coupled ? csd_sched_loop_hold(cv, cur) : csd_sched_loop_run(cv, cur);
    if (!runnable) return csd_stage_wait();
    if (coupled && cur != SIZE_MAX) cv->reqs[cur]->pol[HELD] += (int64_t)cv->now - st[SLICE_START];
    uint64_t slice = CFS_LATENCY_NS / runnable;
    if (slice < CFS_MIN_GRANULARITY_NS) slice = CFS_MIN_GRANULARITY_NS;
    st[CUR_ID] = (int64_t)cv->reqs[best]->id;
    st[SLICE_END] = (int64_t)(cv->now + slice);
    st[SLICE_START] = (int64_t)cv->now;
    return csd_sched_loop_run(cv, best);
}

const csd_req_stage_ops csd_req_stage_cfs = {
    .name = "cfs", .init = cfs_init,
    .destroy = csd_sched_percore_destroy, .buffer = cfs_buffer, .decide = cfs_decide,
};
