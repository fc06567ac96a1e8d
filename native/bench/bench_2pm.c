/* bench_2pm: the 2PM paper's evaluation (Yoon et al., IEEE Access 2021, section V) on the engine and
 * flash model with the 2pm preset. Prints CSV rows (see HEADER) on stdout; bench/twopm.py drives it,
 * makes the tables and plots, and docs/2PM.md explains the setup.
 *   bench_2pm [options] run [W,W,..]     workloads (default all 16, 0-15) under every policy
 *   bench_2pm [options] mix W FILE        write workload W's requests as an MSR-Cambridge CSV trace
 * Options (before the subcommand):
 *   --exp NAME           the rows' first column
 *   --policies a,b,..    chip policies (default paq,fcfs,readfirst,slacker,cars,flin,2pm,2pm+); the
 *                        first is the baseline of the delays (Fig. 11)
 *   --delay-base P       a second baseline for the delays (columns *_b), one of the policies
 *   --isp-qd N           tasklet requests in the device at most (default 16)
 *   --write-qd N|mix     host writes in the device at most (default 16; 0 = one depth, --isp-qd, shared;
 *                        mix = the mix's share: isp-qd x w / (1 - w) for write share w, at least 1)
 *   --load X             open loop: Poisson arrivals offering X of the chips' time (default: closed loop)
 *   --trace FILE         open loop: the requests and arrival times of an MSR-Cambridge CSV (rescaled to
 *                        --load when given); reads are tasklet requests
 *   --host fifo|rr|cars  which waiting request enters the device next: the oldest, the paths in turn (the
 *                        paper's round-robin arbitration), CARS's conflict-aware turns (default fifo)
 *   --seed N             added to every workload's seed
 *   --requests N, --key F, --key-scale F (times each workload's key share), --density F, --write-frac F, --migrations F, --isp-pages a,b,c,d,
 *   --write-pages a,b,c,d          the workload's knobs
 *   --slots N, --chips N, --passes N, --suspend 0|1   device parameters (chip_queue_slots, chips,
 *                        chip_max_passes, flash_suspend)
 *   --fig10              per-page wait for the first stage, out of order and in order (the 2pm+ row)
 * Latency: from arrival (closed loop: entering the device) to the end of the second stage. Delay
 * (Fig. 11): per key request, its latency minus the baseline's, when positive. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/twopm.h"

#define HEADER                                                                                                  \
    "exp,workload,policy,seed,load,isp_qd,write_qd,host,slots,chips,passes,suspend,key_frac,density,"          \
    "isp_key,isp_nonkey,writes,migrations,key_ns,nonkey_ns,write_ns,key_dev_ns,nonkey_dev_ns,key_p99_ns,"      \
    "nonkey_p99_ns,makespan_ns,chip_util,suspends,delayed_key,delay_total_ns,delay_p9999_ns,delay_max_ns,"     \
    "key_detect_ns,key_detected,fig10_pages,fig10_ooo_ns,fig10_ino_ns,fig10_ooo_p99_ns,fig10_ino_p99_ns,"         \
    "delayed_key_b,delay_total_b_ns,delay_p9999_b_ns"

typedef struct opts {
    const char *exp, *trace, *delay_base;
    uint32_t isp_qd, write_qd, slots, chips, passes, suspend, requests;
    int slots_set, passes_set, host, fig10;
    double load, key, key_scale, density, write_frac, migrations;
    int write_qd_mix;
    int key_set, write_frac_set, migrations_set;
    uint32_t isp_pages[4], write_pages[4];
    int isp_set, write_set;
    uint64_t seed;
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

static double mean(const uint64_t *v, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)v[i];
    return n ? s / (double)n : 0;
}

static void set_geometry(csd_params *p, uint32_t chips) {
    p->channels = chips < 8 ? chips : 8;
    p->chips_per_channel = chips / p->channels;
}

static int parse_list(const char *s, uint32_t *v, int max) {
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long x = strtoul(t, &end, 10);
        if (*end || !x || x > 256) {
            free(copy);
            return -1;
        }
        v[n++] = (uint32_t)x;
    }
    free(copy);
    return n;
}

static void mix_of(int wi, const opts *o, twopm_mix *m) {
    twopm_workload(wi, m);
    m->seed += o->seed * 1000003u;
    if (o->requests) m->requests = o->requests;
    if (o->key_set) m->key_frac = o->key;
    if (o->key_scale > 0) m->key_frac *= o->key_scale;
    if (o->density > 0) m->key_density = o->density;
    if (o->write_frac_set) m->write_frac = o->write_frac;
    if (o->migrations_set) m->migrations_per_write = o->migrations;
    if (o->isp_set) memcpy(m->isp_pages, o->isp_pages, sizeof m->isp_pages);
    if (o->write_set) memcpy(m->write_pages, o->write_pages, sizeof m->write_pages);
}

static int params_of(const opts *o, const char *policy, csd_params *p) {
    if (csd_params_preset(p, "2pm")) return -EINVAL;
    set_geometry(p, o->chips);
    p->blocks_per_plane = 512;
    /* 16 MiB of ISP buffer instead of the preset's 64 (more for large requests): never full here (at
     * most 32 requests of 64 pages = 8 MiB in the device), and the engine sets up a page-operation pool
     * of the buffer's size per request, which at 64 MiB is most of this harness's run time */
    p->isp_buffer_bytes = 16u << 20;
    uint32_t most = 0;
    for (int i = 0; i < 4; i++) most = o->isp_set && o->isp_pages[i] > most ? o->isp_pages[i] : most;
    if ((uint64_t)2 * o->isp_qd * most * p->page_bytes > p->isp_buffer_bytes)
        p->isp_buffer_bytes = (uint64_t)2 * o->isp_qd * most * p->page_bytes;   /* large requests: still never full */
    if (o->slots_set) p->chip_queue_slots = o->slots;
    if (o->passes_set) p->chip_max_passes = o->passes;
    p->flash_suspend = o->suspend;
    snprintf(p->chip_scheduler, sizeof p->chip_scheduler, "%s", policy);
    return 0;
}

