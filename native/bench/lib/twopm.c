/* The 2PM paper's workloads on the engine (twopm.h). */
#include "lib/twopm.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "flash/flash.h"
#include "lib/synth.h"
#include "runtime/exec.h"
#include "smartssd/v1/device.pb-c.h"
#include "trace/trace.h"

/* The pattern every tasklet request looks for: a start key, then an end key in the same line. The
 * generated words are lowercase without 'u', so neither key occurs unless planted. */
#define START_KEY "ERROR"
#define END_KEY "timeout"
#define MAX_REQ_PAGES 256u
#define FILETIME0 UINT64_C(130000000000000000)   /* an MSR-era Windows filetime (100 ns units) */

static uint64_t rnd(uint64_t *s) {   /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unif(uint64_t *s) { return (double)(rnd(s) >> 11) / 9007199254740992.0; }

void twopm_workload(int i, twopm_mix *m) {
    /* Request shares of MSR-trace-like mixes (Fig. 8 gives each workload as migration, write and read
     * shares, reads split into key and non-key): five write-intensive, six balanced, five read-intensive;
     * the key share and the migration rate vary across them. */
    static const struct { const char *name; double wf, key, mig; } W[16] = {
        { "w01", 0.70, 0.30, 0.25 }, { "w02", 0.65, 0.20, 0.20 }, { "w03", 0.60, 0.40, 0.15 },
        { "w04", 0.55, 0.25, 0.25 }, { "w05", 0.50, 0.35, 0.10 }, { "b06", 0.45, 0.15, 0.20 },
        { "b07", 0.40, 0.30, 0.10 }, { "b08", 0.40, 0.50, 0.15 }, { "b09", 0.35, 0.20, 0.25 },
        { "b10", 0.30, 0.40, 0.05 }, { "b11", 0.30, 0.10, 0.15 }, { "r12", 0.20, 0.30, 0.20 },
        { "r13", 0.15, 0.45, 0.10 }, { "r14", 0.10, 0.20, 0.15 }, { "r15", 0.08, 0.35, 0.25 },
        { "r16", 0.05, 0.25, 0.05 },
    };
    if (i < 0 || i > 15) i = 0;
    *m = (twopm_mix){ .name = W[i].name, .requests = 3000, .write_frac = W[i].wf, .key_frac = W[i].key,
                      .key_density = 0.5, .decoy_frac = 0.2, .migrations_per_write = W[i].mig, .migrate_pages = 8,
                      .isp_pages = { 8, 16, 32, 64 },   /* 32 KB .. 256 KB */
                      .write_pages = { 1, 2, 4, 8 },    /* 4 KB .. 32 KB */
                      .seed = 0x2b0 + (uint64_t)i };
}

/* ---- mixes: generated, or MSR-format traces ------------------------------------------------------ */

static uint64_t lba_space(const csd_params *p) {
    return (uint64_t)p->channels * p->chips_per_channel * p->blocks_per_plane * p->pages_per_block / 2;
}

/* Chip time one request needs (a write: with its expected migration), ns. */
static double demand_ns(const csd_params *p, const twopm_mix *m, const twopm_req *r) {
    double xfer = (double)csd_xfer_ns(p->page_bytes, p->channel_bytes_per_s);
    double rd = (double)p->t_read_ns + xfer, pg = (double)p->t_prog_ns + xfer;
    if (r->kind == TWOPM_ISP) return r->pages * rd;
    return r->pages * pg + m->migrations_per_write * (m->migrate_pages * (rd + pg) + (double)p->t_erase_ns);
}

static double total_demand(const csd_params *p, const twopm_mix *m, const twopm_list *l) {
    double d = 0;
    for (size_t i = 0; i < l->n; i++) d += demand_ns(p, m, &l->r[i]);
    return d;
}

double twopm_load(const csd_params *p, const twopm_mix *m, const twopm_list *l) {
    if (l->n < 2 || l->r[l->n - 1].arrive_ns <= l->r[0].arrive_ns) return 0;
    double span = (double)(l->r[l->n - 1].arrive_ns - l->r[0].arrive_ns);
    return total_demand(p, m, l) / (span * p->channels * p->chips_per_channel);
}

/* Arrival times stretched or squeezed so that l offers load. */
static void rescale(const csd_params *p, const twopm_mix *m, twopm_list *l, double load) {
    double now = twopm_load(p, m, l);
    if (now <= 0 || load <= 0) return;
    uint64_t t0 = l->r[0].arrive_ns;
    /* whole 100 ns (an MSR timestamp's unit), so a mix written as a trace reads back the same */
    for (size_t i = 0; i < l->n; i++)
        l->r[i].arrive_ns = 100 * (uint64_t)llround((double)(l->r[i].arrive_ns - t0) * now / load / 100);
}

int twopm_generate(const csd_params *p, const twopm_mix *m, double load, twopm_list *out) {
    out->n = m->requests;
    out->r = calloc(out->n ? out->n : 1, sizeof *out->r);
    if (!out->r) return -ENOMEM;
    uint64_t s = m->seed;
    uint64_t space = lba_space(p);
    double t = 0;
    for (size_t i = 0; i < out->n; i++) {
        twopm_req *r = &out->r[i];
        r->kind = unif(&s) < m->write_frac ? TWOPM_WRITE : TWOPM_ISP;
        r->pages = r->kind == TWOPM_WRITE ? m->write_pages[rnd(&s) % 4] : m->isp_pages[rnd(&s) % 4];
        r->lba = rnd(&s) % (space - MAX_REQ_PAGES);
        t += -log(1.0 - unif(&s));   /* exponential inter-arrivals, mean 1; scaled below */
        r->arrive_ns = (uint64_t)llround(t * 1e6);
    }
    if (load > 0) rescale(p, m, out, load);
    else
        for (size_t i = 0; i < out->n; i++) out->r[i].arrive_ns = 0;
    return 0;
}

void twopm_list_free(twopm_list *l) {
    free(l->r);
    l->r = NULL;
    l->n = 0;
}

int twopm_write_msr(const csd_params *p, const twopm_list *l, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -errno;
    }
    for (size_t i = 0; i < l->n; i++) {
        const twopm_req *r = &l->r[i];
        fprintf(f, "%" PRIu64 ",2pm,0,%s,%" PRIu64 ",%" PRIu64 ",0\n", FILETIME0 + r->arrive_ns / 100,
                r->kind == TWOPM_WRITE ? "Write" : "Read", r->lba * p->page_bytes, (uint64_t)r->pages * p->page_bytes);
    }
    if (fclose(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -EIO;
    }
    return 0;
}

int twopm_read_msr(const csd_params *p, const twopm_mix *m, const char *path, double load, twopm_list *out,
                   char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -ENOENT;
    }
    size_t cap = 0;
    char line[1024];
    uint32_t lineno = 0;
    uint64_t t0 = 0, space = lba_space(p);
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '#' || (lineno == 1 && !strncasecmp(line, "timestamp", 9))) continue;
        uint64_t ts, off, size, resp;
        char host[128], type[16];
        unsigned disk;
        int used = 0;
        if (sscanf(line, "%" SCNu64 ",%127[^,],%u,%15[^,],%" SCNu64 ",%" SCNu64 ",%" SCNu64 "%n", &ts, host, &disk,
                   type, &off, &size, &resp, &used) != 7 || (line[used] && line[used] != '\n' && line[used] != '\r')) {
            snprintf(err, errlen, "%s:%u: not an MSR-Cambridge line (timestamp,host,disk,type,offset,size,response)",
                     path, lineno);
            rc = -EINVAL;
            break;
        }
        int w = !strcasecmp(type, "Write");
        if (!w && strcasecmp(type, "Read")) {
            snprintf(err, errlen, "%s:%u: type '%s' is not Read or Write", path, lineno, type);
            rc = -EINVAL;
            break;
        }
        if (!size || ts > UINT64_MAX / 100) {
            snprintf(err, errlen, "%s:%u: %s", path, lineno, size ? "timestamp out of range" : "size 0");
            rc = -EINVAL;
            break;
        }
        if (!out->n) t0 = ts;
        if (ts < t0) {
            snprintf(err, errlen, "%s:%u: timestamp before the first line's", path, lineno);
            rc = -EINVAL;
            break;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 1024;
            twopm_req *r = realloc(out->r, cap * sizeof *r);
            if (!r) {
                rc = -ENOMEM;
                break;
            }
            out->r = r;
        }
        uint64_t first = off / p->page_bytes, last = (off + size - 1) / p->page_bytes;
        uint64_t pages = last - first + 1 < MAX_REQ_PAGES ? last - first + 1 : MAX_REQ_PAGES;
        out->r[out->n++] = (twopm_req){ .arrive_ns = (ts - t0) * 100, .kind = w ? TWOPM_WRITE : TWOPM_ISP,
                                        .pages = (uint32_t)pages, .lba = first % (space - MAX_REQ_PAGES) };
    }
    fclose(f);
    if (!rc && !out->n) {
        snprintf(err, errlen, "%s: no requests", path);
        rc = -EINVAL;
    }
    if (rc) {
        if (rc == -ENOMEM) snprintf(err, errlen, "%s: out of memory", path);
        twopm_list_free(out);
        return rc;
    }
    for (size_t i = 1; i < out->n; i++) {
        if (out->r[i].arrive_ns < out->r[i - 1].arrive_ns) {
            snprintf(err, errlen, "%s: requests are not in time order (request %zu)", path, i + 1);
            twopm_list_free(out);
            return -EINVAL;
        }
    }
    if (load > 0) rescale(p, m, out, load);
    return 0;
}

