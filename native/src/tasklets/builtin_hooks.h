/* Built-in tasklets that take a page's records (or lines) in one call instead of one record() call
 * each: the runtime's hooks (runtime/exec.h), same results and the same charges per page. */
#ifndef CSD_TASKLETS_BUILTIN_HOOKS_H
#define CSD_TASKLETS_BUILTIN_HOOKS_H

#include "runtime/exec.h"

/* The hooks of built-in ops, or NULL when it takes records one at a time. */
const csd_exec_hooks *csd_tasklet_builtin_hooks(const csd_tasklet_ops *ops);

#endif
