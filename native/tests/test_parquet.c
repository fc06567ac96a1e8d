/* The plan over Parquet objects written by Spark (tests/data/parquet: snappy with dictionary pages and
 * several row groups, zstd with PLAIN pages, gzip with data pages v2), against the same plan over the
 * same rows as Spark wrote them to CSV, read by the text path: every query's rows must match (sorted,
 * unless the query orders or limits them).
 * Also: row groups skipped by statistics (no decoding work for them), the footer as parsed, refusals
 * with their messages (corrupt bytes, a partial extent, a mistyped column), and random corruptions
 * of each file, which must fail with a message or succeed, never crash. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "devutil.h"
#include "runtime/exec.h"
#include "query/parquet.h"
#include "test_plan_build.h"
#include "test_tasklets_util.h"
#include "host/bufpool.h"

static const csd_tasklet_ops *plan_ops;

enum { ID, I, D, NAME, FLAG, F };
static const char *const FILES[] = {"snappy", "zstd_plain", "gzip_v2", "small_pages"};

static void add_cols(plan_b *b) {
    PB_col(b, C_text("id", 1, ID));
    PB_col(b, C_text("i", 1, I));
    PB_col(b, C_text("d", 2, D));
    PB_col(b, C_text("name", 3, NAME));
    PB_col(b, C_text("flag", 4, FLAG));
    PB_col(b, C_text("f", 2, F));
}

/* GROUP BY name, SUM(i), MAX(d): the group-by the corruption cases run. */
static void add_name_groupby(plan_b *b) {
    PB_group(b, E_col(NAME));
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(I));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MAX, E_col(D));
}

static void init_parquet(plan_b *b) {
    PB_init_fixed(b, 0);
    Smartssd__V1__ParquetObject *q = PB_NEW(Smartssd__V1__ParquetObject, SMARTSSD__V1__PARQUET_OBJECT__INIT);
    b->p.format_case = SMARTSSD__V1__PLAN__FORMAT_PARQUET;
    b->p.parquet = q;
}

/* The plan carries the object's footer, as the host sends it. */
static void with_footer(plan_b *b, const uint8_t *obj, uint64_t size) {
    uint32_t flen = (uint32_t)obj[size - 8] | (uint32_t)obj[size - 7] << 8 | (uint32_t)obj[size - 6] << 16 |
                    (uint32_t)obj[size - 5] << 24;
    b->p.parquet->footer.data = (uint8_t *)obj + size - 8 - flen;
    b->p.parquet->footer.len = flen;
    b->p.parquet->object_size = size;
}

/* The whole object through an execution as the device feeds it: a page the tasklet does not need
 * arrives as zeros (the device does not read it). *needed counts the pages it needed. */
static tk_result run_packed(const uint8_t *packed, size_t plen, const uint8_t *obj, uint64_t size, uint32_t P,
                            uint64_t *needed, csd_bufpool *pool) {
    tk_result r;
    memset(&r, 0, sizeof r);
    csd_tasklet_args a = {0};
    a.plan = packed;
    a.plan_len = plen;
    a.page_bytes = P;
    const csd_exec_host host = { 1, pool };
    csd_outbuf ob;
    csd_outbuf_init(&ob, 64u << 20, 0);
    csd_exec *t = NULL;
    uint8_t *zero = calloc(1, P);
    *needed = 0;
    r.rc = csd_exec_create_hooked(&t, plan_ops, csd_builtin_hooks_of(plan_ops), &host, &a, &ob, r.err, sizeof r.err);
    uint64_t fp, lp;
    if (!r.rc) r.rc = csd_exec_begin(t, size, 0, size, P, &fp, &lp, r.err, sizeof r.err);
    for (uint64_t pg = fp; !r.rc && pg <= lp; pg++) {
        size_t n = (size_t)(size - pg * P < P ? size - pg * P : P);
        int need = csd_exec_needs_page(t, pg), more;
        *needed += (uint64_t)need;
        csd_cost c = {0, 0};
        r.rc = csd_exec_feed(t, pg, need ? obj + pg * P : zero, n, &c, &more);
    }
    if (!r.rc) {
        csd_cost c = {0, 0};
        r.rc = csd_exec_finish(t, &c);
        r.finish_cycles = c.cycles;
    }
    if (r.rc && t) snprintf(r.err, sizeof r.err, "%s", csd_exec_error(t));
    const uint8_t *p;
    size_t n = csd_outbuf_take(&ob, SIZE_MAX, &p);
    r.rows = tk_format_rows(&r.text, p, n, TK_BYTES_RAW);
    if (!r.text.s) tk_text_add(&r.text, "%s", "");
    csd_exec_destroy(t);
    csd_outbuf_free(&ob);
    free(zero);
    return r;
}

static tk_result run_sparse(plan_b *b, const uint8_t *obj, uint64_t size, uint32_t P, uint64_t *needed) {
    size_t plen;
    uint8_t *packed = PB_pack(b, &plen);
    tk_result r = run_packed(packed, plen, obj, size, P, needed, NULL);
    free(packed);
    return r;
}

typedef void (*query_fn)(plan_b *b);

static int cmp_lines(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The rows sorted, so arrival order does not matter. */
static char *sorted(const char *text) {
    char *s = strdup(text);
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        v[n++] = l;
    }
    qsort(v, n, sizeof *v, cmp_lines);
    tk_text t = {0};
    tk_text_add(&t, "%s", "");
    for (size_t k = 0; k < n; k++) tk_text_add(&t, "%s\n", v[k]);
    free(v);
    free(s);
    return t.s;
}

static tk_result run_plan(plan_b *b, const uint8_t *obj, uint64_t size, const uint64_t *cuts, size_t ncuts) {
    size_t len;
    uint8_t *packed = PB_pack(b, &len);
    csd_tasklet_args a = {0};
    a.plan = packed;
    a.plan_len = len;
    tk_result r = tk_run(plan_ops, &a, obj, size, cuts, ncuts, 4096, TK_BYTES_RAW, 0, 64u << 20);
    free(packed);
    return r;
}

/* ------------------------------------------------------------------ queries */

static void q_all(plan_b *b) { (void)b; }
static void q_filter_id(plan_b *b) { b->p.filter = E_bin(OP(GT), E_col(ID), E_i(15000)); }
static void q_filter_mix(plan_b *b) {
    b->p.filter = AND(E_bin(OP(EQ), E_col(NAME), E_s("alpha")), E_bin(OP(LT), E_col(I), E_i(0)));
    PB_project(b, E_col(ID));
    PB_project(b, E_col(F));
    PB_project(b, E_col(FLAG));
}
static void q_group(plan_b *b) {
    PB_group(b, E_col(NAME));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(I));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MIN, E_col(D));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MAX, E_col(F));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT, E_col(FLAG));
}
static void q_nulls(plan_b *b) {
    b->p.filter = OR(E_un(UOP(IS_NULL), E_col(I)), E_bin(OP(LE), E_col(ID), E_i(-4900)));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(D));
}
static void q_topn(plan_b *b) {
    PB_project(b, E_col(D));
    PB_project(b, E_col(ID));
    PB_order(b, 0, 1);
    PB_order(b, 1, 0);
    b->p.limit = 10;
}
static void q_limit(plan_b *b) {
    b->p.filter = E_col(FLAG);
    PB_project(b, E_col(NAME));
    b->p.limit = 7;
}
static void q_strings(plan_b *b) {
    b->p.filter = AND(E_bin(OP(GE), E_col(NAME), E_s("m")), E_bin(OP(STARTS_WITH), E_col(NAME), E_s("mid")));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
}

static const struct { const char *name; query_fn fn; } QUERIES[] = {
    {"all", q_all}, {"filter_id", q_filter_id}, {"filter_mix", q_filter_mix}, {"group", q_group},
    {"nulls", q_nulls}, {"topn", q_topn}, {"limit", q_limit}, {"strings", q_strings},
};

static uint8_t *load(const char *name, uint64_t *size) {
    char path[1024];
    const char *src = getenv("CSD_SRC");
    snprintf(path, sizeof path, "%s/tests/data/parquet/%s", src ? src : "native", name);
    return tk_read_file(path, size);
}

static void differential(void) {
    uint64_t csv_size;
    uint8_t *csv = load("rows.csv", &csv_size);
    for (size_t f = 0; f < sizeof FILES / sizeof *FILES; f++) {
        char fname[64];
        snprintf(fname, sizeof fname, "%s.parquet", FILES[f]);
        uint64_t size;
        uint8_t *obj = load(fname, &size);
        for (size_t q = 0; q < sizeof QUERIES / sizeof *QUERIES; q++) {
            plan_b pq, tx;
            init_parquet(&pq);
            add_cols(&pq);
            QUERIES[q].fn(&pq);
            PB_init_text(&tx, ",", 0);
            add_cols(&tx);
            QUERIES[q].fn(&tx);
            tk_result a = run_plan(&pq, obj, size, NULL, 0);
            tk_result b = run_plan(&tx, csv, csv_size, NULL, 0);
            /* with the footer in the plan, reading only the pages it needs: the same rows */
            with_footer(&pq, obj, size);
            uint64_t needed;
            tk_result sp = run_sparse(&pq, obj, size, 4096, &needed);
            if (sp.rc) fprintf(stderr, "%s sparse: %s\n", fname, sp.err);
            CHECK(sp.rc == 0);
            tk_check_text(sp.text.s, a.text.s, "sparse read");
            tk_result_free(&sp);
            char what[128];
            snprintf(what, sizeof what, "%s: %s", fname, QUERIES[q].name);
            if (a.rc) fprintf(stderr, "%s: %s\n", what, a.err);
            CHECK(a.rc == 0 && b.rc == 0 && a.rows > 0);
            if (pq.p.n_order_by || pq.p.limit) {
                tk_check_text(a.text.s, b.text.s, what);   /* order and which rows a limit keeps matter */
            } else {
                char *sa = sorted(a.text.s), *sb = sorted(b.text.s);
                tk_check_text(sa, sb, what);
                free(sa);
                free(sb);
            }
            tk_result_free(&a);
            tk_result_free(&b);
            pb_free_all();
        }
        free(obj);
    }
    free(csv);
}

