/* Flash-command schedulers (DRS paper V, VI-A): fifo, rcf, size, rrf, fot and drs.
 *
 * 1. A hand-checked schedule per scheduler on one chip (single channel, single way, as in the paper's
 *    setup): four requests submitted at t = 0 with known map-cache hits and misses, as command sets
 *    (flash/cmdset.h). The exact order of commands at the chip and each request's completion time
 *    are derived below from docs/TIMING-MODEL.md: with fw_page_ns = 0 a read holds the chip
 *    t_read + xfer = 60 + 10 = 70 us and completes when the chip is released; a program holds it
 *    xfer + t_prog = 10 + 700 = 710 us and completes then. The chip is never idle while a command is
 *    waiting, so each schedule is back to back.
 * 2. Randomized: thousands of mixed read / write / trim requests on a dftl image with a tiny map cache
 *    and GC, overlapping (arrivals faster than service), through cmdset and each scheduler: read-back
 *    equals an in-memory reference, the cached map agrees with the flash map pages after every
 *    request, and no command of a read (write) request waits at the scheduler longer than the read
 *    (write) deadline plus the commands that can be ahead of an expired one. */
#include "check.h"
#include "flash/cmdset.h"
#include "ftl/ftl.h"

#include <errno.h>

/* ---- a FIFO chip queue that logs the order commands start in (the chip-queue policy under the
 * flash-command scheduler; with one command handed on at a time it only records) ---- */
typedef struct logq {
    csd_flash_op *head, *tail;
    char log[4096];
    size_t len;
    uint64_t max_wait[3];   /* by csd_req_type: longest submit-to-start wait */
    uint64_t started;
} logq;

static logq *g_log;   /* the test's recorder (the device itself has no globals) */

static int logq_init(void **s, const csd_params *p, uint32_t chips) {
    (void)p;
    (void)chips;
    *s = g_log;
    return 0;
}
static void logq_enqueue(void *s, uint32_t chip, csd_flash_op *op, uint64_t now) {
    (void)chip;
    (void)now;
    logq *q = s;
    op->next = NULL;
    if (q->tail) q->tail->next = op; else q->head = op;
    q->tail = op;
}
static const char *ROLE[] = { "GC", "MR", "MP", "MR", "D" };
static csd_flash_op *logq_next(void *s, uint32_t chip, uint64_t now) {
    (void)chip;
    logq *q = s;
    csd_flash_op *op = q->head;
    if (!op) return NULL;
    q->head = op->next;
    if (!q->head) q->tail = NULL;
    if (op->req_type <= 2 && now - op->submit_ns > q->max_wait[op->req_type]) q->max_wait[op->req_type] = now - op->submit_ns;
    q->started++;
    if (q->len + 16 < sizeof q->log)
        q->len += (size_t)snprintf(q->log + q->len, sizeof q->log - q->len, "%s%s%s%llu", q->len ? " " : "",
                                   ROLE[op->role], op->role == CSD_ROLE_DATA ? (op->kind == CSD_FLASH_READ ? "R" : "P") : "",
                                   (unsigned long long)op->req_id);
    return op;
}
static void logq_destroy(void *s) { (void)s; }
static const csd_chip_sched_ops logq_ops = { .name = "log", .init = logq_init, .enqueue = logq_enqueue,
                                             .next = logq_next, .destroy = logq_destroy };

static void paper_params(csd_params *p) {
    CHECK(csd_params_preset(p, "tiny") == 0);
    p->channels = 1;
    p->chips_per_channel = 1;
    p->t_read_ns = 60000;             /* DRS paper VI-A */
    p->t_prog_ns = 700000;
    p->channel_bytes_per_s = 409600000;   /* a 4 KiB page in 10 us */
    p->fw_page_ns = 0;
}

static void req_done(csd_hreq *r, uint64_t t) { (void)r; (void)t; }

/* ---- 1. hand-checked schedules ---- */
typedef struct expect { const char *name, *order; uint64_t done_us[4]; } expect;

