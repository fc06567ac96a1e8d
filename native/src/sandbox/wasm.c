/* WebAssembly user tasklets on Wasmtime (C API): the sandbox the Smart SSD paper's future work asks
 * for (VI: tasklets that cannot overwrite data or crash the device).
 *
 * A program is a wasm module built with the tasklet SDK (native/sdk/). It exports its memory and
 * csd_abi_version, csd_buf, csd_init, csd_batch, csd_finish, and imports only module "smartssd"
 * (charge, rows, failures, framing) and, for the C library's sake, WASI functions, which answer
 * ENOSYS (no files, clock or environment). Each execution gets a store with
 *   - a memory limit (tasklet_memory_bytes): growth past it fails, and access outside the instance's
 *     own linear memory traps;
 *   - an instruction budget (fuel, tasklet_fuel_per_page) refilled before each call;
 *   - a native stack limit (tasklet_stack_bytes) set on the engine.
 * Records reach the guest in batches, one per page fed (runtime/exec.c's flush hook): the bytes are
 * copied into the guest's buffer, so the guest never sees device memory.
 *
 * Cost (docs/USER-TASKLETS.md): cycles = fuel used * cycles_per_kfuel / 1000, plus one DRAM access per
 * record or line delivered, plus whatever the tasklet charges itself. */
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CSD_HAVE_WASMTIME
#include <wasmtime.h>

#define BATCH_MIN_BYTES (64u << 10)   /* guest batch buffer: a page or more at a time */
#define ENTRY_RECORD 0u
#define ENTRY_PAGE 1u
#define ENTRY_RUN 2u                  /* consecutive fixed-size records, back to back */
#define WASI_ENOSYS 52

const char *csd_sandbox_name(void) { return "wasmtime " CSD_WASMTIME_VERSION; }

/* ------------------------------------------------------------------------------------------ engine */

struct csd_wasm_engine {
    wasm_engine_t *engine;
    wasmtime_linker_t *linker;        /* the smartssd imports; WASI stubs are added per module */
};

typedef struct wsb_inst wsb_inst;

/* One execution's instance: its own store, memory and budget. */
struct wsb_inst {
    csd_user_tasklet *u;
    wasmtime_store_t *store;
    wasmtime_context_t *cx;
    wasmtime_instance_t inst;
    wasmtime_memory_t mem;
    int mem_ok;                       /* mem is set (instantiated) */
    wasmtime_func_t f_buf, f_init, f_batch, f_finish;
    csd_tasklet_io *io;               /* during a call */
    const csd_tasklet_args *args;     /* during init */
    csd_framing *fr;                  /* during init */
    int framed;
    char *init_err;                   /* during init: where fail() writes */
    size_t init_errlen;
    const char *phase;                /* "init", "record", "finish": for messages */
    uint32_t gbuf, gcap;              /* the guest's batch buffer */
    uint8_t *gmem;                    /* the guest's memory as of the last call (it moves only then) */
    uint64_t gsize;
    uint32_t record_bytes;            /* RECORDS framing: records go in runs; 0 for lines */
    int run_open;                     /* the last entry is a run that the next record may extend */
    uint32_t run_at, run_len;         /* its header's place in the buffer, its bytes */
    uint64_t run_next;                /* the offset a record must have to extend it */
    uint32_t gused, entries;
    uint64_t items;                   /* records/lines in the pending batch */
    uint64_t cur_page;
    int have_page, skipping;
    uint64_t row_bytes;               /* bytes of the row being built */
    size_t out_limit;                 /* output_buffer_bytes of this execution */
};

static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static wsb_inst *inst_of(wasmtime_caller_t *caller) {
    return wasmtime_context_get_data(wasmtime_caller_context(caller));
}

/* A guest range [ptr, ptr+len) inside its memory, or NULL (the caller traps). */
static uint8_t *guest_range(wsb_inst *w, uint64_t ptr, uint64_t len) {
    size_t size = wasmtime_memory_data_size(w->cx, &w->mem);
    if (ptr > size || len > size - ptr) return NULL;
    return wasmtime_memory_data(w->cx, &w->mem) + ptr;
}

static wasm_trap_t *trapf(const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wasmtime_trap_new(msg, n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

/* ------------------------------------------------------------------- imports: module "smartssd" */

static wasm_trap_t *h_charge(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                             wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    /* A tasklet may add cost (e.g. random accesses to a large table); it cannot take any away. */
    if (w->io && a[0].of.i64 > 0 && a[1].of.i64 >= 0) csd_io_charge(w->io, (uint64_t)a[0].of.i64, (uint64_t)a[1].of.i64);
    return NULL;
}

static wasm_trap_t *no_io(wsb_inst *w, const char *what) {
    return trapf("%s is not allowed in %s (rows are emitted from record, page or finish)", what, w->phase);
}

static wasm_trap_t *h_row_begin(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                                wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->io) return no_io(w, "row_begin");
    w->row_bytes = 0;
    csd_io_row_begin(w->io);
    return NULL;
}

static wasm_trap_t *h_val_int(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                              wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->io) return no_io(w, "val_int");
    w->row_bytes += 11;
    csd_io_val_int(w->io, a[0].of.i64);
    return NULL;
}

static wasm_trap_t *h_val_double(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                                 wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->io) return no_io(w, "val_double");
    w->row_bytes += 11;
    csd_io_val_double(w->io, a[0].of.f64);
    return NULL;
}

static wasm_trap_t *h_val_bool(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                               wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->io) return no_io(w, "val_bool");
    w->row_bytes += 4;
    csd_io_val_bool(w->io, a[0].of.i32 != 0);
    return NULL;
}

static wasm_trap_t *h_val_null(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                               wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->io) return no_io(w, "val_null");
    w->row_bytes += 4;
    csd_io_val_null(w->io);
    return NULL;
}