/* The footer as Spark wrote it, and row-group skipping measured by the decoding work charged. */
static void footer_and_skipping(void) {
    uint64_t size;
    uint8_t *obj = load("snappy.parquet", &size);
    csd_pq_file f;
    char err[256];
    CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
    CHECK(f.n_leaves == 6 && f.num_rows == 3000 && f.n_rgs >= 3);
    CHECK(!strcmp(f.leaves[NAME].name, "name") && f.leaves[NAME].ptype == PQ_BYTE_ARRAY && f.leaves[NAME].optional);
    CHECK(f.leaves[ID].ptype == PQ_INT64 && !f.leaves[ID].optional);
    CHECK(f.leaves[I].ptype == PQ_INT32 && f.leaves[F].ptype == PQ_FLOAT && f.leaves[FLAG].ptype == PQ_BOOLEAN);
    uint64_t rows = 0;
    int64_t prev_max = INT64_MIN;
    for (uint32_t g = 0; g < f.n_rgs; g++) {
        const csd_pq_chunk *c = &f.rgs[g].chunks[ID];
        rows += f.rgs[g].num_rows;
        CHECK(c->has_min && c->has_max && c->min_len == 8 && c->max_len == 8);
        int64_t lo, hi;
        memcpy(&lo, c->min, 8);
        memcpy(&hi, c->max, 8);
        /* ids rise by 7 from -5000 in row order */
        CHECK(lo > prev_max && hi - lo == 7 * ((int64_t)f.rgs[g].num_rows - 1));
        prev_max = hi;
        csd_pq_values v;
        CHECK(csd_pq_read(&f, obj, size, g, ID, &v, err, sizeof err) == 0);
        CHECK(v.n == f.rgs[g].num_rows && v.i[0] == lo && v.i[v.n - 1] == hi);
        csd_pq_values_free(&v);
    }
    CHECK(rows == 3000);
    /* id > the largest id: every row group skipped, no decoding charged; the same test hidden in an
     * expression the statistics cannot see decodes and evaluates every row */
    plan_b b;
    init_parquet(&b);
    add_cols(&b);
    b.p.filter = E_bin(OP(GT), E_col(ID), E_i(prev_max));
    tk_result skip = run_plan(&b, obj, size, NULL, 0);
    CHECK(skip.rc == 0 && skip.rows == 0 && skip.finish_cycles == 0 && skip.finish_dram == 0);
    tk_result_free(&skip);
    pb_free_all();
    init_parquet(&b);
    add_cols(&b);
    b.p.filter = E_bin(OP(GT), E_bin(OP(ADD), E_col(ID), E_i(0)), E_i(prev_max));
    tk_result all = run_plan(&b, obj, size, NULL, 0);
    CHECK(all.rc == 0 && all.rows == 0 && all.finish_cycles >= 3000 * 4);
    tk_result_free(&all);
    pb_free_all();
    /* only the last row group can hold id >= its min: less work than no skipping, same rows */
    const csd_pq_chunk *last = &f.rgs[f.n_rgs - 1].chunks[ID];
    int64_t last_lo;
    memcpy(&last_lo, last->min, 8);
    init_parquet(&b);
    add_cols(&b);
    b.p.filter = E_bin(OP(GE), E_col(ID), E_i(last_lo));
    tk_result some = run_plan(&b, obj, size, NULL, 0);
    CHECK(some.rc == 0 && some.rows == f.rgs[f.n_rgs - 1].num_rows);
    tk_result_free(&some);
    pb_free_all();
    /* with the footer in the plan, the pages needed are exactly those of the footer and of the last
     * row group's id chunk (pages of 512 bytes), the same rows come out */
    const uint32_t P = 512;
    init_parquet(&b);
    add_cols(&b);
    with_footer(&b, obj, size);
    b.p.filter = E_bin(OP(GE), E_col(ID), E_i(last_lo));
    PB_project(&b, E_col(ID));
    uint64_t needed;
    tk_result sp = run_sparse(&b, obj, size, P, &needed);
    CHECK(sp.rc == 0 && sp.rows == f.rgs[f.n_rgs - 1].num_rows);
    /* the finish cost, by hand: R rows of the last row group decoded (2 cycles a value); per row 4
     * cycles, the filter's 3 nodes (9 cycles), the projection's node (3) and the output row (40) */
    uint64_t R = f.rgs[f.n_rgs - 1].num_rows;
    CHECK(sp.finish_cycles == R * (2 + 4 + 9 + 3 + 40));
    uint32_t flen = (uint32_t)obj[size - 8] | (uint32_t)obj[size - 7] << 8;
    uint64_t want = 0, pages = (size + P - 1) / P;
    for (uint64_t pg = 0; pg < pages; pg++) {
        uint64_t s = pg * P, e = s + P;
        int in_footer = e > size - 8 - flen;
        int in_chunk = e > last->start && s < last->start + last->size;
        want += in_footer || in_chunk;
    }
    CHECK(needed == want && needed * 4 < pages);
    tk_result_free(&sp);
    /* the extent's pages before the first one needed are not fed at all: it starts at the chunk's page */
    {
        size_t plen;
        uint8_t *packed = PB_pack(&b, &plen);
        csd_tasklet_args a = {0};
        a.plan = packed;
        a.plan_len = plen;
        a.page_bytes = P;
        csd_outbuf ob;
        csd_outbuf_init(&ob, 1 << 20, 0);
        csd_exec *t;
        uint64_t fp, lp;
        CHECK(csd_exec_create(&t, csd_tasklet_find("plan"), &a, &ob, err, sizeof err) == 0);
        CHECK(csd_exec_begin(t, size, 0, size, P, &fp, &lp, err, sizeof err) == 0);
        CHECK(fp == last->start / P && lp == (size - 1) / P);
        csd_exec_destroy(t);
        csd_outbuf_free(&ob);
        free(packed);
    }
    pb_free_all();
    csd_pq_close(&f);
    free(obj);
}

/* Late materialization: with one row selected, only the page holding it is decoded, to the same values. */
static void selected_pages(void) {
    uint64_t size;
    uint8_t *obj = load("small_pages.parquet", &size);
    csd_pq_file f;
    char err[256];
    CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0 && f.n_rgs == 1);
    uint64_t n = f.rgs[0].num_rows;
    uint8_t *sel = calloc(n, 1);
    sel[n / 2] = 1;
    for (uint32_t c = 0; c < f.n_leaves; c++) {
        csd_pq_values all, one;
        CHECK(csd_pq_read(&f, obj, size, 0, c, &all, err, sizeof err) == 0);
        CHECK(csd_pq_read_sel(&f, obj, size, 0, c, sel, &one, err, sizeof err) == 0);
        CHECK(all.pages >= 4 && one.pages < all.pages && one.decoded < all.decoded && all.decoded == n);
        uint64_t r = n / 2;
        CHECK(one.valid[r] == all.valid[r]);
        if (all.valid[r]) {
            if (all.i) CHECK(one.i[r] == all.i[r]);
            if (all.d) CHECK(one.d[r] == all.d[r]);
            if (all.sp) CHECK(one.sn[r] == all.sn[r] && !memcmp(one.sp[r], all.sp[r], all.sn[r]));
        }
        csd_pq_values_free(&all);
        csd_pq_values_free(&one);
    }
    free(sel);
    csd_pq_close(&f);
    free(obj);
}

static void expect_fail(plan_b *b, const uint8_t *obj, uint64_t size, const uint64_t *cuts, size_t ncuts,
                        const char *msg) {
    tk_result r = run_plan(b, obj, size, cuts, ncuts);
    if (r.rc == 0 || !strstr(r.err, msg)) {
        fprintf(stderr, "expected failure '%s', got rc %d '%s'\n", msg, r.rc, r.err);
        exit(1);
    }
    tk_result_free(&r);
}

