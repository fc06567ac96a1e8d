/* Discrete-event engine: ordering by time, ties in insertion order, clamping of past times,
 * idle advance, xfer_ns rounding against hand-computed values, and random schedules (a large one,
 * one that grows from inside its events, and ones held at each heap shape) checked against
 * brute-force references (sort by, or scan for, the least (time, seq)). */
#include "check.h"
#include "sim/sim.h"

#include <stdint.h>

typedef struct log_t { int order[64]; uint64_t times[64]; int n; } log_t;
typedef struct rec { log_t *log; int id; } rec;

static void record_ev(csd_sim *sim, void *arg) {
    rec *r = arg;
    r->log->order[r->log->n] = r->id;
    r->log->times[r->log->n] = csd_sim_now(sim);
    r->log->n++;
}

/* An event that schedules another at the same time: it must run after those already queued then. */
typedef struct chain { rec child; rec self; } chain;
static void chain_ev(csd_sim *sim, void *arg) {
    chain *c = arg;
    record_ev(sim, &c->self);
    CHECK(csd_sim_at(sim, csd_sim_now(sim), record_ev, &c->child) == 0);
}

static void test_order_and_ties(void) {
    csd_sim *s = csd_sim_create();
    CHECK(s);
    log_t log = { .n = 0 };
    rec r[6];
    for (int i = 0; i < 6; i++) r[i] = (rec){ &log, i };
    chain ch = { { &log, 100 }, { &log, 99 } };
    CHECK(csd_sim_at(s, 50, record_ev, &r[0]) == 0);
    CHECK(csd_sim_at(s, 10, record_ev, &r[1]) == 0);
    CHECK(csd_sim_at(s, 30, chain_ev, &ch) == 0);
    CHECK(csd_sim_at(s, 30, record_ev, &r[2]) == 0);   /* same time, inserted later */
    CHECK(csd_sim_at(s, 30, record_ev, &r[3]) == 0);
    CHECK(csd_sim_at(s, 10, record_ev, &r[4]) == 0);
    CHECK_EQ_U64(csd_sim_pending(s), 6);
    while (csd_sim_step(s)) {}
    CHECK_EQ_INT(csd_sim_step(s), 0);
    int want[] = { 1, 4, 99, 2, 3, 100, 0 };
    uint64_t want_t[] = { 10, 10, 30, 30, 30, 30, 50 };
    CHECK_EQ_INT(log.n, 7);
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(log.order[i], want[i]);
        CHECK_EQ_U64(log.times[i], want_t[i]);
    }
    CHECK_EQ_U64(csd_sim_now(s), 50);
    csd_sim_destroy(s);
}

static void test_clamp_and_advance(void) {
    csd_sim *s = csd_sim_create();
    log_t log = { .n = 0 };
    rec a = { &log, 1 }, b = { &log, 2 };
    csd_sim_advance(s, 1000);
    CHECK_EQ_U64(csd_sim_now(s), 1000);
    csd_sim_advance(s, 500);                        /* never backwards */
    CHECK_EQ_U64(csd_sim_now(s), 1000);
    CHECK(csd_sim_at(s, 200, record_ev, &a) == 0);  /* in the past: clamped to now */
    CHECK(csd_sim_at(s, 5000, record_ev, &b) == 0);
    csd_sim_advance(s, 9000);                       /* stops at the pending event at 1000 */
    CHECK_EQ_U64(csd_sim_now(s), 1000);
    CHECK(csd_sim_step(s) == 1);
    CHECK_EQ_U64(log.times[0], 1000);
    csd_sim_advance(s, 9000);                       /* stops at 5000 */
    CHECK_EQ_U64(csd_sim_now(s), 5000);
    CHECK(csd_sim_step(s) == 1);
    CHECK_EQ_U64(log.times[1], 5000);
    csd_sim_advance(s, 9000);                       /* idle: goes all the way */
    CHECK_EQ_U64(csd_sim_now(s), 9000);
    csd_sim_destroy(s);
}

