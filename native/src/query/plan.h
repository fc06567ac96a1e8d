/* The "plan" tasklet, the query engine's face to the tasklet registry (tasklets/registry.c): its ops
 * with the hooks that take a page's lines in one call (runtime/builtin.h). */
#ifndef CSD_QUERY_PLAN_H
#define CSD_QUERY_PLAN_H

#include "runtime/builtin.h"

extern const csd_builtin csd_builtin_plan;

#endif
