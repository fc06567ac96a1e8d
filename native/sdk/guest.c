/* The tasklet SDK's guest runtime: linked into every WebAssembly user tasklet (bin/smartssd tasklet
 * build). It implements the tasklet ABI of smartssd/tasklet.h inside the sandbox on top of the
 * device's "smartssd" imports, and exports the entry points the device calls (guest ABI 1):
 *   csd_abi_version() -> 1
 *   csd_buf(size) -> a buffer of at least size bytes the device writes arguments and batches into
 *   csd_init(args, len) -> 0 or -errno        (params, keywords, page size; see parse_args)
 *   csd_batch(entries, n) -> 0, CSD_SKIP_PAGE, CSD_STOP or -errno
 *        each entry, 8-aligned: u32 kind, u32 len, u64 tag, then len bytes; kind 0 is one record or
 *        line at offset tag, 1 a page start (tag = page index), 2 a run of fixed-size records back to
 *        back (len a multiple of the record size chosen in init; tag = the first one's offset)
 *   csd_finish() -> 0 or -errno
 *   csd_schema(), csd_summary() -> a NUL-terminated string in this memory, or 0 (ops.schema,
 *        ops.summary; optional, read once when the device loads the program)
 * The device copies records into this memory; the tasklet never sees the device's. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smartssd/tasklet.h"

#define IMPORT(n) __attribute__((import_module("smartssd"), import_name(n)))
#define EXPORT(n) __attribute__((export_name(n)))

IMPORT("charge") void h_charge(int64_t cycles, int64_t dram);
IMPORT("row_begin") void h_row_begin(void);
IMPORT("val_int") void h_val_int(int64_t v);
IMPORT("val_double") void h_val_double(double v);
IMPORT("val_bytes") void h_val_bytes(const void *p, int32_t n);
IMPORT("val_bool") void h_val_bool(int32_t b);
IMPORT("val_null") void h_val_null(void);
IMPORT("row_end") int32_t h_row_end(void);
IMPORT("fail") void h_fail(const char *p, int32_t n);
IMPORT("reject") void h_reject(const char *p, int32_t n);
IMPORT("framing") void h_framing(int32_t kind, int32_t record_bytes, int32_t skip_header);

/* The one io handle a tasklet sees: calls go straight to the device. */
struct csd_tasklet_io { int unused; };
static csd_tasklet_io the_io;

/* the user tasklet's CSD_TASKLET entry point */
const csd_tasklet_ops *csd_tasklet_entry(void);

static const csd_tasklet_ops *ops;
static void *state;
static csd_tasklet_args args;
static char *args_blob;
static uint8_t *buf;
static size_t buf_cap;
static int skipping;        /* CSD_SKIP_PAGE: skip records until the next page starts */
static uint32_t record_bytes;  /* RECORDS framing */

void csd_io_charge(csd_tasklet_io *io, uint64_t cycles, uint64_t dram_accesses) {
    h_charge((int64_t)cycles, (int64_t)dram_accesses);
}
void csd_io_row_begin(csd_tasklet_io *io) { h_row_begin(); }
void csd_io_val_int(csd_tasklet_io *io, int64_t v) { h_val_int(v); }
void csd_io_val_double(csd_tasklet_io *io, double v) { h_val_double(v); }
void csd_io_val_bytes(csd_tasklet_io *io, const void *p, size_t n) { h_val_bytes(p, (int32_t)n); }
void csd_io_val_str(csd_tasklet_io *io, const char *s) { h_val_bytes(s, (int32_t)strlen(s)); }
void csd_io_val_bool(csd_tasklet_io *io, int b) { h_val_bool(b != 0); }
void csd_io_val_null(csd_tasklet_io *io) { h_val_null(); }
int csd_io_row_end(csd_tasklet_io *io) { return h_row_end(); }

void csd_io_fail(csd_tasklet_io *io, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    h_fail(msg, n < 0 ? 0 : n < (int)sizeof msg ? n : (int)sizeof msg - 1);
}

const char *csd_args_get(const csd_tasklet_args *a, const char *key) {
    for (size_t i = a->n_runtime; i-- > 0;)
        if (!strcmp(a->runtime_params[i].key, key)) return a->runtime_params[i].value;
    for (size_t i = a->n_static; i-- > 0;)
        if (!strcmp(a->static_params[i].key, key)) return a->static_params[i].value;
    return NULL;
}

void csd_args_reject(const csd_tasklet_args *a, const char *key) { h_reject(key, (int32_t)strlen(key)); }

EXPORT("csd_abi_version") int32_t csd_abi_version(void) { return 1; }

/* What the tasklet declares of itself, read by the device once when it loads the program (optional
 * exports: a program without them declares nothing). */
EXPORT("csd_schema") const char *csd_schema(void) {
    const csd_tasklet_ops *o = csd_tasklet_entry();
    return o ? o->schema : NULL;
}
EXPORT("csd_summary") const char *csd_summary(void) {
    const csd_tasklet_ops *o = csd_tasklet_entry();
    return o ? o->summary : NULL;
}

