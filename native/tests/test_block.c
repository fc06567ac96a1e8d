/* Host block I/O: exact virtual times of hand-checked requests on the tiny preset (docs/BLOCK-IO.md
 * works them out), and on the drs preset's map-cached FTL as command sets under fifo and drs (a miss,
 * a hit, a request delayed by another's map read, the schedulers' orders), out-of-order completion,
 * the queue depth, read-back against an in-memory reference over thousands of random reads, writes
 * and trims with GC (on ftl = page and on dftl + drs), persistence across reopen, a process
 * that dies without closing and one killed with SIGKILL mid-stream, a queue pair per client session,
 * the namespace hidden from object commands, and every bad input refused with a status while the
 * device keeps serving. */
#include "devutil.h"
#include "smartssd/block.h"

#include <signal.h>
#include <sys/wait.h>

static char g_img[4300];
/* the FTL and flash scheduler fresh() formats with (the random test runs on both FTLs) */
static const char *g_ftl = "page", *g_sched = "fifo";

static void set_policies(csd_params *p) {
    snprintf(p->ftl, sizeof p->ftl, "%s", g_ftl);
    snprintf(p->flash_scheduler, sizeof p->flash_scheduler, "%s", g_sched);
}

static csd_device *open_img(const char *img, uint32_t qd) {
    char err[512];
    csd_device *d;
    csd_params p;
    csd_params_preset(&p, "tiny");
    set_policies(&p);
    p.block_queue_depth = qd;
    csd_open_opts o = { .override = qd ? &p : NULL, .background = 0 };
    if (csd_device_open(&d, img, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        exit(1);
    }
    return d;
}

static csd_device *fresh(const char *dir, uint64_t cap, uint32_t qd) {
    char err[512];
    snprintf(g_img, sizeof g_img, "%s/blk.img", dir);
    unlink(g_img);
    csd_params p;
    csd_params_preset(&p, "tiny");
    set_policies(&p);
    if (csd_format(g_img, cap, &p, err, sizeof err)) {
        fprintf(stderr, "format: %s\n", err);
        exit(1);
    }
    return open_img(g_img, qd);
}

static void submit_ok(csd_device *d, const csd_block_req *q, size_t n) {
    char err[512] = "";
    int st = csd_block_submit(d, q, n, err, sizeof err);
    if (st) fprintf(stderr, "submit: %s\n", err);
    CHECK_EQ_INT(st, 0);
}

/* All outstanding completions, indexed by id (ids are 0..n-1 in these tests). */
static size_t poll_all(csd_device *d, csd_block_cpl *by_id, size_t n, uint64_t *order) {
    csd_block_cpl *tmp = calloc(n ? n : 1, sizeof *tmp);
    size_t got = 0, k = 0;
    char err[256];
    while (csd_block_outstanding(d)) {
        CHECK_EQ_INT(csd_block_poll(d, 1, 0, tmp, n, &got, err, sizeof err), 0);
        for (size_t i = 0; i < got; i++) {
            CHECK(tmp[i].id < n);
            by_id[tmp[i].id] = tmp[i];
            if (order) order[k] = tmp[i].id;
            k++;
        }
    }
    free(tmp);
    return k;
}

/* The DRS paper's Fig. 10 parts of a completion (docs/BLOCK-IO.md): each non-negative, and with the
 * flash command queue part they add up to its latency. Returns the flash command queue part. */
static uint64_t check_parts(const csd_block_cpl *c) {
    CHECK(c->admit_ns >= c->arrival_ns);
    CHECK(c->submit_ns >= c->admit_ns);
    CHECK(c->done_ns >= c->submit_ns);
    if (!c->flash_done_ns) {
        CHECK_EQ_U64(c->flash_busy_ns, 0);
        return 0;
    }
    CHECK(c->flash_done_ns >= c->submit_ns && c->flash_done_ns <= c->done_ns);
    CHECK(c->flash_busy_ns <= c->flash_done_ns - c->submit_ns);
    uint64_t ioq = c->admit_ns - c->arrival_ns, link = (c->submit_ns - c->admit_ns) + (c->done_ns - c->flash_done_ns);
    uint64_t fcq = c->flash_done_ns - c->submit_ns - c->flash_busy_ns;
    CHECK_EQ_U64(ioq + link + c->flash_busy_ns + fcq, c->done_ns - c->arrival_ns);
    return fcq;
}

static void fill_expect(uint8_t *buf, uint64_t lba, uint32_t count, uint64_t fill) {
    for (uint32_t k = 0; k < count; k++)
        for (int o = 0; o < 4096; o += 8) {
            uint64_t w = fill ^ (lba + k);
            for (int b = 0; b < 8; b++) buf[k * 4096 + o + b] = (uint8_t)(w >> (8 * b));
        }
}

/* tiny: X = 10000 (page over channel or host link), F = 1000, tR = 10000, tProg = 100000, command
 * overhead 5000. Placement stripes ch0 chip0, ch1 chip0, ch0 chip1, ch1 chip1; the namespace's
 * tombstone took the first slot, so LBA writes land on ch1 chip0, ch0 chip1, ch1 chip1, ... */
static void test_hand_checked(const char *dir) {
    csd_device *d = fresh(dir, 1u << 20, 0);
    csd_block_info bi;
    char err[256];
    CHECK_EQ_INT(csd_block_info_get(d, &bi, err, sizeof err), 0);
    CHECK_EQ_U64(bi.lba_bytes, 4096);
    CHECK_EQ_U64(bi.lbas, (1u << 20) / 4096);
    CHECK_EQ_U64(bi.queue_depth, 64);
    /* sizing the namespace programmed one tombstone record: 5000 + 1000 + 10000 + 100000 */
    uint64_t T0 = csd_device_clock(d);
    CHECK_EQ_U64(T0, 116000);

    /* a write of LBA 0: link 5000 + 10000, then F, channel, tProg */
    csd_block_req w = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 0, .count = 1, .fill = 7 };
    submit_ok(d, &w, 1);
    csd_block_cpl c[4];
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].arrival_ns, T0);
    CHECK_EQ_U64(c[0].admit_ns, T0);
    CHECK_EQ_U64(c[0].first_flash_ns, T0 + 15000);
    CHECK_EQ_U64(c[0].done_ns, T0 + 126000);
    CHECK_EQ_U64(c[0].flash_ops, 1);
    CHECK_EQ_INT(c[0].status, 0);

    /* one read of it at T0 + 200000: overhead, tR, channel, F, then the page over the link */
    uint64_t T1 = T0 + 200000;
    uint8_t buf[2 * 4096], want[2 * 4096];
    csd_block_req r = { .id = 0, .op = CSD_BLOCK_READ, .lba = 0, .count = 1, .arrival_ns = T1, .buf = buf };
    submit_ok(d, &r, 1);
    fill_expect(want, 0, 1, 7);
    CHECK(!memcmp(buf, want, 4096));
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].arrival_ns, T1);
    CHECK_EQ_U64(c[0].admit_ns, T1);
    CHECK_EQ_U64(c[0].first_flash_ns, T1 + 5000);
    CHECK_EQ_U64(c[0].done_ns, T1 + 36000);

    /* LBA 1 goes to ch0 chip1. Two reads at T2 on different chips: their array reads and transfers
     * overlap; the half-duplex link serialises the overheads and the data out:
     * A (LBA 0, ch1): link ..5000, tR ..15000, ch1 ..25000, F ..26000, link ..36000
     * B (LBA 1, ch0): link ..10000, tR ..20000, ch0 ..30000, F ..31000, link 36000..46000 */
    csd_block_req w1 = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 1, .count = 1, .fill = 9 };
    submit_ok(d, &w1, 1);
    poll_all(d, c, 1, NULL);
    uint64_t T2 = c[0].done_ns + 100000;
    csd_block_req rr[2] = { { .id = 0, .op = CSD_BLOCK_READ, .lba = 0, .count = 1, .arrival_ns = T2 },
                            { .id = 1, .op = CSD_BLOCK_READ, .lba = 1, .count = 1, .arrival_ns = T2 } };
    submit_ok(d, rr, 2);
    uint64_t order[4];
    poll_all(d, c, 2, order);
    CHECK_EQ_U64(c[0].first_flash_ns, T2 + 5000);
    CHECK_EQ_U64(c[0].done_ns, T2 + 36000);
    CHECK_EQ_U64(c[1].first_flash_ns, T2 + 10000);
    CHECK_EQ_U64(c[1].done_ns, T2 + 46000);

    /* out of order: a write of LBA 2 (ch1 chip1) at T3, a read of LBA 0 (ch1 chip0) at T3 + 1000.
     * Write: link ..15000, F ..16000, ch1 ..26000, tProg ..126000.
     * Read: link 15000..20000, tR ..30000, ch1 30000..40000, F ..41000, link ..51000: done first. */
    uint64_t T3 = c[1].done_ns + 100000;
    csd_block_req wr[2] = { { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 2, .count = 1, .arrival_ns = T3 },
                            { .id = 1, .op = CSD_BLOCK_READ, .lba = 0, .count = 1, .arrival_ns = T3 + 1000 } };
    submit_ok(d, wr, 2);
    poll_all(d, c, 2, order);
    CHECK_EQ_U64(order[0], 1);
    CHECK_EQ_U64(order[1], 0);
    CHECK_EQ_U64(c[0].done_ns, T3 + 126000);
    CHECK_EQ_U64(c[1].admit_ns, T3 + 1000);
    CHECK_EQ_U64(c[1].done_ns, T3 + 51000);

    /* sub-page requests: the host link carries the bytes the host asked for (the flash still reads and
     * programs whole pages; TIMING-MODEL.md section 3). 1 KiB of LBA 0 (ch1 chip0): link ..5000, tR
     * ..15000, ch1 ..25000, F ..26000, then ceil(1024e9 / 409.6e6) = 2500 on the link: ..28500 (a whole
     * page: 36000) */
    uint64_t T6 = c[0].done_ns + 100000;
    csd_block_req sub = { .id = 0, .op = CSD_BLOCK_READ, .lba = 0, .count = 1, .arrival_ns = T6, .bytes = 1024 };
    submit_ok(d, &sub, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].first_flash_ns, T6 + 5000);
    CHECK_EQ_U64(c[0].done_ns, T6 + 28500);
    CHECK_EQ_U64(c[0].flash_ops, 1);
    /* 4 KiB not aligned to a page, over LBA 0 (ch1 chip0) and LBA 1 (ch0 chip1): both array reads
     * ..15000, both channels ..25000, the firmware finishes them at 26000 and 27000; the first page to
     * land carries the request's 4096 bytes 26000..36000, the second nothing: done 36000 (both pages
     * on the link would end at 46000) */
    uint64_t T7 = T6 + 100000;
    csd_block_req mis = { .id = 0, .op = CSD_BLOCK_READ, .lba = 0, .count = 2, .arrival_ns = T7, .bytes = 4096 };
    submit_ok(d, &mis, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].done_ns, T7 + 36000);
    CHECK_EQ_U64(c[0].flash_ops, 2);
    mis.arrival_ns = T7 + 100000;
    mis.bytes = 0;
    submit_ok(d, &mis, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].done_ns, T7 + 100000 + 46000);
    /* a 100-byte write of LBA 3: link 5000 + ceil(100e9 / 409.6e6) = 245, F, channel, tProg */
    uint64_t T8 = c[0].done_ns + 100000;
    csd_block_req sw = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 3, .count = 1, .arrival_ns = T8, .fill = 5,
                         .bytes = 100 };
    submit_ok(d, &sw, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].first_flash_ns, T8 + 5245);
    CHECK_EQ_U64(c[0].done_ns, T8 + 5245 + 1000 + 10000 + 100000);
    /* a write of zeros (zeroes) is timed as the write it stands for: its page over the link, F,
     * channel, tProg; it reads back as zeros, and its page (fresh, in a block the image held as a
     * hole) was never written on the host */
    uint64_t T9 = c[0].done_ns + 100000;
    csd_block_req zw = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 4, .count = 1, .arrival_ns = T9, .zeroes = 1 };
    submit_ok(d, &zw, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].first_flash_ns, T9 + 15000);
    CHECK_EQ_U64(c[0].done_ns, T9 + 126000);
    CHECK_EQ_U64(c[0].flash_ops, 1);
    memset(buf, 0xAA, sizeof buf);
    csd_block_req zr = { .id = 0, .op = CSD_BLOCK_READ, .lba = 4, .count = 1, .buf = buf };
    submit_ok(d, &zr, 1);
    poll_all(d, c, 1, NULL);
    memset(want, 0, sizeof want);
    CHECK(!memcmp(buf, want, 4096));
    CHECK_EQ_U64(c[0].flash_ops, 1);   /* a page on flash, not a hole */
    csd_device_close(d);

    /* queue depth 1: the second of two reads at once waits for the first to complete */
    d = open_img(g_img, 1);
    CHECK_EQ_INT(csd_block_info_get(d, &bi, err, sizeof err), 0);
    CHECK_EQ_U64(bi.queue_depth, 1);
    uint64_t T4 = csd_device_clock(d);
    csd_block_req q1[2] = { { .id = 0, .op = CSD_BLOCK_READ, .lba = 0, .count = 1, .arrival_ns = T4 },
                            { .id = 1, .op = CSD_BLOCK_READ, .lba = 1, .count = 1, .arrival_ns = T4 } };
    submit_ok(d, q1, 2);
    poll_all(d, c, 2, NULL);
    CHECK_EQ_U64(c[0].done_ns, T4 + 36000);
    CHECK_EQ_U64(c[1].arrival_ns, T4);
    CHECK_EQ_U64(c[1].admit_ns, T4 + 36000);
    CHECK_EQ_U64(c[1].done_ns, T4 + 36000 + 36000);
    /* an unwritten LBA reads as zeros with no flash command: overhead + link out */
    uint64_t T5 = c[1].done_ns;
    memset(buf, 0xAA, sizeof buf);
    csd_block_req z = { .id = 0, .op = CSD_BLOCK_READ, .lba = 100, .count = 2, .arrival_ns = T5, .buf = buf };
    submit_ok(d, &z, 1);
    memset(want, 0, sizeof want);
    CHECK(!memcmp(buf, want, sizeof buf));
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].flash_ops, 0);
    CHECK_EQ_U64(c[0].first_flash_ns, 0);
    CHECK_EQ_U64(c[0].done_ns, T5 + 5000 + 20000);
    /* a flush: no LBAs and no flash command (the device has no volatile write cache), only its
     * command on the link; at queue depth 1 it waits for the write ahead of it. The write of LBA 3 (an
     * idle chip: link ..15000, F ..16000, channel ..26000, tProg ..126000), then the flush, admitted at
     * 126000, on the link ..131000. */
    uint64_t T10 = c[0].done_ns;
    csd_block_req wf[2] = { { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 3, .count = 1, .arrival_ns = T10, .fill = 3 },
                            { .id = 1, .op = CSD_BLOCK_FLUSH, .arrival_ns = T10 } };
    submit_ok(d, wf, 2);
    poll_all(d, c, 2, order);
    CHECK_EQ_U64(c[0].done_ns, T10 + 126000);
    CHECK_EQ_U64(c[1].op, CSD_BLOCK_FLUSH);
    CHECK_EQ_U64(c[1].admit_ns, T10 + 126000);
    CHECK_EQ_U64(c[1].done_ns, T10 + 126000 + 5000);
    CHECK_EQ_U64(c[1].flash_ops, 0);
    CHECK_EQ_U64(c[1].first_flash_ns, 0);
    CHECK_EQ_INT(c[1].status, 0);
    csd_device_close(d);
}

