/* ISP engine: exact virtual times of host I/O and tasklet requests on the tiny preset (and one on
 * the paper preset), derived by hand in docs/TIMING-MODEL.md ("Engine worked examples").
 *
 * tiny: t_read 10000, page transfer 10000 (channel and host link), fw 1000, cmd_overhead 5000,
 * core 1000 MHz (1 cycle = 1 ns), dram 100 ns, page_cycles 1000, batch 8, buffer 16 pages.
 * The test tasklet "cost" reads 64-byte records and charges 10 cycles + 1 DRAM access per record,
 * so a full page costs 1000 + 64*10 + 64*100 = 8040 ns; finish() charges 500 cycles + 2 accesses =
 * 700 ns. A mapped page k lives on unit k mod 4 (page k / 4 of block `block`) and arrives in DRAM
 * 21000 ns after issue when its chip and channel are idle. */
#include "check.h"
#include "sched_names.h"
#include "flash/flash.h"
#include "engine/engine.h"
#include "runtime/exec.h"
#include "trace/trace.h"

#include <errno.h>

#define PAGE 4096u
#define PAGE_NS 8040u
#define FINISH_NS 700u

/* ---- the test tasklets ---------------------------------------------------------------------- */

typedef struct cost_state {
    uint64_t records;
    int64_t fail_at;      /* record offset that fails, -1 = never */
    uint64_t stop_after;  /* CSD_STOP after this many records, 0 = never */
} cost_state;

static int cost_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    cost_state *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    const char *v = csd_args_get(a, "fail_at");
    s->fail_at = v ? atoll(v) : -1;
    v = csd_args_get(a, "stop_after");
    s->stop_after = v ? strtoull(v, NULL, 10) : 0;
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = 64;
    *state = s;
    (void)err; (void)errlen;
    return 0;
}

static int cost_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    cost_state *s = state;
    (void)rec; (void)len;
    if (s->fail_at >= 0 && off == (uint64_t)s->fail_at) {
        csd_io_fail(io, "bad record at %llu", (unsigned long long)off);
        return -EIO;
    }
    csd_io_charge(io, 10, 1);
    s->records++;
    if (s->stop_after && s->records == s->stop_after) return CSD_STOP;
    return 0;
}

static int cost_finish(void *state, csd_tasklet_io *io) {
    cost_state *s = state;
    csd_io_charge(io, 500, 2);
    csd_io_row_begin(io);
    csd_io_val_int(io, (int64_t)s->records);
    return csd_io_row_end(io) < 0 ? -ENOSPC : 0;
}

static void cost_destroy(void *state) { free(state); }

static const csd_tasklet_ops cost_ops = {
    .name = "cost", .summary = "charges per record", .init = cost_init, .record = cost_record,
    .finish = cost_finish, .destroy = cost_destroy,
};

/* lines: 100 cycles per line */
static int lines_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    (void)a; (void)err; (void)errlen;
    *state = calloc(1, sizeof(cost_state));
    fr->kind = CSD_FRAMING_LINES;
    return *state ? 0 : -ENOMEM;
}
static int lines_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    (void)rec; (void)len; (void)off;
    ((cost_state *)state)->records++;
    csd_io_charge(io, 100, 0);
    return 0;
}
static const csd_tasklet_ops lines_ops = {
    .name = "lines", .summary = "counts lines", .init = lines_init, .record = lines_record,
    .finish = cost_finish, .destroy = cost_destroy,
};

/* ---- an object in memory -------------------------------------------------------------------- */

typedef struct object {
    const csd_params *p;
    uint8_t *data;
    uint64_t size, pages;
    uint64_t *ppn;        /* per page, CSD_PPN_NONE = unmapped */
    int reads;
    uint64_t bad_ppn;     /* reading this ppn fails with -EIO */
} object;

static uint64_t obj_ppn(void *arg, uint64_t page) {
    object *o = arg;
    return page < o->pages ? o->ppn[page] : CSD_PPN_NONE;
}

static int obj_read(void *arg, uint64_t ppn, uint8_t *buf) {
    object *o = arg;
    if (ppn == o->bad_ppn) return -EIO;
    for (uint64_t k = 0; k < o->pages; k++) {
        if (o->ppn[k] == ppn) {
            uint64_t P = o->p->page_bytes;
            uint64_t n = o->size - k * P < P ? o->size - k * P : P;
            memset(buf, 0, P);
            memcpy(buf, o->data + k * P, n);
            o->reads++;
            return 0;
        }
    }
    return -EIO;
}

/* page k on unit k mod units, page k / units of `block` */
static void obj_init(object *o, const csd_params *p, uint64_t size, uint32_t block, int mapped) {
    memset(o, 0, sizeof *o);
    o->p = p;
    o->bad_ppn = CSD_PPN_NONE;
    o->size = size;
    o->pages = (size + p->page_bytes - 1) / p->page_bytes;
    o->data = calloc(1, size ? size : 1);
    o->ppn = calloc(o->pages ? o->pages : 1, sizeof *o->ppn);
    CHECK(o->data && o->ppn);
    uint32_t units = csd_units(p);
    for (uint64_t k = 0; k < o->pages; k++) {
        uint32_t u = (uint32_t)(k % units);
        csd_addr a = { .channel = u / p->chips_per_channel, .chip = u % p->chips_per_channel,
                       .block = block, .page = (uint32_t)(k / units) };
        o->ppn[k] = mapped ? csd_ppn_encode(p, &a) : CSD_PPN_NONE;
    }
}

static void obj_free(object *o) {
    free(o->data);
    free(o->ppn);
}

/* ---- a request ------------------------------------------------------------------------------ */

typedef struct job {
    csd_outbuf out;
    csd_exec *run;
    csd_page_source src;
    csd_isp_req *req;
    csd_kv kv[2];
    char val[2][32];
} job;

