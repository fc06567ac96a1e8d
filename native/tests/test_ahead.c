/* Run-ahead on host threads (host_threads): many concurrent tasklet requests of different kinds
 * (grep by lines and by count, filter, stats, text plans over CSV whose pages are prepared on any
 * thread: group-by, top-N, limit, a division by zero mid-page, rows that fill the output), random extents, arrival times, output limits and host
 * reads between events, run by the serial engine (host_threads = 1) and with 2 and 4 threads. Every
 * request's status, error text, finish time, core time and every output byte the host read, and the
 * engine's counters and per-core busy time, must be the same: the serial engine is the reference.
 * Both issue models (batch under fcfs, stage under remus) and tight output buffers (the gate that
 * waits for the engine, and the output-buffer-full failure) are covered. */
#include "check.h"
#include "sched_names.h"
#include "host/settings.h"
#include "engine/engine.h"
#include "runtime/exec.h"
#include "tasklets/registry.h"
#include "test_plan_build.h"

#include <errno.h>
#include <time.h>

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define P 4096u

typedef struct object {
    uint8_t *data;
    uint64_t size, pages, ppn0;
    int view;              /* also offer the bytes in place */
} object;

static uint64_t obj_ppn(void *arg, uint64_t page) {
    object *o = arg;
    if (page >= o->pages) return CSD_PPN_NONE;
    if (page % 37 == 5) return CSD_PPN_NONE;   /* a hole: reads as zeros */
    return o->ppn0 + page;
}

static int obj_read(void *arg, uint64_t ppn, uint8_t *buf) {
    object *o = arg;
    uint64_t k = ppn - o->ppn0;
    if (k >= o->pages) return -EIO;
    uint64_t n = o->size - k * P < P ? o->size - k * P : P;
    memset(buf, 0, P);
    memcpy(buf, o->data + k * P, n);
    return 0;
}

static const uint8_t *obj_view(void *arg, uint64_t ppn, int *rc) {
    object *o = arg;
    *rc = 0;
    uint64_t k = ppn - o->ppn0;
    if (!o->view || k >= o->pages || (k + 1) * P > o->size) return NULL;   /* partial last page: read() */
    return o->data + k * P;
}

typedef struct req {
    csd_outbuf out;
    csd_exec *t;
    csd_isp_work work;
    csd_page_source src;
    csd_isp_req *r;
    csd_kv kv[4];
    uint64_t submit_at, first, last;
    int submitted;
    int is_plan;
    /* what the host saw */
    uint8_t *got;
    size_t got_len;
    int status;
    uint64_t finish_ns, core_ns, pages_done, rows, filtered;
    char err[512];
} req;

/* Text plans over the CSV object "g,x,y": g one of five strings, x 0..99 (sometimes empty or not a
 * number), y 0..199 (a zero divides by zero) */
enum { N_PLANS = 5 };
typedef struct plans {
    uint8_t *bytes[N_PLANS];
    size_t len[N_PLANS];
} plans;

