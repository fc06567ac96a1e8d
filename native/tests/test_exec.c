/* Framing rules of an execution, checked with a probe tasklet that logs every record/line it gets
 * against an independent reference (the object split on '\n', or cut every R bytes, in one piece). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/exec.h"
#include "smartssd/v1/device.pb-c.h"

/* ------------------------------------------------------------------ the probe tasklet */

typedef struct item {
    uint64_t off;
    size_t len;
    uint8_t *bytes;
} item;

typedef struct item_list {
    item *v;
    size_t n, cap;
} item_list;

static void items_add(item_list *l, uint64_t off, const uint8_t *p, size_t len) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        CHECK(l->v);
    }
    item *it = &l->v[l->n++];
    it->off = off;
    it->len = len;
    it->bytes = malloc(len + 1);
    CHECK(it->bytes);
    if (len) memcpy(it->bytes, p, len);
}

static void items_free(item_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i].bytes);
    free(l->v);
    memset(l, 0, sizeof *l);
}

typedef struct probe_cfg {
    csd_framing fr;
    item_list *log;            /* every item delivered */
    uint64_t *hook_pages;      /* page() calls, in order */
    size_t n_hooks, cap_hooks;
    uint32_t page_bytes;       /* to check the page hook precedes each item of its page */
    int skip_marker;           /* >= 0: an item starting with this byte returns CSD_SKIP_PAGE */
    int hook_skip_page;        /* >= 0: page() of this page returns CSD_SKIP_PAGE */
    size_t stop_after;         /* > 0: return CSD_STOP after this many items */
    int emit_rows;             /* emit (offset, bytes) per item, and honour row_end's answer */
    int fail_at;               /* >= 0: csd_io_fail on the item at this offset */
    int finish_rows;           /* rows emitted by finish */
    int finished;              /* finish() ran */
} probe_cfg;

typedef struct probe {
    probe_cfg *cfg;
    size_t seen;
    int has_hook;
    uint64_t last_hook;
} probe;

static int probe_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err,
                      size_t errlen) {
    probe_cfg *cfg = (probe_cfg *)(uintptr_t)args->plan;
    if (!cfg) {
        snprintf(err, errlen, "probe needs a config");
        return -EINVAL;
    }
    probe *p = calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->cfg = cfg;
    *framing = cfg->fr;
    *state = p;
    return 0;
}

static int probe_page(void *state, csd_tasklet_io *io, uint64_t page_index) {
    probe *p = state;
    probe_cfg *c = p->cfg;
    if (c->n_hooks == c->cap_hooks) {
        c->cap_hooks = c->cap_hooks ? c->cap_hooks * 2 : 64;
        c->hook_pages = realloc(c->hook_pages, c->cap_hooks * sizeof *c->hook_pages);
        CHECK(c->hook_pages);
    }
    c->hook_pages[c->n_hooks++] = page_index;
    p->has_hook = 1;
    p->last_hook = page_index;
    return (int64_t)page_index == c->hook_skip_page ? CSD_SKIP_PAGE : 0;
}

static int probe_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    probe *p = state;
    probe_cfg *c = p->cfg;
    /* the page hook of the page where this item starts came before it */
    CHECK(p->has_hook);
    CHECK_EQ_U64(p->last_hook, off / c->page_bytes);
    CHECK(rec != NULL);
    items_add(c->log, off, rec, len);
    csd_io_charge(io, 1, 2);
    p->seen++;
    if (c->fail_at >= 0 && off == (uint64_t)c->fail_at) {
        csd_io_fail(io, "probe failed at offset %llu", (unsigned long long)off);
        return -EDOM;
    }
    if (c->emit_rows) {
        csd_io_row_begin(io);
        csd_io_val_int(io, (int64_t)off);
        csd_io_val_bytes(io, rec, len);
        int rc = csd_io_row_end(io);
        if (rc) return rc;
    }
    if (c->skip_marker >= 0 && len > 0 && rec[0] == c->skip_marker) return CSD_SKIP_PAGE;
    if (c->stop_after && p->seen >= c->stop_after) return CSD_STOP;
    return 0;
}

static int probe_finish(void *state, csd_tasklet_io *io) {
    probe *p = state;
    p->cfg->finished = 1;
    csd_io_charge(io, 1000, 7);
    for (int i = 0; i < p->cfg->finish_rows; i++) {
        csd_io_row_begin(io);
        csd_io_val_str(io, "done");
        csd_io_val_double(io, 1.5);
        csd_io_val_bool(io, 1);
        csd_io_val_null(io);
        csd_io_val_int(io, -i);
        int rc = csd_io_row_end(io);
        if (rc < 0) return rc;
    }
    return 0;
}

