/* What csd replay measured: nearest-rank percentiles per operation, the mean of each part of the
 * latency (the DRS paper's Fig. 10 breakdown, with the host-side queue before it), one CSV row per
 * request, and the latency CDF as a PNG. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "replay.h"

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Ascending, in place: least significant byte first, one counting pass per byte that differs among
 * the values (latencies fit in 5 or 6 of the 8). A tenth of qsort's time, whose comparator call per
 * step was a twentieth of a whole replay's instructions. Falls back to qsort without memory. */
static void sort_u64(uint64_t *v, size_t n) {
    uint64_t *tmp = n > 1 ? malloc(n * sizeof *tmp) : NULL;
    if (!tmp) {
        if (n > 1) qsort(v, n, sizeof *v, cmp_u64);
        return;
    }
    uint64_t all_or = 0, all_and = ~0ull;
    for (size_t i = 0; i < n; i++) all_or |= v[i], all_and &= v[i];
    uint64_t *src = v, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xff) == 0) continue;   /* one value of this byte: in order */
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++) count[((src[i] >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, n * sizeof *v);
    free(tmp);
}

/* Nearest rank: the ceil(p/100 * n)-th smallest (1-based). */
static uint64_t pct(const uint64_t *v, size_t n, double p) {
    if (!n) return 0;
    double rank = p / 100.0 * (double)n;
    size_t k = (size_t)rank;
    if ((double)k < rank) k++;
    if (k < 1) k = 1;
    return v[k - 1];
}

typedef struct summary { size_t n; double mean; uint64_t p50, p90, p99, p999, max; } summary;

static summary summarize(uint64_t *v, size_t n) {
    summary s = { .n = n };
    if (!n) return s;
    sort_u64(v, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += (double)v[i];
    s.mean = sum / (double)n;
    s.p50 = pct(v, n, 50);
    s.p90 = pct(v, n, 90);
    s.p99 = pct(v, n, 99);
    s.p999 = pct(v, n, 99.9);
    s.max = v[n - 1];
    return s;
}

static const char *PLOT_PY =
    "import csv, subprocess, sys\n"
    "try:\n"
    "    import matplotlib\n"
    "except ImportError:\n"   /* as the other plotting tools do */
    "    subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--root-user-action=ignore', 'matplotlib'], check=True)\n"
    "    import matplotlib\n"
    "matplotlib.use('Agg')\n"
    "import matplotlib.pyplot as plt\n"
    "lat = {'read': [], 'write': [], 'trim': []}\n"
    "with open(sys.argv[1]) as f:\n"
    "    for r in csv.DictReader(f):\n"
    "        if r['status'] == '0': lat[r['op']].append(int(r['latency_ns']) / 1000.0)\n"
    "fig, ax = plt.subplots(figsize=(7, 4.5))\n"
    "for op, v in lat.items():\n"
    "    if not v: continue\n"
    "    v.sort()\n"
    "    ax.plot(v, [(i + 1) / len(v) for i in range(len(v))], label='%s (%d)' % (op, len(v)))\n"
    "ax.set_xscale('log')\n"
    "ax.set_xlabel('latency (us, arrival to completion)')\n"
    "ax.set_ylabel('fraction of requests')\n"
    "ax.set_title(sys.argv[3])\n"
    "ax.grid(True, alpha=0.3)\n"
    "ax.legend()\n"
    "fig.tight_layout()\n"
    "fig.savefig(sys.argv[2], dpi=110)\n";

static const char *const OPN[] = { "?", "read", "write", "trim" };

rparts replay_parts(const rres *x) {
    rparts p = { .host_queue = x->submit - x->arrival, .io_queue = x->admit - x->submit };
    uint64_t fs = x->fsubmit > x->admit ? x->fsubmit : x->admit, end = x->flash_done > fs ? x->flash_done : fs;
    if (end > x->done) end = x->done;
    p.link = (fs - x->admit) + (x->done - end);
    p.flash = x->flash_busy < end - fs ? x->flash_busy : end - fs;   /* pieces: their summed time, at most the span */
    p.flash_queue = end - fs - p.flash;
    return p;
}

int replay_write_csv(const char *path, const tf_trace *tr, const rres *res) {
    FILE *f = fopen(path, "w");
    if (!f) return -errno;
    fprintf(f, "id,line,op,lba,count,bytes,arrival_ns,submit_ns,admit_ns,first_flash_ns,done_ns,latency_ns,"
               "host_queue_ns,io_queue_ns,flash_queue_ns,flash_ns,flash_ops,status,flash_submit_ns,flash_done_ns,"
               "host_link_ns,clf_delayed,dle_delayed\n");
    for (size_t i = 0; i < tr->n; i++) {
        const tf_req *q = &tr->r[i];
        const rres *x = &res[i];
        rparts p = replay_parts(x);
        fprintf(f, "%zu,%u,%s,%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%u,%u\n",
                i, q->line, OPN[q->op], q->lba, q->count, q->size, x->arrival, x->submit, x->admit, x->first, x->done,
                x->done - x->arrival, p.host_queue, p.io_queue, p.flash_queue, p.flash, x->flash_ops, x->status,
                x->fsubmit, x->flash_done, p.link, x->clf_delayed, x->dle_delayed);
    }
    return fclose(f) ? -errno : 0;
}

int replay_plot(const char *csv, const char *png, const char *title) {
    char script[] = "/tmp/csd-replay-plot-XXXXXX";
    int fd = mkstemp(script);
    if (fd < 0) return -errno;
    size_t len = strlen(PLOT_PY);
    int ok = write(fd, PLOT_PY, len) == (ssize_t)len;
    close(fd);
    int rc = -EIO;
    if (ok) {
        pid_t pid = fork();
        if (pid == 0) {
            execlp("python3", "python3", script, csv, png, title, (char *)NULL);
            _exit(127);
        }
        int st;
        if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) rc = 0;
    }
    unlink(script);
    return rc;
}

static void add_summary(json_object *o, const char *name, const summary *s) {
    json_object *x = json_object_new_object();
    json_object_object_add(x, "count", json_object_new_int64((int64_t)s->n));
    json_object_object_add(x, "mean_us", json_object_new_double(s->mean / 1000.0));
    json_object_object_add(x, "p50_us", json_object_new_double((double)s->p50 / 1000.0));
    json_object_object_add(x, "p90_us", json_object_new_double((double)s->p90 / 1000.0));
    json_object_object_add(x, "p99_us", json_object_new_double((double)s->p99 / 1000.0));
    json_object_object_add(x, "p99.9_us", json_object_new_double((double)s->p999 / 1000.0));
    json_object_object_add(x, "max_us", json_object_new_double((double)s->max / 1000.0));
    json_object_object_add(o, name, x);
}


void replay_report(const replay_result *r, int json, json_object *trace_json) {
    const tf_trace *tr = r->tr;
    const rres *res = r->res;
    uint64_t *lat[4];
    size_t nl[4] = { 0 }, failed = 0, host_waited = 0;
    for (int k = 0; k < 4; k++) lat[k] = malloc((tr->n ? tr->n : 1) * sizeof(uint64_t));
    uint64_t first_arr = UINT64_MAX, last_arr = 0, last_done = 0, hq_max = 0;
    double hq = 0, iq = 0, fq = 0, fl = 0, lk = 0, rq[5] = { 0 };   /* rq: the parts over reads alone */
    uint64_t dl[4][3] = { { 0 } };   /* requests by op: [0] any delayed set, [1] CLF-, [2] DLE-delayed */
    for (size_t i = 0; i < tr->n; i++) {
        const rres *x = &res[i];
        if (x->status) {
            failed++;
            continue;
        }
        uint64_t l = x->done - x->arrival;
        if (lat[0] && lat[tr->r[i].op]) {
            lat[tr->r[i].op][nl[tr->r[i].op]++] = l;
            lat[0][nl[0]++] = l;
        }
        if (x->arrival < first_arr) first_arr = x->arrival;
        if (x->arrival > last_arr) last_arr = x->arrival;
        if (x->done > last_done) last_done = x->done;
        rparts p = replay_parts(x);
        int op = tr->r[i].op;
        dl[op][0] += x->clf_delayed || x->dle_delayed;
        dl[op][1] += x->clf_delayed > 0;
        dl[op][2] += x->dle_delayed > 0;
        host_waited += p.host_queue > 0;
        if (p.host_queue > hq_max) hq_max = p.host_queue;
        hq += (double)p.host_queue;
        iq += (double)p.io_queue;
        fq += (double)p.flash_queue;
        fl += (double)p.flash;
        lk += (double)p.link;
        if (tr->r[i].op == TF_READ) {
            double v[5] = { (double)p.host_queue, (double)p.io_queue, (double)p.flash_queue, (double)p.flash,
                            (double)p.link };
            for (int k = 0; k < 5; k++) rq[k] += v[k];
        }
    }
    /* offered load: seconds of its own flash work the trace brings per second of its arrivals; above 1
     * the device falls ever further behind, and mean latencies grow with the trace's length */
    double load = last_arr > first_arr ? fl / (double)(last_arr - first_arr) : 0;
    summary s[4];
    for (int k = 0; k < 4; k++) s[k] = lat[k] ? summarize(lat[k], nl[k]) : (summary){ 0 };
    for (int k = 0; k < 4; k++) free(lat[k]);
    double dev_s = last_done > first_arr ? (double)(last_done - first_arr) / 1e9 : 0;
    double fps = r->replay_wall_s > 0 ? (double)r->nflash / r->replay_wall_s : 0;
    double ok = nl[0] ? (double)nl[0] : 1;
    double wall = r->parse_wall_s + r->prefill_wall_s + r->replay_wall_s;
    if (json) {
        json_object *j = json_object_new_object(), *l = json_object_new_object(), *w = json_object_new_object();
        json_object_object_add(j, "trace", trace_json);
        json_object_object_add(j, "requests", json_object_new_int64((int64_t)tr->n));
        json_object_object_add(j, "reads", json_object_new_int64((int64_t)s[TF_READ].n));
        json_object_object_add(j, "writes", json_object_new_int64((int64_t)s[TF_WRITE].n));
        json_object_object_add(j, "trims", json_object_new_int64((int64_t)s[TF_TRIM].n));
        json_object_object_add(j, "failed", json_object_new_int64((int64_t)failed));
        json_object_object_add(j, "skipped_lines", json_object_new_int64((int64_t)tr->skipped));
        json_object_object_add(j, "split_requests", json_object_new_int64((int64_t)r->split));
        json_object_object_add(j, "prefill", json_object_new_string(r->prefill ? r->prefill_mode : "none"));
        json_object_object_add(j, "prefilled_lbas", json_object_new_int64(r->prefilled));
        json_object_object_add(j, "zero_pages_unstored", json_object_new_int64((int64_t)r->zero_pages_unstored));
        json_object_object_add(j, "queue_depth", json_object_new_int((int)r->queue_depth));
        json_object_object_add(j, "device_s", json_object_new_double(dev_s));
        json_object_object_add(j, "flash_commands", json_object_new_int64((int64_t)r->nflash));
        json_object_object_add(j, "parse_wall_s", json_object_new_double(r->parse_wall_s));
        json_object_object_add(j, "prefill_wall_s", json_object_new_double(r->prefill_wall_s));
        json_object_object_add(j, "replay_wall_s", json_object_new_double(r->replay_wall_s));
        json_object_object_add(j, "requests_per_wall_s", json_object_new_double(wall > 0 ? (double)tr->n / wall : 0));
        json_object_object_add(j, "flash_commands_per_wall_s", json_object_new_double(fps));
        add_summary(l, "read", &s[TF_READ]);
        add_summary(l, "write", &s[TF_WRITE]);
        if (s[TF_TRIM].n) add_summary(l, "trim", &s[TF_TRIM]);
        add_summary(l, "all", &s[0]);
        json_object_object_add(j, "latency", l);
        json_object *h = json_object_new_object();
        json_object_object_add(h, "requests", json_object_new_int64((int64_t)host_waited));
        json_object_object_add(h, "max_us", json_object_new_double((double)hq_max / 1000.0));
        json_object_object_add(j, "host_queue", h);
        json_object_object_add(w, "host_queue_us", json_object_new_double(hq / ok / 1000.0));
        json_object_object_add(w, "io_queue_us", json_object_new_double(iq / ok / 1000.0));
        json_object_object_add(w, "flash_queue_us", json_object_new_double(fq / ok / 1000.0));
        json_object_object_add(w, "flash_us", json_object_new_double(fl / ok / 1000.0));
        json_object_object_add(w, "host_link_us", json_object_new_double(lk / ok / 1000.0));
        json_object_object_add(j, "mean_breakdown", w);
        json_object *wr = json_object_new_object();
        double okr = s[TF_READ].n ? (double)s[TF_READ].n : 1;
        const char *rn[5] = { "host_queue_us", "io_queue_us", "flash_queue_us", "flash_us", "host_link_us" };
        for (int k = 0; k < 5; k++) json_object_object_add(wr, rn[k], json_object_new_double(rq[k] / okr / 1000.0));
        json_object_object_add(j, "mean_breakdown_read", wr);
        json_object_object_add(j, "flash_queue_depth", json_object_new_int((int)r->flash_queue_depth));
        json_object_object_add(j, "offered_load", json_object_new_double(load));
        json_object *dj = json_object_new_object();
        for (int op = TF_READ; op <= TF_WRITE; op++) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "any", json_object_new_int64((int64_t)dl[op][0]));
            json_object_object_add(o, "clf", json_object_new_int64((int64_t)dl[op][1]));
            json_object_object_add(o, "dle", json_object_new_int64((int64_t)dl[op][2]));
            json_object_object_add(dj, op == TF_READ ? "read" : "write", o);
        }
        json_object_object_add(j, "delayed_requests", dj);
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(j);
        return;
    }
    json_object_put(trace_json);
    printf("replayed %zu requests (%zu reads, %zu writes, %zu trims; %zu failed, %" PRIu64 " lines skipped) "
           "at queue depth %u%s\n", tr->n, s[TF_READ].n, s[TF_WRITE].n, s[TF_TRIM].n, failed, tr->skipped,
           r->queue_depth, r->afap ? ", as fast as possible" : "");
    if (r->flash_queue_depth) printf("flash command queue: %u commands\n", r->flash_queue_depth);
    if (r->split)
        printf("%" PRIu64 " requests wider than the device takes (4096 LBAs) went in pieces; each completes with "
               "its last\n", r->split);
    if (r->prefill)
        printf("prefilled (%s) %" PRId64 " LBAs the trace reads before writing them\n", r->prefill_mode,
               r->prefilled);
    if (host_waited)
        printf("%zu requests waited on the host (the device held all it may: 65536): up to %.1f us\n", host_waited,
               (double)hq_max / 1000.0);
    printf("device time %.6f s; %" PRIu64 " flash commands in %.3f s of wall time (%.0f per second)\n", dev_s,
           r->nflash, r->replay_wall_s, fps);
    printf("\nlatency (us)   count       mean        p50        p90        p99      p99.9        max\n");
    const char *names[4] = { "all", "read", "write", "trim" };
    for (int k = 1; k <= 4; k++) {
        int x = k % 4;
        if (x == TF_TRIM && !s[x].n) continue;
        printf("%-10s %9zu %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n", names[x], s[x].n, s[x].mean / 1000.0,
               (double)s[x].p50 / 1000.0, (double)s[x].p90 / 1000.0, (double)s[x].p99 / 1000.0,
               (double)s[x].p999 / 1000.0, (double)s[x].max / 1000.0);
    }
    printf("\nmean per request (us): ");
    if (host_waited) printf("host queue %.1f, ", hq / ok / 1000.0);
    printf("I/O request queue %.1f, flash command queue %.1f, flash operations %.1f, host link %.1f\n",
           iq / ok / 1000.0, fq / ok / 1000.0, fl / ok / 1000.0, lk / ok / 1000.0);
    if (dl[TF_READ][0] || dl[TF_WRITE][0])
        printf("delayed requests (a set waited for another's map command): %" PRIu64 " reads (%" PRIu64 " by a cache-"
               "line fetch, %" PRIu64 " by a dirty-line eviction), %" PRIu64 " writes\n", dl[TF_READ][0], dl[TF_READ][1],
               dl[TF_READ][2], dl[TF_WRITE][0]);
    printf("offered load: %.3g s of flash work per s of arrivals%s\n", load,
           load > 1 ? " (more than the flash can serve: mean latencies grow with the trace's length)" : "");
}
