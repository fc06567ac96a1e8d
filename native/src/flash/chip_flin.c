/* Chip-queue policies "flin" and "flin-src" (Tavakkol et al., "FLIN: enabling fairness and enhancing
 * performance in modern NVMe solid state drives", ISCA'18, a baseline of the 2PM paper, V-A). FLIN is
 * a transaction scheduler on each chip's queues, as here; its flows are the host's I/O streams (the
 * NVMe submission queues). The two policies are two readings of what a flow is in this device:
 *   flin      the paper's: the host's two submission paths, host commands and tasklet requests; garbage
 *             collection and mapping-table operations belong to no flow (FLIN keeps them apart from
 *             the fairness): they join the tail of their kind and are neither counted nor protected;
 *   flin-src  every source of operations is a flow (host, garbage collection, tasklets, map pages), so
 *             migration competes for fairness with the host's streams.
 * What both do:
 *   stage 1, fairness-aware queue insertion, within reads and within programs and erases: an operation
 *     of a low-intensity flow (one that brought fewer than a fair share of the chip's operations in the
 *     last epoch) goes behind the other low-intensity ones, ahead of the high-intensity ones; one of a
 *     high-intensity flow goes last, and when the flows' average slowdowns are unfair (min / max below
 *     F_thr) and its flow is the slowest, it moves ahead of other flows' operations (as far as the
 *     low-intensity ones or a barrier) and becomes a barrier;
 *   stage 3, wait-balancing selection: the chip serves the read or the program/erase at the head of
 *     its kind whose wait, relative to its service time, is longer.
 * A slowdown is (wait so far + service ahead of it + its own) / (its own flow's service ahead + its
 * own). FLIN's stage 2 (priority classes) has one class here; its ReorderForFairness position search
 * is left out. */
#include "flash/chip_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NFLOW 4
#define EPOCH_NS 10000000ull      /* 10 ms: flow intensity is judged per epoch */
#define F_THR 0.6                 /* fairness threshold */

typedef struct flin_chip {
    uint64_t epoch;               /* index of the current epoch */
    uint32_t now_count[NFLOW], last_count[NFLOW];
} flin_chip;

typedef struct flin { flin_chip *c; int host_flows; } flin;

static int is_read(const csd_flash_op *op) { return op->kind == CSD_FLASH_READ; }
/* op's flow, or -1 for an operation that belongs to none (flin: garbage collection, map pages) */
static int flow_of(const flin *s, const csd_flash_op *op) {
    if (s->host_flows && op->src != CSD_SRC_HOST && op->src != CSD_SRC_ISP) return -1;
    return op->src % NFLOW;
}

static void roll(flin_chip *fc, uint64_t now) {
    uint64_t ep = now / EPOCH_NS;
    if (ep == fc->epoch) return;
    if (ep == fc->epoch + 1) memcpy(fc->last_count, fc->now_count, sizeof fc->now_count);
    else memset(fc->last_count, 0, sizeof fc->last_count);
    memset(fc->now_count, 0, sizeof fc->now_count);
    fc->epoch = ep;
}

static int low_intensity(const flin_chip *fc, int fl) {
    uint32_t total = 0, active = 0;
    for (int i = 0; i < NFLOW; i++) {
        total += fc->last_count[i];
        active += fc->last_count[i] > 0;
    }
    /* below half of an equal share of the last epoch's arrivals */
    return !active || (uint64_t)fc->last_count[fl] * 2 * active < total;
}

/* Average slowdown per flow of the operations of op's kind in the queue. */
static void slowdowns(const cq *q, uint32_t chip, int reads, uint64_t now, double *avg, int *present) {
    const cq_chip *c = &q->c[chip];
    const flin *s = q->pol;
    double sum[NFLOW] = { 0 };
    uint32_t n[NFLOW] = { 0 };
    uint64_t ahead = c->busy_until > now ? c->busy_until - now : 0, own_ahead[NFLOW] = { 0 };
    for (size_t i = 0; i < c->n; i++) {
        const csd_flash_op *o = c->q[i];
        uint64_t est = cq_est(q, o);
        int fl = flow_of(s, o);
        if (is_read(o) == reads && fl >= 0) {
            double shared = (double)(now - o->submit_ns + ahead + est);
            double alone = (double)(own_ahead[fl] + est);
            sum[fl] += shared / alone;
            n[fl]++;
            own_ahead[fl] += est;
        }
        ahead += est;
    }
    for (int i = 0; i < NFLOW; i++) {
        present[i] = n[i] > 0;
        avg[i] = n[i] ? sum[i] / n[i] : 0;
    }
}

