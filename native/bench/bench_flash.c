/* Internal read bandwidth of the paper preset vs its host link (Smart SSD paper V-B.1: the spec gives
 * 2.5x, the measured internal reads with firmware 1.8x). Three ways of reading N MiB laid out in
 * the striping order (page k on unit k mod units):
 *   flash_stream  every page submitted to the flash model at once: the steady-state rate
 *   isp_request   one tasklet request (batches of isp_batch_pages, a no-op tasklet)
 *   isp_2requests two concurrent requests, one per half of the data
 *   host_read     the host reads it in 1 MiB commands over the link
 * Usage: bench_flash [MiB (default 256)] [out.csv] */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash/flash.h"
#include "engine/engine.h"
#include "runtime/exec.h"

typedef struct result { const char *name; uint64_t bytes, ns; } result;

static uint64_t ppn_of(const csd_params *p, uint64_t k) {
    uint32_t units = csd_units(p);
    uint64_t u = k % units, chip = u / (p->dies_per_chip * p->planes_per_die);
    csd_addr a = { .channel = (uint32_t)(chip / p->chips_per_channel),
                   .chip = (uint32_t)(chip % p->chips_per_channel),
                   .block = (uint32_t)((k / units) / p->pages_per_block),
                   .page = (uint32_t)((k / units) % p->pages_per_block) };
    return csd_ppn_encode(p, &a);
}

typedef struct stream { uint64_t left, last; } stream;
static void stream_done(csd_flash_op *op, uint64_t t) {
    stream *s = op->arg;
    s->left--;
    s->last = t;
}

static int run_flash_stream(const csd_params *p, uint64_t pages, result *r) {
    csd_sim *sim = csd_sim_create();
    csd_flash *f = NULL;
    csd_flash_op *ops = calloc(pages, sizeof *ops);
    if (!sim || !ops || csd_flash_create(&f, p, sim, NULL, 0) != 0) return -ENOMEM;
    stream s = { pages, 0 };
    for (uint64_t k = 0; k < pages; k++) {
        ops[k] = (csd_flash_op){ .kind = CSD_FLASH_READ, .ppn = ppn_of(p, k), .done = stream_done, .arg = &s };
        csd_flash_submit(f, &ops[k]);
    }
    while (csd_sim_step(sim)) {}
    *r = (result){ "flash_stream", pages * p->page_bytes, s.last };
    csd_flash_destroy(f);
    csd_sim_destroy(sim);
    free(ops);
    return 0;
}

/* a tasklet that looks at nothing: one record per page, no charge */
static int noop_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    (void)err; (void)errlen;
    *state = NULL;
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = a->page_bytes;
    return 0;
}
static int noop_record(void *s, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    (void)s; (void)io; (void)rec; (void)len; (void)off;
    return 0;
}
static const csd_tasklet_ops noop_ops = { .name = "noop", .init = noop_init, .record = noop_record };

static uint64_t src_ppn(void *arg, uint64_t page) { return ppn_of(arg, page); }
static int src_read(void *arg, uint64_t ppn, uint8_t *buf) {
    const csd_params *p = arg;
    (void)ppn;
    memset(buf, 0, p->page_bytes);
    return 0;
}

/* nreq concurrent requests over consecutive slices of the pages; time until the last finishes */
static int run_isp(const csd_params *p, uint64_t pages, int nreq, result *r) {
    char err[256] = "";
    csd_engine *e = NULL;
    if (csd_engine_create(&e, p, err, sizeof err) != 0) {
        fprintf(stderr, "bench_flash: %s\n", err);
        return -EINVAL;
    }
    csd_outbuf out[2];
    csd_exec *run[2] = { NULL, NULL };
    csd_isp_req *req[2] = { NULL, NULL };
    csd_isp_work work[2];
    csd_tasklet_args args = { .page_bytes = p->page_bytes };
    csd_page_source src = { (void *)p, src_ppn, src_read, NULL, NULL };
    uint64_t size = pages * p->page_bytes, slice = pages / (uint64_t)nreq * p->page_bytes;
    int rc = 0;
    for (int i = 0; i < nreq; i++) {
        uint64_t first, last, off = (uint64_t)i * slice, len = i == nreq - 1 ? size - off : slice;
        csd_outbuf_init(&out[i], 1 << 20, 0);
        if (csd_exec_create(&run[i], &noop_ops, &args, &out[i], err, sizeof err) != 0 ||
            csd_exec_begin(run[i], size, off, len, p->page_bytes, &first, &last, err, sizeof err) != 0 ||
            (work[i] = csd_exec_work(run[i]),
             csd_engine_submit(e, &req[i], &work[i], &src, first, last, pages - 1, p->page_bytes)) != 0) {
            fprintf(stderr, "bench_flash: cannot start request %d: %s\n", i, err);
            return -EINVAL;
        }
    }
    uint64_t end = 0;
    for (int i = 0; i < nreq; i++) {
        csd_engine_run_until_finished(e, req[i]);
        csd_isp_progress pr;
        csd_engine_progress(e, req[i], &pr);
        if (pr.finish_ns > end) end = pr.finish_ns;
        if (pr.status) rc = pr.status;
    }
    *r = (result){ nreq == 1 ? "isp_request" : "isp_2requests", size, end };
    for (int i = 0; i < nreq; i++) {
        csd_engine_release(e, req[i]);
        csd_exec_destroy(run[i]);
        csd_outbuf_free(&out[i]);
    }
    csd_engine_destroy(e);
    return rc;
}

