/* Chip-queue policies "2pm" and "2pm+" (2PM paper, section IV): pattern-matching-detection-guided
 * scheduling of each chip's sub-request queue.
 *
 * 2pm: the basic priority rules (IV-A) and detection-guided reordering (IV-B). A sub-request's
 * priority is, from the highest: a read of a request whose first stage matched, a read of a partially
 * matched one, any other read (read priority), then programs and erases; within a priority the oldest
 * first (a newcomer is inserted behind every queued one of its priority or higher). When the result
 * analyzer reports that a request's class rose (csd_flash_reorder), each of its queued sub-requests
 * moves ahead of the lower-priority ones before it (Fig. 4). The third rule, earliest prepared first,
 * is the channel's: a chip waiting longer for its channel transfers first (flash.c).
 *
 * 2pm+ ("2PM+" in the paper's evaluation) adds slack-aware insertion (IV-C, after Slacker) and
 * anti-starvation (IV-D). A newcomer also moves ahead of a queued sub-request whose slack exceeds the
 * newcomer's service time, and the passed one's slack drops by that time; a sub-request whose priority
 * rises has its slack set to 0, and one passed by it loses the passer's service time (or all of its
 * slack). The swaps these two rules make are bounded: they never pass (a) the first sub-request of a
 * request whose first stage has not reported yet, so every request gets a page evaluated, nor (b) a
 * sub-request they have already passed chip_max_passes times. A read passing programs and erases is
 * the basic read priority, which the baseline (paq) has too: it is neither bounded nor counted. */
#include "flash/chip_queue.h"

#include <errno.h>
#include <stdlib.h>

typedef struct twopm { int plus; uint32_t max_passes; } twopm;

/* IV-A and IV-B: matched > partially matched > other reads > programs and erases */
static int rank(const csd_flash_op *op) {
    if (op->kind != CSD_FLASH_READ) return 0;
    if (op->match == CSD_MATCH_MATCHED) return 3;
    if (op->match == CSD_MATCH_PARTIAL) return 2;
    return 1;
}

/* IV-D (a): the request has no first-stage result yet and this is its first page */
static int guarded(const csd_flash_op *b) {
    return b->src == CSD_SRC_ISP && b->match == CSD_MATCH_UNKNOWN && b->sub_pos == 0;
}

/* the basic read priority: a read ahead of a program or erase */
static int read_over_write(const csd_flash_op *b, const csd_flash_op *x) { return rank(b) == 0 && rank(x) > 0; }

/* May x be moved ahead of b? inserting: x is a newcomer (the slack rule applies). */
static int may_pass(const cq *q, const csd_flash_op *b, const csd_flash_op *x, int inserting) {
    const twopm *t = q->pol;
    if (!t->plus || read_over_write(b, x)) return rank(b) < rank(x);
    if (CQ_BARRIER(b) || guarded(b) || (t->max_passes && CQ_PASSED(b) >= t->max_passes)) return 0;
    return rank(b) < rank(x) || (inserting && CQ_SLACK_NS(b) > (int64_t)cq_est(q, x));
}

static void pass(const cq *q, csd_flash_op *b, const csd_flash_op *x) {
    if (!((const twopm *)q->pol)->plus) {
        CQ_PASSED(b)++;
        return;
    }
    int64_t d = (int64_t)cq_est(q, x);
    CQ_SLACK_NS(b) = CQ_SLACK_NS(b) > d ? CQ_SLACK_NS(b) - d : 0;   /* b now ends d later */
    if (!read_over_write(b, x)) CQ_PASSED(b)++;               /* a swap the bound counts */
}

/* Move the entry at index i forward while it may pass the one before it; its new index. */
static size_t forward(cq *q, uint32_t chip, size_t i, int inserting) {
    csd_flash_op **v = q->c[chip].q;
    while (i > 0 && may_pass(q, v[i - 1], v[i], inserting)) {
        csd_flash_op *b = v[i - 1];
        v[i - 1] = v[i];
        v[i] = b;
        pass(q, b, v[i - 1]);
        i--;
    }
    return i;
}

static void place(cq *q, uint32_t chip, csd_flash_op *op, uint64_t now) {
    /* an urgent newcomer keeps its place: no slack to give away (IV-C, as a raised one) */
    if (((const twopm *)q->pol)->plus && rank(op) >= 2) CQ_SLACK_NS(op) = 0;
    cq_insert(q, chip, q->c[chip].n, op);
    forward(q, chip, q->c[chip].n - 1, 1);
}

static void reorder(cq *q, uint32_t chip, const void *owner, uint64_t now) {
    cq_chip *c = &q->c[chip];
    /* front to back, so the request's own sub-requests keep their order */
    for (size_t i = 0; i < c->n; i++) {
        if (c->q[i]->owner != owner) continue;
        if (((const twopm *)q->pol)->plus) CQ_SLACK_NS(c->q[i]) = 0;
        forward(q, chip, i, 0);
    }
}

static int init_common(void **state, const csd_params *p, uint32_t chips, int plus) {
    twopm *t = calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    t->plus = plus;
    t->max_passes = p->chip_max_passes;
    cq_hooks h = { .place = place, .reorder = reorder, .slack = plus, .read_first = 1 };
    int rc = cq_init(state, p, chips, &h, t);
    if (rc) free(t);
    return rc;
}

static int init_2pm(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 0); }
static int init_plus(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 1); }

static void destroy(void *state) {
    free(((cq *)state)->pol);
    cq_destroy(state);
}

const csd_chip_sched_ops csd_chip_sched_2pm = {
    .name = "2pm", .init = init_2pm, .enqueue = cq_enqueue, .next = cq_next, .destroy = destroy,
    .reorder = cq_reorder, .attach = cq_attach,
};

const csd_chip_sched_ops csd_chip_sched_2pm_plus = {
    .name = "2pm+", .init = init_plus, .enqueue = cq_enqueue, .next = cq_next, .destroy = destroy,
    .reorder = cq_reorder, .attach = cq_attach,
};