static wasm_trap_t *h_val_bytes(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                                wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->io) return no_io(w, "val_bytes");
    uint64_t ptr = (uint32_t)a[0].of.i32, len = (uint32_t)a[1].of.i32;
    uint8_t *p = guest_range(w, ptr, len);
    if (!p) return trapf("val_bytes of [%" PRIu64 ", +%" PRIu64 ") lies outside the tasklet's memory", ptr, len);
    w->row_bytes += len + 12;
    /* A row that can never fit is refused before it is copied into device memory. */
    if (w->out_limit && w->row_bytes > w->out_limit) {
        csd_io_fail(w->io, "tasklet '%s' built a row of more than %" PRIu64 " bytes, larger than its whole output "
                    "buffer (output_buffer_bytes = %zu)", w->u->name, w->row_bytes, w->out_limit);
        return trapf("row larger than the output buffer");
    }
    csd_io_val_bytes(w->io, p, len);
    return NULL;
}

static wasm_trap_t *h_row_end(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                              wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->io) return no_io(w, "row_end");
    if (w->out_limit && w->row_bytes > w->out_limit) {
        csd_io_fail(w->io, "tasklet '%s' built a row of %" PRIu64 " bytes, larger than its whole output buffer "
                    "(output_buffer_bytes = %zu)", w->u->name, w->row_bytes, w->out_limit);
        return trapf("row larger than the output buffer");
    }
    r[0].kind = WASMTIME_I32;
    r[0].of.i32 = csd_io_row_end(w->io);
    return NULL;
}

/* Text from the guest, bounded and made printable. */
static void guest_text(wsb_inst *w, uint32_t ptr, uint32_t len, char *out, size_t cap) {
    uint8_t *p = guest_range(w, ptr, len);
    size_t n = 0;
    if (p)
        for (; n < len && n + 1 < cap; n++) out[n] = (p[n] >= 32 && p[n] < 127) ? (char)p[n] : '?';
    out[n] = 0;
}

static wasm_trap_t *h_fail(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                           wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    char msg[400];
    guest_text(w, (uint32_t)a[0].of.i32, (uint32_t)a[1].of.i32, msg, sizeof msg);
    if (w->init_err) {
        if (!w->init_err[0]) snprintf(w->init_err, w->init_errlen, "%s", msg);
    } else if (w->io) {
        csd_io_fail(w->io, "%s", msg);
    }
    return NULL;
}

static wasm_trap_t *h_reject(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                             wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    char key[CSD_PARAM_KEY_MAX + 1];
    guest_text(w, (uint32_t)a[0].of.i32, (uint32_t)a[1].of.i32, key, sizeof key);
    if (w->args) csd_args_reject(w->args, key);
    return NULL;
}

static wasm_trap_t *h_framing(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                              wasmtime_val_t *r, size_t nr) {
    wsb_inst *w = inst_of(c);
    if (!w->fr) return trapf("framing is chosen in init only");
    w->fr->kind = (csd_framing_kind)a[0].of.i32;
    w->fr->record_bytes = (uint32_t)a[1].of.i32;
    w->fr->skip_header = a[2].of.i32 != 0;
    w->framed = 1;
    return NULL;
}

/* WASI: the C library may import these; none reaches anything. */
static wasm_trap_t *h_wasi_enosys(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                                  wasmtime_val_t *r, size_t nr) {
    for (size_t i = 0; i < nr; i++) {
        r[i].kind = WASMTIME_I32;
        r[i].of.i32 = WASI_ENOSYS;
    }
    return NULL;
}

static wasm_trap_t *h_wasi_exit(void *env, wasmtime_caller_t *c, const wasmtime_val_t *a, size_t na,
                                wasmtime_val_t *r, size_t nr) {
    return trapf("the tasklet called exit(%d)", na ? a[0].of.i32 : 0);
}

enum { I32 = WASM_I32, I64 = WASM_I64, F64 = WASM_F64, NONE = -1 };

typedef struct import_def {
    const char *name;
    wasmtime_func_callback_t cb;
    int params[3];
    int result;
} import_def;

static const import_def IMPORTS[] = {
    { "charge", h_charge, { I64, I64, NONE }, NONE },
    { "row_begin", h_row_begin, { NONE, NONE, NONE }, NONE },
    { "val_int", h_val_int, { I64, NONE, NONE }, NONE },
    { "val_double", h_val_double, { F64, NONE, NONE }, NONE },
    { "val_bytes", h_val_bytes, { I32, I32, NONE }, NONE },
    { "val_bool", h_val_bool, { I32, NONE, NONE }, NONE },
    { "val_null", h_val_null, { NONE, NONE, NONE }, NONE },
    { "row_end", h_row_end, { NONE, NONE, NONE }, I32 },
    { "fail", h_fail, { I32, I32, NONE }, NONE },
    { "reject", h_reject, { I32, I32, NONE }, NONE },
    { "framing", h_framing, { I32, I32, I32 }, NONE },
};
#define N_IMPORTS (sizeof IMPORTS / sizeof IMPORTS[0])

static wasm_functype_t *functype(const int *params, int np, int result) {
    wasm_valtype_vec_t ps, rs;
    wasm_valtype_t *pv[3];
    int n = 0;
    for (int i = 0; i < np && params[i] != NONE; i++) pv[n++] = wasm_valtype_new((wasm_valkind_t)params[i]);
    wasm_valtype_vec_new(&ps, (size_t)n, pv);
    if (result != NONE) {
        wasm_valtype_t *rv = wasm_valtype_new((wasm_valkind_t)result);
        wasm_valtype_vec_new(&rs, 1, &rv);
    } else {
        wasm_valtype_vec_new_empty(&rs);
    }
    return wasm_functype_new(&ps, &rs);
}

static void error_text(wasmtime_error_t *e, wasm_trap_t *t, char *out, size_t cap) {
    wasm_byte_vec_t m = { 0, NULL };
    if (e) wasmtime_error_message(e, &m);
    else if (t) wasm_trap_message(t, &m);
    /* keep the first line: the rest is a wasm backtrace */
    size_t n = 0;
    while (n < m.size && m.data[n] != '\n' && n + 1 < cap) {
        out[n] = m.data[n];
        n++;
    }
    out[n] = 0;
    if (m.data) wasm_byte_vec_delete(&m);
}