/* The drs preset: X = ceil(4096 B / 400 MB/s) = 10240, no firmware time, tR 60000, tProg 700000,
 * overhead 5000, a page over the 1.6 GB/s host link 2560; ftl = dftl with a 1 KiB map cache. A fresh
 * image has no map pages yet, so the write of LBA 3 fetches no cache line (nothing to read: its line
 * starts empty and dirty in the cache) and is its data program alone; the read that follows hits that
 * line and is its data read alone: the same times as on ftl = page. */
static void test_drs_preset(const char *dir) {
    char path[4300], err[512];
    snprintf(path, sizeof path, "%s/drs.img", dir);
    unlink(path);
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "drs"), 0);
    CHECK_EQ_U64(p.block_queue_depth, 65536);
    CHECK_EQ_U64(p.flash_queue_depth, 256);
    CHECK(!strcmp(p.ftl, "dftl"));
    CHECK_EQ_U64(p.map_cache_bytes, 1024);
    CHECK(csd_format(path, 16u << 20, &p, err, sizeof err) == 0);
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    CHECK(csd_device_open(&d, path, &o, err, sizeof err) == 0);
    csd_block_info bi;
    CHECK_EQ_INT(csd_block_info_get(d, &bi, err, sizeof err), 0);
    /* the namespace's record: overhead, transfer, program */
    uint64_t T0 = csd_device_clock(d);
    CHECK_EQ_U64(T0, 5000 + 10240 + 700000);
    csd_block_req w = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 3, .count = 1, .fill = 1 };
    submit_ok(d, &w, 1);
    csd_block_cpl c[1];
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].done_ns, T0 + 5000 + 2560 + 10240 + 700000);
    CHECK_EQ_U64(c[0].first_flash_ns, T0 + 7560);
    uint64_t T1 = c[0].done_ns + 1000;
    csd_block_req r = { .id = 0, .op = CSD_BLOCK_READ, .lba = 3, .count = 1, .arrival_ns = T1 };
    submit_ok(d, &r, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].first_flash_ns, T1 + 5000);
    CHECK_EQ_U64(c[0].done_ns, T1 + 5000 + 60000 + 10240 + 2560);
    csd_device_close(d);
}

