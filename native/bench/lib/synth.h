/* Synthetic request mixes for the stage model (REMUS paper section IV-B): requests that only have a
 * processing time per page (c_i), a size and a start LBA, run through the real engine and tasklet
 * runtime (a "cost" tasklet charges c_i per page). Used by the tests and bench_remus. */
#ifndef CSD_SCHED_SYNTH_H
#define CSD_SCHED_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include "engine/engine.h"

typedef struct csd_synth_req {
    uint64_t ci_ns;          /* processing time per page */
    uint64_t pages;
    uint64_t lba_page;       /* first LBA, in pages: page k lives where eq. 4 puts LBA lba_page + k */
    uint64_t arrive_ns;      /* submission time */
} csd_synth_req;

typedef struct csd_synth_result {
    uint64_t makespan_ns;    /* last finish - first arrival */
    uint64_t *finish_ns;     /* per request (malloc'd, n entries; csd_synth_result_free) */
    uint64_t checks;         /* invariant checks run (check_each_step) */
    uint64_t core_busy_ns;   /* all cores */
    uint64_t buffer_peak_bytes;
    uint64_t flash_reads;    /* flash operations (a multi-plane read is one) */
    uint64_t decisions;      /* the policy's decide() calls */
    uint64_t forced;         /* waits the engine overrode (nothing in flight would wake the core) */
} csd_synth_result;

/* The physical page of LBA page lba when pages are striped in LBA order over planes, then chips
 * (eq. 4: chip = floor(lba / N_pl) % chips), then pages and blocks. */
uint64_t csd_synth_ppn(const csd_params *p, uint64_t lba);

/* Run the mix on a fresh engine with params p (blocks_per_plane must be set). trace may be NULL.
 * check_each_step: run csd_engine_check() after every event and fail on the first violation.
 * 0, or a negative errno with err set (engine errors, an invariant violation, a request that never
 * finished). */
int csd_synth_run(const csd_params *p, const csd_synth_req *reqs, size_t n, int check_each_step,
                  csd_engine_trace_fn trace, void *trace_arg, csd_synth_result *out, char *err, size_t errlen);
void csd_synth_result_free(csd_synth_result *r);

#endif
