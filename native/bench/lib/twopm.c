/* The 2PM paper's workloads on the engine (twopm.h). */
#include "lib/twopm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "flash/flash.h"
#include "lib/synth.h"
#include "runtime/exec.h"
#include "smartssd/v1/device.pb-c.h"

/* The pattern every tasklet request looks for: a start key, then an end key in the same line. The
 * generated words are lowercase without 'u', so neither key occurs unless planted. */
#define START_KEY "ERROR"
#define END_KEY "timeout"

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
                      .seed = 0x2b0 + (uint64_t)i };
}

/* ---- requests ---------------------------------------------------------------------------------- */

static const uint32_t WRITE_PAGES[] = { 1, 2, 4, 8 };       /* 4 KB .. 32 KB */

typedef struct world world;

typedef struct job {
    world *w;
    uint32_t idx;               /* request index (arrival order) */
    uint8_t kind, key;
    uint32_t pages;
    uint64_t lba;
    /* tasklet request */
    uint8_t *text;
    uint32_t planted;
    uint64_t *ppn;
    csd_outbuf out;
    csd_exec *run;
    csd_page_source src;
    csd_isp_work work;
    csd_isp_req *req;
    /* write */
    csd_flash_op *ops;
    uint32_t left;
    struct job *qnext;          /* request queue */
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
    csd_engine *e;
    uint64_t seed;
    uint32_t chips;
    job *jobs;
    size_t n;
    job **isp_out;              /* tasklet requests in the device */
    size_t nisp;
    uint32_t outstanding, qd;
    uint32_t writes_done;       /* writes completed since the main loop last looked */
    twopm_result *res;
    int failed;
    char *err;
    size_t errlen;
};

static uint64_t job_ppn(void *arg, uint64_t page) { return ((job *)arg)->ppn[page]; }

static const uint8_t *job_view(void *arg, uint64_t ppn, int *rc) {
    job *j = arg;
    *rc = 0;
    for (uint32_t k = 0; k < j->pages; k++)
        if (j->ppn[k] == ppn) return j->text + (uint64_t)k * j->w->p->page_bytes;
    *rc = -EIO;
    return NULL;
}

static int job_read(void *arg, uint64_t ppn, uint8_t *buf) {
    int rc;
    const uint8_t *v = job_view(arg, ppn, &rc);
    if (v) memcpy(buf, v, ((job *)arg)->w->p->page_bytes);
    return rc;
}

/* Text of lines of random words; key requests get key_density lines per page (one at least) that begin START x END, decoys a
 * line that begins START alone or END START. A planted line may straddle pages, and so may its keys. */
static void make_text(world *w, job *j, int decoy) {
    uint64_t size = (uint64_t)j->pages * w->p->page_bytes;
    j->text = malloc(size);
    if (!j->text) abort();
    uint32_t nplant = decoy ? 1 : 0;
    if (j->key) {
        nplant = (uint32_t)(w->m->key_density * j->pages + unif(&w->seed));   /* rounded at random */
        if (nplant < 1) nplant = 1;
        if (nplant > 64) nplant = 64;
    }
    uint64_t at[64];
    uint8_t used[64] = { 0 };
    for (uint32_t i = 0; i < nplant; i++) at[i] = rnd(&w->seed) % (size - 200);
    uint64_t pos = 0;
    while (pos < size) {
        uint64_t len = 40 + rnd(&w->seed) % 120, end = pos + len < size ? pos + len : size;
        int plant = 0;
        for (uint32_t i = 0; i < nplant; i++) {
            if (!used[i] && at[i] >= pos && at[i] < end) {
                used[i] = 1;
                plant = 1;
            }
        }
        uint64_t q = pos;
        if (plant) {
            const char *s = j->key ? START_KEY " x " END_KEY : (rnd(&w->seed) & 1) ? START_KEY : END_KEY " " START_KEY;
            memcpy(j->text + q, s, strlen(s));
            q += strlen(s);
            j->planted += j->key;
        }
        while (q + 1 < end) {
            uint8_t c = (uint8_t)('a' + rnd(&w->seed) % 26);
            j->text[q++] = c == 'u' ? ' ' : c;
        }
        if (q < end) j->text[q++] = '\n';
        pos = end;
    }
    j->text[size - 1] = '\n';
}

static int start_isp(world *w, job *j) {
    const csd_params *p = w->p;
    j->ppn = malloc(sizeof *j->ppn * j->pages);
    if (!j->ppn) return -ENOMEM;
    for (uint32_t k = 0; k < j->pages; k++) j->ppn[k] = csd_synth_ppn(p, j->lba + k);
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
    return rc;
}