static void build_plans(plans *pls) {
    for (int k = 0; k < N_PLANS; k++) {
        plan_b b;
        PB_init_text(&b, ",", 0);
        PB_col(&b, C_text("g", SMARTSSD__V1__COLUMN_TYPE__STRING, 0));
        PB_col(&b, C_text("x", SMARTSSD__V1__COLUMN_TYPE__INT64, 1));
        PB_col(&b, C_text("y", SMARTSSD__V1__COLUMN_TYPE__INT64, 2));
        switch (k) {
        case 0:   /* WHERE x < 50 GROUP BY g: COUNT(*), SUM(x), MAX(y) */
            b.p.filter = E_bin(SMARTSSD__V1__BINARY_OP__LT, E_col(1), E_lit(L_i(50)));
            PB_group(&b, E_col(0));
            PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
            PB_agg(&b, SMARTSSD__V1__AGG_FN__SUM, E_col(1));
            PB_agg(&b, SMARTSSD__V1__AGG_FN__MAX, E_col(2));
            break;
        case 1:   /* g, x ORDER BY x DESC, y LIMIT 7 */
            PB_project(&b, E_col(0));
            PB_project(&b, E_col(1));
            PB_project(&b, E_col(2));
            PB_order(&b, 1, 1);
            PB_order(&b, 2, 0);
            b.p.limit = 7;
            break;
        case 2:   /* WHERE x > 10 AND g = 'bb' LIMIT 40: stops early */
            b.p.filter = E_bin(SMARTSSD__V1__BINARY_OP__AND, E_bin(SMARTSSD__V1__BINARY_OP__GT, E_col(1), E_lit(L_i(10))),
                               E_bin(SMARTSSD__V1__BINARY_OP__EQ, E_col(0), E_lit(L_s("bb"))));
            PB_project(&b, E_col(0));
            PB_project(&b, E_col(1));
            b.p.limit = 40;
            break;
        case 3:   /* x / y WHERE x > 90: fails mid-page on a y of 0 */
            b.p.filter = E_bin(SMARTSSD__V1__BINARY_OP__GT, E_col(1), E_lit(L_i(90)));
            PB_project(&b, E_col(0));
            PB_project(&b, E_bin(SMARTSSD__V1__BINARY_OP__DIV, E_col(1), E_col(2)));
            break;
        default:   /* every line: fills a small output buffer */
            PB_project(&b, E_col(0));
            PB_project(&b, E_col(1));
            PB_project(&b, E_col(2));
            break;
        }
        pls->bytes[k] = PB_pack(&b, &pls->len[k]);
        pb_free_all();
    }
}

typedef struct outcome {
    size_t n;
    req *q;
    csd_engine_stats st;
    uint64_t busy[8];
    uint64_t end_ns;
} outcome;

static void host_read(req *q, size_t max) {
    const uint8_t *p;
    size_t n = csd_outbuf_take(&q->out, max, &p);
    if (!n) return;
    q->got = realloc(q->got, q->got_len + n);
    CHECK(q->got != NULL);
    memcpy(q->got + q->got_len, p, n);
    q->got_len += n;
}

/* One scenario, fully determined by seed, under host_threads threads; min_ns: host_ahead_min_ns (0:
 * every request runs ahead to its end; UINT32_MAX - 1, 4.3 s a page: every request's first 16 pages
 * prove "cheap" and it goes back to the engine's thread mid-request; UINT32_MAX: the preset's
 * default, as the pages' host time says). */