static void probe_destroy(void *state) { free(state); }

static const csd_tasklet_ops probe_ops = {
    .name = "probe", .summary = "logs its input", .init = probe_init, .page = probe_page,
    .record = probe_record, .finish = probe_finish, .destroy = probe_destroy,
};

static void cfg_init(probe_cfg *c, item_list *log, csd_framing_kind kind, uint32_t R, uint32_t P) {
    memset(c, 0, sizeof *c);
    c->fr.kind = kind;
    c->fr.record_bytes = R;
    c->log = log;
    c->page_bytes = P;
    c->skip_marker = -1;
    c->hook_skip_page = -1;
    c->fail_at = -1;
}

/* ------------------------------------------------------------------ driving an extent like the engine */

typedef struct run_result {
    int rc_begin, rc_feed, rc_finish;
    char err[512];
    uint64_t first_page, last_page, pages_fed;
    uint64_t pages_needed;     /* pages fed when need_more first became 0 */
    uint64_t cost_cycles, cost_dram, finish_cycles, finish_dram;
} run_result;

/* Feed pages first..last, then more while need_more, then finish. */
static run_result run_extent(probe_cfg *cfg, csd_outbuf *ob, const uint8_t *obj, uint64_t size,
                             uint64_t off, uint64_t len, uint32_t P) {
    run_result r;
    memset(&r, 0, sizeof r);
    csd_tasklet_args args = {0};
    args.plan = (const uint8_t *)(uintptr_t)cfg;
    args.page_bytes = P;
    csd_exec *t;
    CHECK_EQ_INT(csd_exec_create(&t, &probe_ops, &args, ob, r.err, sizeof r.err), 0);
    r.rc_begin = csd_exec_begin(t, size, off, len, P, &r.first_page, &r.last_page, r.err, sizeof r.err);
    if (r.rc_begin) {
        csd_exec_destroy(t);
        return r;
    }
    uint64_t max_page = size ? (size - 1) / P : 0;
    int need_more = r.last_page >= r.first_page;
    for (uint64_t pg = r.first_page; need_more || pg <= r.last_page; pg++) {
        if (r.last_page < r.first_page || pg > max_page) break;
        uint64_t base = pg * P;
        size_t n = (size_t)(size - base < P ? size - base : P);
        csd_cost c = {0, 0};
        int rc = csd_exec_feed(t, pg, obj + base, n, &c, &need_more);
        r.pages_fed++;
        if (!need_more && !r.pages_needed) r.pages_needed = r.pages_fed;
        r.cost_cycles += c.cycles;
        r.cost_dram += c.dram_accesses;
        if (rc) {
            r.rc_feed = rc;
            snprintf(r.err, sizeof r.err, "%s", csd_exec_error(t));
            csd_exec_destroy(t);
            return r;
        }
        /* records never need pages past last_page */
        if (cfg->fr.kind == CSD_FRAMING_RECORDS && pg == r.last_page) CHECK(!need_more);
    }
    csd_cost fc = {0, 0};
    r.rc_finish = csd_exec_finish(t, &fc);
    r.finish_cycles = fc.cycles;
    r.finish_dram = fc.dram_accesses;
    if (r.rc_finish) snprintf(r.err, sizeof r.err, "%s", csd_exec_error(t));
    else CHECK_STR(csd_exec_error(t), "");
    csd_exec_destroy(t);
    return r;
}

/* ------------------------------------------------------------------ references */

/* Lines of the whole object: split on '\n', drop one trailing '\r', a final unterminated line counts. */
static void ref_lines(const uint8_t *obj, uint64_t size, int skip_header, item_list *out) {
    uint64_t s = 0;
    while (s < size) {
        uint64_t e = s;
        while (e < size && obj[e] != '\n') e++;
        size_t n = (size_t)(e - s);
        if (n && obj[s + n - 1] == '\r') n--;
        if (!(skip_header && s == 0)) items_add(out, s, obj + s, n);
        s = e + 1;
    }
}

static void ref_records(const uint8_t *obj, uint64_t size, uint32_t R, item_list *out) {
    for (uint64_t s = 0; s + R <= size; s += R) items_add(out, s, obj + s, R);
}

