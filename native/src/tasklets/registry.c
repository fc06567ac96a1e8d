/* The table of built-in tasklets. */
#include <string.h>

#include "tasklets/builtin_hooks.h"
#include "tasklets/tasklets_int.h"

extern const csd_tasklet_ops csd_tasklet_stats, csd_tasklet_knn;   /* REMUS paper's STAT and KNN */

static const csd_tasklet_ops *const builtin[] = {
    &csd_tasklet_weblog_q1,
    &csd_tasklet_weblog_q2,
    &csd_tasklet_filter,
    &csd_tasklet_grep,
    &csd_tasklet_grep2,
    &csd_tasklet_plan,
    &csd_tasklet_dram_scan,
    &csd_tasklet_stats,
    &csd_tasklet_knn,
    NULL,
};

const csd_tasklet_ops *const *csd_tasklets_builtin(void) { return builtin; }

const csd_tasklet_ops *csd_tasklet_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; builtin[i]; i++)
        if (!strcmp(builtin[i]->name, name)) return builtin[i];
    return NULL;
}

const csd_exec_hooks *csd_tasklet_builtin_hooks(const csd_tasklet_ops *ops) {
    if (ops == &csd_tasklet_weblog_q1) return &csd_tasklet_weblog_q1_hooks;
    if (ops == &csd_tasklet_weblog_q2) return &csd_tasklet_weblog_q2_hooks;
    if (ops == &csd_tasklet_plan) return &csd_tasklet_plan_hooks;
    if (ops == &csd_tasklet_grep) return &csd_tasklet_grep_hooks;
    return NULL;
}
