/* csd replay IMAGE TRACE: a block trace replayed on the device's block namespace (docs/BLOCK-IO.md).
 * Formats: SNIA / MSR-Cambridge CSV (timestamp,host,disk,type,offset,size,response; timestamps in
 * Windows filetime, 100 ns units) and blkparse's default text output (Q events; R/W/D in the RWBS
 * field; sectors of 512 bytes). Requests go to the device in BlockSubmit packets of up to CHUNK, with
 * their arrival times (the trace's, relative to its first request, from the device clock at the
 * start) or at once (--as-fast-as-possible); BlockPoll packets bring the completions back. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cli.h"

#define CHUNK 4096u
#define MAX_LBAS 4096u              /* CSD_BLOCK_MAX_LBAS */
#define MAX_OUTSTANDING 65536u      /* CSD_BLOCK_MAX_OUTSTANDING */
#define MAX_SUBMIT_LBAS 262144u     /* CSD_BLOCK_MAX_SUBMIT_LBAS */

enum { FMT_AUTO, FMT_MSR, FMT_BLKPARSE };
enum { OP_READ = 1, OP_WRITE = 2, OP_TRIM = 3 };

typedef struct treq {
    uint64_t t_ns;                  /* trace time, relative to the first request */
    uint64_t lba;
    uint32_t count;
    uint8_t op;
    uint32_t line;
} treq;

typedef struct rres {
    uint64_t arrival, admit, first, done;
    uint32_t flash_ops;
    int status;
    uint64_t submit, flash_done, flash_busy;
} rres;

/* The DRS paper's Fig. 10 parts of a request's latency (docs/BLOCK-IO.md), adding up to it. */
typedef struct parts { uint64_t io_queue, link, flash_queue, flash; } parts;

static parts parts_of(const rres *x) {
    parts p = { .io_queue = x->admit - x->arrival };
    uint64_t end = x->flash_done ? x->flash_done : x->submit;
    p.link = (x->submit - x->admit) + (x->done - end);
    p.flash = x->flash_busy;
    p.flash_queue = end - x->submit - x->flash_busy;
    return p;
}

typedef struct replay_opts {
    int format, afap, wrap, skip, prefill;
    uint64_t limit;
    const char *csv, *plot;
    char qd_set[64];
} replay_opts;

typedef struct trace {
    treq *r;
    size_t n, cap;
    uint64_t skipped;
    uint64_t t0;                    /* raw time of the first request, in ns */
    uint64_t last_raw;
    int have_t0;
} trace;

/* ---- parsing -------------------------------------------------------------------------------- */

static int parse_u64(const char *s, size_t len, uint64_t *out) {
    if (len == 0 || len > 20) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* "SECONDS.FRACTION" -> ns (blkparse prints 9 decimals) */
static int parse_secs(const char *s, size_t len, uint64_t *out) {
    const char *dot = memchr(s, '.', len);
    size_t il = dot ? (size_t)(dot - s) : len;
    uint64_t sec, frac = 0;
    if (parse_u64(s, il, &sec) || sec > 18000000000ull) return -1;
    if (dot) {
        size_t fl = len - il - 1;
        if (fl == 0 || fl > 9 || parse_u64(dot + 1, fl, &frac)) return -1;
        for (size_t k = fl; k < 9; k++) frac *= 10;
    }
    *out = sec * 1000000000ull + frac;
    return 0;
}

typedef struct tok { const char *s; size_t len; } tok;

static size_t split_ws(const char *line, tok *t, size_t max) {
    size_t n = 0;
    const char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '\n' || *p == '\r') break;
        const char *b = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
        t[n++] = (tok){ b, (size_t)(p - b) };
    }
    return n;
}

static int is_devno(const tok *t) {
    const char *c = memchr(t->s, ',', t->len);
    uint64_t a, b;
    return c && !parse_u64(t->s, (size_t)(c - t->s), &a) && !parse_u64(c + 1, t->len - (size_t)(c - t->s) - 1, &b);
}

/* One line: 1 = a request in *out (byte offset and length in lba/count for now), 0 = nothing (a
 * comment, a blank line, an event that is not a request), 2 = the end (blkparse's summary), -1 =
 * bad with why. */