/* ---- requests ---------------------------------------------------------------------------------- */

typedef struct world world;

typedef struct job {
    world *w;
    uint32_t idx;               /* index in the list */
    uint8_t kind, key, decoy, mig;
    uint32_t pages;
    uint64_t lba;
    uint64_t seed;              /* its own: contents and migration do not depend on the policy */
    /* tasklet request */
    uint8_t *text;
    uint32_t planted;
    uint64_t *ppn;
    csd_outbuf out;
    csd_exec *run;
    csd_page_source src;
    csd_isp_work work;
    csd_isp_req *req;
    uint64_t id;                /* the engine's number for it (fig10) */
    uint64_t *pm_ns;            /* fig10: when the first stage had each page */
    /* write */
    csd_flash_op *ops;
    uint32_t left;
} job;

typedef struct mig {
    world *w;
    int phase;                  /* 0 reads, 1 programs, 2 erase */
    uint32_t left, from, to;    /* chips */
    uint32_t block;
    csd_flash_op *ops;
} mig;

struct world {
    const csd_params *p;
    const twopm_mix *m;
    const twopm_opts *o;
    const twopm_list *l;
    csd_engine *e;
    uint32_t chips;
    job *jobs;
    size_t n;
    job **isp_out;              /* tasklet requests in the device */
    size_t nisp;
    size_t *fifo[2], head[2], tail[2];   /* per path: arrived, waiting for room (list indices) */
    uint32_t in_dev[2];
    size_t arrived;             /* open loop: requests that have arrived */
    int turn;                   /* CARS: the path served last */
    twopm_result *res;
    char *err;
    size_t errlen;
};

