/* Per-chip sub-request queues for the reordering chip-queue policies (chip_queue.h). */
#include "flash/chip_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t cq_est(const cq *q, const csd_flash_op *op) {
    switch (op->kind) {
    case CSD_FLASH_READ: return csd_flash_cell_ns(&q->p, CSD_FLASH_READ, op->ppn) + q->xfer_ns;
    case CSD_FLASH_PROGRAM: return q->xfer_ns + csd_flash_cell_ns(&q->p, CSD_FLASH_PROGRAM, op->ppn);
    default: return csd_flash_cell_ns(&q->p, CSD_FLASH_ERASE, op->ppn);
    }
}

void cq_insert(cq *q, uint32_t chip, size_t i, csd_flash_op *op) {
    cq_chip *c = &q->c[chip];
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        csd_flash_op **a = realloc(c->q, cap * sizeof *a);
        if (!a) abort();   /* the flash model cannot drop an operation; as the event heap does */
        c->q = a;
        c->cap = cap;
    }
    memmove(c->q + i + 1, c->q + i, (c->n - i) * sizeof *c->q);
    c->q[i] = op;
    c->n++;
    c->q_est += cq_est(q, op);
    if (op->kind == CSD_FLASH_READ) c->q_est_rd += cq_est(q, op);
}

csd_flash_op *cq_remove(cq *q, uint32_t chip, size_t i) {
    cq_chip *c = &q->c[chip];
    csd_flash_op *op = c->q[i];
    memmove(c->q + i, c->q + i + 1, (c->n - i - 1) * sizeof *c->q);
    c->n--;
    c->q_est -= cq_est(q, op);
    if (op->kind == CSD_FLASH_READ) c->q_est_rd -= cq_est(q, op);
    return op;
}

static void admit(cq *q, uint32_t chip, csd_flash_op *op, uint64_t now) {
    if (q->h.place) q->h.place(q, chip, op, now);
    else cq_insert(q, chip, q->c[chip].n, op);
}

static void wait_push(cq *q, uint32_t chip, csd_flash_op *op) {
    cq_chip *c = &q->c[chip];
    op->next = NULL;
    if (c->wait_tail) c->wait_tail->next = op; else c->wait_head = op;
    c->wait_tail = op;
    c->nwait++;
    c->wait_est += cq_est(q, op);
    if (op->kind == CSD_FLASH_READ) c->wait_est_rd += cq_est(q, op);
}

static int has_room(const cq *q, uint32_t chip) { return !q->slots || q->c[chip].n < q->slots; }

/* Expected end of what chip holds that would be served before an arriving op: everything, or under
 * read priority, for a read, the reads (and the operation in service). */
static uint64_t chip_end(const cq *q, uint32_t chip, const csd_flash_op *op, uint64_t now) {
    const cq_chip *c = &q->c[chip];
    uint64_t ahead = q->h.read_first && op->kind == CSD_FLASH_READ ? c->q_est_rd + c->wait_est_rd : c->q_est + c->wait_est;
    return (c->busy_until > now ? c->busy_until : now) + ahead;
}

/* Slack of one request's sub-requests arriving together (2PM IV-C, after Slacker): each chip's expected
 * end with the group's operations added (and those of the groups that arrived before it at this
 * instant, in pend); an operation's slack is the latest of the group's chips minus its own chip's. */
static void group_slack(cq *q, csd_flash_op **g, size_t n, uint64_t *pend, uint64_t now) {
    uint64_t worst = 0;
    for (size_t i = 0; i < n; i++) pend[cq_chip_of(g[i])] += cq_est(q, g[i]);
    for (size_t i = 0; i < n; i++) {
        uint32_t ch = cq_chip_of(g[i]);
        uint64_t end = chip_end(q, ch, g[i], now) + pend[ch];
        if (end > worst) worst = end;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t ch = cq_chip_of(g[i]);
        CQ_SLACK_NS(g[i]) = (int64_t)(worst - (chip_end(q, ch, g[i], now) + pend[ch]));
    }
}

