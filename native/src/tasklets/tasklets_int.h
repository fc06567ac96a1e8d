/* Shared pieces of the built-in tasklets: each registers itself as csd_builtin_<name> (its ops and
 * hooks, runtime/builtin.h), which tasklets/registry.c lists; parameter parsing and the cost model
 * constants are runtime/builtin.h's (shared with query/). */
#ifndef CSD_TASKLETS_INT_H
#define CSD_TASKLETS_INT_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/tasklet.h"
#include "runtime/builtin.h"
#include "runtime/exec.h"

extern const csd_builtin csd_builtin_weblog_q1, csd_builtin_weblog_q2, csd_builtin_filter, csd_builtin_grep,
    csd_builtin_grep2, csd_builtin_dram_scan;
extern const csd_builtin csd_builtin_stats, csd_builtin_knn;   /* REMUS paper's STAT and KNN */

#endif
