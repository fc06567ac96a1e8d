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
 * 2pm+ ("2PM+" in the paper's evaluation, V-A: 2PM with "anti-starvation and slack-aware queue
 * insertion") adds:
 *   slack-aware insertion (IV-C, after Slacker): a newcomer also moves ahead of a queued sub-request
 *     whose slack exceeds the newcomer's service time, and the passed one's slack drops by that time;
 *     a program or erase never takes a read's slack (it would hold the read a whole program time); a
 *     sub-request whose priority rises has its slack set to 0, and one passed by it loses the passer's
 *     service time (or all of its slack) (Fig. 6);
 *   anti-starvation (IV-D), both rules the paper states: (a) "prevents all sub-requests for a request
 *     from being pushed back": while a request has no first-stage result and none of its sub-requests
 *     has started, the last of its queued sub-requests that nothing has passed yet may not be passed,
 *     so every request gets a page evaluated; when that guard lifts (one of its sub-requests starts, or
 *     its class is reported), the reorderings it blocked are made then; (b) "constraints the maximum
 *     number of swaps for low priority sub-requests": a sub-request passed chip_max_passes times is
 *     passed no more (0: no bound).
 * A read passing programs and erases is the basic read priority: neither bounded nor counted.
 *
 * 2pm-sl and 2pm-as are 2pm with only one of 2pm+'s additions (slack-aware insertion, anti-starvation):
 * ablations that tell their effects apart. */
#include "flash/chip_queue.h"

#include <errno.h>
#include <stdlib.h>

/* 2pm+: per tasklet request with sub-requests in the queues, what anti-starvation rule (a) needs.
 * Open addressing on the owner pointer (the policy's own table; nothing on the operation). */
typedef struct req_ent {
    const void *owner;
    uint32_t queued;       /* its sub-requests in the queues */
    uint32_t fresh;        /* of those, the ones nothing has passed yet */
    uint8_t started;       /* one of its sub-requests has started */
} req_ent;

typedef struct twopm {
    int slack;             /* IV-C, slack-aware insertion */
    int guard;             /* IV-D, anti-starvation: the guard (a) and the bound (b) */
    uint32_t max_passes;
    req_ent *tab;
    size_t cap, n;         /* cap: 0 or a power of two */
} twopm;

static size_t home(const twopm *t, const void *owner) {
    uint64_t h = (uint64_t)(uintptr_t)owner * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (t->cap - 1);
}

static req_ent *find(const twopm *t, const void *owner) {
    if (!t->cap || !owner) return NULL;
    for (size_t i = home(t, owner);; i = (i + 1) & (t->cap - 1)) {
        if (t->tab[i].owner == owner) return &t->tab[i];
        if (!t->tab[i].owner) return NULL;
    }
}

static req_ent *get(twopm *t, const void *owner) {
    req_ent *e = find(t, owner);
    if (e) return e;
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        req_ent *old = t->tab, *tab = calloc(cap, sizeof *tab);
        if (!tab) abort();   /* the flash model cannot drop an operation; as the event heap does */
        size_t oldcap = t->cap;
        t->tab = tab;
        t->cap = cap;
        for (size_t i = 0; i < oldcap; i++) {
            if (!old[i].owner) continue;
            size_t j = home(t, old[i].owner);
            while (tab[j].owner) j = (j + 1) & (cap - 1);
            tab[j] = old[i];
        }
        free(old);
    }
    size_t i = home(t, owner);
    while (t->tab[i].owner) i = (i + 1) & (t->cap - 1);
    t->tab[i] = (req_ent){ .owner = owner };
    t->n++;
    return &t->tab[i];
}

/* Remove e (backward-shift deletion keeps every probe chain whole). */
static void drop(twopm *t, req_ent *e) {
    size_t i = (size_t)(e - t->tab);
    for (size_t j = (i + 1) & (t->cap - 1); t->tab[j].owner; j = (j + 1) & (t->cap - 1)) {
        size_t h = home(t, t->tab[j].owner);
        /* move j back to the hole at i when its home is not in the cyclic range (i, j] */
        if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
            t->tab[i] = t->tab[j];
            i = j;
        }
    }
    t->tab[i] = (req_ent){ 0 };
    t->n--;
}

static int tracked(const csd_flash_op *op) { return op->src == CSD_SRC_ISP && op->owner; }

/* IV-A and IV-B: matched > partially matched > other reads > programs and erases */
static int rank(const csd_flash_op *op) {
    if (op->kind != CSD_FLASH_READ) return 0;
    if (op->match == CSD_MATCH_MATCHED) return 3;
    if (op->match == CSD_MATCH_PARTIAL) return 2;
    return 1;
}

/* IV-D (a): b is the last sub-request of its unevaluated, unstarted request that nothing has passed */
static int guarded(const twopm *t, const csd_flash_op *b) {
    if (!tracked(b) || b->match != CSD_MATCH_UNKNOWN || CQ_PASSED(b)) return 0;
    const req_ent *e = find(t, b->owner);
    return e && !e->started && e->fresh <= 1;
}

/* the basic read priority: a read ahead of a program or erase */
static int read_over_write(const csd_flash_op *b, const csd_flash_op *x) { return rank(b) == 0 && rank(x) > 0; }