static outcome run(uint64_t seed, uint32_t threads, uint32_t min_ns, const char *policy, object *text, object *recs,
                   object *csv, const plans *pls) {
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    p.blocks_per_plane = 16;
    p.cores = 2;
    CSD_HOST_THREADS(&p) = threads;
    if (min_ns != UINT32_MAX) CSD_HOST_AHEAD_MIN_NS(&p) = min_ns;
    sched_set(&p, policy);
    csd_engine *e = NULL;
    char err[256] = "";
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);
    uint64_t s = seed;
    outcome oc = { .n = 6 + rng(&s) % 10 };
    oc.q = calloc(oc.n, sizeof *oc.q);
    CHECK(oc.q != NULL);
    for (size_t i = 0; i < oc.n; i++) {
        req *q = &oc.q[i];
        int kind = (int)(rng(&s) % 6);
        object *o = kind <= 1 ? text : kind >= 4 ? csv : recs;
        int plan_k = (int)(rng(&s) % N_PLANS);
        size_t limit = rng(&s) % 3 == 0 ? 4096 : 1u << 20;
        uint64_t max_rows = rng(&s) % 5 == 0 ? 1 + rng(&s) % 200 : 0;
        csd_outbuf_init(&q->out, limit, max_rows);
        const char *name;
        size_t nkv = 0;
        if (kind == 0) {
            name = "grep";
            q->kv[nkv++] = (csd_kv){ "pattern", rng(&s) % 2 ? "ab" : "zzq" };
            q->kv[nkv++] = (csd_kv){ "mode", "lines" };
        } else if (kind == 1) {
            name = "grep";
            q->kv[nkv++] = (csd_kv){ "pattern", "ba" };
            q->kv[nkv++] = (csd_kv){ "mode", "count" };
        } else if (kind == 2) {
            name = "filter";
            q->kv[nkv++] = (csd_kv){ "entry_bytes", "16" };
            q->kv[nkv++] = (csd_kv){ "op", "lt" };
            q->kv[nkv++] = (csd_kv){ "value", rng(&s) % 2 ? "100000000" : "2000" };
        } else if (kind == 3) {
            name = "stats";
            q->kv[nkv++] = (csd_kv){ "record_bytes", "16" };
        } else {
            name = "plan";
            q->is_plan = 1;
        }
        csd_tasklet_args a = { .static_params = q->kv, .n_static = nkv, .page_bytes = P };
        if (kind >= 4) {
            a.plan = pls->bytes[plan_k];
            a.plan_len = pls->len[plan_k];
        }
        const csd_tasklet_ops *ops = csd_tasklet_find(name);
        CHECK(ops != NULL);
        CHECK_EQ_INT(csd_exec_create_hooked(&q->t, ops, csd_builtin_hooks_of(ops), NULL, &a, &q->out, err, sizeof err), 0);
        /* extents: record-aligned for records, anywhere for text */
        uint64_t off = rng(&s) % o->size, len = rng(&s) % (o->size - off + 1);
        if (kind == 2 || kind == 3) {
            off -= off % 16;
            len = rng(&s) % 2 ? o->size - off : len;
        }
        CHECK_EQ_INT(csd_exec_begin(q->t, o->size, off, len, P, &q->first, &q->last, err, sizeof err), 0);
        q->work = csd_exec_work(q->t);
        q->src = (csd_page_source){ o, obj_ppn, obj_read, obj_view, NULL };
        q->submit_at = rng(&s) % 400000;
    }
    /* submissions in time order; the host reads every few events */
    uint64_t steps = 0, read_every = 1 + rng(&s) % 9;
    size_t read_max = 200 + rng(&s) % 3000;
    for (;;) {
        uint64_t next_sub = UINT64_MAX;
        size_t who = oc.n;
        for (size_t i = 0; i < oc.n; i++)
            if (!oc.q[i].submitted && oc.q[i].submit_at < next_sub) next_sub = oc.q[i].submit_at, who = i;
        uint64_t t_ev;
        int have = csd_engine_peek(e, &t_ev);
        if (who < oc.n && (!have || next_sub <= t_ev)) {
            req *q = &oc.q[who];
            csd_engine_run_until(e, next_sub);
            object *o = q->src.arg;
            uint64_t max_page = (o->size - 1) / P;
            CHECK_EQ_INT(csd_engine_submit(e, &q->r, &q->work, &q->src, q->first, q->last, max_page,
                                           (uint32_t)(o->size - max_page * P)), 0);
            q->submitted = 1;
            continue;
        }
        if (!have) break;
        csd_engine_step(e);
        if (++steps % read_every == 0)
            for (size_t i = 0; i < oc.n; i++) host_read(&oc.q[i], read_max);
    }
    oc.end_ns = csd_engine_now(e);
    for (size_t i = 0; i < oc.n; i++) {
        req *q = &oc.q[i];
        csd_isp_progress pr;
        csd_engine_progress(e, q->r, &pr);
        CHECK(pr.finished);
        q->status = pr.status;
        q->finish_ns = pr.finish_ns;
        q->core_ns = pr.core_ns;
        q->pages_done = pr.pages_done;
        csd_engine_release(e, q->r);
        host_read(q, SIZE_MAX);
        q->rows = q->out.rows;
        q->filtered = q->out.filtered;
        snprintf(q->err, sizeof q->err, "%s", csd_exec_error(q->t));
        csd_exec_destroy(q->t);
        csd_outbuf_free(&q->out);
    }
    csd_engine_stats_get(e, &oc.st, NULL);
    for (uint32_t k = 0; k < p.cores; k++) oc.busy[k] = csd_engine_core_busy_ns(e, k);
    csd_engine_destroy(e);
    return oc;
}