/* One workload under every policy; rows to stdout. */
static int run_workload(int wi, const opts *o) {
    twopm_mix m;
    mix_of(wi, o, &m);
    csd_params p0;
    if (params_of(o, o->policies[0], &p0)) return -EINVAL;
    twopm_list l;
    char err[512] = "";
    int rc = o->trace ? twopm_read_msr(&p0, &m, o->trace, o->load, &l, err, sizeof err)
                      : twopm_generate(&p0, &m, o->load, &l);
    if (rc) {
        fprintf(stderr, "bench_2pm: %s\n", err[0] ? err : strerror(-rc));
        return rc;
    }
    double load = o->trace || o->load > 0 ? twopm_load(&p0, &m, &l) : 0;
    twopm_opts ro = { .isp_qd = o->isp_qd, .write_qd = o->write_qd, .open_loop = o->trace || o->load > 0,
                      .host_sched = o->host, .fig10 = 0 };
    if (o->write_qd_mix) {
        /* the host-write path holds the mix's share: isp_qd x w / (1 - w) writes, at least one */
        double w = m.write_frac < 0.95 ? m.write_frac : 0.95;
        long q = lround(o->isp_qd * w / (1 - w));
        ro.write_qd = q < 1 ? 1 : (uint32_t)q;
    }
    /* the delays' baselines: the first policy, and --delay-base (run first when it is later in the list) */
    twopm_result base = { 0 }, base_b = { 0 };
    int bi = -1;
    for (int pi = 0; o->delay_base && pi < o->npol; pi++)
        if (!strcmp(o->policies[pi], o->delay_base)) bi = pi;
    if (bi > 0) {
        csd_params p;
        params_of(o, o->policies[bi], &p);
        if ((rc = twopm_run(&p, &m, &l, &ro, &base_b, err, sizeof err))) {
            fprintf(stderr, "bench_2pm: %s %s: %s\n", m.name, o->policies[bi], err);
            twopm_list_free(&l);
            return rc;
        }
    }
    for (int pi = 0; pi < o->npol; pi++) {
        csd_params p;
        params_of(o, o->policies[pi], &p);
        ro.fig10 = o->fig10 && !strcmp(o->policies[pi], "2pm+");
        twopm_result r;
        if ((rc = twopm_run(&p, &m, &l, &ro, &r, err, sizeof err))) {
            fprintf(stderr, "bench_2pm: %s %s: %s\n", m.name, o->policies[pi], err);
            break;
        }
        uint64_t nk = 0, nn = 0, nw = 0;
        double sk = 0, sn = 0, sw = 0, skd = 0, snd = 0;
        uint64_t *kv = malloc(sizeof *kv * r.n), *nv = malloc(sizeof *nv * r.n), *dv = malloc(sizeof *dv * r.n);
        uint64_t delayed = 0, dtotal = 0, dmax = 0, nd = 0, ndet = 0, delayed_b = 0, dtotal_b = 0, nb = 0;
        uint64_t *dvb = malloc(sizeof *dvb * r.n);
        const twopm_result *bb = bi == 0 ? (pi == 0 ? &r : &base) : bi > 0 ? &base_b : NULL;
        double sdet = 0;
        for (size_t i = 0; i < r.n; i++) {
            const twopm_req_result *q = &r.req[i];
            uint64_t lat = q->finish_ns - q->arrive_ns, dev = q->finish_ns - q->dispatch_ns;
            if (q->kind == TWOPM_WRITE) {
                nw++;
                sw += (double)lat;
            } else if (q->key) {
                kv[nk++] = lat;
                sk += (double)lat;
                skd += (double)dev;
                if (q->matched_ns) {   /* detected: a page matched on its own (not only cut lines) */
                    ndet++;
                    sdet += (double)(q->matched_ns - q->arrive_ns);
                }
                if (bb && bb->req) {
                    uint64_t blat = bb->req[i].finish_ns - bb->req[i].arrive_ns, d = lat > blat ? lat - blat : 0;
                    dvb[nb++] = d;
                    delayed_b += d > 0;
                    dtotal_b += d;
                }
                if (base.req) {
                    const twopm_req_result *b = &base.req[i];
                    uint64_t blat = b->finish_ns - b->arrive_ns, d = lat > blat ? lat - blat : 0;
                    dv[nd++] = d;
                    if (d) {
                        delayed++;
                        dtotal += d;
                        if (d > dmax) dmax = d;
                    }
                }
            } else {
                nv[nn++] = lat;
                sn += (double)lat;
                snd += (double)dev;
            }
        }
        uint32_t chips = p.channels * p.chips_per_channel;
        double util = r.makespan_ns ? (double)r.chip_busy_ns / ((double)chips * (double)r.makespan_ns) : 0;
        printf("%s,%s,%s,%" PRIu64 ",%.4f,%u,%u,%s,%u,%u,%u,%u,%.4f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%.0f,%.0f,%.0f,%.0f,%.0f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%" PRIu64 ",%" PRIu64 ",%.0f,%" PRIu64 ",%zu,%.0f,%.0f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%" PRIu64 "\n",
               o->exp, m.name, o->policies[pi], o->seed, load, o->isp_qd, ro.write_qd, o->host == TWOPM_HOST_CARS ? "cars" : o->host == TWOPM_HOST_RR ? "rr" : "fifo",
               p.chip_queue_slots, chips, p.chip_max_passes, p.flash_suspend, m.key_frac, m.key_density, nk, nn, nw,
               r.migrations, nk ? sk / nk : 0, nn ? sn / nn : 0, nw ? sw / nw : 0, nk ? skd / nk : 0,
               nn ? snd / nn : 0, pct(kv, nk, 0.99), pct(nv, nn, 0.99), r.makespan_ns, util, r.suspends, delayed,
               dtotal, pct(dv, nd, 0.9999), dmax, ndet ? sdet / ndet : 0, ndet, r.fig10_n,
               mean(r.fig10_ooo_ns, r.fig10_n), mean(r.fig10_ino_ns, r.fig10_n), pct(r.fig10_ooo_ns, r.fig10_n, 0.99),
               pct(r.fig10_ino_ns, r.fig10_n, 0.99), delayed_b, dtotal_b, pct(dvb, nb, 0.9999));
        fflush(stdout);
        free(kv);
        free(nv);
        free(dv);
        free(dvb);
        if (pi == 0) base = r;
        else twopm_result_free(&r);
    }
    twopm_result_free(&base);
    twopm_result_free(&base_b);
    twopm_list_free(&l);
    return rc;
}