static void refusals(void) {
    uint64_t size;
    uint8_t *obj = load("snappy.parquet", &size);
    plan_b b;
    init_parquet(&b);
    add_cols(&b);
    uint64_t cut = size / 2;
    expect_fail(&b, obj, size, &cut, 1, "not a Parquet file");
    uint8_t text[] = "a,b\n1,2\n";
    expect_fail(&b, text, sizeof text - 1, NULL, 0, "not a Parquet file");
    /* the footer length pointing before the file's start */
    uint8_t *bad = malloc(size);
    memcpy(bad, obj, size);
    bad[size - 5] = 0x7f;
    expect_fail(&b, bad, size, NULL, 0, "footer length");
    /* the footer's bytes zeroed: its Thrift does not parse */
    memcpy(bad, obj, size);
    uint32_t flen = (uint32_t)obj[size - 8] | (uint32_t)obj[size - 7] << 8;
    memset(bad + size - 8 - flen, 0xff, flen);
    expect_fail(&b, bad, size, NULL, 0, "corrupt Parquet footer");
    /* the first data page's bytes garbled: snappy refuses them */
    memcpy(bad, obj, size);
    memset(bad + 4 + 12, 0xee, 200);
    expect_fail(&b, bad, size, NULL, 0, "corrupt Parquet");
    free(bad);
    pb_free_all();
    /* a footer of another object: refused at finish, before any decoding */
    uint64_t osize;
    uint8_t *other = load("zstd_plain.parquet", &osize);
    init_parquet(&b);
    add_cols(&b);
    with_footer(&b, other, osize);
    uint64_t needed;
    tk_result r = run_sparse(&b, obj, size, 4096, &needed);
    CHECK(r.rc != 0 && strstr(r.err, "the footer the plan was built from"));
    tk_result_free(&r);
    pb_free_all();
    /* the right footer, but the extent starts after the first byte the plan reads */
    init_parquet(&b);
    add_cols(&b);
    with_footer(&b, obj, size);
    {
        size_t plen;
        uint8_t *packed = PB_pack(&b, &plen);
        csd_tasklet_args a = {0};
        a.plan = packed;
        a.plan_len = plen;
        a.page_bytes = 4096;
        csd_outbuf ob;
        csd_outbuf_init(&ob, 1 << 20, 0);
        csd_exec *t;
        uint64_t fp, lp;
        char e[512];
        CHECK(csd_exec_create(&t, csd_tasklet_find("plan"), &a, &ob, e, sizeof e) == 0);
        CHECK(csd_exec_begin(t, size, 8192, size - 8192, 4096, &fp, &lp, e, sizeof e) == 0);
        int more, rc = 0;
        for (uint64_t pg = fp; pg <= lp && !rc; pg++) {
            csd_cost c;
            rc = csd_exec_feed(t, pg, obj + pg * 4096, size - pg * 4096 < 4096 ? size - pg * 4096 : 4096, &c, &more);
        }
        CHECK(rc != 0 && strstr(csd_exec_error(t), "its extent starts at offset 8192, after byte"));
        csd_exec_destroy(t);
        csd_outbuf_free(&ob);
        free(packed);
    }
    pb_free_all();
    /* a corrupt footer in the plan: refused when the tasklet is created */
    init_parquet(&b);
    add_cols(&b);
    with_footer(&b, obj, size);
    uint8_t *garbled = malloc(b.p.parquet->footer.len);
    memset(garbled, 0xff, b.p.parquet->footer.len);
    b.p.parquet->footer.data = garbled;
    r = run_sparse(&b, obj, size, 4096, &needed);
    CHECK(r.rc == -EINVAL && strstr(r.err, "parquet.footer: corrupt Parquet footer"));
    tk_result_free(&r);
    free(garbled);
    pb_free_all();
    free(other);
    /* a STRING plan column over the INT64 leaf */
    init_parquet(&b);
    PB_col(&b, C_text("id", 3, ID));
    expect_fail(&b, obj, size, NULL, 0, "column 'id' is STRING but Parquet column 0 ('id') holds INT64");
    pb_free_all();
    init_parquet(&b);
    PB_col(&b, C_text("x", 1, 9));
    expect_fail(&b, obj, size, NULL, 0, "column 'x' reads Parquet column 9; the object has 6");
    pb_free_all();
    /* and the next plan over the same bytes is served */
    init_parquet(&b);
    add_cols(&b);
    PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    tk_result ok = run_plan(&b, obj, size, NULL, 0);
    CHECK(ok.rc == 0 && !strcmp(ok.text.s, "3000\n"));
    tk_result_free(&ok);
    pb_free_all();
    free(obj);
}

/* Random byte edits: a message or an answer, never a crash (ASan builds check the bounds). */
static void corruptions(void) {
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t f = 0; f < sizeof FILES / sizeof *FILES; f++) {
        char fname[64];
        snprintf(fname, sizeof fname, "%s.parquet", FILES[f]);
        uint64_t size;
        uint8_t *obj = load(fname, &size);
        uint8_t *bad = malloc(size);
        for (int k = 0; k < 150; k++) {
            memcpy(bad, obj, size);
            int edits = 1 + (int)(state % 4);
            for (int e = 0; e < edits; e++) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                /* half the edits in the footer, where one byte changes the most */
                uint64_t at = state % 2 ? size - 1 - (state >> 8) % (size < 600 ? size : 600) : (state >> 8) % size;
                bad[at] = (uint8_t)(state >> 40);
            }
            plan_b b;
            init_parquet(&b);
            add_cols(&b);
            add_name_groupby(&b);
            tk_result r = run_plan(&b, bad, size, NULL, 0);
            CHECK(r.rc == 0 || r.err[0]);
            tk_result_free(&r);
            pb_free_all();
        }
        free(bad);
        free(obj);
    }
}

/* The read loop of a run: every row's count and the final progress. */
static Smartssd__V1__Progress read_all(csd_device *d, uint64_t out, uint64_t *rows, char *msg, size_t msglen) {
    Smartssd__V1__Progress p = SMARTSSD__V1__PROGRESS__INIT;
    *rows = 0;
    for (int k = 0; k < 100000; k++) {
        Smartssd__V1__Response *r = dev_read(d, out, 0, 0);
        CHECK(r->status == 0 && r->read_object && r->read_object->progress);
        p = *r->read_object->progress;
        p.message = NULL;
        snprintf(msg, msglen, "%s", r->read_object->progress->message ? r->read_object->progress->message : "");
        smartssd__v1__response__free_unpacked(r, NULL);
        if (p.done) break;
    }
    *rows = p.rows;
    return p;
}

/* Through the whole device (FTL, flash model, engine): with the footer in the plan, flash_bytes_read
 * is exactly the pages of the footer and of the chunk read; without it, every page; a corrupt
 * object fails its run with a message and the device keeps serving. */
static void on_device(void) {
    uint64_t size;
    uint8_t *obj = load("snappy.parquet", &size);
    const char *dir = csd_test_dir("parquet");
    csd_device *d = dev_fresh(dir, "tiny", 8u << 20, 0);
    const uint64_t P = csd_device_params(d)->page_bytes;
    uint64_t id = dev_create_data(d, "t.parquet");
    for (uint64_t off = 0; off < size; off += 16384)
        dev_write(d, id, off, obj + off, size - off < 16384 ? (size_t)(size - off) : 16384);
    uint64_t bad = dev_create_data(d, "bad.parquet");
    uint8_t *garbled = malloc(size);
    memcpy(garbled, obj, size);
    memset(garbled + 4, 0x5a, 4096);   /* the first pages of the first row group */
    for (uint64_t off = 0; off < size; off += 16384)
        dev_write(d, bad, off, garbled + off, size - off < 16384 ? (size_t)(size - off) : 16384);
    csd_pq_file f;
    char err[256];
    CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
    const csd_pq_chunk *last = &f.rgs[f.n_rgs - 1].chunks[ID];
    int64_t last_lo;
    memcpy(&last_lo, last->min, 8);
    uint32_t flen = (uint32_t)obj[size - 8] | (uint32_t)obj[size - 7] << 8;
    uint64_t want = 0, pages = (size + P - 1) / P;
    for (uint64_t pg = 0; pg < pages; pg++) {
        uint64_t s = pg * P, e = s + P;
        want += e > size - 8 - flen || (e > last->start && s < last->start + last->size);
    }
    for (int footer = 0; footer <= 1; footer++) {
        plan_b b;
        init_parquet(&b);
        add_cols(&b);
        if (footer) with_footer(&b, obj, size);
        b.p.filter = E_bin(OP(GE), E_col(ID), E_i(last_lo));
        PB_project(&b, E_col(ID));
        Smartssd__V1__Response *r = dev_create_tasklet(d, "plan", NULL, &b.p);
        CHECK(r->status == 0);
        uint64_t t = r->create_object->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        uint64_t out = dev_create_output(d, 0);
        r = dev_execute(d, t, out, id, 0, 0, 1);
        CHECK(r->status == 0);
        smartssd__v1__response__free_unpacked(r, NULL);
        uint64_t rows;
        char msg[512];
        Smartssd__V1__Progress p = read_all(d, out, &rows, msg, sizeof msg);
        CHECK(p.status == 0 && rows == f.rgs[f.n_rgs - 1].num_rows);
        if (footer) CHECK(p.flash_bytes_read == want * P && want * 2 < pages);
        else CHECK(p.flash_bytes_read == pages * P);
        dev_delete(d, out);
        /* the corrupt object: its run fails with the decoder's message */
        out = dev_create_output(d, 0);
        init_parquet(&b);
        add_cols(&b);
        PB_agg(&b, SMARTSSD__V1__AGG_FN__SUM, E_col(I));
        if (footer) with_footer(&b, obj, size);   /* the footer is intact: the pages are not */
        r = dev_create_tasklet(d, "plan", NULL, &b.p);
        CHECK(r->status == 0);
        uint64_t t2 = r->create_object->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        r = dev_execute(d, t2, out, bad, 0, 0, 1);
        CHECK(r->status == 0);
        smartssd__v1__response__free_unpacked(r, NULL);
        p = read_all(d, out, &rows, msg, sizeof msg);
        CHECK((int)p.status == CSD_TASKLET_ERROR && strstr(msg, "corrupt Parquet"));
        dev_delete(d, out);
        dev_delete(d, t);
        dev_delete(d, t2);
        pb_free_all();
        dev_still_serving(d);
    }
    csd_pq_close(&f);
    csd_device_close(d);
    free(garbled);
    free(obj);
}

/* The filter evaluated a column at a time (AND / OR / NOT over integer comparisons and IS NULL) must
 * charge what the row evaluator charges: per row 4 cycles and 3 per node evaluated, operands of AND /
 * OR only where the first does not decide. The reference is brute force over the values decoded
 * apart (csd_pq_read), with the three-valued logic written out per row; NULLs in i reach both
 * filters. Output: id (a filter column, so nothing is decoded late), 3 + 40 cycles per row out. */