static void test_xfer_and_serial(void) {
    /* 8192 * 1e9 / 46875000 = 174762.67 -> 174763 (paper preset channel page) */
    CHECK_EQ_U64(csd_xfer_ns(8192, 46875000), 174763);
    /* exact division: 4096 B at 409.6 MB/s = 10000 ns */
    CHECK_EQ_U64(csd_xfer_ns(4096, 409600000), 10000);
    /* 8192 B at 300 MB/s = 27306.67 -> 27307 */
    CHECK_EQ_U64(csd_xfer_ns(8192, 300000000), 27307);
    CHECK_EQ_U64(csd_xfer_ns(1, 300000000), 4);     /* 3.33 -> 4 */
    CHECK_EQ_U64(csd_xfer_ns(3, 300000000), 10);    /* exactly 10 */
    CHECK_EQ_U64(csd_xfer_ns(0, 300000000), 0);
    CHECK_EQ_U64(csd_xfer_ns(100, 0), 0);           /* rate 0: not modelled */
    CHECK_EQ_U64(csd_xfer_ns(1, 1), 1000000000ull);
    /* large counts must not overflow bytes*1e9: 1 TiB at 1 GB/s = 1099.511627776 s */
    CHECK_EQ_U64(csd_xfer_ns(1ull << 40, 1000000000ull), 1099511627776ull);
    /* (1e12 + 1) B at 70000 B/s = 14285714.285728571.4 ns -> ...572 (whole s + ceil of remainder) */
    CHECK_EQ_U64(csd_xfer_ns(1000000000001ull, 70000), 14285714285728572ull);
    CHECK_EQ_U64(csd_xfer_ns(UINT64_MAX, 1), UINT64_MAX);   /* saturates */

    csd_serial r = { 0, 0 };
    CHECK_EQ_U64(csd_serial_reserve(&r, 100, 50), 150);   /* idle: starts at ready */
    CHECK_EQ_U64(csd_serial_reserve(&r, 120, 10), 160);   /* busy: queues behind */
    CHECK_EQ_U64(csd_serial_reserve(&r, 1000, 5), 1005);  /* idle gap not counted as busy */
    CHECK_EQ_U64(r.busy_ns, 65);
}

/* Many events with random times: the run order must equal sorting by (time, insertion order). */
typedef struct many { uint64_t t; int id; } many;
typedef struct many_ctx { int *out; int n; uint64_t last_t; int bad; } many_ctx;
typedef struct many_arg { many_ctx *ctx; int id; } many_arg;
static void many_ev(csd_sim *sim, void *arg) {
    many_arg *a = arg;
    if (csd_sim_now(sim) < a->ctx->last_t) a->ctx->bad = 1;
    a->ctx->last_t = csd_sim_now(sim);
    a->ctx->out[a->ctx->n++] = a->id;
}
static int many_cmp(const void *x, const void *y) {
    const many *a = x, *b = y;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->id - b->id;   /* id = insertion order */
}

static void test_many(void) {
    enum { N = 200000 };
    csd_sim *s = csd_sim_create();
    many *ref = malloc(N * sizeof *ref);
    many_arg *args = malloc(N * sizeof *args);
    int *out = malloc(N * sizeof *out);
    CHECK(ref && args && out);
    many_ctx ctx = { out, 0, 0, 0 };
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        ref[i] = (many){ x % 5000, i };            /* many ties on purpose */
        args[i] = (many_arg){ &ctx, i };
        CHECK(csd_sim_at(s, ref[i].t, many_ev, &args[i]) == 0);
    }
    qsort(ref, N, sizeof *ref, many_cmp);
    while (csd_sim_step(s)) {}
    CHECK_EQ_INT(ctx.n, N);
    CHECK_EQ_INT(ctx.bad, 0);
    for (int i = 0; i < N; i++) CHECK_EQ_INT(out[i], ref[i].id);
    CHECK_EQ_U64(csd_sim_pending(s), 0);
    free(ref); free(args); free(out);
    csd_sim_destroy(s);
}

/* Events that schedule others from inside the run: due now (the engine's hand-offs), in the past
 * (clamped to now), at the next tick or later, or onto a lane scheduled a head at a time with
 * sequences taken ahead (csd_sim_seq_take, csd_sim_at_seq), mixed with idle advances and peeks. Checked step by
 * step against a brute-force reference: a plain list, the next event found by scanning for the
 * least (time, insertion order), clamping and advance as the header specifies. */
enum { DYN_MAX = 20000 };
typedef struct dyn_ref { uint64_t t, seq; int id, live; } dyn_ref;
typedef struct dyn_ctx {
    csd_sim *s;
    dyn_ref *ref;
    int nref, nlive, ran, bad;
    uint64_t rnow, rseq, x;
    int want_id;
    /* a lane, as the flash firmware's: events of non-decreasing time, only the head scheduled;
     * the rest took their sequence when pushed and go in (csd_sim_at_seq) when the one before runs */
    int lane[DYN_MAX], lane_head, lane_n, lanes_in, lane_same;
    uint64_t lane_last;
} dyn_ctx;
typedef struct dyn_arg { dyn_ctx *c; int id; } dyn_arg;
static dyn_arg dyn_args[DYN_MAX];