int csd_wasm_engine_create(csd_wasm_engine **out, const csd_sandbox_limits *lim, char *err, size_t errlen) {
    csd_wasm_engine *e = calloc(1, sizeof *e);
    if (!e) return -ENOMEM;
    wasm_config_t *cfg = wasm_config_new();
    if (!cfg) {
        free(e);
        return -ENOMEM;
    }
    wasmtime_config_consume_fuel_set(cfg, true);
    wasmtime_config_max_wasm_stack_set(cfg, (size_t)lim->stack_bytes);
    /* Deterministic results and the same answers on any host. */
    wasmtime_config_cranelift_nan_canonicalization_set(cfg, true);
    /* Tasklets trade bytes and scalars: typed references (GC, function references, exceptions) and
     * v128 are refused at load, where the C API could not even describe such a type in a signature
     * (found by fuzz_program). The SDK's clang target emits neither. */
    wasmtime_config_wasm_gc_set(cfg, false);
    wasmtime_config_wasm_function_references_set(cfg, false);
    wasmtime_config_wasm_exceptions_set(cfg, false);
    wasmtime_config_wasm_simd_set(cfg, false);
    wasmtime_config_wasm_relaxed_simd_set(cfg, false);
    e->engine = wasm_engine_new_with_config(cfg);
    if (!e->engine) {
        free(e);
        snprintf(err, errlen, "cannot start the wasm engine");
        return -ENOMEM;
    }
    e->linker = wasmtime_linker_new(e->engine);
    for (size_t i = 0; i < N_IMPORTS; i++) {
        wasm_functype_t *ft = functype(IMPORTS[i].params, 3, IMPORTS[i].result);
        wasmtime_error_t *we = wasmtime_linker_define_func(e->linker, "smartssd", 8, IMPORTS[i].name,
                                                           strlen(IMPORTS[i].name), ft, IMPORTS[i].cb, NULL, NULL);
        wasm_functype_delete(ft);
        if (we) {
            error_text(we, NULL, err, errlen);
            wasmtime_error_delete(we);
            csd_wasm_engine_destroy(e);
            return -EINVAL;
        }
    }
    *out = e;
    return 0;
}

void csd_wasm_engine_destroy(csd_wasm_engine *e) {
    if (!e) return;
    if (e->linker) wasmtime_linker_delete(e->linker);
    if (e->engine) wasm_engine_delete(e->engine);
    free(e);
}

/* ------------------------------------------------------------------------------------- modules */

struct csd_wasm_module {
    wasmtime_module_t *module;
    wasmtime_instance_pre_t *pre;
};

static int same_type(const wasm_functype_t *ft, const int *params, int np, int result) {
    const wasm_valtype_vec_t *ps = wasm_functype_params(ft), *rs = wasm_functype_results(ft);
    int n = 0;
    while (n < np && params[n] != NONE) n++;
    if (ps->size != (size_t)n || rs->size != (result == NONE ? 0u : 1u)) return 0;
    for (int i = 0; i < n; i++)
        if (wasm_valtype_kind(ps->data[i]) != params[i]) return 0;
    return result == NONE || wasm_valtype_kind(rs->data[0]) == result;
}

static const char *type_text(const int *params, int result) {
    static const char *const names[] = { "i32", "i64", "f32", "f64" };
    /* only for messages: a small fixed set of signatures */
    static char buf[8][64];
    static int k;
    char *b = buf[k++ & 7];
    size_t n = (size_t)snprintf(b, 64, "(");
    for (int i = 0; i < 3 && params[i] != NONE; i++)
        n += (size_t)snprintf(b + n, 64 - n, "%s%s", i ? ", " : "", names[params[i]]);
    snprintf(b + n, 64 - n, ") -> %s", result == NONE ? "()" : names[result]);
    return b;
}

typedef struct export_def {
    const char *name;
    int params[3];
    int result;
} export_def;

static const export_def EXPORTS[] = {
    { "csd_abi_version", { NONE, NONE, NONE }, I32 },
    { "csd_buf", { I32, NONE, NONE }, I32 },
    { "csd_init", { I32, I32, NONE }, I32 },
    { "csd_batch", { I32, I32, NONE }, I32 },
    { "csd_finish", { NONE, NONE, NONE }, I32 },
};
#define N_EXPORTS (sizeof EXPORTS / sizeof EXPORTS[0])

/* Imports: smartssd.* with the right types, or WASI functions (stubbed); nothing else. */
static int check_imports(csd_wasm_engine *e, wasmtime_module_t *m, wasmtime_linker_t *lk, char *err, size_t errlen) {
    wasm_importtype_vec_t imps;
    wasmtime_module_imports(m, &imps);
    int rc = 0;
    for (size_t i = 0; i < imps.size && !rc; i++) {
        const wasm_name_t *mod = wasm_importtype_module(imps.data[i]), *nm = wasm_importtype_name(imps.data[i]);
        const wasm_externtype_t *et = wasm_importtype_type(imps.data[i]);
        char mname[64], iname[64];
        snprintf(mname, sizeof mname, "%.*s", (int)(mod->size < 60 ? mod->size : 60), mod->data);
        snprintf(iname, sizeof iname, "%.*s", (int)(nm->size < 60 ? nm->size : 60), nm->data);
        const wasm_functype_t *ft = wasm_externtype_kind(et) == WASM_EXTERN_FUNC
                                        ? wasm_externtype_as_functype_const(et) : NULL;
        if (!strcmp(mname, "smartssd")) {
            const import_def *d = NULL;
            for (size_t k = 0; k < N_IMPORTS; k++)
                if (!strcmp(IMPORTS[k].name, iname)) d = &IMPORTS[k];
            if (!d) {
                snprintf(err, errlen, "imports 'smartssd.%s', which the device does not provide", iname);
                rc = -EINVAL;
            } else if (!ft || !same_type(ft, d->params, 3, d->result)) {
                snprintf(err, errlen, "imports 'smartssd.%s' with the wrong type (the device's is %s)", iname,
                         type_text(d->params, d->result));
                rc = -EINVAL;
            }
        } else if (!strcmp(mname, "wasi_snapshot_preview1") && ft) {
            /* proc_exit traps; everything else answers ENOSYS (results must be i32 errnos) */
            const wasm_valtype_vec_t *rs = wasm_functype_results(ft);
            int ok = rs->size == 0 || (rs->size == 1 && wasm_valtype_kind(rs->data[0]) == WASM_I32);
            if (!ok) {
                snprintf(err, errlen, "imports WASI function '%s' with an unexpected type", iname);
                rc = -EINVAL;
            } else if (lk) {
                wasmtime_error_t *we = wasmtime_linker_define_func(
                    lk, mod->data, mod->size, nm->data, nm->size, ft,
                    !strcmp(iname, "proc_exit") ? h_wasi_exit : h_wasi_enosys, NULL, NULL);
                if (we) {
                    error_text(we, NULL, err, errlen);
                    wasmtime_error_delete(we);
                    rc = -EINVAL;
                }
            }
        } else {
            snprintf(err, errlen, "imports '%s.%s', which the device does not provide (a tasklet reaches the "
                     "device only through the 'smartssd' calls)", mname, iname);
            rc = -EINVAL;
        }
    }
    wasm_importtype_vec_delete(&imps);
    return rc;
}