static void outcome_free(outcome *o) {
    for (size_t i = 0; i < o->n; i++) free(o->q[i].got);
    free(o->q);
}

/* a against the serial reference b, request by request */
static void same(const outcome *a, const outcome *b, uint64_t seed, uint32_t threads, const char *policy) {
    char what[128];
    snprintf(what, sizeof what, "seed %llu, %u threads, %s", (unsigned long long)seed, threads, policy);
    CHECK_EQ_U64(a->n, b->n);
    CHECK_EQ_U64(a->end_ns, b->end_ns);
    for (size_t i = 0; i < a->n; i++) {
        const req *x = &a->q[i], *y = &b->q[i];
        if (x->status != y->status || x->finish_ns != y->finish_ns || x->core_ns != y->core_ns ||
            x->pages_done != y->pages_done || x->rows != y->rows || x->filtered != y->filtered ||
            x->got_len != y->got_len || (x->got_len && memcmp(x->got, y->got, x->got_len)) || strcmp(x->err, y->err)) {
            fprintf(stderr, "%s: request %zu differs: status %d/%d finish %llu/%llu core %llu/%llu pages %llu/%llu "
                    "rows %llu/%llu bytes %zu/%zu err '%s' / '%s'\n", what, i, x->status, y->status,
                    (unsigned long long)x->finish_ns, (unsigned long long)y->finish_ns,
                    (unsigned long long)x->core_ns, (unsigned long long)y->core_ns,
                    (unsigned long long)x->pages_done, (unsigned long long)y->pages_done,
                    (unsigned long long)x->rows, (unsigned long long)y->rows, x->got_len, y->got_len, x->err, y->err);
            CHECK(0);
        }
    }
    CHECK_EQ_U64(a->st.isp_pages, b->st.isp_pages);
    CHECK_EQ_U64(a->st.isp_core_ns, b->st.isp_core_ns);
    CHECK_EQ_U64(a->st.isp_buffer_peak_bytes, b->st.isp_buffer_peak_bytes);
    CHECK_EQ_U64(a->st.stage_decisions, b->st.stage_decisions);
    for (int k = 0; k < 2; k++) CHECK_EQ_U64(a->busy[k], b->busy[k]);
}

/* A work that sums its pages' bytes, and sleeps (host wall time only) on the pages of its first
 * sixteen that slow_mask names: host_ahead_min_ns's probe averages the first 16 pages' feeds with
 * the slowest left out, so one slow page (a cold start, a preemption) no longer keeps a cheap request
 * ahead, and two still do. */
typedef struct slow_work {
    uint64_t sum, pages, first;
    uint32_t slow_mask;      /* bit k: page first + k sleeps */
    uint64_t sleep_ns;
    int unaheads;
} slow_work;