static int run_host(const csd_params *p, uint64_t pages, result *r) {
    char err[256] = "";
    csd_engine *e = NULL;
    if (csd_engine_create(&e, p, err, sizeof err) != 0) return -EINVAL;
    uint64_t per_cmd = (1u << 20) / p->page_bytes, ns = 0;
    csd_flash_req *reqs = calloc(per_cmd, sizeof *reqs);
    if (!reqs) return -ENOMEM;
    for (uint64_t k = 0; k < pages; k += per_cmd) {
        uint64_t n = pages - k < per_cmd ? pages - k : per_cmd;
        for (uint64_t i = 0; i < n; i++) reqs[i] = (csd_flash_req){ .kind = CSD_FLASH_READ, .gc = 0, .ppn = ppn_of(p, k + i) };
        csd_flash_batch b = { reqs, n, n };
        ns += csd_engine_host_io(e, &b, 0, n * p->page_bytes);
    }
    *r = (result){ "host_read", pages * p->page_bytes, ns };
    free(reqs);
    csd_engine_destroy(e);
    return 0;
}

int main(int argc, char **argv) {
    uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 256;
    const char *csv = argc > 2 ? argv[2] : NULL;
    if (mib == 0 || mib > (1u << 20)) {
        fprintf(stderr, "usage: bench_flash [MiB 1..1048576] [out.csv]\n");
        return 2;
    }
    csd_params p;
    if (csd_params_preset(&p, "smartssd-paper") != 0) return 1;
    uint64_t pages = mib * (1u << 20) / p.page_bytes;
    uint64_t per_unit = (pages + csd_units(&p) - 1) / csd_units(&p);
    p.blocks_per_plane = (uint32_t)((per_unit + p.pages_per_block - 1) / p.pages_per_block + 1);

    result res[4];
    if (run_flash_stream(&p, pages, &res[0]) || run_isp(&p, pages, 1, &res[1]) ||
        run_isp(&p, pages, 2, &res[2]) || run_host(&p, pages, &res[3])) {
        fprintf(stderr, "bench_flash: a run failed\n");
        return 1;
    }
    double link = (double)p.host_link_bytes_per_s;
    double spec = (double)p.channels * (double)p.channel_bytes_per_s;
    printf("paper preset, %" PRIu64 " MiB, host link %.1f MB/s, channels (spec) %.1f MB/s = %.2fx\n",
           mib, link / 1e6, spec / 1e6, spec / link);
    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (csv && !out) {
        fprintf(stderr, "bench_flash: cannot write %s: %s\n", csv, strerror(errno));
        return 1;
    }
    if (out) fprintf(out, "scenario,mib,bytes,device_ns,bytes_per_s,ratio_to_host_link\n");
    for (int i = 0; i < 4; i++) {
        double bps = (double)res[i].bytes * 1e9 / (double)res[i].ns;
        printf("%-13s %12" PRIu64 " ns  %8.1f MB/s  %.2fx host link\n", res[i].name, res[i].ns, bps / 1e6,
               bps / link);
        if (out)
            fprintf(out, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%.4f\n", res[i].name, mib, res[i].bytes,
                    res[i].ns, bps, bps / link);
    }
    if (out && fclose(out) != 0) return 1;
    return 0;
}
