/* Test helpers for tasklet tests: drive a tasklet over an in-memory object the way the engine does
 * (pages in order, extents one execution each) and render its output rows as tab-separated text. */
#ifndef CSD_TEST_TASKLETS_UTIL_H
#define CSD_TEST_TASKLETS_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/exec.h"
#include "tasklets/registry.h"
#include "smartssd/tasklet.h"
#include "smartssd/v1/device.pb-c.h"

typedef struct tk_text {
    char *s;
    size_t len, cap;
} tk_text;

/* What the device lends the runs' built-ins (host threads, buffer pool), used with hooks that take
 * it; NULL: one thread, fresh memory. */
static const csd_exec_host *tk_host;

static inline void tk_text_add(tk_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void tk_text_add(tk_text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    CHECK(n >= 0);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        CHECK(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* How BYTES values print: raw text, or hex. */
enum { TK_BYTES_RAW = 0, TK_BYTES_HEX = 1 };

static inline void tk_format_value(tk_text *t, const Smartssd__V1__Value *v, int bytes_mode) {
    switch (v->v_case) {
    case SMARTSSD__V1__VALUE__V_I: tk_text_add(t, "%lld", (long long)v->i); break;
    case SMARTSSD__V1__VALUE__V_D: tk_text_add(t, "%.17g", v->d); break;
    case SMARTSSD__V1__VALUE__V_B: tk_text_add(t, "%s", v->b ? "true" : "false"); break;
    case SMARTSSD__V1__VALUE__V_S:
        if (bytes_mode == TK_BYTES_HEX)
            for (size_t i = 0; i < v->s.len; i++) tk_text_add(t, "%02x", v->s.data[i]);
        else
            tk_text_add(t, "%.*s", (int)v->s.len, (const char *)v->s.data);
        break;
    default: tk_text_add(t, "NULL"); break;
    }
}

/* Append the rows in [p, p+n) as lines; returns the row count. */
static inline size_t tk_format_rows(tk_text *t, const uint8_t *p, size_t n, int bytes_mode) {
    size_t pos = 0, rows = 0;
    while (pos < n) {
        uint64_t len = 0;
        int shift = 0;
        for (;;) {
            CHECK(pos < n && shift < 64);
            uint8_t b = p[pos++];
            len |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80)) break;
        }
        CHECK(len <= n - pos);
        Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, (size_t)len, p + pos);
        CHECK(row);
        for (size_t i = 0; i < row->n_values; i++) {
            if (i) tk_text_add(t, "\t");
            tk_format_value(t, row->values[i], bytes_mode);
        }
        tk_text_add(t, "\n");
        smartssd__v1__row__free_unpacked(row, NULL);
        pos += (size_t)len;
        rows++;
    }
    return rows;
}

typedef struct tk_result {
    int rc;                 /* 0, or the first failure (create, begin, feed or finish) */
    char err[512];
    tk_text text;           /* rows of every extent, in extent order */
    uint64_t rows;
    uint64_t dram, cycles;  /* page costs, summed */
    uint64_t finish_dram, finish_cycles;
    int truncated;
    uint64_t page_costs;    /* a hash of every page's (index, cycles, DRAM accesses): the virtual time's input */
} tk_result;

/* Run ops (with the runtime hooks given, or none) over obj split into consecutive extents at cuts
 * (ascending), pages of P bytes. */
static inline tk_result tk_run_prep(const csd_tasklet_ops *ops, const csd_exec_hooks *hooks,
                                    const csd_tasklet_args *args_in, const uint8_t *obj, uint64_t size,
                                    const uint64_t *cuts, size_t ncuts, uint32_t P, int bytes_mode,
                                    uint64_t max_rows, size_t limit_bytes, int prepared);

