/* Request-scheduling policies: which tasklet request an embedded core serves next (docs/SCHEDULERS.md).
 *
 * The engine (engine/) keeps the requests and calls a policy through its issue model's table; the
 * policy sees them only through the views below and keeps its own state. The two issue models
 * (engine/issue.h; the parameter issue_model) have a table each:
 * - batch (csd_req_batch_ops): pick() chooses, among requests with a ready page, the one an idle
 *   core serves;
 * - stage (csd_req_stage_ops; REMUS, Huang et al. section II-C): buffer() sizes a sub-request's
 *   buffer at admission and decide() chooses an idle core's next stage (send flash requests, process
 *   a page, or wait).
 * A policy is in either table or both. Each policy is one req_<name>.c; registry.c lists them. */
#ifndef CSD_SCHED_SCHED_H
#define CSD_SCHED_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/params.h"
#include "sched/adapt.h"

/* A request, opaque to policies: they compare and return these pointers only. */
typedef struct csd_isp_req csd_isp_req;

typedef struct csd_req_view {
    uint64_t id;             /* submission order, from 1 */
    uint64_t submit_ns;
    uint64_t pages_total, pages_done, pages_ready;
    uint64_t core_ns;        /* core time consumed so far */
} csd_req_view;

/* Stage mode: one request's sub-request on one core, as the policy sees it (paper Table II). */
typedef struct csd_sreq {
    uint64_t id;             /* the request's submission order, from 1 */
    uint64_t submit_ns, admit_ns;
    uint64_t S, F, P;        /* pages sent, returned, processed (or dropped) on this core */
    uint64_t total;          /* pages this sub-request will send in all */
    uint64_t B;              /* buffer pages allocated (0 until admitted) */
    uint64_t ci_ns;          /* estimated processing time per page (c_i): the hint, else the mean so far */
    uint64_t core_ns;        /* core time (stages S and P) spent on it on this core */
    uint64_t req_pages_left; /* pages of the whole request not yet processed, all cores */
    uint64_t unit;           /* pages of its next flash request: N_pl while whole multi-plane groups
                              * can go (pages left, B_i and Q all >= N_pl), else 1; always 1 when the
                              * adaptation has no whole groups (adapt.h) */
    uint64_t reads_done;     /* flash requests of it returned (a multi-plane read counts once) */
    int64_t pol[4];          /* free for the policy (vruntime, deadlines, ...), zero at admission */
} csd_sreq;

static inline uint64_t csd_sreq_ready(const csd_sreq *s) { return s->F - s->P; }
/* buffer pages not yet claimed by a send: the paper's "remaining buffer" (section III-C1) */
static inline uint64_t csd_sreq_room(const csd_sreq *s) { return s->B - (s->S - s->P); }
/* pages it could send now if the quota allowed (b_ri of Algorithm 1); 0 when that is less than one
 * whole flash request (sending part of a multi-plane group costs a T_s per leftover page later) */
static inline uint64_t csd_sreq_sendable(const csd_sreq *s) {
    uint64_t left = s->total - s->S, room = csd_sreq_room(s), n = left < room ? left : room;
    return n >= s->unit ? n : 0;
}

/* One core's state when it is idle and must choose its next stage. */
typedef struct csd_core_view {
    uint32_t core, cores;
    uint64_t now;
    uint32_t planes;         /* N_pl: pages in a multi-plane request */
    uint64_t Q;              /* flash quota, pages */
    uint64_t inflight;       /* sum S - F over its sub-requests */
    uint64_t buf_pages;      /* the core's share of the ISP buffer */
    uint64_t buf_alloc;      /* pages allocated to admitted sub-requests */
    uint64_t waiting;        /* sub-requests waiting for admission */
    uint64_t t_send_ns, t_read_ns;
    uint32_t chips;          /* chips this core sends to */
    uint32_t adapt;          /* CSD_ADAPT_* bits in force for this policy (sched/adapt.h) */
    size_t n;                /* admitted sub-requests with work left, in admission order */
    csd_sreq *const *reqs;
} csd_core_view;

enum csd_stage { CSD_STAGE_WAIT = 0, CSD_STAGE_S = 1, CSD_STAGE_P = 2 };
typedef struct csd_stage_choice {
    int stage;               /* enum csd_stage */
    size_t idx;              /* index into reqs */
    uint64_t pages;          /* S: pages to send, 0 = all it may (capped by quota, buffer, what is left) */
} csd_stage_choice;

/* Batch issue's table. */
typedef struct csd_req_batch_ops {
    const char *name;
    int (*init)(void **state, const csd_params *p);
    /* A new request; 0 or -ENOMEM (the engine then fails the submission). */
    int (*submit)(void *state, csd_isp_req *r, const csd_req_view *v, uint64_t now);
    void (*remove)(void *state, csd_isp_req *r);
    /* Among requests with a ready page, the one core should serve now; NULL = stay idle.
     * view(r) gives the current numbers of any request. */
    csd_isp_req *(*pick)(void *state, uint32_t core, uint64_t now,
                         const csd_req_view *(*view)(const csd_isp_req *r));
    void (*destroy)(void *state);
} csd_req_batch_ops;

/* Stage issue's table. The policy sees requests only as the sub-requests of csd_core_view. */
typedef struct csd_req_stage_ops {
    const char *name;
    /* 1: the workload assignment, whole multi-plane reads and chip-aware sends are the policy's own
     * design (REMUS III-B): the engine uses them whatever baseline_adaptation says */
    int own_assignment;
    int (*init)(void **state, const csd_params *p);
    void (*destroy)(void *state);
    /* Buffer pages for s on core cv->core (>= 1). */
    uint64_t (*buffer)(void *state, const csd_core_view *cv, const csd_sreq *s);
    /* The next stage of idle core cv->core. An S with nothing sendable or a P with nothing ready
     * counts as a wait; a wait with nothing in flight on the core while a sub-request could send is
     * turned into an S for the first one that can (the core would never be woken otherwise). */
    csd_stage_choice (*decide)(void *state, const csd_core_view *cv);
} csd_req_stage_ops;

/* The policy named name in each table, or NULL; the i-th (registration order), NULL past the last. */
const csd_req_batch_ops *csd_req_batch_find(const char *name);
const csd_req_batch_ops *csd_req_batch_at(size_t i);
const csd_req_stage_ops *csd_req_stage_find(const char *name);
const csd_req_stage_ops *csd_req_stage_at(size_t i);
/* The i-th request_scheduler of either table, each name once (batch's first), NULL past the last. */
const char *csd_req_sched_name_at(size_t i);

#endif
