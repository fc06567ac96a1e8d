/* The request-scheduling policies, in one list. */
#include "sched/sched.h"
#include "util/registry.h"

extern const csd_req_sched_ops csd_req_sched_fcfs, csd_req_sched_cfs, csd_req_sched_horae,
    csd_req_sched_serico, csd_req_sched_remus;

static const csd_req_sched_ops *const req_policies[] = {
    &csd_req_sched_fcfs, &csd_req_sched_cfs, &csd_req_sched_horae, &csd_req_sched_serico,
    &csd_req_sched_remus,
};

CSD_REGISTRY(csd_req_sched, csd_req_sched_ops, req_policies)