static void hand(const expect *x) {
    csd_params p;
    paper_params(&p);
    p.blocks_per_plane = 64;
    logq lq = { 0 };
    g_log = &lq;
    csd_sim *sim = csd_sim_create();
    csd_flash *f;
    char err[256];
    CHECK_EQ_INT(csd_flash_create_with(&f, &p, sim, &logq_ops, csd_fcmd_find(x->name), err, sizeof err), 0);
    csd_cmdset *cs;
    CHECK_EQ_INT(csd_cmdset_create(&cs, f), 0);
    /* Req 1: write of one page, map-cache miss: MR (tag 1, fetch of the line) then DP.
     * Req 2: read of three pages, all hits on cached lines: DR x 3.
     * Req 3: read of one page, miss: MR (tag 2) then DR.
     * Req 4: read of one page, a hit on Req 1's line whose fetch (tag 1) is in flight: DR, delayed
     * by Req 1's MR (CLF-delayed, V-C). */
    csd_flash_req w1[] = { { .kind = CSD_FLASH_PROGRAM, .ppn = 1, .role = CSD_ROLE_DATA, .set = 1 },
                           { .kind = CSD_FLASH_READ, .ppn = 2, .role = CSD_ROLE_CLF_MR, .set = 1, .tag = 1 } };
    csd_flash_req r2[] = { { .kind = CSD_FLASH_READ, .ppn = 3, .role = CSD_ROLE_DATA, .set = 1 },
                           { .kind = CSD_FLASH_READ, .ppn = 4, .role = CSD_ROLE_DATA, .set = 2 },
                           { .kind = CSD_FLASH_READ, .ppn = 5, .role = CSD_ROLE_DATA, .set = 3 } };
    csd_flash_req r3[] = { { .kind = CSD_FLASH_READ, .ppn = 6, .role = CSD_ROLE_CLF_MR, .set = 1, .tag = 2 },
                           { .kind = CSD_FLASH_READ, .ppn = 7, .role = CSD_ROLE_DATA, .set = 1 } };
    csd_flash_req r4[] = { { .kind = CSD_FLASH_READ, .ppn = 8, .role = CSD_ROLE_DATA, .set = 2, .wait = 1,
                             .wait_kind = CSD_DELAY_CLF } };
    csd_flash_batch b[4] = { { w1, 2, 2 }, { r2, 3, 3 }, { r3, 2, 2 }, { r4, 1, 1 } };
    csd_hreq r[4] = { { .type = CSD_REQ_WRITE, .pages = 1, .id = 1, .done = req_done },
                      { .type = CSD_REQ_READ, .pages = 3, .id = 2, .done = req_done },
                      { .type = CSD_REQ_READ, .pages = 1, .id = 3, .done = req_done },
                      { .type = CSD_REQ_READ, .pages = 1, .id = 4, .done = req_done } };
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(csd_cmdset_submit(cs, &r[i], &b[i]), 0);
    /* FOTs (V-B-2): Req 1 MR + DP = 70 + 710; Req 2 3 x 70; Req 3 MR + DR; Req 4 its DR plus the
     * delaying MR */
    CHECK_EQ_U64(r[0].fot_ns, 780000);
    CHECK_EQ_U64(r[1].fot_ns, 210000);
    CHECK_EQ_U64(r[2].fot_ns, 140000);
    CHECK_EQ_U64(r[3].fot_ns, 140000);
    while (csd_sim_step(sim)) {}
    if (strcmp(lq.log, x->order)) fprintf(stderr, "%s: order %s\n", x->name, lq.log);
    CHECK_STR(lq.log, x->order);
    for (int i = 0; i < 4; i++) {
        if (r[i].done_ns != x->done_us[i] * 1000)
            fprintf(stderr, "%s: request %d done at %llu ns\n", x->name, i + 1, (unsigned long long)r[i].done_ns);
        CHECK_EQ_U64(r[i].done_ns, x->done_us[i] * 1000);
    }
    csd_cmdset_destroy(cs);
    csd_flash_destroy(f);
    csd_sim_destroy(sim);
}