static void usage(const char *why) {
    if (why) fprintf(stderr, "bench_2pm: %s\n", why);
    fprintf(stderr, "usage: bench_2pm [--exp NAME] [--policies a,b] [--delay-base P] [--isp-qd N] [--write-qd N|mix] [--load X] [--trace FILE]\n"
                    "                 [--host fifo|rr|cars] [--seed N] [--requests N] [--key F] [--key-scale F] [--density F]\n"
                    "                 [--write-frac F] [--migrations F] [--isp-pages a,b,c,d] [--write-pages a,b,c,d]\n"
                    "                 [--slots N] [--chips N] [--passes N] [--suspend 0|1] [--fig10]\n"
                    "                 run [W,W,..] | mix W FILE\n");
    exit(2);
}

static double frac_arg(const char *s, const char *what) {
    char *end;
    double x = strtod(s, &end);
    if (*end || x < 0 || x > 1) {
        fprintf(stderr, "bench_2pm: %s must be 0..1, not '%s'\n", what, s);
        exit(2);
    }
    return x;
}

static uint32_t u32_arg(const char *s, const char *what) {
    char *end;
    unsigned long x = strtoul(s, &end, 10);
    if (*end || !*s || x > 1000000) {
        fprintf(stderr, "bench_2pm: %s must be a count, not '%s'\n", what, s);
        exit(2);
    }
    return (uint32_t)x;
}

