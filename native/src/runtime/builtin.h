/* What the device's own tasklets (tasklets/) and its query engine (query/) share: how a built-in is
 * registered, parameter parsing with clear messages (builtin_params.c) and the cost model constants
 * (docs/TASKLETS.md). */
#ifndef CSD_RUNTIME_BUILTIN_H
#define CSD_RUNTIME_BUILTIN_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/tasklet.h"
#include "runtime/exec.h"

/* A built-in tasklet as the registry (tasklets/registry.c) holds it: its ops and the hooks that take
 * a page's records or lines in one call instead of one record() each (runtime/exec.h; same results,
 * same charges), or NULL. Each built-in defines one, csd_builtin_<name>. */
typedef struct csd_builtin {
    const csd_tasklet_ops *ops;
    const csd_exec_hooks *hooks;
} csd_builtin;

/* Cost model: cycles an embedded core spends besides its DRAM accesses. */
#define CSD_TK_CYCLES_PER_RECORD 4     /* loop, address arithmetic, counter update */
#define CSD_TK_CYCLES_PER_COMPARE 2    /* one comparison + branch */
#define CSD_TK_CYCLES_PER_ROW 40       /* building and encoding one output row */
#define CSD_TK_CYCLES_PER_NODE 3       /* one plan expression node */
#define CSD_TK_CYCLES_PER_HASH 20      /* hashing a group key and probing the table */

/* Integer param key: default def when absent; must lie in [min, max]. 0 or -EINVAL with err set. */
int csd_tk_param_u64(const csd_tasklet_args *a, const char *key, uint64_t def, uint64_t min,
                     uint64_t max, uint64_t *out, char *err, size_t errlen);
int csd_tk_param_i64(const csd_tasklet_args *a, const char *key, int64_t def, int64_t *out,
                     char *err, size_t errlen);
/* Boolean param: 1/0/true/false/yes/no. */
int csd_tk_param_bool(const csd_tasklet_args *a, const char *key, int def, int *out, char *err,
                      size_t errlen);
/* One of choices (NULL-terminated); *out is its index. */
int csd_tk_param_choice(const csd_tasklet_args *a, const char *key, const char *const *choices,
                        int def, int *out, char *err, size_t errlen);

/* Parse a whole decimal integer string (optional sign, 0x hex allowed). 0 or -EINVAL. */
int csd_tk_parse_i64(const char *s, int64_t *out);
int csd_tk_parse_u64(const char *s, uint64_t *out);

#endif