static const expect EXPECT[] = {
    /* fifo: arrival order into the chip queue. MR1 0-70; at 70 Req 4's DR and Req 1's DP arrive
     * (the DP after its firmware step, an event later at the same instant), behind the three DRs of
     * Req 2 (70-280) and Req 3's MR (280-350); then DR4 350-420, DP1 420-1130, Req 3's DR (arrived
     * at 350) 1130-1200 */
    { "fifo", "MR1 DR2 DR2 DR2 MR3 DR4 DP1 DR3", { 1130, 280, 1200, 420 } },
    /* rcf: reads first, each class in arrival order: MR1 0-70, DR2 x3 70-280, MR3 280-350, DR4
     * (arrived at 70) 350-420, DR3 (arrived at 350) 420-490, the program last 490-1200 */
    { "rcf", "MR1 DR2 DR2 DR2 MR3 DR4 DR3 DP1", { 1200, 280, 490, 420 } },
    /* size: reads of smaller requests first: MR1 (1 page, first in) 0-70, MR3 (1 page) 70-140, DR4
     * (1 page, arrived at 70) 140-210, DR3 (1 page, arrived at 140) 210-280, Req 2's three
     * 280-490, DP1 490-1200 */
    { "size", "MR1 MR3 DR4 DR3 DR2 DR2 DR2 DP1", { 1200, 490, 280, 210 } },
    /* rrf: the read requests' commands (RRQ) first, in arrival order: DR2 x3 0-210, MR3 210-280,
     * DR3 280-350; then Req 1's MR (WRQ) 350-420, which lets Req 4's DR in (RRQ) 420-490; DP1 last */
    { "rrf", "DR2 DR2 DR2 MR3 DR3 MR1 DR4 DP1", { 1200, 210, 350, 490 } },
    /* fot: RRQ by the request's own FOT: Req 3 (140) MR 0-70, DR 70-140; Req 2 (210) 140-350; then
     * the WRQ's MR1 350-420; DR4 420-490; DP1 490-1200 */
    { "fot", "MR3 DR3 DR2 DR2 DR2 MR1 DR4 DP1", { 1200, 350, 140, 490 } },
    /* drs: Req 4 (read, FOT 140) is delayed by MR1, so MR1's reqInfo[2] is Req 4's: it is an RRQ
     * command of FOT 140, re-placed behind MR3 (equal FOT, inserted earlier). MR3 0-70; MR1 70-140
     * (Algorithm 2: past the fetch, Req 1's DP is a WRQ command again); DR3 (in at 70) 140-210; DR4
     * (in at 140) 210-280; Req 2 280-490; DP1 490-1200 */
    { "drs", "MR3 MR1 DR3 DR4 DR2 DR2 DR2 DP1", { 1200, 490, 210, 280 } },
};

/* ---- the same through the FTL: command sets as dftl produces them ----
 * One chip, 2 cache lines of 4 entries, an object of 16 pages written and the image reopened (empty
 * cache, map page 0 on flash). At t = 0, in this order: A reads page 0 (miss: MR of line 0, DR);
 * B reads page 1 (a hit on line 0, whose fetch is A's MR in flight: DR, CLF-delayed); C writes page 8
 * (miss, a free line: MR of line 2, DP); D reads page 12 (miss: the LRU victim is line 0, clean: MR
 * of line 3, DR). FOTs: A 140, B 70 + 70 (A's MR) = 140, C 780, D 140 us. */
typedef struct ftl_expect { const char *name, *order; uint64_t done_us[4]; } ftl_expect;