static void check_same(const item_list *got, const item_list *want, const char *what) {
    if (got->n != want->n) {
        fprintf(stderr, "%s: got %zu items, want %zu\n", what, got->n, want->n);
        for (size_t i = 0; i < got->n && i < 40; i++)
            fprintf(stderr, "  got off %llu len %zu\n", (unsigned long long)got->v[i].off, got->v[i].len);
        for (size_t i = 0; i < want->n && i < 40; i++)
            fprintf(stderr, "  want off %llu len %zu\n", (unsigned long long)want->v[i].off, want->v[i].len);
    }
    CHECK_EQ_U64(got->n, want->n);
    for (size_t i = 0; i < got->n; i++) {
        if (got->v[i].off != want->v[i].off || got->v[i].len != want->v[i].len ||
            memcmp(got->v[i].bytes, want->v[i].bytes, got->v[i].len)) {
            fprintf(stderr, "%s: item %zu differs: got off %llu len %zu, want off %llu len %zu\n", what, i,
                    (unsigned long long)got->v[i].off, got->v[i].len, (unsigned long long)want->v[i].off,
                    want->v[i].len);
            exit(1);
        }
    }
}

/* Run consecutive extents cut at cuts[0..ncuts) (ascending, inside (0, size)) and compare the union. */
static void check_split(const uint8_t *obj, uint64_t size, csd_framing_kind kind, uint32_t R, int skip_header,
                        uint32_t P, const uint64_t *cuts, size_t ncuts, const item_list *want) {
    item_list got = {0};
    uint64_t prev = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        uint64_t e = i < ncuts ? cuts[i] : size;
        probe_cfg cfg;
        cfg_init(&cfg, &got, kind, R, P);
        cfg.fr.skip_header = skip_header;
        csd_outbuf ob;
        csd_outbuf_init(&ob, 0, 0);
        size_t before = got.n;
        run_result r = run_extent(&cfg, &ob, obj, size, prev, e - prev, P);
        if (r.rc_begin || r.rc_feed || r.rc_finish) fprintf(stderr, "run failed: %s\n", r.err);
        CHECK_EQ_INT(r.rc_begin, 0);
        CHECK_EQ_INT(r.rc_feed, 0);
        CHECK_EQ_INT(r.rc_finish, 0);
        CHECK(cfg.finished);
        /* per-item charges land in the page costs, finish's in the finish cost */
        CHECK_EQ_U64(r.cost_cycles, got.n - before);
        CHECK_EQ_U64(r.cost_dram, 2 * (got.n - before));
        CHECK_EQ_U64(r.finish_cycles, 1000);
        CHECK_EQ_U64(r.finish_dram, 7);
        /* every item comes from its own extent, in order */
        for (size_t k = before; k < got.n; k++) {
            CHECK(got.v[k].off >= prev && got.v[k].off < e);
            if (k > before) CHECK(got.v[k].off > got.v[k - 1].off);
        }
        if (e == prev) CHECK(r.last_page < r.first_page);
        free(cfg.hook_pages);
        csd_outbuf_free(&ob);
        prev = e;
    }
    char what[128];
    snprintf(what, sizeof what, "split %zu cuts P=%u kind=%d", ncuts, P, (int)kind);
    check_same(&got, want, what);
    items_free(&got);
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Text with empty lines, CRLF lines, long lines and '\r' in the middle. */
static uint8_t *make_text(uint64_t *seed, size_t size, int long_lines) {
    uint8_t *b = malloc(size + 1);
    CHECK(b);
    size_t i = 0;
    while (i < size) {
        uint64_t r = rng_next(seed);
        size_t n = long_lines && r % 7 == 0 ? 50 + r % 400 : r % 12;
        for (size_t k = 0; k < n && i < size; k++) b[i++] = (uint8_t)('a' + (rng_next(seed) % 26));
        if (i < size && r % 5 == 0) b[i++] = '\r';
        if (i < size && r % 11 == 3) b[i++] = '\r';  /* a bare '\r' stays inside the line */
        if (i < size) b[i++] = '\n';
    }
    return b;
}

/* ------------------------------------------------------------------ tests */

static void test_lines_exhaustive(void) {
    const char *text = "alpha\nbe\r\n\n\ngamma delta epsilon zeta eta theta\nx\ny\r\nlast one without newline";
    uint64_t size = strlen(text);
    const uint8_t *obj = (const uint8_t *)text;
    for (int skip = 0; skip <= 1; skip++) {
        item_list want = {0};
        ref_lines(obj, size, skip, &want);
        CHECK_EQ_U64(want.n, skip ? 7 : 8);
        for (uint32_t P = 1; P <= 13; P += (P < 4 ? 1 : 3)) {
            check_split(obj, size, CSD_FRAMING_LINES, 0, skip, P, NULL, 0, &want);
            for (uint64_t a = 0; a <= size; a++) {
                uint64_t c1[1] = {a};
                check_split(obj, size, CSD_FRAMING_LINES, 0, skip, P, c1, 1, &want);
                if (P != 7) continue;
                for (uint64_t b = a; b <= size; b++) {
                    uint64_t c2[2] = {a, b};
                    check_split(obj, size, CSD_FRAMING_LINES, 0, skip, P, c2, 2, &want);
                }
            }
        }
        items_free(&want);
    }
}