static uint64_t dyn_rand(dyn_ctx *c) {
    c->x ^= c->x << 13; c->x ^= c->x >> 7; c->x ^= c->x << 17;
    return c->x;
}
static void dyn_ev(csd_sim *sim, void *arg);
static void dyn_sched(dyn_ctx *c, uint64_t t) {
    if (c->nref == DYN_MAX) return;
    int id = c->nref++;
    c->ref[id] = (dyn_ref){ t < c->rnow ? c->rnow : t, c->rseq++, id, 1 };
    c->nlive++;
    dyn_args[id] = (dyn_arg){ c, id };
    CHECK(csd_sim_at(c->s, t, dyn_ev, &dyn_args[id]) == 0);
}
/* The reference's next event: the live one with the least (t, seq), by brute force; -1 if none. */
static int ref_next(const dyn_ref *ref, int nref) {
    int best = -1;
    for (int i = 0; i < nref; i++)
        if (ref[i].live && (best < 0 || ref[i].t < ref[best].t ||
                            (ref[i].t == ref[best].t && ref[i].seq < ref[best].seq)))
            best = i;
    return best;
}
static void lane_push(dyn_ctx *c, uint64_t t) {
    if (c->nref == DYN_MAX) return;
    if (t < c->lane_last) t = c->lane_last;   /* the firmware's end times never go back */
    c->lane_last = t;
    if (c->lane_n == 0) {
        c->lane[(c->lane_head + c->lane_n++) % DYN_MAX] = c->nref;
        dyn_sched(c, t);
        return;
    }
    int id = c->nref++;
    c->ref[id] = (dyn_ref){ t, c->rseq++, id, 1 };
    c->nlive++;
    dyn_args[id] = (dyn_arg){ c, id };
    CHECK_EQ_U64(csd_sim_seq_take(c->s), c->ref[id].seq);
    c->lane[(c->lane_head + c->lane_n++) % DYN_MAX] = id;
}
static void dyn_ev(csd_sim *sim, void *arg) {
    dyn_arg *a = arg;
    dyn_ctx *c = a->c;
    if (a->id != c->want_id || csd_sim_now(sim) != c->ref[a->id].t) c->bad++;
    c->ran++;
    if (c->lane_n && c->lane[c->lane_head] == a->id) {
        c->lane_head = (c->lane_head + 1) % DYN_MAX;
        if (--c->lane_n) {
            dyn_ref *n = &c->ref[c->lane[c->lane_head]];
            if (n->t == csd_sim_now(sim)) c->lane_same++;   /* due now, with an older sequence */
            CHECK(csd_sim_at_seq(sim, n->t, n->seq, dyn_ev, &dyn_args[n->id]) == 0);
            c->lanes_in++;
        }
    }
    /* 0-3 children: due now, in the past, 1 ns later or up to 1000 ns later */
    int kids = (int)(dyn_rand(c) % 4);
    for (int k = 0; k < kids; k++) {
        uint64_t r = dyn_rand(c), now = csd_sim_now(sim);
        if ((r >> 40) % 4 == 0) {   /* a lane push: now, or up to 2 ns after the lane's last */
            lane_push(c, (c->lane_last > now ? c->lane_last : now) + (r >> 50) % 3);
            continue;
        }
        switch (r % 4) {
        case 0: dyn_sched(c, now); break;
        case 1: dyn_sched(c, now > 5 ? now - 5 : 0); break;
        case 2: dyn_sched(c, now + 1); break;
        default: dyn_sched(c, now + (r >> 8) % 1000); break;
        }
    }
}

static void test_dynamic(void) {
    static dyn_ref ref[DYN_MAX];
    static dyn_ctx c;
    c = (dyn_ctx){ .s = csd_sim_create(), .ref = ref, .x = 0x9e3779b97f4a7c15ull, .want_id = -1 };
    CHECK(c.s);
    for (int i = 0; i < 64; i++) dyn_sched(&c, dyn_rand(&c) % 100);
    for (;;) {
        int next = ref_next(c.ref, c.nref);
        uint64_t pt = 0;
        int has = csd_sim_peek(c.s, &pt);
        CHECK_EQ_INT(has, next >= 0);
        if (next < 0) break;
        CHECK_EQ_U64(pt, ref[next].t);
        if (dyn_rand(&c) % 16 == 0) {   /* an idle advance never passes the next event */
            uint64_t to = c.rnow + dyn_rand(&c) % 2000;
            csd_sim_advance(c.s, to);
            c.rnow = to > ref[next].t ? ref[next].t : to > c.rnow ? to : c.rnow;
            CHECK_EQ_U64(csd_sim_now(c.s), c.rnow);
        }
        c.want_id = next;
        ref[next].live = 0;
        c.nlive--;
        c.rnow = ref[next].t;
        CHECK_EQ_INT(csd_sim_step(c.s), 1);
        /* the lane's events after its head are not in the queue yet */
        CHECK_EQ_U64(csd_sim_pending(c.s), (uint64_t)(c.nlive - (c.lane_n > 1 ? c.lane_n - 1 : 0)));
    }
    CHECK_EQ_INT(c.bad, 0);
    CHECK_EQ_INT(c.ran, c.nref);
    CHECK_EQ_INT(c.nref, DYN_MAX);   /* the schedule grew well past its seed */
    CHECK(c.lanes_in > 1000 && c.lane_same > 100);   /* the lane ran, often due at once */
    CHECK_EQ_INT(c.lane_n, 0);
    CHECK_EQ_INT(csd_sim_step(c.s), 0);
    csd_sim_destroy(c.s);
}

