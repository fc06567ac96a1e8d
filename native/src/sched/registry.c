/* Names of the request-scheduling policies (DESIGN.md section 6, docs/SCHEDULERS.md). */
#include "isp/engine.h"

#include <string.h>

static const csd_req_sched_ops *const req_policies[] = {
    &csd_req_sched_fcfs, &csd_req_sched_cfs, &csd_req_sched_horae, &csd_req_sched_serico,
    &csd_req_sched_remus, NULL,
};

static const char *const req_names[] = { "fcfs", "cfs", "horae", "serico", "remus", NULL };

const csd_req_sched_ops *csd_req_sched_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; req_policies[i]; i++)
        if (strcmp(req_policies[i]->name, name) == 0) return req_policies[i];
    return NULL;
}

const char *const *csd_req_sched_names(void) { return req_names; }