/* A drs-preset image (ftl = dftl, 1 KiB map cache: 16 lines of 8 entries) under the given flash
 * scheduler, LBAs 0..23 written and the device closed (their three dirty lines programmed to map
 * pages), then reopened with a cold map cache. */
static csd_device *dftl_cold(const char *dir, const char *sched) {
    char path[4300], err[512];
    snprintf(path, sizeof path, "%s/dftl-%s.img", dir, sched);
    unlink(path);
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "drs"), 0);
    snprintf(p.flash_scheduler, sizeof p.flash_scheduler, "%s", sched);
    CHECK(csd_format(path, 16u << 20, &p, err, sizeof err) == 0);
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    CHECK(csd_device_open(&d, path, &o, err, sizeof err) == 0);
    csd_block_req w = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 0, .count = 24, .fill = 5 };
    submit_ok(d, &w, 1);
    csd_block_cpl c[1];
    poll_all(d, c, 1, NULL);
    CHECK_EQ_INT(c[0].status, 0);
    CHECK(csd_device_close(d) == 0);
    CHECK(csd_device_open(&d, path, &o, err, sizeof err) == 0);
    return d;
}

/* Block requests on dftl run as command sets (DRS II-A, V-B) through the command-set submitter, with
 * the drs preset's numbers: overhead 5000, a page over the host link 2560, one chip where a read is
 * tR 60000 + channel 10240 = 70240 and a program channel 10240 + tProg 700000 = 710240 (no firmware
 * time; a program still passes the firmware stage, so it reaches the chip's queue one event after a
 * read submitted at the same instant). drs: 1 when the scheduler is drs, 0 for fifo. */
static void test_dftl_sets(const char *dir, const char *sched, int drs) {
    csd_device *d = dftl_cold(dir, sched);
    csd_block_cpl c[3];
    uint64_t order[3];
    /* a miss: the cache-line fetch MR (70240) before the data read DR (70240), then the page out:
     * 5000 + 70240 + 70240 + 2560 */
    uint64_t T1 = csd_device_clock(d) + 1000;
    csd_block_req r = { .id = 0, .op = CSD_BLOCK_READ, .lba = 3, .count = 1, .arrival_ns = T1 };
    submit_ok(d, &r, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].flash_ops, 2);
    CHECK_EQ_U64(c[0].first_flash_ns, T1 + 5000);
    CHECK_EQ_U64(c[0].done_ns, T1 + 148040);
    /* Fig. 10: no I/O queue, the link's 5000 before and 2560 after, its two commands back to back */
    CHECK_EQ_U64(c[0].submit_ns, T1 + 5000);
    CHECK_EQ_U64(c[0].flash_done_ns, T1 + 145480);
    CHECK_EQ_U64(c[0].flash_busy_ns, 2 * 70240);
    CHECK_EQ_U64(check_parts(&c[0]), 0);
    /* a hit (LBA 4 shares LBA 3's line of 8 entries): the data read alone, 5000 + 70240 + 2560 */
    uint64_t T2 = c[0].done_ns + 1000;
    r = (csd_block_req){ .id = 0, .op = CSD_BLOCK_READ, .lba = 4, .count = 1, .arrival_ns = T2 };
    submit_ok(d, &r, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].flash_ops, 1);
    CHECK_EQ_U64(c[0].first_flash_ns, T2 + 5000);
    CHECK_EQ_U64(c[0].done_ns, T2 + 77800);
    /* delayed by another's in-flight map read (V-B-1): W writes LBA 9 (line 1, a miss) and R reads
     * LBA 10 (line 1) at T3. W holds the link 0..7560 (overhead + its page), its MR runs
     * 7560..77800; R's command arrives at 12560 and waits for W's MR (CLF-delayed) instead of
     * fetching the line again. At 77800 W's DP and R's DR are both submitted; the read reaches the
     * chip first under either scheduler (the program passes the firmware stage; under drs a read beats
     * a write anyway): DR 77800..148040, R done +2560 = 150600; DP 148040..858280. */
    uint64_t T3 = c[0].done_ns + 1000;
    csd_block_req q[2] = { { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 9, .count = 1, .fill = 3, .arrival_ns = T3 },
                           { .id = 1, .op = CSD_BLOCK_READ, .lba = 10, .count = 1, .arrival_ns = T3 } };
    submit_ok(d, q, 2);
    poll_all(d, c, 2, order);
    CHECK_EQ_U64(order[0], 1);
    CHECK_EQ_U64(c[0].flash_ops, 2);   /* MR, DP */
    CHECK_EQ_U64(c[1].flash_ops, 1);   /* its DR only: the MR it waited for is W's */
    CHECK_EQ_U64(c[0].first_flash_ns, T3 + 7560);
    CHECK_EQ_U64(c[0].done_ns, T3 + 858280);
    CHECK_EQ_U64(c[1].first_flash_ns, T3 + 77800);
    CHECK_EQ_U64(c[1].done_ns, T3 + 150600);
    /* Fig. 10: R's wait for W's map read (12560..77800) is flash command queue time, not its flash
     * operation time (its own DR only); W waits behind R's DR (77800..148040) */
    CHECK_EQ_U64(c[1].flash_busy_ns, 70240);
    CHECK_EQ_U64(check_parts(&c[1]), 77800 - 12560);
    CHECK_EQ_U64(c[1].clf_delayed, 1);   /* a CLF-delayed request (V-C) */
    CHECK_EQ_U64(c[1].dle_delayed, 0);
    CHECK_EQ_U64(c[0].clf_delayed + c[0].dle_delayed, 0);
    CHECK_EQ_U64(c[0].flash_busy_ns, 70240 + 710240);
    CHECK_EQ_U64(check_parts(&c[0]), 70240);
    /* where the schedulers differ: at T4 A reads LBA 16 (line 2, a miss: MR 5000..75240), B writes
     * LBA 5 (line 0, cached: its DP is queued at 12560 after the link 5000..12560) and C reads LBA 4
     * (a hit: its DR queued at 17560 after the link 12560..17560). When A's MR ends at 75240:
     * fifo serves in submission order: DP_B 75240..785480, DR_C ..855720 (C done +2560 = 858280),
     *   A's DR (submitted at 75240) ..925960 (A done 928520).
     * drs serves reads before writes, the smaller FOT first (V-D, Algorithm 1): DR_C (FOT 70240)
     *   75240..145480 (C done 148040), then A's DR (a read) 145480..215720 (A done 218280), then
     *   DP_B 215720..925960. */
    uint64_t T4 = c[0].done_ns + 1000;
    csd_block_req q3[3] = { { .id = 0, .op = CSD_BLOCK_READ, .lba = 16, .count = 1, .arrival_ns = T4 },
                            { .id = 1, .op = CSD_BLOCK_WRITE, .lba = 5, .count = 1, .fill = 4, .arrival_ns = T4 },
                            { .id = 2, .op = CSD_BLOCK_READ, .lba = 4, .count = 1, .arrival_ns = T4 } };
    submit_ok(d, q3, 3);
    poll_all(d, c, 3, order);
    CHECK_EQ_U64(c[0].first_flash_ns, T4 + 5000);
    CHECK_EQ_U64(c[1].first_flash_ns, T4 + (drs ? 215720 : 75240));
    CHECK_EQ_U64(c[2].first_flash_ns, T4 + (drs ? 75240 : 785480));
    CHECK_EQ_U64(c[0].done_ns, T4 + (drs ? 218280 : 928520));
    CHECK_EQ_U64(c[1].done_ns, T4 + (drs ? 925960 : 785480));
    CHECK_EQ_U64(c[2].done_ns, T4 + (drs ? 148040 : 858280));
    /* the order moves the queue waits, never a request's own operation time (DRS VI-C) */
    CHECK_EQ_U64(c[0].flash_busy_ns, 2 * 70240);
    CHECK_EQ_U64(c[1].flash_busy_ns, 710240);
    CHECK_EQ_U64(c[2].flash_busy_ns, 70240);
    CHECK_EQ_U64(check_parts(&c[2]), drs ? 75240 - 17560 : 785480 - 17560);
        uint64_t want_order[2][3] = { { 1, 2, 0 }, { 2, 0, 1 } };
    for (int i = 0; i < 3; i++) CHECK_EQ_U64(order[i], want_order[drs][i]);
    /* the data read back is what was written */
    uint8_t buf[4096], want[4096];
    r = (csd_block_req){ .id = 0, .op = CSD_BLOCK_READ, .lba = 5, .count = 1, .buf = buf };
    submit_ok(d, &r, 1);
    poll_all(d, c, 1, NULL);
    fill_expect(want, 5, 1, 4);
    CHECK(!memcmp(buf, want, sizeof buf));
    CHECK(csd_device_close(d) == 0);
}

