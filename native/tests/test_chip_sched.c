/* Chip-queue policies of the 2PM paper (section IV) and its baselines: hand-checked schedules on two
 * chips, and randomized checks of the anti-starvation bound, of the sub-request queue size, and that
 * two-stage answers do not depend on the policy.
 *
 * The hand-checked device: 2 (or 3) channels x 1 chip (no channel is shared), t_read 10000, one page
 * on a channel 10000, t_prog 100000, no firmware cost: a read holds its chip 20000 and completes when
 * its transfer ends; a program holds it 110000 (transfer in, then the program). */
#include "check.h"
#include "flash/chip_queue.h"
#include "flash/flash.h"
#include "engine/engine.h"
#include "runtime/exec.h"

#include <errno.h>

typedef struct op_rec {
    csd_flash_op op;
    const char *name;
    uint64_t done;
} op_rec;

typedef struct harness {
    csd_params p;
    csd_sim *sim;
    csd_flash *f;
    op_rec ops[64];
    int n;
    char order[3][256];            /* per chip: names in completion order */
} harness;

static void on_done(csd_flash_op *op, uint64_t t) {
    harness *h = op->arg;
    op_rec *r = (op_rec *)op;
    CHECK(r->done == 0);
    r->done = t;
    uint32_t chip = csd_flash_chip_of(h->f, op);
    char *o = h->order[chip];
    if (*o) strcat(o, " ");
    strcat(o, r->name);
}

static uint32_t h_suspend;   /* flash_suspend of the next harness */

static void h_init_n(harness *h, const char *policy, uint32_t slots, uint32_t max_passes, uint32_t chips) {
    memset(h, 0, sizeof *h);
    CHECK_EQ_INT(csd_params_preset(&h->p, "tiny"), 0);
    h->p.channels = chips;
    h->p.chips_per_channel = 1;
    h->p.blocks_per_plane = 16;
    h->p.fw_page_ns = 0;
    h->p.chip_queue_slots = slots;
    h->p.chip_max_passes = max_passes;
    h->p.flash_suspend = h_suspend;
    snprintf(h->p.chip_scheduler, sizeof h->p.chip_scheduler, "%s", policy);
    h->sim = csd_sim_create();
    char err[256];
    CHECK_EQ_INT(csd_flash_create(&h->f, &h->p, h->sim, err, sizeof err), 0);
}

static void h_init(harness *h, const char *policy, uint32_t slots, uint32_t max_passes) {
    h_init_n(h, policy, slots, max_passes, 2);
}

static void h_free(harness *h) {
    csd_flash_destroy(h->f);
    csd_sim_destroy(h->sim);
}

static uint64_t ppn_on(const harness *h, uint32_t chip, uint32_t page) {
    csd_addr a = { .channel = chip, .chip = 0, .block = 1, .page = page };
    return csd_ppn_encode(&h->p, &a);
}

/* An operation to submit: at, kind, chip, source, owner (a name). */
typedef struct plan { uint64_t at; const char *name; uint8_t kind; uint32_t chip; uint8_t src; const char *owner; } plan;

/* owners are identified by the address of their name's first character */
typedef struct submit_ev { harness *h; const plan *pl; size_t n; } submit_ev;

static void submit_now(csd_sim *sim, void *arg) {
    submit_ev *s = arg;
    harness *h = s->h;
    for (size_t i = 0; i < s->n; i++) {
        const plan *pl = &s->pl[i];
        if (pl->at != csd_sim_now(sim)) continue;
        op_rec *r = &h->ops[h->n++];
        r->name = pl->name;
        r->op = (csd_flash_op){ .kind = pl->kind, .src = pl->src, .ppn = ppn_on(h, pl->chip, (uint32_t)h->n),
                                .owner = (void *)pl->owner, .done = on_done, .arg = h };
        csd_flash_submit(h->f, &r->op);
    }
}

typedef struct reorder_ev { harness *h; const char *owner; uint8_t match; } reorder_ev;

static void reorder_now(csd_sim *sim, void *arg) {
    reorder_ev *r = arg;
    (void)sim;
    csd_flash_reorder(r->h->f, r->owner, r->match);
}

static uint64_t done_of(const harness *h, const char *name) {
    for (int i = 0; i < h->n; i++)
        if (!strcmp(h->ops[i].name, name)) return h->ops[i].done;
    CHECK(!"no such op");
    return 0;
}

/* The scenario every policy runs:
 *   t=0     host programs W1, W2 on chip 0 (W1 starts at once: 0..110000)
 *   t=1000  request A: reads A0 (chip 0, its first page), A1 (chip 1); request B: B0 (chip 0), B1 (chip 1)
 *   t=2000  the result analyzer reports that B matched */
static const char W1[] = "W1", W2[] = "W2", A[] = "A", B[] = "B";
static const plan SCENARIO[] = {
    { 0, "W1", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W1 },
    { 0, "W2", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W2 },
    { 1000, "A0", CSD_FLASH_READ, 0, CSD_SRC_ISP, A },
    { 1000, "A1", CSD_FLASH_READ, 1, CSD_SRC_ISP, A },
    { 1000, "B0", CSD_FLASH_READ, 0, CSD_SRC_ISP, B },
    { 1000, "B1", CSD_FLASH_READ, 1, CSD_SRC_ISP, B },
};

typedef struct reorder_plan { uint64_t at; const char *owner; uint8_t match; } reorder_plan;

