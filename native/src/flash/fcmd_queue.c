/* Queueing flash-command schedulers: per-chip hold lists and the hand-on rule (fcmd_queue.h).
 *
 * Order of service at a chip, for every policy: GC commands first (the DRS paper's on-demand GC,
 * VI-A: "processed with the highest priority"; GC reads and erases before GC programs, V-A), then any
 * command past its deadline (oldest first), then the policy's order; ties by insertion order. A hold
 * list is scanned for the best (the hold lists are as long as the device queue depth). Decisions are
 * made in an event at the current time, after everything due then, so commands submitted at the same
 * instant compete. */
#include "flash/fcmd_queue.h"

#include <errno.h>
#include <stdlib.h>

typedef struct qstate {
    csd_flash *f;
    csd_fcmd_class cls;
    uint32_t nchips;
    csd_flash_op **head;     /* per chip: held ops (singly linked, unordered) */
    uint32_t *out;           /* per chip: handed on, not yet through the chip */
    uint8_t *kick;           /* per chip: a decision event is pending */
    uint64_t next_key;
    struct kick_arg { struct qstate *q; uint32_t chip; int hop; } *args;
} qstate;

static void decide(qstate *q, uint32_t c);

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
    a->q->kick[a->chip] = 0;
    decide(a->q, a->chip);
}

static void kick(qstate *q, uint32_t c) {
    if (q->kick[c] || q->out[c] || !q->head[c]) return;
    q->kick[c] = 1;
    csd_flash_at(q->f, csd_flash_now(q->f), kick_ev, &q->args[c]);
}

static int expired(const qstate *q, const csd_flash_op *op, uint64_t now) {
    uint64_t dl = op->req_type == CSD_REQ_READ ? q->cls.read_deadline_ns
                  : op->req_type == CSD_REQ_WRITE ? q->cls.write_deadline_ns : 0;
    return dl && now - op->submit_ns >= dl;
}

/* rank: 0 GC read/erase, 1 GC program, 2 expired, 3 the rest */
static int rank(const qstate *q, const csd_flash_op *op, uint64_t now) {
    if (op->src == CSD_SRC_GC) return op->kind == CSD_FLASH_PROGRAM ? 1 : 0;
    return expired(q, op, now) ? 2 : 3;
}

static int first(const qstate *q, const csd_flash_op *a, const csd_flash_op *b, uint64_t now) {
    int ra = rank(q, a, now), rb = rank(q, b, now);
    if (ra != rb) return ra < rb;
    if (ra == 2) return a->submit_ns < b->submit_ns || (a->submit_ns == b->submit_ns && a->fcmd_key < b->fcmd_key);
    if (ra == 3) {
        if (q->cls.before(a, b)) return 1;
        if (q->cls.before(b, a)) return 0;
    }
    return a->fcmd_key < b->fcmd_key;
}

static void decide(qstate *q, uint32_t c) {
    if (q->out[c] || !q->head[c] || !csd_flash_chip_idle(q->f, c)) return;
    uint64_t now = csd_flash_now(q->f);
    csd_flash_op **best = &q->head[c];
    for (csd_flash_op **pp = &(*best)->next; *pp; pp = &(*pp)->next)
        if (first(q, *pp, *best, now)) best = pp;
    csd_flash_op *op = *best;
    *best = op->next;
    op->next = NULL;
    op->fcmd_held = 0;
    q->out[c]++;
    csd_flash_dispatch(q->f, op);
}

void csd_fcmd_queue_submit(void *state, csd_flash_op *op, uint64_t now) {
    (void)now;
    qstate *q = state;
    uint32_t c = csd_flash_chip_of(q->f, op);
    op->fcmd_key = q->next_key++;
    op->fcmd_held = 1;
    op->next = q->head[c];
    q->head[c] = op;
    kick(q, c);
}

void csd_fcmd_queue_chip_idle(void *state, uint32_t chip, uint64_t now) {
    (void)now;
    qstate *q = state;
    if (chip >= q->nchips) return;
    if (q->out[chip]) q->out[chip]--;
    kick(q, chip);
}

/* Algorithm 1 inserts a re-placed command behind those of equal FOT: a new insertion key does that
 * (policies that sort by reqInfo[2]); the others keep their order. */
void csd_fcmd_queue_requeue(void *state, csd_flash_op *op, uint64_t now) {
    (void)now;
    qstate *q = state;
    if (op->fcmd_held && q->cls.requeue_moves) op->fcmd_key = q->next_key++;
}

void csd_fcmd_queue_destroy(void *state) {
    qstate *q = state;
    if (!q) return;
    free(q->head);
    free(q->out);
    free(q->kick);
    free(q->args);
    free(q);
}

int csd_fcmd_queue_init(void **state, const csd_params *p, csd_flash *f, const csd_fcmd_class *cls) {
    qstate *q = calloc(1, sizeof *q);
    if (!q) return -ENOMEM;
    q->f = f;
    q->cls = *cls;
    q->nchips = p->channels * p->chips_per_channel;
    q->head = calloc(q->nchips, sizeof *q->head);
    q->out = calloc(q->nchips, sizeof *q->out);
    q->kick = calloc(q->nchips, 1);
    q->args = calloc(q->nchips, sizeof *q->args);
    if (!q->head || !q->out || !q->kick || !q->args) {
        csd_fcmd_queue_destroy(q);
        return -ENOMEM;
    }
    for (uint32_t c = 0; c < q->nchips; c++) q->args[c] = (struct kick_arg){ q, c, 0 };
    *state = q;
    return 0;
}