static void column_filter_costs(void) {
    uint64_t size;
    uint8_t *obj = load("snappy.parquet", &size);
    csd_pq_file f;
    char err[256];
    CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
    const int64_t cut = -5000 + 7 * 1500;
    for (int which = 0; which < 4; which++) {
        uint64_t want_rows = 0, want_cycles = 0, nulls = 0, skipped = 0;
        for (uint32_t g = 0; g < f.n_rgs; g++) {
            csd_pq_values vi, vid;
            CHECK(csd_pq_read(&f, obj, size, g, I, &vi, err, sizeof err) == 0);
            CHECK(csd_pq_read(&f, obj, size, g, ID, &vid, err, sizeof err) == 0);
            /* the second filter's id < cut rules out the row groups whose ids all reach cut: no cost */
            int64_t lo = INT64_MAX;
            for (uint64_t r = 0; r < vid.n; r++) lo = vid.i[r] < lo ? vid.i[r] : lo;
            skipped += which == 1 && lo >= cut;
            for (uint64_t r = 0; r < vi.n && !(which == 1 && lo >= cut); r++) {
                int inull = !vi.valid[r];
                int64_t iv = vi.i[r], id = vid.i[r];
                uint64_t nodes;
                int pass;
                nulls += (uint64_t)inull;
                if (which == 0) {
                    /* (i IS NULL OR i < 0) AND NOT (id >= cut) */
                    int a = inull || iv < 0;
                    nodes = 1 + (1 + 2 + (inull ? 0 : 3)) + (a ? 1 + 3 : 0);
                    pass = a && !(id >= cut);
                } else if (which == 1) {
                    /* i <> 3 AND id < cut: NULL <> 3 is NULL, which does not decide the AND */
                    int a_false = !inull && iv == 3;
                    nodes = 1 + 3 + (a_false ? 0 : 3);
                    pass = !inull && iv != 3 && id < cut;
                } else if (which == 2) {
                    /* NOT (i < 0 OR id >= cut): NULL OR FALSE is NULL, and NOT NULL does not pass */
                    int a_true = !inull && iv < 0;
                    nodes = 1 + 1 + 3 + (a_true ? 0 : 3);
                    pass = !inull && iv >= 0 && id < cut;
                } else {
                    /* NOT (i <> 3 AND id < cut): NULL AND TRUE is NULL, NULL AND FALSE is FALSE */
                    int a_false = !inull && iv == 3;
                    nodes = 1 + 1 + 3 + (a_false ? 0 : 3);
                    pass = a_false || id >= cut;
                }
                want_cycles += 2 * 2 + 4 + 3 * nodes + (pass ? 3 + 40 : 0);
                want_rows += (uint64_t)pass;
            }
            csd_pq_values_free(&vi);
            csd_pq_values_free(&vid);
        }
        CHECK(nulls > 0 && want_rows > 0 && (which != 1 || (skipped > 0 && skipped < f.n_rgs)));
        plan_b b;
        init_parquet(&b);
        add_cols(&b);
        if (which == 0)
            b.p.filter = AND(OR(E_un(UOP(IS_NULL), E_col(I)), E_bin(OP(LT), E_col(I), E_i(0))),
                             E_un(UOP(NOT), E_bin(OP(GE), E_col(ID), E_i(cut))));
        else if (which == 1)
            b.p.filter = AND(E_bin(OP(NE), E_i(3), E_col(I)), E_bin(OP(LT), E_col(ID), E_i(cut)));
        else if (which == 2)
            b.p.filter = E_un(UOP(NOT), OR(E_bin(OP(LT), E_col(I), E_i(0)), E_bin(OP(GE), E_col(ID), E_i(cut))));
        else
            b.p.filter = E_un(UOP(NOT), AND(E_bin(OP(NE), E_col(I), E_i(3)), E_bin(OP(LT), E_col(ID), E_i(cut))));
        PB_project(&b, E_col(ID));
        tk_result r = run_plan(&b, obj, size, NULL, 0);
        CHECK(r.rc == 0);
        CHECK_EQ_U64(r.rows, want_rows);
        CHECK_EQ_U64(r.finish_cycles, want_cycles);
        tk_result_free(&r);
        pb_free_all();
    }
    csd_pq_close(&f);
    free(obj);
}

/* ORDER BY over plain columns takes each output straight from the decoded arrays; it must charge what
 * the row evaluator charges. The same top-N with an output written -(-d) goes through the row
 * evaluator: the same values, so the same heap comparisons, and 2 more nodes (6 cycles) per row. */
static void direct_topn_costs(void) {
    uint64_t size;
    uint8_t *obj = load("snappy.parquet", &size);
    /* keys: a double then an integer; a nullable integer (NULLs sort first ascending) then an integer,
     * descending and ascending (the integer keys drop rows the full heap rejects without the evaluator) */
    /* a first key without NULLs (id) with an integer beside it: the other output is decoded only in
     * the pages of rows the heap looks at (ascending: after the first rows, none), charged as whole */
    const int keys[5][2] = {{D, ID}, {I, ID}, {I, ID}, {ID, I}, {ID, I}};
    const int desc[5][2] = {{1, 0}, {0, 1}, {1, 1}, {0, 1}, {1, 0}};
    /* limit 700 as well: NULLs of the first key among the rows that fill the heap */
    for (int q = 0; q < 10; q++) {
        tk_result r[2];
        const uint64_t limit = q < 5 ? 10 : 700;
        for (int neg = 0; neg < 2; neg++) {
            plan_b b;
            init_parquet(&b);
            add_cols(&b);
            int k0 = keys[q % 5][0];
            PB_project(&b, neg ? E_un(UOP(NEG), E_un(UOP(NEG), E_col(k0))) : E_col(k0));
            PB_project(&b, E_col(keys[q % 5][1]));
            PB_order(&b, 0, desc[q % 5][0]);
            PB_order(&b, 1, desc[q % 5][1]);
            b.p.limit = limit;
            r[neg] = run_plan(&b, obj, size, NULL, 0);
            CHECK(r[neg].rc == 0 && r[neg].rows == limit);
            pb_free_all();
        }
        CHECK(!strcmp(r[0].text.s, r[1].text.s));
        CHECK_EQ_U64(r[1].finish_cycles, r[0].finish_cycles + 3000 * 2 * 3);
        CHECK_EQ_U64(r[1].finish_dram, r[0].finish_dram);
        tk_result_free(&r[0]);
        tk_result_free(&r[1]);
    }
    free(obj);
}

/* Requests over some of an object's row groups (ParquetObject.row_groups, how the connector splits an
 * object with several row groups into partitions): two requests over complementary sets return
 * together the rows of one request over the object and charge together what it charges; each reads
 * only the footer and its own row groups' chunks of the used columns. Refusals: a row group the
 * footer lacks, row_groups without the footer. */
static void row_group_requests(void) {
    uint64_t size;
    uint8_t *obj = load("snappy.parquet", &size);
    csd_pq_file f;
    char err[256];
    CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
    CHECK(f.n_rgs >= 4);
    const uint32_t P = 512;
    uint32_t set_a[8], set_b[8];
    size_t na = 0, nb = 0;
    for (uint32_t g = 0; g < f.n_rgs; g++) {
        if (g % 3 == 1) set_a[na++] = g;   /* 1, 4, ...: not a prefix, not contiguous */
        else set_b[nb++] = g;
    }
    tk_result r[3];
    uint64_t needed[3];
    for (int k = 0; k < 3; k++) {
        plan_b b;
        init_parquet(&b);
        add_cols(&b);
        with_footer(&b, obj, size);
        b.p.filter = E_bin(OP(LT), E_col(I), E_i(0));
        PB_project(&b, E_col(ID));
        PB_project(&b, E_col(NAME));
        if (k < 2) {
            b.p.parquet->row_groups = k == 0 ? set_a : set_b;
            b.p.parquet->n_row_groups = k == 0 ? na : nb;
        }
        r[k] = run_sparse(&b, obj, size, P, &needed[k]);
        CHECK(r[k].rc == 0);
        pb_free_all();
    }
    CHECK(r[0].rows > 0 && r[1].rows > 0);
    CHECK_EQ_U64(r[0].rows + r[1].rows, r[2].rows);
    tk_text both = {0};
    tk_text_add(&both, "%s%s", r[0].text.s, r[1].text.s);
    char *s_both = sorted(both.s), *s_all = sorted(r[2].text.s);
    CHECK(!strcmp(s_both, s_all));
    CHECK_EQ_U64(r[0].finish_cycles + r[1].finish_cycles, r[2].finish_cycles);
    /* the pages each request needs: the footer's and its row groups' id, i and name chunks */
    uint32_t flen = (uint32_t)obj[size - 8] | (uint32_t)obj[size - 7] << 8;
    for (int k = 0; k < 2; k++) {
        const uint32_t *set = k == 0 ? set_a : set_b;
        size_t n = k == 0 ? na : nb;
        uint64_t want = 0, pages = (size + P - 1) / P;
        for (uint64_t pg = 0; pg < pages; pg++) {
            uint64_t s = pg * P, e = s + P;
            int hit = e > size - 8 - flen;
            for (size_t m = 0; m < n && !hit; m++) {
                const uint32_t leaves[] = {ID, I, NAME};
                for (int l = 0; l < 3 && !hit; l++) {
                    const csd_pq_chunk *c = &f.rgs[set[m]].chunks[leaves[l]];
                    hit = e > c->start && s < c->start + c->size;
                }
            }
            want += (uint64_t)hit;
        }
        CHECK_EQ_U64(needed[k], want);
        CHECK(needed[k] < needed[2]);
    }
    free(s_both);
    free(s_all);
    free(both.s);
    for (int k = 0; k < 3; k++) tk_result_free(&r[k]);
    /* refusals */
    for (int k = 0; k < 2; k++) {
        plan_b b;
        init_parquet(&b);
        add_cols(&b);
        uint32_t bad = f.n_rgs;
        if (k == 0) with_footer(&b, obj, size);
        b.p.parquet->row_groups = k == 0 ? &bad : set_a;
        b.p.parquet->n_row_groups = 1;
        PB_project(&b, E_col(ID));
        uint64_t nd;
        tk_result x = run_sparse(&b, obj, size, P, &nd);
        char want[128];
        if (k == 0) snprintf(want, sizeof want, "parquet.row_groups names row group %u; the footer has %u", bad, f.n_rgs);
        else snprintf(want, sizeof want, "parquet.row_groups needs parquet.footer");
        if (x.rc == 0 || !strstr(x.err, want)) {
            fprintf(stderr, "expected failure '%s', got rc %d '%s'\n", want, x.rc, x.err);
            exit(1);
        }
        tk_result_free(&x);
        pb_free_all();
    }
    csd_pq_close(&f);
    free(obj);
}

/* ------------------------------------------------------------------ the RLE/bit-packed decoder
 * Random hybrid streams (RLE runs and bit-packed groups of random lengths, every width 0..32), packed
 * here bit by bit as Encodings.md lays them out: the decoder must give back the values packed, for
 * every count up to the total, and refuse a stream cut short. Definition levels (width 1) likewise
 * into 0/1 bytes, with the count of ones; a run of level 2 is corrupt. */
typedef struct hyb {
    uint8_t *b;
    size_t len, cap;
    uint32_t *v;
    uint64_t n, vcap;
} hyb;

static void hyb_byte(hyb *h, uint8_t x) {
    if (h->len == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 256;
        h->b = realloc(h->b, h->cap);
        CHECK(h->b);
    }
    h->b[h->len++] = x;
}