static int parse_msr(const char *line, uint32_t lineno, treq *out, uint64_t *off, uint64_t *size, uint64_t *t_ns,
                     char *why, size_t wl) {
    tok f[8];
    size_t n = 0;
    const char *p = line, *b = line;
    for (;; p++) {
        if (*p == ',' || *p == 0 || *p == '\n' || *p == '\r') {
            if (n < 8) f[n] = (tok){ b, (size_t)(p - b) };
            n++;
            if (*p != ',') break;
            b = p + 1;
        }
    }
    if (n == 1 && f[0].len == 0) return 0;
    if (n != 7) {
        snprintf(why, wl, "expected 7 comma-separated fields (timestamp,host,disk,type,offset,size,response), got %zu", n);
        return -1;
    }
    uint64_t ts;
    if (parse_u64(f[0].s, f[0].len, &ts)) {
        if (lineno == 1 && f[0].len == 9 && !strncasecmp(f[0].s, "timestamp", 9)) return 0;   /* a header */
        snprintf(why, wl, "timestamp '%.*s' is not an integer", (int)(f[0].len > 40 ? 40 : f[0].len), f[0].s);
        return -1;
    }
    if (f[3].len == 4 && !strncasecmp(f[3].s, "read", 4)) out->op = OP_READ;
    else if (f[3].len == 5 && !strncasecmp(f[3].s, "write", 5)) out->op = OP_WRITE;
    else {
        snprintf(why, wl, "type '%.*s' is not Read or Write", (int)(f[3].len > 40 ? 40 : f[3].len), f[3].s);
        return -1;
    }
    if (parse_u64(f[4].s, f[4].len, off)) {
        snprintf(why, wl, "offset '%.*s' is not an integer", (int)(f[4].len > 40 ? 40 : f[4].len), f[4].s);
        return -1;
    }
    if (parse_u64(f[5].s, f[5].len, size)) {
        snprintf(why, wl, "size '%.*s' is not an integer", (int)(f[5].len > 40 ? 40 : f[5].len), f[5].s);
        return -1;
    }
    if (ts > UINT64_MAX / 100) {
        snprintf(why, wl, "timestamp %" PRIu64 " is out of range", ts);
        return -1;
    }
    *t_ns = ts * 100;   /* Windows filetime: 100 ns units */
    return 1;
}

static int parse_blk(const char *line, treq *out, uint64_t *off, uint64_t *size, uint64_t *t_ns, char *why, size_t wl) {
    tok t[12];
    size_t n = split_ws(line, t, 12);
    if (n == 0) return 0;
    if ((t[0].len >= 3 && !strncmp(t[0].s, "CPU", 3)) || (t[0].len == 5 && !strncmp(t[0].s, "Total", 5)))
        return 2;   /* blkparse's per-CPU and total summaries close its output */
    if (n < 7 || !is_devno(&t[0])) {
        snprintf(why, wl, "not a blkparse event line (DEV CPU SEQ TIME PID ACTION RWBS ...)");
        return -1;
    }
    if (!(t[5].len == 1 && t[5].s[0] == 'Q')) return 0;   /* only queued events are requests */
    int r = 0, w = 0, dsc = 0;
    for (size_t i = 0; i < t[6].len; i++) {
        char ch = t[6].s[i];
        r |= ch == 'R';
        w |= ch == 'W';
        dsc |= ch == 'D';
        if (!strchr("RWDFSMAN", ch)) {
            snprintf(why, wl, "RWBS '%.*s' has an unknown flag '%c'", (int)t[6].len, t[6].s, ch);
            return -1;
        }
    }
    if (!r && !w && !dsc) return 0;   /* a flush or a barrier without data */
    if (parse_secs(t[3].s, t[3].len, t_ns)) {
        snprintf(why, wl, "time '%.*s' is not a number of seconds", (int)(t[3].len > 40 ? 40 : t[3].len), t[3].s);
        return -1;
    }
    if (n < 10 || !(t[8].len == 1 && t[8].s[0] == '+')) {
        snprintf(why, wl, "expected 'SECTOR + COUNT' after the RWBS field");
        return -1;
    }
    uint64_t sec, cnt;
    if (parse_u64(t[7].s, t[7].len, &sec) || sec > UINT64_MAX / 512) {
        snprintf(why, wl, "sector '%.*s' is not an integer", (int)(t[7].len > 40 ? 40 : t[7].len), t[7].s);
        return -1;
    }
    if (parse_u64(t[9].s, t[9].len, &cnt) || cnt > UINT32_MAX) {
        snprintf(why, wl, "sector count '%.*s' is not an integer", (int)(t[9].len > 40 ? 40 : t[9].len), t[9].s);
        return -1;
    }
    out->op = dsc ? OP_TRIM : w ? OP_WRITE : OP_READ;
    *off = sec * 512;
    *size = cnt * 512;
    return 1;
}

