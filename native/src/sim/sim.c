/* Discrete-event engine: a 4-ary min-heap of events keyed by (time, insertion sequence). Events are
 * stored by value in one growable array, so scheduling allocates only when the heap outgrows its
 * high-water mark, never per event.
 *
 * About half the events of a scan are scheduled for the current time (hand-offs between the
 * engine's stages). Such an event comes after every pending one of the same time (its sequence
 * number is the largest) and before every later one, so those go to a FIFO ring instead of the
 * heap: O(1) in and out, and the order is still exactly (time, sequence). Every event in the ring
 * has t == now; the clock cannot move while the ring holds one (it is the earliest event). */
#include "sim/sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;   /* GCC and Clang; __extension__ keeps -Wpedantic quiet */

/* The key (time << 64 | sequence) orders events by time, then insertion: one 128-bit compare
 * (two flag-setting instructions, no branch on the time's tie). */
typedef struct csd_event {
    u128 key;
    csd_sim_fn fn;
    void *arg;
} csd_event;

#define EV_T(k) ((uint64_t)((k) >> 64))

/* A 4-ary heap: half the levels of a binary one, and a node's four children share one 128-byte
 * span (the array starts HEAP_PAD slots before a 128-byte boundary, so child 4i+1 sits on one). A
 * pop moves a hole down and drops the last event into it; a push moves a hole up. */
enum { HEAP_ARITY = 4, HEAP_PAD = 3, HEAP_ALIGN = 128 };

struct csd_sim {
    uint64_t now;
    uint64_t next_seq;
    csd_event *heap;         /* heap[0] is the top; (heap + HEAP_PAD) is 128-byte aligned */
    void *heap_mem;
    size_t n, cap;
    csd_event *ring;         /* events at t == now, in sequence order */
    size_t rhead, rn, rcap;  /* rcap is 0 or a power of two */
};

csd_sim *csd_sim_create(void) {
    return calloc(1, sizeof(csd_sim));
}

void csd_sim_destroy(csd_sim *sim) {
    if (!sim) return;
    free(sim->heap_mem);
    free(sim->ring);
    free(sim);
}

uint64_t csd_sim_now(const csd_sim *sim) { return sim->now; }

size_t csd_sim_pending(const csd_sim *sim) { return sim->n + sim->rn; }

int csd_sim_peek(const csd_sim *sim, uint64_t *t) {
    if (sim->rn) {
        *t = sim->now;   /* the ring's events are due now, and nothing pending is earlier */
        return 1;
    }
    if (sim->n == 0) return 0;
    *t = EV_T(sim->heap[0].key);
    return 1;
}

static int ring_push(csd_sim *sim, csd_sim_fn fn, void *arg) {
    if (sim->rn == sim->rcap) {
        size_t cap = sim->rcap ? sim->rcap * 2 : 64;
        csd_event *r = malloc(cap * sizeof *r);
        if (!r) return -ENOMEM;
        for (size_t k = 0; k < sim->rn; k++) r[k] = sim->ring[(sim->rhead + k) & (sim->rcap - 1)];
        free(sim->ring);
        sim->ring = r;
        sim->rcap = cap;
        sim->rhead = 0;
    }
    sim->ring[(sim->rhead + sim->rn++) & (sim->rcap - 1)] =
        (csd_event){ (u128)sim->now << 64 | sim->next_seq++, fn, arg };
    return 0;
}

static int heap_grow(csd_sim *sim) {
    size_t cap = sim->cap ? sim->cap * 2 : 256;
    void *mem = aligned_alloc(HEAP_ALIGN, (cap + HEAP_ALIGN / sizeof(csd_event)) * sizeof(csd_event));
    if (!mem) return -ENOMEM;
    csd_event *h = (csd_event *)mem + (HEAP_ALIGN / sizeof(csd_event) - HEAP_PAD);
    if (sim->n) memcpy(h, sim->heap, sim->n * sizeof *h);
    free(sim->heap_mem);
    sim->heap_mem = mem;
    sim->heap = h;
    sim->cap = cap;
    return 0;
}