static uint64_t job_ppn(void *arg, uint64_t page) { return ((job *)arg)->ppn[page]; }

static const uint8_t *job_view(void *arg, uint64_t ppn, int *rc) {
    job *j = arg;
    *rc = 0;
    for (uint32_t k = 0; k < j->pages; k++) {
        if (j->ppn[k] != ppn) continue;
        if (j->pm_ns && !j->pm_ns[k]) j->pm_ns[k] = csd_engine_now(j->w->e);
        return j->text + (uint64_t)k * j->w->p->page_bytes;
    }
    *rc = -EIO;
    return NULL;
}

static int job_read(void *arg, uint64_t ppn, uint8_t *buf) {
    int rc;
    const uint8_t *v = job_view(arg, ppn, &rc);
    if (v) memcpy(buf, v, ((job *)arg)->w->p->page_bytes);
    return rc;
}

/* Text of lines of random words; key requests get key_density lines per page (one at least) that begin
 * START x END, decoys a line that begins START alone or END START. A planted line may straddle pages,
 * and so may its keys. */
static void make_text(world *w, job *j) {
    uint64_t size = (uint64_t)j->pages * w->p->page_bytes, s = j->seed;
    j->text = malloc(size);
    if (!j->text) abort();
    uint32_t nplant = j->decoy ? 1 : 0;
    if (j->key) {
        nplant = (uint32_t)(w->m->key_density * j->pages + unif(&s));   /* rounded at random */
        if (nplant < 1) nplant = 1;
        if (nplant > 512) nplant = 512;
    }
    uint64_t at[512];
    uint8_t used[512] = { 0 };
    for (uint32_t i = 0; i < nplant; i++) at[i] = rnd(&s) % (size - 200);
    uint64_t pos = 0;
    j->planted = 0;
    while (pos < size) {
        uint64_t len = 40 + rnd(&s) % 120, end = pos + len < size ? pos + len : size;
        int plant = 0;
        for (uint32_t i = 0; i < nplant; i++) {
            if (!used[i] && at[i] >= pos && at[i] < end) {
                used[i] = 1;
                plant = 1;
            }
        }
        uint64_t q = pos;
        if (plant) {
            const char *k = j->key ? START_KEY " x " END_KEY : (rnd(&s) & 1) ? START_KEY : END_KEY " " START_KEY;
            memcpy(j->text + q, k, strlen(k));
            q += strlen(k);
            j->planted += j->key;
        }
        for (uint64_t bits = 0, left = 0; q + 1 < end; left--, bits >>= 8) {
            if (!left) {
                bits = rnd(&s);   /* eight letters a draw */
                left = 8;
            }
            uint8_t c = (uint8_t)('a' + (bits & 0xff) % 26);
            j->text[q++] = c == 'u' ? ' ' : c;
        }
        if (q < end) j->text[q++] = '\n';
        pos = end;
    }
    j->text[size - 1] = '\n';
}