static int detect(const char *line) {
    size_t commas = 0;
    for (const char *p = line; *p; p++) commas += *p == ',';
    tok t[2];
    if (split_ws(line, t, 2) >= 1 && is_devno(&t[0]) && commas == 1) return FMT_BLKPARSE;
    if (commas == 6) return FMT_MSR;
    return FMT_AUTO;
}

/* Read the whole trace; 0, or EXIT_DEVICE after printing the first bad line (--on-error stop). */
static int load(cli *c, const char *path, const replay_opts *o, uint64_t lbas, uint32_t lba_bytes, trace *tr) {
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) return cli_error(c, "NOT_FOUND", "cannot open trace %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    uint32_t lineno = 0;
    int fmt = o->format, rc = 0;
    uint64_t printed = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (o->limit && tr->n >= o->limit) break;
        if (len && line[len - 1] == '\n') line[--len] = 0;
        if (len && line[len - 1] == '\r') line[--len] = 0;
        const char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        if (fmt == FMT_AUTO) {
            fmt = detect(line);
            if (fmt == FMT_AUTO) {
                rc = cli_error(c, "INVALID_ARGUMENT", "%s:%u: cannot tell the trace format (neither MSR CSV nor "
                               "blkparse); give --format", path, lineno);
                break;
            }
        }
        treq q = { .line = lineno };
        uint64_t off = 0, size = 0, t_ns = 0;
        char why[300];
        int k = fmt == FMT_MSR ? parse_msr(line, lineno, &q, &off, &size, &t_ns, why, sizeof why)
                               : parse_blk(line, &q, &off, &size, &t_ns, why, sizeof why);
        if (k == 2) break;
        if (k == 1) {
            if (size == 0) {
                snprintf(why, sizeof why, "size is 0");
                k = -1;
            } else if (tr->have_t0 && t_ns < tr->last_raw) {
                snprintf(why, sizeof why, "time goes backwards (%" PRIu64 " ns after %" PRIu64 " ns)", t_ns, tr->last_raw);
                k = -1;
            } else {
                uint64_t first = off / lba_bytes, last = (off + size - 1) / lba_bytes;
                uint64_t count = last - first + 1;
                if (off + size < off) {
                    snprintf(why, sizeof why, "offset + size overflows");
                    k = -1;
                } else if (count > MAX_LBAS) {
                    snprintf(why, sizeof why, "%" PRIu64 " LBAs of %u bytes exceed the %u a request may have", count,
                             lba_bytes, MAX_LBAS);
                    k = -1;
                } else if (last >= lbas) {
                    if (o->wrap && count <= lbas) {
                        first %= lbas;
                        if (first + count > lbas) first = lbas - count;
                    } else {
                        snprintf(why, sizeof why, "bytes [%" PRIu64 ", +%" PRIu64 ") are past the namespace (%" PRIu64
                                 " LBAs of %u bytes); --wrap folds them in", off, size, lbas, lba_bytes);
                        k = -1;
                    }
                }
                q.lba = first;
                q.count = (uint32_t)count;
            }
        }
        if (k < 0) {
            if (!o->skip) {
                rc = cli_error(c, "INVALID_ARGUMENT", "%s:%u: %s", path, lineno, why);
                break;
            }
            tr->skipped++;
            if (printed++ < 10 && !c->json) fprintf(stderr, "csd replay: %s:%u: %s (skipped)\n", path, lineno, why);
            continue;
        }
        if (k == 0) continue;
        if (!tr->have_t0) {
            tr->have_t0 = 1;
            tr->t0 = t_ns;
        }
        tr->last_raw = t_ns;
        q.t_ns = t_ns - tr->t0;
        if (tr->n == tr->cap) {
            size_t nc = tr->cap ? tr->cap * 2 : 4096;
            treq *nr = realloc(tr->r, nc * sizeof *nr);
            if (!nr) {
                rc = cli_error(c, "RESOURCE_EXHAUSTED", "out of memory at line %u", lineno);
                break;
            }
            tr->r = nr;
            tr->cap = nc;
        }
        tr->r[tr->n++] = q;
    }
    if (printed > 10 && !c->json) fprintf(stderr, "csd replay: %" PRIu64 " more bad lines skipped\n", printed - 10);
    free(line);
    if (f != stdin) fclose(f);
    return rc;
}

