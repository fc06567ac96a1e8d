/* The device's loaded user programs: compiled (or opened) once per installed name and content hash,
 * shared by every execution, released when removed or replaced and no execution holds them. */
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int csd_sandbox_create(csd_sandbox **out, const csd_sandbox_limits *lim) {
    csd_sandbox *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->lim = *lim;
    snprintf(s->trusted_dir, sizeof s->trusted_dir, "%s", lim->trusted_dir ? lim->trusted_dir : "");
    s->lim.trusted_dir = s->trusted_dir;
    *out = s;
    return 0;
}

static void tasklet_free(csd_user_tasklet *u) {
#ifdef CSD_HAVE_WASMTIME
    csd_wasm_module_free(u->wasm);
#endif
    csd_native_close(u);
    free(u);
}

void csd_user_tasklet_put(csd_user_tasklet *u) {
    if (u && --u->refs == 0) tasklet_free(u);
}

void csd_user_tasklet_ref(csd_user_tasklet *u) { u->refs++; }

void csd_sandbox_forget(csd_sandbox *s, const char *name) {
    for (csd_user_tasklet **pp = &s->loaded; *pp;) {
        csd_user_tasklet *u = *pp;
        if (!strcmp(u->name, name)) {
            *pp = u->next;
            csd_user_tasklet_put(u);   /* the cache's reference */
        } else {
            pp = &u->next;
        }
    }
}

void csd_sandbox_destroy(csd_sandbox *s) {
    if (!s) return;
    while (s->loaded) {
        csd_user_tasklet *u = s->loaded;
        s->loaded = u->next;
        csd_user_tasklet_put(u);
    }
#ifdef CSD_HAVE_WASMTIME
    csd_wasm_engine_destroy(s->wasm);
#endif
    free(s);
}

/* A new loaded program (one reference, not cached). */
static int open_program(csd_sandbox *s, const char *name, uint32_t format, const uint8_t *p, size_t len,
                        csd_user_tasklet **out, char *err, size_t errlen) {
    *out = NULL;
    csd_user_tasklet *u = calloc(1, sizeof *u);
    if (!u) return -ENOMEM;
    u->refs = 1;
    u->sb = s;
    u->format = format;
    snprintf(u->name, sizeof u->name, "%s", name);
    csd_program_hash(p, len, u->hash);
    char why[400] = "";
    int rc;
    if (format == CSD_PROGRAM_NATIVE) {
        rc = csd_native_open(s, name, p, len, u, why, sizeof why);
    } else if (format == CSD_PROGRAM_WASM) {
#ifdef CSD_HAVE_WASMTIME
        rc = s->wasm ? 0 : csd_wasm_engine_create(&s->wasm, &s->lim, why, sizeof why);
        if (!rc) rc = csd_wasm_module_load(s->wasm, p, len, &u->wasm, why, sizeof why);
        if (!rc) rc = csd_wasm_describe(u, why, sizeof why);
        if (!rc) csd_wasm_fill_ops(u);
#else
        snprintf(why, sizeof why, "cannot run: this device was built without the WebAssembly sandbox");
        rc = -ENOTSUP;
#endif
    } else {
        snprintf(why, sizeof why, "has unknown program format %u (1 = wasm, 2 = native)", format);
        rc = -EINVAL;
    }
    if (rc) {
        snprintf(err, errlen, "tasklet program '%s' %s", name, why[0] ? why : strerror(-rc));
        tasklet_free(u);
        return rc;
    }
    *out = u;
    return 0;
}

int csd_sandbox_open(csd_sandbox *s, const char *name, uint32_t format, const uint8_t *p, size_t len,
                     csd_user_tasklet **out, char *err, size_t errlen) {
    return open_program(s, name, format, p, len, out, err, errlen);
}

int csd_sandbox_check(csd_sandbox *s, const char *name, uint32_t format, const uint8_t *p, size_t len,
                      char *err, size_t errlen) {
    csd_user_tasklet *u;
    int rc = open_program(s, name, format, p, len, &u, err, errlen);
    if (!rc) csd_user_tasklet_put(u);
    return rc;
}

int csd_sandbox_load(csd_sandbox *s, const char *name, const csd_program *prog, csd_user_tasklet **out,
                     char *err, size_t errlen) {
    for (csd_user_tasklet *u = s->loaded; u; u = u->next) {
        if (!strcmp(u->name, name) && !strcmp(u->hash, prog->hash) && u->format == prog->format) {
            u->refs++;
            *out = u;
            return 0;
        }
    }
    csd_sandbox_forget(s, name);   /* an older version of that name */
    csd_user_tasklet *u;
    int rc = open_program(s, name, prog->format, prog->bytes, prog->len, &u, err, errlen);
    if (rc) return rc;
    u->next = s->loaded;
    s->loaded = u;
    u->refs++;                     /* the cache's and the caller's */
    *out = u;
    return 0;
}

csd_user_tasklet *csd_sandbox_find(csd_sandbox *s, const char *name, uint64_t source_id) {
    for (csd_user_tasklet *u = s->loaded; u; u = u->next)
        if (source_id && u->source_id == source_id && !strcmp(u->name, name)) {
            u->refs++;
            return u;
        }
    return NULL;
}

void csd_sandbox_note_source(csd_user_tasklet *u, uint64_t source_id) { u->source_id = source_id; }

const csd_tasklet_ops *csd_user_tasklet_ops(csd_user_tasklet *u) { return &u->ops; }
const csd_exec_hooks *csd_user_tasklet_hooks(csd_user_tasklet *u) {
    return u->hooks.flush || u->hooks.ctx ? &u->hooks : NULL;
}
const char *csd_user_tasklet_summary(const csd_user_tasklet *u) { return u->summary; }