static void write_done(csd_flash_op *op, uint64_t t) {
    job *j = op->owner;
    world *w = j->w;
    if (--j->left) return;
    w->res->req[j->idx].finish_ns = t;
    w->outstanding--;
    w->writes_done++;
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

static int dispatch(world *w, job *j) {
    w->res->req[j->idx].dispatch_ns = csd_engine_now(w->e);
    w->outstanding++;
    if (j->kind == TWOPM_WRITE) {
        start_write(w, j);
        return 0;
    }
    w->isp_out[w->nisp++] = j;
    return start_isp(w, j);
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
        w->res->req[j->idx].finish_ns = pr.finish_ns;
        w->res->req[j->idx].matched_ns = pr.matched_ns;
        csd_engine_release(w->e, j->req);
        csd_exec_destroy(j->run);
        csd_outbuf_free(&j->out);
        j->req = NULL;
        j->run = NULL;
        free(j->text);
        free(j->ppn);
        j->text = NULL;
        j->ppn = NULL;
        w->isp_out[i] = w->isp_out[--w->nisp];
        w->outstanding--;
    }
    return 0;
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

static void start_migration(world *w) {
    uint32_t n = w->m->migrate_pages;
    mig *g = calloc(1, sizeof *g);
    if (!g || !(g->ops = calloc(n, sizeof *g->ops))) abort();
    g->w = w;
    g->from = (uint32_t)(rnd(&w->seed) % w->chips);
    g->to = w->chips > 1 ? (g->from + 1 + (uint32_t)(rnd(&w->seed) % (w->chips - 1))) % w->chips : g->from;
    g->block = (uint32_t)(rnd(&w->seed) % w->p->blocks_per_plane);
    g->left = n;
    w->res->migrations++;
    for (uint32_t k = 0; k < n; k++) {
        g->ops[k] = (csd_flash_op){ .kind = CSD_FLASH_READ, .src = CSD_SRC_GC, .ppn = ppn_at(w->p, g->from, g->block, k),
                                    .owner = g, .done = mig_done };
        csd_flash_submit(csd_engine_flash(w->e), &g->ops[k]);
    }
}

/* ---- the run ------------------------------------------------------------------------------------ */

int twopm_run(const csd_params *p, const twopm_mix *m, uint32_t queue_depth, twopm_result *out, char *err,
              size_t errlen) {
    memset(out, 0, sizeof *out);
    world w = { .p = p, .m = m, .seed = m->seed, .chips = p->channels * p->chips_per_channel, .qd = queue_depth,
                .res = out, .err = err, .errlen = errlen };
    int rc = csd_engine_create(&w.e, p, err, errlen);
    if (rc) return rc;
    w.n = m->requests;
    w.jobs = calloc(w.n, sizeof *w.jobs);
    w.isp_out = calloc(w.n, sizeof *w.isp_out);
    out->req = calloc(w.n, sizeof *out->req);
    out->n = w.n;
    if (!w.jobs || !w.isp_out || !out->req) {
        rc = -ENOMEM;
        goto done;
    }
    uint64_t lba_space = (uint64_t)w.chips * p->blocks_per_plane * p->pages_per_block / 2;
    for (size_t i = 0; i < w.n; i++) {
        job *j = &w.jobs[i];
        j->w = &w;
        j->idx = (uint32_t)i;
        j->kind = unif(&w.seed) < m->write_frac ? TWOPM_WRITE : TWOPM_ISP;
        j->pages = j->kind == TWOPM_WRITE ? WRITE_PAGES[rnd(&w.seed) % 4] : m->isp_pages[rnd(&w.seed) % 4];
        j->lba = rnd(&w.seed) % (lba_space - 64);
        if (j->kind == TWOPM_ISP) {
            j->key = unif(&w.seed) < m->key_frac;
            make_text(&w, j, !j->key && unif(&w.seed) < m->decoy_frac);
            out->planted_lines += j->planted;
        }
        out->req[i] = (twopm_req_result){ .kind = j->kind, .key = j->key, .pages = j->pages };
    }
    /* replay: queue_depth requests in the device, the next one entering as one completes */
    size_t next = 0;
    for (;;) {
        while (next < w.n && w.outstanding < w.qd)
            if ((rc = dispatch(&w, &w.jobs[next++]))) goto done;
        for (; w.writes_done; w.writes_done--)
            if (unif(&w.seed) < m->migrations_per_write) start_migration(&w);
        if (!csd_engine_step(w.e)) {
            if (w.outstanding) {
                snprintf(err, errlen, "%u requests never finished (nothing left to run)", w.outstanding);
                rc = -EPROTO;
                goto done;
            }
            if (next >= w.n) break;
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
    if (out->matched_lines != out->planted_lines) {
        snprintf(err, errlen, "grep2 found %llu lines, %llu were planted", (unsigned long long)out->matched_lines,
                 (unsigned long long)out->planted_lines);
        rc = -EPROTO;
    }
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
        free(j->ops);
    }
    csd_engine_destroy(w.e);
    free(w.jobs);
    free(w.isp_out);
    if (rc) twopm_result_free(out);
    return rc;
}

void twopm_result_free(twopm_result *r) {
    free(r->req);
    r->req = NULL;
    r->n = 0;
}
