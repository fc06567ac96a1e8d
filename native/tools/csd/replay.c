/* csd replay IMAGE TRACE: a block trace replayed on the device's block namespace (docs/BLOCK-IO.md).
 * The trace is read whole first (trace_load.c: its format detected or forced, its requests on the
 * namespace's LBAs) and summarised; requests then go to the device in BlockSubmit packets of up to
 * CHUNK, with their arrival times (the trace's, relative to its first request, from the device clock
 * at the start) or at once (--as-fast-as-possible); BlockPoll packets bring the completions back. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "replay.h"
#include "trace_fmt.h"

#define CHUNK 4096u
#define MAX_LBAS 4096u              /* CSD_BLOCK_MAX_LBAS */
#define MAX_SUBMIT_LBAS 262144u     /* CSD_BLOCK_MAX_SUBMIT_LBAS */
/* A request the device has no room for waits on the host; the device gets more once this many
 * completions made room (so such a request enters the device at most HOST_BATCH - 1 completions late) */
#define HOST_BATCH 64u

typedef tf_req treq;
enum { OP_READ = TF_READ, OP_WRITE = TF_WRITE, OP_TRIM = TF_TRIM };


enum { PREFILL_NONE, PREFILL_DATA, PREFILL_MAP };

typedef struct replay_opts {
    int afap, wrap, prefill, stats_only, pattern;
    tf_opts tf;
    const char *csv, *plot;
    char qd_set[64];
} replay_opts;

typedef tf_trace trace;

/* ---- the trace's requests on the namespace --------------------------------------------------- */

typedef struct ns_map {
    uint64_t lbas;
    uint32_t lba_bytes;
    int wrap;
} ns_map;

/* A request covers every LBA its bytes touch. */
static int map_lbas(void *arg, tf_req *q, char *why, size_t wl) {
    const ns_map *m = arg;
    uint64_t first = q->off / m->lba_bytes, last = (q->off + q->size - 1) / m->lba_bytes;
    uint64_t count = last - first + 1;
    if (count > UINT32_MAX) {
        snprintf(why, wl, "%" PRIu64 " LBAs of %u bytes are more than a request may have", count, m->lba_bytes);
        return -1;
    }
    if (last >= m->lbas) {
        if (!m->wrap || count > m->lbas) {
            snprintf(why, wl, "bytes [%" PRIu64 ", +%" PRIu64 ") are past the namespace (%" PRIu64 " LBAs of %u "
                     "bytes); --wrap folds them in", q->off, q->size, m->lbas, m->lba_bytes);
            return -1;
        }
        first %= m->lbas;
        if (first + count > m->lbas) first = m->lbas - count;
    }
    q->lba = first;
    q->count = (uint32_t)count;
    return 0;
}

/* Read the whole trace; 0, or EXIT_DEVICE after printing the first bad line (--on-error stop). */
static int load(cli *c, const char *path, const replay_opts *o, const ns_map *m, trace *tr) {
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) return cli_error(c, "NOT_FOUND", "cannot open trace %s: %s", path, strerror(errno));
    char err[400];
    int rc = tf_load(f, &o->tf, m ? map_lbas : NULL, (void *)m, tr, err, sizeof err);
    if (f != stdin) fclose(f);
    if (rc) return cli_error(c, "INVALID_ARGUMENT", "%s:%s", path, err);
    if (!c->json) {
        for (size_t i = 0; i < tr->nmsgs; i++) fprintf(stderr, "csd replay: %s:%s (skipped)\n", path, tr->msgs[i]);
        if (tr->skipped > tr->nmsgs)
            fprintf(stderr, "csd replay: %" PRIu64 " more bad lines skipped\n", tr->skipped - tr->nmsgs);
    }
    return 0;
}

/* ---- device --------------------------------------------------------------------------------- */

