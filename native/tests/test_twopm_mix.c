/* The 2PM bench's mixes (bench/lib/twopm.h): generated arrivals offer the load asked for; a mix written
 * as an MSR-Cambridge trace reads back the same and replays to the same virtual times; the two paths
 * into the device keep their depths (separate or shared), open-loop requests enter in arrival order per
 * path and never before they arrive; CARS's turns and every chip policy finish every request with the
 * tasklet counts equal to the lines planted (twopm_run checks them); Fig. 10's waits add up; bad traces
 * are refused with the line that is wrong. */
#include "check.h"
#include "flash/flash.h"
#include "lib/twopm.h"

#include <errno.h>

static csd_params params(const char *policy) {
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "2pm"), 0);
    p.channels = 4;
    p.chips_per_channel = 2;
    p.blocks_per_plane = 64;
    p.isp_buffer_bytes = 8u << 20;
    snprintf(p.chip_scheduler, sizeof p.chip_scheduler, "%s", policy);
    return p;
}

static twopm_mix mix(uint32_t n) {
    twopm_mix m;
    twopm_workload(7, &m);
    m.requests = n;
    m.isp_pages[0] = 2, m.isp_pages[1] = 4, m.isp_pages[2] = 8, m.isp_pages[3] = 16;
    m.key_frac = 0.3;
    return m;
}

/* The most requests of one kind in the device at once (shared: of both kinds). */
static uint32_t peak_in_device(const twopm_result *r, int kind) {
    uint32_t peak = 0;
    for (size_t i = 0; i < r->n; i++) {
        uint32_t k = 0;
        for (size_t j = 0; j < r->n; j++)
            if ((kind < 0 || r->req[j].kind == kind) && r->req[j].dispatch_ns <= r->req[i].dispatch_ns &&
                r->req[j].finish_ns > r->req[i].dispatch_ns)
                k++;
        if (k > peak) peak = k;
    }
    return peak;
}

static void test_load_and_trace(void) {
    csd_params p = params("2pm+");
    twopm_mix m = mix(120);
    twopm_list l, back;
    CHECK_EQ_INT(twopm_generate(&p, &m, 0.6, &l), 0);
    CHECK_EQ_U64(l.n, 120);
    double load = twopm_load(&p, &m, &l);
    CHECK(load > 0.599 && load < 0.601);
    for (size_t i = 1; i < l.n; i++) CHECK(l.r[i].arrive_ns >= l.r[i - 1].arrive_ns && l.r[i].arrive_ns % 100 == 0);
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/mix.csv", csd_test_dir("test_twopm_mix"));
    CHECK_EQ_INT(twopm_write_msr(&p, &l, path, err, sizeof err), 0);
    CHECK_EQ_INT(twopm_read_msr(&p, &m, path, 0, &back, err, sizeof err), 0);
    CHECK_EQ_U64(back.n, l.n);
    for (size_t i = 0; i < l.n; i++) {
        CHECK_EQ_U64(back.r[i].arrive_ns, l.r[i].arrive_ns);
        CHECK_EQ_INT(back.r[i].kind, l.r[i].kind);
        CHECK_EQ_U64(back.r[i].pages, l.r[i].pages);
        CHECK_EQ_U64(back.r[i].lba, l.r[i].lba);
    }
    /* replayed from the trace: the same virtual times, request by request */
    twopm_opts o = { .isp_qd = 4, .write_qd = 2, .open_loop = 1 };
    twopm_result a, b;
    CHECK_EQ_INT(twopm_run(&p, &m, &l, &o, &a, err, sizeof err), 0);
    CHECK_EQ_INT(twopm_run(&p, &m, &back, &o, &b, err, sizeof err), 0);
    for (size_t i = 0; i < a.n; i++) {
        CHECK_EQ_U64(a.req[i].finish_ns, b.req[i].finish_ns);
        CHECK_EQ_U64(a.req[i].dispatch_ns, b.req[i].dispatch_ns);
    }
    CHECK(a.planted_lines > 0 && a.matched_lines == a.planted_lines);
    /* rescaled on reading: the same requests at twice the load, half the span */
    twopm_list fast;
    CHECK_EQ_INT(twopm_read_msr(&p, &m, path, 1.2, &fast, err, sizeof err), 0);
    load = twopm_load(&p, &m, &fast);
    CHECK(load > 1.199 && load < 1.201);
    twopm_result_free(&a);
    twopm_result_free(&b);
    twopm_list_free(&l);
    twopm_list_free(&back);
    twopm_list_free(&fast);
}