static void job_start(csd_engine *e, job *j, const csd_tasklet_ops *ops, object *o, uint64_t off,
                      uint64_t len, const char *key, const char *val) {
    memset(j, 0, sizeof *j);
    csd_outbuf_init(&j->out, 1 << 20, 0);
    uint32_t P = o->p->page_bytes;
    csd_tasklet_args a = { .page_bytes = P };
    if (key) {
        snprintf(j->val[0], sizeof j->val[0], "%s", val);
        j->kv[0] = (csd_kv){ key, j->val[0] };
        a.static_params = j->kv;
        a.n_static = 1;
    }
    char err[256] = "";
    CHECK_EQ_INT(csd_exec_create(&j->run, ops, &a, &j->out, err, sizeof err), 0);
    uint64_t first, last;
    CHECK_EQ_INT(csd_exec_begin(j->run, o->size, off, len, P, &first, &last, err, sizeof err), 0);
    j->src = (csd_page_source){ o, obj_ppn, obj_read, NULL, NULL };
    uint64_t max_page = o->size ? (o->size - 1) / P : 0;
    uint32_t last_len = o->size ? (uint32_t)(o->size - max_page * P) : 0;
    csd_isp_work w = csd_exec_work(j->run);
    CHECK_EQ_INT(csd_engine_submit(e, &j->req, &w, &j->src, first, last, max_page, last_len), 0);
}

static void job_end(csd_engine *e, job *j) {
    csd_engine_release(e, j->req);
    csd_exec_destroy(j->run);
    csd_outbuf_free(&j->out);
}

static csd_isp_progress prog(csd_engine *e, job *j) {
    csd_isp_progress p;
    csd_engine_progress(e, j->req, &p);
    return p;
}

static csd_params tiny(uint32_t cores) {
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    p.blocks_per_plane = 16;
    p.cores = cores;
    return p;
}

static csd_engine *engine(const csd_params *p) {
    csd_engine *e = NULL;
    char err[256] = "";
    int rc = csd_engine_create(&e, p, err, sizeof err);
    if (rc) fprintf(stderr, "engine: %s\n", err);
    CHECK_EQ_INT(rc, 0);
    return e;
}

static void drain(csd_engine *e) { while (csd_engine_step(e)) {} }

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_create_errors(void) {
    csd_params p = tiny(2);
    csd_engine *e = (csd_engine *)&p;
    char err[256] = "";
    snprintf(p.request_scheduler, sizeof p.request_scheduler, "nope");
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), -EINVAL);
    CHECK(e == NULL);
    CHECK_CONTAINS(err, "request_scheduler 'nope'");
    p = tiny(2);
    snprintf(p.chip_scheduler, sizeof p.chip_scheduler, "zzz");
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "chip_scheduler 'zzz'");
    p = tiny(0);
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "cores");
    p = tiny(1);
    p.blocks_per_plane = 0;
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "blocks_per_plane");
    CHECK(csd_req_batch_find("fcfs") == csd_req_batch_at(0) && csd_req_batch_at(1) == NULL);
    CHECK(csd_req_stage_find("fcfs") == csd_req_stage_at(0));
    CHECK(!strcmp(csd_req_stage_find("cfs")->name, "cfs") && csd_req_batch_find("cfs") == NULL);
    CHECK(csd_req_stage_find("lifo") == NULL && csd_req_batch_find("lifo") == NULL);

    /* submit argument errors */
    p = tiny(1);
    e = engine(&p);
    object o;
    obj_init(&o, &p, 4 * PAGE, 0, 1);
    csd_outbuf out;
    csd_outbuf_init(&out, 1 << 16, 0);
    csd_exec *run;
    CHECK_EQ_INT(csd_exec_create(&run, &cost_ops, NULL, &out, err, sizeof err), 0);
    csd_page_source src = { &o, obj_ppn, obj_read, NULL, NULL };
    csd_isp_req *r = (csd_isp_req *)&o;
    csd_isp_work w = csd_exec_work(run);
    CHECK_EQ_INT(csd_engine_submit(e, &r, &w, &src, 0, 4, 3, PAGE), -ERANGE);   /* past max_page */
    CHECK(r == NULL);
    CHECK_EQ_INT(csd_engine_submit(e, &r, NULL, &src, 0, 1, 3, PAGE), -EINVAL);
    CHECK_EQ_INT(csd_engine_submit(e, &r, &w, NULL, 0, 1, 3, PAGE), -EINVAL);
    CHECK_EQ_INT(csd_engine_submit(e, &r, &w, &src, 0, 1, 3, PAGE + 1), -EINVAL);
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    CHECK_EQ_U64(st.isp_requests, 0);
    csd_exec_destroy(run);
    csd_outbuf_free(&out);
    obj_free(&o);
    csd_engine_destroy(e);
}

static void test_host_io(void) {
    csd_params p = tiny(2);
    csd_engine *e = engine(&p);
    csd_addr a0 = { 0 }, a1 = { .chip = 1 }, a2 = { .channel = 1 }, a3 = { .channel = 1, .chip = 1 };
    csd_flash_req one[1] = { { .kind = CSD_FLASH_READ, .gc = 0, .ppn = csd_ppn_encode(&p, &a0) } };
    csd_flash_batch b = { one, 1, 1 };
    /* overhead 5000, read 10000 + 10000 + 1000, page to host 10000 */
    CHECK_EQ_U64(csd_engine_host_io(e, &b, 0, PAGE), 36000);
    CHECK_EQ_U64(csd_engine_now(e), 36000);

    /* a write of one page: overhead + data in = 15000, fw 1000, channel 10000, program 100000 */
    one[0].kind = CSD_FLASH_PROGRAM;
    CHECK_EQ_U64(csd_engine_host_io(e, &b, PAGE, 0), 126000);
    CHECK_EQ_U64(csd_engine_now(e), 36000 + 126000);

    /* four reads on four chips, streamed to the host as each arrives:
     * arrivals 26000, 27000, 36000, 37000 (relative); the link then runs 26000..66000 */
    csd_flash_req four[4] = {
        { .kind = CSD_FLASH_READ, .gc = 0, .ppn = csd_ppn_encode(&p, &a0) }, { .kind = CSD_FLASH_READ, .gc = 0, .ppn = csd_ppn_encode(&p, &a1) },
        { .kind = CSD_FLASH_READ, .gc = 0, .ppn = csd_ppn_encode(&p, &a2) }, { .kind = CSD_FLASH_READ, .gc = 0, .ppn = csd_ppn_encode(&p, &a3) },
    };
    csd_flash_batch b4 = { four, 4, 4 };
    CHECK_EQ_U64(csd_engine_host_io(e, &b4, 0, 4 * PAGE), 66000);

    /* no flash ops: overhead plus ceil(100 B at 409.6 MB/s) = 245 ns */
    CHECK_EQ_U64(csd_engine_host_io(e, NULL, 0, 100), 5245);
    csd_flash_batch none = { 0 };
    CHECK_EQ_U64(csd_engine_host_io(e, &none, 0, 0), 5000);

    csd_engine_stats st;
    csd_flash_stats fs;
    csd_engine_stats_get(e, &st, &fs);
    CHECK_EQ_U64(st.host_commands, 5);
    CHECK_EQ_U64(st.host_bytes_out, PAGE + 4 * PAGE + 100);
    CHECK_EQ_U64(st.host_bytes_in, PAGE);
    /* 5 overheads + 1 page in + 5 pages out + 245 */
    CHECK_EQ_U64(st.host_link_busy_ns, 5 * 5000 + 10000 + 5 * 10000 + 245);
    CHECK_EQ_U64(fs.reads, 5);
    CHECK_EQ_U64(fs.programs, 1);
    csd_engine_destroy(e);

    /* paper preset: 20000 + 214933 + ceil(8192 B at 300 MB/s = 27306.67) */
    csd_params pp;
    CHECK(csd_params_preset(&pp, "smartssd-paper") == 0);
    pp.blocks_per_plane = 64;
    e = engine(&pp);
    one[0] = (csd_flash_req){ .kind = CSD_FLASH_READ, .gc = 0, .ppn = 0 };
    CHECK_EQ_U64(csd_engine_host_io(e, &b, 0, 8192), 20000 + 214933 + 27307);
    csd_engine_destroy(e);
}