/* One of the device's counters (csd stats), or 0. */
static uint64_t device_counter(cli *c, const char *key) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Stats st = SMARTSSD__V1__STATS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STATS;
    req.stats = &st;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    uint64_t v = 0;
    for (size_t i = 0; r && i < r->stats->n_counters; i++)
        if (!strcmp(r->stats->counters[i]->key, key)) v = strtoull(r->stats->counters[i]->value, NULL, 10);
    if (r) smartssd__v1__response__free_unpacked(r, NULL);
    return v;
}

typedef struct rstate {
    cli *c;
    const trace *tr;
    rres *res;
    rlink link;
    csd_block_req *q;               /* one submission's requests (CHUNK) */
    uint64_t nflash;
    uint32_t lba_bytes;
    int pattern;                    /* writes carry the fill pattern (else zeros) */
} rstate;

/* A completion into its trace request (ids past the trace are the prefill's). */
static void merge(rres *x, const csd_block_cpl *c) {
    if (x->seen++ == 0) {
        x->submit = c->arrival_ns;
        x->admit = c->admit_ns;
        x->first = c->first_flash_ns;
        x->done = c->done_ns;
        x->flash_ops = c->flash_ops;
        x->status = c->status;
        x->fsubmit = c->submit_ns;
        x->flash_done = c->flash_done_ns;
        x->flash_busy = c->flash_busy_ns;
        x->clf_delayed = c->clf_delayed;
        x->dle_delayed = c->dle_delayed;
        return;
    }
    x->clf_delayed += c->clf_delayed;
    x->dle_delayed += c->dle_delayed;
    if (c->submit_ns < x->fsubmit) x->fsubmit = c->submit_ns;
    if (c->flash_done_ns > x->flash_done) x->flash_done = c->flash_done_ns;
    x->flash_busy += c->flash_busy_ns;
    if (c->arrival_ns < x->submit) x->submit = c->arrival_ns;
    if (c->admit_ns < x->admit) x->admit = c->admit_ns;
    if (c->first_flash_ns && (!x->first || c->first_flash_ns < x->first)) x->first = c->first_flash_ns;
    if (c->done_ns > x->done) x->done = c->done_ns;
    x->flash_ops += c->flash_ops;
    if (!x->status) x->status = c->status;
}

static void take(void *arg, const csd_block_cpl *c) {
    rstate *s = arg;
    s->nflash += c->flash_ops;
    if (c->id < s->tr->n) merge(&s->res[c->id], c);
}

/* Run the device until min completions are ready, then on to until (if later); take them. */
static int poll_take(rstate *s, uint32_t min, uint64_t until) { return rlink_poll(&s->link, min, until, take, s); }

static int submit(rstate *s, size_t k) { return rlink_submit(&s->link, s->q, k); }

static int drain(rstate *s) {
    while (s->link.outstanding > 0)
        if (poll_take(s, (uint32_t)(s->link.outstanding > 262144 ? 262144 : s->link.outstanding), 0)) return -1;
    return 0;
}

/* Write, as fast as possible, every LBA the trace reads before it writes it, so those reads find data
 * on flash (as they would on a device in use) rather than holes that need no flash read. map: as
 * writes of zeros (BlockRequest.zeroes), which map and program the same pages without the data.
 * Returns the LBAs written, or -1 after an error was printed. */