static int heap_push(csd_sim *sim, u128 key, csd_sim_fn fn, void *arg) {
    if (sim->n == sim->cap && heap_grow(sim) != 0) return -ENOMEM;
    csd_event *h = sim->heap;
    size_t i = sim->n++;
    while (i > 0) {
        size_t parent = (i - 1) / HEAP_ARITY;
        if (key >= h[parent].key) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = (csd_event){ key, fn, arg };
    return 0;
}

int csd_sim_at(csd_sim *sim, uint64_t t, csd_sim_fn fn, void *arg) {
    /* (an event in the past would break monotonic time: it goes to the ring, to run "now") */
    if (t <= sim->now) return ring_push(sim, fn, arg);
    if (sim->n == sim->cap && heap_grow(sim) != 0) return -ENOMEM;   /* before the sequence is taken */
    return heap_push(sim, (u128)t << 64 | sim->next_seq++, fn, arg);
}

uint64_t csd_sim_seq_take(csd_sim *sim) { return sim->next_seq++; }

int csd_sim_at_seq(csd_sim *sim, uint64_t t, uint64_t seq, csd_sim_fn fn, void *arg) {
    /* Into the heap even when t is now: the ring holds only events whose sequence is later than
     * every other pending one of their time, and this one's is older. */
    if (t < sim->now) t = sim->now;
    return heap_push(sim, (u128)t << 64 | seq, fn, arg);
}

int csd_sim_step(csd_sim *sim) {
    /* the ring's head (t == now) runs unless the heap holds an event of the same time scheduled
     * before it */
    if (sim->rn) {
        const csd_event *r = &sim->ring[sim->rhead];
        if (sim->n == 0 || sim->heap[0].key > r->key) {
            csd_event ev = *r;
            sim->rhead = (sim->rhead + 1) & (sim->rcap - 1);
            sim->rn--;
            ev.fn(sim, ev.arg);
            return 1;
        }
    }
    if (sim->n == 0) return 0;
    csd_event *h = sim->heap;
    csd_event top = h[0];
    size_t n = --sim->n;
    if (n > 0) {
        const u128 lk = h[n].key;
        size_t i = 0;
        for (;;) {
            size_t c = HEAP_ARITY * i + 1;
            if (c >= n) break;
            size_t best = c;
            u128 bk = h[c].key;
            size_t end = c + HEAP_ARITY < n ? c + HEAP_ARITY : n;
            for (size_t k = c + 1; k < end; k++)
                if (h[k].key < bk) { bk = h[k].key; best = k; }
            if (bk >= lk) break;
            h[i] = h[best];
            i = best;
        }
        h[i] = h[n];
    }
    sim->now = EV_T(top.key);
    top.fn(sim, top.arg);
    return 1;
}

void csd_sim_advance(csd_sim *sim, uint64_t t) {
    /* Never jump over a pending event: that would run it in the past. */
    if (sim->rn) return;   /* one is due now */
    if (sim->n > 0 && EV_T(sim->heap[0].key) < t) t = EV_T(sim->heap[0].key);
    if (t > sim->now) sim->now = t;
}

uint64_t csd_xfer_ns(uint64_t bytes, uint64_t bytes_per_s) {
    if (bytes == 0 || bytes_per_s == 0) return 0;   /* rate 0 = link not modelled (infinitely fast) */
    /* Split so bytes * 1e9 cannot overflow: whole seconds plus the ceil of the remainder. */
    uint64_t whole = bytes / bytes_per_s, rem = bytes % bytes_per_s;
    u128 frac = ((u128)rem * 1000000000u + bytes_per_s - 1) / bytes_per_s;
    u128 ns = (u128)whole * 1000000000u + frac;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

uint64_t csd_serial_reserve(csd_serial *r, uint64_t ready, uint64_t dur) {
    uint64_t start = ready > r->busy_until ? ready : r->busy_until;
    r->busy_until = start + dur;
    r->busy_ns += dur;
    return r->busy_until;
}