static int start_isp(world *w, job *j) {
    const csd_params *p = w->p;
    make_text(w, j);
    j->ppn = malloc(sizeof *j->ppn * j->pages);
    if (!j->ppn) return -ENOMEM;
    for (uint32_t k = 0; k < j->pages; k++) j->ppn[k] = csd_synth_ppn(p, j->lba + k);
    if (w->o->fig10 && !(j->pm_ns = calloc(j->pages, sizeof *j->pm_ns))) return -ENOMEM;
    csd_outbuf_init(&j->out, 4096, 0);
    csd_kv kv[] = { { "start", START_KEY }, { "end", END_KEY }, { "mode", "count" } };
    csd_tasklet_args a = { .static_params = kv, .n_static = 3, .page_bytes = p->page_bytes };
    int rc = csd_exec_create(&j->run, csd_tasklet_find("grep2"), &a, &j->out, w->err, w->errlen);
    uint64_t size = (uint64_t)j->pages * p->page_bytes, first, last;
    if (!rc) rc = csd_exec_begin(j->run, size, 0, size, p->page_bytes, &first, &last, w->err, w->errlen);
    if (rc) return rc;
    j->src = (csd_page_source){ j, job_ppn, job_read, job_view, NULL };
    j->work = csd_exec_work(j->run);
    rc = csd_engine_submit(w->e, &j->req, &j->work, &j->src, first, last, j->pages - 1, p->page_bytes);
    if (rc) snprintf(w->err, w->errlen, "submit: %s", strerror(-rc));
    csd_isp_progress pr;
    csd_engine_progress(w->e, j->req, &pr);
    j->id = pr.id;
    return rc;
}

static void start_migration(world *w, const job *j);

static void write_done(csd_flash_op *op, uint64_t t) {
    job *j = op->owner;
    world *w = j->w;
    if (--j->left) return;
    w->res->req[j->idx].finish_ns = t;
    w->in_dev[TWOPM_WRITE]--;
    if (j->mig) start_migration(w, j);
    free(j->ops);
    j->ops = NULL;
}

static void start_write(world *w, job *j) {
    j->ops = calloc(j->pages, sizeof *j->ops);
    if (!j->ops) abort();
    j->left = j->pages;
    for (uint32_t k = 0; k < j->pages; k++) {
        j->ops[k] = (csd_flash_op){ .kind = CSD_FLASH_PROGRAM, .src = CSD_SRC_HOST,
                                    .ppn = csd_synth_ppn(w->p, j->lba + k), .owner = j, .done = write_done };
        csd_flash_submit(csd_engine_flash(w->e), &j->ops[k]);
    }
}