/* 8 mapped pages, 1 core: see docs/TIMING-MODEL.md for the schedule. */
static void test_tasklet_cores(void) {
    csd_params p = tiny(1);
    csd_engine *e = engine(&p);
    object o;
    obj_init(&o, &p, 8 * PAGE, 0, 1);
    job j;
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    csd_isp_progress pr = prog(e, &j);
    CHECK(pr.finished);
    CHECK_EQ_INT(pr.status, 0);
    /* arrivals 21000 (p0), 22000 (p2), 31000 (p1), 32000 (p3), 41000 (p4), 42000 (p6), 51000 (p5),
     * 52000 (p7); the core runs p0 21000, p2 29040, p1 37080, p3 45120, then p4..p7 back to back
     * from 53160; finish() at 85320 */
    CHECK_EQ_U64(pr.finish_ns, 53160 + 4 * PAGE_NS + FINISH_NS);
    CHECK_EQ_U64(pr.finish_ns, 86020);
    CHECK_EQ_U64(pr.device_ns, 86020);
    CHECK_EQ_U64(pr.pages_done, 8);
    CHECK_EQ_U64(pr.pages_total, 8);
    CHECK_EQ_U64(pr.core_ns, 8 * PAGE_NS + FINISH_NS);
    CHECK_EQ_U64(pr.flash_bytes_read, 8 * PAGE);
    CHECK_EQ_U64(j.out.rows, 1);
    CHECK_EQ_U64(csd_engine_core_busy_ns(e, 0), 8 * PAGE_NS + FINISH_NS);
    CHECK_EQ_U64(csd_engine_core_busy_ns(e, 1), 0);
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    CHECK_EQ_U64(st.isp_pages, 8);
    CHECK_EQ_U64(st.isp_requests, 1);
    CHECK_EQ_U64(st.isp_buffer_peak_bytes, 8 * PAGE);
    CHECK_EQ_U64(st.isp_buffer_used_bytes, 0);
    job_end(e, &j);
    csd_engine_destroy(e);

    /* two cores: flash-bound; the last page (p7) arrives at 52000 and ends at 60040 on core 1 */
    p = tiny(2);
    e = engine(&p);
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    pr = prog(e, &j);
    CHECK_EQ_U64(pr.finish_ns, 52000 + PAGE_NS + FINISH_NS);
    CHECK_EQ_U64(pr.finish_ns, 60740);
    /* core 0: p0, p1, p4, p5; core 1: p2, p3, p6, p7 and finish() */
    CHECK_EQ_U64(csd_engine_core_busy_ns(e, 0), 4 * PAGE_NS);
    CHECK_EQ_U64(csd_engine_core_busy_ns(e, 1), 4 * PAGE_NS + FINISH_NS);
    CHECK_EQ_U64(csd_engine_core_busy_ns(e, 2), 0);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* Cycle rounding and the paper preset's cost model. */
static void test_cost_model(void) {
    /* 3 MHz: one unmapped page (ready at 0) costs ceil((1000 + 640) * 1000 / 3 = 546666.67) + 6400
     * = 553067; finish() ceil(500 * 1000 / 3 = 166666.67) + 200 = 166867 */
    csd_params p = tiny(1);
    p.core_mhz = 3;
    csd_engine *e = engine(&p);
    object o;
    obj_init(&o, &p, PAGE, 0, 0);
    job j;
    job_start(e, &j, &cost_ops, &o, 0, PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    CHECK_EQ_U64(prog(e, &j).finish_ns, 553067 + 166867);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);

    /* paper preset, one mapped 8 KiB page (128 records): arrives at 214933; the page costs
     * (2000 + 1280) cycles at 400 MHz = 8200 + 128 * 380 = 56840; finish() 500 cycles = 1250
     * + 2 * 380 = 2010 */
    CHECK(csd_params_preset(&p, "smartssd-paper") == 0);
    p.blocks_per_plane = 64;
    e = engine(&p);
    obj_init(&o, &p, 8192, 0, 1);
    job_start(e, &j, &cost_ops, &o, 0, 8192, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    CHECK_EQ_U64(prog(e, &j).finish_ns, 214933 + 56840 + 2010);
    CHECK_EQ_U64(prog(e, &j).core_ns, 56840 + 2010);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* Two requests of 4 unmapped pages (ready at issue, no flash), submitted together. */
static void test_two_requests_fcfs(void) {
    csd_params p = tiny(1);
    csd_engine *e = engine(&p);
    object a, b;
    obj_init(&a, &p, 4 * PAGE, 0, 0);
    obj_init(&b, &p, 4 * PAGE, 1, 0);
    job ja, jb;
    job_start(e, &ja, &cost_ops, &a, 0, 4 * PAGE, NULL, NULL);
    job_start(e, &jb, &cost_ops, &b, 0, 4 * PAGE, NULL, NULL);
    drain(e);
    /* one core: A's 4 pages and finish, then B's */
    CHECK_EQ_U64(prog(e, &ja).finish_ns, 4 * PAGE_NS + FINISH_NS);            /* 32860 */
    CHECK_EQ_U64(prog(e, &jb).finish_ns, 2 * (4 * PAGE_NS + FINISH_NS));      /* 65720 */
    CHECK_EQ_U64(prog(e, &ja).flash_bytes_read, 0);
    CHECK_EQ_U64(a.reads + b.reads, 0);
    job_end(e, &ja);
    job_end(e, &jb);
    csd_engine_destroy(e);

    /* two cores: A's pages on both cores until 16080, A's finish on core 1 (which processed its
     * last page) 16080..16780; B gets core 0 at 16080 and core 1 at 16780:
     * core 0: B0 16080..24120, B2 24120..32160; core 1: B1 16780..24820, B3 24820..32860, finish */
    p = tiny(2);
    e = engine(&p);
    job_start(e, &ja, &cost_ops, &a, 0, 4 * PAGE, NULL, NULL);
    job_start(e, &jb, &cost_ops, &b, 0, 4 * PAGE, NULL, NULL);
    drain(e);
    CHECK_EQ_U64(prog(e, &ja).finish_ns, 16780);
    CHECK_EQ_U64(prog(e, &jb).finish_ns, 33560);
    CHECK_EQ_U64(csd_engine_core_busy_ns(e, 0), 4 * PAGE_NS);
    CHECK_EQ_U64(csd_engine_core_busy_ns(e, 1), 4 * PAGE_NS + 2 * FINISH_NS);
    job_end(e, &ja);
    job_end(e, &jb);
    csd_engine_destroy(e);
    obj_free(&a);
    obj_free(&b);
}

static void test_small_buffer(void) {
    object o;
    csd_params p = tiny(1);
    obj_init(&o, &p, 8 * PAGE, 0, 1);

    /* room for 2 pages makes batches of 2, each issued when the buffer has room for a whole batch,
     * i.e. when the previous batch is processed. Batch at t: arrivals t+21000, t+31000 (same channel),
     * processed by t+31000+8040 = t+39040. Batches at 0, 39040, 78080, 117120: p7 processed
     * 148120..156160, finish 156160..156860 */
    p.isp_buffer_bytes = 2 * PAGE;
    csd_engine *e = engine(&p);
    job j;
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    CHECK_EQ_U64(prog(e, &j).finish_ns, 3 * 39040 + 31000 + PAGE_NS + FINISH_NS);   /* 156860 */
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    CHECK_EQ_U64(st.isp_buffer_peak_bytes, 2 * PAGE);
    job_end(e, &j);
    csd_engine_destroy(e);

    /* smaller than one page: one page at a time, only when the buffer is empty:
     * page k arrives at 21000 + k*29040 and is done at (k+1)*29040 */
    p.isp_buffer_bytes = 1000;
    e = engine(&p);
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    CHECK(prog(e, &j).finished);
    CHECK_EQ_U64(prog(e, &j).finish_ns, 8 * 29040 + FINISH_NS);             /* 233020 */
    csd_engine_stats_get(e, &st, NULL);
    CHECK_EQ_U64(st.isp_buffer_peak_bytes, PAGE);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* Extent [0, 4096) of a 3-page text object whose second line runs into page 2. */
static void test_text_grows(void) {
    csd_params p = tiny(1);
    csd_engine *e = engine(&p);
    object o;
    obj_init(&o, &p, 3 * PAGE, 0, 1);
    memset(o.data, 'x', o.size);
    o.data[100] = '\n';           /* line 1: [0, 100] */
    o.data[9000] = '\n';          /* line 2: [101, 9000], starts in the extent, ends in page 2 */
    o.data[o.size - 1] = '\n';    /* line 3: not owned */
    job j;
    job_start(e, &j, &lines_ops, &o, 0, PAGE, NULL, NULL);
    CHECK_EQ_U64(prog(e, &j).pages_total, 1);
    csd_engine_run_until_finished(e, j.req);
    csd_isp_progress pr = prog(e, &j);
    CHECK_EQ_INT(pr.status, 0);
    /* p0 arrives 21000, costs 1000 + 100 (line 1) -> p1 issued at 21000, arrives 42000, costs 1000
     * -> p2 issued at 42000, arrives 63000, costs 1100 (line 2) -> finish 700 */
    CHECK_EQ_U64(pr.finish_ns, 63000 + 1100 + FINISH_NS);                     /* 64800 */
    CHECK_EQ_U64(pr.pages_total, 3);
    CHECK_EQ_U64(pr.pages_done, 3);
    CHECK_EQ_U64(pr.core_ns, 1100 + 1000 + 1100 + FINISH_NS);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* GC erases the blocks of pages 0, 1, 4, 5 (units 0 and 1) at 1 ns, after their reads were issued
 * (at 0) and before any was fed, and the blocks are then reprogrammed (the object's bytes change):
 * the four pages are fed the bytes they held when erased, every time stays the run's without the
 * erase. 8 pages of 64-byte lines: 64 lines a page, 1000 + 64 * 100 = 7400 ns each; the four
 * reprogrammed with 32-byte lines, 128 a page: 1000 + 12800 = 13800 ns. Without the copy (no erase
 * reported) the core time shows the new bytes. Both issue models. */
static void fill_lines(object *o, uint32_t every, uint32_t units) {
    for (uint64_t i = 0; i < o->size; i++)
        if (i / PAGE % 4 < units) o->data[i] = i % every == every - 1 ? '\n' : 'x';
}

static void erase_run(const char *sched, int erase, int reprogram, uint64_t *finish, uint64_t *core, uint64_t *saved) {
    csd_params p = tiny(1);
    sched_set(&p, sched);
    csd_engine *e = engine(&p);
    object o;
    obj_init(&o, &p, 8 * PAGE, 3, 1);
    fill_lines(&o, 64, 4);
    job j;
    job_start(e, &j, &lines_ops, &o, 0, o.size, NULL, NULL);
    csd_engine_run_until(e, 1);
    for (uint32_t u = 0; erase && u < 2; u++) {
        csd_addr a = { .channel = u / p.chips_per_channel, .chip = u % p.chips_per_channel, .block = 3, .page = 0 };
        csd_engine_block_erasing(e, csd_ppn_encode(&p, &a), p.pages_per_block);
    }
    if (reprogram) fill_lines(&o, 32, 2);   /* the erased blocks' pages only */
    csd_engine_run_until_finished(e, j.req);
    csd_isp_progress pr = prog(e, &j);
    CHECK_EQ_INT(pr.status, 0);
    CHECK_EQ_U64(pr.pages_done, 8);
    *finish = pr.finish_ns;
    *core = pr.core_ns;
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    *saved = st.isp_pages_saved;
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

static void test_erase_keeps_bytes(void) {
    const char *const scheds[] = { "fcfs", "remus" };
    for (int s = 0; s < 2; s++) {
        uint64_t f0, c0, s0, f1, c1, s1, f2, c2, s2;
        erase_run(scheds[s], 0, 0, &f0, &c0, &s0);   /* nothing happens: the reference */
        CHECK_EQ_U64(c0, 8 * 7400 + FINISH_NS);
        CHECK_EQ_U64(s0, 0);
        erase_run(scheds[s], 1, 1, &f1, &c1, &s1);
        CHECK_EQ_U64(s1, 4);
        CHECK_EQ_U64(c1, c0);                         /* every page fed its bytes as read */
        CHECK_EQ_U64(f1, f0);
        erase_run(scheds[s], 0, 1, &f2, &c2, &s2);   /* the hazard the copy prevents */
        CHECK_EQ_U64(s2, 0);
        CHECK_EQ_U64(c2, 4 * 7400 + 4 * 13800 + FINISH_NS);
    }
}

static void test_failure_and_stop(void) {
    csd_params p = tiny(1);
    object o;
    obj_init(&o, &p, 8 * PAGE, 0, 1);

    /* the first record of page 2 fails: p0 runs 21000..29040; at 29040 the core picks p2 (p1 is
     * still in flight), feeds p1 then p2, which fails after charging only page_cycles: 30040 */
    csd_engine *e = engine(&p);
    job j;
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, "fail_at", "8192");
    csd_engine_run_until_finished(e, j.req);
    csd_isp_progress pr = prog(e, &j);
    CHECK(pr.finished);
    CHECK_EQ_INT(pr.status, -EIO);
    CHECK_EQ_U64(pr.finish_ns, 30040);
    CHECK_EQ_U64(pr.pages_done, 1);
    CHECK_CONTAINS(csd_exec_error(j.run), "bad record at 8192");
    CHECK_EQ_U64(j.out.rows, 0);                    /* no finish() */
    drain(e);                                       /* reads still in flight land and are dropped */
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    CHECK_EQ_U64(st.isp_buffer_used_bytes, 0);
    CHECK_EQ_U64(st.isp_pages, 1);
    job_end(e, &j);
    csd_engine_destroy(e);

    /* CSD_STOP after 100 records (in page 1): pages 2..7 are dropped, finish() follows page 1.
     * p0 21000..29040, p2 is ready first, so at 29040 the core feeds p1 and p2 -- the stop in p1
     * drops p2 and the core waits for p1 (31000); p1 costs 1000 + 36*110 = 4960 -> 35960 + 700 */
    e = engine(&p);
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, "stop_after", "100");
    csd_engine_run_until_finished(e, j.req);
    pr = prog(e, &j);
    CHECK_EQ_INT(pr.status, 0);
    CHECK_EQ_U64(pr.pages_total, 2);
    CHECK_EQ_U64(pr.pages_done, 2);
    CHECK_EQ_U64(pr.finish_ns, 31000 + 1000 + 36 * 110 + FINISH_NS);        /* 36660 */
    CHECK_EQ_U64(j.out.rows, 1);
    drain(e);
    csd_engine_stats_get(e, &st, NULL);
    CHECK_EQ_U64(st.isp_buffer_used_bytes, 0);
    job_end(e, &j);
    csd_engine_destroy(e);

    /* a page that cannot be read fails the request with the read's errno */
    e = engine(&p);
    o.bad_ppn = o.ppn[3];
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    CHECK_EQ_INT(prog(e, &j).status, -EIO);
    /* p0 21000, p2 29040, p1 37080, then p3 at 45120 fails its read: charged page_cycles */
    CHECK_EQ_U64(prog(e, &j).finish_ns, 45120 + 1000);
    CHECK_EQ_U64(prog(e, &j).pages_done, 3);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

static void test_empty_and_release(void) {
    csd_params p = tiny(1);
    csd_engine *e = engine(&p);
    object o;
    obj_init(&o, &p, 8 * PAGE, 0, 1);
    job j;
    job_start(e, &j, &cost_ops, &o, 4 * PAGE, 0, NULL, NULL);   /* empty extent */
    CHECK_EQ_U64(prog(e, &j).pages_total, 0);
    csd_engine_run_until_finished(e, j.req);
    CHECK_EQ_U64(prog(e, &j).finish_ns, FINISH_NS);
    CHECK_EQ_U64(j.out.rows, 1);
    job_end(e, &j);

    /* cancel mid-run, destroy the execution at once, and keep the engine running */
    uint64_t t0 = csd_engine_now(e);
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    while (csd_engine_now(e) < t0 + 30000 && csd_engine_step(e)) {}
    CHECK_EQ_U64(prog(e, &j).pages_done, 1);
    job_end(e, &j);
    job j2;
    job_start(e, &j2, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);  /* a new request still runs */
    csd_engine_run_until_finished(e, j2.req);
    CHECK(prog(e, &j2).finished);
    CHECK_EQ_U64(prog(e, &j2).pages_done, 8);
    drain(e);
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    CHECK_EQ_U64(st.isp_buffer_used_bytes, 0);
    job_end(e, &j2);

    /* release of a running request then destroy of the engine with reads in flight */
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_step(e);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* A host read on chip 0 while a request's page is on chip 0: both advance in one simulation. */
static void test_host_io_with_request(void) {
    csd_params p = tiny(1);
    csd_engine *e = engine(&p);
    object o;
    obj_init(&o, &p, PAGE, 0, 1);
    job j;
    job_start(e, &j, &cost_ops, &o, 0, PAGE, NULL, NULL);
    csd_addr a1 = { .page = 1 };
    csd_flash_req rd = { .kind = CSD_FLASH_READ, .gc = 0, .ppn = csd_ppn_encode(&p, &a1) };
    csd_flash_batch b = { &rd, 1, 1 };
    /* request read holds chip 0 until 20000; host read submitted at 5000 starts the chip at 20000,
     * transfer 30000..40000, fw 41000, link 51000 */
    CHECK_EQ_U64(csd_engine_host_io(e, &b, 0, PAGE), 51000);
    csd_isp_progress pr = prog(e, &j);
    CHECK(pr.finished);                                          /* it advanced meanwhile */
    CHECK_EQ_U64(pr.finish_ns, 21000 + PAGE_NS + FINISH_NS);     /* 29740 */
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* Determinism: a mixed run twice gives identical times, to the nanosecond. */
typedef struct trace { uint64_t t[8]; } trace;
/* stage: 0 = the default (batch issue), 1 = stage issue with fcfs, no send cost and a flash quota no
 * request reaches */
static trace mixed_run_on(uint32_t cores, int stage) {
    trace tr = { { 0 } };
    csd_params p = tiny(cores);
    p.isp_buffer_bytes = 5 * PAGE;
    if (stage) {
        snprintf(p.issue_model, sizeof p.issue_model, "stage");
        p.isp_flash_quota = 64;   /* more than any request here has pages */
    }
    csd_engine *e = engine(&p);
    object a, b;
    obj_init(&a, &p, 24 * PAGE, 0, 1);
    obj_init(&b, &p, 13 * PAGE, 7, 1);
    job ja, jb;
    job_start(e, &ja, &cost_ops, &a, 0, 24 * PAGE, NULL, NULL);
    tr.t[0] = csd_engine_host_io(e, NULL, 3 * PAGE, 0);
    job_start(e, &jb, &cost_ops, &b, 64, 12 * PAGE, NULL, NULL);
    csd_addr ad = { .channel = 1, .block = 3 };
    csd_flash_req ops[3] = { { .kind = CSD_FLASH_READ, .gc = 0, .ppn = csd_ppn_encode(&p, &ad) },
                             { .kind = CSD_FLASH_PROGRAM, .gc = 0, .ppn = csd_ppn_encode(&p, &ad) + 1 },
                             { .kind = CSD_FLASH_ERASE, .gc = 1, .ppn = csd_ppn_encode(&p, &ad) } };
    csd_flash_batch bb = { ops, 3, 3 };
    tr.t[1] = csd_engine_host_io(e, &bb, PAGE, 100);
    csd_engine_run_until_finished(e, jb.req);
    tr.t[2] = prog(e, &jb).finish_ns;
    csd_engine_run_until_finished(e, ja.req);
    tr.t[3] = prog(e, &ja).finish_ns;
    tr.t[4] = csd_engine_core_busy_ns(e, 0);
    tr.t[5] = csd_engine_core_busy_ns(e, 1);
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    tr.t[6] = st.isp_buffer_peak_bytes;
    tr.t[7] = csd_engine_now(e);
    CHECK_EQ_U64(prog(e, &ja).pages_done, 24);
    CHECK_EQ_U64(prog(e, &jb).pages_done, 13);   /* records straddling into page 12 */
    CHECK(st.isp_buffer_peak_bytes <= 5 * PAGE);
    job_end(e, &ja);
    job_end(e, &jb);
    csd_engine_destroy(e);
    obj_free(&a);
    obj_free(&b);
    return tr;
}

static trace mixed_run(void) { return mixed_run_on(2, 0); }

/* The 8-page request of test_tasklet_cores and the two of test_two_requests_fcfs. */
static trace simple_runs_on(uint32_t cores, int stage) {
    trace tr = { { 0 } };
    csd_params p = tiny(cores);
    if (stage) {
        snprintf(p.issue_model, sizeof p.issue_model, "stage");
        p.isp_flash_quota = 64;   /* more than any request here has pages */
    }
    csd_engine *e = engine(&p);
    CHECK_EQ_INT(csd_engine_staged(e), stage);
    object o, a, b;
    obj_init(&o, &p, 8 * PAGE, 0, 1);
    obj_init(&a, &p, 4 * PAGE, 1, 1);
    obj_init(&b, &p, 4 * PAGE, 2, 0);
    job j, ja, jb;
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    tr.t[0] = prog(e, &j).finish_ns;
    job_start(e, &ja, &cost_ops, &a, 0, 4 * PAGE, NULL, NULL);
    job_start(e, &jb, &cost_ops, &b, 0, 4 * PAGE, NULL, NULL);
    drain(e);
    tr.t[1] = prog(e, &ja).finish_ns;
    tr.t[2] = prog(e, &jb).finish_ns;
    tr.t[3] = csd_engine_core_busy_ns(e, 0);
    job_end(e, &j);
    job_end(e, &ja);
    job_end(e, &jb);
    csd_engine_destroy(e);
    obj_free(&o);
    obj_free(&a);
    obj_free(&b);
    return tr;
}

/* Can stage issue stand in for batch issue? With fcfs, no send cost and a flash quota nothing
 * reaches, on one core it gives batch issue's virtual times exactly. On two cores it cannot: stage
 * issue binds each page to the core of its chip (REMUS eq. 5) and gives each core its own share of
 * the buffer, while batch issue (the Smart SSD paper's device) lets any idle core take any ready
 * page from one shared buffer. So both stay (docs/TIMING-MODEL.md, "Two issue models"). */
static void test_issue_models(void) {
    trace b1 = simple_runs_on(1, 0), s1 = simple_runs_on(1, 1);
    trace b2 = simple_runs_on(2, 0), s2 = simple_runs_on(2, 1);
    trace mb1 = mixed_run_on(1, 0), ms1 = mixed_run_on(1, 1);
    /* the same work: one request alone on one core, and every core's busy time */
    CHECK_EQ_U64(s1.t[0], b1.t[0]);
    CHECK_EQ_U64(s1.t[0], 86020);
    CHECK_EQ_U64(s1.t[3], b1.t[3]);
    CHECK_EQ_U64(s2.t[3], b2.t[3]);
    CHECK_EQ_U64(ms1.t[4], mb1.t[4]);
    /* two requests on one core: batch issue reads A's batch, then B's, as the buffer frees a whole
     * batch; stage issue (fcfs) lets the older request send whenever its buffer has room, so A ends
     * sooner and B later */
    CHECK_EQ_U64(b1.t[1], 143000);
    CHECK_EQ_U64(s1.t[1], 139880);
    CHECK_EQ_U64(b1.t[2], 151740);
    CHECK_EQ_U64(s1.t[2], 172740);
    /* one request on two cores: batch issue spreads the pages over both cores as they land; stage
     * issue gives each core the pages of its chips */
    CHECK_EQ_U64(b2.t[0], 60740);
    CHECK_EQ_U64(s2.t[0], 67780);
}

static void test_determinism(void) {
    trace x = mixed_run(), y = mixed_run();
    for (int i = 0; i < 8; i++) CHECK_EQ_U64(x.t[i], y.t[i]);
    CHECK(x.t[3] > 0 && x.t[2] > 0);
}

/* Progress while running: numbers at a known instant of the 1-core, 8-page schedule. */
static void test_progress(void) {
    csd_params p = tiny(1);
    csd_engine *e = engine(&p);
    object o;
    obj_init(&o, &p, 8 * PAGE, 0, 1);
    job j;
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    /* run every event up to 40000: p0 (21000..29040) done, p2 (29040..37080) done, p1 on the core */
    csd_engine_run_until(e, 40000);
    CHECK_EQ_U64(csd_engine_now(e), 40000);
    csd_isp_progress pr = prog(e, &j);
    CHECK(!pr.finished);
    CHECK_EQ_U64(pr.pages_done, 2);
    CHECK_EQ_U64(pr.pages_total, 8);
    CHECK_EQ_U64(pr.core_ns, 2 * PAGE_NS);
    CHECK_EQ_U64(pr.device_ns, 40000);
    /* arrived by 40000: p0, p2, p1, p3 */
    CHECK_EQ_U64(pr.flash_bytes_read, 4 * PAGE);
    csd_engine_stats st;
    csd_flash_stats fs;
    csd_engine_stats_get(e, &st, &fs);
    CHECK_EQ_U64(fs.reads, 4);
    CHECK_EQ_U64(st.isp_pages, 2);
    CHECK_EQ_U64(st.isp_buffer_used_bytes, 6 * PAGE);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* The backlog a stats command reports (offload planning), at the same instant as test_progress: 6
 * pages left priced at the request's own 8040 ns per page, p4..p7 still on their way (4 x the tiny
 * preset's 5000 ns per page: two channels, 10000 ns per transfer); and what the work charged so far,
 * p0, p2 and p1 fed (64 records each, 10 cycles and 1 access per record). A second request, with no
 * page done, is priced at the device's mean. */
static void test_backlog(void) {
    csd_params p = tiny(1);
    CHECK_EQ_U64(csd_engine_flash_page_ns(&p), 5000);
    csd_engine *e = engine(&p);
    csd_engine_backlog b;
    csd_engine_backlog_get(e, &b);
    CHECK_EQ_U64(b.requests, 0);
    CHECK_EQ_U64(b.drain_ns, 0);
    CHECK_EQ_U64(b.flash_page_ns, 5000);
    object o;
    obj_init(&o, &p, 8 * PAGE, 0, 1);
    job j, k;
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until(e, 40000);
    csd_isp_progress pr = prog(e, &j);
    CHECK_EQ_U64(pr.cycles, 3 * 64 * 10);
    CHECK_EQ_U64(pr.dram_accesses, 3 * 64);
    csd_engine_backlog_get(e, &b);
    CHECK_EQ_U64(b.requests, 1);
    CHECK_EQ_U64(b.pages_left, 6);
    CHECK_EQ_U64(b.pages_unpriced, 0);
    CHECK_EQ_U64(b.core_ns_left, 6 * PAGE_NS);
    CHECK_EQ_U64(b.pages_unread, 4);
    CHECK_EQ_U64(b.flash_ns_left, 4 * 5000);
    CHECK_EQ_U64(b.link_ns_left, 0);
    CHECK_EQ_U64(b.drain_ns, 6 * PAGE_NS);
    job_start(e, &k, &cost_ops, &o, 0, 4 * PAGE, NULL, NULL);
    csd_engine_backlog_get(e, &b);
    CHECK_EQ_U64(b.requests, 2);
    CHECK_EQ_U64(b.pages_left, 10);
    CHECK_EQ_U64(b.pages_unpriced, 4);
    CHECK_EQ_U64(b.core_ns_left, 10 * PAGE_NS);   /* the device's mean so far: 2 pages, no finish yet */
    CHECK_EQ_U64(b.drain_ns, 10 * PAGE_NS);
    /* both finished: nothing left; the charges include finish (500 cycles, 2 accesses) */
    while (csd_engine_step(e)) {}
    csd_engine_backlog_get(e, &b);
    CHECK_EQ_U64(b.requests, 0);
    CHECK_EQ_U64(b.pages_left, 0);
    CHECK_EQ_U64(b.drain_ns, 0);
    pr = prog(e, &j);
    CHECK(pr.finished);
    CHECK_EQ_U64(pr.cycles, 8 * 64 * 10 + 500);
    CHECK_EQ_U64(pr.dram_accesses, 8 * 64 + 2);
    CHECK_EQ_U64(pr.core_ns, 8 * PAGE_NS + 700);
    job_end(e, &k);
    job_end(e, &j);
    csd_engine_destroy(e);
    obj_free(&o);
}

/* The timeline of test_tasklet_cores' 1-core run (TIMING-MODEL 4.1, derived there by hand): every
 * span on every track, and the buffer counter's last value. Page k is on chip k mod 4; chips 0-1 on
 * channel 0, 2-3 on channel 1; read 10000, transfer 10000, firmware 1000 (serial). */
static void test_timeline(void) {
    csd_params p = tiny(1);
    csd_engine *e = engine(&p);
    csd_trace *t;
    CHECK_EQ_INT(csd_trace_create(&t, 1000, 0, 0), 0);
    csd_engine_set_timeline(e, t);
    object o;
    obj_init(&o, &p, 8 * PAGE, 0, 1);
    job j;
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    CHECK_EQ_U64(prog(e, &j).finish_ns, 86020);
    static const struct { csd_track track; uint32_t index; const char *name; uint64_t start, end; } want[] = {
        /* array reads: two per chip, the second once the first has left the chip */
        { CSD_TRACK_CHIP, 0, "read", 0, 10000 }, { CSD_TRACK_CHIP, 1, "read", 0, 10000 },
        { CSD_TRACK_CHIP, 2, "read", 0, 10000 }, { CSD_TRACK_CHIP, 3, "read", 0, 10000 },
        { CSD_TRACK_CHIP, 0, "read", 20000, 30000 }, { CSD_TRACK_CHIP, 2, "read", 20000, 30000 },
        { CSD_TRACK_CHIP, 1, "read", 30000, 40000 }, { CSD_TRACK_CHIP, 3, "read", 30000, 40000 },
        /* transfers: the lower chip of a channel first when both wait since the same instant */
        { CSD_TRACK_CHIP, 0, "xfer", 10000, 20000 }, { CSD_TRACK_CHIP, 1, "xfer", 20000, 30000 },
        { CSD_TRACK_CHIP, 0, "xfer", 30000, 40000 }, { CSD_TRACK_CHIP, 1, "xfer", 40000, 50000 },
        { CSD_TRACK_CHIP, 2, "xfer", 10000, 20000 }, { CSD_TRACK_CHIP, 3, "xfer", 20000, 30000 },
        { CSD_TRACK_CHIP, 2, "xfer", 30000, 40000 }, { CSD_TRACK_CHIP, 3, "xfer", 40000, 50000 },
        { CSD_TRACK_CHANNEL, 0, "xfer", 10000, 20000 }, { CSD_TRACK_CHANNEL, 0, "xfer", 20000, 30000 },
        { CSD_TRACK_CHANNEL, 0, "xfer", 30000, 40000 }, { CSD_TRACK_CHANNEL, 0, "xfer", 40000, 50000 },
        { CSD_TRACK_CHANNEL, 1, "xfer", 10000, 20000 }, { CSD_TRACK_CHANNEL, 1, "xfer", 20000, 30000 },
        { CSD_TRACK_CHANNEL, 1, "xfer", 30000, 40000 }, { CSD_TRACK_CHANNEL, 1, "xfer", 40000, 50000 },
        /* firmware, serial: arrivals p0 21000, p2 22000, p1 31000, p3 32000, p4 41000, ... */
        { CSD_TRACK_FIRMWARE, 0, "fw", 20000, 21000 }, { CSD_TRACK_FIRMWARE, 0, "fw", 21000, 22000 },
        { CSD_TRACK_FIRMWARE, 0, "fw", 30000, 31000 }, { CSD_TRACK_FIRMWARE, 0, "fw", 31000, 32000 },
        { CSD_TRACK_FIRMWARE, 0, "fw", 40000, 41000 }, { CSD_TRACK_FIRMWARE, 0, "fw", 41000, 42000 },
        { CSD_TRACK_FIRMWARE, 0, "fw", 50000, 51000 }, { CSD_TRACK_FIRMWARE, 0, "fw", 51000, 52000 },
        /* the core: p0, p2, p1, p3 as they land, then p4..p7 back to back, then finish() */
        { CSD_TRACK_CORE, 0, "P", 21000, 29040 }, { CSD_TRACK_CORE, 0, "P", 29040, 37080 },
        { CSD_TRACK_CORE, 0, "P", 37080, 45120 }, { CSD_TRACK_CORE, 0, "P", 45120, 53160 },
        { CSD_TRACK_CORE, 0, "P", 53160, 61200 }, { CSD_TRACK_CORE, 0, "P", 61200, 69240 },
        { CSD_TRACK_CORE, 0, "P", 69240, 77280 }, { CSD_TRACK_CORE, 0, "P", 77280, 85320 },
        { CSD_TRACK_CORE, 0, "finish", 85320, 86020 },
    };
    size_t nwant = sizeof want / sizeof want[0], found = 0;
    int64_t last_buffer = -1;
    for (uint64_t k = 0; k < csd_trace_events(t); k++) {
        csd_trace_event ev;
        csd_trace_get(t, k, &ev);
        if (ev.track == CSD_TRACK_COUNTER) {
            if (!strcmp(ev.name, "isp buffer bytes")) last_buffer = ev.value;
            continue;
        }
        CHECK_EQ_U64(ev.req, 1);
        size_t i = 0;
        while (i < nwant && !(want[i].track == ev.track && want[i].index == ev.index && !strcmp(want[i].name, ev.name)
                              && want[i].start == ev.start_ns && want[i].end == ev.end_ns))
            i++;
        if (i == nwant) fprintf(stderr, "unexpected span: track %d index %u %s %llu..%llu\n", ev.track, ev.index,
                                ev.name, (unsigned long long)ev.start_ns, (unsigned long long)ev.end_ns);
        CHECK(i < nwant);
        found++;
    }
    CHECK_EQ_U64(found, nwant);          /* every span once, nothing else */
    CHECK_EQ_INT(last_buffer, 0);
    CHECK_EQ_U64(csd_trace_dropped(t), 0);
    /* a ring of 10 keeps the 10 newest; a window keeps what overlaps it */
    job_end(e, &j);
    csd_engine_destroy(e);
    csd_trace_destroy(t);
    e = engine(&p);
    CHECK_EQ_INT(csd_trace_create(&t, 10, 0, 0), 0);
    csd_engine_set_timeline(e, t);
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    CHECK_EQ_U64(csd_trace_events(t), 10);
    csd_trace_event last;
    csd_trace_get(t, 9, &last);
    CHECK(!strcmp(last.name, "finish") && last.end_ns == 86020);
    CHECK(csd_trace_dropped(t) > 0);
    job_end(e, &j);
    csd_engine_destroy(e);
    csd_trace_destroy(t);
    e = engine(&p);
    CHECK_EQ_INT(csd_trace_create(&t, 1000, 60000, 70000), 0);
    csd_engine_set_timeline(e, t);
    job_start(e, &j, &cost_ops, &o, 0, 8 * PAGE, NULL, NULL);
    csd_engine_run_until_finished(e, j.req);
    uint64_t spans = 0;
    for (uint64_t k = 0; k < csd_trace_events(t); k++) {
        csd_trace_event ev;
        csd_trace_get(t, k, &ev);
        if (ev.track == CSD_TRACK_COUNTER) continue;
        CHECK(ev.end_ns >= 60000 && ev.start_ns < 70000);
        spans++;
    }
    CHECK_EQ_U64(spans, 3);              /* the core's slots 53160..61200, 61200..69240, 69240..77280 */
    job_end(e, &j);
    csd_engine_destroy(e);
    csd_trace_destroy(t);
    obj_free(&o);
    CHECK_EQ_INT(csd_trace_create(&t, 0, 0, 0), -EINVAL);
    CHECK_EQ_INT(csd_trace_create(&t, 1, 5, 5), -EINVAL);
}

int main(void) {
    test_create_errors();
    test_host_io();
    test_tasklet_cores();
    test_cost_model();
    test_two_requests_fcfs();
    test_small_buffer();
    test_text_grows();
    test_failure_and_stop();
    test_erase_keeps_bytes();
    test_empty_and_release();
    test_host_io_with_request();
    test_determinism();
    test_progress();
    test_backlog();
    test_issue_models();
    test_timeline();
    TEST_OK("test_engine");
}
