/* Helpers shared by the stage-mode policies (engine.h, "Stage mode"). */
#ifndef CSD_SCHED_STAGE_COMMON_H
#define CSD_SCHED_STAGE_COMMON_H

#include "sched/sched.h"

/* REMUS equation (12): B_i = Q + ceil(c_i) * PageSize, c_i in microseconds; here counted in pages. */
static inline uint64_t csd_sched_buffer_eq12(const csd_core_view *cv, const csd_sreq *s) {
    return cv->Q + (s->ci_ns + 999) / 1000;
}

/* The baselines' buffer per sub-request: twice the core's flash quota, so a request can keep the
 * quota in flight while it processes the previous quota's pages (double buffering); eq. 12 when the
 * adaptation says so (CSD_ADAPT_EQ12, the ablation). */
static inline uint64_t csd_sched_buffer_2q(const csd_core_view *cv, const csd_sreq *s) {
    return cv->adapt & CSD_ADAPT_EQ12 ? csd_sched_buffer_eq12(cv, s) : 2 * cv->Q;
}

static inline uint64_t csd_sched_qcur(const csd_core_view *cv) {
    return cv->Q > cv->inflight ? cv->Q - cv->inflight : 0;
}

/* What sub-request i can do now: send (quota and buffer allow) / process (data ready). */
static inline int csd_sched_can_send(const csd_core_view *cv, size_t i) {
    uint64_t unit = cv->reqs[i]->unit ? cv->reqs[i]->unit : 1;
    return csd_sched_qcur(cv) >= unit && csd_sreq_sendable(cv->reqs[i]) > 0;
}
static inline int csd_sched_can_run(const csd_core_view *cv, size_t i) {
    return csd_sched_can_send(cv, i) || csd_sreq_ready(cv->reqs[i]) > 0;
}

static inline csd_stage_choice csd_stage_send(size_t i, uint64_t pages) {
    return (csd_stage_choice){ CSD_STAGE_S, i, pages };
}
static inline csd_stage_choice csd_stage_process(size_t i) { return (csd_stage_choice){ CSD_STAGE_P, i, 0 }; }
static inline csd_stage_choice csd_stage_wait(void) { return (csd_stage_choice){ CSD_STAGE_WAIT, 0, 0 }; }

/* A request "running" on the core does what its own I/O loop would: send while it can, else
 * process (the baselines schedule requests, not stages). */
static inline csd_stage_choice csd_sched_run(const csd_core_view *cv, size_t i) {
    return csd_sched_can_send(cv, i) ? csd_stage_send(i, 0) : csd_stage_process(i);
}

/* The loop of a request under FCFS and CFS. Decoupled (CSD_ADAPT_DECOUPLED): as csd_sched_run. Else
 * the coupled loop of the REMUS paper's Fig. 2: send a batch (as much as quota and buffer allow),
 * wait for it, process it; no new batch until the last one is processed, so the flash idles while
 * the request processes and the core idles while it waits (the request holds the core for its time
 * slot: csd_sched_loop_hold). */
static inline int csd_sched_loop_can_send(const csd_core_view *cv, size_t i) {
    if (!(cv->adapt & CSD_ADAPT_DECOUPLED) && cv->reqs[i]->S != cv->reqs[i]->P) return 0;
    return csd_sched_can_send(cv, i);
}
static inline int csd_sched_loop_can_run(const csd_core_view *cv, size_t i) {
    return csd_sched_loop_can_send(cv, i) || csd_sreq_ready(cv->reqs[i]) > 0;
}
static inline csd_stage_choice csd_sched_loop_run(const csd_core_view *cv, size_t i) {
    return csd_sched_loop_can_send(cv, i) ? csd_stage_send(i, 0) : csd_stage_process(i);
}
/* The coupled loop of a request that holds the core: send, else process, else wait for its batch
 * (the core waits with it: the time slot is the request's). */
static inline csd_stage_choice csd_sched_loop_hold(const csd_core_view *cv, size_t i) {
    if (csd_sched_loop_can_send(cv, i)) return csd_stage_send(i, 0);
    return csd_sreq_ready(cv->reqs[i]) ? csd_stage_process(i) : csd_stage_wait();
}

/* Per-core scalar state of a stage-only policy: a[core * slots + k], zeroed. */
typedef struct csd_sched_percore {
    uint32_t cores, slots;
    int64_t a[];
} csd_sched_percore;

int csd_sched_percore_init(void **state, const csd_params *p, uint32_t slots);
void csd_sched_percore_destroy(void *state);
static inline int64_t *csd_sched_slot(void *state, uint32_t core) {
    csd_sched_percore *s = state;
    return &s->a[(size_t)core * s->slots];
}

#endif