/* ---- background migration: copy pages off a block, then erase it ------------------------------- */

static void mig_step(mig *g);

static void mig_done(csd_flash_op *op, uint64_t t) {
    mig *g = op->owner;
    (void)t;
    if (--g->left == 0) mig_step(g);
}

static uint64_t ppn_at(const csd_params *p, uint32_t chip, uint32_t block, uint32_t page) {
    csd_addr a = { .channel = chip / p->chips_per_channel, .chip = chip % p->chips_per_channel,
                   .block = block % p->blocks_per_plane, .page = page % p->pages_per_block };
    return csd_ppn_encode(p, &a);
}

static void mig_step(mig *g) {
    world *w = g->w;
    uint32_t n = w->m->migrate_pages;
    if (g->phase == 2) {
        free(g->ops);
        free(g);
        return;
    }
    if (g->phase == 1) {
        w->res->erases++;
        g->phase = 2;
        g->left = 1;
        g->ops[0] = (csd_flash_op){ .kind = CSD_FLASH_ERASE, .src = CSD_SRC_GC, .ppn = ppn_at(w->p, g->from, g->block, 0),
                                    .owner = g, .done = mig_done };
        csd_flash_submit(csd_engine_flash(w->e), &g->ops[0]);
        return;
    }
    /* phase 0 ended: the copies go to another chip */
    g->phase = 1;
    g->left = n;
    for (uint32_t k = 0; k < n; k++) {
        g->ops[k] = (csd_flash_op){ .kind = CSD_FLASH_PROGRAM, .src = CSD_SRC_GC,
                                    .ppn = ppn_at(w->p, g->to, g->block + 1, k), .owner = g, .done = mig_done };
        csd_flash_submit(csd_engine_flash(w->e), &g->ops[k]);
    }
}

/* The migration a completed write j starts (its chips and block drawn from j's own seed). */
static void start_migration(world *w, const job *j) {
    uint32_t n = w->m->migrate_pages;
    uint64_t s = j->seed ^ 0x6d6967ull;
    mig *g = calloc(1, sizeof *g);
    if (!g || !(g->ops = calloc(n, sizeof *g->ops))) abort();
    g->w = w;
    g->from = (uint32_t)(rnd(&s) % w->chips);
    g->to = w->chips > 1 ? (g->from + 1 + (uint32_t)(rnd(&s) % (w->chips - 1))) % w->chips : g->from;
    g->block = (uint32_t)(rnd(&s) % w->p->blocks_per_plane);
    g->left = n;
    w->res->migrations++;
    for (uint32_t k = 0; k < n; k++) {
        g->ops[k] = (csd_flash_op){ .kind = CSD_FLASH_READ, .src = CSD_SRC_GC, .ppn = ppn_at(w->p, g->from, g->block, k),
                                    .owner = g, .done = mig_done };
        csd_flash_submit(csd_engine_flash(w->e), &g->ops[k]);
    }
}

/* ---- the paths into the device -------------------------------------------------------------------- */

static int room(const world *w, int k) {
    if (!w->o->write_qd) return w->in_dev[0] + w->in_dev[1] < w->o->isp_qd;
    return w->in_dev[k] < (k == TWOPM_ISP ? w->o->isp_qd : w->o->write_qd);
}

/* CARS's conflict (Yang et al., DATE'19: a fetched request is checked for conflicts before it is
 * dispatched): a chip the request needs already has operations waiting in its queue. */
static int busy_target(world *w, const job *j) {
    csd_flash *f = csd_engine_flash(w->e);
    for (uint32_t k = 0; k < j->pages; k++) {
        csd_addr a;
        csd_ppn_decode(w->p, csd_synth_ppn(w->p, j->lba + k), &a);
        if (csd_flash_chip_queued(f, a.chip_global)) return 1;
    }
    return 0;
}

static int dispatch(world *w, job *j) {
    twopm_req_result *q = &w->res->req[j->idx];
    q->dispatch_ns = csd_engine_now(w->e);
    if (!w->o->open_loop) q->arrive_ns = q->dispatch_ns;
    w->in_dev[j->kind]++;
    if (j->kind == TWOPM_WRITE) {
        start_write(w, j);
        return 0;
    }
    w->isp_out[w->nisp++] = j;
    return start_isp(w, j);
}

