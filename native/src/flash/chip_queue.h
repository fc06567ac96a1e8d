/* What the reordering chip-queue policies (2pm, 2pm+, slacker, cars, flin) share: per chip, a
 * sub-request queue of chip_queue_slots entries in service order that the policy orders, and beyond it
 * an arrival-order FIFO of operations waiting for a slot (2PM paper III-B: "each sub-request can be
 * inserted at a different time, depending on the state of the sub-request queue"). Operations that
 * arrive at one instant are placed together, after every event due then, so a request's sub-requests
 * are seen as a group (slack, IV-C). Each chip keeps the expected end of all it holds (IV-C's
 * registers). Not a policy itself: chip_registry.c lists the policies built on it. */
#ifndef CSD_FLASH_CHIP_QUEUE_H
#define CSD_FLASH_CHIP_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include "flash/flash.h"

typedef struct cq cq;

typedef struct cq_chip {
    csd_flash_op **q;        /* the sub-request queue: q[0] is served next */
    size_t n, cap;
    csd_flash_op *wait_head, *wait_tail;   /* waiting for a slot, in arrival order (through op->next) */
    size_t nwait;
    uint64_t q_est, wait_est;              /* expected service ns of what q and the wait FIFO hold */
    uint64_t q_est_rd, wait_est_rd;        /* the same, of their reads only */
    uint64_t busy_until;                   /* expected end of the operation in service */
} cq_chip;

typedef struct cq_hooks {
    /* Put op (admitted now) into c->q; the default appends it. */
    void (*place)(cq *q, uint32_t chip, csd_flash_op *op, uint64_t now);
    /* Choose and remove the operation chip serves next; the default takes q[0]. */
    csd_flash_op *(*take)(cq *q, uint32_t chip, uint64_t now);
    /* A reordering request (2PM IV-B), after the match of owner's operations was raised. */
    void (*reorder)(cq *q, uint32_t chip, const void *owner, uint64_t now);
    int slack;               /* compute CQ_SLACK_NS(op) for each arriving group (2PM IV-C, Slacker) */
    int read_first;          /* reads go ahead of programs and erases: a read's expected end counts reads only */
} cq_hooks;

struct cq {
    csd_params p;
    uint32_t chips;
    cq_chip *c;
    uint32_t slots;          /* chip_queue_slots; 0 = unlimited */
    csd_flash_op *in_head, *in_tail;       /* arrived at in_time, not yet placed */
    uint64_t in_time;
    const csd_flash *f;
    cq_hooks h;
    void *pol;               /* the policy's own state */
    uint64_t xfer_ns;
};

/* ns the chip is occupied by op (array time plus the page on the channel). */
uint64_t cq_est(const cq *q, const csd_flash_op *op);
/* Insert op at index i of chip's queue / remove index i (the estimates follow). */
void cq_insert(cq *q, uint32_t chip, size_t i, csd_flash_op *op);
csd_flash_op *cq_remove(cq *q, uint32_t chip, size_t i);
/* The words of csd_flash_op.chip_scratch the policies built on this queue use, each an lvalue. */
#define CQ_CHIP(op) ((op)->chip_scratch[0].u)      /* the chip it was queued at */
#define CQ_SLACK_NS(op) ((op)->chip_scratch[1].i)  /* slack (2PM IV-C, Slacker) */
#define CQ_PASSED(op) ((op)->chip_scratch[2].u)    /* times a later operation was moved ahead of it (2PM IV-D) */
#define CQ_BARRIER(op) ((op)->chip_scratch[3].u)   /* nothing may be moved ahead of it any more (FLIN) */
_Static_assert(CSD_FLASH_CHIP_SCRATCH >= 4, "the chip queue's words fit the chip-queue policy's scratch");
/* The chip an operation was queued at. */
static inline uint32_t cq_chip_of(const csd_flash_op *op) { return (uint32_t)CQ_CHIP(op); }

/* The csd_chip_sched_ops functions of a cq-based policy; init takes the hooks and the policy state. */
int cq_init(void **state, const csd_params *p, uint32_t chips, const cq_hooks *h, void *pol);
void cq_enqueue(void *state, uint32_t chip, csd_flash_op *op, uint64_t now);
csd_flash_op *cq_next(void *state, uint32_t chip, uint64_t now);
void cq_reorder(void *state, const void *owner, uint8_t match, uint64_t now);
void cq_attach(void *state, const csd_flash *f);
/* Frees the queues (not pol). */
void cq_destroy(void *state);

#endif