static int64_t prefill(rstate *s, uint64_t lbas, int map) {
    const trace *tr = s->tr;
    uint8_t *st = calloc(lbas ? lbas : 1, 1);   /* 1 = written by the trace first, 2 = to fill */
    if (!st) return cli_error(s->c, "RESOURCE_EXHAUSTED", "out of memory"), -1;
    for (size_t i = 0; i < tr->n; i++) {
        const treq *q = &tr->r[i];
        for (uint64_t k = q->lba; k < q->lba + q->count; k++)
            if (!st[k]) st[k] = q->op == OP_READ ? 2 : 1;
    }
    int64_t total = 0;
    uint64_t id = tr->n, chunk_lbas = 0;
    size_t k = 0;
    int rc = 0;
    for (uint64_t l = 0; l <= lbas && !rc; l++) {
        uint64_t run = 0;
        if (l < lbas && st[l] == 2) {
            while (l + run < lbas && st[l + run] == 2 && run < MAX_LBAS) run++;
            if (chunk_lbas + run > MAX_SUBMIT_LBAS || k == CHUNK) {
                rc = submit(s, k) || drain(s);
                k = 0;
                chunk_lbas = 0;
            }
            s->q[k++] = (csd_block_req){ .id = id++, .op = CSD_BLOCK_WRITE, .lba = l, .count = (uint32_t)run,
                                         .zeroes = (uint8_t)map, .fill = map ? 0 : l + 1 };
            total += (int64_t)run;
            chunk_lbas += run;
            l += run - 1;
        }
        if (l == lbas && k && !rc) rc = submit(s, k) || drain(s);
    }
    free(st);
    return rc ? -1 : total;
}

/* The trace's requests to the device. Timed: each arrives at its time, or, when the device already
 * holds all it may (max_outstanding), waits on the host until a completion makes room (it then
 * arrives at the device clock: its host-queue wait). As fast as possible: at once, about a chunk kept
 * outstanding so the device never runs dry. A request wider than MAX_LBAS goes in pieces. */