static void through_ftl(const char *img, const ftl_expect *x) {
    csd_params p;
    paper_params(&p);
    snprintf(p.ftl, sizeof p.ftl, "dftl");
    p.map_cache_bytes = 64;
    p.map_cache_line_entries = 4;
    char err[256];
    CHECK(csd_ftl_format(img, 512u * 1024u, &p, err, sizeof err) == 0);
    csd_ftl *ftl;
    CHECK(csd_ftl_open(&ftl, img, &p, err, sizeof err) == 0);
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_create(ftl, "o", &id), 0);
    uint8_t *buf = calloc(16, p.page_bytes);
    CHECK_EQ_INT(csd_ftl_write(ftl, id, 0, buf, 16 * p.page_bytes, NULL), 0);
    CHECK_EQ_INT(csd_ftl_close(ftl), 0);
    CHECK(csd_ftl_open(&ftl, img, &p, err, sizeof err) == 0);
    logq lq = { 0 };
    g_log = &lq;
    csd_sim *sim = csd_sim_create();
    csd_flash *f;
    CHECK_EQ_INT(csd_flash_create_with(&f, &p, sim, &logq_ops, csd_fcmd_find(x->name), err, sizeof err), 0);
    csd_cmdset *cs;
    CHECK_EQ_INT(csd_cmdset_create(&cs, f), 0);
    csd_flash_batch b[4] = { { 0 } };
    const uint32_t pb = p.page_bytes;
    CHECK_EQ_INT(csd_ftl_read(ftl, id, 0, buf, pb, &b[0]), 0);
    CHECK_EQ_INT(csd_ftl_read(ftl, id, pb, buf, pb, &b[1]), 0);
    CHECK_EQ_INT(csd_ftl_write(ftl, id, 8 * pb, buf, pb, &b[2]), 0);
    CHECK_EQ_INT(csd_ftl_read(ftl, id, 12 * pb, buf, pb, &b[3]), 0);
    static const size_t nops[4] = { 2, 1, 2, 2 };
    for (int i = 0; i < 4; i++) CHECK_EQ_U64(b[i].n, nops[i]);
    CHECK_EQ_U64(b[1].ops[0].wait, b[0].ops[0].tag);   /* B waits for A's fetch */
    csd_hreq r[4] = { { .type = CSD_REQ_READ, .pages = 1, .id = 1, .done = req_done },
                      { .type = CSD_REQ_READ, .pages = 1, .id = 2, .done = req_done },
                      { .type = CSD_REQ_WRITE, .pages = 1, .id = 3, .done = req_done },
                      { .type = CSD_REQ_READ, .pages = 1, .id = 4, .done = req_done } };
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(csd_cmdset_submit(cs, &r[i], &b[i]), 0);
    static const uint64_t fot[4] = { 140000, 140000, 780000, 140000 };
    for (int i = 0; i < 4; i++) CHECK_EQ_U64(r[i].fot_ns, fot[i]);
    while (csd_sim_step(sim)) {}
    if (strcmp(lq.log, x->order)) fprintf(stderr, "%s through the FTL: order %s\n", x->name, lq.log);
    CHECK_STR(lq.log, x->order);
    for (int i = 0; i < 4; i++) {
        if (r[i].done_ns != x->done_us[i] * 1000)
            fprintf(stderr, "%s through the FTL: request %d done at %llu ns\n", x->name, i + 1,
                    (unsigned long long)r[i].done_ns);
        CHECK_EQ_U64(r[i].done_ns, x->done_us[i] * 1000);
    }
    for (int i = 0; i < 4; i++) csd_flash_batch_free(&b[i]);
    free(buf);
    csd_cmdset_destroy(cs);
    csd_flash_destroy(f);
    csd_sim_destroy(sim);
    CHECK_EQ_INT(csd_ftl_close(ftl), 0);
}

