/* The offline heuristic optimal schedule of the REMUS paper (section IV-A, "Offline scheduler"),
 * the upper reference of Fig. 4, over the same stage model as the engine's stage mode. */
#ifndef CSD_SCHED_OPTIMUM_H
#define CSD_SCHED_OPTIMUM_H

#include <stdint.h>
#include "smartssd/params.h"
#include "lib/synth.h"

typedef struct csd_optimum {
    uint64_t makespan_ns;    /* of the heuristic schedule */
    uint64_t bound_ns;       /* a lower bound no schedule can beat (max over cores) */
    uint64_t sends, pages;   /* flash requests (multi-plane ones count once) and pages */
} csd_optimum;

/* Schedule the mix offline (all requests known in advance, arrival times ignored: they must be 0).
 * 0, -EINVAL (arrivals, or a geometry the model cannot take) or -ENOMEM. */
int csd_optimum_schedule(const csd_params *p, const csd_synth_req *reqs, size_t n, csd_optimum *out);

#endif
