/* The built-in tasklets, each registered with its fast paths (runtime/builtin.h, csd_builtin): the
 * one list identify, create_object and the tests read. */
#ifndef CSD_TASKLETS_REGISTRY_H
#define CSD_TASKLETS_REGISTRY_H

#include <stddef.h>

#include "runtime/builtin.h"

/* The built-in named name, or NULL. */
const csd_builtin *csd_builtin_find(const char *name);
/* The i-th built-in (registration order), NULL past the last. */
const csd_builtin *csd_builtin_at(size_t i);
/* The hooks registered with ops when ops is a built-in's, else NULL (a user tasklet may share a name). */
static inline const csd_exec_hooks *csd_builtin_hooks_of(const csd_tasklet_ops *ops) {
    const csd_builtin *b = ops ? csd_builtin_find(ops->name) : NULL;
    return b && b->ops == ops ? b->hooks : NULL;
}

#endif