/* The flash command queue holds flash_queue_depth commands, one per command set in progress (the DRS
 * paper's queue depth, VI-A): a request waits in the I/O request queue until its sets fit, so the
 * depth limits which commands the scheduler can choose among. On the drs preset under drs, with the
 * cache warm (every request a hit: one data command per page), at T: A writes LBA 0, B writes LBA 8,
 * C reads LBA 16, each one page, submitted in that order. A's link 0..7560 (overhead + its page), its
 * DP 7560..717800 (10240 + 700000). Then:
 *   depth 3 (or more): all three are admitted at T; B's DP is queued at 15120 and C's DR at 20120
 *     (their links after A's); at 717800 drs takes the read: DR_C ..788040 (C done +2560 = 790600),
 *     DP_B ..1498280.
 *   depth 2: C waits in the I/O request queue until A's set completes at 717800; its command (link
 *     717800..722800) misses the decision at 717800, which takes B's DP (..1428040); DR_C
 *     1428040..1498280, C done 1500840.
 *   depth 1: B waits for A (admitted 717800, link ..725360, DP ..1435600), C for B (admitted 1435600,
 *     link ..1440600, DR ..1510840, done 1513400).
 * And a request with more sets than the queue holds enters it empty: at depth 2, E reads LBA 16, D
 * reads LBAs 0..3 and F reads LBA 8, at T'. E: link ..5000, DR ..75240, page out ..77800. D (4 sets)
 * waits for the empty queue at 75240 (E's set done); its command follows E's page on the link
 * (..82800), its DRs run 82800..153040..223280..293520..363760. F waits behind D until D holds one
 * entry (its third set done at 293520): F's command follows D's third page on the link
 * (296080..301080), its DR after D's last 363760..434000, F done 436560; D done 366320. */
static csd_device *reopen_fqd(const char *dir, const char *sched, uint32_t fqd) {
    csd_device *d = dftl_cold(dir, sched);
    char path[4300], err[512];
    snprintf(path, sizeof path, "%s/dftl-%s.img", dir, sched);
    CHECK(csd_device_close(d) == 0);
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "drs"), 0);
    snprintf(p.flash_scheduler, sizeof p.flash_scheduler, "%s", sched);
    p.flash_queue_depth = fqd;
    csd_open_opts o = { .override = &p, .background = 0 };
    CHECK(csd_device_open(&d, path, &o, err, sizeof err) == 0);
    csd_block_info bi;
    CHECK_EQ_INT(csd_block_info_get(d, &bi, err, sizeof err), 0);
    CHECK_EQ_U64(bi.flash_queue_depth, fqd);
    /* warm lines 0, 1 and 2, one request at a time */
    for (uint64_t lba = 0; lba < 24; lba += 8) {
        csd_block_req r = { .id = 0, .op = CSD_BLOCK_READ, .lba = lba, .count = 1 };
        submit_ok(d, &r, 1);
        csd_block_cpl c[1];
        poll_all(d, c, 1, NULL);
        CHECK_EQ_U64(c[0].flash_ops, 2);
    }
    return d;
}

static void test_flash_queue_depth(const char *dir) {
    const uint32_t depths[4] = { 1, 2, 3, 256 };
    const uint64_t c_done[4] = { 1513400, 1500840, 790600, 790600 };
    const uint64_t b_done[4] = { 1435600, 1428040, 1498280, 1498280 };
    const uint64_t c_admit[4] = { 1435600, 717800, 0, 0 };
    for (int k = 0; k < 4; k++) {
        csd_device *d = reopen_fqd(dir, "drs", depths[k]);
        uint64_t T = csd_device_clock(d) + 1000;
        csd_block_req q[3] = { { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 0, .count = 1, .fill = 9, .arrival_ns = T },
                               { .id = 1, .op = CSD_BLOCK_WRITE, .lba = 8, .count = 1, .fill = 9, .arrival_ns = T },
                               { .id = 2, .op = CSD_BLOCK_READ, .lba = 16, .count = 1, .arrival_ns = T } };
        submit_ok(d, q, 3);
        csd_block_cpl c[3];
        poll_all(d, c, 3, NULL);
        for (int i = 0; i < 3; i++) {
            CHECK_EQ_U64(c[i].flash_ops, 1);
            (void)check_parts(&c[i]);
        }
        CHECK_EQ_U64(c[0].admit_ns, T);
        CHECK_EQ_U64(c[0].done_ns, T + 717800);
        CHECK_EQ_U64(c[1].admit_ns, T + (depths[k] == 1 ? 717800 : 0));
        CHECK_EQ_U64(c[1].done_ns, T + b_done[k]);
        CHECK_EQ_U64(c[2].admit_ns, T + c_admit[k]);
        CHECK_EQ_U64(c[2].done_ns, T + c_done[k]);
        /* the flash command queue wait of C: behind A's DP, then (depth 1, 2) B's */
        CHECK_EQ_U64(c[2].flash_busy_ns, 70240);
        CHECK_EQ_U64(check_parts(&c[2]), depths[k] >= 3 ? 717800 - 20120 : depths[k] == 2 ? 1428040 - 722800 : 0);
        if (depths[k] == 2) {
            uint64_t T2 = csd_device_clock(d) + 1000;
            csd_block_req e[3] = { { .id = 0, .op = CSD_BLOCK_READ, .lba = 16, .count = 1, .arrival_ns = T2 },
                                   { .id = 1, .op = CSD_BLOCK_READ, .lba = 0, .count = 4, .arrival_ns = T2 },
                                   { .id = 2, .op = CSD_BLOCK_READ, .lba = 8, .count = 1, .arrival_ns = T2 } };
            submit_ok(d, e, 3);
            poll_all(d, c, 3, NULL);
            CHECK_EQ_U64(c[0].done_ns, T2 + 77800);
            CHECK_EQ_U64(c[1].admit_ns, T2 + 75240);
            CHECK_EQ_U64(c[1].submit_ns, T2 + 82800);
            CHECK_EQ_U64(c[1].done_ns, T2 + 366320);
            CHECK_EQ_U64(c[1].flash_busy_ns, 4 * 70240);
            CHECK_EQ_U64(c[2].admit_ns, T2 + 293520);
            CHECK_EQ_U64(c[2].submit_ns, T2 + 301080);
            CHECK_EQ_U64(c[2].done_ns, T2 + 436560);
            for (int i = 0; i < 3; i++) CHECK_EQ_U64(check_parts(&c[i]), i == 2 ? 363760 - 301080 : 0);
        }
        CHECK(csd_device_close(d) == 0);
    }
}

