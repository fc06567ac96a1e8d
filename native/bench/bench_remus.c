/* bench_remus: the REMUS paper's experiments (Huang et al., sections II-A and IV) on the engine's
 * stage mode. Prints CSV rows "experiment,..." on stdout; bench/remus.py drives it, makes the
 * tables and plots, and docs/SCHEDULERS.md explains the setups.
 *   bench_remus fig4 [groups]     Fig. 4: 50 simulated requests per group, c_i in [0.2, X] us, every
 *                                 policy and the offline optimum (and its lower bound)
 *   bench_remus fig5 [groups]     Fig. 5: SQL / STAT / KNN mixes on the ys9203 preset
 *   bench_remus table1            Table I: host-only vs dedicated vs co-located devices, SQL + KNN
 *   bench_remus overhead          wall time of one scheduling decision with 10 pending requests */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smartssd/params.h"
#include "lib/optimum.h"
#include "lib/synth.h"

static const char *const POLICIES[] = { "fcfs", "cfs", "horae", "serico", "remus" };
#define NPOL (sizeof POLICIES / sizeof POLICIES[0])

/* deterministic generator (splitmix64) */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rng_unif(uint64_t *s, double lo, double hi) {
    return lo + (hi - lo) * (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

/* Section IV-B: T_s = 1 us, T_f = 65 us, N_c = 2, N_pl = 2, N_ch = 2 chips per channel; 8 channels
 * as the YS9203 the simulator mimics; 4 KB pages; 80 MB buffer. */
static csd_params fig4_params(const char *policy) {
    csd_params p;
    csd_params_preset(&p, "ys9203");
    p.planes_per_die = 2;
    p.blocks_per_plane = 4096;
    p.channel_bytes_per_s = 0;          /* the model has no channel: T_f is the whole read */
    p.isp_buffer_bytes = 80ull << 20;
    snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", policy);
    return p;
}

/* 50 requests, 1 GiB in all, c_i uniform in [0.2, X] us with shorter : longer = 6 : 4 (shorter in
 * the lower half of the range, longer in the upper half); each request on its own LBA range. */
static void fig4_mix(csd_synth_req *r, size_t n, double x_us, uint64_t seed, uint64_t page_bytes) {
    uint64_t s = seed * 1000003 + (uint64_t)(x_us * 1000);
    uint64_t pages = (1ull << 30) / page_bytes / n, lba = 0;
    double mid = (0.2 + x_us) / 2;
    for (size_t i = 0; i < n; i++) {
        int shorter = i % 5 < 3;
        double ci = shorter ? rng_unif(&s, 0.2, mid) : rng_unif(&s, mid, x_us);
        r[i] = (csd_synth_req){ .ci_ns = (uint64_t)(ci * 1000 + 0.5), .pages = pages, .lba_page = lba,
                                .arrive_ns = 0 };
        lba += pages;
    }
}

/* ---- Fig. 5: the real platform (section IV-C) ------------------------------------------------ */

typedef struct app { const char *name; double lo, hi; } app;
static const app APPS[] = { { "SQL", 0.25, 1 }, { "STAT", 1, 4 }, { "KNN", 12, 14 } };

typedef struct mix { const char *name; int count[3]; } mix;
/* compositions (requests of SQL, STAT, KNN): the paper's axis names mixes of the three
 * applications; these cover pairs, all three, and each side heavier */
static const mix MIXES[] = {
    { "SQL+STAT", { 4, 4, 0 } }, { "SQL+KNN", { 4, 0, 4 } }, { "STAT+KNN", { 0, 4, 4 } },
    { "SQL+STAT+KNN", { 3, 3, 2 } }, { "SQL-heavy", { 5, 2, 1 } }, { "KNN-heavy", { 1, 2, 5 } },
};

static csd_params ys9203(const char *policy) {
    csd_params p;
    csd_params_preset(&p, "ys9203");
    p.blocks_per_plane = 4096;
    snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", policy);
    return p;
}

/* requests of 100 MB - 1.2 GB (uniform), c_i uniform in the application's range, in random order */
static size_t fig5_mix(csd_synth_req *r, const mix *m, uint64_t seed, uint64_t page_bytes) {
    uint64_t s = seed * 7919 + (uint64_t)(m - MIXES) * 104729;
    size_t n = 0;
    uint64_t lba = 0;
    for (int a = 0; a < 3; a++) {
        for (int k = 0; k < m->count[a]; k++) {
            uint64_t bytes = (uint64_t)rng_unif(&s, 100e6, 1.2e9);
            uint64_t pages = bytes / page_bytes;
            r[n++] = (csd_synth_req){ .ci_ns = (uint64_t)(rng_unif(&s, APPS[a].lo, APPS[a].hi) * 1000 + 0.5),
                                      .pages = pages, .lba_page = lba, .arrive_ns = 0 };
            lba += pages;
        }
    }
    for (size_t i = n; i > 1; i--) {   /* arrival order within the group */
        size_t j = rng_next(&s) % i;
        csd_synth_req t = r[i - 1];
        r[i - 1] = r[j];
        r[j] = t;
    }
    return n;
}

static int run_row(FILE *out, const char *exp, const char *x, int g, const char *policy, csd_params *p,
                   const csd_synth_req *reqs, size_t n);

static int fig5(int groups, FILE *out) {
    for (size_t mi = 0; mi < sizeof MIXES / sizeof MIXES[0]; mi++) {
        for (int g = 0; g < groups; g++) {
            csd_synth_req reqs[16];
            size_t n = fig5_mix(reqs, &MIXES[mi], (uint64_t)g + 1, 4096);
            for (size_t k = 0; k < NPOL; k++) {
                csd_params p = ys9203(POLICIES[k]);
                if (run_row(out, "fig5", MIXES[mi].name, g, POLICIES[k], &p, reqs, n)) return 1;
            }
        }
    }
    return 0;
}

/* ---- Table I (section II-A): SQL 3 GB + KNN 1 GB on two devices ---------------------------- */

/* Host-only: the host reads both devices over their links in parallel and runs each application on
 * one thread of its CPU, HOST_SPEEDUP times faster per page than a device core (i7-9700K at
 * 3.6 GHz vs a Cortex-R4); reading and computing overlap. */
#define HOST_SPEEDUP 10.0

static int table1(FILE *out) {
    enum { SQL_REQS = 6, KNN_REQS = 2 };
    const uint64_t page = 4096, req_pages = (512ull << 20) / page;   /* 0.5 GiB per request */
    csd_synth_req sql[SQL_REQS], knn[KNN_REQS];
    uint64_t s = 42;
    for (int i = 0; i < SQL_REQS; i++)
        sql[i] = (csd_synth_req){ (uint64_t)(rng_unif(&s, 0.25, 1) * 1000 + 0.5), req_pages, 0, 0 };
    for (int i = 0; i < KNN_REQS; i++)
        knn[i] = (csd_synth_req){ (uint64_t)(rng_unif(&s, 12, 14) * 1000 + 0.5), req_pages, 0, 0 };
    uint64_t bytes = (SQL_REQS + KNN_REQS) * req_pages * page;
    /* host-only */
    csd_params p = ys9203("remus");
    double link_s = bytes / 2.0 / p.host_link_bytes_per_s, sql_s = 0, knn_s = 0;
    for (int i = 0; i < SQL_REQS; i++) sql_s += sql[i].pages * sql[i].ci_ns / HOST_SPEEDUP / 1e9;
    for (int i = 0; i < KNN_REQS; i++) knn_s += knn[i].pages * knn[i].ci_ns / HOST_SPEEDUP / 1e9;
    double host_s = link_s > sql_s ? link_s : sql_s;
    if (knn_s > host_s) host_s = knn_s;
    fprintf(out, "table1,host-only,0,host,%" PRIu64 ",%" PRIu64 ",%.3f,0,0,0\n", (uint64_t)(host_s * 1e9), bytes,
            bytes / host_s / 1e6);
    for (size_t k = 0; k < NPOL; k++) {
        /* dedicated: one device runs the SQL requests, the other the KNN ones; the slower decides */
        csd_synth_req a[SQL_REQS + KNN_REQS], b[SQL_REQS + KNN_REQS];
        uint64_t lba = 0;
        for (int i = 0; i < SQL_REQS; i++, lba += req_pages) a[i] = sql[i], a[i].lba_page = lba;
        lba = 0;
        for (int i = 0; i < KNN_REQS; i++, lba += req_pages) b[i] = knn[i], b[i].lba_page = lba;
        csd_synth_result ra, rb;
        char err[256];
        p = ys9203(POLICIES[k]);
        if (csd_synth_run(&p, a, SQL_REQS, 0, NULL, NULL, &ra, err, sizeof err) ||
            csd_synth_run(&p, b, KNN_REQS, 0, NULL, NULL, &rb, err, sizeof err)) {
            fprintf(stderr, "table1: %s\n", err);
            return 1;
        }
        uint64_t ded = ra.makespan_ns > rb.makespan_ns ? ra.makespan_ns : rb.makespan_ns;
        fprintf(out, "table1,dedicated,0,%s,%" PRIu64 ",%" PRIu64 ",%.3f,0,0,0\n", POLICIES[k], ded, bytes,
                bytes * 1e3 / ded);
        csd_synth_result_free(&ra);
        csd_synth_result_free(&rb);
        /* co-located: each device gets half the SQL and half the KNN requests */
        size_t n = 0;
        lba = 0;
        for (int i = 0; i < SQL_REQS / 2; i++, lba += req_pages) a[n] = sql[i], a[n++].lba_page = lba;
        for (int i = 0; i < KNN_REQS / 2; i++, lba += req_pages) a[n] = knn[i], a[n++].lba_page = lba;
        size_t m = 0;
        lba = 0;
        for (int i = SQL_REQS / 2; i < SQL_REQS; i++, lba += req_pages) b[m] = sql[i], b[m++].lba_page = lba;
        for (int i = KNN_REQS / 2; i < KNN_REQS; i++, lba += req_pages) b[m] = knn[i], b[m++].lba_page = lba;
        if (csd_synth_run(&p, a, n, 0, NULL, NULL, &ra, err, sizeof err) ||
            csd_synth_run(&p, b, m, 0, NULL, NULL, &rb, err, sizeof err)) {
            fprintf(stderr, "table1: %s\n", err);
            return 1;
        }
        uint64_t col = ra.makespan_ns > rb.makespan_ns ? ra.makespan_ns : rb.makespan_ns;
        fprintf(out, "table1,co-located,0,%s,%" PRIu64 ",%" PRIu64 ",%.3f,0,0,0\n", POLICIES[k], col, bytes,
                bytes * 1e3 / col);
        csd_synth_result_free(&ra);
        csd_synth_result_free(&rb);
    }
    return 0;
}

/* ---- scheduler overhead: one decision with 10 pending requests ------------------------------ */

static double wall_s(void);

static int overhead(FILE *out) {
    enum { N = 10, CALLS = 2000000 };
    for (size_t k = 0; k < NPOL; k++) {
        const csd_req_sched_ops *ops = csd_req_sched_find(POLICIES[k]);
        csd_params p = ys9203(POLICIES[k]);
        void *st = NULL;
        if (ops->init(&st, &p)) return 1;
        csd_sreq req[N];
        csd_sreq *view[N];
        uint64_t seed = 5;
        for (int i = 0; i < N; i++) {
            uint64_t S = rng_next(&seed) % 64, P = S / 2;
            req[i] = (csd_sreq){ .id = (uint64_t)i + 1, .S = S, .F = S - S / 4, .P = P, .total = 100000,
                                 .B = 64, .ci_ns = 1000 + rng_next(&seed) % 12000, .core_ns = rng_next(&seed) % 100000,
                                 .req_pages_left = 100000 };
            view[i] = &req[i];
        }
        csd_core_view cv = { .core = 0, .cores = 2, .planes = 4, .Q = 32, .inflight = 16, .buf_pages = 51200,
                             .buf_alloc = 640, .t_send_ns = 1000, .t_read_ns = 65000, .chips = 8, .n = N,
                             .reqs = view };
        volatile size_t sink = 0;
        double t0 = wall_s();
        for (int c = 0; c < CALLS; c++) {
            cv.now = (uint64_t)c * 1000;
            cv.inflight = (uint64_t)(c % 33);
            csd_stage_choice ch = ops->decide(st, &cv);
            sink += ch.idx + ch.stage;
        }
        double ns = (wall_s() - t0) * 1e9 / CALLS;
        (void)sink;
        fprintf(out, "overhead,10,0,%s,0,0,0,%d,0,0,%.1f\n", POLICIES[k], CALLS, ns);
        ops->destroy(st);
    }
    return 0;
}

static double wall_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int run_row(FILE *out, const char *exp, const char *x, int g, const char *policy, csd_params *p,
                   const csd_synth_req *reqs, size_t n) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) bytes += reqs[i].pages * p->page_bytes;
    csd_synth_result res;
    char err[256];
    double t0 = wall_s();
    if (csd_synth_run(p, reqs, n, 0, NULL, NULL, &res, err, sizeof err)) {
        fprintf(stderr, "%s %s %s: %s\n", exp, x, policy, err);
        return 1;
    }
    /* mean core time per decision: the device time one decision is spent against */
    fprintf(out, "%s,%s,%d,%s,%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 "\n", exp, x, g,
            policy, res.makespan_ns, bytes, bytes * 1e3 / res.makespan_ns, res.decisions, res.forced,
            wall_s() - t0, res.decisions ? res.core_busy_ns / res.decisions : 0);
    fflush(out);
    csd_synth_result_free(&res);
    return 0;
}