static void test_lines_random(void) {
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 40; round++) {
        size_t size = 200 + rng_next(&seed) % 3000;
        uint8_t *obj = make_text(&seed, size, 1);
        if (round % 3 == 0) obj[size - 1] = 'z';     /* no final newline */
        uint32_t P = (uint32_t)(16 + rng_next(&seed) % 100);
        int skip = round % 4 == 1;
        item_list want = {0};
        ref_lines(obj, size, skip, &want);
        uint64_t cuts[16];
        size_t nc = rng_next(&seed) % 16;
        for (size_t i = 0; i < nc; i++) cuts[i] = rng_next(&seed) % (size + 1);
        for (size_t i = 1; i < nc; i++)   /* insertion sort */
            for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                uint64_t x = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = x;
            }
        check_split(obj, size, CSD_FRAMING_LINES, 0, skip, P, cuts, nc, &want);
        items_free(&want);
        free(obj);
    }
}

/* One line spanning many pages; an extent that starts inside it owns nothing but must still read
 * on to find where the next line starts. */
static void test_long_line(void) {
    size_t size = 1000;
    uint8_t *obj = malloc(size);
    memset(obj, 'q', size);
    obj[5] = '\n';
    obj[900] = '\n';
    item_list want = {0};
    ref_lines(obj, size, 0, &want);
    CHECK_EQ_U64(want.n, 3);
    CHECK_EQ_U64(want.v[1].len, 894);
    uint32_t P = 64;
    check_split(obj, size, CSD_FRAMING_LINES, 0, 0, P, NULL, 0, &want);
    /* the extent [6, 70) owns the long line and must read to page 14 to finish it */
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_LINES, 0, P);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    run_result r = run_extent(&cfg, &ob, obj, size, 6, 64, P);
    CHECK_EQ_INT(r.rc_feed, 0);
    CHECK_EQ_U64(r.first_page, 0);
    CHECK_EQ_U64(r.last_page, 1);
    CHECK_EQ_U64(r.pages_fed, 900 / P + 1);
    CHECK_EQ_U64(got.n, 1);
    CHECK_EQ_U64(got.v[0].off, 6);
    CHECK_EQ_U64(got.v[0].len, 894);
    items_free(&got);
    free(cfg.hook_pages);
    /* the extent [100, 200) starts inside it: no lines, but it reads up to the '\n' at 900 */
    cfg_init(&cfg, &got, CSD_FRAMING_LINES, 0, P);
    r = run_extent(&cfg, &ob, obj, size, 100, 100, P);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK_EQ_U64(got.n, 0);
    CHECK_EQ_U64(r.pages_fed, 900 / P - 99 / P + 1);
    free(cfg.hook_pages);
    csd_outbuf_free(&ob);
    items_free(&want);
    free(obj);
}

static void test_crlf_and_eof(void) {
    const char *text = "a\r\nb\r\r\nc\r";
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_LINES, 0, 4);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    run_result r = run_extent(&cfg, &ob, (const uint8_t *)text, strlen(text), 0, strlen(text), 4);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK_EQ_U64(got.n, 3);
    CHECK(got.v[0].len == 1 && got.v[0].bytes[0] == 'a');
    CHECK(got.v[1].len == 2 && !memcmp(got.v[1].bytes, "b\r", 2));   /* only one '\r' is stripped */
    CHECK(got.v[2].len == 1 && got.v[2].bytes[0] == 'c' && got.v[2].off == 7);
    items_free(&got);
    free(cfg.hook_pages);
    /* an empty object and an empty extent: nothing fed, finish still runs */
    cfg_init(&cfg, &got, CSD_FRAMING_LINES, 0, 4);
    r = run_extent(&cfg, &ob, (const uint8_t *)"", 0, 0, 0, 4);
    CHECK(r.last_page < r.first_page);
    CHECK_EQ_U64(r.pages_fed, 0);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK(cfg.finished);
    CHECK_EQ_U64(got.n, 0);
    free(cfg.hook_pages);
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 4, 4);
    r = run_extent(&cfg, &ob, (const uint8_t *)"", 0, 0, 0, 4);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK(cfg.finished);
    free(cfg.hook_pages);
    /* a record extent too short to own a record start is empty */
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 8);
    r = run_extent(&cfg, &ob, (const uint8_t *)"0123456789abcdefghij", 20, 1, 8, 8);
    CHECK(r.last_page < r.first_page);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK_EQ_U64(got.n, 0);
    free(cfg.hook_pages);
    csd_outbuf_free(&ob);
}