static void run_plan(harness *h, const plan *pl, size_t n, const reorder_plan *ro, size_t nro) {
    submit_ev s = { h, pl, n };
    reorder_ev r[8];
    CHECK(nro <= 8);
    uint64_t last = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (pl[i].at == last) continue;
        last = pl[i].at;
        CHECK_EQ_INT(csd_sim_at(h->sim, pl[i].at, submit_now, &s), 0);
    }
    for (size_t i = 0; i < nro; i++) {
        r[i] = (reorder_ev){ h, ro[i].owner, ro[i].match };
        CHECK_EQ_INT(csd_sim_at(h->sim, ro[i].at, reorder_now, &r[i]), 0);
    }
    while (csd_sim_step(h->sim)) {}
    CHECK_EQ_INT(h->n, (int)n);
}

static void run_scenario(harness *h) {
    static const reorder_plan RO[] = { { 2000, B, CSD_MATCH_MATCHED } };
    run_plan(h, SCENARIO, sizeof SCENARIO / sizeof SCENARIO[0], RO, 1);
}

typedef struct expect {
    const char *policy;
    const char *chip0, *chip1;     /* completion order */
    uint64_t a0, a1, b0, b1, w2;   /* completion times */
} expect;

static void test_hand_checked(void) {
    static const expect E[] = {
        /* fcfs: chip 0 serves W1, W2 (110000..220000), A0 ..240000, B0 ..260000; chip 1 A1 1000..21000,
         * B1 ..41000. A ends at 240000, B at 260000. */
        { "fcfs", "W1 W2 A0 B0", "A1 B1", 240000, 21000, 260000, 41000, 220000 },
        /* 2pm: the reads pass W2 (read priority) and queue A0 B0 W2 in age order; at 2000 B matched, so
         * B0 moves ahead of A0: B0 110000..130000, A0 ..150000, W2 ..260000. B ends at 130000 (was
         * 260000), A at 150000. */
        { "2pm", "W1 B0 A0 W2", "A1 B1", 150000, 21000, 130000, 41000, 260000 },
        /* 2pm+: slack at 1000: chip 0 ends at 220000 (W1's rest + W2), chip 1 is idle; with the group's
         * own reads and A's before B's, A0 and B0 have slack 0, A1 and B1 219000. On chip 0 A0 and B0
         * pass W2 (priority). On chip 1, B1 arrives behind A1 and passes it (219000 > a read's 20000):
         * B1 1000..21000, A1 ..41000; A1 has been pushed back, so A0 is the last of A's sub-requests
         * nothing has passed. At 2000 B matched, but A has no first-stage result and none of its
         * sub-requests has started: A0 may not be passed too (IV-D). At 21000 A1 starts, the guard lifts
         * and B0 moves ahead of A0 then: B0 110000..130000, A0 ..150000. */
        { "2pm+", "W1 B0 A0 W2", "B1 A1", 150000, 41000, 130000, 21000, 260000 },
        /* paq: conflict-free groups, no read priority. W2 is released when W1 starts (chip 0 has nothing
         * released waiting then); A conflicts with W2 on chip 0, so A1 waits too (A reserves chip 1, so
         * B cannot take it either): A is released when W2 starts at 110000 (A1 110000..130000), B when
         * A0 starts at 220000 (B1 220000..240000); chip 0: A0 ..240000, B0 ..260000. */
        { "paq", "W1 W2 A0 B0", "A1 B1", 240000, 130000, 260000, 240000, 220000 },
        /* readfirst (the 2PM basic rules alone): reads first, then the oldest: A0 B0 pass W2 */
        { "readfirst", "W1 A0 B0 W2", "A1 B1", 130000, 21000, 150000, 41000, 260000 },
        /* slacker: paq's order, and slack as in 2pm+: chip 0 as paq (A0 and B0 have no slack); on chip 1
         * B1 passes A1 (slack 219000) */
        { "slacker", "W1 A0 B0 W2", "B1 A1", 130000, 41000, 150000, 21000, 260000 },
        /* cars: reads first, sources in turn among them: only the tasklet source has reads, oldest
         * first (A0, B0); then the host's W2 */
        { "cars", "W1 A0 B0 W2", "A1 B1", 130000, 21000, 150000, 41000, 260000 },
        /* flin: no history yet, every flow is low-intensity, so arrival order within reads and within
         * programs; stage 3 at 110000: A0 waited 109000 for a 20000 service, W2 110000 for 110000, so the
         * read goes; again at 130000 (B0), then W2 */
        { "flin", "W1 A0 B0 W2", "A1 B1", 130000, 21000, 150000, 41000, 260000 },
    };
    for (size_t i = 0; i < sizeof E / sizeof E[0]; i++) {
        harness h;
        h_init(&h, E[i].policy, 0, 8);
        run_scenario(&h);
        if (strcmp(h.order[0], E[i].chip0) || strcmp(h.order[1], E[i].chip1)) {
            fprintf(stderr, "%s: chip 0 '%s' chip 1 '%s', expected '%s' / '%s'\n", E[i].policy, h.order[0],
                    h.order[1], E[i].chip0, E[i].chip1);
            exit(1);
        }
        CHECK_EQ_U64(done_of(&h, "W1"), 110000);
        CHECK_EQ_U64(done_of(&h, "A0"), E[i].a0);
        CHECK_EQ_U64(done_of(&h, "A1"), E[i].a1);
        CHECK_EQ_U64(done_of(&h, "B0"), E[i].b0);
        CHECK_EQ_U64(done_of(&h, "B1"), E[i].b1);
        CHECK_EQ_U64(done_of(&h, "W2"), E[i].w2);
        h_free(&h);
    }
}