/* Take waiting requests into the device while their paths have room. */
static int pump(world *w) {
    for (;;) {
        int can[2];
        for (int k = 0; k < 2; k++) can[k] = w->head[k] < w->tail[k] && room(w, k);
        if (!can[0] && !can[1]) return 0;
        int k;
        if (!can[0] || !can[1]) {
            k = can[1];
        } else if (w->o->host_sched == TWOPM_HOST_RR) {
            k = w->turn ^ 1;   /* the paths in turn (the paper's request queue, III-B) */
        } else if (w->o->host_sched == TWOPM_HOST_CARS) {
            /* CARS: the paths in turn (round robin, its baseline), passing over a head that would
             * conflict for the other path's; when both would, the turn's goes (the device never idles) */
            int first = w->turn ^ 1;
            k = first;
            if (busy_target(w, &w->jobs[w->fifo[first][w->head[first]]]) &&
                !busy_target(w, &w->jobs[w->fifo[first ^ 1][w->head[first ^ 1]]]))
                k = first ^ 1;
        } else {
            /* the oldest of the heads (ties: the list's order) */
            size_t a = w->fifo[0][w->head[0]], b = w->fifo[1][w->head[1]];
            uint64_t ta = w->l->r[a].arrive_ns, tb = w->l->r[b].arrive_ns;
            k = tb < ta || (tb == ta && b < a);
        }
        w->turn = k;
        int rc = dispatch(w, &w->jobs[w->fifo[k][w->head[k]++]]);
        if (rc) return rc;
    }
}

static void arrive_ev(csd_sim *sim, void *arg) {
    world *w = arg;
    uint64_t now = csd_sim_now(sim);
    while (w->arrived < w->n && w->l->r[w->arrived].arrive_ns <= now) {
        size_t i = w->arrived++;
        int k = w->jobs[i].kind;
        w->fifo[k][w->tail[k]++] = i;
        w->res->req[i].arrive_ns = w->l->r[i].arrive_ns;
    }
    if (w->arrived < w->n) csd_flash_at(csd_engine_flash(w->e), w->l->r[w->arrived].arrive_ns, arrive_ev, w);
}

/* Tasklet requests that finished: record, check the count against the lines planted, free. */
static int reap(world *w) {
    for (size_t i = 0; i < w->nisp;) {
        job *j = w->isp_out[i];
        csd_isp_progress pr;
        csd_engine_progress(w->e, j->req, &pr);
        if (!pr.finished) {
            i++;
            continue;
        }
        if (pr.status) {
            snprintf(w->err, w->errlen, "request %u failed: %s", j->idx, csd_exec_error(j->run));
            return -EPROTO;
        }
        const uint8_t *p;
        size_t n = csd_outbuf_take(&j->out, SIZE_MAX, &p);
        uint64_t count = UINT64_MAX;
        if (n > 1) {
            Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, (size_t)p[0], p + 1);
            if (row && row->n_values == 1) count = (uint64_t)row->values[0]->i;
            smartssd__v1__row__free_unpacked(row, NULL);
        }
        if (count != j->planted) {
            snprintf(w->err, w->errlen, "request %u: grep2 counted %llu lines, %u were planted", j->idx,
                     (unsigned long long)count, j->planted);
            return -EPROTO;
        }
        w->res->matched_lines += count;
        w->res->planted_lines += j->planted;
        w->res->req[j->idx].finish_ns = pr.finish_ns;
        w->res->req[j->idx].matched_ns = pr.matched_ns;
        csd_engine_release(w->e, j->req);
        csd_exec_destroy(j->run);
        csd_outbuf_free(&j->out);
        j->req = NULL;
        j->run = NULL;
        free(j->text);
        j->text = NULL;
        if (!j->pm_ns) {
            free(j->ppn);
            j->ppn = NULL;
        }
        w->isp_out[i] = w->isp_out[--w->nisp];
        w->in_dev[TWOPM_ISP]--;
    }
    return 0;
}

/* ---- Fig. 10: how long landed pages wait for their first stage ---------------------------------- */

typedef struct landing { uint64_t req, ppn, t; } landing;