static int fig4(int groups, FILE *out) {
    static const double XS[] = { 1, 2, 4, 6, 8, 10, 12, 16 };
    for (size_t xi = 0; xi < sizeof XS / sizeof XS[0]; xi++) {
        for (int g = 0; g < groups; g++) {
            csd_synth_req reqs[50];
            csd_params p0 = fig4_params("remus");
            fig4_mix(reqs, 50, XS[xi], (uint64_t)g + 1, p0.page_bytes);
            uint64_t bytes = 0;
            for (int i = 0; i < 50; i++) bytes += reqs[i].pages * p0.page_bytes;
            char x[32];
            snprintf(x, sizeof x, "%g", XS[xi]);
            for (size_t k = 0; k < NPOL; k++) {
                csd_params p = fig4_params(POLICIES[k]);
                if (run_row(out, "fig4", x, g, POLICIES[k], &p, reqs, 50)) return 1;
            }
            csd_params p = fig4_params("remus");
            csd_optimum o;
            double t0 = wall_s();
            if (csd_optimum_schedule(&p, reqs, 50, &o)) {
                fprintf(stderr, "fig4: optimum failed\n");
                return 1;
            }
            fprintf(out, "fig4,%g,%d,optimum,%" PRIu64 ",%" PRIu64 ",%.3f,0,0,%.3f\n", XS[xi], g, o.makespan_ns,
                    bytes, bytes * 1e3 / o.makespan_ns, wall_s() - t0);
            fprintf(out, "fig4,%g,%d,bound,%" PRIu64 ",%" PRIu64 ",%.3f,0,0,0\n", XS[xi], g, o.bound_ns, bytes,
                    bytes * 1e3 / o.bound_ns);
            fflush(out);
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    int groups = argc > 2 ? atoi(argv[2]) : 1;
    FILE *out = stdout;
    if (groups < 1) groups = 1;
    if (!strcmp(mode, "header")) {
        fprintf(out, "experiment,x,group,policy,makespan_ns,bytes,MB_per_s,decisions,forced,wall_s,ns_per_decision\n");
        return 0;
    }
    if (!strcmp(mode, "fig4")) return fig4(groups, out);
    if (!strcmp(mode, "fig5")) return fig5(groups, out);
    if (!strcmp(mode, "table1")) return table1(out);
    if (!strcmp(mode, "overhead")) return overhead(out);
    fprintf(stderr, "usage: bench_remus header | fig4 [groups] | fig5 [groups] | table1 | overhead\n");
    return 2;
}