/* Random reads, writes and trims in batches with arrival gaps, on a small device (GC runs often);
 * every read returns what an in-memory copy of the namespace holds at its submission, and at most
 * queue_depth requests are ever in service. */
static void test_random(const char *dir) {
    const uint32_t qd = 8;
    csd_device *d = fresh(dir, 1u << 20, qd);
    csd_block_info bi;
    char err[256];
    CHECK_EQ_INT(csd_block_info_get(d, &bi, err, sizeof err), 0);
    const uint64_t L = bi.lbas, pb = bi.lba_bytes;
    uint8_t *ref = calloc(L, pb);
    uint64_t seed = 12345;
#define RND() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, (seed >> 33))
    enum { BATCH = 64, ROUNDS = 80 };
    csd_block_req q[BATCH];
    uint8_t *bufs = malloc(BATCH * 8 * pb), *wbuf = malloc(BATCH * 8 * pb);
    csd_block_cpl c[BATCH];
    uint64_t total = 0, reads = 0, writes = 0, trims = 0, mism = 0;
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t t = csd_device_clock(d);
        for (int i = 0; i < BATCH; i++) {
            uint32_t count = 1 + (uint32_t)(RND() % 8);
            uint64_t lba = RND() % (L - count + 1);
            int kind = (int)(RND() % 10);
            t += RND() % 40000;
            q[i] = (csd_block_req){ .id = (uint64_t)i, .lba = lba, .count = count, .arrival_ns = t };
            if (kind < 5) {
                q[i].op = CSD_BLOCK_WRITE;
                uint8_t *src = wbuf + (size_t)i * 8 * pb;
                if (kind == 0) {
                    q[i].fill = RND() | 1;
                    fill_expect(src, lba, count, q[i].fill);
                } else {
                    for (uint64_t b = 0; b < count * pb; b++) src[b] = (uint8_t)RND();
                    q[i].data = src;
                }
                memcpy(ref + lba * pb, src, count * pb);
                writes++;
            } else if (kind < 9) {
                q[i].op = CSD_BLOCK_READ;
                q[i].buf = bufs + (size_t)i * 8 * pb;
                reads++;
            } else {
                q[i].op = CSD_BLOCK_TRIM;
                memset(ref + lba * pb, 0, count * pb);
                trims++;
            }
            /* one request at a time so the reference follows submission order inside the batch */
            submit_ok(d, &q[i], 1);
            if (q[i].op == CSD_BLOCK_READ && memcmp(q[i].buf, ref + lba * pb, count * pb)) mism++;
        }
        size_t n = poll_all(d, c, BATCH, NULL);
        CHECK_EQ_U64(n, BATCH);
        /* at most qd in service at any instant: sweep the admit/done intervals */
        for (int i = 0; i < BATCH; i++) {
            CHECK(c[i].admit_ns >= c[i].arrival_ns);
            CHECK(c[i].done_ns >= c[i].admit_ns);
            CHECK(c[i].first_flash_ns == 0 || c[i].first_flash_ns >= c[i].admit_ns);
            CHECK_EQ_INT(c[i].status, 0);
            (void)check_parts(&c[i]);
            uint32_t inside = 0;
            for (int j = 0; j < BATCH; j++) inside += c[j].admit_ns <= c[i].admit_ns && c[i].admit_ns < c[j].done_ns;
            CHECK(inside <= qd);
        }
        total += n;
    }
    CHECK_EQ_U64(mism, 0);
    CHECK(reads > 1000 && writes > 1000 && trims > 200);
    /* GC ran: the device wrote far more pages than it holds */
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Stats st = SMARTSSD__V1__STATS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STATS;
    req.stats = &st;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    uint64_t gc = 0, sr = 0, sw = 0, st_ = 0, so = 99;
    for (size_t i = 0; i < r->stats->n_counters; i++) {
        const char *k = r->stats->counters[i]->key;
        uint64_t v = strtoull(r->stats->counters[i]->value, NULL, 10);
        if (!strcmp(k, "ftl.gc_runs")) gc = v;
        if (!strcmp(k, "block.reads")) sr = v;
        if (!strcmp(k, "block.writes")) sw = v;
        if (!strcmp(k, "block.trims")) st_ = v;
        if (!strcmp(k, "block.outstanding")) so = v;
    }
    CHECK_EQ_U64(sr, reads);
    CHECK_EQ_U64(sw, writes);
    CHECK_EQ_U64(st_, trims);
    CHECK_EQ_U64(so, 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(gc > 10);
    /* the whole namespace, read back after a reopen */
    csd_device_close(d);
    d = open_img(g_img, qd);
    uint8_t *all = malloc(L * pb);
    for (uint64_t lba = 0; lba < L; lba += 64) {
        csd_block_req rq = { .id = 0, .op = CSD_BLOCK_READ, .lba = lba, .count = (uint32_t)(L - lba < 64 ? L - lba : 64),
                             .buf = all + lba * pb };
        submit_ok(d, &rq, 1);
    }
    CHECK(!memcmp(all, ref, L * pb));
    csd_block_cpl sink[8];
    size_t got;
    while (csd_block_outstanding(d)) CHECK_EQ_INT(csd_block_poll(d, 1, 0, sink, 8, &got, err, sizeof err), 0);
    csd_device_close(d);
    CHECK_EQ_INT(csd_check(g_img, NULL, NULL), 0);
    printf("random: %" PRIu64 " requests (%" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " trims), %" PRIu64
           " GC runs\n", total, reads, writes, trims, gc);
    free(all);
    free(ref);
    free(bufs);
    free(wbuf);
}

/* A process writes through the block commands and dies without closing the device; the image reopens
 * with every write it made, and the checker finds it clean. */
static void test_crash(const char *dir) {
    csd_device *d = fresh(dir, 1u << 20, 0);
    csd_device_close(d);
    pid_t pid = fork();
    if (pid == 0) {
        csd_device *c = open_img(g_img, 0);
        char err[256];
        for (uint64_t i = 0; i < 100; i++) {
            csd_block_req w = { .id = i, .op = CSD_BLOCK_WRITE, .lba = (i * 37) % 200, .count = 2, .fill = 1000 + i };
            if (csd_block_submit(c, &w, 1, err, sizeof err)) _exit(2);
        }
        csd_block_req t = { .id = 100, .op = CSD_BLOCK_TRIM, .lba = 37, .count = 1 };
        if (csd_block_submit(c, &t, 1, err, sizeof err)) _exit(3);
        _exit(0);   /* no close: no metadata flush */
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* the expected image: the same writes applied to memory */
    static uint8_t ref[256 * 4096], got[256 * 4096];
    for (uint64_t i = 0; i < 100; i++) fill_expect(ref + ((i * 37) % 200) * 4096, (i * 37) % 200, 2, 1000 + i);
    memset(ref + 37 * 4096, 0, 4096);
    CHECK_EQ_INT(csd_check(g_img, NULL, NULL), 0);
    d = open_img(g_img, 0);
    csd_block_req r = { .id = 0, .op = CSD_BLOCK_READ, .lba = 0, .count = 256, .buf = got };
    submit_ok(d, &r, 1);
    CHECK(!memcmp(got, ref, sizeof ref));
    csd_device_close(d);
}

/* The i-th write of the kill test: deterministic, so the parent knows the one in flight. */
static void kill_write(uint64_t i, uint64_t *lba, uint32_t *count) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    *count = 1 + (uint32_t)(x % 8);
    *lba = (x >> 8) % (200 - *count);
}

/* A writer killed with SIGKILL at a random moment: every acknowledged write is there after reopen
 * (or, for its LBAs the unacknowledged write in flight covers, that write's data: it may have landed
 * in part), and the checker finds the image clean. */
