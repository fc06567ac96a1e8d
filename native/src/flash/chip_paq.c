/* Chip-queue policy "paq": the out-of-order baseline of the 2PM paper's evaluation (V-A, after Jung et
 * al., "Physically addressed queueing (PAQ)", ISCA'12). Operations are queued by physical address, one
 * queue per chip, so a busy chip holds up nothing else; each chip serves reads before programs and
 * erases, and the oldest first within each (the read priority of flash-level out-of-order schedulers
 * the 2PM paper builds on, VI-B). The 2pm policies add detection-guided reordering on top of this. */
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

const csd_chip_sched_ops csd_chip_sched_paq = {
    .name = "paq", .init = init, .enqueue = cq_enqueue, .next = cq_next, .destroy = cq_destroy, .attach = cq_attach,
};
