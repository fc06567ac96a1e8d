/* Chip-queue policy "cars" (Yang et al., "CARS: a multi-layer conflict-aware request scheduler for
 * NVMe SSDs", DATE'19, a baseline of the 2PM paper, V-A), adapted to one chip's queue over paq's read
 * priority: the sources of operations (host commands, garbage collection, tasklet requests, map pages)
 * are the submission queues, served in turn among the reads (and among the programs and erases when no
 * read waits), and an operation that would conflict on a busy resource is passed over for the next
 * source's. A program needs its channel at once (the data goes in first), so one whose channel is busy
 * conflicts; a read needs the channel only after its array time. When every candidate conflicts, the
 * one whose turn it is goes. */
#include "flash/chip_queue.h"

#include <errno.h>
#include <stdlib.h>

#define NSRC 4

typedef struct cars { uint8_t *turn; } cars;   /* per chip: the source served last */

static int conflicts(const cq *q, uint32_t chip, const csd_flash_op *op) {
    return op->kind == CSD_FLASH_PROGRAM && q->f && csd_flash_channel_busy(q->f, csd_flash_channel_of(q->f, chip));
}

static csd_flash_op *take(cq *q, uint32_t chip, uint64_t now) {
    cq_chip *c = &q->c[chip];
    cars *s = q->pol;
    if (!c->n) return NULL;
    int reads = 0;
    for (size_t i = 0; i < c->n && !reads; i++) reads = c->q[i]->kind == CSD_FLASH_READ;
    long first = -1, pick = -1;
    int first_src = 0, pick_src = 0;
    for (int k = 1; k <= NSRC && pick < 0; k++) {
        int src = (s->turn[chip] + k) % NSRC;
        for (size_t i = 0; i < c->n; i++) {
            const csd_flash_op *op = c->q[i];
            if ((op->src % NSRC) != src || (op->kind == CSD_FLASH_READ) != reads) continue;
            if (first < 0) { first = (long)i; first_src = src; }
            if (!conflicts(q, chip, op)) { pick = (long)i; pick_src = src; }
            break;   /* only a source's oldest operation of the kind is a candidate */
        }
    }
    if (pick < 0) { pick = first; pick_src = first_src; }
    s->turn[chip] = (uint8_t)pick_src;
    return cq_remove(q, chip, (size_t)pick);
}

static int init(void **state, const csd_params *p, uint32_t chips) {
    cars *s = calloc(1, sizeof *s);
    if (!s || !(s->turn = calloc(chips ? chips : 1, 1))) {
        free(s);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < chips; i++) s->turn[i] = NSRC - 1;
    cq_hooks h = { .take = take };
    int rc = cq_init(state, p, chips, &h, s);
    if (rc) {
        free(s->turn);
        free(s);
    }
    return rc;
}

static void destroy(void *state) {
    cars *s = ((cq *)state)->pol;
    free(s->turn);
    free(s);
    cq_destroy(state);
}

const csd_chip_sched_ops csd_chip_sched_cars = {
    .name = "cars", .init = init, .enqueue = cq_enqueue, .next = cq_next, .destroy = destroy, .attach = cq_attach,
};
