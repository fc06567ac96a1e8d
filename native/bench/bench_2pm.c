/* bench_2pm: the 2PM paper's evaluation (Yoon et al., IEEE Access 2021, section V) on the engine and
 * flash model with the 2pm preset. Prints CSV rows (see HEADER) on stdout; bench/twopm.py drives it,
 * makes the tables and plots, and docs/2PM.md explains the setup.
 *   bench_2pm fig9 [W,W,..]              every workload (default all 16) under every chip policy
 *   bench_2pm sens qd|slots|chips V,V,.. [W,W,..]   Fig. 12: one parameter varied
 * Options (before the subcommand): --qd N (requests in the device, default 16), --slots N
 * (chip_queue_slots, default the preset's), --chips N, --passes N (chip_max_passes), --requests N,
 * --policies a,b,.. (default paq,slacker,cars,flin,2pm,2pm+; the first is the baseline of the
 * delays). Latency: from entering the device to the end of the second stage (the paper's in-storage
 * processing latency). Delay (Fig. 11): per key request, its latency minus the baseline's, when
 * positive. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/twopm.h"

#define HEADER                                                                                          \
    "exp,workload,policy,qd,slots,chips,passes,isp_key,isp_nonkey,writes,migrations,"                   \
    "key_ns,nonkey_ns,write_ns,"                                                                        \
    "key_p99_ns,nonkey_p99_ns,makespan_ns,delayed_key,delay_total_ns,delay_p9999_ns,delay_max_ns,"        \
    "key_detect_ns,key_detected"

typedef struct opts {
    uint32_t qd, slots, chips, passes, requests;
    double density;
    uint32_t isp_pages[4];
    int isp_set;
    int slots_set, chips_set, passes_set;
    char *policies[16];
    int npol;
} opts;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *v, size_t n, double q) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

static void set_geometry(csd_params *p, uint32_t chips) {
    p->channels = chips < 8 ? chips : 8;
    p->chips_per_channel = chips / p->channels;
}

static int parse_list(const char *s, uint32_t *v, int max) {
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) v[n++] = (uint32_t)strtoul(t, NULL, 10);
    free(copy);
    return n;
}

/* One workload under every policy; rows to stdout. */
static int run_workload(const char *exp, int wi, const opts *o, uint32_t qd, uint32_t slots, uint32_t chips) {
    twopm_mix m;
    twopm_workload(wi, &m);
    if (o->requests) m.requests = o->requests;
    if (o->density > 0) m.key_density = o->density;
    if (o->isp_set) memcpy(m.isp_pages, o->isp_pages, sizeof m.isp_pages);
    twopm_result base = { 0 };
    for (int pi = 0; pi < o->npol; pi++) {
        csd_params p;
        if (csd_params_preset(&p, "2pm")) return -EINVAL;
        set_geometry(&p, chips);
        p.blocks_per_plane = 512;
        p.chip_queue_slots = slots;
        if (o->passes_set) p.chip_max_passes = o->passes;
        snprintf(p.chip_scheduler, sizeof p.chip_scheduler, "%s", o->policies[pi]);
        twopm_result r;
        char err[512] = "";
        int rc = twopm_run(&p, &m, qd, &r, err, sizeof err);
        if (rc) {
            fprintf(stderr, "bench_2pm: %s %s: %s\n", m.name, o->policies[pi], err);
            return rc;
        }
        uint64_t nk = 0, nn = 0, nw = 0, sk = 0, sn = 0, sw = 0;
        uint64_t *kv = malloc(sizeof *kv * r.n), *nv = malloc(sizeof *nv * r.n), *dv = malloc(sizeof *dv * r.n);
        uint64_t delayed = 0, dtotal = 0, dmax = 0, nd = 0, ndet = 0, sdet = 0;
        for (size_t i = 0; i < r.n; i++) {
            const twopm_req_result *q = &r.req[i];
            uint64_t svc = q->finish_ns - q->dispatch_ns;
            if (q->kind == TWOPM_WRITE) {
                nw++;
                sw += svc;
            } else if (q->key) {
                kv[nk++] = svc;
                sk += svc;
                if (q->matched_ns) {   /* detected: a page matched on its own (not only cut lines) */
                    ndet++;
                    sdet += q->matched_ns - q->dispatch_ns;
                }
                if (base.req) {
                    const twopm_req_result *b = &base.req[i];
                    uint64_t bsvc = b->finish_ns - b->dispatch_ns;
                    uint64_t d = svc > bsvc ? svc - bsvc : 0;
                    dv[nd++] = d;
                    if (d) {
                        delayed++;
                        dtotal += d;
                        if (d > dmax) dmax = d;
                    }
                }
            } else {
                nv[nn++] = svc;
                sn += svc;
            }
        }
        printf("%s,%s,%s,%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%.0f,%.0f,%" PRIu64
               ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%" PRIu64 "\n",
               exp, m.name, o->policies[pi], qd, slots, chips, p.chip_max_passes, nk, nn, nw, r.migrations,
               nk ? (double)sk / nk : 0, nn ? (double)sn / nn : 0, nw ? (double)sw / nw : 0, pct(kv, nk, 0.99), pct(nv, nn, 0.99), r.makespan_ns, delayed, dtotal,
               pct(dv, nd, 0.9999), dmax, ndet ? (double)sdet / ndet : 0, ndet);
        fflush(stdout);
        free(kv);
        free(nv);
        free(dv);
        if (pi == 0) base = r;
        else twopm_result_free(&r);
    }
    twopm_result_free(&base);
    return 0;
}

