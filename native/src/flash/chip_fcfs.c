/* Chip-queue policy "fcfs": each chip serves its operations in submission order (one FIFO per
 * chip, linked through op->next, so queueing never allocates). */
#include "flash/flash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct fifo { csd_flash_op *head, *tail; } fifo;

static int fcfs_init(void **state, const csd_params *p, uint32_t chips) {
    (void)p;
    fifo *q = calloc(chips ? chips : 1, sizeof *q);
    if (!q) return -ENOMEM;
    *state = q;
    return 0;
}

static void fcfs_enqueue(void *state, uint32_t chip, csd_flash_op *op, uint64_t now) {
    (void)now;
    fifo *q = (fifo *)state + chip;
    op->next = NULL;
    if (q->tail) q->tail->next = op; else q->head = op;
    q->tail = op;
}

static csd_flash_op *fcfs_next(void *state, uint32_t chip, uint64_t now) {
    (void)now;
    fifo *q = (fifo *)state + chip;
    csd_flash_op *op = q->head;
    if (op) {
        q->head = op->next;
        if (!q->head) q->tail = NULL;
        op->next = NULL;
    }
    return op;
}

static void fcfs_destroy(void *state) { free(state); }

const csd_chip_sched_ops csd_chip_sched_fcfs = {
    .name = "fcfs", .init = fcfs_init, .enqueue = fcfs_enqueue, .next = fcfs_next,
    .destroy = fcfs_destroy,
};