static void test_kill(const char *dir) {
    csd_device *d = fresh(dir, 1u << 20, 0);
    csd_device_close(d);
    for (int round = 0; round < 3; round++) {
        int pfd[2];
        CHECK(pipe(pfd) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(pfd[0]);
            csd_device *c = open_img(g_img, 0);
            char err[256];
            for (uint64_t i = 0;; i++) {
                csd_block_req w = { .id = i, .op = CSD_BLOCK_WRITE, .fill = 7000 + i };
                kill_write(i, &w.lba, &w.count);
                if (csd_block_submit(c, &w, 1, err, sizeof err)) _exit(2);
                csd_block_cpl cp;
                size_t got;
                if (csd_block_poll(c, 1, 0, &cp, 1, &got, err, sizeof err) || got != 1 || cp.status) _exit(3);
                if (write(pfd[1], &i, sizeof i) != sizeof i) _exit(4);
            }
        }
        close(pfd[1]);
        uint64_t acked = 0, v;
        int n = 0;
        int target = 150 + round * 211;
        while (n < target && read(pfd[0], &v, sizeof v) == sizeof v) {
            acked = v + 1;
            n++;
        }
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        while (read(pfd[0], &v, sizeof v) == sizeof v) acked = v + 1;   /* acks sent before the kill */
        close(pfd[0]);
        CHECK(WIFSIGNALED(status));
        CHECK_EQ_INT(csd_check(g_img, NULL, NULL), 0);
        /* the expected image: the acknowledged writes of every round so far, in order */
        static int64_t last[256];
        if (round == 0)
            for (int l = 0; l < 256; l++) last[l] = -1;
        static uint8_t got[256 * 4096], want[4096];
        uint64_t fl, inflight_lba;
        uint32_t fc;
        for (uint64_t i = 0; i < acked; i++) {
            kill_write(i, &fl, &fc);
            for (uint32_t k = 0; k < fc; k++) last[fl + k] = (int64_t)(7000 + i);
        }
        kill_write(acked, &inflight_lba, &fc);
        d = open_img(g_img, 0);
        csd_block_req r = { .id = 0, .op = CSD_BLOCK_READ, .lba = 0, .count = 256, .buf = got };
        submit_ok(d, &r, 1);
        csd_block_cpl sink;
        size_t gotn;
        char err[256];
        CHECK_EQ_INT(csd_block_poll(d, 1, 0, &sink, 1, &gotn, err, sizeof err), 0);
        csd_device_close(d);
        for (uint64_t l = 0; l < 256; l++) {
            if (last[l] < 0) memset(want, 0, sizeof want);
            else fill_expect(want, l, 1, (uint64_t)last[l]);
            if (!memcmp(got + l * 4096, want, 4096)) continue;
            /* the write in flight may have landed */
            CHECK(l >= inflight_lba && l < inflight_lba + fc);
            fill_expect(want, l, 1, 7000 + acked);
            CHECK(!memcmp(got + l * 4096, want, 4096));
            last[l] = (int64_t)(7000 + acked);
        }
        /* the next round's writer starts its sequence again over what the image holds now */
    }
}

static Smartssd__V1__Response *submit_pb(csd_device *d, Smartssd__V1__BlockRequest **rs, size_t n) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockSubmit bs = SMARTSSD__V1__BLOCK_SUBMIT__INIT;
    bs.n_requests = n;
    bs.requests = rs;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT;
    req.block_submit = &bs;
    return dev_call(d, &req, NULL);
}

static Smartssd__V1__Response *poll_pb(csd_device *d, uint32_t min, uint32_t max, uint64_t until) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockPoll bp = SMARTSSD__V1__BLOCK_POLL__INIT;
    bp.min_completions = min;
    bp.max_completions = max;
    bp.until_ns = until;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL;
    req.block_poll = &bp;
    return dev_call(d, &req, NULL);
}

/* One bad request in a packet of good ones: refused whole, with its index and reason. */
static void expect_bad(csd_device *d, Smartssd__V1__BlockRequest bad, int st, const char *needle) {
    Smartssd__V1__BlockRequest good = SMARTSSD__V1__BLOCK_REQUEST__INIT;
    good.op = SMARTSSD__V1__BLOCK_OP__BLOCK_READ;
    good.count = 1;
    Smartssd__V1__BlockRequest *rs[2] = { &good, &bad };
    uint64_t before = csd_block_outstanding(d);
    EXPECT_STATUS(submit_pb(d, rs, 2), st, needle);
    CHECK_EQ_U64(csd_block_outstanding(d), before);
}

static void test_protocol(const char *dir) {
    csd_device *d = fresh(dir, 1u << 20, 0);
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockInfo binf = SMARTSSD__V1__BLOCK_INFO__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_INFO;
    req.block_info = &binf;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK_EQ_U64(r->block_info->lbas, 256);
    uint64_t ns = r->block_info->namespace_object;
    smartssd__v1__response__free_unpacked(r, NULL);

    /* a write with data and a read that returns it, in one packet */
    uint8_t data[2 * 4096];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + 3);
    Smartssd__V1__BlockRequest w = SMARTSSD__V1__BLOCK_REQUEST__INIT, rd = SMARTSSD__V1__BLOCK_REQUEST__INIT;
    w.id = 10;
    w.op = SMARTSSD__V1__BLOCK_OP__BLOCK_WRITE;
    w.lba = 254;
    w.count = 2;
    w.data.data = data;
    w.data.len = sizeof data;
    rd.id = 11;
    rd.op = SMARTSSD__V1__BLOCK_OP__BLOCK_READ;
    rd.lba = 254;
    rd.count = 2;
    rd.return_data = 1;
    Smartssd__V1__BlockRequest *rs[2] = { &w, &rd };
    r = submit_pb(d, rs, 2);
    CHECK_EQ_INT(r->status, 0);
    CHECK_EQ_U64(r->block_submit->accepted, 2);
    CHECK_EQ_U64(r->block_submit->outstanding, 2);
    CHECK_EQ_U64(r->device_ns, 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = poll_pb(d, 2, 0, 0);
    CHECK_EQ_INT(r->status, 0);
    CHECK_EQ_U64(r->block_poll->n_completions, 2);
    CHECK_EQ_U64(r->block_poll->outstanding, 0);
    int seen = 0;
    for (size_t i = 0; i < 2; i++) {
        Smartssd__V1__BlockCompletion *cm = r->block_poll->completions[i];
        CHECK(cm->done_ns <= r->device_clock_ns);
        if (cm->id == 11) {
            CHECK_EQ_U64(cm->data.len, sizeof data);
            CHECK(!memcmp(cm->data.data, data, sizeof data));
            CHECK_EQ_U64(cm->lba, 254);
            seen++;
        }
    }
    CHECK_EQ_INT(seen, 1);
    smartssd__v1__response__free_unpacked(r, NULL);

    /* the namespace is not an object: not listed, not reachable by id or name, its prefix reserved */
    Smartssd__V1__ListObjects lo = SMARTSSD__V1__LIST_OBJECTS__INIT;
    req = (Smartssd__V1__Request)SMARTSSD__V1__REQUEST__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST;
    req.list = &lo;
    r = dev_call(d, &req, NULL);
    CHECK_EQ_U64(r->list->n_objects, 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
    so.name = ".block/namespace";
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
    req.stat = &so;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_NOT_FOUND, "block commands only");
    Smartssd__V1__WriteObject wo = SMARTSSD__V1__WRITE_OBJECT__INIT;
    wo.object_id = ns;
    wo.data.data = data;
    wo.data.len = 10;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &wo;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_NOT_FOUND, "block commands only");
    Smartssd__V1__DeleteObject dl = SMARTSSD__V1__DELETE_OBJECT__INIT;
    dl.object_id = ns;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
    req.delete_object = &dl;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_NOT_FOUND, "block commands only");
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = ".block/other";
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_INVALID_ARGUMENT, "reserved for the block namespace");

    /* bad inputs: each names the request and why; nothing of the packet is taken */
    Smartssd__V1__BlockRequest b;