EXPORT("csd_buf") uint8_t *csd_buf(int32_t size) {
    if (size < 0) return NULL;
    if ((size_t)size > buf_cap) {
        uint8_t *b = realloc(buf, (size_t)size);
        if (!b) return NULL;
        buf = b;
        buf_cap = (size_t)size;
    }
    return buf;
}

static uint32_t rd32(const char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* u32 page_bytes, n_static, n_runtime, n_keywords; then per param u32 klen, u32 vlen, key\0, value\0;
 * per keyword u32 len, keyword\0. */
static int parse_args(const char *p, size_t len) {
    args_blob = malloc(len ? len : 1);
    if (!args_blob) return -1;
    memcpy(args_blob, p, len);
    p = args_blob;
    const char *end = p + len;
    if (len < 16) return -1;
    args.page_bytes = rd32(p);
    size_t ns = rd32(p + 4), nr = rd32(p + 8), nk = rd32(p + 12);
    p += 16;
    csd_kv *kv = calloc(ns + nr + 1, sizeof *kv);
    const char **kw = calloc(nk + 1, sizeof *kw);
    if (!kv || !kw) return -1;
    for (size_t i = 0; i < ns + nr; i++) {
        if (end - p < 8) return -1;
        size_t kl = rd32(p), vl = rd32(p + 4);
        if ((size_t)(end - p) < 8 + kl + vl + 2) return -1;
        kv[i].key = p + 8;
        kv[i].value = p + 8 + kl + 1;
        p += 8 + kl + vl + 2;
    }
    for (size_t i = 0; i < nk; i++) {
        if (end - p < 4) return -1;
        size_t l = rd32(p);
        if ((size_t)(end - p) < 4 + l + 1) return -1;
        kw[i] = p + 4;
        p += 4 + l + 1;
    }
    args.static_params = kv;
    args.n_static = ns;
    args.runtime_params = kv + ns;
    args.n_runtime = nr;
    args.keywords = kw;
    args.n_keywords = nk;
    return 0;
}

EXPORT("csd_init") int32_t csd_init(const char *blob, int32_t len) {
    ops = csd_tasklet_entry();
    if (!ops || !ops->init || !ops->record) {
        static const char msg[] = "the tasklet's CSD_TASKLET ops lack init or record";
        h_fail(msg, sizeof msg - 1);
        return -22;
    }
    if (parse_args(blob, (size_t)len)) {
        static const char msg[] = "malformed arguments";
        h_fail(msg, sizeof msg - 1);
        return -22;
    }
    char err[400] = "";
    csd_framing fr = { 0 };
    int rc = ops->init(&state, &args, &fr, err, sizeof err);
    if (rc < 0) {
        if (err[0]) h_fail(err, (int32_t)strlen(err));
        return rc;
    }
    h_framing((int32_t)fr.kind, (int32_t)fr.record_bytes, fr.skip_header);
    record_bytes = fr.kind == CSD_FRAMING_RECORDS ? fr.record_bytes : 0;
    return 0;
}

EXPORT("csd_batch") int32_t csd_batch(const uint8_t *p, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        uint32_t kind, len;
        uint64_t tag;
        memcpy(&kind, p, 4);
        memcpy(&len, p + 4, 4);
        memcpy(&tag, p + 8, 8);
        const uint8_t *data = p + 16;
        p += 16 + ((len + 7u) & ~7u);
        int rc = 0;
        if (kind == 2) {
            if (skipping || !record_bytes) continue;
            /* the hot loop: locals, so nothing is reloaded around the indirect call */
            int (*const record)(void *, csd_tasklet_io *, const uint8_t *, size_t, uint64_t) = ops->record;
            void *const st = state;
            const uint32_t R = record_bytes;
            const uint8_t *const stop = data + len - (len % R);
            for (const uint8_t *rec = data; rec < stop; rec += R) {
                rc = record(st, &the_io, rec, R, tag + (uint64_t)(rec - data));
                if (rc == 0) continue;
                if (rc < 0 || rc == CSD_STOP) return rc;
                if (rc == CSD_SKIP_PAGE) {
                    skipping = 1;
                    break;
                }
            }
            continue;
        }
        if (kind == 1) {
            skipping = 0;
            if (ops->page) rc = ops->page(state, &the_io, tag);
        } else if (!skipping) {
            rc = ops->record(state, &the_io, data, len, tag);
        }
        if (rc < 0 || rc == CSD_STOP) return rc;
        if (rc == CSD_SKIP_PAGE) skipping = 1;
    }
    return skipping ? CSD_SKIP_PAGE : 0;
}

EXPORT("csd_finish") int32_t csd_finish(void) {
    int rc = ops->finish ? ops->finish(state, &the_io) : 0;
    return rc < 0 ? rc : 0;
}