static int check_exports(wasmtime_module_t *m, char *err, size_t errlen) {
    wasm_exporttype_vec_t exps;
    wasmtime_module_exports(m, &exps);
    int found[N_EXPORTS] = { 0 }, mem = 0, rc = 0;
    for (size_t i = 0; i < exps.size && !rc; i++) {
        const wasm_name_t *nm = wasm_exporttype_name(exps.data[i]);
        const wasm_externtype_t *et = wasm_exporttype_type(exps.data[i]);
        if (nm->size == 6 && !memcmp(nm->data, "memory", 6) && wasm_externtype_kind(et) == WASM_EXTERN_MEMORY) {
            const wasm_memorytype_t *mt = wasm_externtype_as_memorytype_const(et);
            if (wasmtime_memorytype_is64(mt) || wasmtime_memorytype_isshared(mt)) {
                snprintf(err, errlen, "exports a 64-bit or shared memory; the device takes a 32-bit unshared one");
                rc = -EINVAL;
            }
            mem = 1;
            continue;
        }
        for (size_t k = 0; k < N_EXPORTS; k++) {
            if (strlen(EXPORTS[k].name) != nm->size || memcmp(EXPORTS[k].name, nm->data, nm->size)) continue;
            if (wasm_externtype_kind(et) != WASM_EXTERN_FUNC ||
                !same_type(wasm_externtype_as_functype_const(et), EXPORTS[k].params, 3, EXPORTS[k].result)) {
                snprintf(err, errlen, "exports '%s' with the wrong type (expected %s)", EXPORTS[k].name,
                         type_text(EXPORTS[k].params, EXPORTS[k].result));
                rc = -EINVAL;
            }
            found[k] = 1;
        }
    }
    wasm_exporttype_vec_delete(&exps);
    if (rc) return rc;
    if (!mem) {
        snprintf(err, errlen, "exports no memory named 'memory' (build it with the tasklet SDK)");
        return -EINVAL;
    }
    for (size_t k = 0; k < N_EXPORTS; k++)
        if (!found[k]) {
            snprintf(err, errlen, "exports no function '%s' (build it with the tasklet SDK: bin/smartssd tasklet build)",
                     EXPORTS[k].name);
            return -EINVAL;
        }
    return 0;
}

int csd_wasm_module_load(csd_wasm_engine *e, const uint8_t *p, size_t len, csd_wasm_module **out, char *err,
                         size_t errlen) {
    *out = NULL;
    if (len < 8 || memcmp(p, "\0asm", 4)) {
        snprintf(err, errlen, "is not a WebAssembly module (no \\0asm magic in its first bytes)");
        return -EINVAL;
    }
    wasmtime_module_t *m = NULL;
    wasmtime_error_t *we = wasmtime_module_new(e->engine, p, len, &m);
    if (we) {
        char msg[300];
        error_text(we, NULL, msg, sizeof msg);
        wasmtime_error_delete(we);
        snprintf(err, errlen, "is not a valid WebAssembly module: %s", msg);
        return -EINVAL;
    }
    wasmtime_linker_t *lk = wasmtime_linker_clone(e->linker);
    int rc = lk ? 0 : -ENOMEM;
    if (!rc) rc = check_exports(m, err, errlen);
    if (!rc) rc = check_imports(e, m, lk, err, errlen);
    wasmtime_instance_pre_t *pre = NULL;
    if (!rc) {
        we = wasmtime_linker_instantiate_pre(lk, m, &pre);
        if (we) {
            char msg[300];
            error_text(we, NULL, msg, sizeof msg);
            wasmtime_error_delete(we);
            snprintf(err, errlen, "cannot be linked: %s", msg);
            rc = -EINVAL;
        }
    }
    if (lk) wasmtime_linker_delete(lk);
    if (rc) {
        wasmtime_module_delete(m);
        return rc;
    }
    csd_wasm_module *wm = calloc(1, sizeof *wm);
    if (!wm) {
        wasmtime_instance_pre_delete(pre);
        wasmtime_module_delete(m);
        return -ENOMEM;
    }
    wm->module = m;
    wm->pre = pre;
    *out = wm;
    return 0;
}

void csd_wasm_module_free(csd_wasm_module *wm) {
    if (!wm) return;
    wasmtime_instance_pre_delete(wm->pre);
    wasmtime_module_delete(wm->module);
    free(wm);
}

/* --------------------------------------------------------------------------------------- calls */