static inline tk_result tk_run_hooked(const csd_tasklet_ops *ops, const csd_exec_hooks *hooks,
                                      const csd_tasklet_args *args_in, const uint8_t *obj, uint64_t size,
                                      const uint64_t *cuts, size_t ncuts, uint32_t P, int bytes_mode,
                                      uint64_t max_rows, size_t limit_bytes) {
    return tk_run_prep(ops, hooks, args_in, obj, size, cuts, ncuts, P, bytes_mode, max_rows, limit_bytes, 0);
}

/* prepared: every page goes through the work's prepare (the page after it prepared first, into a
 * second object, as another thread may) and feed_prepared. */
static inline tk_result tk_run_prep(const csd_tasklet_ops *ops, const csd_exec_hooks *hooks,
                                    const csd_tasklet_args *args_in, const uint8_t *obj, uint64_t size,
                                    const uint64_t *cuts, size_t ncuts, uint32_t P, int bytes_mode,
                                    uint64_t max_rows, size_t limit_bytes, int prepared) {
    tk_result r;
    memset(&r, 0, sizeof r);
    csd_tasklet_args args = *args_in;
    args.page_bytes = P;
    uint64_t prev = 0;
    for (size_t x = 0; x <= ncuts && !r.rc; x++) {
        uint64_t e = x < ncuts ? cuts[x] : size;
        csd_outbuf ob;
        csd_outbuf_init(&ob, limit_bytes, max_rows);
        csd_exec *t = NULL;
        r.rc = csd_exec_create_hooked(&t, ops, hooks, tk_host, &args, &ob, r.err, sizeof r.err);
        uint64_t fp = 0, lp = 0;
        if (!r.rc) r.rc = csd_exec_begin(t, size, prev, e - prev, P, &fp, &lp, r.err, sizeof r.err);
        csd_isp_work w = {0};
        void *prep[2] = { NULL, NULL };
        if (!r.rc && prepared) {
            w = csd_exec_work(t);
            if (!w.prepare) prepared = 0;   /* not lines framing (records, Parquet): fed as it is */
        }
        if (!r.rc && prepared) {
            CHECK(w.feed_prepared && w.prep_new && w.prep_free);
            prep[0] = w.prep_new(w.arg);
            prep[1] = w.prep_new(w.arg);
            CHECK(prep[0] && prep[1]);
        }
        if (!r.rc && lp >= fp) {
            int more = 1;
            uint64_t max_page = (size - 1) / P;
#define TK_PAGE_LEN(pg) ((size_t)(size - (pg) * P < P ? size - (pg) * P : P))
            if (prepared) CHECK_EQ_INT(w.prepare(w.arg, prep[fp & 1], fp, obj + fp * P, TK_PAGE_LEN(fp)), 0);
            for (uint64_t pg = fp; (more || pg <= lp) && pg <= max_page; pg++) {
                size_t n = TK_PAGE_LEN(pg);
                csd_cost c = {0, 0};
                if (prepared && pg + 1 <= max_page)
                    CHECK_EQ_INT(w.prepare(w.arg, prep[(pg + 1) & 1], pg + 1, obj + (pg + 1) * P, TK_PAGE_LEN(pg + 1)), 0);
#undef TK_PAGE_LEN
                if (prepared) r.rc = w.feed_prepared(w.arg, pg, obj + pg * P, n, prep[pg & 1], &c, &more);
                else r.rc = csd_exec_feed(t, pg, obj + pg * P, n, &c, &more);
                r.dram += c.dram_accesses;
                r.cycles += c.cycles;
                r.page_costs = (r.page_costs ^ (pg * 0x9e3779b97f4a7c15ull + c.cycles * 0xbf58476d1ce4e5b9ull +
                                                c.dram_accesses)) * 0x94d049bb133111ebull;
                if (r.rc) {
                    snprintf(r.err, sizeof r.err, "%s", csd_exec_error(t));
                    break;
                }
            }
        }
        if (!r.rc) {
            csd_cost c = {0, 0};
            r.rc = csd_exec_finish(t, &c);
            r.finish_dram += c.dram_accesses;
            r.finish_cycles += c.cycles;
            if (r.rc) snprintf(r.err, sizeof r.err, "%s", csd_exec_error(t));
        }
        const uint8_t *p;
        size_t n = csd_outbuf_take(&ob, SIZE_MAX, &p);
        r.rows += tk_format_rows(&r.text, p, n, bytes_mode);
        r.truncated |= ob.truncated;
        for (int k = 0; k < 2; k++)
            if (prep[k]) w.prep_free(w.arg, prep[k]);
        csd_exec_destroy(t);
        csd_outbuf_free(&ob);
        prev = e;
    }
    if (!r.text.s) tk_text_add(&r.text, "%s", "");
    return r;
}

