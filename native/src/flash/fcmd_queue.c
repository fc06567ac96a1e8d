/* Queueing flash-command schedulers: per-chip hold lists and the hand-on rule (fcmd_queue.h).
 *
 * Order of service at a chip, for every policy: GC commands first (the DRS paper's on-demand GC,
 * VI-A: "processed with the highest priority"; GC reads and erases before GC programs, V-A), then any
 * command past its deadline (oldest first), then the policy's order; ties by insertion order. Per
 * chip: FIFOs for GC and, per request type, for deadlines; a heap for the policy's order; entries a
 * command left behind (handed on, re-placed) are skipped when they surface. Decisions are
 * made in an event at the current time, after everything due then, so commands submitted at the same
 * instant compete. */
#include "flash/fcmd_queue.h"

#include <errno.h>
#include <stdlib.h>

/* A held command as a structure saw it: stale once the command left or was re-placed (key). */
typedef struct qent {
    csd_flash_op *op;
    uint64_t seq, key;
    csd_fcmd_sortkey snap;   /* what it was ordered by, as it was (heap entries) */
} qent;

typedef struct qvec { qent *e; size_t n, cap, head; } qvec;   /* a FIFO (head) or a heap */

typedef struct qchip {
    qvec gc_rd, gc_pg;       /* GC reads and erases; GC programs (FIFO) */
    qvec dl[3];              /* by csd_req_type: arrival order, for deadlines (FIFO) */
    qvec heap;               /* the policy's order */
    size_t live;             /* held commands in the heap */
    uint32_t out;            /* handed on, not yet through the chip */
    uint8_t kick;
} qchip;

/* Held commands by submission number (csd_flash_op.seq) -> their current insertion key. Entries are
 * checked against it, never through their op pointer: a command handed on may complete and its
 * memory be freed while stale entries of it remain. */
typedef struct live_ent { uint64_t seq, key; } live_ent;   /* seq + 1 stored: 0 = empty */

typedef struct qstate {
    csd_flash *f;
    csd_fcmd_class cls;
    uint32_t nchips;
    qchip *c;
    uint64_t next_key;
    live_ent *live;
    size_t live_cap, live_n;
    struct kick_arg { struct qstate *q; uint32_t chip; int hop; } *args;
} qstate;

static size_t live_slot(const qstate *q, uint64_t seq) {
    return (size_t)((seq * 0x9e3779b97f4a7c15ull) >> 20) & (q->live_cap - 1);
}

static int live_get(const qstate *q, uint64_t seq, uint64_t *key) {
    if (!q->live_cap) return 0;
    for (size_t i = live_slot(q, seq);; i = (i + 1) & (q->live_cap - 1)) {
        if (!q->live[i].seq) return 0;
        if (q->live[i].seq == seq + 1) {
            *key = q->live[i].key;
            return 1;
        }
    }
}

static int live_put(qstate *q, uint64_t seq, uint64_t key) {
    if ((q->live_n + 1) * 2 > q->live_cap) {
        size_t cap = q->live_cap ? q->live_cap * 2 : 256;
        live_ent *n = calloc(cap, sizeof *n), *old = q->live;
        if (!n) return -ENOMEM;
        size_t oc = q->live_cap;
        q->live = n;
        q->live_cap = cap;
        q->live_n = 0;
        for (size_t i = 0; i < oc; i++)
            if (old[i].seq) (void)live_put(q, old[i].seq - 1, old[i].key);
        free(old);
    }
    size_t i = live_slot(q, seq);
    while (q->live[i].seq && q->live[i].seq != seq + 1) i = (i + 1) & (q->live_cap - 1);
    if (!q->live[i].seq) q->live_n++;
    q->live[i] = (live_ent){ seq + 1, key };
    return 0;
}

static void live_del(qstate *q, uint64_t seq) {
    if (!q->live_cap) return;
    size_t i = live_slot(q, seq);
    while (q->live[i].seq && q->live[i].seq != seq + 1) i = (i + 1) & (q->live_cap - 1);
    if (!q->live[i].seq) return;
    q->live[i].seq = 0;
    q->live_n--;
    for (size_t j = (i + 1) & (q->live_cap - 1); q->live[j].seq; j = (j + 1) & (q->live_cap - 1)) {
        live_ent e = q->live[j];
        q->live[j].seq = 0;
        q->live_n--;
        (void)live_put(q, e.seq - 1, e.key);   /* no growth: the count did not rise */
    }
}

/* FIFO entries: the command is still held; heap entries: and still at that place (key). */
static int valid_fifo(const qstate *q, const qent *e) {
    uint64_t k;
    return live_get(q, e->seq, &k);
}
static int valid(const qstate *q, const qent *e) {
    uint64_t k;
    return live_get(q, e->seq, &k) && k == e->key;
}