/* ---- device --------------------------------------------------------------------------------- */

static Smartssd__V1__Response *poll(cli *c, uint32_t min, uint64_t until) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockPoll bp = SMARTSSD__V1__BLOCK_POLL__INIT;
    bp.min_completions = min;
    bp.until_ns = until;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL;
    req.block_poll = &bp;
    return cli_call(c, &req, NULL);
}

/* Collect a poll's completions; returns the outstanding count or -1. */
static int64_t take(cli *c, Smartssd__V1__Response *r, rres *res, size_t n, uint64_t *nflash) {
    if (!r) return -1;
    for (size_t i = 0; i < r->block_poll->n_completions; i++) {
        const Smartssd__V1__BlockCompletion *x = r->block_poll->completions[i];
        if (x->id >= n) continue;
        res[x->id] = (rres){ x->arrival_ns, x->admit_ns, x->first_flash_ns, x->done_ns, x->flash_ops, (int)x->status,
                             x->submit_ns, x->flash_done_ns, x->flash_busy_ns };
        *nflash += x->flash_ops;
    }
    int64_t out = (int64_t)r->block_poll->outstanding;
    smartssd__v1__response__free_unpacked(r, NULL);
    (void)c;
    return out;
}

/* Write, as fast as possible, every LBA the trace reads before it writes it, so those reads find data
 * on flash (as they would on a device in use) rather than holes that need no flash read. Returns the
 * LBAs written, or -1 after an error was printed. */
