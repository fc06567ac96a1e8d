/* Inside sandbox/: the loaded-program record shared by the registry (sandbox.c), the wasm runtime
 * (wasm.c) and native loading (native.c). */
#ifndef CSD_SANDBOX_INT_H
#define CSD_SANDBOX_INT_H

#include "sandbox/sandbox.h"

typedef struct csd_wasm_engine csd_wasm_engine;
typedef struct csd_wasm_module csd_wasm_module;

struct csd_sandbox {
    csd_sandbox_limits lim;
    char trusted_dir[4096];
    csd_wasm_engine *wasm;            /* made on first wasm load */
    csd_user_tasklet *loaded;         /* cache: one per installed name */
};

struct csd_user_tasklet {
    int refs;
    csd_sandbox *sb;
    char name[CSD_PROGRAM_NAME_MAX + 1];
    char hash[CSD_PROGRAM_HASH_MAX];
    char summary[160];
    char schema[CSD_SANDBOX_SCHEMA_MAX];   /* ops.schema, copied ("" = none) */
    uint32_t format;
    uint64_t source_id;               /* the stored object it was loaded from (0: unknown) */
    csd_wasm_module *wasm;
    void *dl;                         /* native: dlopen handle */
    const csd_tasklet_ops *dl_ops;    /* native: the program's own ops (ops wraps them) */
    csd_tasklet_ops ops;
    csd_exec_hooks hooks;
    csd_user_tasklet *next;
};

int csd_wasm_engine_create(csd_wasm_engine **out, const csd_sandbox_limits *lim, char *err, size_t errlen);
void csd_wasm_engine_destroy(csd_wasm_engine *e);
int csd_wasm_module_load(csd_wasm_engine *e, const uint8_t *p, size_t len, csd_wasm_module **out, char *err,
                         size_t errlen);
void csd_wasm_module_free(csd_wasm_module *m);
/* u->ops and u->hooks for a loaded wasm program (after csd_wasm_describe). */
void csd_wasm_fill_ops(csd_user_tasklet *u);
/* u->schema and u->summary from the program's optional exports. 0 or a negative errno with err. */
int csd_wasm_describe(csd_user_tasklet *u, char *err, size_t errlen);

/* Native: resolve the program's path inside the trusted directory and open it. */
int csd_native_open(csd_sandbox *s, const char *name, const uint8_t *p, size_t len, csd_user_tasklet *u, char *err,
                    size_t errlen);
void csd_native_close(csd_user_tasklet *u);

#endif
