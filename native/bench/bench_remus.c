/* bench_remus: the REMUS paper's experiments (Huang et al., sections II-A and IV) on the engine's
 * stage mode, under both adaptations of the baselines (baseline_adaptation: shared-engine, paper).
 * Prints CSV rows (see `header`) on stdout; bench/remus.py drives it, makes the tables and plots,
 * and docs/SCHEDULERS.md explains the setups.
 *   bench_remus fig4 GROUPS CHANNELS READING K,K,.. [Q]   Fig. 4: 50 simulated requests per group; K =
 *                                 mean c_i / c_b (the balance point, eq. 10-11) sets X; READING:
 *                                 halves (6:4 = lower : upper half of [0.2, X], equal sizes) or cb
 *                                 (6:4 = c_i < c_b : c_i > c_b, unequal sizes); every policy under
 *                                 both adaptations, the offline optimum, its lower bound and the
 *                                 serial schedule (room to schedule); Q sets the baselines'
 *                                 isp_flash_quota (REMUS keeps its own; printed as READING/Q<n>)
 *   bench_remus fig5 GROUPS [mib|pages] [Q]  Fig. 5: SQL / STAT / KNN mixes on the ys9203 preset;
 *                                 request sizes in whole MiB (mib, the default: aligned starts) or any
 *                                 page count (pages); Q as in fig4
 *   bench_remus table1 [apps|halfgib]  Table I: host-only vs dedicated vs co-located devices, SQL +
 *                                 KNN, as one request per application (apps) or 0.5 GiB requests
 *   bench_remus ablation K,K,..   CFS under paper, the engine's advantages switched on one at a time,
 *                                 then eq. 12 and Algorithm 1 (REMUS); also each advantage taken away
 *                                 from shared-engine alone and given to paper alone, and HORAE's and
 *                                 SERICO's two readings on either engine; on Fig. 4 (8 channels, group
 *                                 0) and Fig. 5
 *   bench_remus buffer K BYTES,.. the buffer made to bind: Fig. 4 at one K with smaller ISP buffers
 *   bench_remus overhead          CPU time of one scheduling decision with 10 pending requests (the
 *                                 fastest of 5 passes of 2M decisions, thread CPU time)
 * Any mode: --set KEY=VALUE (repeatable, before the mode) sets a device parameter on every run, e.g. a
 * reading of a baseline (horae_critical_path, serico_half_pages, serico_period_ns), and is named in the
 * rows' reading; --policies LIST runs only these baselines (and REMUS) of fig4 and fig5; --paper-as
 * VALUE runs the baselines under that baseline_adaptation instead of "paper" (the rows say which). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smartssd/params.h"
#include "lib/optimum.h"
#include "lib/synth.h"

static const char *const BASELINES[] = { "fcfs", "cfs", "horae", "serico" };
#define NBASE (sizeof BASELINES / sizeof BASELINES[0])
/* the second is "paper" unless --paper-as names another value of baseline_adaptation (e.g. paper+split) */
static const char *ADAPTATIONS[] = { "shared-engine", "paper" };
#define NADAPT (sizeof ADAPTATIONS / sizeof ADAPTATIONS[0])

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

/* --set KEY=VALUE overrides, applied to every csd_params a mode builds (apply_sets) and named in
 * every row's reading (label); --policies LIST: the baselines to run (REMUS always runs; the offline
 * optimum and the serial schedule only when every baseline does) */
static const char *SETS[16];
static int NSETS;
static const char *ONLY;

static int wanted(const char *policy) {
    if (!ONLY) return 1;
    size_t n = strlen(policy);
    for (const char *q = ONLY; (q = strstr(q, policy)) != NULL; q += n)
        if ((q == ONLY || q[-1] == ',') && (q[n] == ',' || q[n] == 0)) return 1;
    return 0;
}

/* reading, then "/KEY=VALUE" for each --set and "/as=VALUE" for --paper-as */
static const char *label(const char *reading) {
    static char buf[512];
    size_t len = (size_t)snprintf(buf, sizeof buf, "%s", reading);
    for (int i = 0; i < NSETS && len < sizeof buf; i++) len += (size_t)snprintf(buf + len, sizeof buf - len, "/%s", SETS[i]);
    if (strcmp(ADAPTATIONS[1], "paper") && len < sizeof buf) snprintf(buf + len, sizeof buf - len, "/as=%s", ADAPTATIONS[1]);
    return buf;
}