static int vec_push(qvec *v, const qent *e) {
    if (v->n == v->cap) {
        if (v->head > v->cap / 2) {   /* a FIFO: reclaim the consumed front */
            for (size_t i = v->head; i < v->n; i++) v->e[i - v->head] = v->e[i];
            v->n -= v->head;
            v->head = 0;
        } else {
            size_t cap = v->cap ? v->cap * 2 : 16;
            qent *n = realloc(v->e, cap * sizeof *n);
            if (!n) return -ENOMEM;
            v->e = n;
            v->cap = cap;
        }
    }
    v->e[v->n++] = *e;
    return 0;
}

/* the first still-held command of a FIFO, or NULL */
static qent *fifo_head(const qstate *q, qvec *v) {
    while (v->head < v->n && !valid_fifo(q, &v->e[v->head])) v->head++;
    if (v->head == v->n) v->head = v->n = 0;
    return v->head < v->n ? &v->e[v->head] : NULL;
}

static int heap_less(const qstate *q, const qent *a, const qent *b) {
    if (q->cls.before(&a->snap, &b->snap)) return 1;
    if (q->cls.before(&b->snap, &a->snap)) return 0;
    return a->key < b->key;
}

static void heap_up(const qstate *q, qvec *h, size_t i) {
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(q, &h->e[i], &h->e[p])) break;
        qent t = h->e[i];
        h->e[i] = h->e[p];
        h->e[p] = t;
        i = p;
    }
}

static void heap_down(const qstate *q, qvec *h, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && heap_less(q, &h->e[l], &h->e[m])) m = l;
        if (r < h->n && heap_less(q, &h->e[r], &h->e[m])) m = r;
        if (m == i) return;
        qent t = h->e[i];
        h->e[i] = h->e[m];
        h->e[m] = t;
        i = m;
    }
}

static void heap_pop(const qstate *q, qvec *h) {
    h->e[0] = h->e[--h->n];
    if (h->n) heap_down(q, h, 0);
}

static int heap_push(qstate *q, qchip *c, csd_flash_op *op) {
    qent e = { op, op->seq, FQ_KEY(op),
               { op->kind, op->req_type, op->ri[2].type, op->req_pages, op->ri[0].fot_ns, op->ri[2].fot_ns } };
    if (vec_push(&c->heap, &e)) return -ENOMEM;
    heap_up(q, &c->heap, c->heap.n - 1);
    return 0;
}

static void decide(qstate *q, uint32_t c);

/* Drop stale heap entries once they outnumber the live ones (re-placed commands, commands taken
 * by their deadline). */
static void compact(qstate *q, qchip *c) {
    if (c->heap.n <= 2 * c->live + 64) return;
    size_t k = 0;
    for (size_t i = 0; i < c->heap.n; i++)
        if (valid(q, &c->heap.e[i])) c->heap.e[k++] = c->heap.e[i];
    c->heap.n = k;
    for (size_t i = k / 2 + 1; i-- > 0;) heap_down(q, &c->heap, i);
}

/* Two hops at the same instant: completions already due now (a read's firmware step ends in an
 * event scheduled just after the chip is released) submit their set's next command first. */
static void kick_ev(csd_sim *sim, void *arg) {
    (void)sim;
    struct kick_arg *a = arg;
    if (!a->hop) {
        a->hop = 1;
        csd_flash_at(a->q->f, csd_flash_now(a->q->f), kick_ev, a);
        return;
    }
    a->hop = 0;
    a->q->c[a->chip].kick = 0;
    decide(a->q, a->chip);
}

static int any_held(const qstate *q, qchip *c) {
    return fifo_head(q, &c->gc_rd) || fifo_head(q, &c->gc_pg) || c->live;
}

static void kick(qstate *q, uint32_t ci) {
    qchip *c = &q->c[ci];
    if (c->kick || c->out || !any_held(q, c)) return;
    c->kick = 1;
    csd_flash_at(q->f, csd_flash_now(q->f), kick_ev, &q->args[ci]);
}

static uint64_t deadline(const qstate *q, uint8_t type) {
    return type == CSD_REQ_READ ? q->cls.read_deadline_ns : type == CSD_REQ_WRITE ? q->cls.write_deadline_ns : 0;
}

