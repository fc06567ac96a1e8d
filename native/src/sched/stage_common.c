/* Helpers shared by the stage-mode policies. */
#include "sched/stage_common.h"

#include <errno.h>
#include <stdlib.h>

int csd_sched_percore_init(void **state, const csd_params *p, uint32_t slots) {
    uint32_t cores = p->cores ? p->cores : 1;
    csd_sched_percore *s = calloc(1, sizeof *s + (size_t)cores * slots * sizeof(int64_t));
    if (!s) return -ENOMEM;
    s->cores = cores;
    s->slots = slots;
    *state = s;
    return 0;
}

void csd_sched_percore_destroy(void *state) { free(state); }