static void hyb_varint(hyb *h, uint64_t x) {
    while (x >= 0x80) {
        hyb_byte(h, (uint8_t)(x | 0x80));
        x >>= 7;
    }
    hyb_byte(h, (uint8_t)x);
}

static void hyb_value(hyb *h, uint32_t x) {
    if (h->n == h->vcap) {
        h->vcap = h->vcap ? 2 * h->vcap : 256;
        h->v = realloc(h->v, h->vcap * sizeof *h->v);
        CHECK(h->v);
    }
    h->v[h->n++] = x;
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) {
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static uint32_t rnd_value(int w) { return w == 0 ? 0 : w == 32 ? (uint32_t)rnd() : (uint32_t)(rnd() & ((1ull << w) - 1)); }

/* segments of a hybrid stream at width w: values appended to h->v, bytes to h->b */
static void hyb_make(hyb *h, int w, int segments) {
    for (int s = 0; s < segments; s++) {
        /* width 0 as writers use it (a one-entry dictionary): runs; the decoder bounds a group count
         * by the bytes left, which zero-width groups do not take */
        if (w == 0 || rnd() % 2) {
            uint64_t run = 1 + rnd() % (rnd() % 4 ? 40 : 3000);
            uint32_t x = rnd_value(w);
            hyb_varint(h, run << 1);
            for (int b = 0; b < (w + 7) / 8; b++) hyb_byte(h, (uint8_t)(x >> (8 * b)));
            for (uint64_t k = 0; k < run; k++) hyb_value(h, x);
        } else {
            uint64_t groups = 1 + rnd() % (rnd() % 4 ? 6 : 300);
            hyb_varint(h, groups << 1 | 1);
            size_t at = h->len;
            for (uint64_t k = 0; k < groups * (uint64_t)w; k++) hyb_byte(h, 0);
            for (uint64_t k = 0; k < groups * 8; k++) {
                uint32_t x = rnd_value(w);
                for (int b = 0; b < w; b++) {
                    uint64_t bit = k * (uint64_t)w + (uint64_t)b;
                    if (x >> b & 1) h->b[at + bit / 8] |= (uint8_t)(1u << (bit % 8));
                }
                hyb_value(h, x);
            }
        }
    }
}

static void rle_decoder(void) {
    for (int iter = 0; iter < 400; iter++) {
        int w = iter % 33;
        hyb h = {0};
        hyb_make(&h, w, 1 + (int)(rnd() % 12));
        /* an exact-size copy: a read past the stream's end is a fault under the sanitizers */
        uint8_t *b = malloc(h.len);
        CHECK(b);
        memcpy(b, h.b, h.len);
        uint32_t *out = malloc((h.n + 1) * sizeof *out);
        CHECK(out);
        uint64_t counts[] = {h.n, h.n - rnd() % (h.n < 9 ? h.n : 9), rnd() % (h.n + 1)};
        for (int c = 0; c < 3; c++) {
            uint64_t n = counts[c];
            out[n] = 0xdeadbeef;
            CHECK_EQ_INT(csd_pq_rle_decode(b, b + h.len, w, out, n), 0);
            CHECK(memcmp(out, h.v, n * sizeof *out) == 0);
            CHECK_EQ_U64(out[n], 0xdeadbeef);   /* nothing written past n */
        }
        if (w > 0) CHECK_EQ_INT(csd_pq_rle_decode(b, b + h.len - 1, w, out, h.n), -1);
        if (w <= 8) {
            /* the byte decoder: the values written, nothing past n, the same refusals */
            uint8_t *o8 = malloc(h.n + 1);
            CHECK(o8);
            for (int c = 0; c < 3; c++) {
                uint64_t n = counts[c];
                o8[n] = 0xa5;
                CHECK_EQ_INT(csd_pq_rle_decode8(b, b + h.len, w, o8, n), 0);
                for (uint64_t k = 0; k < n; k++) CHECK_EQ_U64(o8[k], h.v[k]);
                CHECK_EQ_U64(o8[n], 0xa5);
            }
            if (w > 0) CHECK_EQ_INT(csd_pq_rle_decode8(b, b + h.len - 1, w, o8, h.n), -1);
            free(o8);
        } else {
            uint8_t o8[8];
            CHECK_EQ_INT(csd_pq_rle_decode8(b, b + h.len, w, o8, 1), -1);   /* wider than a byte */
        }
        if (w == 1) {
            uint8_t *valid = malloc(h.n + 1);
            CHECK(valid);
            uint64_t ones = 0;
            for (uint64_t k = 0; k < h.n; k++) ones += h.v[k];
            CHECK_EQ_INT(csd_pq_rle_levels(b, b + h.len, valid, h.n), (long long)ones);
            for (uint64_t k = 0; k < h.n; k++) CHECK_EQ_INT(valid[k], h.v[k]);
            CHECK_EQ_INT(csd_pq_rle_levels(b, b + h.len - 1, valid, h.n), -1);
            free(valid);
        }
        free(out);
        free(b);
        free(h.b);
        free(h.v);
    }
    /* a run of level 2 at width 1: the levels refuse it, a width-1 decode gives it back as read */
    const uint8_t two[] = {3 << 1, 2};
    uint8_t valid[3];
    uint32_t out[3];
    CHECK_EQ_INT(csd_pq_rle_levels(two, two + 2, valid, 3), -1);
    CHECK_EQ_INT(csd_pq_rle_decode(two, two + 2, 1, out, 3), 0);
    CHECK_EQ_INT(out[2], 2);
    /* a run of length 0, a width over 32 and a stream too short for its count are refused */
    const uint8_t zero[] = {0, 1};
    CHECK_EQ_INT(csd_pq_rle_decode(zero, zero + 2, 1, out, 1), -1);
    CHECK_EQ_INT(csd_pq_rle_levels(zero, zero + 2, valid, 1), -1);
    CHECK_EQ_INT(csd_pq_rle_decode(two, two + 2, 33, out, 1), -1);
    CHECK_EQ_INT(csd_pq_rle_decode(two, two + 2, 1, out, 4), -1);
    CHECK_EQ_INT(csd_pq_rle_decode8(zero, zero + 2, 1, valid, 1), -1);
    CHECK_EQ_INT(csd_pq_rle_decode8(two, two + 2, 1, valid, 4), -1);
}

/* Integer chunks read as dictionary indices (csd_pq_read_ix) hold the same rows as read whole
 * (csd_pq_read_sel), NULLs and skipped pages included, and count the same decoding work. */
static void index_columns(void) {
    uint64_t with_ix = 0, chunks = 0;
    for (size_t fi = 0; fi < sizeof FILES / sizeof *FILES; fi++) {
        char name[64], err[256];
        snprintf(name, sizeof name, "%s.parquet", FILES[fi]);
        uint64_t size;
        uint8_t *obj = load(name, &size);
        CHECK(obj);
        csd_pq_file f;
        CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
        for (uint32_t g = 0; g < f.n_rgs; g++) {
            uint64_t n = f.rgs[g].num_rows;
            uint8_t *sel = malloc(n ? n : 1);
            CHECK(sel);
            for (uint64_t r = 0; r < n; r++) sel[r] = (r / 97) % 3 == 0;
            for (uint32_t c = 0; c < f.n_leaves; c++) {
                int pt = f.leaves[c].ptype;
                if (pt != PQ_INT32 && pt != PQ_INT64 && pt != PQ_BOOLEAN) continue;
                for (int s = 0; s < 2; s++) {
                    csd_pq_values a, b;
                    CHECK(csd_pq_read_sel(&f, obj, size, g, c, s ? sel : NULL, &a, err, sizeof err) == 0);
                    CHECK(csd_pq_read_ix(&f, obj, size, g, c, s ? sel : NULL, &b, err, sizeof err) == 0);
                    CHECK(a.ix == NULL && (b.ix == NULL) == (b.i != NULL));
                    chunks++;
                    with_ix += b.ix != NULL;
                    CHECK_EQ_U64(a.n, b.n);
                    CHECK_EQ_U64(a.decoded, b.decoded);
                    CHECK_EQ_U64(a.bytes_out, b.bytes_out);
                    CHECK_EQ_U64(a.pages, b.pages);
                    for (uint64_t r = 0; r < a.n; r++) {
                        CHECK_EQ_INT(a.valid[r], b.valid[r]);
                        if (a.valid[r]) CHECK_EQ_INT(a.i[r], csd_pq_int(&b, r));
                    }
                    csd_pq_values_free(&a);
                    csd_pq_values_free(&b);
                }
            }
            free(sel);
        }
        csd_pq_close(&f);
        free(obj);
    }
    /* the seeds' integer dictionaries are larger than 256 (or off): every chunk read whole here; the
     * index way is exercised by dictionary_indices */
    CHECK(chunks > 0 && with_ix == 0);
}

/* A Parquet object written here (Thrift compact footer, uncompressed data pages v1): one optional
 * INT64 column of `rows` rows in pages of `per_page` values: a dictionary page of `dn` values
 * (value k = 1000 - 7k), data pages of RLE_DICTIONARY indices with NULLs every 5th row, and from
 * row `plain_from` on PLAIN pages (a writer's fallback when its dictionary grows). want[r] is the
 * row's value, INT64_MIN for NULL. */
static void th_field(hyb *h, int *last, int id, int type) {
    hyb_byte(h, (uint8_t)((id - *last) << 4 | type));
    *last = id;
}
static void th_i(hyb *h, int *last, int id, int type, int64_t v) {
    th_field(h, last, id, type);
    hyb_varint(h, (uint64_t)v << 1 ^ (uint64_t)(v >> 63));
}

static void page_header(hyb *h, int type, uint32_t size, int64_t nv, int enc) {
    int last = 0;
    th_i(h, &last, 1, 5, type);
    th_i(h, &last, 2, 5, size);
    th_i(h, &last, 3, 5, size);
    th_field(h, &last, type == 2 ? 7 : 5, 12);
    int l2 = 0;
    th_i(h, &l2, 1, 5, nv);
    th_i(h, &l2, 2, 5, enc);
    if (type == 0) {
        th_i(h, &l2, 3, 5, 3);   /* RLE levels */
        th_i(h, &l2, 4, 5, 3);
    }
    hyb_byte(h, 0);
    hyb_byte(h, 0);
}

/* nulls: every fifth row NULL, else none (a page without NULLs takes the decoder's shortcuts) */
static uint8_t *write_dict_object_at(uint64_t rows, uint64_t per_page, uint32_t dn, uint64_t plain_from, int nulls,
                                     int64_t *want, uint64_t *size, uint64_t *page_at) {
    hyb o = {0};
    for (const char *m = "PAR1"; *m; m++) hyb_byte(&o, (uint8_t)*m);
    uint64_t start = o.len;
    /* dictionary page */
    page_header(&o, 2, dn * 8, dn, 0);
    for (uint32_t k = 0; k < dn; k++) {
        int64_t x = 1000 - 7 * (int64_t)k;
        for (int b = 0; b < 8; b++) hyb_byte(&o, (uint8_t)((uint64_t)x >> (8 * b)));
    }
    uint64_t data_off = o.len;
    int w = 0;
    while ((1u << w) < dn) w++;
    for (uint64_t at = 0; at < rows; at += per_page) {
        uint64_t nv = rows - at < per_page ? rows - at : per_page;
        int plain = at >= plain_from;
        /* levels: bit-packed groups of 8 */
        hyb lv = {0}, vals = {0};
        uint64_t groups = (nv + 7) / 8;
        hyb_varint(&lv, groups << 1 | 1);
        for (uint64_t g = 0; g < groups; g++) {
            uint8_t b = 0;
            for (int k = 0; k < 8; k++) {
                uint64_t r = at + g * 8 + (uint64_t)k;
                if (g * 8 + (uint64_t)k < nv && (!nulls || r % 5 != 4)) b |= (uint8_t)(1u << k);
            }
            hyb_byte(&lv, b);
        }
        uint64_t present = 0;
        hyb ix = {0};
        for (uint64_t k = 0; k < nv; k++) {
            uint64_t r = at + k;
            if (nulls && r % 5 == 4) {
                want[r] = INT64_MIN;
                continue;
            }
            present++;
            uint32_t e = (uint32_t)((r * 2654435761u) >> 7) % dn;
            if (r % 11 < 4) e = 3 % dn;   /* runs of one value as well as mixed ones */
            int64_t x = 1000 - 7 * (int64_t)e;
            want[r] = x;
            if (plain) for (int b = 0; b < 8; b++) hyb_byte(&vals, (uint8_t)((uint64_t)x >> (8 * b)));
            else hyb_value(&ix, e);
        }
        if (!plain) {
            /* the indices: RLE runs where a value repeats 8 times or more, else bit-packed groups */
            hyb_byte(&vals, (uint8_t)w);
            uint64_t k = 0;
            while (k < ix.n) {
                uint64_t run = 1;
                while (k + run < ix.n && ix.v[k + run] == ix.v[k]) run++;
                if (run >= 8 || k + run == ix.n) {
                    hyb_varint(&vals, run << 1);
                    for (int b = 0; b < (w + 7) / 8; b++) hyb_byte(&vals, (uint8_t)(ix.v[k] >> (8 * b)));
                    k += run;
                    continue;
                }
                uint64_t cnt = ix.n - k < 8 ? ix.n - k : 8;   /* one group; its pad values are 0 */
                hyb_varint(&vals, 1 << 1 | 1);
                size_t at2 = vals.len;
                for (int b = 0; b < w; b++) hyb_byte(&vals, 0);
                for (uint64_t j = 0; j < cnt; j++)
                    for (int b = 0; b < w; b++)
                        if (ix.v[k + j] >> b & 1) vals.b[at2 + (j * (uint64_t)w + (uint64_t)b) / 8] |= (uint8_t)(1u << ((j * (uint64_t)w + (uint64_t)b) % 8));
                k += cnt;
            }
        }
        (void)present;
        uint32_t body = 4 + (uint32_t)lv.len + (uint32_t)vals.len;
        if (page_at) page_at[at / per_page] = o.len;   /* its header */
        page_header(&o, 0, body, (int64_t)nv, plain ? 0 : 8);
        for (int b = 0; b < 4; b++) hyb_byte(&o, (uint8_t)(lv.len >> (8 * b)));
        for (size_t k = 0; k < lv.len; k++) hyb_byte(&o, lv.b[k]);
        for (size_t k = 0; k < vals.len; k++) hyb_byte(&o, vals.b[k]);
        free(lv.b);
        free(vals.b);
        free(ix.b);
        free(ix.v);
    }
    uint64_t chunk_size = o.len - start;
    /* FileMetaData */
    uint64_t foot = o.len;
    int last = 0;
    th_i(&o, &last, 1, 5, 1);
    th_field(&o, &last, 2, 9);
    hyb_byte(&o, 2 << 4 | 12);
    int l = 0;
    th_field(&o, &l, 4, 8);
    hyb_varint(&o, 6);
    for (const char *m = "schema"; *m; m++) hyb_byte(&o, (uint8_t)*m);
    th_i(&o, &l, 5, 5, 1);
    hyb_byte(&o, 0);
    l = 0;
    th_i(&o, &l, 1, 5, 2);   /* INT64 */
    th_i(&o, &l, 3, 5, 1);   /* OPTIONAL */
    th_field(&o, &l, 4, 8);
    hyb_varint(&o, 1);
    hyb_byte(&o, 'x');
    hyb_byte(&o, 0);
    th_i(&o, &last, 3, 6, (int64_t)rows);
    th_field(&o, &last, 4, 9);
    hyb_byte(&o, 1 << 4 | 12);
    l = 0;                    /* RowGroup */
    th_field(&o, &l, 1, 9);
    hyb_byte(&o, 1 << 4 | 12);
    int lc = 0;               /* ColumnChunk */
    th_i(&o, &lc, 2, 6, (int64_t)start);
    th_field(&o, &lc, 3, 12);
    int lm = 0;               /* ColumnMetaData */
    th_i(&o, &lm, 1, 5, 2);
    th_i(&o, &lm, 4, 5, 0);
    th_i(&o, &lm, 5, 6, (int64_t)rows);
    th_i(&o, &lm, 7, 6, (int64_t)chunk_size);
    th_i(&o, &lm, 9, 6, (int64_t)data_off);
    th_i(&o, &lm, 11, 6, (int64_t)start);
    hyb_byte(&o, 0);
    hyb_byte(&o, 0);
    th_i(&o, &l, 3, 6, (int64_t)rows);
    hyb_byte(&o, 0);
    hyb_byte(&o, 0);
    uint32_t flen = (uint32_t)(o.len - foot);
    for (int b = 0; b < 4; b++) hyb_byte(&o, (uint8_t)(flen >> (8 * b)));
    for (const char *m = "PAR1"; *m; m++) hyb_byte(&o, (uint8_t)*m);
    *size = o.len;
    return o.b;
}

static uint8_t *write_dict_object(uint64_t rows, uint64_t per_page, uint32_t dn, uint64_t plain_from, int nulls,
                                  int64_t *want, uint64_t *size) {
    return write_dict_object_at(rows, per_page, dn, plain_from, nulls, want, size, NULL);
}

static void dictionary_indices(void) {
    /* dictionary sizes on both sides of 256, widths 0..9; with and without a PLAIN fallback */
    static const uint32_t DN[] = {1, 2, 3, 17, 200, 256, 257, 300};
    for (size_t d = 0; d < sizeof DN / sizeof *DN; d++) {
        for (int fb = 0; fb < 4; fb++) {
            uint64_t rows = 3001, per_page = 500, size;
            int64_t *want = malloc(rows * sizeof *want);
            CHECK(want);
            uint8_t *obj = write_dict_object(rows, per_page, DN[d], fb & 1 ? 1500 : rows, fb < 2, want, &size);
            char err[256];
            csd_pq_file f;
            CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
            uint8_t *sel = malloc(rows);
            CHECK(sel);
            for (uint64_t r = 0; r < rows; r++) sel[r] = r / 500 == 1 || r / 500 == 4;
            for (int s = 0; s < 2; s++) {
                csd_pq_values a, b;
                if (csd_pq_read_sel(&f, obj, size, 0, 0, s ? sel : NULL, &a, err, sizeof err)) {
                    fprintf(stderr, "%s\n", err);
                    CHECK(0);
                }
                CHECK(csd_pq_read_ix(&f, obj, size, 0, 0, s ? sel : NULL, &b, err, sizeof err) == 0);
                /* indices kept only for a small dictionary used by every page */
                CHECK_EQ_INT(b.ix != NULL, DN[d] <= 256 && !(fb & 1));
                CHECK_EQ_U64(a.decoded, b.decoded);
                CHECK_EQ_U64(a.bytes_out, b.bytes_out);
                for (uint64_t r = 0; r < rows; r++) {
                    int in = !s || sel[r];   /* a skipped page's rows read as NULL */
                    CHECK_EQ_INT(a.valid[r], in && want[r] != INT64_MIN);
                    CHECK_EQ_INT(b.valid[r], a.valid[r]);
                    if (a.valid[r]) {
                        CHECK_EQ_INT(a.i[r], want[r]);
                        CHECK_EQ_INT(csd_pq_int(&b, r), want[r]);
                    }
                }
                csd_pq_values_free(&a);
                csd_pq_values_free(&b);
            }
            free(sel);
            csd_pq_close(&f);
            free(obj);
            free(want);
        }
    }
}

/* Two decodes of one chunk hold the same rows and counts. */
static void same_values(const csd_pq_values *a, const csd_pq_values *b) {
    CHECK_EQ_U64(a->n, b->n);
    CHECK_EQ_U64(a->decoded, b->decoded);
    CHECK_EQ_U64(a->bytes_out, b->bytes_out);
    CHECK_EQ_U64(a->pages, b->pages);
    CHECK_EQ_U64(a->skipped_values, b->skipped_values);
    CHECK_EQ_U64(a->skipped_bytes, b->skipped_bytes);
    CHECK_EQ_INT(a->ix != NULL, b->ix != NULL);
    for (uint64_t r = 0; r < a->n; r++) {
        CHECK_EQ_INT(a->valid[r], b->valid[r]);
        if (!a->valid[r]) continue;
        if (a->d) CHECK(memcmp(&a->d[r], &b->d[r], sizeof a->d[r]) == 0);
        else if (a->sp) CHECK(a->sn[r] == b->sn[r] && memcmp(a->sp[r], b->sp[r], a->sn[r]) == 0);
        else CHECK_EQ_INT(csd_pq_int(a, r), csd_pq_int(b, r));
    }
}

/* A plan over the object without its footer (gathered whole), on ht host threads. */
static tk_result run_plan_ht(plan_b *b, const uint8_t *obj, uint64_t size, uint32_t ht) {
    size_t len;
    uint8_t *packed = PB_pack(b, &len);
    csd_tasklet_args a = {0};
    a.plan = packed;
    a.plan_len = len;
    const csd_exec_host host = { ht, NULL };
    tk_host = &host;   /* the plan's columns decode on ht threads */
    tk_result r = tk_run_hooked(plan_ops, csd_builtin_hooks_of(plan_ops), &a, obj, size, NULL, 0, 4096, TK_BYTES_RAW, 0,
                                64u << 20);
    tk_host = NULL;
    free(packed);
    return r;
}

/* A chunk's data pages decoded on 1..4 threads (csd_pq_read_threads): the values written (brute
 * force: the generator's own), the counts and the failures are those of one thread; a failure is the
 * first in page order, whichever thread meets it first. */
static void page_threads(void) {
    const uint64_t rows = 20001, per_page = 100, npages = (rows + per_page - 1) / per_page;
    int64_t *want = malloc(rows * sizeof *want);
    uint64_t *page_at = malloc(npages * sizeof *page_at);
    uint8_t *sel = malloc(rows);
    CHECK(want && page_at && sel);
    for (uint64_t r = 0; r < rows; r++) sel[r] = r % 1700 < 90;   /* some pages, others skipped */
    char err[256];
    static const uint32_t DN[] = {17, 300};
    for (size_t d = 0; d < 2; d++) {
        for (int fb = 0; fb < 4; fb++) {
            uint64_t size;
            uint8_t *obj = write_dict_object_at(rows, per_page, DN[d], fb & 1 ? 9000 : rows, fb < 2, want, &size, page_at);
            csd_pq_file f;
            CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
            for (int s = 0; s < 2; s++) {
                csd_pq_values one;
                CHECK(csd_pq_read_threads(&f, obj, size, 0, 0, s ? sel : NULL, NULL, 1, 1, &one, err, sizeof err) == 0);
                /* the pages' least and greatest integers against the values written: one entry per
                 * decoded page in row order, taken where values (not indices) are held */
                uint64_t st_pages = 0, st_known = 0;
                for (uint64_t k = 0; k < one.n_pstat; k++) {
                    const csd_pq_pstat *q = &one.pstat[k];
                    CHECK_EQ_U64(q->first % per_page, 0);
                    CHECK(k == 0 || q->first > one.pstat[k - 1].first);
                    CHECK_EQ_U64(q->n, rows - q->first < per_page ? rows - q->first : per_page);
                    int64_t lo = INT64_MAX, hi = INT64_MIN;
                    uint64_t present = 0;
                    for (uint64_t r = q->first; r < q->first + q->n; r++)
                        if (want[r] != INT64_MIN) {
                            lo = want[r] < lo ? want[r] : lo;
                            hi = want[r] > hi ? want[r] : hi;
                            present++;
                        }
                    if (one.ix) {
                        CHECK(!q->known && !q->all_null);
                    } else {
                        CHECK_EQ_INT(q->known, present > 0);
                        CHECK_EQ_INT(q->all_null, present == 0);
                        if (present) {
                            CHECK_EQ_INT(q->min, lo);
                            CHECK_EQ_INT(q->max, hi);
                        }
                    }
                    st_pages++;
                    st_known += (uint64_t)q->known;
                }
                uint64_t want_pages = 0;
                for (uint64_t pg = 0; pg < npages; pg++) {
                    int any = !s;
                    for (uint64_t r = pg * per_page; r < rows && r < (pg + 1) * per_page && !any; r++) any = sel[r];
                    want_pages += (uint64_t)any;
                }
                CHECK_EQ_U64(st_pages, want_pages);
                CHECK(one.ix || st_known == st_pages);
                for (uint64_t r = 0; r < rows; r++) {
                    /* a page with a selected row decodes whole; the others' rows read as NULL */
                    int in = !s;
                    for (uint64_t q = r / per_page * per_page; q < rows && q / per_page == r / per_page && !in; q++)
                        in = sel[q];
                    CHECK_EQ_INT(one.valid[r], in && want[r] != INT64_MIN);
                    if (one.valid[r]) CHECK_EQ_INT(csd_pq_int(&one, r), want[r]);
                }
                for (int t = 2; t <= 4; t++) {
                    csd_pq_values v;
                    CHECK(csd_pq_read_threads(&f, obj, size, 0, 0, s ? sel : NULL, NULL, t, t & 1, &v, err, sizeof err) == 0);
                    same_values(&one, &v);
                    csd_pq_values_free(&v);
                }
                csd_pq_values_free(&one);
            }
            /* failures: a body (its levels' length past the page) at page 40, a header (a STOP where
             * the header starts) at page 150: each alone, then both (page 40's is the chunk's) */
            uint8_t *bad = malloc(size);
            CHECK(bad);
            for (int k = 0; k < 3; k++) {
                memcpy(bad, obj, size);
                if (k != 1) {
                    /* the body follows the header: find its levels' length, the 4 bytes before the
                     * levels, by re-reading the page as the writer laid it out */
                    uint64_t at = page_at[40];
                    /* the header ends with two STOP bytes (subheader, header) */
                    while (!(bad[at] == 0 && bad[at + 1] == 0)) at++;
                    memset(bad + at + 2, 0xFF, 4);
                }
                if (k != 0) bad[page_at[150]] = 0;
                char want_err[256] = "";
                if (k == 1) snprintf(want_err, sizeof want_err, "corrupt Parquet page header in row group 0 column 'x' "
                                     "at offset %llu", (unsigned long long)page_at[150]);
                else snprintf(want_err, sizeof want_err, "corrupt Parquet data page in row group 0 column 'x'");
                for (int t = 1; t <= 4; t++) {
                    csd_pq_values v;
                    err[0] = 0;
                    CHECK_EQ_INT(csd_pq_read_threads(&f, bad, size, 0, 0, NULL, NULL, t, 1, &v, err, sizeof err), -EINVAL);
                    if (strcmp(err, want_err)) fprintf(stderr, "threads %d: '%s', want '%s'\n", t, err, want_err);
                    CHECK(strcmp(err, want_err) == 0);
                }
            }
            free(bad);
            csd_pq_close(&f);
            free(obj);
        }
    }
    /* Spark's objects (snappy and dictionaries, zstd PLAIN, gzip pages v2, small pages, strings):
     * every column of every row group alike on 1, 2 and 4 threads */
    for (size_t fi = 0; fi < sizeof FILES / sizeof *FILES; fi++) {
        char fname[64];
        snprintf(fname, sizeof fname, "%s.parquet", FILES[fi]);
        uint64_t size;
        uint8_t *obj = load(fname, &size);
        csd_pq_file f;
        CHECK(csd_pq_open(&f, obj, size, err, sizeof err) == 0);
        for (uint32_t g = 0; g < f.n_rgs; g++)
            for (uint32_t c = 0; c < f.n_leaves; c++) {
                csd_pq_values one, v;
                CHECK(csd_pq_read_threads(&f, obj, size, g, c, NULL, NULL, 1, 1, &one, err, sizeof err) == 0);
                for (int t = 2; t <= 4; t += 2) {
                    CHECK(csd_pq_read_threads(&f, obj, size, g, c, NULL, NULL, t, 1, &v, err, sizeof err) == 0);
                    same_values(&one, &v);
                    csd_pq_values_free(&v);
                }
                csd_pq_values_free(&one);
            }
        /* the whole plan on 1, 2 and 4 host threads, the object intact and with bytes of its column
         * chunks changed (a corrupt page in any chunk, the second among them): the same rows, finish
         * cycles, status and message */
        uint64_t state = 0x2545f4914f6cdd1dull + fi;
        int failed = 0;
        uint8_t *bad = malloc(size);
        CHECK(bad);
        for (int k = 0; k < 60; k++) {
            memcpy(bad, obj, size);
            if (k) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                const csd_pq_chunk *ch = &f.rgs[state % f.n_rgs].chunks[k % 2 ? 1 : (state >> 20) % f.n_leaves];
                for (int e = 0; e < 3; e++) {
                    uint64_t at = ch->start + (state >> (8 + 8 * e)) % ch->size;
                    bad[at] ^= (uint8_t)(0x5a + e);
                }
            }
            tk_result r[3];
            for (int t = 0; t < 3; t++) {
                plan_b b;
                init_parquet(&b);
                add_cols(&b);
                add_name_groupby(&b);
                PB_agg(&b, SMARTSSD__V1__AGG_FN__SUM, E_col(ID));
                r[t] = run_plan_ht(&b, bad, size, t == 0 ? 1 : t == 1 ? 2 : 4);
                pb_free_all();
            }
            if (!k) CHECK_EQ_INT(r[0].rc, 0);
            failed += r[0].rc != 0;
            for (int t = 1; t < 3; t++) {
                CHECK_EQ_INT(r[t].rc, r[0].rc);
                CHECK(strcmp(r[t].err, r[0].err) == 0);
                CHECK(strcmp(r[t].text.s, r[0].text.s) == 0);
                CHECK_EQ_U64(r[t].finish_cycles, r[0].finish_cycles);
            }
            for (int t = 0; t < 3; t++) tk_result_free(&r[t]);
        }
        CHECK(failed > 0);   /* some of the changes are refused: the failure paths were compared */
        free(bad);
        csd_pq_close(&f);
        free(obj);
    }
    free(sel);
    free(page_at);
    free(want);
}