static int run_trace(rstate *s, int afap, uint64_t base, uint64_t max_out, uint64_t *split) {
    const trace *tr = s->tr;
    size_t i = 0;
    uint32_t done_lbas = 0;   /* of request i, in earlier pieces */
    while (i < tr->n) {
        const uint64_t out = s->link.outstanding, now = s->link.now;
        size_t room = out < max_out ? (size_t)(max_out - out) : 0;
        if (room == 0) {
            /* the host queue: hand the device more as HOST_BATCH completions make room */
            uint32_t want = out < HOST_BATCH ? (uint32_t)out : HOST_BATCH;
            uint64_t next = base + tr->r[i].t_ns;
            if (poll_take(s, want, afap || next <= now ? 0 : next)) return -1;
            continue;
        }
        size_t k = 0;
        uint64_t lsum = 0, last = 0;
        while (i < tr->n && k < CHUNK && k < room) {
            const treq *q = &tr->r[i];
            uint32_t cnt = q->count - done_lbas;
            if (cnt > MAX_LBAS) cnt = MAX_LBAS;
            if (lsum + cnt > MAX_SUBMIT_LBAS) break;
            if (done_lbas == 0) {
                s->res[i].pieces = (q->count + MAX_LBAS - 1) / MAX_LBAS;
                *split += s->res[i].pieces > 1;
                s->res[i].arrival = afap ? 0 : base + q->t_ns;
            }
            csd_block_req *b = &s->q[k];
            *b = (csd_block_req){ .id = i, .op = (uint8_t)q->op, .lba = q->lba + done_lbas, .count = cnt };
            /* the host queue: a request the device had no room for arrives when it gets there */
            b->arrival_ns = afap ? 0 : base + q->t_ns > now ? base + q->t_ns : now;
            if (q->op == OP_WRITE && s->pattern) b->fill = i + 1;
            else if (q->op == OP_WRITE) b->zeroes = 1;
            if (q->op != OP_TRIM) {
                /* the host link carries the piece's share of the bytes the trace asked for */
                uint64_t lo = (q->off / s->lba_bytes + done_lbas) * s->lba_bytes, hi = lo + (uint64_t)cnt * s->lba_bytes;
                uint64_t a = q->off > lo ? q->off : lo, z = q->off + q->size < hi ? q->off + q->size : hi;
                if (z - a < hi - lo) b->bytes = z - a;
            }
            last = b->arrival_ns;
            k++;
            lsum += cnt;
            done_lbas += cnt;
            if (done_lbas == q->count) {
                i++;
                done_lbas = 0;
            }
        }
        if (submit(s, k)) return -1;
        /* timed: run the device to this chunk's last arrival (later arrivals are never in its past);
         * as fast as possible: keep about a chunk outstanding */
        uint32_t min = afap && s->link.outstanding > CHUNK ? (uint32_t)(s->link.outstanding - CHUNK) : 0;
        if (poll_take(s, min, afap ? 0 : last)) return -1;
    }
    if (drain(s)) return -1;
    if (afap)   /* every request arrived when it reached the device */
        for (size_t j = 0; j < tr->n; j++) s->res[j].arrival = s->res[j].submit;
    return 0;
}

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int replay_opt(cli *c, int opt, const char *arg, void *a) {
    replay_opts *o = a;
    char *end;
    switch (opt) {
    case 'f': {
        int f = tf_format_parse(arg);
        if (f < 0)
            return cli_usage_error(c, &CMD_REPLAY, "--format is auto, msr, systor, tencent, csv, disksim (mqsim), "
                                   "blkparse or biotracer, not '%s'", arg);
        o->tf.format = (tf_format)f;
        return 0;
    }
    case 'u':
        if (!(o->tf.time_unit_ns = tf_time_unit(arg)))
            return cli_usage_error(c, &CMD_REPLAY, "--time-unit is ns, 100ns, us, ms or s, not '%s'", arg);
        return 0;
    case 's': o->stats_only = 1; return 0;
    case 'a': o->afap = 1; return 0;
    case 'w': o->wrap = 1; return 0;
    case 'q': {
        unsigned long v = strtoul(arg, &end, 10);
        if (*end || !*arg || v < 1 || v > 65536)
            return cli_usage_error(c, &CMD_REPLAY, "--queue-depth must be 1..65536, not '%s'", arg);
        snprintf(o->qd_set, sizeof o->qd_set, "block_queue_depth=%lu", v);
        if (c->nsets < (int)(sizeof c->sets / sizeof c->sets[0])) c->sets[c->nsets++] = o->qd_set;
        return 0;
    }
    case 'e':
        if (!strcmp(arg, "stop")) o->tf.skip_bad = 0;
        else if (!strcmp(arg, "skip")) o->tf.skip_bad = 1;
        else return cli_usage_error(c, &CMD_REPLAY, "--on-error is stop or skip, not '%s'", arg);
        return 0;
    case 'P':
        if (!arg || !strcmp(arg, "data")) o->prefill = PREFILL_DATA;
        else if (!strcmp(arg, "map")) o->prefill = PREFILL_MAP;
        else return cli_usage_error(c, &CMD_REPLAY, "--prefill is --prefill, --prefill=data or --prefill=map, not "
                                    "'--prefill=%s'", arg);
        return 0;
    case 'W':
        if (!strcmp(arg, "zeroes")) o->pattern = 0;
        else if (!strcmp(arg, "pattern")) o->pattern = 1;
        else return cli_usage_error(c, &CMD_REPLAY, "--write-data is zeroes or pattern, not '%s'", arg);
        return 0;
    case 'c': o->csv = arg; return 0;
    case 'p': o->plot = arg; return 0;
    case 'l': {
        unsigned long long v = strtoull(arg, &end, 10);
        if (*end || !*arg || v < 1) return cli_usage_error(c, &CMD_REPLAY, "--limit must be a positive count");
        o->tf.limit = v;
        return 0;
    }
    }
    return -1;
}

