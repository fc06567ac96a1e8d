/* Chip-queue policy "readfirst": the 2PM paper's basic priority rules alone (IV-A: read priority, then
 * the oldest first; the third rule, earliest prepared first, is the channel's), without the
 * detection-guided reordering the 2pm policies add: the ablation step between paq and 2pm. One queue
 * per chip, so a busy chip holds up nothing else; each chip serves reads before programs and erases,
 * and the oldest first within each (the read priority of the flash-level out-of-order schedulers the
 * paper cites, VI-B). */
#include "flash/chip_queue.h"

/* behind every queued read (a read) or at the end (a program or erase) */
static void place(cq *q, uint32_t chip, csd_flash_op *op, uint64_t now) {
    cq_chip *c = &q->c[chip];
    size_t i = c->n;
    if (op->kind == CSD_FLASH_READ)
        while (i > 0 && c->q[i - 1]->kind != CSD_FLASH_READ) CQ_PASSED(c->q[--i])++;
    cq_insert(q, chip, i, op);
}

static int init(void **state, const csd_params *p, uint32_t chips) {
    cq_hooks h = { .place = place };
    return cq_init(state, p, chips, &h, NULL);
}

const csd_chip_sched_ops csd_chip_sched_readfirst = {
    .name = "readfirst", .init = init, .enqueue = cq_enqueue, .next = cq_next, .destroy = cq_destroy, .attach = cq_attach,
};