static const char *mib(uint64_t b, char *buf) {
    if (b >= (1u << 20) && b % (1u << 20) == 0) snprintf(buf, 32, "%" PRIu64 " MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0) snprintf(buf, 32, "%" PRIu64 " KiB", b >> 10);
    else snprintf(buf, 32, "%" PRIu64 " bytes", b);
    return buf;
}

/* The SDK puts the C stack first in memory and exports its pointer: one that left the memory (it
 * wraps below 0) means the stack overflowed. */
static int c_stack_overflowed(wsb_inst *w) {
    wasmtime_extern_t ex;
    if (!w->mem_ok || !wasmtime_instance_export_get(w->cx, &w->inst, "__stack_pointer", 15, &ex) ||
        ex.kind != WASMTIME_EXTERN_GLOBAL)
        return 0;
    wasmtime_val_t v;
    wasmtime_global_get(w->cx, &ex.of.global, &v);
    return v.kind == WASMTIME_I32 && (uint64_t)(uint32_t)v.of.i32 >= wasmtime_memory_data_size(w->cx, &w->mem);
}

/* Turn a trap or error of a guest call into the tasklet's failure: a message naming the tasklet and
 * the limit it hit. Returns the errno. */
static int call_failed(wsb_inst *w, wasmtime_error_t *we, wasm_trap_t *trap, char *out, size_t cap) {
    const csd_sandbox_limits *lim = &w->u->sb->lim;
    wasmtime_trap_code_t code;
    int has_code = trap && wasmtime_trap_code(trap, &code);
    char raw[300], b1[32], b2[32];
    error_text(we, trap, raw, sizeof raw);
    if (we) wasmtime_error_delete(we);
    if (trap) wasm_trap_delete(trap);
    int rc = -EFAULT;
    if (has_code && code == WASMTIME_TRAP_CODE_OUT_OF_FUEL) {
        snprintf(out, cap, "tasklet '%s' exceeded its instruction budget in %s: more than %" PRIu64
                 " instructions in one call (tasklet_fuel_per_page)", w->u->name, w->phase, lim->fuel_per_call);
        rc = -ETIMEDOUT;
    } else if (has_code && code == WASMTIME_TRAP_CODE_STACK_OVERFLOW) {
        snprintf(out, cap, "tasklet '%s' overflowed its stack in %s (tasklet_stack_bytes = %s)", w->u->name, w->phase,
                 mib(lim->stack_bytes, b1));
    } else if (has_code && code == WASMTIME_TRAP_CODE_MEMORY_OUT_OF_BOUNDS && c_stack_overflowed(w)) {
        snprintf(out, cap, "tasklet '%s' overflowed its C stack in %s (the stack it was built with: bin/smartssd "
                 "tasklet build --stack-bytes; memory limit %s, tasklet_memory_bytes)", w->u->name, w->phase,
                 mib(lim->memory_bytes, b1));
    } else if (has_code && code == WASMTIME_TRAP_CODE_MEMORY_OUT_OF_BOUNDS) {
        size_t size = w->mem_ok ? wasmtime_memory_data_size(w->cx, &w->mem) : 0;
        snprintf(out, cap, "tasklet '%s' accessed memory outside its own in %s (out of bounds: it has %s of a "
                 "%s limit, tasklet_memory_bytes; an allocation past the limit returns NULL)", w->u->name, w->phase,
                 mib(size, b1), mib(lim->memory_bytes, b2));
    } else {
        snprintf(out, cap, "tasklet '%s' trapped in %s: %s", w->u->name, w->phase, raw);
    }
    return rc;
}

static void set_fuel(wsb_inst *w) {
    wasmtime_error_t *we = wasmtime_context_set_fuel(w->cx, w->u->sb->lim.fuel_per_call);
    if (we) wasmtime_error_delete(we);
}

/* Fuel used since set_fuel, charged to the core as cycles. */
static void charge_fuel(wsb_inst *w) {
    uint64_t left = 0;
    wasmtime_error_t *we = wasmtime_context_get_fuel(w->cx, &left);
    if (we) {
        wasmtime_error_delete(we);
        return;
    }
    uint64_t used = w->u->sb->lim.fuel_per_call - left;
    if (w->io) csd_io_charge(w->io, (used * w->u->sb->lim.cycles_per_kfuel + 999) / 1000, 0);
}

/* Call a guest function; 0 with *ret, or a negative errno with the failure recorded. */
static void refresh_mem(wsb_inst *w) {
    if (!w->mem_ok) return;
    w->gmem = wasmtime_memory_data(w->cx, &w->mem);
    w->gsize = wasmtime_memory_data_size(w->cx, &w->mem);
}

static int call(wsb_inst *w, const wasmtime_func_t *f, const wasmtime_val_t *args, size_t nargs, int32_t *ret) {
    wasmtime_val_t res;
    wasm_trap_t *trap = NULL;
    set_fuel(w);
    wasmtime_error_t *we = wasmtime_func_call(w->cx, f, args, nargs, &res, 1, &trap);
    charge_fuel(w);
    refresh_mem(w);
    if (we || trap) {
        char msg[512];
        int rc = call_failed(w, we, trap, msg, sizeof msg);
        if (w->init_err) snprintf(w->init_err, w->init_errlen, "%s", msg);
        else if (w->io) csd_io_fail(w->io, "%s", msg);
        return rc;
    }
    *ret = res.of.i32;
    return 0;
}

/* csd_batch(ptr, n) -> i32, the hot call, without Wasmtime's type checks: check_exports made sure of
 * its type when the program was loaded. */
static int call_batch(wsb_inst *w, uint32_t ptr, uint32_t n, int32_t *ret) {
    wasmtime_val_raw_t raw[2];
    raw[0].i32 = (int32_t)ptr;
    raw[1].i32 = (int32_t)n;
    wasm_trap_t *trap = NULL;
    set_fuel(w);
    wasmtime_error_t *we = wasmtime_func_call_unchecked(w->cx, &w->f_batch, raw, 2, &trap);
    charge_fuel(w);
    refresh_mem(w);
    if (we || trap) {
        char msg[512];
        int rc = call_failed(w, we, trap, msg, sizeof msg);
        if (w->io) csd_io_fail(w->io, "%s", msg);
        return rc;
    }
    *ret = raw[0].i32;
    return 0;
}

static int guest_buf(wsb_inst *w, uint32_t need) {
    if (need <= w->gcap) return 0;
    uint32_t cap = need < BATCH_MIN_BYTES ? BATCH_MIN_BYTES : need;
    wasmtime_val_t a = { .kind = WASMTIME_I32, .of.i32 = (int32_t)cap };
    int32_t ptr = 0;
    int rc = call(w, &w->f_buf, &a, 1, &ptr);
    if (rc) return rc;
    if (ptr == 0 || !guest_range(w, (uint32_t)ptr, cap)) {
        char b1[32];
        const char *msg = "tasklet '%s' could not get a %" PRIu32 "-byte input buffer in its memory (tasklet_memory_bytes = %s)";
        if (w->init_err) snprintf(w->init_err, w->init_errlen, msg, w->u->name, cap, mib(w->u->sb->lim.memory_bytes, b1));
        else if (w->io) csd_io_fail(w->io, msg, w->u->name, cap, mib(w->u->sb->lim.memory_bytes, b1));
        return -ENOMEM;
    }
    w->gbuf = (uint32_t)ptr;
    w->gcap = cap;
    return 0;
}

/* Hand the pending entries to the guest. Returns its answer (0, CSD_SKIP_PAGE, CSD_STOP) or < 0. */
static int batch_flush(wsb_inst *w, csd_tasklet_io *io) {
    if (!w->entries) return w->skipping ? CSD_SKIP_PAGE : 0;
    w->io = io;
    w->phase = "record";
    /* One DRAM access per record or line handed over: its first touch in the ISP buffer. */
    csd_io_charge(io, 0, w->items);
    int32_t r = 0;
    int rc = call_batch(w, w->gbuf, w->entries, &r);
    w->entries = w->gused = 0;
    w->run_open = 0;
    w->items = 0;
    w->io = NULL;
    if (rc) return rc;
    if (r < 0) return r;
    if (r != 0 && r != CSD_SKIP_PAGE && r != CSD_STOP) {
        csd_io_fail(io, "tasklet '%s' returned %d from its batch", w->u->name, r);
        return -EINVAL;
    }
    w->skipping = r == CSD_SKIP_PAGE;
    return r;
}

static int append(wsb_inst *w, csd_tasklet_io *io, uint32_t kind, uint64_t tag, const uint8_t *p, size_t len) {
    if (len > UINT32_MAX - 64) {
        csd_io_fail(io, "tasklet '%s': record of %zu bytes is too large for the sandbox", w->u->name, len);
        return -E2BIG;
    }
    w->run_open = 0;
    w->gused = (w->gused + 7u) & ~7u;   /* entries start 8-aligned (a run may end anywhere) */
    uint32_t need = 16 + (((uint32_t)len + 7u) & ~7u);
    if (w->gused + need > w->gcap) {
        int r = batch_flush(w, io);
        if (r) return r;
        if (need > w->gcap) {
            w->io = io;
            w->phase = "record";
            int rc = guest_buf(w, need);
            w->io = NULL;
            if (rc) return rc;
        }
    }
    uint8_t *g = w->gbuf + (uint64_t)w->gused + need <= w->gsize ? w->gmem + w->gbuf + w->gused : NULL;
    if (!g) {
        csd_io_fail(io, "tasklet '%s' shrank or lost its input buffer", w->u->name);
        return -EFAULT;
    }
    put_u32(g, kind);
    put_u32(g + 4, (uint32_t)len);
    put_u64(g + 8, tag);
    if (len) memcpy(g + 16, p, len);
    w->gused += need;
    w->entries++;
    return 0;
}

/* ---------------------------------------------------------------- the tasklet ops of a program */

static int serialize_args(const csd_tasklet_args *a, uint8_t **out, size_t *outlen) {
    size_t n = 16;
    for (size_t i = 0; i < a->n_static; i++) n += 8 + strlen(a->static_params[i].key) + strlen(a->static_params[i].value) + 2;
    for (size_t i = 0; i < a->n_runtime; i++) n += 8 + strlen(a->runtime_params[i].key) + strlen(a->runtime_params[i].value) + 2;
    for (size_t i = 0; i < a->n_keywords; i++) n += 4 + strlen(a->keywords[i]) + 1;
    uint8_t *b = malloc(n), *p = b;
    if (!b) return -ENOMEM;
    put_u32(p, a->page_bytes);
    put_u32(p + 4, (uint32_t)a->n_static);
    put_u32(p + 8, (uint32_t)a->n_runtime);
    put_u32(p + 12, (uint32_t)a->n_keywords);
    p += 16;
    for (int pass = 0; pass < 2; pass++) {
        const csd_kv *kv = pass ? a->runtime_params : a->static_params;
        size_t cnt = pass ? a->n_runtime : a->n_static;
        for (size_t i = 0; i < cnt; i++) {
            size_t kl = strlen(kv[i].key), vl = strlen(kv[i].value);
            put_u32(p, (uint32_t)kl);
            put_u32(p + 4, (uint32_t)vl);
            memcpy(p + 8, kv[i].key, kl + 1);
            memcpy(p + 8 + kl + 1, kv[i].value, vl + 1);
            p += 8 + kl + vl + 2;
        }
    }
    for (size_t i = 0; i < a->n_keywords; i++) {
        size_t kl = strlen(a->keywords[i]);
        put_u32(p, (uint32_t)kl);
        memcpy(p + 4, a->keywords[i], kl + 1);
        p += 4 + kl + 1;
    }
    *out = b;
    *outlen = (size_t)(p - b);
    return 0;
}

static void inst_free(wsb_inst *w) {
    if (!w) return;
    if (w->store) wasmtime_store_delete(w->store);
    free(w);
}

static int get_func(wsb_inst *w, const char *name, wasmtime_func_t *f) {
    wasmtime_extern_t ex;
    if (!wasmtime_instance_export_get(w->cx, &w->inst, name, strlen(name), &ex) || ex.kind != WASMTIME_EXTERN_FUNC)
        return -EINVAL;
    *f = ex.of.func;
    return 0;
}

static int wsb_init(void **state, const csd_tasklet_args *args, csd_framing *fr, char *err, size_t errlen) {
    csd_user_tasklet *u = *state;
    *state = NULL;
    wsb_inst *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    w->u = u;
    w->out_limit = (size_t)u->sb->lim.output_buffer_bytes;
    w->store = wasmtime_store_new(u->sb->wasm->engine, w, NULL);
    if (!w->store) {
        free(w);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    w->cx = wasmtime_store_context(w->store);
    wasmtime_store_limiter(w->store, (int64_t)u->sb->lim.memory_bytes, 100000, 1, 2, 1);
    w->init_err = err;
    w->init_errlen = errlen;
    err[0] = 0;
    w->phase = "init";
    w->args = args;
    w->fr = fr;
    wasm_trap_t *trap = NULL;
    set_fuel(w);
    wasmtime_error_t *we = wasmtime_instance_pre_instantiate(u->wasm->pre, w->cx, &w->inst, &trap);
    int rc = 0;
    if (we || trap) {
        char msg[512];
        rc = call_failed(w, we, trap, msg, sizeof msg);
        if (strstr(msg, "memory") && strstr(msg, "limit")) rc = -ENOMEM;
        snprintf(err, errlen, "%s", msg);
        if (rc == -EFAULT && we) {
            char b1[32];
            snprintf(err, errlen, "tasklet '%s' cannot start: %s (tasklet_memory_bytes = %s)", u->name, msg,
                     mib(u->sb->lim.memory_bytes, b1));
        }
    }
    wasmtime_extern_t ex;
    if (!rc && (!wasmtime_instance_export_get(w->cx, &w->inst, "memory", 6, &ex) || ex.kind != WASMTIME_EXTERN_MEMORY)) {
        snprintf(err, errlen, "tasklet '%s' exports no memory", u->name);
        rc = -EINVAL;
    }
    if (!rc) {
        w->mem = ex.of.memory;
        w->mem_ok = 1;
        refresh_mem(w);
        wasmtime_func_t fv;
        if (get_func(w, "csd_buf", &w->f_buf) || get_func(w, "csd_init", &w->f_init) ||
            get_func(w, "csd_batch", &w->f_batch) || get_func(w, "csd_finish", &w->f_finish) ||
            get_func(w, "csd_abi_version", &fv)) {
            snprintf(err, errlen, "tasklet '%s' lacks an SDK entry point", u->name);
            rc = -EINVAL;
        } else {
            /* reactor modules initialize their C library in _initialize */
            wasmtime_func_t fi;
            if (!get_func(w, "_initialize", &fi)) {
                wasmtime_val_t res;
                set_fuel(w);
                we = wasmtime_func_call(w->cx, &fi, NULL, 0, &res, 0, &trap);
                if (we || trap) rc = call_failed(w, we, trap, err, errlen);
            }
            int32_t ver = 0;
            if (!rc) rc = call(w, &fv, NULL, 0, &ver);
            if (!rc && ver != CSD_GUEST_ABI_VERSION) {
                snprintf(err, errlen, "tasklet '%s' speaks guest ABI %d; this device speaks %d (rebuild it with this SDK)",
                         u->name, ver, CSD_GUEST_ABI_VERSION);
                rc = -EINVAL;
            }
        }
    }
    uint8_t *blob = NULL;
    size_t blen = 0;
    if (!rc && serialize_args(args, &blob, &blen)) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
    }
    if (!rc) rc = guest_buf(w, (uint32_t)blen);
    if (!rc) {
        memcpy(guest_range(w, w->gbuf, blen), blob, blen);
        wasmtime_val_t a[2] = { { .kind = WASMTIME_I32, .of.i32 = (int32_t)w->gbuf },
                                { .kind = WASMTIME_I32, .of.i32 = (int32_t)blen } };
        int32_t r = 0;
        rc = call(w, &w->f_init, a, 2, &r);
        if (!rc && r < 0) {
            if (!err[0]) snprintf(err, errlen, "tasklet '%s' init failed: %s", u->name, strerror(-r));
            rc = r;
        } else if (!rc && !w->framed) {
            snprintf(err, errlen, "tasklet '%s' chose no framing in init", u->name);
            rc = -EINVAL;
        }
        if (!rc && fr->kind == CSD_FRAMING_RECORDS) w->record_bytes = fr->record_bytes;
    }
    free(blob);
    w->init_err = NULL;
    w->args = NULL;
    w->fr = NULL;
    if (rc) {
        inst_free(w);
        return rc;
    }
    *state = w;
    return 0;
}

static int wsb_page(void *state, csd_tasklet_io *io, uint64_t page_index) {
    wsb_inst *w = state;
    int rc = append(w, io, ENTRY_PAGE, page_index, NULL, 0);
    /* a flush made room: its SKIP_PAGE was the previous page's, this one starts afresh */
    if (rc == CSD_SKIP_PAGE) rc = append(w, io, ENTRY_PAGE, page_index, NULL, 0);
    return rc;
}

static int wsb_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t offset) {
    wsb_inst *w = state;
    w->items++;
    /* the next fixed-size record of the open run: its bytes go right after the run's (no header) */
    if (w->run_open && offset == w->run_next && w->gused + len <= w->gcap) {
        memcpy(w->gmem + w->gbuf + w->gused, rec, len);
        w->gused += (uint32_t)len;
        w->run_len += (uint32_t)len;
        put_u32(w->gmem + w->gbuf + w->run_at + 4, w->run_len);
        w->run_next += len;
        return 0;
    }
    int rc = append(w, io, w->record_bytes ? ENTRY_RUN : ENTRY_RECORD, offset, rec, len);
    if (rc) {   /* a flush's STOP or SKIP_PAGE comes back here: this record is not taken */
        w->items--;
        return rc;
    }
    if (w->record_bytes) {
        w->run_open = 1;
        w->run_at = w->gused - 16 - (((uint32_t)len + 7u) & ~7u);
        w->run_len = (uint32_t)len;
        w->run_next = offset + len;
        w->gused = w->run_at + 16 + (uint32_t)len;   /* unpadded: the next record follows at once */
    }
    return 0;
}

