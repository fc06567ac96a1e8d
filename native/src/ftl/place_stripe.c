/* Placement policy "stripe": host pages go round-robin over units (planes) in stripe order, channel
 * fastest, then chip, then die, then plane, so consecutive pages of an object land on consecutive
 * channels; a unit that is full (nothing GC can reclaim) is skipped, so the order holds while every
 * unit has room. Garbage collection is greedy: the closed block with the fewest valid pages. */
#include "ftl/ftl_int.h"
#include "ftl/place.h"

#include <errno.h>
#include <stdlib.h>

typedef struct stripe {
    uint32_t units;
    uint32_t rr;          /* next stripe position */
    uint32_t order[];     /* stripe position -> unit */
} stripe;

static int stripe_init(void **state, csd_ftl *f) {
    uint32_t nu = f->units;
    stripe *s = calloc(1, sizeof *s + (size_t)nu * sizeof s->order[0]);
    if (!s) return -ENOMEM;
    s->units = nu;
    ftl_stripe_order(f, s->order);
    *state = s;
    return 0;
}

static int stripe_alloc(void *state, csd_ftl *f, uint32_t hint, csd_flash_batch *ops, uint64_t *ppn) {
    (void)hint;   /* one stream: stripe separates nothing (a device with SLC blocks leaves them unused) */
    stripe *s = state;
    int rc = -ENOSPC;
    for (uint32_t t = 0; t < s->units; t++) {
        uint32_t u = s->order[s->rr];
        s->rr = (s->rr + 1) % s->units;
        rc = ftl_unit_take(f, u, 0, ops, ppn);
        if (rc != -ENOSPC) return rc;
    }
    return rc;
}

static uint32_t stripe_victim(void *state, csd_ftl *f, uint32_t u, int r) {
    (void)state;
    return ftl_greedy_victim(f, u, r);
}

static void stripe_destroy(void *state) { free(state); }

const csd_place_ops csd_place_stripe = {
    .name = "stripe", .init = stripe_init, .alloc = stripe_alloc, .victim = stripe_victim,
    .destroy = stripe_destroy,
};
