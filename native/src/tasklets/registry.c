/* The table of built-in tasklets, each with its fast paths. */
#include <pthread.h>
#include <string.h>

#include "query/plan.h"
#include "tasklets/registry.h"
#include "tasklets/tasklets_int.h"
#include "util/registry.h"

static const csd_builtin *const builtin[] = {
    &csd_builtin_weblog_q1,
    &csd_builtin_weblog_q2,
    &csd_builtin_filter,
    &csd_builtin_grep,
    &csd_builtin_grep2,
    &csd_builtin_plan,
    &csd_builtin_dram_scan,
    &csd_builtin_stats,
    &csd_builtin_knn,
};

CSD_REGISTRY_KEYED(csd_builtin, csd_builtin, builtin, ops->name)

/* The public list (smartssd/tasklet.h): the registry's ops, NULL-terminated, filled once. */
static const csd_tasklet_ops *builtin_ops[sizeof builtin / sizeof builtin[0] + 1];
static pthread_once_t builtin_ops_once = PTHREAD_ONCE_INIT;

static void builtin_ops_fill(void) {
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) builtin_ops[i] = builtin[i]->ops;
}

const csd_tasklet_ops *const *csd_tasklets_builtin(void) {
    pthread_once(&builtin_ops_once, builtin_ops_fill);
    return builtin_ops;
}

const csd_tasklet_ops *csd_tasklet_find(const char *name) {
    const csd_builtin *b = csd_builtin_find(name);
    return b ? b->ops : NULL;
}
