/* Names of the request-scheduling policies (DESIGN.md section 6). */
#include "isp/engine.h"

#include <string.h>

static const csd_req_sched_ops *const req_policies[] = { &csd_req_sched_fcfs, NULL };

const csd_req_sched_ops *csd_req_sched_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; req_policies[i]; i++)
        if (strcmp(req_policies[i]->name, name) == 0) return req_policies[i];
    return NULL;
}