static const ftl_expect FTL_EXPECT[] = {
    /* fifo: MR_A, MR_C, MR_D queue at 0. MR_A 0-70 releases DR_A and DR_B; MR_C 70-140, its DP
     * queues at 140 (after the firmware step); MR_D 140-210, DR_D queues at 210. DR_A 210-280,
     * DR_B 280-350, DP_C 350-1060, DR_D 1060-1130 */
    { "fifo", "MR1 MR3 MR4 DR1 DR2 DP3 DR4", { 280, 350, 1060, 1130 } },
    /* drs: RRQ MR_A and MR_D (FOT 140; B's joining leaves MR_A's reqInfo as it is: equal FOT), WRQ
     * MR_C. MR_A 0-70; MR_D (inserted before DR_A and DR_B, equal FOT) 70-140; DR_A 140-210, DR_B
     * 210-280, DR_D 280-350; then the WRQ: MR_C 350-420, DP_C 420-1130 */
    { "drs", "MR1 MR4 DR1 DR2 DR4 MR3 DP3", { 210, 280, 1130, 350 } },
};

/* ---- deadlines: a command starved by a stream of better ones goes first once it has waited the
 * deadline (rrf: write 5 s, V-A; fot: read 500 ms, V-B-2) ---- */
typedef struct stream {
    csd_cmdset *cs;
    csd_flash *f;
    csd_sim *sim;
    csd_hreq *reqs;
    csd_flash_req *ops;
    uint64_t n, next, until_ns;
} stream;

static void stream_ev(csd_sim *sim, void *arg) {
    stream *st = arg;
    uint64_t k = st->next++;
    st->ops[k] = (csd_flash_req){ .kind = CSD_FLASH_READ, .ppn = 10 + k % 50, .role = CSD_ROLE_DATA, .set = 1 };
    csd_flash_batch b = { &st->ops[k], 1, 1 };
    st->reqs[k] = (csd_hreq){ .type = CSD_REQ_READ, .pages = 1, .id = 100 + k, .done = req_done };
    CHECK_EQ_INT(csd_cmdset_submit(st->cs, &st->reqs[k], &b), 0);
    uint64_t t = csd_sim_now(sim) + 70000;
    if (st->next < st->n && t < st->until_ns) CHECK_EQ_INT(csd_sim_at(sim, t, stream_ev, st), 0);
}

/* One starved request (a write of one page for rrf, a two-page read for fot) at t = 0 beside a read
 * of one page every 70 us (the chip never runs dry of better commands): returns its completion. */
static uint64_t starved(const char *sched, int write, uint64_t until_ns) {
    csd_params p;
    paper_params(&p);
    p.blocks_per_plane = 64;
    logq lq = { 0 };
    g_log = &lq;
    csd_sim *sim = csd_sim_create();
    csd_flash *f;
    char err[256];
    CHECK_EQ_INT(csd_flash_create_with(&f, &p, sim, &logq_ops, csd_fcmd_find(sched), err, sizeof err), 0);
    csd_cmdset *cs;
    CHECK_EQ_INT(csd_cmdset_create(&cs, f), 0);
    csd_flash_req mine[2] = { { .kind = write ? CSD_FLASH_PROGRAM : CSD_FLASH_READ, .ppn = 1, .role = CSD_ROLE_DATA, .set = 1 },
                              { .kind = CSD_FLASH_READ, .ppn = 2, .role = CSD_ROLE_DATA, .set = 2 } };
    csd_flash_batch b = { mine, write ? 1 : 2, 2 };
    csd_hreq r = { .type = write ? CSD_REQ_WRITE : CSD_REQ_READ, .pages = write ? 1 : 2, .id = 1, .done = req_done };
    stream st = { cs, f, sim, NULL, NULL, until_ns / 70000 + 2, 0, until_ns };
    st.reqs = calloc(st.n, sizeof *st.reqs);
    st.ops = calloc(st.n, sizeof *st.ops);
    CHECK(st.reqs && st.ops);
    CHECK_EQ_INT(csd_cmdset_submit(cs, &r, &b), 0);
    CHECK_EQ_INT(csd_sim_at(sim, 0, stream_ev, &st), 0);
    while (csd_sim_step(sim)) {}
    csd_cmdset_destroy(cs);
    csd_flash_destroy(f);
    csd_sim_destroy(sim);
    free(st.reqs);
    free(st.ops);
    return r.done_ns;
}