#define BAD(field_set, st, needle) do { b = (Smartssd__V1__BlockRequest)SMARTSSD__V1__BLOCK_REQUEST__INIT; \
    b.id = 77; b.op = SMARTSSD__V1__BLOCK_OP__BLOCK_READ; b.count = 1; field_set; expect_bad(d, b, st, needle); } while (0)
    BAD(b.lba = 256, CSD_OUT_OF_RANGE, "request 1 (id 77): LBAs [256, +1) are past the end of the namespace (256 LBAs)");
    BAD((b.lba = 250, b.count = 7), CSD_OUT_OF_RANGE, "past the end");
    BAD(b.count = 0, CSD_INVALID_ARGUMENT, "request 1 (id 77): count is 0");
    BAD(b.count = CSD_BLOCK_MAX_LBAS + 1, CSD_INVALID_ARGUMENT, "exceeds 4096 LBAs");
    BAD(b.op = 0, CSD_INVALID_ARGUMENT, "op must be READ, WRITE, TRIM or FLUSH (got 0)");
    BAD(b.op = SMARTSSD__V1__BLOCK_OP__BLOCK_FLUSH, CSD_INVALID_ARGUMENT, "a FLUSH covers no LBAs (lba and count 0; got 0 +1)");
    BAD((b.op = SMARTSSD__V1__BLOCK_OP__BLOCK_FLUSH, b.count = 0, b.lba = 5), CSD_INVALID_ARGUMENT, "a FLUSH covers no LBAs");
    BAD(b.op = 9, CSD_INVALID_ARGUMENT, "(got 9)");
    BAD((b.op = SMARTSSD__V1__BLOCK_OP__BLOCK_WRITE, b.data.data = data, b.data.len = 100), CSD_INVALID_ARGUMENT,
        "100 data bytes for 1 LBAs");
    BAD((b.data.data = data, b.data.len = 4096), CSD_INVALID_ARGUMENT, "a READ carries no data");
    BAD(b.fill = 5, CSD_INVALID_ARGUMENT, "fill is for writes");
    BAD((b.op = SMARTSSD__V1__BLOCK_OP__BLOCK_TRIM, b.return_data = 1), CSD_INVALID_ARGUMENT, "return_data is for reads");
    BAD((b.op = SMARTSSD__V1__BLOCK_OP__BLOCK_TRIM, b.bytes = 100), CSD_INVALID_ARGUMENT, "bytes is for reads and writes");
    BAD(b.zeroes = 1, CSD_INVALID_ARGUMENT, "zeroes is for writes without data or fill");
    BAD((b.op = SMARTSSD__V1__BLOCK_OP__BLOCK_WRITE, b.zeroes = 1, b.fill = 3), CSD_INVALID_ARGUMENT,
        "zeroes is for writes without data or fill");
    BAD(b.bytes = 4097, CSD_INVALID_ARGUMENT, "bytes 4097 does not fit 1 LBAs of 4096 bytes (more than 0, at most 4096)");
    BAD((b.count = 3, b.bytes = 4096), CSD_INVALID_ARGUMENT, "bytes 4096 does not fit 3 LBAs of 4096 bytes (more than 4096");
    uint64_t now = csd_device_clock(d);
    BAD(b.arrival_ns = now - 1, CSD_INVALID_ARGUMENT, "is before the device clock");
    BAD(b.arrival_ns = UINT64_MAX, CSD_INVALID_ARGUMENT, "arrival_ns 18446744073709551615 is past 4611686018427387904");
    /* arrival times going backwards inside a packet */
    {
        Smartssd__V1__BlockRequest a = SMARTSSD__V1__BLOCK_REQUEST__INIT, z = SMARTSSD__V1__BLOCK_REQUEST__INIT;
        a.op = z.op = SMARTSSD__V1__BLOCK_OP__BLOCK_READ;
        a.count = z.count = 1;
        a.arrival_ns = now + 5000;
        z.arrival_ns = now + 4000;
        Smartssd__V1__BlockRequest *az[2] = { &a, &z };
        EXPECT_STATUS(submit_pb(d, az, 2), CSD_INVALID_ARGUMENT, "request 1 (id 0): arrival times go backwards (");
        /* and across packets: a later packet may not arrive before an earlier one */
        Smartssd__V1__BlockRequest *a1[1] = { &a };
        EXPECT_STATUS(submit_pb(d, a1, 1), CSD_OK, NULL);
        Smartssd__V1__BlockRequest *z1[1] = { &z };
        EXPECT_STATUS(submit_pb(d, z1, 1), CSD_INVALID_ARGUMENT, "arrival times go backwards");
        r = poll_pb(d, 1, 0, 0);
        CHECK_EQ_U64(r->block_poll->n_completions, 1);
        CHECK_EQ_U64(r->block_poll->completions[0]->arrival_ns, now + 5000);
        smartssd__v1__response__free_unpacked(r, NULL);
    }
    EXPECT_STATUS(submit_pb(d, NULL, 0), CSD_INVALID_ARGUMENT, "no requests");
    /* more LBAs in one submission than the bound: 65 requests of 4096 */
    {
        Smartssd__V1__BlockRequest big[65], *bp[65];
        for (int i = 0; i < 65; i++) {
            smartssd__v1__block_request__init(&big[i]);
            big[i].id = (uint64_t)i;
            big[i].op = SMARTSSD__V1__BLOCK_OP__BLOCK_READ;
            big[i].count = CSD_BLOCK_MAX_LBAS;
            bp[i] = &big[i];
        }
        EXPECT_STATUS(submit_pb(d, bp, 65), CSD_RESOURCE_EXHAUSTED,
                      "the submission covers 266240 LBAs, more than 262144; split it");
    }
    /* too many outstanding: one over the bound in a single packet */
    {
        size_t n = CSD_BLOCK_MAX_OUTSTANDING + 1;
        Smartssd__V1__BlockRequest *many = calloc(n, sizeof *many), **mp = calloc(n, sizeof *mp);
        for (size_t i = 0; i < n; i++) {
            smartssd__v1__block_request__init(&many[i]);
            many[i].op = SMARTSSD__V1__BLOCK_OP__BLOCK_READ;
            many[i].count = 1;
            mp[i] = &many[i];
        }
        EXPECT_STATUS(submit_pb(d, mp, n), CSD_RESOURCE_EXHAUSTED, "would exceed 65536; poll completions first");
        free(many);
        free(mp);
    }
    r = poll_pb(d, 0, 0, 0);
    uint64_t clock = r->device_clock_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(poll_pb(d, 0, 0, clock - 1), CSD_INVALID_ARGUMENT, "until_ns");
    EXPECT_STATUS(poll_pb(d, 5, 2, 0), CSD_INVALID_ARGUMENT, "min_completions 5 exceeds max_completions 2");
    EXPECT_STATUS(poll_pb(d, 0, 0, UINT64_MAX), CSD_INVALID_ARGUMENT, "is past 4611686018427387904");
    /* poll with until_ns moves the clock there */
    r = poll_pb(d, 0, 0, clock + 1000000);
    CHECK_EQ_INT(r->status, 0);
    CHECK_EQ_U64(r->device_clock_ns, clock + 1000000);
    CHECK_EQ_U64(r->device_ns, 1000000);
    smartssd__v1__response__free_unpacked(r, NULL);
    /* still serving: a good request after all of that */
    Smartssd__V1__BlockRequest *one[1] = { &rd };
    EXPECT_STATUS(submit_pb(d, one, 1), CSD_OK, NULL);
    r = poll_pb(d, 1, 0, 0);
    CHECK_EQ_U64(r->block_poll->n_completions, 1);
    CHECK(!memcmp(r->block_poll->completions[0]->data.data, data, sizeof data));
    smartssd__v1__response__free_unpacked(r, NULL);
    /* a thin namespace: an object takes most of the space, so a large block write completes with
     * NO_SPACE and a message, and the device serves on */
    uint64_t obj = dev_create_data(d, "big");
    uint8_t *big = calloc(200, 4096);
    dev_write(d, obj, 0, big, 200 * 4096);
    free(big);
    Smartssd__V1__BlockRequest fw = SMARTSSD__V1__BLOCK_REQUEST__INIT;
    fw.id = 5;
    fw.op = SMARTSSD__V1__BLOCK_OP__BLOCK_WRITE;
    fw.lba = 0;
    fw.count = 100;
    fw.fill = 3;
    Smartssd__V1__BlockRequest *fw1[1] = { &fw };
    EXPECT_STATUS(submit_pb(d, fw1, 1), CSD_OK, NULL);
    r = poll_pb(d, 1, 0, 0);
    CHECK_EQ_U64(r->block_poll->n_completions, 1);
    CHECK_EQ_INT(r->block_poll->completions[0]->status, CSD_NO_SPACE);
    CHECK_CONTAINS(r->block_poll->completions[0]->message, "device full");
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(submit_pb(d, one, 1), CSD_OK, NULL);
    r = poll_pb(d, 1, 0, 0);
    CHECK_EQ_INT(r->block_poll->completions[0]->status, CSD_OK);
    smartssd__v1__response__free_unpacked(r, NULL);
    csd_device_close(d);
}