int main(int argc, char **argv) {
    opts o = { .exp = "run", .isp_qd = 16, .write_qd = 16, .chips = 16 };
    static const char *const DEFAULT_POLICIES[] = { "paq", "fcfs", "readfirst", "slacker", "cars", "flin", "2pm", "2pm+" };
    static const struct option longopts[] = {
        { "exp", required_argument, NULL, 'e' }, { "policies", required_argument, NULL, 'P' },
        { "delay-base", required_argument, NULL, 'D' },
        { "isp-qd", required_argument, NULL, 'q' }, { "write-qd", required_argument, NULL, 'w' },
        { "load", required_argument, NULL, 'L' }, { "trace", required_argument, NULL, 't' },
        { "host", required_argument, NULL, 'H' }, { "seed", required_argument, NULL, 'S' },
        { "requests", required_argument, NULL, 'r' }, { "key", required_argument, NULL, 'k' },
        { "key-scale", required_argument, NULL, 'K' },
        { "density", required_argument, NULL, 'd' }, { "write-frac", required_argument, NULL, 'W' },
        { "migrations", required_argument, NULL, 'M' }, { "isp-pages", required_argument, NULL, 'i' },
        { "write-pages", required_argument, NULL, 'I' }, { "slots", required_argument, NULL, 's' },
        { "chips", required_argument, NULL, 'c' }, { "passes", required_argument, NULL, 'p' },
        { "suspend", required_argument, NULL, 'u' }, { "fig10", no_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    int ch;
    char *pols = NULL;
    while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
        switch (ch) {
        case 'e': o.exp = optarg; break;
        case 'D': o.delay_base = optarg; break;
        case 'P': pols = optarg; break;
        case 'q': o.isp_qd = u32_arg(optarg, "--isp-qd"); break;
        case 'w':
            if (!strcmp(optarg, "mix")) o.write_qd_mix = 1;
            else o.write_qd = u32_arg(optarg, "--write-qd");
            break;
        case 'L': {
            char *end;
            o.load = strtod(optarg, &end);
            if (*end || o.load <= 0 || o.load > 4) usage("--load must be in (0, 4]");
            break;
        }
        case 't': o.trace = optarg; break;
        case 'H':
            if (!strcmp(optarg, "fifo")) o.host = TWOPM_HOST_FIFO;
            else if (!strcmp(optarg, "rr")) o.host = TWOPM_HOST_RR;
            else if (!strcmp(optarg, "cars")) o.host = TWOPM_HOST_CARS;
            else usage("--host is fifo, rr or cars");
            break;
        case 'S': o.seed = u32_arg(optarg, "--seed"); break;
        case 'r': o.requests = u32_arg(optarg, "--requests"); break;
        case 'k': o.key = frac_arg(optarg, "--key"); o.key_set = 1; break;
        case 'K': o.key_scale = frac_arg(optarg, "--key-scale"); if (!o.key_scale) usage("--key-scale must be > 0"); break;
        case 'd': {
            char *end;
            o.density = strtod(optarg, &end);
            if (*end || o.density <= 0 || o.density > 8) usage("--density must be in (0, 8] lines per page");
            break;
        }
        case 'W': o.write_frac = frac_arg(optarg, "--write-frac"); o.write_frac_set = 1; break;
        case 'M': {
            char *end;
            o.migrations = strtod(optarg, &end);
            if (*end || o.migrations < 0 || o.migrations > 1) usage("--migrations must be 0..1 per write");
            o.migrations_set = 1;
            break;
        }
        case 'i':
            if (parse_list(optarg, o.isp_pages, 4) != 4) usage("--isp-pages takes 4 sizes of 1..256 pages");
            o.isp_set = 1;
            break;
        case 'I':
            if (parse_list(optarg, o.write_pages, 4) != 4) usage("--write-pages takes 4 sizes of 1..256 pages");
            o.write_set = 1;
            break;
        case 's': o.slots = u32_arg(optarg, "--slots"); o.slots_set = 1; break;
        case 'c': o.chips = u32_arg(optarg, "--chips"); break;
        case 'p': o.passes = u32_arg(optarg, "--passes"); o.passes_set = 1; break;
        case 'u': o.suspend = u32_arg(optarg, "--suspend"); if (o.suspend > 1) usage("--suspend is 0 or 1"); break;
        case 'f': o.fig10 = 1; break;
        default: usage(NULL);
        }
    }
    if (!o.isp_qd) usage("--isp-qd must be at least 1");
    if (!o.chips || o.chips > 512 || (o.chips > 8 && o.chips % 8)) usage("--chips must be 1..8 or a multiple of 8");
    if (pols) {
        char *save = NULL;
        for (char *t = strtok_r(pols, ",", &save); t && o.npol < 16; t = strtok_r(NULL, ",", &save)) o.policies[o.npol++] = t;
    } else {
        for (size_t i = 0; i < sizeof DEFAULT_POLICIES / sizeof *DEFAULT_POLICIES; i++)
            o.policies[o.npol++] = (char *)DEFAULT_POLICIES[i];
    }
    for (int i = 0; i < o.npol; i++) {
        csd_params p;
        char err[256];
        params_of(&o, o.policies[i], &p);
        if (csd_params_validate(&p, err, sizeof err)) {
            fprintf(stderr, "bench_2pm: %s\n", err);
            return 2;
        }
    }
    if (optind >= argc) usage(NULL);
    const char *cmd = argv[optind];
    uint32_t wl[16];
    int nw = 16;
    for (int i = 0; i < 16; i++) wl[i] = (uint32_t)i;
    if (!strcmp(cmd, "mix")) {
        if (optind + 2 >= argc) usage("mix takes a workload and a file");
        uint32_t wi = u32_arg(argv[optind + 1], "the workload");
        if (wi > 15) usage("workloads are 0..15");
        twopm_mix m;
        mix_of((int)wi, &o, &m);
        csd_params p;
        params_of(&o, o.policies[0], &p);
        twopm_list l;
        char err[256] = "";
        int rc = twopm_generate(&p, &m, o.load > 0 ? o.load : 0.7, &l);
        if (!rc) rc = twopm_write_msr(&p, &l, argv[optind + 2], err, sizeof err);
        twopm_list_free(&l);
        if (rc) fprintf(stderr, "bench_2pm: %s\n", err[0] ? err : strerror(-rc));
        return rc ? 1 : 0;
    }
    if (strcmp(cmd, "run")) usage(NULL);
    if (optind + 1 < argc) {
        for (nw = 0; nw < 16;) {
            static char buf[256];
            snprintf(buf, sizeof buf, "%s", argv[optind + 1]);
            char *save = NULL;
            for (char *t = strtok_r(buf, ",", &save); t && nw < 16; t = strtok_r(NULL, ",", &save)) wl[nw++] = u32_arg(t, "a workload");
            break;
        }
        for (int i = 0; i < nw; i++)
            if (wl[i] > 15) usage("workloads are 0..15");
    }
    printf("%s\n", HEADER);
    for (int i = 0; i < nw; i++)
        if (run_workload((int)wl[i], &o)) return 1;
    return 0;
}