static int64_t prefill(cli *c, const trace *tr, uint64_t lbas, Smartssd__V1__BlockRequest *br,
                       Smartssd__V1__BlockRequest **bp) {
    uint8_t *st = calloc(lbas ? lbas : 1, 1);   /* 1 = written by the trace first, 2 = to fill */
    if (!st) return cli_error(c, "RESOURCE_EXHAUSTED", "out of memory"), -1;
    for (size_t i = 0; i < tr->n; i++) {
        const treq *q = &tr->r[i];
        for (uint64_t k = q->lba; k < q->lba + q->count; k++)
            if (!st[k]) st[k] = q->op == OP_READ ? 2 : 1;
    }
    int64_t total = 0, outstanding = 0;
    uint64_t id = tr->n, nflash = 0, chunk_lbas = 0;
    size_t k = 0;
    for (uint64_t l = 0; l <= lbas; l++) {
        if (l < lbas && st[l] == 2 && chunk_lbas + MAX_LBAS > MAX_SUBMIT_LBAS) {
            l--;   /* this run goes in the next packet */
            goto flush;
        }
        if (l < lbas && st[l] == 2) {
            uint64_t run = 1;
            while (l + run < lbas && st[l + run] == 2 && run < MAX_LBAS) run++;
            smartssd__v1__block_request__init(&br[k]);
            br[k].id = id++;
            br[k].op = SMARTSSD__V1__BLOCK_OP__BLOCK_WRITE;
            br[k].lba = l;
            br[k].count = (uint32_t)run;
            br[k].fill = l + 1;
            bp[k] = &br[k];
            k++;
            total += (int64_t)run;
            chunk_lbas += run;
            l += run - 1;
        }
        if (k == CHUNK || (l == lbas && k)) {
        flush:;
            Smartssd__V1__BlockSubmit bs = SMARTSSD__V1__BLOCK_SUBMIT__INIT;
            bs.n_requests = k;
            bs.requests = bp;
            Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
            req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT;
            req.block_submit = &bs;
            Smartssd__V1__Response *r = cli_call(c, &req, NULL);
            if (!r) {
                free(st);
                return -1;
            }
            outstanding = (int64_t)r->block_submit->outstanding;
            smartssd__v1__response__free_unpacked(r, NULL);
            k = 0;
            chunk_lbas = 0;
            while (outstanding > 0) {
                outstanding = take(c, poll(c, (uint32_t)(outstanding > 262144 ? 262144 : outstanding), 0), NULL, 0,
                                   &nflash);
                if (outstanding < 0) {
                    free(st);
                    return -1;
                }
            }
        }
    }
    free(st);
    return total;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
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
    qsort(v, n, sizeof *v, cmp_u64);
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

static const char *OPN[] = { "?", "read", "write", "trim" };

static int write_csv(const char *path, const trace *tr, const rres *res) {
    FILE *f = fopen(path, "w");
    if (!f) return -errno;
    fprintf(f, "id,line,op,lba,count,arrival_ns,admit_ns,first_flash_ns,done_ns,latency_ns,io_queue_ns,"
               "flash_queue_ns,flash_ns,flash_ops,status,submit_ns,flash_done_ns,host_link_ns\n");
    for (size_t i = 0; i < tr->n; i++) {
        const treq *q = &tr->r[i];
        const rres *x = &res[i];
        parts pt = parts_of(x);
        fprintf(f, "%zu,%u,%s,%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%" PRIu64 ",%" PRIu64 ",%u,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                i, q->line, OPN[q->op], q->lba, q->count, x->arrival, x->admit, x->first, x->done, x->done - x->arrival,
                pt.io_queue, pt.flash_queue, pt.flash, x->flash_ops, x->status, x->submit, x->flash_done, pt.link);
    }
    return fclose(f) ? -errno : 0;
}

static int plot(const char *csv, const char *png, const char *title) {
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

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int replay_opt(cli *c, int opt, const char *arg, void *a) {
    replay_opts *o = a;
    char *end;
    switch (opt) {
    case 'f':
        if (!strcmp(arg, "msr")) o->format = FMT_MSR;
        else if (!strcmp(arg, "blkparse")) o->format = FMT_BLKPARSE;
        else if (!strcmp(arg, "auto")) o->format = FMT_AUTO;
        else return cli_usage_error(c, &CMD_REPLAY, "--format is msr, blkparse or auto, not '%s'", arg);
        return 0;
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
        if (!strcmp(arg, "stop")) o->skip = 0;
        else if (!strcmp(arg, "skip")) o->skip = 1;
        else return cli_usage_error(c, &CMD_REPLAY, "--on-error is stop or skip, not '%s'", arg);
        return 0;
    case 'P': o->prefill = 1; return 0;
    case 'c': o->csv = arg; return 0;
    case 'p': o->plot = arg; return 0;
    case 'l': {
        unsigned long long v = strtoull(arg, &end, 10);
        if (*end || !*arg || v < 1) return cli_usage_error(c, &CMD_REPLAY, "--limit must be a positive count");
        o->limit = v;
        return 0;
    }
    }
    return -1;
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

static int run_replay(cli *c, int argc, char **argv) {
    static const struct option extra[] = {
        { "format", required_argument, 0, 'f' }, { "as-fast-as-possible", no_argument, 0, 'a' },
        { "queue-depth", required_argument, 0, 'q' }, { "wrap", no_argument, 0, 'w' },
        { "on-error", required_argument, 0, 'e' }, { "csv", required_argument, 0, 'c' },
        { "plot", required_argument, 0, 'p' }, { "limit", required_argument, 0, 'l' },
        { "prefill", no_argument, 0, 'P' },
    };
    replay_opts o = { 0 };
    char *pos[2];
    int np, rc = cli_parse(c, &CMD_REPLAY, argc, argv, extra, sizeof extra / sizeof extra[0], replay_opt, &o, pos, 2,
                           2, &np);
    if (rc >= 0) return rc;
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
    uint64_t base = r->device_clock_ns;
    smartssd__v1__response__free_unpacked(r, NULL);

    trace tr = { 0 };
    double w0 = wall_s();
    if ((rc = load(c, pos[1], &o, lbas, lba_bytes, &tr))) {
        free(tr.r);
        return rc;
    }
    double w_parse = wall_s() - w0;
    rres *res = calloc(tr.n ? tr.n : 1, sizeof *res);
    Smartssd__V1__BlockRequest *br = calloc(CHUNK, sizeof *br);
    Smartssd__V1__BlockRequest **bp = calloc(CHUNK, sizeof *bp);
    if (!res || !br || !bp) {
        free(tr.r);
        free(res);
        free(br);
        free(bp);
        return cli_error(c, "RESOURCE_EXHAUSTED", "out of memory");
    }
    uint64_t nflash = 0;
    int64_t outstanding = 0, filled = 0;
    if (o.prefill) {
        filled = prefill(c, &tr, lbas, br, bp);
        if (filled < 0) {
            free(tr.r);
            free(res);
            free(br);
            free(bp);
            return EXIT_DEVICE;
        }
        /* the trace starts once the prefill is done */
        Smartssd__V1__Response *pr = poll(c, 0, 0);
        if (!pr) return EXIT_DEVICE;
        base = pr->device_clock_ns;
        smartssd__v1__response__free_unpacked(pr, NULL);
    }
    double w1 = wall_s();
    for (size_t i = 0; i < tr.n && rc == 0;) {
        size_t room = MAX_OUTSTANDING - (size_t)outstanding, k = tr.n - i;
        if (k > CHUNK) k = CHUNK;
        if (k > room) k = room;
        uint64_t lsum = 0;
        for (size_t j = 0; j < k; j++) {
            lsum += tr.r[i + j].count;
            if (lsum > MAX_SUBMIT_LBAS) {
                k = j;
                break;
            }
        }
        if (k == 0 && room) k = 1;   /* one request is at most MAX_LBAS */
        if (k == 0) {
            /* the device holds the most it may: run it up to the next arrival (or for one completion) */
            outstanding = take(c, poll(c, o.afap ? 1 : 0, o.afap ? 0 : base + tr.r[i].t_ns), res, tr.n, &nflash);
            if (outstanding < 0) rc = EXIT_DEVICE;
            else if ((size_t)outstanding >= MAX_OUTSTANDING)
                rc = cli_error(c, "RESOURCE_EXHAUSTED", "%s:%u: the device is %u requests behind the trace; replay "
                               "it --as-fast-as-possible or at a lower rate", pos[1], tr.r[i].line, MAX_OUTSTANDING);
            continue;
        }
        for (size_t j = 0; j < k; j++) {
            const treq *q = &tr.r[i + j];
            smartssd__v1__block_request__init(&br[j]);
            br[j].id = i + j;
            br[j].op = (Smartssd__V1__BlockOp)q->op;
            br[j].lba = q->lba;
            br[j].count = q->count;
            br[j].arrival_ns = o.afap ? 0 : base + q->t_ns;
            br[j].fill = q->op == OP_WRITE ? i + j + 1 : 0;
            bp[j] = &br[j];
        }
        Smartssd__V1__BlockSubmit bs = SMARTSSD__V1__BLOCK_SUBMIT__INIT;
        bs.n_requests = k;
        bs.requests = bp;
        req = (Smartssd__V1__Request)SMARTSSD__V1__REQUEST__INIT;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT;
        req.block_submit = &bs;
        r = cli_call(c, &req, NULL);
        if (!r) {
            rc = EXIT_DEVICE;
            break;
        }
        outstanding = (int64_t)r->block_submit->outstanding;
        smartssd__v1__response__free_unpacked(r, NULL);
        i += k;
        /* timed: run the device to this chunk's last arrival (later arrivals are never in its past);
         * as fast as possible: keep about a chunk outstanding so the device never runs dry */
        uint32_t min = o.afap && outstanding > (int64_t)CHUNK ? (uint32_t)(outstanding - CHUNK) : 0;
        outstanding = take(c, poll(c, min, o.afap ? 0 : base + tr.r[i - 1].t_ns), res, tr.n, &nflash);
        if (outstanding < 0) rc = EXIT_DEVICE;
    }
    while (rc == 0 && outstanding > 0) {
        outstanding = take(c, poll(c, (uint32_t)(outstanding > 262144 ? 262144 : outstanding), 0), res, tr.n, &nflash);
        if (outstanding < 0) rc = EXIT_DEVICE;
    }
    double w_replay = wall_s() - w1;
    if (rc) goto out;

    uint64_t *lat[4];
    size_t nl[4] = { 0 }, failed = 0;
    for (int k = 0; k < 4; k++) lat[k] = malloc((tr.n ? tr.n : 1) * sizeof(uint64_t));
    uint64_t first_arr = UINT64_MAX, last_arr = 0, last_done = 0;
    double iq = 0, fq = 0, fl = 0, lk = 0, rq[4] = { 0 };   /* rq: the parts over reads alone */
    for (size_t i = 0; i < tr.n; i++) {
        const rres *x = &res[i];
        if (x->status) {
            failed++;
            continue;
        }
        uint64_t l = x->done - x->arrival;
        lat[tr.r[i].op][nl[tr.r[i].op]++] = l;
        lat[0][nl[0]++] = l;
        if (x->arrival < first_arr) first_arr = x->arrival;
        if (x->arrival > last_arr) last_arr = x->arrival;
        if (x->done > last_done) last_done = x->done;
        parts pt = parts_of(x);
        iq += (double)pt.io_queue;
        fq += (double)pt.flash_queue;
        fl += (double)pt.flash;
        lk += (double)pt.link;
        if (tr.r[i].op == OP_READ) {
            rq[0] += (double)pt.io_queue;
            rq[1] += (double)pt.flash_queue;
            rq[2] += (double)pt.flash;
            rq[3] += (double)pt.link;
        }
    }
    /* offered load: seconds of its own flash work the trace brings per second of its arrivals (above
     * 1 the device falls ever further behind, and mean latencies grow with the trace's length) */
    double load = last_arr > first_arr ? fl / (double)(last_arr - first_arr) : 0;
    summary s[4];
    for (int k = 0; k < 4; k++) s[k] = summarize(lat[k], nl[k]);
    for (int k = 0; k < 4; k++) free(lat[k]);
    double dev_s = last_done > first_arr ? (double)(last_done - first_arr) / 1e9 : 0;
    double fps = w_replay > 0 ? (double)nflash / w_replay : 0;
    size_t ok = nl[0] ? nl[0] : 1;
    if (o.csv && (rc = write_csv(o.csv, &tr, res))) {
        rc = cli_error(c, "IO_ERROR", "cannot write %s: %s", o.csv, strerror(-rc));
        goto out;
    }
    if (o.plot) {
        char tmp[64] = "";
        const char *csv = o.csv;
        if (!csv) {
            snprintf(tmp, sizeof tmp, "/tmp/csd-replay-%d.csv", (int)getpid());
            if (write_csv(tmp, &tr, res)) {
                rc = cli_error(c, "IO_ERROR", "cannot write %s", tmp);
                goto out;
            }
            csv = tmp;
        }
        char title[300];
        snprintf(title, sizeof title, "latency CDF: %s", pos[1]);
        int prc = plot(csv, o.plot, title);
        if (*tmp) unlink(tmp);
        if (prc) {
            rc = cli_error(c, "UNAVAILABLE", "cannot draw %s: python3 with matplotlib is needed", o.plot);
            goto out;
        }
    }
    if (c->json) {
        json_object *j = json_object_new_object(), *l = json_object_new_object(), *w = json_object_new_object();
        json_object_object_add(j, "requests", json_object_new_int64((int64_t)tr.n));
        json_object_object_add(j, "reads", json_object_new_int64((int64_t)s[OP_READ].n));
        json_object_object_add(j, "writes", json_object_new_int64((int64_t)s[OP_WRITE].n));
        json_object_object_add(j, "trims", json_object_new_int64((int64_t)s[OP_TRIM].n));
        json_object_object_add(j, "failed", json_object_new_int64((int64_t)failed));
        json_object_object_add(j, "skipped_lines", json_object_new_int64((int64_t)tr.skipped));
        json_object_object_add(j, "prefilled_lbas", json_object_new_int64(filled));
        json_object_object_add(j, "queue_depth", json_object_new_int((int)qd));
        json_object_object_add(j, "device_s", json_object_new_double(dev_s));
        json_object_object_add(j, "flash_commands", json_object_new_int64((int64_t)nflash));
        json_object_object_add(j, "parse_wall_s", json_object_new_double(w_parse));
        json_object_object_add(j, "replay_wall_s", json_object_new_double(w_replay));
        json_object_object_add(j, "flash_commands_per_wall_s", json_object_new_double(fps));
        add_summary(l, "read", &s[OP_READ]);
        add_summary(l, "write", &s[OP_WRITE]);
        if (s[OP_TRIM].n) add_summary(l, "trim", &s[OP_TRIM]);
        add_summary(l, "all", &s[0]);
        json_object_object_add(j, "latency", l);
        json_object_object_add(w, "io_queue_us", json_object_new_double(iq / (double)ok / 1000.0));
        json_object_object_add(w, "flash_queue_us", json_object_new_double(fq / (double)ok / 1000.0));
        json_object_object_add(w, "flash_us", json_object_new_double(fl / (double)ok / 1000.0));
        json_object_object_add(w, "host_link_us", json_object_new_double(lk / (double)ok / 1000.0));
        json_object_object_add(j, "mean_breakdown", w);
        json_object *wr = json_object_new_object();
        size_t okr = s[OP_READ].n ? s[OP_READ].n : 1;
        const char *rn[4] = { "io_queue_us", "flash_queue_us", "flash_us", "host_link_us" };
        for (int k = 0; k < 4; k++) json_object_object_add(wr, rn[k], json_object_new_double(rq[k] / (double)okr / 1000.0));
        json_object_object_add(j, "mean_breakdown_read", wr);
        json_object_object_add(j, "flash_queue_depth", json_object_new_int((int)fqd));
        json_object_object_add(j, "offered_load", json_object_new_double(load));
        cli_json_print(j);
    } else {
        printf("replayed %zu requests (%zu reads, %zu writes, %zu trims; %zu failed, %" PRIu64 " lines skipped) "
               "at queue depth %u%s\n", tr.n, s[OP_READ].n, s[OP_WRITE].n, s[OP_TRIM].n, failed, tr.skipped, qd,
               o.afap ? ", as fast as possible" : "");
        if (o.prefill) printf("prefilled %" PRId64 " LBAs the trace reads before writing them\n", filled);
        printf("device time %.6f s; %" PRIu64 " flash commands in %.3f s of wall time (%.0f per second)\n", dev_s,
               nflash, w_replay, fps);
        printf("\nlatency (us)   count       mean        p50        p90        p99      p99.9        max\n");
        const char *names[4] = { "all", "read", "write", "trim" };
        for (int k = 1; k <= 4; k++) {
            int x = k % 4;
            if (x == OP_TRIM && !s[x].n) continue;
            printf("%-10s %9zu %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n", names[x], s[x].n, s[x].mean / 1000.0,
                   (double)s[x].p50 / 1000.0, (double)s[x].p90 / 1000.0, (double)s[x].p99 / 1000.0,
                   (double)s[x].p999 / 1000.0, (double)s[x].max / 1000.0);
        }
        printf("\nmean per request (us): I/O request queue %.1f, flash command queue %.1f, flash operations %.1f, "
               "host link %.1f\n", iq / (double)ok / 1000.0, fq / (double)ok / 1000.0, fl / (double)ok / 1000.0,
               lk / (double)ok / 1000.0);
        printf("offered load: %.3f s of flash work per s of arrivals%s\n", load,
               load > 1 ? " (more than the flash can serve: latencies grow with the trace's length)" : "");
    }
out:
    free(tr.r);
    free(res);
    free(br);
    free(bp);
    return rc;
}

const subcmd CMD_REPLAY = {
    "replay", "IMAGE TRACE", "replay a block trace on the device's block namespace; latency percentiles",
    run_replay,
    "TRACE is SNIA/MSR-Cambridge CSV (timestamp,host,disk,type,offset,size,response; timestamps in\n"
    "100 ns units) or blkparse's default text output (Q events; R, W, D in RWBS; 512-byte sectors);\n"
    "'-' reads standard input. One LBA is one device page; a request covers every page it touches.\n"
    "Requests arrive at the trace's times (relative to its first request) on the device clock.\n\n"
    "options:\n"
    "  --format FMT           msr, blkparse or auto (default: auto, from the first line)\n"
    "  --as-fast-as-possible  every request arrives at once; the device queue depth paces them\n"
    "  --queue-depth N        the device's block queue depth for this session (block_queue_depth)\n"
    "  --wrap                 fold offsets past the namespace back into it (default: a bad line)\n"
    "  --on-error stop|skip   on a bad line: stop with its line number and reason (default), or skip it\n"
    "  --limit N              replay the first N requests only\n"
    "  --prefill              first write every LBA the trace reads before writing it (as fast as\n"
    "                         possible), so its reads find data on flash; the trace starts after\n"
    "  --csv FILE             one row per request: arrival, admission, first flash command, completion\n"
    "  --plot FILE            a PNG of the latency CDF per read / write (python3 with matplotlib)\n"
    "Percentiles are nearest-rank over the requests that completed OK; latency = completion - arrival.\n",
};