static void test_paths(void) {
    csd_params p = params("2pm+");
    twopm_mix m = mix(160);
    m.write_frac = 0.5;
    twopm_list l;
    char err[512];
    CHECK_EQ_INT(twopm_generate(&p, &m, 0.9, &l), 0);
    struct { uint32_t isp_qd, write_qd; int open, host; } C[] = {
        { 3, 2, 1, TWOPM_HOST_FIFO }, { 3, 2, 1, TWOPM_HOST_RR }, { 3, 2, 1, TWOPM_HOST_CARS },
        { 4, 0, 1, TWOPM_HOST_FIFO }, { 3, 2, 0, TWOPM_HOST_RR }, { 5, 0, 0, TWOPM_HOST_FIFO },
    };
    for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
        twopm_opts o = { .isp_qd = C[c].isp_qd, .write_qd = C[c].write_qd, .open_loop = C[c].open,
                         .host_sched = C[c].host };
        twopm_result r;
        CHECK_EQ_INT(twopm_run(&p, &m, &l, &o, &r, err, sizeof err), 0);
        if (C[c].write_qd) {
            CHECK(peak_in_device(&r, TWOPM_ISP) <= C[c].isp_qd);
            CHECK(peak_in_device(&r, TWOPM_WRITE) <= C[c].write_qd);
            CHECK_EQ_U64(peak_in_device(&r, TWOPM_ISP), C[c].isp_qd);   /* the load keeps them full */
        } else {
            CHECK_EQ_U64(peak_in_device(&r, -1), C[c].isp_qd);
        }
        uint64_t last[2] = { 0, 0 };
        for (size_t i = 0; i < r.n; i++) {
            const twopm_req_result *q = &r.req[i];
            CHECK(q->finish_ns > q->dispatch_ns && q->dispatch_ns >= q->arrive_ns);
            if (C[c].open) {
                CHECK_EQ_U64(q->arrive_ns, l.r[i].arrive_ns);
                /* each path takes its requests in arrival order */
                CHECK(q->dispatch_ns >= last[q->kind]);
                last[q->kind] = q->dispatch_ns;
            }
        }
        twopm_result_free(&r);
    }
    twopm_list_free(&l);
}

/* Every chip policy finishes the mix (paq holds requests back until their chips are clear: it must
 * never leave one behind) with grep2's counts equal to the lines planted. */
static void test_every_policy(void) {
    twopm_mix m = mix(80);
    m.write_frac = 0.4;
    for (size_t i = 0; csd_chip_sched_at(i); i++) {
        csd_params p = params(csd_chip_sched_at(i)->name);
        p.flash_suspend = i % 2;
        twopm_list l;
        char err[512];
        CHECK_EQ_INT(twopm_generate(&p, &m, 0.8, &l), 0);
        twopm_opts o = { .isp_qd = 6, .write_qd = 3, .open_loop = 1, .host_sched = TWOPM_HOST_RR };
        twopm_result r;
        int rc = twopm_run(&p, &m, &l, &o, &r, err, sizeof err);
        if (rc) fprintf(stderr, "%s: %s\n", csd_chip_sched_at(i)->name, err);
        CHECK_EQ_INT(rc, 0);
        CHECK(r.planted_lines > 0);
        if (p.flash_suspend && !strcmp(p.chip_scheduler, "readfirst")) CHECK(r.suspends > 0);
        twopm_result_free(&r);
        twopm_list_free(&l);
    }
}

/* Fig. 10: one wait per page of every tasklet request, out of order (as run, on the channels' units)
 * and in order (each page after the page before it); pages land out of order, so in order they wait
 * longer in all. */