/* KEY=VALUE on p; exits with the message when the device refuses it */
static void set_kv(csd_params *p, const char *kv) {
    char key[64], err[256];
    const char *eq = strchr(kv, '=');
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
    if (csd_params_set(p, key, eq + 1, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", kv, err);
        exit(2);
    }
}

static void apply_sets(csd_params *p) {
    for (int i = 0; i < NSETS; i++) set_kv(p, SETS[i]);
}

/* CPU time of this thread: a decision's cost without the time other processes hold the core */
static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double wall_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* One row: what was run and how it went. */
typedef struct row {
    const char *exp, *x, *policy, *adapt, *reading;
    int group;
    uint32_t channels;
    double k, x_us;
} row;

static void print_row(FILE *out, const row *r, uint64_t makespan, uint64_t bytes, uint64_t decisions,
                      uint64_t forced, double wall, uint64_t ns_per_decision, uint64_t reads) {
    fprintf(out, "%s,%s,%d,%s,%s,%u,%s,%.4f,%.4f,%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64
            ",%" PRIu64 "\n", r->exp, r->x, r->group, r->policy, r->adapt, r->channels, r->reading, r->k, r->x_us,
            makespan, bytes, makespan ? bytes * 1e3 / makespan : 0, decisions, forced, wall, ns_per_decision, reads);
    fflush(out);
}

static void set_policy(csd_params *p, const char *policy, const char *adapt) {
    snprintf(p->request_scheduler, sizeof p->request_scheduler, "%s", policy);
    snprintf(p->baseline_adaptation, sizeof p->baseline_adaptation, "%s", adapt);
}

static uint64_t mix_bytes(const csd_params *p, const csd_synth_req *reqs, size_t n) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) bytes += reqs[i].pages * p->page_bytes;
    return bytes;
}

/* Runs the mix under p and prints its row; *makespan gets the result. 0 or 1. */
static int run_row(FILE *out, const row *r, const csd_params *p, const csd_synth_req *reqs, size_t n,
                   uint64_t *makespan) {
    csd_synth_result res;
    char err[256];
    double t0 = wall_s();
    if (csd_synth_run(p, reqs, n, 0, NULL, NULL, &res, err, sizeof err)) {
        fprintf(stderr, "%s %s %s %s: %s\n", r->exp, r->x, r->policy, r->adapt, err);
        return 1;
    }
    /* mean core time per decision: the device time one decision is spent against */
    print_row(out, r, res.makespan_ns, mix_bytes(p, reqs, n), res.decisions, res.forced, wall_s() - t0,
              res.decisions ? res.core_busy_ns / res.decisions : 0, res.flash_reads);
    if (makespan) *makespan = res.makespan_ns;
    csd_synth_result_free(&res);
    return 0;
}

/* REMUS once (the same under every adaptation: a row per adaptation), then every baseline under both
 * adaptations; base_quota, when not 0, is the baselines' isp_flash_quota (REMUS keeps its own). */
static int run_policies(FILE *out, row r, const csd_params *base, const csd_synth_req *reqs, size_t n,
                        uint32_t base_quota) {
    csd_params p = *base;
    set_policy(&p, "remus", "shared-engine");
    csd_synth_result res;
    char err[256];
    double t0 = wall_s();
    if (csd_synth_run(&p, reqs, n, 0, NULL, NULL, &res, err, sizeof err)) {
        fprintf(stderr, "%s %s remus: %s\n", r.exp, r.x, err);
        return 1;
    }
    double wall = wall_s() - t0;
    r.policy = "remus";
    for (size_t a = 0; a < NADAPT; a++) {
        r.adapt = ADAPTATIONS[a];
        print_row(out, &r, res.makespan_ns, mix_bytes(&p, reqs, n), res.decisions, res.forced, wall,
                  res.decisions ? res.core_busy_ns / res.decisions : 0, res.flash_reads);
    }
    csd_synth_result_free(&res);
    for (size_t a = 0; a < NADAPT; a++) {
        for (size_t k = 0; k < NBASE; k++) {
            if (!wanted(BASELINES[k])) continue;
            p = *base;
            set_policy(&p, BASELINES[k], ADAPTATIONS[a]);
            if (base_quota) p.isp_flash_quota = base_quota;
            r.policy = BASELINES[k];
            r.adapt = ADAPTATIONS[a];
            if (run_row(out, &r, &p, reqs, n, NULL)) return 1;
        }
    }
    return 0;
}

/* The offline optimum, its lower bound, and the serial schedule: each request alone at its own lower
 * bound, one after another (one perfectly pipelined request at a time). serial / bound is the room a
 * scheduler has on this mix. */