/* b (another way of running the same extent) equals r in every answer and cost; frees b's text. */
static inline void tk_expect_same(tk_result *b, const tk_result *r) {
    CHECK_EQ_INT(b->rc, r->rc);
    CHECK_STR(b->err, r->err);
    CHECK_STR(b->text.s, r->text.s);
    CHECK_EQ_U64(b->rows, r->rows);
    CHECK_EQ_U64(b->page_costs, r->page_costs);
    CHECK_EQ_U64(b->finish_cycles, r->finish_cycles);
    CHECK_EQ_U64(b->finish_dram, r->finish_dram);
    CHECK_EQ_INT(b->truncated, r->truncated);
    free(b->text.s);
}

/* tk_run_hooked without hooks; for a built-in that also takes whole pages of records (its
 * registered hooks), the same run through them must give the same rows, status, message and
 * cost of every page. */
static inline tk_result tk_run(const csd_tasklet_ops *ops, const csd_tasklet_args *args_in, const uint8_t *obj,
                               uint64_t size, const uint64_t *cuts, size_t ncuts, uint32_t P, int bytes_mode,
                               uint64_t max_rows, size_t limit_bytes) {
    tk_result r = tk_run_hooked(ops, NULL, args_in, obj, size, cuts, ncuts, P, bytes_mode, max_rows, limit_bytes);
    const csd_exec_hooks *h = csd_builtin_hooks_of(ops);
    if (h) {
        tk_result b = tk_run_hooked(ops, h, args_in, obj, size, cuts, ncuts, P, bytes_mode, max_rows, limit_bytes);
        tk_expect_same(&b, &r);
    }
    if (h && h->prepare) {
        /* the pages prepared apart from the run, then fed: the same again */
        tk_result b = tk_run_prep(ops, h, args_in, obj, size, cuts, ncuts, P, bytes_mode, max_rows, limit_bytes, 1);
        tk_expect_same(&b, &r);
    }
    return r;
}

static inline void tk_result_free(tk_result *r) {
    free(r->text.s);
    memset(r, 0, sizeof *r);
}

/* The whole output of a shell command (exits on failure). */
static inline char *tk_popen_read(const char *cmd) {
    FILE *f = popen(cmd, "r");
    CHECK(f);
    tk_text t = {0};
    tk_text_add(&t, "%s", "");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) tk_text_add(&t, "%.*s", (int)n, buf);
    int st = pclose(f);
    if (st != 0) {
        fprintf(stderr, "command failed (%d): %s\n", st, cmd);
        exit(1);
    }
    return t.s;
}

static inline uint8_t *tk_read_file(const char *path, uint64_t *size) {
    FILE *f = fopen(path, "rb");
    CHECK(f);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    long n = ftell(f);
    CHECK(n >= 0);
    rewind(f);
    uint8_t *b = malloc((size_t)n + 1);
    CHECK(b);
    CHECK(fread(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *size = (uint64_t)n;
    return b;
}

static inline void tk_check_text(const char *got, const char *want, const char *what) {
    if (strcmp(got, want)) {
        fprintf(stderr, "%s: output differs\n--- got:\n%.3000s\n--- want:\n%.3000s\n", what, got, want);
        exit(1);
    }
}

#endif