static int run_replay(cli *c, int argc, char **argv) {
    static const struct option extra[] = {
        { "format", required_argument, 0, 'f' }, { "as-fast-as-possible", no_argument, 0, 'a' },
        { "queue-depth", required_argument, 0, 'q' }, { "wrap", no_argument, 0, 'w' },
        { "on-error", required_argument, 0, 'e' }, { "csv", required_argument, 0, 'c' },
        { "plot", required_argument, 0, 'p' }, { "limit", required_argument, 0, 'l' },
        { "prefill", optional_argument, 0, 'P' }, { "time-unit", required_argument, 0, 'u' },
        { "stats-only", no_argument, 0, 's' }, { "write-data", required_argument, 0, 'W' },
    };
    replay_opts o = { 0 };
    char *pos[2];
    int np, rc = cli_parse(c, &CMD_REPLAY, argc, argv, extra, sizeof extra / sizeof extra[0], replay_opt, &o, pos, 1,
                           2, &np);
    if (rc >= 0) return rc;
    const char *path = pos[np - 1];
    trace tr = { 0 };
    if (o.stats_only) {
        /* the trace alone (an IMAGE before it is not opened) */
        if ((rc = load(c, path, &o, NULL, &tr))) return rc;
        tf_stats ts;
        tf_summarize(&tr, &ts);
        if (c->json) cli_json_print(replay_trace_json(path, &tr, &ts));
        else replay_print_trace(stdout, path, &tr, &ts);
        tf_free(&tr);
        return 0;
    }
    if (np != 2) return cli_usage_error(c, &CMD_REPLAY, "needs IMAGE TRACE (or --stats-only TRACE)");
    if ((rc = cli_open(c, pos[0]))) return rc;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockInfo bi = SMARTSSD__V1__BLOCK_INFO__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_INFO;
    req.block_info = &bi;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return EXIT_DEVICE;
    uint64_t lbas = r->block_info->lbas;
    uint32_t lba_bytes = r->block_info->lba_bytes, qd = r->block_info->queue_depth;
    uint32_t fqd = r->block_info->flash_queue_depth;
    uint64_t base = r->device_clock_ns, max_out = r->block_info->max_outstanding;
    smartssd__v1__response__free_unpacked(r, NULL);

    double w0 = wall_s();
    ns_map m = { lbas, lba_bytes, o.wrap };
    if ((rc = load(c, path, &o, &m, &tr))) {
        tf_free(&tr);
        return rc;
    }
    double w_parse = wall_s() - w0;
    tf_stats ts;
    tf_summarize(&tr, &ts);
    if (!c->json) {
        replay_print_trace(stdout, path, &tr, &ts);
        putchar('\n');
    }
    rres *res = calloc(tr.n ? tr.n : 1, sizeof *res);
    csd_block_req *q = calloc(CHUNK, sizeof *q);
    rstate st = { .c = c, .tr = &tr, .res = res, .q = q, .lba_bytes = lba_bytes, .pattern = o.pattern };
    int linked = rlink_init(&st.link, c, CHUNK);
    st.link.now = base;
    replay_result rr = { .path = path, .tr = &tr, .res = res, .queue_depth = qd, .flash_queue_depth = fqd,
                         .afap = o.afap, .prefill = o.prefill,
                         .prefill_mode = o.prefill == PREFILL_MAP ? "map" : "data", .parse_wall_s = w_parse };
    if (!res || !q || linked) {
        rc = cli_error(c, "RESOURCE_EXHAUSTED", "out of memory");
        goto out;
    }
    if (o.prefill) {
        double w = wall_s();
        if ((rr.prefilled = prefill(&st, lbas, o.prefill == PREFILL_MAP)) < 0 || poll_take(&st, 0, 0)) {
            rc = EXIT_DEVICE;
            goto out;
        }
        base = st.link.now;   /* the trace starts once the prefill is done */
        rr.prefill_wall_s = wall_s() - w;
    }
    st.nflash = 0;
    double w1 = wall_s();
    if (run_trace(&st, o.afap, base, max_out, &rr.split)) {
        rc = EXIT_DEVICE;
        goto out;
    }
    rr.replay_wall_s = wall_s() - w1;
    rr.nflash = st.nflash;
    rr.zero_pages_unstored = device_counter(c, "ftl.zero_pages_unstored");
    if (o.csv && (rc = replay_write_csv(o.csv, &tr, res))) {
        rc = cli_error(c, "IO_ERROR", "cannot write %s: %s", o.csv, strerror(-rc));
        goto out;
    }
    if (o.plot) {
        char tmp[64] = "";
        const char *csv = o.csv;
        if (!csv) {
            snprintf(tmp, sizeof tmp, "/tmp/csd-replay-%d.csv", (int)getpid());
            if (replay_write_csv(tmp, &tr, res)) {
                rc = cli_error(c, "IO_ERROR", "cannot write %s", tmp);
                goto out;
            }
            csv = tmp;
        }
        char title[300];
        snprintf(title, sizeof title, "latency CDF: %s", path);
        int prc = replay_plot(csv, o.plot, title);
        if (*tmp) unlink(tmp);
        if (prc) {
            rc = cli_error(c, "UNAVAILABLE", "cannot draw %s: python3 with matplotlib is needed", o.plot);
            goto out;
        }
    }
    replay_report(&rr, c->json, replay_trace_json(path, &tr, &ts));
out:
    tf_free(&tr);
    free(res);
    free(q);
    rlink_free(&st.link);
    return rc;
}

