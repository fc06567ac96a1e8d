/* Synthetic request mixes run through the engine (synth.h). */
#include "lib/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash/flash.h"
#include "runtime/exec.h"

/* ---- the cost tasklet: one record per page, ci_ns of core time each ------------------------- */

typedef struct cost_state { uint64_t cycles; } cost_state;

static int cost_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    const char *v = csd_args_get(a, "cycles");
    cost_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    s->cycles = v ? strtoull(v, NULL, 10) : 0;
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = a->page_bytes;
    *state = s;
    return 0;
}

static int cost_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    (void)rec; (void)len; (void)off;
    csd_io_charge(io, ((cost_state *)state)->cycles, 0);
    return 0;
}

static int cost_finish(void *state, csd_tasklet_io *io) {
    (void)state; (void)io;
    return 0;
}

static void cost_destroy(void *state) { free(state); }

static const csd_tasklet_ops cost_ops = {
    .name = "synth-cost", .summary = "charges c_i per page", .init = cost_init, .record = cost_record,
    .finish = cost_finish, .destroy = cost_destroy,
};

/* ---- layout --------------------------------------------------------------------------------- */

uint64_t csd_synth_ppn(const csd_params *p, uint64_t lba) {
    uint64_t planes = p->planes_per_die, chips = (uint64_t)p->channels * p->chips_per_channel;
    uint64_t dies = p->dies_per_chip;
    uint64_t stripe = lba / planes;               /* multi-plane group */
    uint64_t chip = stripe % chips, row = stripe / chips;
    uint64_t die = row % dies;
    row /= dies;
    csd_addr a = { .channel = (uint32_t)(chip / p->chips_per_channel),
                   .chip = (uint32_t)(chip % p->chips_per_channel), .die = (uint32_t)die,
                   .plane = (uint32_t)(lba % planes),
                   .block = (uint32_t)(row / p->pages_per_block % p->blocks_per_plane),
                   .page = (uint32_t)(row % p->pages_per_block) };
    return csd_ppn_encode(p, &a);
}

/* ---- running a mix -------------------------------------------------------------------------- */

typedef struct job {
    const csd_params *p;
    uint64_t lba;
    csd_outbuf out;
    csd_exec *run;
    csd_page_source src;
    csd_isp_req *req;
    csd_kv kv;
    char val[32];
} job;

static uint64_t job_ppn(void *arg, uint64_t page) {
    job *j = arg;
    return csd_synth_ppn(j->p, j->lba + page);
}

static int job_read(void *arg, uint64_t ppn, uint8_t *buf) {
    (void)arg; (void)ppn; (void)buf;   /* the cost tasklet never looks at the bytes */
    return 0;
}

static int job_start(csd_engine *e, const csd_params *p, job *j, const csd_synth_req *q, char *err, size_t errlen) {
    j->p = p;
    j->lba = q->lba_page;
    csd_outbuf_init(&j->out, 4096, 0);
    uint64_t cycles = (q->ci_ns * p->core_mhz + 999) / 1000;
    snprintf(j->val, sizeof j->val, "%llu", (unsigned long long)cycles);
    j->kv = (csd_kv){ "cycles", j->val };
    csd_tasklet_args a = { .static_params = &j->kv, .n_static = 1, .page_bytes = p->page_bytes };
    int rc = csd_exec_create(&j->run, &cost_ops, &a, &j->out, err, errlen);
    if (rc) return rc;
    uint64_t size = q->pages * p->page_bytes, first, last;
    rc = csd_exec_begin(j->run, size, 0, size, p->page_bytes, &first, &last, err, errlen);
    if (rc) return rc;
    j->src = (csd_page_source){ j, job_ppn, job_read, NULL, NULL };
    uint64_t max_page = q->pages ? q->pages - 1 : 0;
    csd_isp_work w = csd_exec_work(j->run);
    rc = csd_engine_submit_ex(e, &j->req, &w, &j->src, first, last, max_page, p->page_bytes, q->ci_ns);
    if (rc) snprintf(err, errlen, "submit: %s", strerror(-rc));
    return rc;
}

static int cmp_arrival(const void *a, const void *b, void *arg) {
    const csd_synth_req *r = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (r[x].arrive_ns != r[y].arrive_ns) return r[x].arrive_ns < r[y].arrive_ns ? -1 : 1;
    return x < y ? -1 : x > y;
}

int csd_synth_run(const csd_params *p, const csd_synth_req *reqs, size_t n, int check_each_step,
                  csd_engine_trace_fn trace, void *trace_arg, csd_synth_result *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    csd_engine *e = NULL;
    int rc = csd_engine_create(&e, p, err, errlen);
    if (rc) return rc;
    csd_engine_set_trace(e, trace, trace_arg);
    job *jobs = calloc(n ? n : 1, sizeof *jobs);
    size_t *order = calloc(n ? n : 1, sizeof *order);
    out->finish_ns = calloc(n ? n : 1, sizeof *out->finish_ns);
    if (!jobs || !order || !out->finish_ns) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++) order[i] = i;
    qsort_r(order, n, sizeof *order, cmp_arrival, (void *)reqs);
    size_t next = 0;
    for (;;) {
        while (next < n && reqs[order[next]].arrive_ns <= csd_engine_now(e)) {
            rc = job_start(e, p, &jobs[order[next]], &reqs[order[next]], err, errlen);
            if (rc) goto done;
            next++;
        }
        int ran = csd_engine_step(e);
        if (ran && check_each_step) {
            out->checks++;
            if (csd_engine_check(e, err, errlen)) {
                rc = -EPROTO;
                goto done;
            }
        }
        if (!ran) {
            if (next == n) break;
            csd_engine_run_until(e, reqs[order[next]].arrive_ns);
        }
    }
    uint64_t t0 = n ? reqs[order[0]].arrive_ns : 0, end = t0;
    for (size_t i = 0; i < n; i++) {
        csd_isp_progress pr;
        csd_engine_progress(e, jobs[i].req, &pr);
        if (!pr.finished || pr.status) {
            snprintf(err, errlen, "request %zu %s (%llu of %llu pages)", i,
                     pr.finished ? "failed" : "never finished (starved or stuck)",
                     (unsigned long long)pr.pages_done, (unsigned long long)pr.pages_total);
            rc = -EPROTO;
            goto done;
        }
        out->finish_ns[i] = pr.finish_ns;
        if (pr.finish_ns > end) end = pr.finish_ns;
    }
    out->makespan_ns = end - t0;
    csd_engine_stats st;
    csd_flash_stats fs;
    csd_engine_stats_get(e, &st, &fs);
    out->core_busy_ns = st.isp_core_ns;
    out->buffer_peak_bytes = st.isp_buffer_peak_bytes;
    out->flash_reads = fs.reads;
    out->decisions = st.stage_decisions;
    out->forced = st.stage_forced;
done:
    if (jobs) {
        for (size_t i = 0; i < n; i++) {
            if (jobs[i].req) csd_engine_release(e, jobs[i].req);
            if (jobs[i].run) csd_exec_destroy(jobs[i].run);
            csd_outbuf_free(&jobs[i].out);
        }
    }
    free(jobs);
    free(order);
    csd_engine_destroy(e);
    if (rc) {
        free(out->finish_ns);
        out->finish_ns = NULL;
    }
    return rc;
}

void csd_synth_result_free(csd_synth_result *r) {
    free(r->finish_ns);
    r->finish_ns = NULL;
}