/* Place what arrived at instant now, in arrival order (admitted when the chip has a slot). */
static void flush(cq *q, uint64_t now) {
    if (!q->in_head) return;
    size_t n = 0;
    for (csd_flash_op *op = q->in_head; op; op = op->next) n++;
    csd_flash_op **v = malloc(n * sizeof *v), **g = malloc(n * sizeof *g);
    uint64_t *pend = calloc(q->chips, sizeof *pend);
    uint8_t *done = calloc(n, 1);
    if (!v || !g || !pend || !done) abort();
    n = 0;
    for (csd_flash_op *op = q->in_head; op; op = op->next) v[n++] = op;
    q->in_head = q->in_tail = NULL;
    if (q->h.slack) {
        for (size_t i = 0; i < n; i++) {
            if (done[i]) continue;
            size_t ng = 0;
            for (size_t j = i; j < n; j++) {
                if (done[j] || (j != i && (!v[i]->owner || v[j]->owner != v[i]->owner))) continue;
                done[j] = 1;
                g[ng++] = v[j];
            }
            group_slack(q, g, ng, pend, now);
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t ch = cq_chip_of(v[i]);
        v[i]->next = NULL;
        if (has_room(q, ch) && !q->c[ch].wait_head) admit(q, ch, v[i], now);
        else wait_push(q, ch, v[i]);
    }
    free(v);
    free(g);
    free(pend);
    free(done);
}

int cq_init(void **state, const csd_params *p, uint32_t chips, const cq_hooks *h, void *pol) {
    cq *q = calloc(1, sizeof *q);
    if (!q) return -ENOMEM;
    q->c = calloc(chips ? chips : 1, sizeof *q->c);
    if (!q->c) {
        free(q);
        return -ENOMEM;
    }
    q->p = *p;
    q->chips = chips;
    q->slots = p->chip_queue_slots;
    q->h = *h;
    q->pol = pol;
    q->xfer_ns = csd_xfer_ns(p->page_bytes, p->channel_bytes_per_s);
    *state = q;
    return 0;
}

void cq_enqueue(void *state, uint32_t chip, csd_flash_op *op, uint64_t now) {
    cq *q = state;
    /* an earlier instant's arrivals are complete: place them as of then (nothing was decided since) */
    if (q->in_head && q->in_time != now) flush(q, q->in_time);
    CQ_CHIP(op) = chip;
    op->next = NULL;
    if (q->in_tail) q->in_tail->next = op; else q->in_head = op;
    q->in_tail = op;
    q->in_time = now;
}

csd_flash_op *cq_next(void *state, uint32_t chip, uint64_t now) {
    cq *q = state;
    flush(q, q->in_time);
    cq_chip *c = &q->c[chip];
    csd_flash_op *op = NULL;
    if (q->h.take) op = q->h.take(q, chip, now);
    else if (c->n) op = cq_remove(q, chip, 0);
    if (!op) return NULL;
    op->next = NULL;
    c->busy_until = now + cq_est(q, op);
    /* a slot freed: the oldest waiting operation takes it */
    while (c->wait_head && has_room(q, chip)) {
        csd_flash_op *w = c->wait_head;
        if (!(c->wait_head = w->next)) c->wait_tail = NULL;
        c->nwait--;
        c->wait_est -= cq_est(q, w);
        if (w->kind == CSD_FLASH_READ) c->wait_est_rd -= cq_est(q, w);
        w->next = NULL;
        admit(q, chip, w, now);
    }
    return op;
}

void cq_reorder(void *state, const void *owner, uint8_t match, uint64_t now) {
    cq *q = state;
    flush(q, q->in_time);
    for (uint32_t ch = 0; ch < q->chips; ch++) {
        cq_chip *c = &q->c[ch];
        int raised = 0;
        for (size_t i = 0; i < c->n; i++) {
            if (c->q[i]->owner == owner && c->q[i]->match < match) {
                c->q[i]->match = match;
                raised = 1;
            }
        }
        /* waiting ones keep their place in the FIFO but enter the queue with their new class */
        for (csd_flash_op *w = c->wait_head; w; w = w->next)
            if (w->owner == owner && w->match < match) w->match = match;
        if (raised && q->h.reorder) q->h.reorder(q, ch, owner, now);
    }
}

void cq_attach(void *state, const csd_flash *f) { ((cq *)state)->f = f; }

void cq_destroy(void *state) {
    cq *q = state;
    for (uint32_t ch = 0; ch < q->chips; ch++) free(q->c[ch].q);
    free(q->c);
    free(q);
}