static void deadlines(void) {
    /* rrf: the chip is handed a 70 us read at every multiple of 70 us; the write's DP has waited 5 s
     * at the first decision at or after 5 s: ceil(5e9 / 70000) = 71429 -> 5,000,030,000 ns; it
     * completes 710 us later */
    CHECK_EQ_U64(starved("rrf", 1, 5200000000ull), 5000030000ull + 710000);
    /* fot: the two-page read (FOT 140 us) loses to every one-page read (70 us) until its commands
     * expire at 500 ms: first decision at or after is 7143 x 70 us = 500,010,000 ns; both its reads
     * (expired, oldest first) then run back to back: done at 500,010,000 + 140,000 */
    CHECK_EQ_U64(starved("fot", 0, 520000000ull), 500010000ull + 140000);
    /* without a deadline (rcf) the write waits for the whole stream */
    CHECK(starved("rcf", 1, 200000000ull) >= 200000000ull);
}

/* ---- 2. randomized invariants ---- */
typedef struct rq {
    csd_hreq h;
    int busy;
} rq;

static void rq_done(csd_hreq *h, uint64_t t) {
    (void)t;
    ((rq *)h->arg)->busy = 0;
}

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void randomized(const char *img, const char *sched) {
    csd_params p;
    paper_params(&p);
    snprintf(p.ftl, sizeof p.ftl, "dftl");
    p.map_cache_bytes = 256;          /* 8 lines of 4 entries */
    p.map_cache_line_entries = 4;
    p.pages_per_block = 16;
    char err[256];
    CHECK(csd_ftl_format(img, 384u * 1024u, &p, err, sizeof err) == 0);
    csd_ftl *ftl;
    CHECK(csd_ftl_open(&ftl, img, &p, err, sizeof err) == 0);
    logq lq = { 0 };
    g_log = &lq;
    csd_sim *sim = csd_sim_create();
    csd_flash *f;
    CHECK_EQ_INT(csd_flash_create_with(&f, &p, sim, &logq_ops, csd_fcmd_find(sched), err, sizeof err), 0);
    csd_cmdset *cs;
    CHECK_EQ_INT(csd_cmdset_create(&cs, f), 0);
    const uint32_t pb = p.page_bytes, NP = 40;
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_create(ftl, "o", &id), 0);
    uint8_t *ref = calloc(NP, pb), *buf = malloc((size_t)NP * pb);
    CHECK(ref && buf);
    uint64_t size = 0, s = 7, t = 0;
    enum { NREQ = 3000, SLOTS = 512 };
    rq *slot = calloc(SLOTS, sizeof *slot);
    csd_flash_batch b = { 0 };
    uint64_t reads = 0, writes = 0;
    for (int k = 0; k < NREQ; k++) {
        /* arrivals every 0..3 ms: bursts overlap and queue (a program holds the chip 0.71 ms) */
        t += rnd(&s) % 3000000;
        uint64_t nt;
        while (csd_sim_peek(sim, &nt) && nt <= t) csd_sim_step(sim);
        csd_sim_advance(sim, t);
        rq *r = NULL;
        for (int i = 0; i < SLOTS && !r; i++)
            if (!slot[i].busy) r = &slot[i];
        if (!r) fprintf(stderr, "%s: no free slot at request %d\n", sched, k);
        CHECK(r);
        csd_flash_batch_clear(&b);
        int what = (int)(rnd(&s) % 10);
        uint64_t np = size / pb, at, n;
        uint8_t type;
        if (what < 4 || np == 0) {
            at = rnd(&s) % (np + 1);
            n = 1 + rnd(&s) % 4;
            if (at + n > NP) n = NP - at;
            for (uint64_t i = 0; i < n * pb; i++) buf[i] = (uint8_t)rnd(&s);
            CHECK_EQ_INT(csd_ftl_write(ftl, id, at * pb, buf, n * pb, &b), 0);
            memcpy(ref + at * pb, buf, n * pb);
            if ((at + n) * pb > size) size = (at + n) * pb;
            type = CSD_REQ_WRITE;
            writes++;
        } else if (what < 5) {
            at = rnd(&s) % np;
            n = 1 + rnd(&s) % 2;
            if (at + n > np) n = np - at;
            CHECK_EQ_INT(csd_ftl_trim(ftl, id, at * pb, n * pb, &b), 0);
            memset(ref + at * pb, 0, n * pb);
            type = CSD_REQ_WRITE;
        } else {
            at = rnd(&s) % np;
            n = 1 + rnd(&s) % 8;
            if (at + n > np) n = np - at;
            CHECK_EQ_INT(csd_ftl_read(ftl, id, at * pb, buf, n * pb, &b), 0);
            CHECK(memcmp(buf, ref + at * pb, n * pb) == 0);
            type = CSD_REQ_READ;
            reads++;
        }
        char e[256] = "";
        if (csd_ftl_map_check(ftl, e, sizeof e)) fprintf(stderr, "%s request %d: %s\n", sched, k, e);
        CHECK_EQ_INT(csd_ftl_map_check(ftl, e, sizeof e), 0);
        r->h = (csd_hreq){ .type = type, .pages = n, .id = (uint64_t)k + 1, .done = rq_done, .arg = r };
        r->busy = 1;
        CHECK_EQ_INT(csd_cmdset_submit(cs, &r->h, &b), 0);
    }
    while (csd_sim_step(sim)) {}
    for (int i = 0; i < SLOTS; i++) CHECK(!slot[i].busy);   /* every request completed */
    CHECK_EQ_INT(csd_ftl_read(ftl, id, 0, buf, size, NULL), 0);
    CHECK(memcmp(buf, ref, size) == 0);
    csd_ftl_counters c;
    csd_ftl_counters_get(ftl, &c);
    CHECK(c.gc_runs > 0);
    CHECK(lq.started >= 3000);
    /* an expired command goes first but still waits for the command in service and the other expired
     * ones: bounded here by 64 programs */
    uint64_t slack = 64ull * 710000;
    const int has_rd = !strcmp(sched, "fot") || !strcmp(sched, "drs");
    const int has_wd = has_rd || !strcmp(sched, "rrf");
    fprintf(stderr, "%s: %llu reads, %llu writes, %llu commands, GC runs %llu, longest wait: read %llu us, write %llu us\n",
            sched, (unsigned long long)reads, (unsigned long long)writes, (unsigned long long)lq.started,
            (unsigned long long)c.gc_runs, (unsigned long long)lq.max_wait[CSD_REQ_READ] / 1000,
            (unsigned long long)lq.max_wait[CSD_REQ_WRITE] / 1000);
    if (has_rd) CHECK(lq.max_wait[CSD_REQ_READ] <= 500000000ull + slack);
    if (has_wd) CHECK(lq.max_wait[CSD_REQ_WRITE] <= 5000000000ull + slack);
    csd_flash_batch_free(&b);
    free(slot);
    free(ref);
    free(buf);
    csd_cmdset_destroy(cs);
    csd_flash_destroy(f);
    csd_sim_destroy(sim);
    CHECK_EQ_INT(csd_ftl_close(ftl), 0);
}

int main(void) {
    for (size_t i = 0; i < sizeof EXPECT / sizeof EXPECT[0]; i++) hand(&EXPECT[i]);
    deadlines();
    const char *dir = csd_test_dir("test_fcmd");
    char img[4200];
    snprintf(img, sizeof img, "%s/fcmd.img", dir);
    for (size_t i = 0; i < sizeof FTL_EXPECT / sizeof FTL_EXPECT[0]; i++) through_ftl(img, &FTL_EXPECT[i]);
    for (size_t i = 0; csd_fcmd_at(i); i++) randomized(img, csd_fcmd_at(i)->name);   /* every registered one */
    unlink(img);
    rmdir(dir);
    TEST_OK("test_fcmd");
}