static int landing_cmp(const void *a, const void *b) {
    const landing *x = a, *y = b;
    if (x->req != y->req) return x->req < y->req ? -1 : 1;
    return x->ppn < y->ppn ? -1 : x->ppn > y->ppn;
}

static int fig10(world *w, const csd_trace *t) {
    if (csd_trace_dropped(t)) {
        snprintf(w->err, w->errlen, "fig10: the timeline dropped %" PRIu64 " events", csd_trace_dropped(t));
        return -ENOSPC;
    }
    uint64_t ne = csd_trace_events(t), nl = 0;
    landing *v = malloc((ne ? ne : 1) * sizeof *v);
    size_t pages = 0;
    for (size_t i = 0; i < w->n; i++) pages += w->jobs[i].kind == TWOPM_ISP ? w->jobs[i].pages : 0;
    w->res->fig10_ooo_ns = malloc((pages ? pages : 1) * sizeof(uint64_t));
    w->res->fig10_ino_ns = malloc((pages ? pages : 1) * sizeof(uint64_t));
    if (!v || !w->res->fig10_ooo_ns || !w->res->fig10_ino_ns) {
        free(v);
        return -ENOMEM;
    }
    for (uint64_t k = 0; k < ne; k++) {
        csd_trace_event ev;
        csd_trace_get(t, k, &ev);
        /* a tasklet page's transfer out of its chip: it is in the device when that ends */
        if (ev.track == CSD_TRACK_CHIP && ev.req && !strcmp(ev.name, "xfer")) v[nl++] = (landing){ ev.req, ev.arg, ev.end_ns };
    }
    qsort(v, nl, sizeof *v, landing_cmp);
    uint64_t proc_full = csd_xfer_ns(w->p->page_bytes, w->p->pm_bytes_per_s);
    size_t out = 0;
    for (size_t i = 0; i < w->n; i++) {
        job *j = &w->jobs[i];
        if (j->kind != TWOPM_ISP || !j->pm_ns) continue;
        uint64_t prev_end = 0;
        for (uint32_t k = 0; k < j->pages; k++) {
            landing key = { j->id, j->ppn[k], 0 };
            landing *l = bsearch(&key, v, nl, sizeof *v, landing_cmp);
            if (!l || !j->pm_ns[k] || j->pm_ns[k] < l->t + proc_full) {
                snprintf(w->err, w->errlen, "fig10: request %u page %u has no landing or processing time", j->idx, k);
                free(v);
                return -EPROTO;
            }
            uint64_t start = l->t > prev_end ? l->t : prev_end;   /* in order: after the page before it */
            prev_end = start + proc_full;
            w->res->fig10_ooo_ns[out] = j->pm_ns[k] - proc_full - l->t;
            w->res->fig10_ino_ns[out++] = start - l->t;
        }
    }
    w->res->fig10_n = out;
    free(v);
    return 0;
}

/* ---- the run ------------------------------------------------------------------------------------ */