/* The column filter runs over blocks of rows (16 Ki): a row group of 2.5 blocks and 5 rows, with
 * NULLs, dictionary indices or values (a PLAIN fallback half way), must give the rows and the charged
 * cycles brute force gives over the values written, block edges included. */
static void filter_blocks(void) {
    for (int fb = 0; fb < 4; fb++) {
        uint64_t rows = 2 * 16384 + 8192 + 5, size;
        int64_t *want = malloc(rows * sizeof *want);
        CHECK(want);
        uint8_t *obj = write_dict_object(rows, 3000, 20, fb & 1 ? rows / 2 : rows, fb < 2, want, &size);
        uint64_t want_rows = 0, want_cycles = 0;
        for (uint64_t r = 0; r < rows; r++) {
            /* (x IS NULL OR x < 930) AND NOT (x >= 979) */
            int xnull = want[r] == INT64_MIN;
            int a = xnull || want[r] < 930;
            uint64_t nodes = 1 + (1 + 2 + (xnull ? 0 : 3)) + (a ? 1 + 3 : 0);
            int pass = a && !xnull && !(want[r] >= 979);
            /* NOT (NULL >= 979) is NULL: the AND does not pass it */
            want_cycles += 2 + 4 + 3 * nodes + (pass ? 3 + 40 : 0);
            want_rows += (uint64_t)pass;
        }
        CHECK(want_rows > 0 && want_rows < rows);
        plan_b b;
        init_parquet(&b);
        PB_col(&b, C_text("x", 1, 0));
        b.p.filter = AND(OR(E_un(UOP(IS_NULL), E_col(0)), E_bin(OP(LT), E_col(0), E_i(930))),
                         E_un(UOP(NOT), E_bin(OP(GE), E_col(0), E_i(979))));
        PB_project(&b, E_col(0));
        tk_result r = run_plan(&b, obj, size, NULL, 0);
        CHECK(r.rc == 0);
        CHECK_EQ_U64(r.rows, want_rows);
        CHECK_EQ_U64(r.finish_cycles, want_cycles);
        tk_result_free(&r);
        pb_free_all();
        free(obj);
        free(want);
    }
}

