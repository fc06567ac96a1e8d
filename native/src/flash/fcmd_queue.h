/* Shared machinery of the queueing flash-command schedulers (DRS paper V, VI-A): each holds the
 * submitted operations per chip and hands one on when the chip has nothing in service and nothing
 * handed on still pending (chip_idle), so the order it picks is the order the chip serves. */
#ifndef CSD_FLASH_FCMD_QUEUE_H
#define CSD_FLASH_FCMD_QUEUE_H

#include "flash/flash.h"

/* The words of csd_flash_op.fcmd_scratch the queueing schedulers use, each an lvalue. */
#define FQ_KEY(op) ((op)->fcmd_scratch[0].u)    /* insertion order */
#define FQ_HELD(op) ((op)->fcmd_scratch[1].u)   /* 1 while held (not yet dispatched) */
_Static_assert(CSD_FLASH_FCMD_SCRATCH >= 2, "the queue's words fit the flash-command scheduler's scratch");

/* What a policy orders a held command by, as it was when the command was (re-)placed. */
typedef struct csd_fcmd_sortkey {
    uint8_t kind;            /* csd_flash_kind */
    uint8_t req_type;        /* its own request's csd_req_type */
    uint8_t ri2_type;        /* reqInfo[2].type */
    uint64_t req_pages;
    uint64_t ri0_fot, ri2_fot;   /* reqInfo[0].fot_ns, reqInfo[2].fot_ns */
} csd_fcmd_sortkey;

/* 1 when a should go before b (both held for the same chip, neither GC nor past its deadline). */
typedef int (*csd_fcmd_before_fn)(const csd_fcmd_sortkey *a, const csd_fcmd_sortkey *b);

typedef struct csd_fcmd_class {
    csd_fcmd_before_fn before;
    uint64_t read_deadline_ns;    /* ops of read requests waiting longer go first (0 = none) */
    uint64_t write_deadline_ns;   /* ops of write requests waiting longer go first (0 = none) */
    int requeue_moves;            /* a requeued op goes behind ops of equal order (DRS Algorithm 1) */
} csd_fcmd_class;

int csd_fcmd_queue_init(void **state, const csd_params *p, csd_flash *f, const csd_fcmd_class *cls);
void csd_fcmd_queue_submit(void *state, csd_flash_op *op, uint64_t now);
void csd_fcmd_queue_chip_idle(void *state, uint32_t chip, uint64_t now);
void csd_fcmd_queue_requeue(void *state, csd_flash_op *op, uint64_t now);
void csd_fcmd_queue_destroy(void *state);

/* Commands of a read request (RRQ) or a write request (WRQ) by their request information. */
static inline int csd_fcmd_is_read_req(const csd_fcmd_sortkey *k, int drs) {
    return (drs ? k->ri2_type : k->req_type) == CSD_REQ_READ;
}

#define CSD_FCMD_DEFINE(NAME, CLASS)                                                                     \
    static int NAME##_init(void **s, const csd_params *p, csd_flash *f) {                                \
        return csd_fcmd_queue_init(s, p, f, &CLASS);                                                      \
    }                                                                                                     \
    const csd_fcmd_ops csd_fcmd_##NAME = { .name = #NAME, .init = NAME##_init,                            \
                                           .submit = csd_fcmd_queue_submit,                               \
                                           .chip_idle = csd_fcmd_queue_chip_idle,                         \
                                           .destroy = csd_fcmd_queue_destroy,                             \
                                           .requeue = csd_fcmd_queue_requeue };

#endif