static void test_records(void) {
    uint64_t seed = 12345;
    const uint32_t Rs[] = {1, 3, 5, 20, 32, 64, 100};
    for (size_t ri = 0; ri < sizeof Rs / sizeof Rs[0]; ri++) {
        uint32_t R = Rs[ri];
        uint64_t size = (uint64_t)R * (R < 10 ? 37 : 23);
        uint8_t *obj = malloc(size);
        for (uint64_t i = 0; i < size; i++) obj[i] = (uint8_t)rng_next(&seed);
        item_list want = {0};
        ref_records(obj, size, R, &want);
        const uint32_t Ps[] = {7, 16, 64, 4096};
        for (size_t pi = 0; pi < 4; pi++) {
            uint32_t P = Ps[pi];
            check_split(obj, size, CSD_FRAMING_RECORDS, R, 0, P, NULL, 0, &want);
            /* exhaustive single cut for small objects, random multi-cuts otherwise */
            if (size <= 200)
                for (uint64_t a = 0; a <= size; a++)
                    check_split(obj, size, CSD_FRAMING_RECORDS, R, 0, P, &a, 1, &want);
            for (int k = 0; k < 20; k++) {
                uint64_t cuts[8];
                size_t nc = 1 + rng_next(&seed) % 8;
                for (size_t i = 0; i < nc; i++) cuts[i] = rng_next(&seed) % (size + 1);
                for (size_t i = 1; i < nc; i++)
                    for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                        uint64_t x = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = x;
                    }
                check_split(obj, size, CSD_FRAMING_RECORDS, R, 0, P, cuts, nc, &want);
            }
        }
        items_free(&want);
        free(obj);
    }
    /* pages needed by a record extent: records of 20 bytes, pages of 16; [25, 65) owns the records at
     * 40 and 60, which occupy bytes [40, 80): pages 2..4 */
    uint8_t obj[200];
    memset(obj, 7, sizeof obj);
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 20, 16);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    run_result r = run_extent(&cfg, &ob, obj, 200, 25, 40, 16);
    CHECK_EQ_U64(r.first_page, 2);
    CHECK_EQ_U64(r.last_page, 4);
    CHECK_EQ_U64(got.n, 2);
    CHECK_EQ_U64(got.v[0].off, 40);
    CHECK_EQ_U64(got.v[1].off, 60);
    /* the page hook: record 40 starts on page 2, record 60 on page 3 */
    CHECK_EQ_U64(cfg.n_hooks, 2);
    CHECK_EQ_U64(cfg.hook_pages[0], 2);
    CHECK_EQ_U64(cfg.hook_pages[1], 3);
    items_free(&got);
    free(cfg.hook_pages);
    csd_outbuf_free(&ob);
}

static void test_size_not_multiple(void) {
    uint8_t obj[1000] = {0};
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 32, 4096);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    run_result r = run_extent(&cfg, &ob, obj, 1000, 0, 1000, 4096);
    CHECK_EQ_INT(r.rc_begin, -EINVAL);
    CHECK_STR(r.err, "object size 1000 is not a multiple of entry_bytes 32");
    /* an extent past the end */
    r = run_extent(&cfg, &ob, obj, 992, 900, 100, 4096);
    CHECK_EQ_INT(r.rc_begin, -ERANGE);
    CHECK_CONTAINS(r.err, "past the end");
    csd_outbuf_free(&ob);
    free(cfg.hook_pages);
}