/* ------------------------------------------------------------------ the buffer pool */

/* Take every kept region whose size some get can match, fill it with 0xAB and give it back: the next
 * request reuses memory holding another's bytes, as on a device. */
static void poison(csd_bufpool *bp) {
    void *held[256];
    size_t sz[256], n = 0;
    int hg[256];
    for (int huge = 0; huge < 2; huge++)
        for (size_t m = (size_t)64 << 20; m >= 4096 && n < 256; m /= 2) {
            for (;;) {
                csd_bufpool_stats a, b;
                csd_bufpool_get_stats(bp, &a);
                if (!a.kept || n == 256) break;
                void *p = csd_bufpool_get(bp, m, huge, 0);
                csd_bufpool_get_stats(bp, &b);
                if (b.hits == a.hits) {   /* a new region: none kept of this size */
                    csd_bufpool_put(bp, p, m, huge);
                    break;
                }
                memset(p, 0xAB, m);
                held[n] = p;
                hg[n] = huge;
                sz[n++] = m;
            }
        }
    for (size_t k = 0; k < n; k++) csd_bufpool_put(bp, held[k], sz[k], hg[k]);
}

typedef struct pool_req {
    uint8_t *packed;
    size_t plen;
    const uint8_t *obj;
    uint64_t size;
    tk_result want;          /* without a pool */
} pool_req;