static int slow_feed(void *arg, uint64_t page, const uint8_t *data, size_t len, csd_cost *cost, int *need_more) {
    slow_work *w = arg;
    uint64_t k = page - w->first;
    if (k < 32 && (w->slow_mask >> k & 1)) {
        struct timespec ts = { 0, (long)w->sleep_ns };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
    for (size_t i = 0; i < len; i++) w->sum += data[i];
    w->pages++;
    *cost = (csd_cost){ 1000, 0 };
    *need_more = 1;
    return 0;
}
static int slow_finish(void *arg, csd_cost *cost) { (void)arg; *cost = (csd_cost){ 0, 0 }; return 0; }
static int slow_ahead(void *arg, const csd_ahead_gate *g) { (void)arg; (void)g; return 1; }
static int slow_commit(void *arg, int page) { (void)arg; (void)page; return 0; }
static void slow_unahead(void *arg) { ((slow_work *)arg)->unaheads++; }

/* The recs object's pages fed to a slow_work under 2 host threads, host_ahead_min_ns = 5 ms: the
 * pages fed ahead (isp_pages_ahead), checked against the byte sum of the object. The margins are
 * wide so a loaded machine cannot flip the outcome: a fast page takes microseconds, so the 15 fast
 * pages would need 75 ms of preemption between them to average 5 ms. */
static uint64_t probe_run(object *recs, uint32_t slow_mask, int *unaheads) {
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    p.blocks_per_plane = 16;
    CSD_HOST_THREADS(&p) = 2;
    CSD_HOST_AHEAD_MIN_NS(&p) = 5000000;
    csd_engine *e = NULL;
    char err[256] = "";
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);
    slow_work w = { .slow_mask = slow_mask, .sleep_ns = 100000000 };
    csd_isp_work work = { .arg = &w, .feed = slow_feed, .finish = slow_finish, .ahead = slow_ahead,
                          .commit = slow_commit, .unahead = slow_unahead };
    csd_page_source src = { recs, obj_ppn, obj_read, obj_view, NULL };
    csd_isp_req *r = NULL;
    uint64_t last = recs->pages - 1;
    CHECK_EQ_INT(csd_engine_submit(e, &r, &work, &src, 0, last, last, P), 0);
    uint64_t t;
    while (csd_engine_peek(e, &t)) csd_engine_step(e);
    csd_isp_progress pr;
    csd_engine_progress(e, r, &pr);
    CHECK(pr.finished);
    CHECK_EQ_INT(pr.status, 0);
    csd_engine_release(e, r);
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    csd_engine_destroy(e);
    /* every page fed once, holes as zeros: the object's byte sum */
    uint64_t ref = 0;
    for (uint64_t k = 0; k < recs->pages; k++)
        if (k % 37 != 5)
            for (uint64_t i = 0; i < P; i++) ref += recs->data[k * P + i];
    CHECK_EQ_U64(w.pages, recs->pages);
    CHECK_EQ_U64(w.sum, ref);
    *unaheads = w.unaheads;
    return st.isp_pages_ahead;
}

static void test_probe_median(object *recs) {
    int unaheads;
    /* the first page slow (100 ms: the 16 pages' mean is over 5 ms, 6.25 ms), the others fast: back
     * to the engine's thread after the 16 timed pages */
    uint64_t back = probe_run(recs, 0x1u, &unaheads);
    CHECK(back >= 16 && back <= 16 + 2 * 16);   /* the timed pages and the batch loaded meanwhile */
    CHECK_EQ_INT(unaheads, 1);
    /* two slow (pages 0 and 9): the other 15 average 6.67 ms, so the request stays ahead to its end */
    uint64_t ahead = probe_run(recs, 0x201u, &unaheads);
    CHECK_EQ_U64(ahead, recs->pages);
    CHECK_EQ_INT(unaheads, 0);
    printf("test_ahead: a request with 1 of its first 16 pages slow went back after %llu pages fed ahead, "
           "one with 2 stayed ahead for all %llu\n", (unsigned long long)back, (unsigned long long)ahead);
}