/* The sub-request queue size and the pass bound, on the same scenario. */
static void test_slots_and_bound(void) {
    harness h;
    /* 2pm with one slot per chip: W2 holds chip 0's only slot from 0, so A0 and B0 wait outside in
     * arrival order and cannot be reordered; W2 goes first (read priority defeated): FCFS times */
    h_init(&h, "2pm", 1, 0);
    run_scenario(&h);
    CHECK_STR(h.order[0], "W1 W2 A0 B0");
    CHECK_EQ_U64(done_of(&h, "A0"), 240000);
    CHECK_EQ_U64(done_of(&h, "B0"), 260000);
    h_free(&h);
    /* two slots: W2 and A0 are in, B0 waits; A0 passes W2; at 110000 chip 0 takes A0 and B0 enters,
     * already matched, and passes W2: W1 A0 B0 W2 */
    h_init(&h, "2pm", 2, 0);
    run_scenario(&h);
    CHECK_STR(h.order[0], "W1 A0 B0 W2");
    CHECK_EQ_U64(done_of(&h, "B0"), 150000);
    h_free(&h);
    /* 2pm+ with one pass at most: a read passing programs is read priority, not counted, and A0 and A1
     * are passed once each, so the scenario runs as with 8: B0 moves ahead of A0 when A1 starts */
    h_init(&h, "2pm+", 0, 1);
    run_scenario(&h);
    CHECK_STR(h.order[0], "W1 B0 A0 W2");
    CHECK_EQ_U64(done_of(&h, "B0"), 130000);
    h_free(&h);
    /* The bound on swaps: three one-page requests on chip 0 behind W1, all found mismatched at 1500 (so
     * the guard of IV-D (a) does not hold them). At 2000 D matched and moves ahead of C0 and A0 (one
     * swap each); at 3000 C matched: with a bound of one, A0 may not be passed again (W1 D0 A0 C0);
     * unbounded, or under 2pm, C0 passes it. */
    static const char C[] = "C", D[] = "D";
    static const plan THREE[] = {
        { 0, "W1", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W1 },
        { 1000, "A0", CSD_FLASH_READ, 0, CSD_SRC_ISP, A },
        { 1000, "C0", CSD_FLASH_READ, 0, CSD_SRC_ISP, C },
        { 1000, "D0", CSD_FLASH_READ, 0, CSD_SRC_ISP, D },
    };
    static const reorder_plan RO[] = { { 1500, A, CSD_MATCH_MISMATCHED }, { 1500, C, CSD_MATCH_MISMATCHED },
                                       { 1500, D, CSD_MATCH_MISMATCHED }, { 2000, D, CSD_MATCH_MATCHED },
                                       { 3000, C, CSD_MATCH_MATCHED } };
    struct { const char *policy; uint32_t bound; const char *order; uint64_t a0, c0, d0; } cases[] = {
        { "2pm+", 1, "W1 D0 A0 C0", 150000, 170000, 130000 },
        { "2pm+", 0, "W1 D0 C0 A0", 170000, 150000, 130000 },
        { "2pm", 1, "W1 D0 C0 A0", 170000, 150000, 130000 },
        { "readfirst", 1, "W1 A0 C0 D0", 130000, 150000, 170000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        h_init(&h, cases[i].policy, 0, cases[i].bound);
        run_plan(&h, THREE, 4, RO, 5);
        CHECK_STR(h.order[0], cases[i].order);
        CHECK_EQ_U64(done_of(&h, "A0"), cases[i].a0);
        CHECK_EQ_U64(done_of(&h, "C0"), cases[i].c0);
        CHECK_EQ_U64(done_of(&h, "D0"), cases[i].d0);
        h_free(&h);
    }
    /* Unevaluated, each of the three requests has one sub-request, and it is the last of its request
     * nothing has passed: under 2pm+ none may be passed (IV-D (a)), so the reports of D and C move
     * nothing; 2pm moves D0 to the front, then C0 behind it. */
    static const reorder_plan RO2[] = { { 2000, D, CSD_MATCH_MATCHED }, { 3000, C, CSD_MATCH_MATCHED } };
    h_init(&h, "2pm+", 0, 0);
    run_plan(&h, THREE, 4, RO2, 2);
    CHECK_STR(h.order[0], "W1 A0 C0 D0");
    CHECK_EQ_U64(done_of(&h, "D0"), 170000);
    h_free(&h);
    h_init(&h, "2pm", 0, 0);
    run_plan(&h, THREE, 4, RO2, 2);
    CHECK_STR(h.order[0], "W1 D0 C0 A0");
    h_free(&h);
}


/* PAQ's conflict-free groups, hand-checked on 3 chips:
 *   t=0     host programs W1, W2 on chip 0
 *   t=1000  request A: A0 (chip 0), A1 (chip 1); request C: C0 (chip 2); request D: D0 (chip 1)
 * paq: W1 is released and starts at once; W2 is released then (chip 0 holds nothing released waiting)
 * and A, which needs chip 0, conflicts with it: A waits, and reserves chip 1 and chip 0 as the oldest
 * waiting request; C needs only chip 2: released at 1000, out of arrival order (C0 1000..21000); D
 * needs chip 1, which A reserved: it waits though chip 1 is idle. At 110000 W2 starts, A is released:
 * A1 110000..130000 on chip 1; D conflicts with A1 until A1 starts, then is released behind it: D0
 * 130000..150000. Chip 0 serves W2 (no read priority) then A0: 220000..240000.
 * fcfs: each chip in arrival order: chip 1 A1 1000..21000, D0 ..41000; chip 0 W1 W2 A0 (240000). */
static void test_paq_groups(void) {
    static const char C[] = "C", D[] = "D";
    static const plan P[] = {
        { 0, "W1", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W1 },
        { 0, "W2", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W2 },
        { 1000, "A0", CSD_FLASH_READ, 0, CSD_SRC_ISP, A },
        { 1000, "A1", CSD_FLASH_READ, 1, CSD_SRC_ISP, A },
        { 1000, "C0", CSD_FLASH_READ, 2, CSD_SRC_ISP, C },
        { 1000, "D0", CSD_FLASH_READ, 1, CSD_SRC_ISP, D },
    };
    struct { const char *policy, *chip0, *chip1, *chip2; uint64_t a0, a1, c0, d0, w2; } E[] = {
        { "paq", "W1 W2 A0", "A1 D0", "C0", 240000, 130000, 21000, 150000, 220000 },
        { "fcfs", "W1 W2 A0", "A1 D0", "C0", 240000, 21000, 21000, 41000, 220000 },
        /* the 2PM basic rules: A0 passes W2 */
        { "readfirst", "W1 A0 W2", "A1 D0", "C0", 130000, 21000, 21000, 41000, 240000 },
    };
    for (size_t i = 0; i < sizeof E / sizeof E[0]; i++) {
        harness h;
        h_init_n(&h, E[i].policy, 0, 0, 3);
        run_plan(&h, P, sizeof P / sizeof P[0], NULL, 0);
        CHECK_STR(h.order[0], E[i].chip0);
        CHECK_STR(h.order[1], E[i].chip1);
        CHECK_STR(h.order[2], E[i].chip2);
        CHECK_EQ_U64(done_of(&h, "W1"), 110000);
        CHECK_EQ_U64(done_of(&h, "A0"), E[i].a0);
        CHECK_EQ_U64(done_of(&h, "A1"), E[i].a1);
        CHECK_EQ_U64(done_of(&h, "C0"), E[i].c0);
        CHECK_EQ_U64(done_of(&h, "D0"), E[i].d0);
        CHECK_EQ_U64(done_of(&h, "W2"), E[i].w2);
        h_free(&h);
    }
    /* a request is never in conflict with itself: A grows by a page on chip 0 (A2, at 1500) while A0
     * waits there: released at once behind A0, ahead of B, released when A2 starts */
    static const char Bq[] = "B";
    static const plan G[] = {
        { 0, "W1", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W1 },
        { 1000, "A0", CSD_FLASH_READ, 0, CSD_SRC_ISP, A },
        { 1200, "B0", CSD_FLASH_READ, 0, CSD_SRC_ISP, Bq },
        { 1500, "A2", CSD_FLASH_READ, 0, CSD_SRC_ISP, A },
    };
    harness h;
    h_init_n(&h, "paq", 0, 0, 3);
    run_plan(&h, G, 4, NULL, 0);
    CHECK_STR(h.order[0], "W1 A0 A2 B0");
    CHECK_EQ_U64(done_of(&h, "B0"), 170000);
    h_free(&h);
}

/* The paper's Fig. 2(c) swap under 2pm+, and the guard of IV-D (a) (3 chips):
 *   t=0     host programs W1 on chip 1 and W2 on chip 2 (0..110000 each)
 *   t=1000  request A: A0 (chip 1, its first page) and, when two, A1 (chip 2); request B: B0 (chip 0),
 *           B1 (chip 1); chip 1 queues A0 then B1
 *   t=21000 B0 (1000..21000) found B matched
 * A1 has not been passed and A has not started: A0 may be pushed back, and B1 swaps ahead of it, as in
 * Fig. 2(c): B1 110000..130000, A0 ..150000. With A0 alone, it is the only sub-request of an
 * unevaluated request: 2pm+ keeps it (A0 ..130000, B1 ..150000); 2pm swaps. */
static void test_fig2c(void) {
    static const plan TWO[] = {
        { 0, "W1", CSD_FLASH_PROGRAM, 1, CSD_SRC_HOST, W1 },
        { 0, "W2", CSD_FLASH_PROGRAM, 2, CSD_SRC_HOST, W2 },
        { 1000, "A0", CSD_FLASH_READ, 1, CSD_SRC_ISP, A },
        { 1000, "A1", CSD_FLASH_READ, 2, CSD_SRC_ISP, A },
        { 1000, "B0", CSD_FLASH_READ, 0, CSD_SRC_ISP, B },
        { 1000, "B1", CSD_FLASH_READ, 1, CSD_SRC_ISP, B },
    };
    static const plan ONE[] = {
        { 0, "W1", CSD_FLASH_PROGRAM, 1, CSD_SRC_HOST, W1 },
        { 0, "W2", CSD_FLASH_PROGRAM, 2, CSD_SRC_HOST, W2 },
        { 1000, "A0", CSD_FLASH_READ, 1, CSD_SRC_ISP, A },
        { 1000, "B0", CSD_FLASH_READ, 0, CSD_SRC_ISP, B },
        { 1000, "B1", CSD_FLASH_READ, 1, CSD_SRC_ISP, B },
    };
    static const reorder_plan RO[] = { { 21000, B, CSD_MATCH_MATCHED } };
    /* paq: B conflicts with A on chip 1 and waits whole until A0 starts: B0 110000..130000 */
    struct { const char *policy; const plan *pl; size_t n; const char *chip1; uint64_t a0, b0, b1; } E[] = {
        { "2pm+", TWO, 6, "W1 B1 A0", 150000, 21000, 130000 },
        { "2pm", TWO, 6, "W1 B1 A0", 150000, 21000, 130000 },
        { "2pm+", ONE, 5, "W1 A0 B1", 130000, 21000, 150000 },
        { "2pm", ONE, 5, "W1 B1 A0", 150000, 21000, 130000 },
        { "paq", TWO, 6, "W1 A0 B1", 130000, 130000, 150000 },
    };
    for (size_t i = 0; i < sizeof E / sizeof E[0]; i++) {
        harness h;
        h_init_n(&h, E[i].policy, 0, 8, 3);
        run_plan(&h, E[i].pl, E[i].n, RO, 1);
        CHECK_STR(h.order[1], E[i].chip1);
        CHECK_EQ_U64(done_of(&h, "B0"), E[i].b0);
        CHECK_EQ_U64(done_of(&h, "A0"), E[i].a0);
        CHECK_EQ_U64(done_of(&h, "B1"), E[i].b1);
        h_free(&h);
    }
}

/* 2pm+'s slack-aware insertion never lets a program take a read's slack; Slacker's does. Request A:
 * A0..A6 on chip 0 and A7 on chip 1, both chips programming until 110000: A7's slack is chip 0's
 * expected end (110000 + 7 reads) minus chip 1's (110000 + 1 read) = 120000, more than a program's
 * 110000. Host program W4 arrives on chip 1 at 2000, behind A7. */
static void test_program_no_read_slack(void) {
    static const char W0[] = "W0", W4[] = "W4";
    plan P[11] = {
        { 0, "W0", CSD_FLASH_PROGRAM, 1, CSD_SRC_HOST, W0 },
        { 0, "W1", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W1 },
        { 2000, "W4", CSD_FLASH_PROGRAM, 1, CSD_SRC_HOST, W4 },
    };
    static const char *const names[] = { "A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7" };
    for (int k = 0; k < 8; k++)
        P[3 + k] = (plan){ 1000, names[k], CSD_FLASH_READ, k < 7 ? 0 : 1, CSD_SRC_ISP, A };
    /* sorted by time for run_plan's one event per instant */
    plan S[11] = { P[0], P[1], P[3], P[4], P[5], P[6], P[7], P[8], P[9], P[10], P[2] };
    harness h;
    h_init(&h, "2pm+", 0, 0);
    run_plan(&h, S, 11, NULL, 0);
    CHECK_STR(h.order[1], "W0 A7 W4");
    CHECK_EQ_U64(done_of(&h, "A7"), 130000);
    CHECK_EQ_U64(done_of(&h, "W4"), 240000);
    h_free(&h);
    h_init(&h, "slacker", 0, 0);
    run_plan(&h, S, 11, NULL, 0);
    CHECK_STR(h.order[1], "W0 W4 A7");
    CHECK_EQ_U64(done_of(&h, "A7"), 240000);
    h_free(&h);
}

/* Program/erase suspension (flash_suspend), ideal: no cost.
 *   t=0      host programs W1, W2 on chip 0 (W1: data in 0..10000, program 10000..110000); an erase E on
 *            chip 1 (0..1000000)
 *   t=20000  read A0 on chip 0; t=25000 read A1 on chip 0; t=30000 read B0 on chip 1
 * readfirst: A0 is next, so it suspends W1 with 90000 to go: A0 20000..40000; A1, next then too,
 * 40000..60000; W1 resumes 60000..150000, W2 150000..260000. B0 suspends E (970000 to go): B0
 * 30000..50000, E ..1020000. fcfs: W2 is next on chip 0 at 20000, so nothing suspends W1 (W2 waits,
 * chosen); W2 starts at 110000 (data in ..120000), and A0, next then, suspends it: A0 120000..140000,
 * A1 ..160000, W2 resumes ..260000; chip 1's next is B0, which suspends E as above. Without
 * suspension chip 0 runs W1 A0 A1 W2 (readfirst) and B0 waits for E: 1020000. */
static void test_suspend(void) {
    static const char E0[] = "E", A1n[] = "A1", B0n[] = "B0";
    static const plan P[] = {
        { 0, "W1", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W1 },
        { 0, "W2", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W2 },
        { 0, "E", CSD_FLASH_ERASE, 1, CSD_SRC_GC, E0 },
        { 20000, "A0", CSD_FLASH_READ, 0, CSD_SRC_ISP, A },
        { 25000, "A1", CSD_FLASH_READ, 0, CSD_SRC_ISP, A1n },
        { 30000, "B0", CSD_FLASH_READ, 1, CSD_SRC_ISP, B0n },
    };
    struct { const char *policy; uint32_t on; const char *chip0; uint64_t a0, a1, w1, w2, b0, e, suspends; } X[] = {
        { "readfirst", 1, "A0 A1 W1 W2", 40000, 60000, 150000, 260000, 50000, 1020000, 2 },
        { "fcfs", 1, "W1 A0 A1 W2", 140000, 160000, 110000, 260000, 50000, 1020000, 2 },
        { "readfirst", 0, "W1 A0 A1 W2", 130000, 150000, 110000, 260000, 1020000, 1000000, 0 },
    };
    for (size_t i = 0; i < sizeof X / sizeof X[0]; i++) {
        harness h;
        h_suspend = X[i].on;
        h_init(&h, X[i].policy, 0, 0);
        h_suspend = 0;
        run_plan(&h, P, sizeof P / sizeof P[0], NULL, 0);
        CHECK_STR(h.order[0], X[i].chip0);
        CHECK_EQ_U64(done_of(&h, "A0"), X[i].a0);
        CHECK_EQ_U64(done_of(&h, "A1"), X[i].a1);
        CHECK_EQ_U64(done_of(&h, "W1"), X[i].w1);
        CHECK_EQ_U64(done_of(&h, "W2"), X[i].w2);
        CHECK_EQ_U64(done_of(&h, "B0"), X[i].b0);
        CHECK_EQ_U64(done_of(&h, "E"), X[i].e);
        csd_flash_stats st;
        csd_flash_stats_get(h.f, &st);
        CHECK_EQ_U64(st.suspends, X[i].suspends);
        CHECK_EQ_U64(st.programs, 2);
        CHECK_EQ_U64(st.erases, 1);
        h_free(&h);
    }
}

/* cars serves the sources in turn: a garbage-collection read that arrived after A0 and B0 goes first,
 * the host's turn (W1) having just been served; readfirst keeps the age order. */
static void test_cars_turns(void) {
    static const char G[] = "G";
    static const plan P[] = {
        { 0, "W1", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W1 },
        { 0, "W2", CSD_FLASH_PROGRAM, 0, CSD_SRC_HOST, W2 },
        { 1000, "A0", CSD_FLASH_READ, 0, CSD_SRC_ISP, A },
        { 1000, "B0", CSD_FLASH_READ, 0, CSD_SRC_ISP, B },
        { 1000, "G0", CSD_FLASH_READ, 0, CSD_SRC_GC, G },
    };
    harness h;
    h_init(&h, "cars", 0, 0);
    run_plan(&h, P, 5, NULL, 0);
    CHECK_STR(h.order[0], "W1 G0 A0 B0 W2");
    CHECK_EQ_U64(done_of(&h, "G0"), 130000);
    CHECK_EQ_U64(done_of(&h, "B0"), 170000);
    CHECK_EQ_U64(done_of(&h, "W2"), 280000);
    h_free(&h);
    h_init(&h, "readfirst", 0, 0);
    run_plan(&h, P, 5, NULL, 0);
    CHECK_STR(h.order[0], "W1 A0 B0 G0 W2");
    h_free(&h);
}

/* ---- randomized: the pass bound holds under any mix --------------------------------------------- */

/* A wrapper around a real policy that records, per chip, the order operations arrived and started. */
typedef struct spy {
    const csd_chip_sched_ops *real;
    void *state;
    uint64_t arrivals;
} spy;
typedef struct spy_op { csd_flash_op op; uint64_t arrival, start; int started; } spy_op;
static const csd_chip_sched_ops *spy_real;
static uint64_t spy_clock;   /* start order */

static int spy_init(void **state, const csd_params *p, uint32_t chips) {
    spy *s = calloc(1, sizeof *s);
    s->real = spy_real;
    *state = s;
    return s->real->init(&s->state, p, chips);
}
static void spy_enqueue(void *state, uint32_t chip, csd_flash_op *op, uint64_t now) {
    spy *s = state;
    ((spy_op *)op)->arrival = ++s->arrivals;
    s->real->enqueue(s->state, chip, op, now);
}
static csd_flash_op *spy_next(void *state, uint32_t chip, uint64_t now) {
    spy *s = state;
    csd_flash_op *op = s->real->next(s->state, chip, now);
    if (op) {
        ((spy_op *)op)->start = ++spy_clock;
        ((spy_op *)op)->started = 1;
    }
    return op;
}
static void spy_reorder(void *state, const void *owner, uint8_t match, uint64_t now) {
    spy *s = state;
    if (s->real->reorder) s->real->reorder(s->state, owner, match, now);
}
static void spy_attach(void *state, const csd_flash *f) {
    spy *s = state;
    if (s->real->attach) s->real->attach(s->state, f);
}
static void spy_destroy(void *state) {
    spy *s = state;
    s->real->destroy(s->state);
    free(s);
}
static const csd_chip_sched_ops spy_ops = { .name = "spy", .init = spy_init, .enqueue = spy_enqueue,
                                            .next = spy_next, .destroy = spy_destroy, .reorder = spy_reorder,
                                            .attach = spy_attach };

static uint64_t rng(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct rnd_world {
    csd_sim *sim;
    csd_flash *f;
    csd_params p;
    spy_op *ops;
    size_t n, cap;
    uint64_t seed;
    char owners[64];            /* request identities */
    uint8_t match[64];
} rnd_world;

static void rnd_done(csd_flash_op *op, uint64_t t) { (void)op; (void)t; }

static void rnd_tick(csd_sim *sim, void *arg) {
    rnd_world *w = arg;
    uint64_t now = csd_sim_now(sim);
    /* a burst: a tasklet request over a few chips, host programs, a GC erase, a reordering request */
    int what = (int)(rng(&w->seed) % 4);
    int owner = (int)(rng(&w->seed) % 64);
    uint32_t chips = w->p.channels * w->p.chips_per_channel;
    int k = 1 + (int)(rng(&w->seed) % 6);
    for (int i = 0; i < k && w->n < w->cap; i++) {
        spy_op *o = &w->ops[w->n++];
        uint32_t chip = (uint32_t)(rng(&w->seed) % chips);
        csd_addr a = { .channel = chip / w->p.chips_per_channel, .chip = chip % w->p.chips_per_channel,
                       .block = (uint32_t)(rng(&w->seed) % w->p.blocks_per_plane), .page = 1 };
        uint8_t kind = what == 1 ? CSD_FLASH_PROGRAM : what == 2 && i == 0 ? CSD_FLASH_ERASE : CSD_FLASH_READ;
        o->op = (csd_flash_op){ .kind = kind, .src = what == 0 ? CSD_SRC_ISP : what == 1 ? CSD_SRC_HOST : CSD_SRC_GC,
                                .ppn = csd_ppn_encode(&w->p, &a), .owner = &w->owners[owner],
                                .match = what == 0 ? w->match[owner] : 0,
                                .done = rnd_done, .arg = w };
        csd_flash_submit(w->f, &o->op);
    }
    if (what == 3) {
        uint8_t m = (uint8_t)(1 + rng(&w->seed) % 3);
        if (m > w->match[owner]) w->match[owner] = m;
        csd_flash_reorder(w->f, &w->owners[owner], w->match[owner]);
    }
    if (w->n < w->cap) CHECK_EQ_INT(csd_sim_at(sim, now + rng(&w->seed) % 30000, rnd_tick, w), 0);
}

/* Largest number of later arrivals any read saw start before it (a program or erase is also passed by
 * reads under read priority, which the bound leaves alone, as paq does). */
static uint64_t worst_overtaken(const char *policy, uint32_t slots, uint32_t max_passes, uint64_t seed) {
    rnd_world w;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(csd_params_preset(&w.p, "tiny"), 0);
    w.p.blocks_per_plane = 16;
    w.p.chip_queue_slots = slots;
    w.p.chip_max_passes = max_passes;
    w.seed = seed;
    w.cap = 1500;
    w.ops = calloc(w.cap, sizeof *w.ops);
    w.sim = csd_sim_create();
    spy_real = csd_chip_sched_find(policy);
    CHECK(spy_real);
    char err[256];
    CHECK_EQ_INT(csd_flash_create_with(&w.f, &w.p, w.sim, &spy_ops, csd_fcmd_find("fifo"), err, sizeof err), 0);
    CHECK_EQ_INT(csd_sim_at(w.sim, 0, rnd_tick, &w), 0);
    while (csd_sim_step(w.sim)) {}
    uint64_t worst = 0;
    for (size_t i = 0; i < w.n; i++) {
        CHECK(w.ops[i].started);
        uint32_t ci = csd_flash_chip_of(w.f, &w.ops[i].op);
        uint64_t over = 0;
        for (size_t j = 0; j < w.n; j++)
            if (csd_flash_chip_of(w.f, &w.ops[j].op) == ci && w.ops[j].arrival > w.ops[i].arrival &&
                w.ops[j].start < w.ops[i].start)
                over++;
        if (w.ops[i].op.kind != CSD_FLASH_READ) continue;   /* reads passing writes: read priority */
        CHECK(over <= CQ_PASSED(&w.ops[i].op));   /* to overtake it a later one passed it (it may pass back) */
        if (over > worst) worst = over;
    }
    csd_flash_destroy(w.f);
    csd_sim_destroy(w.sim);
    free(w.ops);
    return worst;
}

static void test_no_starvation(void) {
    uint64_t unbounded = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        for (uint32_t k = 1; k <= 4; k += 3) {
            CHECK(worst_overtaken("2pm+", 0, k, seed * 7919) <= k);
            CHECK(worst_overtaken("2pm+", 4, k, seed * 7919) <= k);
        }
        uint64_t u = worst_overtaken("2pm", 0, 0, seed * 7919);
        if (u > unbounded) unbounded = u;
    }
    /* without the bound, the same mixes pass some operation many times */
    CHECK(unbounded > 4);
    printf("no starvation: 2pm+ overtakes at most chip_max_passes; 2pm up to %llu\n", (unsigned long long)unbounded);
}


/* ---- randomized: two-stage answers do not depend on the chip policy (nor on page order) ---------- */

#include "smartssd/v1/device.pb-c.h"

#define OBJ_PAGES 48u

typedef struct text_obj { const csd_params *p; const uint8_t *data; uint64_t size; uint64_t ppn[OBJ_PAGES]; } text_obj;

static uint64_t to_ppn(void *arg, uint64_t page) { return ((text_obj *)arg)->ppn[page]; }
static int to_read(void *arg, uint64_t ppn, uint8_t *buf) {
    text_obj *o = arg;
    for (uint64_t k = 0; k < OBJ_PAGES; k++) {
        if (o->ppn[k] != ppn) continue;
        uint64_t P = o->p->page_bytes, n = o->size - k * P < P ? o->size - k * P : P;
        memset(buf, 0, P);
        memcpy(buf, o->data + k * P, n);
        return 0;
    }
    return -EIO;
}

/* the in-order reference: the lines starting in [off, end) holding a, then z after it; char by char */
static uint64_t ref_lines(const uint8_t *t, uint64_t size, uint64_t off, uint64_t end, const char *a, const char *z,
                          uint64_t *offs, uint64_t max) {
    uint64_t n = 0, la = strlen(a), lz = z ? strlen(z) : 0;
    for (uint64_t i = 0; i < size;) {
        uint64_t j = i;
        while (j < size && t[j] != '\n') j++;
        uint64_t len = j - i;
        if (len && t[i + len - 1] == '\r') len--;
        int m = 0;
        for (uint64_t x = 0; x + la <= len && !m; x++) {
            if (memcmp(t + i + x, a, la)) continue;
            if (!lz) m = 1;
            for (uint64_t y = x + la; y + lz <= len && !m && lz; y++) m = !memcmp(t + i + y, z, lz);
            break;
        }
        if (m && i >= off && i < end) {
            CHECK(n < max);
            offs[n++] = i;
        }
        i = j + 1;
    }
    return n;
}

static int u64_cmp(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

typedef struct bg { csd_flash_op op; } bg;
static void bg_done(csd_flash_op *op, uint64_t t) { (void)op; (void)t; }

static void test_answers_every_policy(void) {
    uint64_t seed = 0x5eed;
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "tiny"), 0);
    p.blocks_per_plane = 64;
    p.isp_buffer_bytes = 1u << 20;
    uint64_t size = OBJ_PAGES * 4096 - 77;
    uint8_t *text = malloc(size);
    static const char alpha[] = "ab cab xyz  ";
    for (uint64_t i = 0; i < size; i++) {
        uint64_t r = rng(&seed);
        text[i] = r % 37 == 0 ? '\n' : r % 401 == 0 ? '\r' : (uint8_t)alpha[(r >> 9) % (sizeof alpha - 1)];
    }
    text_obj o = { &p, text, size, { 0 } };
    for (uint64_t k = 0; k < OBJ_PAGES; k++) {
        uint32_t u = (uint32_t)((k * 7 + 3) % 4);             /* scattered over the 4 chips */
        csd_addr a = { .channel = u / 2, .chip = u % 2, .block = (uint32_t)(k % 5), .page = (uint32_t)(k / 5) };
        o.ppn[k] = csd_ppn_encode(&p, &a);
    }
    struct { const char *a, *z; } keys[] = { { "cab", "xy" }, { "ab c", NULL }, { "x", "b" } };
    uint64_t *want = malloc(sizeof *want * size), *got = malloc(sizeof *got * size);
    uint64_t tested = 0;
    for (size_t pol = 0; csd_chip_sched_at(pol); pol++) {
        for (int pm = 0; pm < 2; pm++) {
            p.pm_bytes_per_s = pm ? 409600000 : 0;
            p.chip_queue_slots = pol % 2 ? 4 : 0;
            snprintf(p.chip_scheduler, sizeof p.chip_scheduler, "%s", csd_chip_sched_at(pol)->name);
            csd_engine *e = NULL;
            char err[256];
            CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);
            /* background programs and erases on every chip, so pages land out of order */
            bg bgs[40];
            for (int i = 0; i < 40; i++) {
                uint32_t u = (uint32_t)(rng(&seed) % 4);
                csd_addr a = { .channel = u / 2, .chip = u % 2, .block = 40 + (uint32_t)(i % 8), .page = (uint32_t)i };
                bgs[i].op = (csd_flash_op){ .kind = i % 7 == 0 ? CSD_FLASH_ERASE : CSD_FLASH_PROGRAM,
                                            .src = i % 2 ? CSD_SRC_GC : CSD_SRC_HOST, .ppn = csd_ppn_encode(&p, &a),
                                            .owner = &bgs[i], .done = bg_done };
                csd_flash_submit(csd_engine_flash(e), &bgs[i].op);
            }
            /* six requests over random extents, submitted together */
            enum { NREQ = 6 };
            csd_outbuf ob[NREQ];
            csd_exec *x[NREQ];
            csd_isp_req *r[NREQ];
            csd_isp_work w[NREQ];
            uint64_t off[NREQ], end[NREQ];
            size_t kk[NREQ];
            csd_page_source src = { &o, to_ppn, to_read, NULL, NULL };
            for (int i = 0; i < NREQ; i++) {
                off[i] = rng(&seed) % size;
                end[i] = off[i] + rng(&seed) % (size - off[i] + 1);
                kk[i] = (size_t)(rng(&seed) % 3);
                csd_kv kv[] = { { "start", keys[kk[i]].a }, { "mode", "lines" }, { "end", keys[kk[i]].z } };
                csd_tasklet_args a = { .static_params = kv, .n_static = keys[kk[i]].z ? 3 : 2, .page_bytes = 4096 };
                csd_outbuf_init(&ob[i], 0, 0);
                CHECK_EQ_INT(csd_exec_create(&x[i], csd_tasklet_find("grep2"), &a, &ob[i], err, sizeof err), 0);
                uint64_t fp, lp;
                CHECK_EQ_INT(csd_exec_begin(x[i], size, off[i], end[i] - off[i], 4096, &fp, &lp, err, sizeof err), 0);
                w[i] = csd_exec_work(x[i]);
                CHECK_EQ_INT(csd_engine_submit(e, &r[i], &w[i], &src, fp, lp, OBJ_PAGES - 1, (uint32_t)(size % 4096)), 0);
            }
            for (int i = 0; i < NREQ; i++) {
                csd_engine_run_until_finished(e, r[i]);
                csd_isp_progress pr;
                csd_engine_progress(e, r[i], &pr);
                CHECK(pr.finished);
                CHECK_EQ_INT(pr.status, 0);
                const uint8_t *rows;
                size_t n = csd_outbuf_take(&ob[i], SIZE_MAX, &rows), pos = 0, ng = 0;
                while (pos < n) {
                    uint64_t len = 0;
                    int shift = 0;
                    for (;;) {
                        uint8_t b = rows[pos++];
                        len |= (uint64_t)(b & 0x7f) << shift;
                        shift += 7;
                        if (!(b & 0x80)) break;
                    }
                    Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, (size_t)len, rows + pos);
                    CHECK(row && row->n_values == 2);
                    got[ng++] = (uint64_t)row->values[0]->i;
                    smartssd__v1__row__free_unpacked(row, NULL);
                    pos += (size_t)len;
                }
                if (ng) qsort(got, ng, sizeof *got, u64_cmp);
                uint64_t nw = ref_lines(text, size, off[i], end[i], keys[kk[i]].a, keys[kk[i]].z, want, size);
                CHECK_EQ_U64(ng, nw);
                for (uint64_t j = 0; j < nw; j++) CHECK_EQ_U64(got[j], want[j]);
                tested += nw;
                csd_engine_release(e, r[i]);
                csd_exec_destroy(x[i]);
                csd_outbuf_free(&ob[i]);
            }
            while (csd_engine_step(e)) {}
            csd_engine_destroy(e);
        }
    }
    CHECK(tested > 100);
    free(want);
    free(got);
    free(text);
}

int main(void) {
    test_hand_checked();
    test_slots_and_bound();
    test_paq_groups();
    test_fig2c();
    test_program_no_read_slack();
    test_suspend();
    test_cars_turns();
    test_no_starvation();
    test_answers_every_policy();
    TEST_OK("test_chip_sched");
}