static void place(cq *q, uint32_t chip, csd_flash_op *op, uint64_t now) {
    flin *s = q->pol;
    flin_chip *fc = &s->c[chip];
    roll(fc, now);
    int fl = flow_of(s, op);
    cq_chip *c = &q->c[chip];
    if (fl < 0) {
        cq_insert(q, chip, c->n, op);   /* no flow: the tail, outside the fairness */
        return;
    }
    fc->now_count[fl]++;
    /* the tail of this kind's low-intensity operations */
    size_t low_end = 0;
    for (size_t i = 0; i < c->n; i++)
        if (is_read(c->q[i]) == is_read(op) && flow_of(s, c->q[i]) >= 0 && low_intensity(fc, flow_of(s, c->q[i])))
            low_end = i + 1;
    if (low_intensity(fc, fl)) {
        cq_insert(q, chip, low_end, op);
        return;
    }
    cq_insert(q, chip, c->n, op);
    double avg[NFLOW];
    int present[NFLOW];
    slowdowns(q, chip, is_read(op), now, avg, present);
    double mn = 0, mx = 0;
    int slowest = -1, flows = 0;
    for (int i = 0; i < NFLOW; i++) {
        if (!present[i]) continue;
        if (!flows || avg[i] < mn) mn = avg[i];
        if (!flows || avg[i] > mx) { mx = avg[i]; slowest = i; }
        flows++;
    }
    if (flows < 2 || mx <= 0 || mn / mx >= F_THR || slowest != fl) return;
    /* MoveForward: ahead of other flows' operations, not past its own flow's, a barrier, or the
     * low-intensity ones */
    size_t i = c->n - 1;
    while (i > low_end && flow_of(s, c->q[i - 1]) != fl && !CQ_BARRIER(c->q[i - 1])) {
        csd_flash_op *b = c->q[i - 1];
        c->q[i - 1] = c->q[i];
        c->q[i] = b;
        CQ_PASSED(b)++;
        i--;
    }
    CQ_BARRIER(op) = 1;
}

/* Stage 3: the head read or the head program/erase, whichever waited longer for its service time. */
static csd_flash_op *take(cq *q, uint32_t chip, uint64_t now) {
    cq_chip *c = &q->c[chip];
    long r = -1, w = -1;
    for (size_t i = 0; i < c->n && (r < 0 || w < 0); i++) {
        if (is_read(c->q[i])) { if (r < 0) r = (long)i; }
        else if (w < 0) w = (long)i;
    }
    if (r < 0 && w < 0) return NULL;
    long pick = r;
    if (r < 0) {
        pick = w;
    } else if (w >= 0) {
        const csd_flash_op *a = c->q[r], *b = c->q[w];
        /* (now - submit) / est, compared without division */
        unsigned __int128 ra = (unsigned __int128)(now - a->submit_ns) * cq_est(q, b);
        unsigned __int128 wb = (unsigned __int128)(now - b->submit_ns) * cq_est(q, a);
        if (wb > ra) pick = w;
    }
    return cq_remove(q, chip, (size_t)pick);
}

static int init_common(void **state, const csd_params *p, uint32_t chips, int host_flows) {
    flin *s = calloc(1, sizeof *s);
    if (!s || !(s->c = calloc(chips ? chips : 1, sizeof *s->c))) {
        free(s);
        return -ENOMEM;
    }
    s->host_flows = host_flows;
    cq_hooks h = { .place = place, .take = take };
    int rc = cq_init(state, p, chips, &h, s);
    if (rc) {
        free(s->c);
        free(s);
    }
    return rc;
}

static void destroy(void *state) {
    flin *s = ((cq *)state)->pol;
    free(s->c);
    free(s);
    cq_destroy(state);
}

static int init_host(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 1); }
static int init_src(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 0); }

const csd_chip_sched_ops csd_chip_sched_flin = {
    .name = "flin", .init = init_host, .enqueue = cq_enqueue, .next = cq_next, .destroy = destroy, .attach = cq_attach,
};

const csd_chip_sched_ops csd_chip_sched_flin_src = {
    .name = "flin-src", .init = init_src, .enqueue = cq_enqueue, .next = cq_next, .destroy = destroy,
    .attach = cq_attach,
};