/* The heap's shape: for pending counts around its levels and growth (1-5, 16-21, 84-86, 255-257,
 * 1365-1366, 4000), build up, run a steady state of pops and pushes, then drain; times come from a
 * narrow window after now (heaps full of equal times) and near the top of the 64-bit range (the
 * time's high bits). Every pop is checked against a brute-force reference: the least (time,
 * insertion order) among the live events, found by scanning. */
enum { WAVE_MAX = 24000 };
typedef struct wave_ctx { dyn_ref *ref; int nref, want, bad, ran; } wave_ctx;
typedef struct wave_arg { wave_ctx *c; int id; } wave_arg;
static wave_arg wave_args[WAVE_MAX];
static void wave_ev(csd_sim *sim, void *arg) {
    wave_arg *a = arg;
    if (a->id != a->c->want || csd_sim_now(sim) != a->c->ref[a->id].t) a->c->bad++;
    a->c->ran++;
}
static void wave_run(int pending, uint64_t base, uint64_t window, uint64_t seed) {
    static dyn_ref ref[WAVE_MAX];
    wave_ctx c = { ref, 0, -1, 0, 0 };
    csd_sim *s = csd_sim_create();
    CHECK(s);
    csd_sim_advance(s, base);
    CHECK_EQ_U64(csd_sim_now(s), base);
    uint64_t x = seed, seq = 0;
    int live = 0, pops = 0;
    for (int round = 0; c.nref < WAVE_MAX - 8 && (live > 0 || pops < 3 * pending); round++) {
        /* fill up to the target, then hold it there for 3 * pending pops, then drain */
        int push = live < pending ? pending - live : (pops < 3 * pending ? (int)(x % 3) : 0);
        for (int k = 0; k < push && c.nref < WAVE_MAX - 8; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint64_t now = csd_sim_now(s), t = now + 1 + x % window;
            if (x % 7 == 0) t = now;                    /* due now: the ring */
            int id = c.nref++;
            ref[id] = (dyn_ref){ t, seq++, id, 1 };
            wave_args[id] = (wave_arg){ &c, id };
            CHECK(csd_sim_at(s, t, wave_ev, &wave_args[id]) == 0);
            live++;
        }
        int npop = live < pending ? 0 : 1 + (int)((x >> 20) % 3);
        if (pops >= 3 * pending) npop = live;
        for (int k = 0; k < npop && live > 0; k++) {
            int next = ref_next(c.ref, c.nref);
            uint64_t pt = 0;
            CHECK_EQ_INT(csd_sim_peek(s, &pt), 1);
            CHECK_EQ_U64(pt, ref[next].t);
            c.want = next;
            ref[next].live = 0;
            live--;
            pops++;
            CHECK_EQ_INT(csd_sim_step(s), 1);
            CHECK_EQ_U64(csd_sim_now(s), ref[next].t);
            CHECK_EQ_U64(csd_sim_pending(s), (uint64_t)live);
        }
    }
    CHECK_EQ_INT(c.bad, 0);
    CHECK_EQ_INT(c.ran, c.nref);
    CHECK(c.nref >= pending * 2);   /* the steady state ran */
    CHECK_EQ_INT(csd_sim_step(s), 0);
    csd_sim_destroy(s);
}

static void test_heap_shapes(void) {
    static const int sizes[] = { 1, 2, 3, 4, 5, 16, 17, 20, 21, 84, 85, 86, 255, 256, 257, 1365, 1366, 4000 };
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        wave_run(sizes[i], 0, 8, seed + i);              /* heaps of ties */
        wave_run(sizes[i], 1000, 30000, seed * 3 + i);   /* flash-like spreads */
        if (sizes[i] <= 257)
            wave_run(sizes[i], UINT64_MAX - 4000000, 16, seed * 7 + i);   /* the time's high bits */
    }
}

int main(void) {
    test_order_and_ties();
    test_clamp_and_advance();
    test_xfer_and_serial();
    test_many();
    test_dynamic();
    test_heap_shapes();
    TEST_OK("test_sim");
}