typedef struct pool_worker {
    pool_req *reqs;
    size_t n, first;
    csd_bufpool *bp;
    int bad;
} pool_worker;

static void *pool_thread(void *arg) {
    pool_worker *w = arg;
    for (size_t k = 0; k < 3 * w->n; k++) {
        pool_req *q = &w->reqs[(w->first + k) % w->n];
        uint64_t nd;
        tk_result r = run_packed(q->packed, q->plen, q->obj, q->size, 4096, &nd, w->bp);
        if (r.rc || strcmp(r.text.s, q->want.text.s) || r.finish_cycles != q->want.finish_cycles) w->bad++;
        tk_result_free(&r);
    }
    return NULL;
}

static void buffer_pool(void) {
    /* the pool itself: a kept region comes back zeroed when asked, whatever it held */
    csd_bufpool *bp = csd_bufpool_new((size_t)1 << 20, 4096);
    CHECK(bp && !csd_bufpool_new(1 << 20, 1000));
    uint8_t *p = csd_bufpool_get(bp, 10000, 0, 0);
    memset(p, 0xAB, 10000);
    csd_bufpool_put(bp, p, 10000, 0);
    csd_bufpool_stats st;
    csd_bufpool_get_stats(bp, &st);
    CHECK_EQ_U64(st.kept, 12288);
    CHECK_EQ_U64(st.misses, 1);
    uint8_t *q = csd_bufpool_get(bp, 9000, 0, 1);   /* 12288 bytes: the kept region */
    CHECK(q == p);
    for (size_t k = 0; k < 9000; k++) CHECK(q[k] == 0);
    uint8_t *big = csd_bufpool_get(bp, 40000, 0, 1);   /* none kept this big: a new one */
    csd_bufpool_get_stats(bp, &st);
    CHECK_EQ_U64(st.hits, 1);
    CHECK_EQ_U64(st.misses, 2);
    CHECK_EQ_U64(st.kept, 0);
    uint8_t *small = csd_bufpool_get(bp, 100, 0, 1);   /* under min: heap memory, not counted */
    CHECK(small && small[99] == 0);
    csd_bufpool_put(bp, small, 100, 0);
    csd_bufpool_put(bp, q, 9000, 0);
    /* a get of 8192 takes the 12288-byte region, not the 40960-byte one (twice its size at most) */
    csd_bufpool_put(bp, big, 40000, 0);
    uint8_t *x = csd_bufpool_get(bp, 8192, 0, 0);
    CHECK(x == p);
    csd_bufpool_put(bp, x, 8192, 0);
    uint8_t *y = csd_bufpool_get(bp, 4096, 0, 0);   /* neither: 12288 > 2 * 4096 */
    CHECK(y != p && y != big);
    csd_bufpool_put(bp, y, 4096, 0);
    csd_bufpool_get_stats(bp, &st);
    CHECK_EQ_U64(st.mapped, 12288 + 40960 + 4096);
    CHECK_EQ_U64(st.kept, st.mapped);
    /* beyond keep, a region given back is unmapped */
    uint8_t *huge = csd_bufpool_get(bp, (size_t)2 << 20, 1, 1);
    CHECK(huge && ((uintptr_t)huge & (((uintptr_t)2 << 20) - 1)) == 0);
    csd_bufpool_put(bp, huge, (size_t)2 << 20, 1);
    csd_bufpool_get_stats(bp, &st);
    CHECK_EQ_U64(st.mapped, 12288 + 40960 + 4096);
    csd_bufpool_free(bp);

    /* requests over objects of different sizes, every query, one pool with a small min so every
     * array and object buffer comes from it, poisoned between requests: the same rows and finish
     * cycles as with fresh memory, one request after another and on 4 threads at once */
    pool_req reqs[64];
    size_t n = 0;
    uint8_t *objs[sizeof FILES / sizeof *FILES];
    for (size_t f = 0; f < sizeof FILES / sizeof *FILES; f++) {
        char fname[64];
        snprintf(fname, sizeof fname, "%s.parquet", FILES[f]);
        uint64_t size;
        objs[f] = load(fname, &size);
        for (size_t k = 0; k < sizeof QUERIES / sizeof *QUERIES && n < 64; k++) {
            plan_b b;
            init_parquet(&b);
            add_cols(&b);
            QUERIES[k].fn(&b);
            with_footer(&b, objs[f], size);
            pool_req *r = &reqs[n++];
            r->packed = PB_pack(&b, &r->plen);
            r->obj = objs[f];
            r->size = size;
            uint64_t nd;
            r->want = run_packed(r->packed, r->plen, r->obj, r->size, 4096, &nd, NULL);
            CHECK(r->want.rc == 0);
            pb_free_all();
        }
    }
    bp = csd_bufpool_new((size_t)64 << 20, 4096);
    for (int round = 0; round < 2; round++)
        for (size_t k = 0; k < n; k++) {
            poison(bp);
            uint64_t nd;
            tk_result r = run_packed(reqs[k].packed, reqs[k].plen, reqs[k].obj, reqs[k].size, 4096, &nd, bp);
            CHECK(r.rc == 0);
            tk_check_text(r.text.s, reqs[k].want.text.s, "pooled request");
            CHECK_EQ_U64(r.finish_cycles, reqs[k].want.finish_cycles);
            tk_result_free(&r);
        }
    csd_bufpool_get_stats(bp, &st);
    CHECK(st.hits > n);             /* the requests did reuse regions */
    CHECK_EQ_U64(st.kept, st.mapped);   /* every region given back */
    poison(bp);
    pool_worker w[4];
    pthread_t th[4];
    for (int t = 0; t < 4; t++) {
        w[t] = (pool_worker){ reqs, n, (size_t)t * 5, bp, 0 };
        CHECK(pthread_create(&th[t], NULL, pool_thread, &w[t]) == 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        CHECK_EQ_U64(w[t].bad, 0);
    }
    csd_bufpool_get_stats(bp, &st);
    CHECK_EQ_U64(st.kept, st.mapped);
    csd_bufpool_free(bp);
    for (size_t k = 0; k < n; k++) {
        free(reqs[k].packed);
        tk_result_free(&reqs[k].want);
    }
    for (size_t f = 0; f < sizeof FILES / sizeof *FILES; f++) free(objs[f]);
}

int main(void) {
    plan_ops = csd_tasklet_find("plan");
    CHECK(plan_ops);
    rle_decoder();
    index_columns();
    dictionary_indices();
    page_threads();
    filter_blocks();
    footer_and_skipping();
    column_filter_costs();
    direct_topn_costs();
    row_group_requests();
    differential();
    selected_pages();
    refusals();
    corruptions();
    on_device();
    buffer_pool();
    printf("test_parquet: ok\n");
    return 0;
}
