/* The "plan" tasklet, the query engine's face to the tasklet registry (tasklets/registry.c): its ops
 * and the hooks that take a page's records or lines in one call (runtime/exec.h). */
#ifndef CSD_QUERY_PLAN_H
#define CSD_QUERY_PLAN_H

#include "smartssd/tasklet.h"
#include "runtime/exec.h"

extern const csd_tasklet_ops csd_tasklet_plan;
extern const csd_exec_hooks csd_tasklet_plan_hooks;

#endif
