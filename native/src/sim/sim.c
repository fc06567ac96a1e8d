/* Discrete-event engine: a binary min-heap of events keyed by (time, insertion sequence). Events are
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

typedef struct csd_event {
    uint64_t t;
    uint64_t seq;            /* insertion order: breaks ties so equal-time events run FIFO */
    csd_sim_fn fn;
    void *arg;
} csd_event;

struct csd_sim {
    uint64_t now;
    uint64_t next_seq;
    csd_event *heap;
    size_t n, cap;
    csd_event *ring;         /* events at t == now, in sequence order */
    size_t rhead, rn, rcap;  /* rcap is 0 or a power of two */
};

csd_sim *csd_sim_create(void) {
    return calloc(1, sizeof(csd_sim));
}

void csd_sim_destroy(csd_sim *sim) {
    if (!sim) return;
    free(sim->heap);
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
    *t = sim->heap[0].t;
    return 1;
}

static int ev_before(const csd_event *a, const csd_event *b) {
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
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
    sim->ring[(sim->rhead + sim->rn++) & (sim->rcap - 1)] = (csd_event){ sim->now, sim->next_seq++, fn, arg };
    return 0;
}

int csd_sim_at(csd_sim *sim, uint64_t t, csd_sim_fn fn, void *arg) {
    if (t <= sim->now) return ring_push(sim, fn, arg);
    if (sim->n == sim->cap) {
        size_t cap = sim->cap ? sim->cap * 2 : 64;
        csd_event *h = realloc(sim->heap, cap * sizeof *h);
        if (!h) return -ENOMEM;
        sim->heap = h;
        sim->cap = cap;
    }
    /* (an event in the past would break monotonic time: it went to the ring, to run "now") */
    csd_event ev = { t, sim->next_seq++, fn, arg };
    size_t i = sim->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ev_before(&ev, &sim->heap[parent])) break;
        sim->heap[i] = sim->heap[parent];
        i = parent;
    }
    sim->heap[i] = ev;
    return 0;
}

int csd_sim_step(csd_sim *sim) {
    /* the ring's head (t == now) runs unless the heap holds an event of the same time scheduled
     * before it */
    if (sim->rn) {
        const csd_event *h = &sim->ring[sim->rhead];
        if (sim->n == 0 || sim->heap[0].t > h->t || sim->heap[0].seq > h->seq) {
            csd_event ev = *h;
            sim->rhead = (sim->rhead + 1) & (sim->rcap - 1);
            sim->rn--;
            ev.fn(sim, ev.arg);
            return 1;
        }
    }
    if (sim->n == 0) return 0;
    csd_event top = sim->heap[0];
    csd_event last = sim->heap[--sim->n];
    size_t i = 0, n = sim->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ev_before(&sim->heap[c + 1], &sim->heap[c])) c++;
        if (!ev_before(&sim->heap[c], &last)) break;
        sim->heap[i] = sim->heap[c];
        i = c;
    }
    if (n > 0) sim->heap[i] = last;
    sim->now = top.t;
    top.fn(sim, top.arg);
    return 1;
}

void csd_sim_advance(csd_sim *sim, uint64_t t) {
    /* Never jump over a pending event: that would run it in the past. */
    if (sim->rn) return;   /* one is due now */
    if (sim->n > 0 && sim->heap[0].t < t) t = sim->heap[0].t;
    if (t > sim->now) sim->now = t;
}

__extension__ typedef unsigned __int128 u128;   /* GCC and Clang; __extension__ keeps -Wpedantic quiet */

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