static int wsb_flush(void *state, csd_tasklet_io *io) { return batch_flush(state, io); }

/* n whole records of a page at once (runtime/exec.c's records hook): one run entry, one copy. */
static int wsb_records(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t offset) {
    wsb_inst *w = state;
    size_t R = w->record_bytes;
    while (n) {
        /* as many as fit in the buffer after the open run (or a new one) */
        size_t room = w->run_open && offset == w->run_next && w->gcap > w->gused ? (w->gcap - w->gused) / R : 0;
        if (room == 0) {
            int rc = wsb_record(w, io, p, R, offset);   /* opens a run (flushing if full) */
            if (rc) return rc;
            p += R;
            offset += R;
            n--;
            continue;
        }
        size_t k = n < room ? n : room;
        memcpy(w->gmem + w->gbuf + w->gused, p, k * R);
        w->gused += (uint32_t)(k * R);
        w->run_len += (uint32_t)(k * R);
        put_u32(w->gmem + w->gbuf + w->run_at + 4, w->run_len);
        w->run_next += k * R;
        w->items += k;
        p += k * R;
        offset += k * R;
        n -= k;
    }
    return 0;
}

static int wsb_finish(void *state, csd_tasklet_io *io) {
    wsb_inst *w = state;
    w->io = io;
    w->phase = "finish";
    int32_t r = 0;
    int rc = call(w, &w->f_finish, NULL, 0, &r);
    w->io = NULL;
    return rc ? rc : r < 0 ? r : 0;
}