static int run_references(FILE *out, row r, const csd_params *p, const csd_synth_req *reqs, size_t n) {
    if (ONLY) return 0;
    csd_optimum o;
    double t0 = wall_s();
    if (csd_optimum_schedule(p, reqs, n, &o)) {
        fprintf(stderr, "%s %s: optimum failed\n", r.exp, r.x);
        return 1;
    }
    uint64_t bytes = mix_bytes(p, reqs, n), serial = 0;
    r.adapt = "-";
    r.policy = "optimum";
    print_row(out, &r, o.makespan_ns, bytes, 0, 0, wall_s() - t0, 0, o.sends);
    r.policy = "bound";
    print_row(out, &r, o.bound_ns, bytes, 0, 0, 0, 0, 0);
    for (size_t i = 0; i < n; i++) {
        csd_optimum one;
        if (csd_optimum_schedule(p, &reqs[i], 1, &one)) return 1;
        serial += one.bound_ns;
    }
    r.policy = "serial";
    print_row(out, &r, serial, bytes, 0, 0, 0, 0, 0);
    return 0;
}

/* ---- Fig. 4: the simulator (section IV-B) -------------------------------------------------- */

/* Section IV-B: T_s = 1 us, T_f = 65 us, N_c = 2, N_pl = 2, N_ch = 2 chips per channel; 8 channels
 * as the YS9203 the simulator mimics (2 and 4 in the channel sweep); 4 KB pages; 80 MB buffer. */
static csd_params fig4_params(uint32_t channels) {
    csd_params p;
    csd_params_preset(&p, "ys9203");
    p.channels = channels;
    p.planes_per_die = 2;
    p.blocks_per_plane = 4096 * 8 / channels;
    p.channel_bytes_per_s = 0;          /* the model has no channel: T_f is the whole read */
    p.isp_buffer_bytes = 80ull << 20;
    apply_sets(&p);
    return p;
}

/* The balance point of eq. 10-11 (T_cpu = T_fb) per page, in us: a core's chips deliver a page
 * every T_f / (chips per core x N_pl); sending costs T_s / N_pl per page. */
static double balance_us(const csd_params *p) {
    double chips_per_core = (double)p->channels * p->chips_per_channel / p->cores;
    return p->t_read_ns / 1e3 / (chips_per_core * p->planes_per_die) - p->isp_send_ns / 1e3 / p->planes_per_die;
}

/* X for a target mean c_i = k c_b: "halves" draws 60% from [0.2, mid] and 40% from [mid, X] with
 * mid = (0.2 + X) / 2, mean 0.11 + 0.45 X; "cb" draws 60% from [0.2, c_b] and 40% from [c_b, X], mean
 * 0.3 (0.2 + c_b) + 0.2 (c_b + X). */
static double x_for(const char *reading, double k, double cb) {
    if (!strcmp(reading, "cb")) return (k * cb - 0.06 - 0.5 * cb) / 0.2;
    return (k * cb - 0.11) / 0.45;
}

/* 50 requests, 1 GiB in all, c_i uniform in [0.2, X] us, shorter : longer = 6 : 4 by the reading;
 * each request on its own LBA range. "halves": equal sizes; "cb": sizes uniform in [0.25, 1.75] x the
 * mean (scaled to 1 GiB). */
static void fig4_mix(csd_synth_req *r, size_t n, const char *reading, double x_us, double cb, uint64_t seed,
                     uint64_t page_bytes) {
    uint64_t s = seed * 1000003 + (uint64_t)(x_us * 1000);
    uint64_t total = (1ull << 30) / page_bytes, lba = 0;
    int by_cb = !strcmp(reading, "cb");
    double split = by_cb ? cb : (0.2 + x_us) / 2, w[64], wsum = 0;
    for (size_t i = 0; i < n; i++) {
        w[i] = by_cb ? rng_unif(&s, 0.25, 1.75) : 1.0;
        wsum += w[i];
    }
    uint64_t given = 0;
    for (size_t i = 0; i < n; i++) {
        int shorter = i % 5 < 3;
        double ci = shorter ? rng_unif(&s, 0.2, split) : rng_unif(&s, split, x_us);
        uint64_t pages = i + 1 == n ? total - given : (uint64_t)(total * w[i] / wsum);
        given += pages;
        r[i] = (csd_synth_req){ .ci_ns = (uint64_t)(ci * 1000 + 0.5), .pages = pages, .lba_page = lba,
                                .arrive_ns = 0 };
        lba += pages;
    }
}