const subcmd CMD_REPLAY = {
    "replay", "IMAGE TRACE", "replay a block trace on the device's block namespace; latency percentiles",
    run_replay,
    "TRACE is a block trace in one of these formats (auto-detected from its first line; docs/BLOCK-IO.md\n"
    "has an example line of each); '-' reads standard input:\n"
    "  msr        SNIA / MSR-Cambridge CSV: timestamp,host,disk,type,offset,size,response (100 ns units)\n"
    "  systor     SNIA SYSTOR'17 CSV: Timestamp,Response,IOType,LUN,Offset,Size (seconds, bytes)\n"
    "  tencent    Tencent CBS CSV: Timestamp,Offset,Size,IOType,VolumeID (seconds, sectors, 0 read 1 write)\n"
    "  csv        timestamp,op,offset,size (--time-unit, default ns; op R W T F; bytes)\n"
    "  disksim    DiskSim / MQSim ASCII: time device lba sectors type (type bit 0 = read; --time-unit, ns)\n"
    "  blkparse   blkparse's default text: requests from Q events, or D events if it has no Q\n"
    "  biotracer  BIOTracer (Nexus 5 eMMC): sector sectors bytes type generated processed issued finished\n"
    "A summary comes first (the format, requests, reads, writes, trims, flushes, span, rate, mean sizes:\n"
    "the DRS paper's Table 1 columns). One LBA is one device page; a request covers every page it\n"
    "touches. Requests arrive at the trace's times (relative to its first request) on the device clock.\n\n"
    "options:\n"
    "  --format FMT           one of the above, or auto (default)\n"
    "  --time-unit U          ns, 100ns, us, ms or s: the unit of the trace's timestamps (default: the\n"
    "                         format's own)\n"
    "  --stats-only           print the trace's summary and stop (IMAGE may be left out)\n"
    "  --as-fast-as-possible  every request arrives at once; the device queue depth paces them\n"
    "  --queue-depth N        the device's block queue depth for this session (block_queue_depth)\n"
    "  --wrap                 fold offsets past the namespace back into it (default: a bad line)\n"
    "  --on-error stop|skip   on a bad line: stop with its line number and reason (default), or skip it\n"
    "  --limit N              replay the first N requests only\n"
    "  --prefill[=data|map]   first write every LBA the trace reads before writing it (as fast as\n"
    "                         possible), so its reads find data on flash; the trace starts after.\n"
    "                         map: as writes of zeros, which map and program the same pages (the\n"
    "                         same latencies after) without moving or storing the data\n"
    "  --write-data zeroes|pattern\n"
    "                         what the trace's writes write: zeros (default; timed as any write, but the\n"
    "                         image stores no page data for them) or each request's fill pattern\n"
    "  --csv FILE             one row per request: arrival, admission, first flash command, completion,\n"
    "                         and its latency in parts (docs/BLOCK-IO.md)\n"
    "  --plot FILE            a PNG of the latency CDF per read / write (python3 with matplotlib)\n"
    "Percentiles are nearest-rank over the requests that completed OK; latency = completion - arrival.\n",
};