static void wsb_destroy(void *state) { inst_free(state); }

/* A NUL-terminated string at ptr in the guest's memory, into out (cap bytes); -E2BIG when it does not
 * end within cap - 1 bytes, -EFAULT when it runs out of the memory. */
static int guest_cstr(wsb_inst *w, uint32_t ptr, char *out, size_t cap) {
    out[0] = 0;
    if (!ptr) return 0;
    if (ptr >= w->gsize) return -EFAULT;
    const uint8_t *p = w->gmem + ptr;
    size_t left = (size_t)(w->gsize - ptr);
    const uint8_t *z = memchr(p, 0, left < cap ? left : cap);
    if (!z) return left < cap ? -EFAULT : -E2BIG;
    memcpy(out, p, (size_t)(z - p) + 1);
    return 0;
}

/* What the program declares of itself: the optional exports csd_schema() and csd_summary() (the SDK's
 * guest.c gives ops.schema and ops.summary), read once at load from an instance of its own. */
int csd_wasm_describe(csd_user_tasklet *u, char *err, size_t errlen) {
    wsb_inst *w = calloc(1, sizeof *w);
    if (!w) return -ENOMEM;
    w->u = u;
    w->phase = "load";
    w->store = wasmtime_store_new(u->sb->wasm->engine, w, NULL);
    if (!w->store) {
        free(w);
        return -ENOMEM;
    }
    w->cx = wasmtime_store_context(w->store);
    wasmtime_store_limiter(w->store, (int64_t)u->sb->lim.memory_bytes, 100000, 1, 2, 1);
    w->init_err = err;
    w->init_errlen = errlen;
    wasm_trap_t *trap = NULL;
    set_fuel(w);
    wasmtime_error_t *we = wasmtime_instance_pre_instantiate(u->wasm->pre, w->cx, &w->inst, &trap);
    int rc = 0;
    if (we || trap) rc = call_failed(w, we, trap, err, errlen);
    wasmtime_extern_t ex;
    if (!rc && wasmtime_instance_export_get(w->cx, &w->inst, "memory", 6, &ex) && ex.kind == WASMTIME_EXTERN_MEMORY) {
        w->mem = ex.of.memory;
        w->mem_ok = 1;
        refresh_mem(w);
    }
    wasmtime_func_t f;
    if (!rc && !get_func(w, "_initialize", &f)) {
        wasmtime_val_t res;
        set_fuel(w);
        we = wasmtime_func_call(w->cx, &f, NULL, 0, &res, 0, &trap);
        if (we || trap) rc = call_failed(w, we, trap, err, errlen);
    }
    static const struct { const char *fn; size_t off, cap; } WHAT[] = {
        { "csd_schema", offsetof(csd_user_tasklet, schema), sizeof ((csd_user_tasklet *)0)->schema },
        { "csd_summary", offsetof(csd_user_tasklet, summary), sizeof ((csd_user_tasklet *)0)->summary },
    };
    for (size_t i = 0; i < 2 && !rc; i++) {
        int32_t ptr = 0;
        if (get_func(w, WHAT[i].fn, &f)) continue;   /* older programs: nothing declared */
        rc = call(w, &f, NULL, 0, &ptr);
        if (rc) break;
        char *out = (char *)u + WHAT[i].off;
        int r = guest_cstr(w, (uint32_t)ptr, out, WHAT[i].cap);
        if (r == -E2BIG && i == 1) {
            out[WHAT[i].cap - 1] = 0;   /* a long summary is cut, not refused */
            memcpy(out, w->gmem + (uint32_t)ptr, WHAT[i].cap - 1);
        } else if (r) {
            snprintf(err, errlen, "%s() gives %s", WHAT[i].fn,
                     r == -E2BIG ? "a string longer than the device takes" : "a pointer outside its memory");
            rc = -EINVAL;
        }
    }
    inst_free(w);
    return rc;
}

void csd_wasm_fill_ops(csd_user_tasklet *u) {
    u->ops = (csd_tasklet_ops){
        .name = u->name, .summary = u->summary, .init = wsb_init, .page = wsb_page, .record = wsb_record,
        .finish = wsb_finish, .destroy = wsb_destroy, .schema = u->schema[0] ? u->schema : NULL,
    };
    u->hooks = (csd_exec_hooks){ .ctx = u, .flush = wsb_flush, .records = wsb_records };
}

#else
const char *csd_sandbox_name(void) { return ""; }
#endif
