/* Request-scheduling policy "fcfs": an idle core serves the oldest request that has a ready page.
 * Requests are kept in submission order in a growable array (submissions are rare next to picks).
 * Stage mode: the oldest admitted sub-request that can do anything runs its own loop (send while
 * the quota and its buffer allow, else process); buffer 2Q. Under the paper adaptation the loop is
 * Fig. 2's coupled one (stage_common.h) and the oldest request holds the core until it is done. */
#include "sched/sched.h"
#include "sched/stage_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct fcfs_state {
    csd_isp_req **reqs;
    size_t n, cap;
} fcfs_state;

static int fcfs_init(void **state, const csd_params *p) {
    (void)p;
    fcfs_state *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    *state = s;
    return 0;
}

static int fcfs_submit(void *state, csd_isp_req *r, const csd_req_view *v, uint64_t now) {
    (void)v; (void)now;
    fcfs_state *s = state;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        csd_isp_req **a = realloc(s->reqs, cap * sizeof *a);
        if (!a) return -ENOMEM;
        s->reqs = a;
        s->cap = cap;
    }
    s->reqs[s->n++] = r;
    return 0;
}

static void fcfs_remove(void *state, csd_isp_req *r) {
    fcfs_state *s = state;
    for (size_t i = 0; i < s->n; i++) {
        if (s->reqs[i] == r) {
            memmove(&s->reqs[i], &s->reqs[i + 1], (s->n - i - 1) * sizeof *s->reqs);
            s->n--;
            return;
        }
    }
}

static csd_isp_req *fcfs_pick(void *state, uint32_t core, uint64_t now,
                              const csd_req_view *(*view)(const csd_isp_req *r)) {
    (void)core; (void)now;
    fcfs_state *s = state;
    for (size_t i = 0; i < s->n; i++)
        if (view(s->reqs[i])->pages_ready > 0) return s->reqs[i];
    return NULL;
}

static void fcfs_destroy(void *state) {
    fcfs_state *s = state;
    if (!s) return;
    free(s->reqs);
    free(s);
}

static uint64_t fcfs_buffer(void *state, const csd_core_view *cv, const csd_sreq *s) {
    (void)state;
    return csd_sched_buffer_2q(cv, s);
}

static csd_stage_choice fcfs_decide(void *state, const csd_core_view *cv) {
    (void)state;
    /* coupled loop: the oldest admitted request holds the core until it is done */
    if (!(cv->adapt & CSD_ADAPT_DECOUPLED)) return cv->n ? csd_sched_loop_hold(cv, 0) : csd_stage_wait();
    for (size_t i = 0; i < cv->n; i++)
        if (csd_sched_loop_can_run(cv, i)) return csd_sched_loop_run(cv, i);
    return csd_stage_wait();
}

const csd_req_batch_ops csd_req_batch_fcfs = {
    .name = "fcfs", .init = fcfs_init, .submit = fcfs_submit, .remove = fcfs_remove, .pick = fcfs_pick,
    .destroy = fcfs_destroy,
};

const csd_req_stage_ops csd_req_stage_fcfs = {
    .name = "fcfs", .init = fcfs_init, .destroy = fcfs_destroy, .buffer = fcfs_buffer, .decide = fcfs_decide,
};