/* CSD_SKIP_PAGE from record(): the rest of the items starting in that page are not delivered. */
static void test_skip_page(void) {
    uint64_t seed = 99;
    for (int kind = 0; kind < 2; kind++) {
        uint32_t R = 6, P = 32;
        size_t size = kind ? 2000 : 6 * 300;
        uint8_t *obj = kind ? make_text(&seed, size, 0) : malloc(size);
        if (!kind)
            for (size_t i = 0; i < size; i++) obj[i] = (uint8_t)('a' + rng_next(&seed) % 8);
        item_list all = {0}, want = {0};
        if (kind) ref_lines(obj, size, 0, &all);
        else ref_records(obj, size, R, &all);
        /* reference: within each page, keep items up to and including the first starting with 'b' */
        uint64_t skipping_page = UINT64_MAX;
        for (size_t i = 0; i < all.n; i++) {
            uint64_t pg = all.v[i].off / P;
            if (pg == skipping_page) continue;
            items_add(&want, all.v[i].off, all.v[i].bytes, all.v[i].len);
            if (all.v[i].len && all.v[i].bytes[0] == 'b') skipping_page = pg;
        }
        CHECK(want.n < all.n);
        for (uint64_t cut = 0; cut <= size; cut += 37) {
            item_list got = {0};
            uint64_t prev = 0, cuts[2] = {cut, size};
            for (int k = 0; k < 2; k++) {
                probe_cfg cfg;
                cfg_init(&cfg, &got, kind ? CSD_FRAMING_LINES : CSD_FRAMING_RECORDS, R, P);
                cfg.skip_marker = 'b';
                csd_outbuf ob;
                csd_outbuf_init(&ob, 0, 0);
                run_result r = run_extent(&cfg, &ob, obj, size, prev, cuts[k] - prev, P);
                CHECK_EQ_INT(r.rc_finish, 0);
                free(cfg.hook_pages);
                csd_outbuf_free(&ob);
                prev = cuts[k];
            }
            /* a page cut by the extent boundary restarts skipping in the second extent, so compare
             * only when the cut is on a page boundary; otherwise check got is a superset of want */
            if (cut % P == 0) {
                check_same(&got, &want, "skip page");
            } else {
                CHECK(got.n >= want.n);
            }
            items_free(&got);
        }
        /* page() returning CSD_SKIP_PAGE skips that whole page */
        item_list got = {0};
        probe_cfg cfg;
        cfg_init(&cfg, &got, kind ? CSD_FRAMING_LINES : CSD_FRAMING_RECORDS, R, P);
        cfg.hook_skip_page = 3;
        csd_outbuf ob;
        csd_outbuf_init(&ob, 0, 0);
        run_result r = run_extent(&cfg, &ob, obj, size, 0, size, P);
        CHECK_EQ_INT(r.rc_finish, 0);
        size_t expect = 0;
        for (size_t i = 0; i < all.n; i++) expect += all.v[i].off / P != 3;
        CHECK_EQ_U64(got.n, expect);
        items_free(&got);
        free(cfg.hook_pages);
        csd_outbuf_free(&ob);
        items_free(&all);
        items_free(&want);
        free(obj);
    }
}

static void test_stop(void) {
    uint64_t seed = 5;
    size_t size = 3000;
    uint8_t *obj = make_text(&seed, size, 1);
    item_list all = {0};
    ref_lines(obj, size, 0, &all);
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_LINES, 0, 64);
    cfg.stop_after = 10;
    cfg.finish_rows = 1;
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    run_result r = run_extent(&cfg, &ob, obj, size, 0, size, 64);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK_EQ_U64(got.n, 10);
    CHECK(cfg.finished);
    CHECK_EQ_U64(ob.rows, 1);
    /* input stopped: only the pages up to the 10th line were fed */
    CHECK_EQ_U64(r.pages_needed, (all.v[9].off + all.v[9].len) / 64 + 1);
    items_free(&got);
    items_free(&all);
    free(cfg.hook_pages);
    csd_outbuf_free(&ob);
    free(obj);
}

/* Decode the length-delimited rows of a buffer chunk. */
static size_t decode_rows(const uint8_t *p, size_t n, Smartssd__V1__Row **rows, size_t max) {
    size_t k = 0, pos = 0;
    while (pos < n) {
        uint64_t len = 0;
        int shift = 0;
        while (1) {
            CHECK(pos < n);
            uint8_t b = p[pos++];
            len |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80)) break;
        }
        CHECK(pos + len <= n);
        CHECK(k < max);
        rows[k] = smartssd__v1__row__unpack(NULL, (size_t)len, p + pos);
        CHECK(rows[k]);
        k++;
        pos += (size_t)len;
    }
    return k;
}