static void usage(void) {
    fprintf(stderr, "usage: bench_2pm [--qd N] [--slots N] [--chips N] [--passes N] [--requests N] [--policies a,b]\n"
                    "                 fig9 [W,W,..] | sens qd|slots|chips V,V,.. [W,W,..]\n");
    exit(2);
}

int main(int argc, char **argv) {
    opts o = { .qd = 16, .chips = 16 };
    static const char *const DEFAULT_POLICIES[] = { "paq", "slacker", "cars", "flin", "2pm", "2pm+" };
    static const struct option longopts[] = {
        { "qd", required_argument, NULL, 'q' }, { "slots", required_argument, NULL, 's' },
        { "chips", required_argument, NULL, 'c' }, { "passes", required_argument, NULL, 'p' },
        { "requests", required_argument, NULL, 'r' }, { "policies", required_argument, NULL, 'P' },
        { "density", required_argument, NULL, 'd' }, { "isp-pages", required_argument, NULL, 'i' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    int ch;
    char *pols = NULL;
    while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
        switch (ch) {
        case 'q': o.qd = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 's': o.slots = (uint32_t)strtoul(optarg, NULL, 10); o.slots_set = 1; break;
        case 'c': o.chips = (uint32_t)strtoul(optarg, NULL, 10); o.chips_set = 1; break;
        case 'p': o.passes = (uint32_t)strtoul(optarg, NULL, 10); o.passes_set = 1; break;
        case 'r': o.requests = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'P': pols = optarg; break;
        case 'd': o.density = strtod(optarg, NULL); break;
        case 'i':
            if (parse_list(optarg, o.isp_pages, 4) != 4) usage();
            o.isp_set = 1;
            break;
        default: usage();
        }
    }
    if (pols) {
        char *save = NULL;
        for (char *t = strtok_r(pols, ",", &save); t && o.npol < 16; t = strtok_r(NULL, ",", &save)) o.policies[o.npol++] = t;
    } else {
        for (size_t i = 0; i < sizeof DEFAULT_POLICIES / sizeof *DEFAULT_POLICIES; i++)
            o.policies[o.npol++] = (char *)DEFAULT_POLICIES[i];
    }
    if (optind >= argc) usage();
    csd_params p;
    csd_params_preset(&p, "2pm");
    uint32_t slots = o.slots_set ? o.slots : p.chip_queue_slots;
    uint32_t wl[16];
    int nw = 16;
    for (int i = 0; i < 16; i++) wl[i] = (uint32_t)i;
    const char *cmd = argv[optind];
    printf("%s\n", HEADER);
    if (!strcmp(cmd, "fig9")) {
        if (optind + 1 < argc) nw = parse_list(argv[optind + 1], wl, 16);
        for (int i = 0; i < nw; i++)
            if (run_workload("fig9", (int)wl[i], &o, o.qd, slots, o.chips)) return 1;
        return 0;
    }
    if (!strcmp(cmd, "sens") && optind + 2 < argc) {
        const char *what = argv[optind + 1];
        uint32_t vals[16];
        int nv = parse_list(argv[optind + 2], vals, 16);
        if (optind + 3 < argc) nw = parse_list(argv[optind + 3], wl, 16);
        char exp[32];
        snprintf(exp, sizeof exp, "sens-%s", what);
        for (int v = 0; v < nv; v++) {
            for (int i = 0; i < nw; i++) {
                int rc;
                if (!strcmp(what, "qd")) rc = run_workload(exp, (int)wl[i], &o, vals[v], slots, o.chips);
                else if (!strcmp(what, "slots")) rc = run_workload(exp, (int)wl[i], &o, o.qd, vals[v], o.chips);
                else if (!strcmp(what, "chips")) rc = run_workload(exp, (int)wl[i], &o, o.qd, slots, vals[v]);
                else usage();
                if (rc) return 1;
            }
        }
        return 0;
    }
    usage();
}