static csd_flash_op *pick(qstate *q, qchip *c, uint64_t now) {
    qent *e;
    if ((e = fifo_head(q, &c->gc_rd)) != NULL || (e = fifo_head(q, &c->gc_pg)) != NULL) return e->op;
    /* past its deadline: the oldest such command first */
    qent *best = NULL;
    for (int t = CSD_REQ_READ; t <= CSD_REQ_WRITE; t++) {
        uint64_t dl = deadline(q, (uint8_t)t);
        if (!dl || !(e = fifo_head(q, &c->dl[t])) || now - e->op->submit_ns < dl) continue;
        if (!best || e->op->submit_ns < best->op->submit_ns ||
            (e->op->submit_ns == best->op->submit_ns && FQ_KEY(e->op) < FQ_KEY(best->op)))
            best = e;
    }
    if (best) return best->op;
    while (c->heap.n && !valid(q, &c->heap.e[0])) heap_pop(q, &c->heap);
    return c->heap.n ? c->heap.e[0].op : NULL;
}

static void decide(qstate *q, uint32_t ci) {
    qchip *c = &q->c[ci];
    if (c->out || !csd_flash_chip_idle(q->f, ci)) return;
    csd_flash_op *op = pick(q, c, csd_flash_now(q->f));
    if (!op) return;
    if (op->src != CSD_SRC_GC) c->live--;
    FQ_HELD(op) = 0;
    live_del(q, op->seq);   /* every entry of it is stale now */
    op->next = NULL;
    compact(q, c);
    c->out++;
    csd_flash_dispatch(q->f, op);
}

void csd_fcmd_queue_submit(void *state, csd_flash_op *op, uint64_t now) {
    (void)now;
    qstate *q = state;
    uint32_t ci = csd_flash_chip_of(q->f, op);
    qchip *c = &q->c[ci];
    FQ_KEY(op) = q->next_key++;
    FQ_HELD(op) = 1;
    qent e = { op, op->seq, FQ_KEY(op), { 0 } };
    int rc = live_put(q, op->seq, FQ_KEY(op));
    if (rc) {
        FQ_HELD(op) = 0;
        csd_flash_dispatch(q->f, op);
        return;
    }
    if (op->src == CSD_SRC_GC) {
        rc = vec_push(op->kind == CSD_FLASH_PROGRAM ? &c->gc_pg : &c->gc_rd, &e);
    } else {
        rc = heap_push(q, c, op);
        if (!rc && op->req_type <= CSD_REQ_WRITE && deadline(q, op->req_type)) rc = vec_push(&c->dl[op->req_type], &e);
        if (!rc) c->live++;
    }
    if (rc) {
        FQ_HELD(op) = 0;   /* out of memory: to the chip at once rather than lose it */
        live_del(q, op->seq);
        csd_flash_dispatch(q->f, op);
        return;
    }
    kick(q, ci);
}

void csd_fcmd_queue_chip_idle(void *state, uint32_t chip, uint64_t now) {
    (void)now;
    qstate *q = state;
    if (chip >= q->nchips) return;
    if (q->c[chip].out) q->c[chip].out--;
    kick(q, chip);
}

/* Algorithm 1 inserts a re-placed command behind those of equal FOT: a new insertion key and a new
 * heap entry do that (policies that sort by reqInfo[2]); the others keep their order. */
void csd_fcmd_queue_requeue(void *state, csd_flash_op *op, uint64_t now) {
    (void)now;
    qstate *q = state;
    if (!FQ_HELD(op) || !q->cls.requeue_moves || op->src == CSD_SRC_GC) return;
    qchip *c = &q->c[csd_flash_chip_of(q->f, op)];
    uint64_t old = FQ_KEY(op);
    FQ_KEY(op) = q->next_key++;
    if (heap_push(q, c, op) || live_put(q, op->seq, FQ_KEY(op))) {
        FQ_KEY(op) = old;   /* out of memory: keep its old place */
        (void)live_put(q, op->seq, old);
    }
    compact(q, c);
}

void csd_fcmd_queue_destroy(void *state) {
    qstate *q = state;
    if (!q) return;
    if (q->c) {
        for (uint32_t i = 0; i < q->nchips; i++) {
            qchip *c = &q->c[i];
            free(c->gc_rd.e);
            free(c->gc_pg.e);
            for (int t = 0; t < 3; t++) free(c->dl[t].e);
            free(c->heap.e);
        }
    }
    free(q->c);
    free(q->args);
    free(q->live);
    free(q);
}

int csd_fcmd_queue_init(void **state, const csd_params *p, csd_flash *f, const csd_fcmd_class *cls) {
    qstate *q = calloc(1, sizeof *q);
    if (!q) return -ENOMEM;
    q->f = f;
    q->cls = *cls;
    q->nchips = p->channels * p->chips_per_channel;
    q->c = calloc(q->nchips, sizeof *q->c);
    q->args = calloc(q->nchips, sizeof *q->args);
    if (!q->c || !q->args) {
        csd_fcmd_queue_destroy(q);
        return -ENOMEM;
    }
    for (uint32_t c = 0; c < q->nchips; c++) q->args[c] = (struct kick_arg){ q, c, 0 };
    *state = q;
    return 0;
}