static void test_rows_and_truncation(void) {
    uint8_t obj[100];
    for (int i = 0; i < 100; i++) obj[i] = (uint8_t)i;
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 16);
    cfg.emit_rows = 1;
    cfg.finish_rows = 2;
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    run_result r = run_extent(&cfg, &ob, obj, 100, 0, 100, 16);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK_EQ_U64(ob.rows, 12);
    CHECK(!ob.truncated);
    const uint8_t *p;
    size_t n = csd_outbuf_take(&ob, SIZE_MAX, &p);
    CHECK_EQ_U64(n, ob.len);
    Smartssd__V1__Row *rows[16];
    CHECK_EQ_U64(decode_rows(p, n, rows, 16), 12);
    for (int i = 0; i < 10; i++) {
        CHECK_EQ_U64(rows[i]->n_values, 2);
        CHECK_EQ_INT(rows[i]->values[0]->v_case, SMARTSSD__V1__VALUE__V_I);
        CHECK_EQ_INT(rows[i]->values[0]->i, i * 10);
        CHECK_EQ_INT(rows[i]->values[1]->v_case, SMARTSSD__V1__VALUE__V_S);
        CHECK_EQ_U64(rows[i]->values[1]->s.len, 10);
        CHECK(!memcmp(rows[i]->values[1]->s.data, obj + i * 10, 10));
    }
    for (int i = 10; i < 12; i++) {
        Smartssd__V1__Row *x = rows[i];
        CHECK_EQ_U64(x->n_values, 5);
        CHECK(x->values[0]->v_case == SMARTSSD__V1__VALUE__V_S && x->values[0]->s.len == 4 &&
              !memcmp(x->values[0]->s.data, "done", 4));
        CHECK(x->values[1]->v_case == SMARTSSD__V1__VALUE__V_D && x->values[1]->d == 1.5);
        CHECK(x->values[2]->v_case == SMARTSSD__V1__VALUE__V_B && x->values[2]->b);
        CHECK(x->values[3]->v_case == SMARTSSD__V1__VALUE__V_IS_NULL);
        CHECK(x->values[4]->v_case == SMARTSSD__V1__VALUE__V_I && x->values[4]->i == -(i - 10));
    }
    for (int i = 0; i < 12; i++) smartssd__v1__row__free_unpacked(rows[i], NULL);
    CHECK_EQ_U64(csd_outbuf_take(&ob, SIZE_MAX, &p), 0);
    csd_outbuf_free(&ob);
    items_free(&got);
    free(cfg.hook_pages);

    /* max_rows = 3: the third row is kept, truncated, input stops, finish's rows are dropped */
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 16);
    cfg.emit_rows = 1;
    cfg.finish_rows = 2;
    csd_outbuf_init(&ob, 0, 3);
    r = run_extent(&cfg, &ob, obj, 100, 0, 100, 16);
    CHECK_EQ_INT(r.rc_finish, 0);
    CHECK_EQ_U64(ob.rows, 3);
    CHECK(ob.truncated);
    CHECK_EQ_U64(got.n, 3);
    CHECK(cfg.finished);
    CHECK_EQ_U64(r.pages_needed, 2);
    n = csd_outbuf_take(&ob, SIZE_MAX, &p);
    CHECK_EQ_U64(decode_rows(p, n, rows, 16), 3);
    for (int i = 0; i < 3; i++) smartssd__v1__row__free_unpacked(rows[i], NULL);
    csd_outbuf_free(&ob);
    items_free(&got);
    free(cfg.hook_pages);

    /* take returns whole rows only. A row here: length prefix 1 + (tag, len, Value{tag, zigzag
     * varint of the offset}) + (tag, len, Value{tag, len, 10 bytes}) = 1 + (2 + 2) + (2 + 12) = 19
     * bytes for offsets up to 60, 20 from offset 70 on (zigzag(70) = 140 takes two bytes). */
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 16);
    cfg.emit_rows = 1;
    csd_outbuf_init(&ob, 0, 0);
    r = run_extent(&cfg, &ob, obj, 100, 0, 100, 16);
    CHECK_EQ_U64(ob.len, 7 * 19 + 3 * 20);
    CHECK_EQ_U64(csd_outbuf_take(&ob, 18, &p), 0);
    CHECK_EQ_U64(csd_outbuf_take(&ob, 50, &p), 38);
    CHECK_EQ_U64(ob.read_pos, 38);
    CHECK_EQ_U64(csd_outbuf_take(&ob, 1000, &p), 5 * 19 + 3 * 20);
    csd_outbuf_free(&ob);
    items_free(&got);
    free(cfg.hook_pages);
}

static void test_output_full(void) {
    uint8_t obj[100];
    memset(obj, 'x', sizeof obj);
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 16);
    cfg.emit_rows = 1;
    csd_outbuf ob;
    csd_outbuf_init(&ob, 60, 0);   /* room for 3 rows of 19 bytes, not 4 */
    run_result r = run_extent(&cfg, &ob, obj, 100, 0, 100, 16);
    CHECK_EQ_INT(r.rc_feed, -ENOSPC);
    CHECK_STR(r.err, "output buffer full (60 bytes); read results sooner or raise output_buffer_bytes");
    CHECK_EQ_U64(ob.rows, 3);
    csd_outbuf_free(&ob);
    items_free(&got);
    free(cfg.hook_pages);

    /* reading results as they come frees room: drive the pages by hand, taking after each page */
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 16);
    cfg.emit_rows = 1;
    csd_outbuf_init(&ob, 60, 0);
    csd_tasklet_args args = {0};
    args.plan = (const uint8_t *)(uintptr_t)&cfg;
    csd_exec *t;
    char err[256];
    CHECK_EQ_INT(csd_exec_create(&t, &probe_ops, &args, &ob, err, sizeof err), 0);
    uint64_t fp, lp;
    CHECK_EQ_INT(csd_exec_begin(t, 100, 0, 100, 16, &fp, &lp, err, sizeof err), 0);
    size_t total = 0;
    for (uint64_t pg = fp; pg <= lp; pg++) {
        int more;
        size_t n = pg * 16 + 16 <= 100 ? 16 : 100 - pg * 16;
        CHECK_EQ_INT(csd_exec_feed(t, pg, obj + pg * 16, n, NULL, &more), 0);
        const uint8_t *p;
        total += csd_outbuf_take(&ob, SIZE_MAX, &p);
    }
    CHECK_EQ_INT(csd_exec_finish(t, NULL), 0);
    CHECK_EQ_U64(total, 7 * 19 + 3 * 20);
    csd_exec_destroy(t);
    csd_outbuf_free(&ob);
    items_free(&got);
    free(cfg.hook_pages);
}

