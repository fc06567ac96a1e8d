/* The stage issue model's request schedulers (every one there is) as a NULL-terminated list, for loops
 * over every policy. */
#ifndef CSD_TEST_SCHED_NAMES_H
#define CSD_TEST_SCHED_NAMES_H

#include <stdio.h>

#include "sched/sched.h"

static inline const char *const *sched_names(void) {
    static const char *names[32];
    size_t n = 0;
    for (const csd_req_stage_ops *o; n + 1 < sizeof names / sizeof names[0] && (o = csd_req_stage_at(n)); n++)
        names[n] = o->name;
    names[n] = NULL;
    return names;
}

/* Name policy the request scheduler of p, under batch issue when batch has it, else stage issue (the
 * one model a stage-only policy has). */
static inline void sched_set(csd_params *p, const char *policy) {
    snprintf(p->request_scheduler, sizeof p->request_scheduler, "%s", policy);
    snprintf(p->issue_model, sizeof p->issue_model, "%s", csd_req_batch_find(policy) ? "batch" : "stage");
}

#endif
