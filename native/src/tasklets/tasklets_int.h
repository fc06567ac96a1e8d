/* Shared pieces of the built-in tasklets: their ops tables; parameter parsing and the cost model
 * constants are runtime/builtin.h's (shared with query/). */
#ifndef CSD_TASKLETS_INT_H
#define CSD_TASKLETS_INT_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/tasklet.h"
#include "runtime/builtin.h"
#include "runtime/exec.h"
#include "query/plan.h"

extern const csd_tasklet_ops csd_tasklet_weblog_q1;
extern const csd_tasklet_ops csd_tasklet_weblog_q2;
extern const csd_tasklet_ops csd_tasklet_filter;
extern const csd_tasklet_ops csd_tasklet_grep;
extern const csd_tasklet_ops csd_tasklet_grep2;
extern const csd_tasklet_ops csd_tasklet_dram_scan;
/* Built-ins that take a page's whole records or lines in one call (runtime/exec.h hooks) */
extern const csd_exec_hooks csd_tasklet_weblog_q1_hooks, csd_tasklet_weblog_q2_hooks, csd_tasklet_grep_hooks;

#endif