/* May x be moved ahead of b? inserting: x is a newcomer (the slack rule applies). */
static int may_pass(const cq *q, const csd_flash_op *b, const csd_flash_op *x, int inserting) {
    const twopm *t = q->pol;
    if ((!t->slack && !t->guard) || read_over_write(b, x)) return rank(b) < rank(x);
    if (t->guard && (CQ_BARRIER(b) || guarded(t, b) || (t->max_passes && CQ_PASSED(b) >= t->max_passes))) return 0;
    if (rank(b) < rank(x)) return 1;
    /* slack: a program or erase never takes a read's */
    return t->slack && inserting && !(rank(x) == 0 && rank(b) > 0) && CQ_SLACK_NS(b) > (int64_t)cq_est(q, x);
}

static void pass(const cq *q, csd_flash_op *b, const csd_flash_op *x) {
    twopm *t = q->pol;
    if (!t->slack && !t->guard) {
        CQ_PASSED(b)++;
        return;
    }
    int64_t d = (int64_t)cq_est(q, x);
    if (t->slack) CQ_SLACK_NS(b) = CQ_SLACK_NS(b) > d ? CQ_SLACK_NS(b) - d : 0;   /* b now ends d later */
    if (read_over_write(b, x)) return;                     /* read priority: not a swap the bound counts */
    if (!CQ_PASSED(b)++ && tracked(b)) {
        req_ent *e = find(t, b->owner);
        if (e) e->fresh--;
    }
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

/* Every entry of chip's queue moves forward as far as it now may by priority: the reorderings a guard
 * blocked (IV-D (a)) are made when it lifts. */
static void refresh(cq *q, uint32_t chip) {
    for (size_t i = 1; i < q->c[chip].n; i++) forward(q, chip, i, 0);
}

static void place(cq *q, uint32_t chip, csd_flash_op *op, uint64_t now) {
    twopm *t = q->pol;
    /* an urgent newcomer keeps its place: no slack to give away (IV-C, as a raised one) */
    if (t->slack && rank(op) >= 2) CQ_SLACK_NS(op) = 0;
    if (t->guard) {
        if (tracked(op)) {
            req_ent *e = get(t, op->owner);
            e->queued++;
            if (!CQ_PASSED(op)) e->fresh++;
        }
    }
    cq_insert(q, chip, q->c[chip].n, op);
    forward(q, chip, q->c[chip].n - 1, 1);
}

static csd_flash_op *take(cq *q, uint32_t chip, uint64_t now) {
    twopm *t = q->pol;
    if (!q->c[chip].n) return NULL;
    csd_flash_op *op = cq_remove(q, chip, 0);
    req_ent *e = t->guard && tracked(op) ? find(t, op->owner) : NULL;
    if (!e) return op;
    int lifted = !e->started && op->match == CSD_MATCH_UNKNOWN;
    e->started = 1;
    e->queued--;
    if (!CQ_PASSED(op)) e->fresh--;
    if (!e->queued) drop(t, e);
    if (lifted)
        for (uint32_t ch = 0; ch < q->chips; ch++) refresh(q, ch);
    return op;
}

static void reorder(cq *q, uint32_t chip, const void *owner, uint64_t now) {
    cq_chip *c = &q->c[chip];
    const twopm *t = q->pol;
    /* front to back, so the request's own sub-requests keep their order */
    for (size_t i = 0; i < c->n; i++) {
        if (c->q[i]->owner != owner) continue;
        if (t->slack) CQ_SLACK_NS(c->q[i]) = 0;
        forward(q, chip, i, 0);
    }
    if (t->guard) refresh(q, chip);   /* its class is known now: no guard on it any more */
}

static int init_common(void **state, const csd_params *p, uint32_t chips, int slack, int guard) {
    twopm *t = calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    t->slack = slack;
    t->guard = guard;
    t->max_passes = p->chip_max_passes;
    cq_hooks h = { .place = place, .take = take, .reorder = reorder, .slack = slack, .read_first = 1 };
    int rc = cq_init(state, p, chips, &h, t);
    if (rc) free(t);
    return rc;
}

static int init_2pm(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 0, 0); }
static int init_plus(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 1, 1); }
static int init_sl(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 1, 0); }
static int init_as(void **state, const csd_params *p, uint32_t chips) { return init_common(state, p, chips, 0, 1); }

static void destroy(void *state) {
    twopm *t = ((cq *)state)->pol;
    free(t->tab);
    free(t);
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

/* 2pm+'s two additions one at a time (ablations): slack-aware insertion alone, anti-starvation alone */
const csd_chip_sched_ops csd_chip_sched_2pm_sl = {
    .name = "2pm-sl", .init = init_sl, .enqueue = cq_enqueue, .next = cq_next, .destroy = destroy,
    .reorder = cq_reorder, .attach = cq_attach,
};

const csd_chip_sched_ops csd_chip_sched_2pm_as = {
    .name = "2pm-as", .init = init_as, .enqueue = cq_enqueue, .next = cq_next, .destroy = destroy,
    .reorder = cq_reorder, .attach = cq_attach,
};