int main(void) {
    /* text of short lines over a small alphabet (many matches, lines across pages) and 16-byte records */
    uint64_t s = 42;
    object text = { .size = 150 * P - 777, .ppn0 = 0, .view = 1 }, recs = { .size = 120 * P, .ppn0 = 300 };
    text.pages = (text.size + P - 1) / P;
    recs.pages = recs.size / P;
    text.data = malloc(text.size);
    recs.data = malloc(recs.size);
    CHECK(text.data && recs.data);
    for (uint64_t i = 0; i < text.size; i++) {
        uint64_t r = rng(&s) % 23;
        text.data[i] = r == 0 ? '\n' : (uint8_t)('a' + r % 4);
    }
    for (uint64_t i = 0; i < recs.size; i++) recs.data[i] = (uint8_t)rng(&s);
    object csv = { .size = 200 * P - 123, .ppn0 = 600, .view = 1 };
    csv.pages = (csv.size + P - 1) / P;
    csv.data = malloc(csv.size);
    CHECK(csv.data);
    static const char *const gs[] = { "a", "bb", "ccc", "dd", "e" };
    for (uint64_t i = 0; i < csv.size;) {
        char line[64];
        uint64_t r = rng(&s), x = r % 100, y = (r >> 8) % 200;
        int n;
        if ((r >> 16) % 50 == 0) n = snprintf(line, sizeof line, "%s,,%llu", gs[(r >> 24) % 5], (unsigned long long)y);
        else if ((r >> 16) % 50 == 1) n = snprintf(line, sizeof line, "%s,x%llu,%llu", gs[(r >> 24) % 5], (unsigned long long)x, (unsigned long long)y);
        else n = snprintf(line, sizeof line, "%s,%llu,%llu", gs[(r >> 24) % 5], (unsigned long long)x, (unsigned long long)y);
        if ((r >> 32) % 20 == 0) line[n++] = '\r';
        line[n++] = '\n';
        for (int k = 0; k < n && i < csv.size; k++) csv.data[i++] = (uint8_t)line[k];
    }
    test_probe_median(&recs);
    plans pls;
    build_plans(&pls);
    static const char *const policies[] = { "fcfs", "remus" };
    uint64_t ahead_pages = 0, failures = 0, requests = 0, cheap_ahead = 0, prepared = 0, div0 = 0, plan_full = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        for (int pi = 0; pi < 2; pi++) {
            outcome ref = run(seed, 1, 0, policies[pi], &text, &recs, &csv, &pls);
            CHECK_EQ_U64(ref.st.isp_pages_ahead, 0);   /* one thread: every page on the engine's */
            for (size_t i = 0; i < ref.n; i++) {
                failures += ref.q[i].status != 0;
                div0 += strstr(ref.q[i].err, "division by zero") != NULL;
                plan_full += ref.q[i].is_plan && strstr(ref.q[i].err, "output buffer full") != NULL;
            }
            requests += ref.n;
            /* threads, host_ahead_min_ns: ahead to the end; back to the engine's thread after 16
             * pages (the switch mid-request); as the host's clock decides (the default) */
            static const uint32_t threads[] = { 2, 4, 2, 4 }, min_ns[] = { 0, 0, UINT32_MAX - 1, UINT32_MAX };
            for (int ti = 0; ti < 4; ti++) {
                outcome o = run(seed, threads[ti], min_ns[ti], policies[pi], &text, &recs, &csv, &pls);
                same(&o, &ref, seed, threads[ti], policies[pi]);
                if (min_ns[ti] == 0) ahead_pages += o.st.isp_pages_ahead;
                prepared += o.st.isp_pages_prepared;
                if (min_ns[ti] == UINT32_MAX - 1) {
                    CHECK(o.st.isp_pages_ahead <= 16 * o.n);   /* at most the timed pages of each */
                    cheap_ahead += o.st.isp_pages_ahead;
                }
                outcome_free(&o);
            }
            outcome_free(&ref);
        }
    }
    /* the scenarios did run ahead, and some hit the output-buffer-full failure */
    CHECK(ahead_pages > 1000);
    CHECK(failures > 0);
    /* requests did run their first pages ahead and then went back */
    CHECK(cheap_ahead > 100);
    /* plan pages were prepared apart from their feed; plans failed alike mid-page on a division by
     * zero and on a full output buffer */
    CHECK(prepared > 200);
    CHECK(div0 > 0);
    CHECK(plan_full > 0);
    printf("test_ahead: %llu requests, %llu failed alike (%llu plans on a division by zero, %llu on a full output "
           "buffer), %llu pages fed ahead (%llu before requests went back to the engine's thread), %llu fed "
           "prepared\n", (unsigned long long)requests, (unsigned long long)failures, (unsigned long long)div0,
           (unsigned long long)plan_full, (unsigned long long)ahead_pages, (unsigned long long)cheap_ahead,
           (unsigned long long)prepared);
    free(text.data);
    free(recs.data);
    free(csv.data);
    for (int k = 0; k < N_PLANS; k++) free(pls.bytes[k]);
    return 0;
}
