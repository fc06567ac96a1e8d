/* The request-scheduling policies: one table per issue model (sched.h). */
#include "sched/sched.h"
#include "util/registry.h"

extern const csd_req_batch_ops csd_req_batch_fcfs;
extern const csd_req_stage_ops csd_req_stage_fcfs, csd_req_stage_cfs, csd_req_stage_horae, csd_req_stage_serico,
    csd_req_stage_remus;

static const csd_req_batch_ops *const batch_policies[] = {
    &csd_req_batch_fcfs,
};

static const csd_req_stage_ops *const stage_policies[] = {
    &csd_req_stage_fcfs, &csd_req_stage_cfs, &csd_req_stage_horae, &csd_req_stage_serico, &csd_req_stage_remus,
};

CSD_REGISTRY(csd_req_batch, csd_req_batch_ops, batch_policies)
CSD_REGISTRY(csd_req_stage, csd_req_stage_ops, stage_policies)

const char *csd_req_sched_name_at(size_t i) {
    size_t k = 0;
    for (size_t b = 0; csd_req_batch_at(b); b++)
        if (k++ == i) return csd_req_batch_at(b)->name;
    for (size_t t = 0; csd_req_stage_at(t); t++) {
        const char *n = csd_req_stage_at(t)->name;
        if (!csd_req_batch_find(n) && k++ == i) return n;
    }
    return NULL;
}
