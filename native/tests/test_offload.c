/* What offload planning asks of the device and of the host's copy of the tasklets (docs/OFFLOAD.md):
 *  - stats' backlog through the command path (idle, a request submitted and not started, priced at the
 *    device's mean per page), and a run's charged cycles and DRAM accesses in its progress, from which
 *    the cost model gives its core time exactly;
 *  - csd_eval (smartssd/eval.h): the same rows, byte for byte, and the same charges as the device for
 *    weblog-q1 and a plan with a pushed aggregate, over extents that cut records and lines; the device's
 *    refusals (unknown tasklet, bad param with its key, a plan where none belongs) and max_outputs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devutil.h"
#include "smartssd/eval.h"
#include "test_plan_build.h"

#define RECORDS 3000
#define ENTRY 32

typedef struct run_out {
    uint8_t *rows;
    size_t len;
    uint64_t cycles, dram, core_ns, pages;
} run_out;

static Smartssd__V1__Response *stats(csd_device *d) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Stats st = SMARTSSD__V1__STATS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STATS;
    req.stats = &st;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    CHECK(r->status == 0 && r->stats && r->stats->backlog);
    return r;
}

static uint64_t counter(const Smartssd__V1__StatsReply *s, const char *name) {
    for (size_t i = 0; i < s->n_counters; i++)
        if (!strcmp(s->counters[i]->key, name)) return strtoull(s->counters[i]->value, NULL, 10);
    CHECK(!"no such counter");
    return 0;
}

static uint8_t *pack_create(const char *name, Smartssd__V1__ObjectKind kind, Smartssd__V1__Param **params,
                            size_t n, Smartssd__V1__Plan *plan, uint64_t max_outputs, size_t *len) {
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = kind;
    co.name = (char *)name;
    co.params = params;
    co.n_params = n;
    co.plan = plan;
    co.max_outputs = max_outputs;
    *len = smartssd__v1__create_object__get_packed_size(&co);
    uint8_t *b = malloc(*len ? *len : 1);
    smartssd__v1__create_object__pack(&co, b);
    return b;
}

/* The tasklet (name, one static param or a plan) over [off, +len) of object id on the device. */
static run_out run_device(csd_device *d, const char *name, const char *kv, Smartssd__V1__Plan *plan, uint64_t id,
                          uint64_t off, uint64_t len) {
    const char *params[] = { kv, NULL };
    Smartssd__V1__Response *r = dev_create_tasklet(d, name, kv ? params : NULL, plan);
    if (r->status) fprintf(stderr, "create %s: %s\n", name, r->message);
    CHECK(r->status == 0);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t o = dev_create_output(d, 0);
    EXPECT_STATUS(dev_execute(d, t, o, id, off, len, 0), 0, "");
    run_out out = { 0 };
    for (;;) {
        r = dev_read(d, o, 0, 0);
        CHECK(r->status == 0);
        const Smartssd__V1__ReadObjectReply *rr = r->read_object;
        out.rows = realloc(out.rows, out.len + rr->data.len + 1);
        memcpy(out.rows + out.len, rr->data.data, rr->data.len);
        out.len += rr->data.len;
        int done = rr->progress->done;
        out.cycles = rr->progress->cycles;
        out.dram = rr->progress->dram_accesses;
        out.core_ns = rr->progress->core_ns;
        out.pages = rr->progress->pages_total;
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    dev_delete(d, o);
    dev_delete(d, t);
    return out;
}

/* The same on the host: bytes of obj (size bytes) fed page by page through csd_eval. */
static run_out run_host(const char *name, const char *kv, Smartssd__V1__Plan *plan, const uint8_t *obj,
                        uint64_t size, uint64_t off, uint64_t len, uint32_t P) {
    Smartssd__V1__Param p = SMARTSSD__V1__PARAM__INIT, *pp[1] = { &p };
    char key[64];
    if (kv) {
        const char *eq = strchr(kv, '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
        p.key = key;
        p.value = (char *)eq + 1;
    }
    size_t tl;
    uint8_t *tm = pack_create(name, SMARTSSD__V1__OBJECT_KIND__TASKLET, kv ? pp : NULL, kv ? 1 : 0, plan, 0, &tl);
    csd_eval *e;
    char err[512] = "", param[CSD_EVAL_PARAM_MAX];
    int rc = csd_eval_create(&e, tm, tl, NULL, 0, P, param, err, sizeof err);
    if (rc) fprintf(stderr, "eval: %s\n", err);
    CHECK_EQ_INT(rc, 0);
    free(tm);
    uint64_t first, last;
    CHECK_EQ_INT(csd_eval_begin(e, size, off, len, &first, &last, err, sizeof err), 0);
    run_out out = { 0 };
    int more = last >= first;
    for (uint64_t pg = first; more && pg * P < size; pg++) {
        size_t n = size - pg * P < P ? size - pg * P : P;
        CHECK_EQ_INT(csd_eval_feed(e, pg, obj + pg * P, n, &more), 0);
    }
    CHECK_EQ_INT(csd_eval_finish(e), 0);
    const uint8_t *rows;
    out.len = csd_eval_take(e, &rows);
    out.rows = malloc(out.len + 1);
    memcpy(out.rows, rows, out.len);
    csd_eval_cost(e, &out.cycles, &out.dram, &out.pages);
    csd_eval_destroy(e);
    return out;
}

static void same(run_out a, run_out b, const char *what) {
    if (a.len != b.len || memcmp(a.rows, b.rows, a.len)) {
        fprintf(stderr, "%s: device %zu bytes of rows, host %zu\n", what, a.len, b.len);
        CHECK(!"rows differ");
    }
    CHECK_EQ_U64(a.cycles, b.cycles);
    CHECK_EQ_U64(a.dram, b.dram);
    CHECK_EQ_U64(a.pages, b.pages);
    free(a.rows);
    free(b.rows);
}

static uint8_t *wc98(void) {
    uint8_t *b = calloc(RECORDS, ENTRY);
    uint32_t x = 12345;
    for (int i = 0; i < RECORDS; i++) {
        x = x * 1103515245u + 12345u;
        b[i * ENTRY + 18] = (uint8_t)((x >> 8) % 14);   /* type, 13 = OTHER */
        b[i * ENTRY + 19] = (uint8_t)(x >> 16);         /* server: region in bits 7-5 */
    }
    return b;
}

static char *csv(size_t *n) {
    char *s = malloc(200000);
    size_t k = 0;
    for (int i = 0; i < 4000; i++) k += (size_t)sprintf(s + k, "%d,%s,%d\n", i, (i * 7) % 5 ? "get" : "post", (i * 13) % 97);
    *n = k;
    return s;
}

/* SELECT method, COUNT(*), SUM(size) WHERE size > 10 GROUP BY method */
static Smartssd__V1__Plan *count_plan(plan_b *b) {
    PB_init_text(b, ",", 0);
    PB_col(b, C_text("id", SMARTSSD__V1__COLUMN_TYPE__INT64, 0));
    PB_col(b, C_text("method", SMARTSSD__V1__COLUMN_TYPE__STRING, 1));
    PB_col(b, C_text("size", SMARTSSD__V1__COLUMN_TYPE__INT64, 2));
    b->p.filter = E_bin(OP(GT), E_col(2), E_i(10));
    PB_group(b, E_col(1));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(2));
    return &b->p;
}

static void test_backlog_command(csd_device *d, uint64_t id) {
    Smartssd__V1__Response *r = stats(d);
    const Smartssd__V1__Backlog *b = r->stats->backlog;
    CHECK_EQ_U64(b->requests, 0);
    CHECK_EQ_U64(b->pages_left, 0);
    CHECK_EQ_U64(b->drain_ns, 0);
    CHECK_EQ_U64(b->flash_page_ns, 5000);   /* tiny: two channels, a 10000 ns transfer each */
    smartssd__v1__response__free_unpacked(r, NULL);
    /* submitted, nothing run yet (no device thread): every page left, priced at the mean so far */
    const char *params[] = { "entry_bytes=32", NULL };
    r = dev_create_tasklet(d, "weblog-q1", params, NULL);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t o = dev_create_output(d, 0);
    EXPECT_STATUS(dev_execute(d, t, o, id, 0, RECORDS * ENTRY, 0), 0, "");
    r = stats(d);
    b = r->stats->backlog;
    uint64_t pages = (RECORDS * ENTRY + 4095) / 4096;
    uint64_t mean = counter(r->stats, "isp.core_ns") / counter(r->stats, "isp.pages");
    CHECK(mean > 0);
    CHECK_EQ_U64(b->requests, 1);
    CHECK_EQ_U64(b->pages_left, pages);
    CHECK_EQ_U64(b->pages_unpriced, pages);
    CHECK_EQ_U64(b->core_ns_left, pages * mean);
    CHECK(b->pages_unread <= pages);
    CHECK_EQ_U64(b->flash_ns_left, b->pages_unread * 5000);
    uint64_t drain = (b->core_ns_left + 1) / 2;   /* tiny: 2 cores */
    if (b->flash_ns_left > drain) drain = b->flash_ns_left;
    if (b->link_ns_left > drain) drain = b->link_ns_left;
    CHECK_EQ_U64(b->drain_ns, drain);
    smartssd__v1__response__free_unpacked(r, NULL);
    dev_delete(d, o);   /* cancels the run */
    dev_delete(d, t);
}

static void test_eval_errors(void) {
    csd_eval *e;
    char err[512], param[CSD_EVAL_PARAM_MAX];
    size_t tl;
    uint8_t *tm = pack_create("no-such", SMARTSSD__V1__OBJECT_KIND__TASKLET, NULL, 0, NULL, 0, &tl);
    CHECK_EQ_INT(csd_eval_create(&e, tm, tl, NULL, 0, 4096, param, err, sizeof err), -ENOENT);
    CHECK_CONTAINS(err, "no-such");
    free(tm);
    Smartssd__V1__Param p = SMARTSSD__V1__PARAM__INIT, *pp[1] = { &p };
    p.key = "entry_bytes";
    p.value = "7";
    tm = pack_create("weblog-q1", SMARTSSD__V1__OBJECT_KIND__TASKLET, pp, 1, NULL, 0, &tl);
    CHECK_EQ_INT(csd_eval_create(&e, tm, tl, NULL, 0, 4096, param, err, sizeof err), -EINVAL);
    CHECK_STR(param, "entry_bytes");
    CHECK_EQ_INT(csd_eval_create(&e, tm, tl, NULL, 0, 1000, param, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "power of two");
    free(tm);
    plan_b b;
    tm = pack_create("weblog-q1", SMARTSSD__V1__OBJECT_KIND__TASKLET, NULL, 0, count_plan(&b), 0, &tl);
    CHECK_EQ_INT(csd_eval_create(&e, tm, tl, NULL, 0, 4096, param, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "only the 'plan' tasklet takes a plan");
    free(tm);
    pb_free_all();
    static const uint8_t junk[] = { 0xff, 0xff, 0xff };
    CHECK_EQ_INT(csd_eval_create(&e, junk, sizeof junk, NULL, 0, 4096, param, err, sizeof err), -EINVAL);
    /* max_outputs: 3 rows, then truncated */
    p.value = "32";
    tm = pack_create("weblog-q1", SMARTSSD__V1__OBJECT_KIND__TASKLET, pp, 1, NULL, 0, &tl);
    size_t ol;
    uint8_t *om = pack_create(NULL, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, 0, NULL, 3, &ol);
    CHECK_EQ_INT(csd_eval_create(&e, tm, tl, om, ol, 4096, param, err, sizeof err), 0);
    uint8_t *obj = wc98();
    uint64_t first, last;
    int more = 1;
    CHECK_EQ_INT(csd_eval_begin(e, RECORDS * ENTRY, 0, RECORDS * ENTRY, &first, &last, err, sizeof err), 0);
    CHECK_EQ_INT(csd_eval_begin(e, 100, 0, 200, &first, &last, err, sizeof err), -ERANGE);
    for (uint64_t pg = first; pg <= last && more; pg++) {
        uint64_t n = RECORDS * ENTRY - pg * 4096 < 4096 ? RECORDS * ENTRY - pg * 4096 : 4096;
        CHECK_EQ_INT(csd_eval_feed(e, pg, obj + pg * 4096, n, &more), 0);
    }
    CHECK_EQ_INT(csd_eval_finish(e), 0);
    CHECK(csd_eval_truncated(e));
    const uint8_t *rows;
    size_t n = csd_eval_take(e, &rows), k = 0, count = 0;
    while (k < n) {   /* three length-delimited rows */
        k += 1 + rows[k];
        count++;
    }
    CHECK_EQ_U64(count, 3);
    csd_eval_destroy(e);
    free(obj);
    free(tm);
    free(om);
}

int main(void) {
    const char *dir = csd_test_dir("offload");
    csd_device *d = dev_fresh(dir, "tiny", 16u << 20, 0);
    uint8_t *obj = wc98();
    uint64_t id = dev_create_data(d, "wc98");
    dev_write(d, id, 0, obj, RECORDS * ENTRY);
    size_t csv_len;
    char *text = csv(&csv_len);
    uint64_t tid = dev_create_data(d, "log.csv");
    dev_write(d, tid, 0, text, csv_len);

    /* weblog-q1 over the whole object and over extents that cut records */
    static const uint64_t cuts[][2] = { { 0, RECORDS * ENTRY }, { 0, 40000 }, { 40000, 30001 }, { 70001, RECORDS * ENTRY - 70001 } };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        run_out dv = run_device(d, "weblog-q1", "entry_bytes=32", NULL, id, cuts[i][0], cuts[i][1]);
        /* the cost model: 1000 MHz (a cycle is a ns), 100 ns per DRAM access, page_cycles per page */
        CHECK_EQ_U64(dv.core_ns, dv.pages * 1000 + dv.cycles + 100 * dv.dram);
        run_out hv = run_host("weblog-q1", "entry_bytes=32", NULL, obj, RECORDS * ENTRY, cuts[i][0], cuts[i][1], 4096);
        same(dv, hv, "weblog-q1");
    }
    /* a plan with a filter, a group and two aggregates over lines cut mid-line */
    static const uint64_t tcuts[][2] = { { 0, 0 }, { 0, 12345 }, { 12345, 20000 } };
    for (size_t i = 0; i < sizeof tcuts / sizeof tcuts[0]; i++) {
        plan_b b;
        uint64_t len = tcuts[i][1] ? tcuts[i][1] : csv_len;
        if (tcuts[i][0] + len > csv_len) len = csv_len - tcuts[i][0];
        run_out dv = run_device(d, "plan", NULL, count_plan(&b), tid, tcuts[i][0], len);
        CHECK(dv.len > 0);
        run_out hv = run_host("plan", NULL, count_plan(&b), (const uint8_t *)text, csv_len, tcuts[i][0], len, 4096);
        same(dv, hv, "plan");
        pb_free_all();
    }
    test_backlog_command(d, id);
    test_eval_errors();
    dev_still_serving(d);
    free(obj);
    free(text);
    CHECK(csd_device_close(d) == 0);
    TEST_OK("test_offload");
}
