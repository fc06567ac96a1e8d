/* Offline heuristic optimum (REMUS paper section IV-A): "first aligns each Stage S and Stage F for
 * each LBA of the requests iteratively to gain the best performance for fetching data, and then
 * inserts the Stage P between the Stage S to fit into the buffer constraints."
 *
 * Cores are independent in this model (eq. 5 gives each core its own chips; the buffer is split per
 * core), so each core is scheduled alone, on one timeline, knowing every chip's future:
 *   1. Stage S/F alignment: the flash requests (eq. 4 and multi-plane sub-requests, as the engine)
 *      are queued per chip, sorted by c_i. Whenever the core is free and some chip will be free when
 *      a send ends, the core sends to that chip (quota Q and the core's buffer share permitting): the
 *      flash never waits for a send the core could have made. It sends that chip's heaviest request
 *      while the processing work already fetched or in flight (the backlog) is below 2 T_f, else the
 *      lightest: the core never runs dry, the buffer does not fill with heavy pages that would
 *      throttle the flash later, and what is left for the end is light.
 *   2. Stage P insertion: otherwise the core processes a ready page (in arrival order); with nothing
 *      ready it sends ahead to the chip that frees first; with nothing to send it idles until the
 *      next page lands.
 * Constraints (1)-(3) hold with B = the core's whole buffer share (the optimum is not bound to
 * per-request buffers). The lower bound per core is max(core work + the idle wait for the first page,
 * busiest chip's reads + T_s + the cheapest page). */
#include "lib/optimum.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/assign.h"

typedef struct unit { uint32_t req, pages; } unit;
typedef struct arrival { uint64_t t; uint32_t req, pages; } arrival;

typedef struct chipq {
    unit *u;
    size_t n, cap, head, tail;   /* unsent: [head, tail) */
    uint64_t free_at;
    uint64_t work;            /* sends * T_f */
} chipq;


static int heavier_first(const void *a, const void *b, void *arg) {
    const csd_synth_req *r = arg;
    const unit *x = a, *y = b;
    if (r[x->req].ci_ns != r[y->req].ci_ns) return r[x->req].ci_ns > r[y->req].ci_ns ? -1 : 1;
    return x->req < y->req ? -1 : x->req > y->req;
}

/* min-heap of arrivals by time */
typedef struct heap { arrival *a; size_t n, cap; } heap;

static int heap_push(heap *h, arrival v) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        arrival *a = realloc(h->a, cap * sizeof *a);
        if (!a) return -ENOMEM;
        h->a = a;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i && h->a[(i - 1) / 2].t > v.t) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = v;
    return 0;
}

static arrival heap_pop(heap *h) {
    arrival top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->a[c + 1].t < h->a[c].t) c++;
        if (h->a[c].t >= last.t) break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n) h->a[i] = last;
    return top;
}

/* FIFO of ready pages, as runs of (request, count) */
typedef struct fifo { arrival *a; size_t n, cap, head; } fifo;

static int fifo_push(fifo *f, arrival v) {
    if (f->n == f->cap) {
        if (f->head) {
            memmove(f->a, f->a + f->head, (f->n - f->head) * sizeof *f->a);
            f->n -= f->head;
            f->head = 0;
        }
        if (f->n == f->cap) {
            size_t cap = f->cap ? f->cap * 2 : 64;
            arrival *a = realloc(f->a, cap * sizeof *a);
            if (!a) return -ENOMEM;
            f->a = a;
            f->cap = cap;
        }
    }
    f->a[f->n++] = v;
    return 0;
}