int twopm_run(const csd_params *p, const twopm_mix *m, const twopm_list *l, const twopm_opts *o,
              twopm_result *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!o->isp_qd || !l->n || (o->fig10 && !p->pm_bytes_per_s)) {
        snprintf(err, errlen, "%s", !o->isp_qd ? "isp_qd must be at least 1" : !l->n ? "no requests"
                                                                                  : "fig10 needs pattern-matching units");
        return -EINVAL;
    }
    world w = { .p = p, .m = m, .o = o, .l = l, .chips = p->channels * p->chips_per_channel, .n = l->n,
                .res = out, .err = err, .errlen = errlen, .turn = 1 };
    csd_trace *tr = NULL;
    int rc = csd_engine_create(&w.e, p, err, errlen);
    if (rc) return rc;
    w.jobs = calloc(w.n, sizeof *w.jobs);
    w.isp_out = calloc(w.n, sizeof *w.isp_out);
    w.fifo[0] = calloc(w.n, sizeof *w.fifo[0]);
    w.fifo[1] = calloc(w.n, sizeof *w.fifo[1]);
    out->req = calloc(w.n, sizeof *out->req);
    out->n = w.n;
    if (!w.jobs || !w.isp_out || !w.fifo[0] || !w.fifo[1] || !out->req) {
        rc = -ENOMEM;
        goto done;
    }
    uint64_t ops = 0;
    for (size_t i = 0; i < w.n; i++) {
        job *j = &w.jobs[i];
        const twopm_req *r = &l->r[i];
        *j = (job){ .w = &w, .idx = (uint32_t)i, .kind = r->kind, .pages = r->pages, .lba = r->lba };
        uint64_t s = m->seed * 0x9e3779b97f4a7c15ull + i;
        j->seed = rnd(&s);
        s = j->seed;
        if (j->kind == TWOPM_ISP) {
            j->key = unif(&s) < m->key_frac;
            j->decoy = !j->key && unif(&s) < m->decoy_frac;
        } else {
            j->mig = unif(&s) < m->migrations_per_write;
        }
        j->seed = rnd(&s);
        ops += j->pages + (j->mig ? 2 * m->migrate_pages + 1 : 0);
        out->req[i] = (twopm_req_result){ .kind = j->kind, .key = j->key, .pages = j->pages };
    }
    if (o->fig10) {
        /* every operation: chip spans, a channel span, two queue counters */
        if ((rc = csd_trace_create(&tr, 8 * ops + 1024, 0, 0))) goto done;
        csd_flash_set_trace(csd_engine_flash(w.e), tr);
    }
    if (o->open_loop) {
        csd_flash_at(csd_engine_flash(w.e), l->r[0].arrive_ns, arrive_ev, &w);
    } else {
        for (size_t i = 0; i < w.n; i++) w.fifo[w.jobs[i].kind][w.tail[w.jobs[i].kind]++] = i;
        w.arrived = w.n;
    }
    for (;;) {
        if ((rc = pump(&w))) goto done;
        if (!csd_engine_step(w.e)) {
            if (w.in_dev[0] + w.in_dev[1] || w.arrived < w.n || w.head[0] < w.tail[0] || w.head[1] < w.tail[1]) {
                snprintf(err, errlen, "%u requests never finished (nothing left to run)", w.in_dev[0] + w.in_dev[1]);
                rc = -EPROTO;
                goto done;
            }
            break;
        }
        if ((rc = reap(&w))) goto done;
    }
    uint64_t end = 0;
    for (size_t i = 0; i < w.n; i++) {
        if (!out->req[i].finish_ns) {
            snprintf(err, errlen, "request %zu never finished", i);
            rc = -EPROTO;
            goto done;
        }
        if (out->req[i].finish_ns > end) end = out->req[i].finish_ns;
    }
    out->makespan_ns = end;
    csd_flash_stats fs;
    csd_engine_stats_get(w.e, NULL, &fs);
    out->flash_reads = fs.reads;
    out->flash_programs = fs.programs;
    out->suspends = fs.suspends;
    out->chip_busy_ns = fs.chip_busy_ns;
    if (out->matched_lines != out->planted_lines) {
        snprintf(err, errlen, "grep2 found %llu lines, %llu were planted", (unsigned long long)out->matched_lines,
                 (unsigned long long)out->planted_lines);
        rc = -EPROTO;
        goto done;
    }
    if (tr) rc = fig10(&w, tr);
done:
    for (size_t i = 0; i < w.nisp; i++) {
        job *j = w.isp_out[i];
        if (j->req) csd_engine_release(w.e, j->req);
    }
    while (w.e && csd_engine_step(w.e)) {}   /* let operations in flight land before freeing them */
    for (size_t i = 0; w.jobs && i < w.n; i++) {
        job *j = &w.jobs[i];
        if (j->run) {
            csd_exec_destroy(j->run);
            csd_outbuf_free(&j->out);
        }
        free(j->text);
        free(j->ppn);
        free(j->pm_ns);
        free(j->ops);
    }
    csd_engine_destroy(w.e);
    csd_trace_destroy(tr);
    free(w.jobs);
    free(w.isp_out);
    free(w.fifo[0]);
    free(w.fifo[1]);
    if (rc) twopm_result_free(out);
    return rc;
}

void twopm_result_free(twopm_result *r) {
    free(r->req);
    free(r->fig10_ooo_ns);
    free(r->fig10_ino_ns);
    r->req = NULL;
    r->fig10_ooo_ns = r->fig10_ino_ns = NULL;
    r->n = r->fig10_n = 0;
}
