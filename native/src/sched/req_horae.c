/* Request-scheduling policy "horae": HORAE (Li et al., TCAD 2022; the REMUS paper's ref. [16])
 * adapted to stage mode, per core. HORAE orders stages by their critical path; the runnable
 * sub-request with the longest one is served, its stage P first when it has ready data (the longer
 * stage on the critical path), else its stage S. So long requests get the core and the sends of short
 * ones wait behind their processing (REMUS section II-B). Buffer 2Q. Two readings of the critical
 * path (horae_critical_path; docs/SCHEDULERS.md, section 7.9, measures both):
 *   remaining (default)  HORAE's own: "the critical paths on critical resources" of a job shop
 *                        (REMUS IV-A: "the SOTA job-shop scheduling algorithm"), the time the
 *                        request's stages still need on each resource; for a sub-request on core k
 *                          CP = ceil((total - S) / N_pl) * T_s              (stage S on the core)
 *                             + ceil((total - S) / N_pl) * T_f / chips_k    (stage F on its chips)
 *                             + (total - P) * c_i                           (stage P on the core)
 *   predecessor          REMUS II-B's words: "the sum of the time the predecessor stages occupy the
 *                        resources on each hardware", i.e. what the request has already had: its core
 *                        time (stages S and P) plus T_f per flash request returned; the request that
 *                        has run longest keeps priority. */
#include "sched/sched.h"
#include "sched/stage_common.h"

#include <stdint.h>
#include <string.h>

enum { PREDECESSOR, HORAE_SLOTS };

static int horae_init(void **state, const csd_params *p) {
    int rc = csd_sched_percore_init(state, p, HORAE_SLOTS);
    if (rc == 0)
        for (uint32_t k = 0; k < ((csd_sched_percore *)*state)->cores; k++)
            csd_sched_slot(*state, k)[PREDECESSOR] = !strcmp(p->horae_critical_path, "predecessor");
    return rc;
}

static uint64_t critical_path(const csd_core_view *cv, const csd_sreq *v, int predecessor) {
    if (predecessor) return v->core_ns + v->reads_done * cv->t_read_ns;
    uint64_t npl = cv->planes ? cv->planes : 1, chips = cv->chips ? cv->chips : 1;
    uint64_t sends = (v->total - v->S + npl - 1) / npl;
    return sends * cv->t_send_ns + sends * cv->t_read_ns / chips + (v->total - v->P) * v->ci_ns;
}

static uint64_t horae_buffer(void *state, const csd_core_view *cv, const csd_sreq *s) {
    (void)state;
    return csd_sched_buffer_2q(cv, s);
}

static csd_stage_choice horae_decide(void *state, const csd_core_view *cv) {
    int predecessor = csd_sched_slot(state, cv->core)[PREDECESSOR] != 0;
    size_t best = SIZE_MAX;
    uint64_t best_cp = 0;
    for (size_t i = 0; i < cv->n; i++) {
        if (!csd_sched_can_run(cv, i)) continue;
        uint64_t cp = critical_path(cv, cv->reqs[i], predecessor);
        if (best == SIZE_MAX || cp > best_cp) {
            best = i;
            best_cp = cp;
        }
    }
    if (best == SIZE_MAX) return csd_stage_wait();
    return csd_sreq_ready(cv->reqs[best]) ? csd_stage_process(best) : csd_stage_send(best, 0);
}

const csd_req_stage_ops csd_req_stage_horae = {
    .name = "horae", .init = horae_init,
    .destroy = csd_sched_percore_destroy, .buffer = horae_buffer, .decide = horae_decide,
};