static void test_failures(void) {
    uint8_t obj[100];
    memset(obj, 'x', sizeof obj);
    item_list got = {0};
    probe_cfg cfg;
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 16);
    cfg.fail_at = 40;
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    run_result r = run_extent(&cfg, &ob, obj, 100, 0, 100, 16);
    CHECK_EQ_INT(r.rc_feed, -EDOM);   /* the tasklet's errno, with its message */
    CHECK_STR(r.err, "probe failed at offset 40");
    CHECK_EQ_U64(got.n, 5);
    items_free(&got);
    free(cfg.hook_pages);

    /* pages out of order, wrong lengths, finishing early */
    cfg_init(&cfg, &got, CSD_FRAMING_RECORDS, 10, 16);
    csd_tasklet_args args = {0};
    args.plan = (const uint8_t *)(uintptr_t)&cfg;
    csd_exec *t;
    char err[256];
    uint64_t fp, lp;
    int more;
    CHECK_EQ_INT(csd_exec_create(&t, &probe_ops, &args, &ob, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_begin(t, 100, 0, 100, 16, &fp, &lp, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_feed(t, 1, obj + 16, 16, NULL, &more), -EINVAL);
    CHECK_CONTAINS(csd_exec_error(t), "expected page 0");
    CHECK_EQ_INT(csd_exec_feed(t, 0, obj, 16, NULL, &more), -EINVAL);   /* failure is sticky */
    CHECK_EQ_INT(csd_exec_finish(t, NULL), -EINVAL);
    csd_exec_destroy(t);

    CHECK_EQ_INT(csd_exec_create(&t, &probe_ops, &args, &ob, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_begin(t, 100, 0, 100, 16, &fp, &lp, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_feed(t, 0, obj, 15, NULL, &more), -EINVAL);
    CHECK_CONTAINS(csd_exec_error(t), "with 15 bytes");
    csd_exec_destroy(t);

    CHECK_EQ_INT(csd_exec_create(&t, &probe_ops, &args, &ob, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_begin(t, 100, 0, 100, 16, &fp, &lp, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_feed(t, 0, obj, 16, NULL, &more), 0);
    CHECK(more);
    CHECK_EQ_INT(csd_exec_finish(t, NULL), -EPROTO);
    CHECK_CONTAINS(csd_exec_error(t), "input ended at offset 10");
    csd_exec_destroy(t);

    /* init failure carries the tasklet's message */
    args.plan = NULL;
    CHECK_EQ_INT(csd_exec_create(&t, &probe_ops, &args, &ob, err, sizeof err), -EINVAL);
    CHECK_STR(err, "probe needs a config");
    CHECK(t == NULL);
    free(cfg.hook_pages);
    items_free(&got);
    csd_outbuf_free(&ob);
}

static void test_args_get(void) {
    csd_kv st[] = {{"a", "1"}, {"b", "2"}, {"a", "3"}};
    csd_kv rt[] = {{"b", "20"}, {"c", "30"}, {"b", "21"}};
    csd_tasklet_args a = {0};
    a.static_params = st;
    a.n_static = 3;
    a.runtime_params = rt;
    a.n_runtime = 3;
    CHECK_STR(csd_args_get(&a, "a"), "3");
    CHECK_STR(csd_args_get(&a, "b"), "21");
    CHECK_STR(csd_args_get(&a, "c"), "30");
    CHECK(csd_args_get(&a, "d") == NULL);
}

int main(void) {
    test_args_get();
    test_crlf_and_eof();
    test_lines_exhaustive();
    test_lines_random();
    test_long_line();
    test_records();
    test_size_not_multiple();
    test_skip_page();
    test_stop();
    test_rows_and_truncation();
    test_output_full();
    test_failures();
    TEST_OK("test_exec");
}