static int parse_list(const char *s, double *v, int max) {
    int n = 0;
    for (char *end; *s && n < max; s = *end ? end + 1 : end) {
        v[n++] = strtod(s, &end);
        if (end == s) return -1;
    }
    return n;
}

static int fig4(FILE *out, int groups, uint32_t channels, const char *reading, const double *ks, int nk,
                uint32_t quota) {
    csd_params p = fig4_params(channels);
    char named[32];
    if (quota) snprintf(named, sizeof named, "%s/Q%u", reading, quota);
    else snprintf(named, sizeof named, "%s", reading);
    double cb = balance_us(&p);
    for (int ki = 0; ki < nk; ki++) {
        double x_us = x_for(reading, ks[ki], cb);
        if (x_us <= 0.2 || (!strcmp(reading, "cb") && x_us <= cb)) {
            fprintf(stderr, "fig4: K = %g gives X = %.3f us: out of range for reading %s\n", ks[ki], x_us, reading);
            return 1;
        }
        char x[32];
        snprintf(x, sizeof x, "%g", ks[ki]);
        for (int g = 0; g < groups; g++) {
            csd_synth_req reqs[50];
            fig4_mix(reqs, 50, reading, x_us, cb, (uint64_t)g + 1, p.page_bytes);
            row r = { .exp = "fig4", .x = x, .group = g, .channels = channels, .reading = label(named), .k = ks[ki],
                      .x_us = x_us };
            if (run_policies(out, r, &p, reqs, 50, quota) || run_references(out, r, &p, reqs, 50)) return 1;
        }
    }
    return 0;
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
#define NMIX (sizeof MIXES / sizeof MIXES[0])

static csd_params ys9203(void) {
    csd_params p;
    csd_params_preset(&p, "ys9203");
    p.blocks_per_plane = 4096;
    apply_sets(&p);
    return p;
}

/* requests of 100 MB - 1.2 GB (uniform), c_i uniform in the application's range, in random order;
 * whole_mib: each size rounded to whole MiB, so every request starts on a multi-plane group (the
 * paper's "100 MB to 1.2 GB" read as files of whole megabytes), else any page count (the requests
 * then start at LBAs that cut N_pl-page groups) */
static size_t fig5_mix(csd_synth_req *r, const mix *m, uint64_t seed, uint64_t page_bytes, int whole_mib) {
    uint64_t s = seed * 7919 + (uint64_t)(m - MIXES) * 104729;
    size_t n = 0;
    uint64_t lba = 0;
    for (int a = 0; a < 3; a++) {
        for (int k = 0; k < m->count[a]; k++) {
            uint64_t bytes = (uint64_t)rng_unif(&s, 100e6, 1.2e9);
            if (whole_mib) bytes = (bytes + (1u << 19)) >> 20 << 20;
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

static int fig5(FILE *out, int groups, const char *sizes, uint32_t quota) {
    csd_params p = ys9203();
    int whole_mib = !strcmp(sizes, "mib");
    char named[32];
    if (quota) snprintf(named, sizeof named, "%s/Q%u", sizes, quota);
    else snprintf(named, sizeof named, "%s", sizes);
    for (size_t mi = 0; mi < NMIX; mi++) {
        for (int g = 0; g < groups; g++) {
            csd_synth_req reqs[16];
            size_t n = fig5_mix(reqs, &MIXES[mi], (uint64_t)g + 1, 4096, whole_mib);
            row r = { .exp = "fig5", .x = MIXES[mi].name, .group = g, .channels = p.channels,
                      .reading = label(named) };
            if (run_policies(out, r, &p, reqs, n, quota) || run_references(out, r, &p, reqs, n)) return 1;
        }
    }
    return 0;
}

/* ---- the ablation ---------------------------------------------------------------------------- */

/* Cumulative: from CFS under paper, one engine advantage at a time, then REMUS's own parts. set: a
 * device parameter of the step (a reading of the policy), or NULL. */
static const struct step { const char *label, *policy, *adapt, *set; } STEPS[] = {
    { "cfs paper", "cfs", "paper", NULL },
    { "+ per-chip core split", "cfs", "paper+split", NULL },
    { "+ whole multi-plane", "cfs", "paper+split+mp", NULL },
    { "+ chip-aware order", "cfs", "paper+split+mp+order", NULL },
    { "+ decoupled loop", "cfs", "paper+split+mp+order+loop", NULL },
    { "+ eq. 12 buffers", "cfs", "paper+split+mp+order+loop+eq12", NULL },
    { "+ Algorithm 1 (REMUS)", "remus", "shared-engine", NULL },
    /* each advantage alone taken from shared-engine CFS */
    { "shared-engine - split", "cfs", "paper+mp+order+loop", NULL },
    { "shared-engine - multi-plane", "cfs", "paper+split+order+loop", NULL },
    { "shared-engine - order", "cfs", "paper+split+mp+loop", NULL },
    { "shared-engine - loop", "cfs", "paper+split+mp+order", NULL },
    /* each advantage alone given to CFS under paper (+ split alone is the first step above) */
    { "paper + multi-plane alone", "cfs", "paper+mp", NULL },
    { "paper + order alone", "cfs", "paper+order", NULL },
    { "paper + loop alone", "cfs", "paper+loop", NULL },
    /* HORAE's two readings of its critical path and SERICO's of its halves, on either engine */
    { "horae paper (remaining-work path)", "horae", "paper", NULL },
    { "horae paper: predecessor path", "horae", "paper", "horae_critical_path=predecessor" },
    { "horae predecessor path on shared engine", "horae", "shared-engine", "horae_critical_path=predecessor" },
    { "horae shared-engine", "horae", "shared-engine", NULL },
    { "serico paper", "serico", "paper", NULL },
    { "serico paper +pol (our policy)", "serico", "paper+pol", NULL },
    { "serico paper policy on shared engine", "serico", "paper+split+mp+order+loop", NULL },
    { "serico shared-engine", "serico", "shared-engine", NULL },
};
#define NCUMULATIVE 7   /* the first steps: CFS under paper to REMUS */
#define NSTEP (sizeof STEPS / sizeof STEPS[0])

static int ablation(FILE *out, const double *ks, int nk) {
    csd_params base = fig4_params(8);
    double cb = balance_us(&base);
    for (int ki = 0; ki < nk; ki++) {
        double x_us = x_for("halves", ks[ki], cb);
        csd_synth_req reqs[50];
        fig4_mix(reqs, 50, "halves", x_us, cb, 1, base.page_bytes);
        char x[32];
        snprintf(x, sizeof x, "%g", ks[ki]);
        for (size_t s = 0; s < NSTEP; s++) {
            csd_params p = base;
            set_policy(&p, STEPS[s].policy, STEPS[s].adapt);
            if (STEPS[s].set) set_kv(&p, STEPS[s].set);
            row r = { .exp = "ablation4", .x = x, .policy = STEPS[s].label, .adapt = STEPS[s].adapt, .channels = 8,
                      .reading = "halves", .k = ks[ki], .x_us = x_us };
            if (run_row(out, &r, &p, reqs, 50, NULL)) return 1;
        }
    }
    csd_params y = ys9203();
    for (size_t mi = 0; mi < NMIX; mi++) {
        csd_synth_req reqs[16];
        size_t n = fig5_mix(reqs, &MIXES[mi], 1, 4096, 1);
        for (size_t s = 0; s < NSTEP; s++) {
            csd_params p = y;
            set_policy(&p, STEPS[s].policy, STEPS[s].adapt);
            if (STEPS[s].set) set_kv(&p, STEPS[s].set);
            row r = { .exp = "ablation5", .x = MIXES[mi].name, .policy = STEPS[s].label, .adapt = STEPS[s].adapt,
                      .channels = y.channels, .reading = "-" };
            if (run_row(out, &r, &p, reqs, n, NULL)) return 1;
        }
    }
    return 0;
}

/* ---- the buffer made to bind ------------------------------------------------------------------ */

static int buffer(FILE *out, double k, const double *sizes, int ns) {
    for (int i = 0; i < ns; i++) {
        csd_params p = fig4_params(8);
        p.isp_buffer_bytes = (uint64_t)sizes[i];
        double cb = balance_us(&p), x_us = x_for("halves", k, cb);
        csd_synth_req reqs[50];
        fig4_mix(reqs, 50, "halves", x_us, cb, 1, p.page_bytes);
        char x[32];
        snprintf(x, sizeof x, "%g", sizes[i]);
        row r = { .exp = "buffer", .x = x, .channels = 8, .reading = "halves", .k = k, .x_us = x_us };
        if (run_policies(out, r, &p, reqs, 50, 0)) return 1;
    }
    return 0;
}

/* ---- Table I (section II-A): SQL 3 GB + KNN 1 GB on two devices ---------------------------- */

/* Host-only: the host reads both devices over their links in parallel and runs each application on
 * one thread of its CPU, HOST_SPEEDUP times faster per page than a device core (i7-9700K at
 * 3.6 GHz vs a Cortex-R4); reading and computing overlap. */
#define HOST_SPEEDUP 10.0

/* Runs the two devices' mixes; the slower one decides. */
static int two_devices(const csd_params *p, const csd_synth_req *a, size_t na, const csd_synth_req *b, size_t nb,
                       uint64_t *makespan) {
    csd_synth_result ra, rb;
    char err[256];
    if (csd_synth_run(p, a, na, 0, NULL, NULL, &ra, err, sizeof err)) {
        fprintf(stderr, "table1: %s\n", err);
        return 1;
    }
    if (csd_synth_run(p, b, nb, 0, NULL, NULL, &rb, err, sizeof err)) {
        fprintf(stderr, "table1: %s\n", err);
        csd_synth_result_free(&ra);
        return 1;
    }
    *makespan = ra.makespan_ns > rb.makespan_ns ? ra.makespan_ns : rb.makespan_ns;
    csd_synth_result_free(&ra);
    csd_synth_result_free(&rb);
    return 0;
}

/* apps: the paper's "two requests" (II-A): SQL's 3 GiB one request and KNN's 1 GiB another; the
 * dedicated devices run one each, co-located each device runs half of each (a 1.5 GiB SQL request
 * and a 0.5 GiB KNN one). Else requests of 0.5 GiB (6 SQL, 2 KNN). Rows name the reading "apps" or
 * "halfgib". The same work either way: one request's c_i is the mean of its 0.5 GiB parts'. */
static int table1(FILE *out, int apps) {
    enum { SQL_REQS = 6, KNN_REQS = 2 };
    const uint64_t page = 4096, req_pages = (512ull << 20) / page;   /* 0.5 GiB per request */
    csd_synth_req sql[SQL_REQS], knn[KNN_REQS];
    uint64_t s = 42;
    for (int i = 0; i < SQL_REQS; i++)
        sql[i] = (csd_synth_req){ (uint64_t)(rng_unif(&s, 0.25, 1) * 1000 + 0.5), req_pages, 0, 0 };
    for (int i = 0; i < KNN_REQS; i++)
        knn[i] = (csd_synth_req){ (uint64_t)(rng_unif(&s, 12, 14) * 1000 + 0.5), req_pages, 0, 0 };
    uint64_t bytes = (SQL_REQS + KNN_REQS) * req_pages * page;
    /* dedicated: one device runs the SQL requests, the other the KNN ones; co-located: each device
     * gets half the SQL and half the KNN requests */
    csd_synth_req ded_a[SQL_REQS], ded_b[KNN_REQS], col_a[SQL_REQS + KNN_REQS], col_b[SQL_REQS + KNN_REQS];
    size_t nded_a = SQL_REQS, nded_b = KNN_REQS, na = 0, nb = 0;
    if (apps) {
        uint64_t cs = 0, ck = 0;
        for (int i = 0; i < SQL_REQS; i++) cs += sql[i].ci_ns;
        for (int i = 0; i < KNN_REQS; i++) ck += knn[i].ci_ns;
        cs /= SQL_REQS;
        ck /= KNN_REQS;
        for (int i = 0; i < SQL_REQS; i++) sql[i].ci_ns = cs;
        for (int i = 0; i < KNN_REQS; i++) knn[i].ci_ns = ck;
        ded_a[0] = (csd_synth_req){ cs, SQL_REQS * req_pages, 0, 0 };
        ded_b[0] = (csd_synth_req){ ck, KNN_REQS * req_pages, 0, 0 };
        nded_a = nded_b = 1;
        for (int d = 0; d < 2; d++) {
            csd_synth_req *col = d ? col_b : col_a;
            col[0] = (csd_synth_req){ cs, SQL_REQS / 2 * req_pages, 0, 0 };
            col[1] = (csd_synth_req){ ck, KNN_REQS / 2 * req_pages, SQL_REQS / 2 * req_pages, 0 };
        }
        na = nb = 2;
    } else {
        uint64_t lba = 0;
        for (int i = 0; i < SQL_REQS; i++, lba += req_pages) ded_a[i] = sql[i], ded_a[i].lba_page = lba;
        lba = 0;
        for (int i = 0; i < KNN_REQS; i++, lba += req_pages) ded_b[i] = knn[i], ded_b[i].lba_page = lba;
        lba = 0;
        for (int i = 0; i < SQL_REQS / 2; i++, lba += req_pages) col_a[na] = sql[i], col_a[na++].lba_page = lba;
        for (int i = 0; i < KNN_REQS / 2; i++, lba += req_pages) col_a[na] = knn[i], col_a[na++].lba_page = lba;
        lba = 0;
        for (int i = SQL_REQS / 2; i < SQL_REQS; i++, lba += req_pages) col_b[nb] = sql[i], col_b[nb++].lba_page = lba;
        for (int i = KNN_REQS / 2; i < KNN_REQS; i++, lba += req_pages) col_b[nb] = knn[i], col_b[nb++].lba_page = lba;
    }

    /* host-only */
    csd_params p = ys9203();
    double link_s = bytes / 2.0 / p.host_link_bytes_per_s, sql_s = 0, knn_s = 0;
    for (int i = 0; i < SQL_REQS; i++) sql_s += sql[i].pages * sql[i].ci_ns / HOST_SPEEDUP / 1e9;
    for (int i = 0; i < KNN_REQS; i++) knn_s += knn[i].pages * knn[i].ci_ns / HOST_SPEEDUP / 1e9;
    double host_s = link_s > sql_s ? link_s : sql_s;
    if (knn_s > host_s) host_s = knn_s;
    row r = { .exp = "table1", .x = "host-only", .policy = "host", .adapt = "-", .channels = p.channels,
              .reading = label(apps ? "apps" : "halfgib") };
    print_row(out, &r, (uint64_t)(host_s * 1e9), bytes, 0, 0, 0, 0, 0);

    /* every policy under both adaptations (REMUS once), and REMUS with Q_thres uncapped */
    typedef struct t1run { const char *policy, *adapt, *label; uint32_t cap; } t1run;
    t1run runs[2 + NBASE * NADAPT];
    size_t nr = 0;
    runs[nr++] = (t1run){ "remus", "shared-engine", "remus", 1 };
    runs[nr++] = (t1run){ "remus", "shared-engine", "remus-uncapped", 0 };
    for (size_t a = 0; a < NADAPT; a++)
        for (size_t k = 0; k < NBASE; k++) runs[nr++] = (t1run){ BASELINES[k], ADAPTATIONS[a], BASELINES[k], 1 };
    for (size_t i = 0; i < nr; i++) {
        p = ys9203();
        set_policy(&p, runs[i].policy, runs[i].adapt);
        p.remus_qthres_cap = runs[i].cap;
        uint64_t ded, col, knn_alone = 0;
        csd_synth_result rk;
        char err[256];
        if (two_devices(&p, ded_a, nded_a, ded_b, nded_b, &ded) ||
            two_devices(&p, col_a, na, col_b, nb, &col))
            return 1;
        if (csd_synth_run(&p, ded_b, nded_b, 0, NULL, NULL, &rk, err, sizeof err)) return 1;
        knn_alone = rk.makespan_ns;
        csd_synth_result_free(&rk);
        int copies = !strcmp(runs[i].policy, "remus") ? (int)NADAPT : 1;
        for (int c = 0; c < copies; c++) {
            r.policy = runs[i].label;
            r.adapt = copies > 1 ? ADAPTATIONS[c] : runs[i].adapt;
            r.x = "dedicated";
            print_row(out, &r, ded, bytes, 0, 0, 0, 0, 0);
            r.x = "co-located";
            print_row(out, &r, col, bytes, 0, 0, 0, 0, 0);
            r.x = "knn-device";
            print_row(out, &r, knn_alone, KNN_REQS * req_pages * page, 0, 0, 0, 0, 0);
        }
    }
    /* the co-located devices' lower bound (the slower device's) */
    csd_optimum oa, ob;
    p = ys9203();
    if (csd_optimum_schedule(&p, col_a, na, &oa) || csd_optimum_schedule(&p, col_b, nb, &ob)) return 1;
    r.policy = "bound";
    r.adapt = "-";
    r.x = "co-located";
    print_row(out, &r, oa.bound_ns > ob.bound_ns ? oa.bound_ns : ob.bound_ns, bytes, 0, 0, 0, 0, 0);
    return 0;
}

/* ---- scheduler overhead: one decision with 10 pending requests ------------------------------ */

static int overhead(FILE *out) {
    enum { N = 10, CALLS = 2000000, REPS = 5 };
    static const char *const ALL[] = { "fcfs", "cfs", "horae", "serico", "remus" };
    for (size_t k = 0; k < sizeof ALL / sizeof ALL[0]; k++) {
        const csd_req_stage_ops *ops = csd_req_stage_find(ALL[k]);
        csd_params p = ys9203();
        set_policy(&p, ALL[k], "shared-engine");
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
                             .buf_alloc = 640, .t_send_ns = 1000, .t_read_ns = 65000, .chips = 8,
                             .adapt = CSD_ADAPT_ENGINE, .n = N, .reqs = view };
        volatile size_t sink = 0;
        double ns = 0;
        for (int rep = 0; rep < REPS; rep++) {   /* the fastest of REPS: other load only slows a pass */
            double t0 = cpu_s();
            for (int c = 0; c < CALLS; c++) {
                cv.now = (uint64_t)c * 1000;
                cv.inflight = (uint64_t)(c % 33);
                csd_stage_choice ch = ops->decide(st, &cv);
                sink += ch.idx + ch.stage;
            }
            double t = (cpu_s() - t0) * 1e9 / CALLS;
            if (rep == 0 || t < ns) ns = t;
        }
        (void)sink;
        row r = { .exp = "overhead", .x = "10", .policy = ALL[k], .adapt = "shared-engine", .channels = 8,
                  .reading = "-" };
        fprintf(out, "%s,%s,0,%s,%s,%u,-,0,0,0,0,0,%d,0,0,%.1f,0\n", r.exp, r.x, r.policy, r.adapt, r.channels, CALLS,
                ns);
        ops->destroy(st);
    }
    return 0;
}

int main(int argc, char **argv) {
    while (argc > 2 && (!strcmp(argv[1], "--set") || !strcmp(argv[1], "--policies") || !strcmp(argv[1], "--paper-as"))) {
        if (!strcmp(argv[1], "--policies")) ONLY = argv[2];
        else if (!strcmp(argv[1], "--paper-as")) ADAPTATIONS[1] = argv[2];
        else if (!strchr(argv[2], '=') || NSETS == (int)(sizeof SETS / sizeof SETS[0])) goto usage;
        else SETS[NSETS++] = argv[2];
        argv += 2;
        argc -= 2;
    }
    const char *mode = argc > 1 ? argv[1] : "";
    FILE *out = stdout;
    double v[64];
    if (!strcmp(mode, "header")) {
        fprintf(out, "experiment,x,group,policy,adaptation,channels,reading,k,X_us,makespan_ns,bytes,MB_per_s,"
                     "decisions,forced,wall_s,ns_per_decision,flash_reads\n");
        return 0;
    }
    if (!strcmp(mode, "fig4") && (argc == 6 || argc == 7)) {
        int n = parse_list(argv[5], v, 64);
        if (n <= 0 || (strcmp(argv[4], "halves") && strcmp(argv[4], "cb"))) goto usage;
        return fig4(out, atoi(argv[2]) > 0 ? atoi(argv[2]) : 1, (uint32_t)atoi(argv[3]), argv[4], v, n,
                    argc == 7 ? (uint32_t)atoi(argv[6]) : 0);
    }
    if (!strcmp(mode, "fig5") && argc <= 5) {
        const char *sizes = argc > 3 ? argv[3] : "mib";
        if (strcmp(sizes, "pages") && strcmp(sizes, "mib")) goto usage;
        return fig5(out, argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 1, sizes, argc > 4 ? (uint32_t)atoi(argv[4]) : 0);
    }
    if (!strcmp(mode, "table1") && argc <= 3) {
        const char *reqs = argc > 2 ? argv[2] : "apps";
        if (strcmp(reqs, "apps") && strcmp(reqs, "halfgib")) goto usage;
        return table1(out, !strcmp(reqs, "apps"));
    }
    if (!strcmp(mode, "overhead")) return overhead(out);
    if (!strcmp(mode, "ablation") && argc == 3) {
        int n = parse_list(argv[2], v, 64);
        if (n <= 0) goto usage;
        return ablation(out, v, n);
    }
    if (!strcmp(mode, "buffer") && argc == 4) {
        int n = parse_list(argv[3], v, 64);
        if (n <= 0) goto usage;
        return buffer(out, atof(argv[2]), v, n);
    }
usage:
    fprintf(stderr, "usage: bench_remus [--set KEY=VALUE].. [--policies LIST] [--paper-as ADAPTATION] header | fig4 GROUPS CHANNELS halves|cb K,K,.. [Q] | fig5 [GROUPS [mib|pages [Q]]] | table1 [apps|halfgib] | "
                    "ablation K,K,.. | buffer K BYTES,BYTES,.. | overhead\n");
    return 2;
}