static Smartssd__V1__Response *call_as(csd_device *d, uint64_t session, Smartssd__V1__Request *req) {
    size_t n = smartssd__v1__request__get_packed_size(req);
    uint8_t *b = malloc(n ? n : 1), *out;
    size_t out_len;
    smartssd__v1__request__pack(req, b);
    CHECK(csd_device_command_as(d, session, b, n, NULL, &out, &out_len) == 0);
    free(b);
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, out_len, out);
    csd_free(out);
    CHECK(r != NULL);
    return r;
}

static Smartssd__V1__Response *submit_as(csd_device *d, uint64_t session, uint64_t id0, size_t n, uint64_t arrival) {
    Smartssd__V1__BlockRequest *rq = calloc(n, sizeof *rq), **rp = calloc(n, sizeof *rp);
    for (size_t i = 0; i < n; i++) {
        smartssd__v1__block_request__init(&rq[i]);
        rq[i].id = id0 + i;
        rq[i].op = SMARTSSD__V1__BLOCK_OP__BLOCK_READ;
        rq[i].count = 1;
        rq[i].arrival_ns = arrival;
        rp[i] = &rq[i];
    }
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockSubmit bs = SMARTSSD__V1__BLOCK_SUBMIT__INIT;
    bs.n_requests = n;
    bs.requests = rp;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT;
    req.block_submit = &bs;
    Smartssd__V1__Response *r = call_as(d, session, &req);
    free(rq);
    free(rp);
    return r;
}

static Smartssd__V1__Response *poll_as(csd_device *d, uint64_t session, uint32_t min, uint64_t until) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockPoll bp = SMARTSSD__V1__BLOCK_POLL__INIT;
    bp.min_completions = min;
    bp.until_ns = until;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL;
    req.block_poll = &bp;
    return call_as(d, session, &req);
}

/* Each client session (a daemon connection) is its own queue pair: it polls only its completions;
 * the requests of a session that ends are dropped once done, and their slots come back. */
static void test_sessions(const char *dir) {
    csd_device *d = fresh(dir, 1u << 20, 0);
    uint64_t a, b;
    CHECK_EQ_INT(csd_session_begin(d, &a), 0);
    CHECK_EQ_INT(csd_session_begin(d, &b), 0);
    uint64_t t = csd_device_clock(d) + 1000000;
    Smartssd__V1__Response *r = submit_as(d, a, 100, 3, t);
    CHECK_EQ_INT(r->status, 0);
    CHECK_EQ_U64(r->block_submit->outstanding, 3);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = submit_as(d, b, 200, 2, t);
    CHECK_EQ_U64(r->block_submit->outstanding, 2);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = poll_as(d, a, 3, 0);
    CHECK_EQ_U64(r->block_poll->n_completions, 3);
    for (size_t i = 0; i < 3; i++) CHECK(r->block_poll->completions[i]->id / 100 == 1);
    CHECK_EQ_U64(r->block_poll->outstanding, 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = poll_as(d, b, 2, 0);
    CHECK_EQ_U64(r->block_poll->n_completions, 2);
    for (size_t i = 0; i < 2; i++) CHECK(r->block_poll->completions[i]->id / 100 == 2);
    smartssd__v1__response__free_unpacked(r, NULL);
    /* b fills the device's bound with requests that arrive much later, then goes away */
    uint64_t late = csd_device_clock(d) + 1000000000ull;
    r = submit_as(d, b, 0, CSD_BLOCK_MAX_OUTSTANDING, late);
    CHECK_EQ_INT(r->status, 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = submit_as(d, a, 0, 1, late);
    CHECK_EQ_INT(r->status, CSD_RESOURCE_EXHAUSTED);
    smartssd__v1__response__free_unpacked(r, NULL);
    csd_session_end(d, b);
    /* b's requests still occupy the device until they are done; then their slots are free */
    r = submit_as(d, a, 0, 1, late);
    CHECK_EQ_INT(r->status, CSD_RESOURCE_EXHAUSTED);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = poll_as(d, a, 0, late + 1000000000ull);
    CHECK_EQ_INT(r->status, 0);
    CHECK_EQ_U64(r->block_poll->n_completions, 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = submit_as(d, a, 7, 1, 0);
    CHECK_EQ_INT(r->status, 0);
    CHECK_EQ_U64(r->block_submit->outstanding, 1);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = poll_as(d, a, 1, 0);
    CHECK_EQ_U64(r->block_poll->n_completions, 1);
    CHECK_EQ_U64(r->block_poll->completions[0]->id, 7);
    smartssd__v1__response__free_unpacked(r, NULL);
    csd_session_end(d, a);
    csd_device_close(d);
}

/* A block write's hint reaches the placement policy as write_object's does (docs/HYBRID.md): on the
 * hybrid preset (placement level) hint 1 (LSM level 0) lands in an SLC-mode block, no hint in TLC. One
 * 16 KiB LBA: overhead 5000, host link ceil(16384e9 / 3938461538) = 4161, channel 40960, then the
 * program: SLC 300000, TLC 2500000. A hint on a read, or above 255, is refused with its reason. */
static void test_hint(const char *dir) {
    char path[4300], err[512];
    snprintf(path, sizeof path, "%s/hybrid.img", dir);
    unlink(path);
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "hybrid"), 0);
    CHECK(csd_format(path, 64u << 20, &p, err, sizeof err) == 0);
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    CHECK(csd_device_open(&d, path, &o, err, sizeof err) == 0);
    csd_block_info bi;
    CHECK_EQ_INT(csd_block_info_get(d, &bi, err, sizeof err), 0);
    CHECK_EQ_U64(bi.lba_bytes, 16384);
    uint64_t T0 = csd_device_clock(d);
    csd_block_req w = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 0, .count = 1, .fill = 7, .hint = 1 };
    submit_ok(d, &w, 1);
    csd_block_cpl c[2];
    poll_all(d, c, 1, NULL);
    CHECK_EQ_INT(c[0].status, 0);
    CHECK_EQ_U64(c[0].done_ns, T0 + 5000 + 4161 + 40960 + 300000);
    uint64_t T1 = c[0].done_ns;
    csd_block_req u = { .id = 0, .op = CSD_BLOCK_WRITE, .lba = 1, .count = 1, .fill = 7, .arrival_ns = T1 };
    submit_ok(d, &u, 1);
    poll_all(d, c, 1, NULL);
    CHECK_EQ_U64(c[0].done_ns, T1 + 5000 + 4161 + 40960 + 2500000);

    csd_block_req bad = { .id = 9, .op = CSD_BLOCK_WRITE, .lba = 2, .count = 1, .fill = 7, .hint = 256 };
    CHECK_EQ_INT(csd_block_submit(d, &bad, 1, err, sizeof err), CSD_INVALID_ARGUMENT);
    CHECK(strstr(err, "request 0 (id 9): hint 256 is out of range (0..255") != NULL);
    csd_block_req rd = { .id = 8, .op = CSD_BLOCK_READ, .lba = 0, .count = 1, .hint = 1 };
    CHECK_EQ_INT(csd_block_submit(d, &rd, 1, err, sizeof err), CSD_INVALID_ARGUMENT);
    CHECK(strstr(err, "request 0 (id 8): hint is for writes") != NULL);
    CHECK_EQ_U64(csd_block_outstanding(d), 0);
    csd_device_close(d);
}

int main(void) {
    const char *dir = csd_test_dir("test_block");
    test_hand_checked(dir);
    test_drs_preset(dir);
    test_hint(dir);
    test_dftl_sets(dir, "fifo", 0);
    test_dftl_sets(dir, "drs", 1);
    test_flash_queue_depth(dir);
    test_protocol(dir);
    test_crash(dir);
    test_kill(dir);
    test_sessions(dir);
    test_random(dir);
    /* the same on the map-cached FTL (1 KiB cache, its map pages moved by GC too) through the
     * command-set path and a queueing scheduler */
    g_ftl = "dftl";
    g_sched = "drs";
    test_random(dir);
    g_ftl = "page";
    g_sched = "fifo";
    TEST_OK("test_block");
}