static int core_schedule(const csd_params *p, const csd_synth_req *reqs, chipq *q, uint32_t nq,
                         uint64_t Q, uint64_t buf, csd_optimum *out, uint64_t *end, uint64_t *bound) {
    const uint64_t Ts = p->isp_send_ns, Tf = p->t_read_ns;
    heap h = { 0 };
    fifo f = { 0 };
    uint64_t t = 0, inflight = 0, held = 0, left = 0, cpu = 0, maxchip = 0, cheapest = UINT64_MAX;
    uint64_t backlog = 0;
    for (uint32_t c = 0; c < nq; c++) {
        q[c].head = 0;
        q[c].tail = q[c].n;
        left += q[c].n;
        if (q[c].work > maxchip) maxchip = q[c].work;
        for (size_t i = 0; i < q[c].n; i++) {
            const csd_synth_req *r = &reqs[q[c].u[i].req];
            cpu += Ts + q[c].u[i].pages * r->ci_ns;
            if (r->ci_ns < cheapest) cheapest = r->ci_ns;
        }
    }
    *end = 0;
    /* before the first page lands (T_s + T_f) the core can only send, at most Q / N_pl requests */
    uint64_t ops = Q / (p->planes_per_die ? p->planes_per_die : 1), idle = Tf > (ops ? ops - 1 : 0) * Ts
                   ? Tf - (ops ? ops - 1 : 0) * Ts : 0;
    uint64_t b_cpu = cpu + idle, b_flash = maxchip + Ts + cheapest;
    *bound = left ? (b_cpu > b_flash ? b_cpu : b_flash) : 0;
    int rc = 0;
    while (left || h.n || f.head < f.n) {
        while (h.n && h.a[0].t <= t) {
            arrival a = heap_pop(&h);
            inflight -= a.pages;
            if ((rc = fifo_push(&f, a))) goto done;
        }
        /* the chip that frees first among those with work left, and its unit */
        int best = -1;
        for (uint32_t c = 0; c < nq; c++)
            if (q[c].head < q[c].tail && (best < 0 || q[c].free_at < q[best].free_at)) best = (int)c;
        int heavy = backlog < 2 * Tf;
        const unit *next = best < 0 ? NULL : heavy ? &q[best].u[q[best].head] : &q[best].u[q[best].tail - 1];
        int can_send = next && inflight + next->pages <= Q && held + next->pages <= buf;
        int ready = f.head < f.n;
        if (can_send && (q[best].free_at <= t + Ts || !ready)) {
            unit u = heavy ? q[best].u[q[best].head++] : q[best].u[--q[best].tail];
            backlog += u.pages * reqs[u.req].ci_ns;
            uint64_t start = t + Ts > q[best].free_at ? t + Ts : q[best].free_at;
            q[best].free_at = start + Tf;
            inflight += u.pages;
            held += u.pages;
            left--;
            out->sends++;
            if ((rc = heap_push(&h, (arrival){ start + Tf, u.req, u.pages }))) goto done;
            t += Ts;
        } else if (ready) {
            arrival *a = &f.a[f.head];
            t += reqs[a->req].ci_ns;
            backlog -= reqs[a->req].ci_ns;
            held--;
            out->pages++;
            if (--a->pages == 0) f.head++;
            if (t > *end) *end = t;
        } else if (h.n) {
            t = h.a[0].t;            /* idle until the next page lands */
        } else {
            break;                   /* cannot happen: quota and buffer free up as pages land */
        }
    }
done:
    free(h.a);
    free(f.a);
    return rc;
}

int csd_optimum_schedule(const csd_params *p, const csd_synth_req *reqs, size_t n, csd_optimum *out) {
    memset(out, 0, sizeof *out);
    uint32_t chips = p->channels * p->chips_per_channel, cores = p->cores, npl = p->planes_per_die;
    if (!chips || !cores || !npl || p->dies_per_chip != 1) return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (reqs[i].arrive_ns) return -EINVAL;
    chipq *q = calloc(chips, sizeof *q);
    if (!q) return -ENOMEM;
    int rc = 0;
    /* the flash requests: eq. 4 (chip of the LBA), multi-plane when the LBA is plane-aligned */
    for (size_t i = 0; i < n && !rc; i++) {
        for (uint64_t k = 0; k < reqs[i].pages;) {
            uint64_t lba = reqs[i].lba_page + k;
            uint32_t chip = csd_assign_chip(lba * p->page_bytes, npl, p->page_bytes, chips);
            uint32_t pages = csd_assign_subreq_pages(lba, npl);
            if (k + pages > reqs[i].pages) pages = 1;
            chipq *c = &q[chip];
            if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 256;
                unit *u = realloc(c->u, cap * sizeof *u);
                if (!u) {
                    rc = -ENOMEM;
                    break;
                }
                c->u = u;
                c->cap = cap;
            }
            c->u[c->n++] = (unit){ (uint32_t)i, pages };
            c->work += p->t_read_ns;
            k += pages;
        }
    }
    uint64_t buf_pages = p->isp_buffer_bytes / p->page_bytes / cores;
    for (uint32_t k = 0; k < cores && !rc; k++) {
        /* core k's chips (eq. 5), each queue heaviest first */
        uint32_t nq = 0;
        chipq *mine = calloc(chips, sizeof *mine);
        if (!mine) {
            rc = -ENOMEM;
            break;
        }
        for (uint32_t c = 0; c < chips; c++) {
            if (csd_assign_core(c, cores) != k) continue;
            qsort_r(q[c].u, q[c].n, sizeof *q[c].u, heavier_first, (void *)reqs);
            mine[nq++] = q[c];
        }
        uint64_t Q = p->isp_flash_quota ? p->isp_flash_quota : (uint64_t)(nq ? nq : 1) * npl;
        uint64_t end = 0, bound = 0;
        rc = core_schedule(p, reqs, mine, nq, Q, buf_pages ? buf_pages : 1, out, &end, &bound);
        if (end > out->makespan_ns) out->makespan_ns = end;
        if (bound > out->bound_ns) out->bound_ns = bound;
        free(mine);
    }
    for (uint32_t c = 0; c < chips; c++) free(q[c].u);
    free(q);
    return rc;
}