static void test_fig10(void) {
    csd_params p = params("2pm+");
    twopm_mix m = mix(60);
    twopm_list l;
    char err[512];
    CHECK_EQ_INT(twopm_generate(&p, &m, 0.7, &l), 0);
    twopm_opts o = { .isp_qd = 8, .write_qd = 4, .open_loop = 1, .fig10 = 1 };
    twopm_result r;
    CHECK_EQ_INT(twopm_run(&p, &m, &l, &o, &r, err, sizeof err), 0);
    uint64_t pages = 0, ooo = 0, ino = 0;
    for (size_t i = 0; i < r.n; i++) pages += r.req[i].kind == TWOPM_ISP ? r.req[i].pages : 0;
    CHECK_EQ_U64(r.fig10_n, pages);
    for (size_t i = 0; i < r.fig10_n; i++) {
        ooo += r.fig10_ooo_ns[i];
        ino += r.fig10_ino_ns[i];
    }
    CHECK(ino > ooo);   /* pages land out of order: in order they wait for the ones before them */
    twopm_result_free(&r);
    /* without pattern-matching units there is no per-channel stage to time */
    p.pm_bytes_per_s = 0;
    CHECK_EQ_INT(twopm_run(&p, &m, &l, &o, &r, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "pattern-matching");
    twopm_list_free(&l);
}

static void bad(const char *dir, const char *name, const char *text, int want, const char *msg) {
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs(text, f);
    fclose(f);
    csd_params p = params("paq");
    twopm_mix m = mix(10);
    twopm_list l;
    CHECK_EQ_INT(twopm_read_msr(&p, &m, path, 0, &l, err, sizeof err), want);
    CHECK_CONTAINS(err, msg);
    CHECK(l.r == NULL && l.n == 0);
}

static void test_bad_traces(void) {
    const char *dir = csd_test_dir("test_twopm_mix");
    bad(dir, "fields.csv", "128166372000000000,h,0,Read,0,4096,0\n128166372000000100,h,0,Read,4096\n", -EINVAL,
        "fields.csv:2: not an MSR-Cambridge line");
    bad(dir, "type.csv", "128166372000000000,h,0,Trim,0,4096,0\n", -EINVAL, "type.csv:1: type 'Trim'");
    bad(dir, "size.csv", "128166372000000000,h,0,Write,0,0,0\n", -EINVAL, "size.csv:1: size 0");
    bad(dir, "back.csv", "128166372000000100,h,0,Read,0,4096,0\n128166372000000000,h,0,Read,0,4096,0\n", -EINVAL,
        "back.csv:2: timestamp before the first line's");
    bad(dir, "order.csv",
        "128166372000000000,h,0,Read,0,4096,0\n128166372000000200,h,0,Read,0,4096,0\n128166372000000100,h,0,Read,0,4096,0\n",
        -EINVAL, "not in time order (request 3)");
    bad(dir, "empty.csv", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n", -EINVAL, "no requests");
    bad(dir, "junk.csv", "128166372000000000,h,0,Read,0,4096,0x\n", -EINVAL, "junk.csv:1");
    char err[512] = "";
    csd_params p = params("paq");
    twopm_mix m = mix(10);
    twopm_list l;
    CHECK_EQ_INT(twopm_read_msr(&p, &m, "/nonexistent/trace.csv", 0, &l, err, sizeof err), -ENOENT);
    CHECK_CONTAINS(err, "/nonexistent/trace.csv");
    /* a header line and sizes past 256 pages are taken (the request is cut to 256 pages) */
    char path[4200];
    snprintf(path, sizeof path, "%s/ok.csv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
          "128166372000000000,h,0,Read,4095,2,0\n128166372000001000,h,0,Write,0,8388608,0\n", f);
    fclose(f);
    CHECK_EQ_INT(twopm_read_msr(&p, &m, path, 0, &l, err, sizeof err), 0);
    CHECK_EQ_U64(l.n, 2);
    CHECK_EQ_U64(l.r[0].pages, 2);   /* bytes 4095..4096 cross a page boundary */
    CHECK_EQ_U64(l.r[1].pages, 256);
    CHECK_EQ_U64(l.r[1].arrive_ns, 100000);
    CHECK_EQ_INT(l.r[1].kind, TWOPM_WRITE);
    twopm_list_free(&l);
}

int main(void) {
    test_load_and_trace();
    test_paths();
    test_every_policy();
    test_fig10();
    test_bad_traces();
    TEST_OK("test_twopm_mix");
}
