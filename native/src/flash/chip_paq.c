/* Chip-queue policy "paq": the baseline of the 2PM paper's evaluation (V-A: "PAQ groups requests
 * without resource contention based on physical location"), after Jung, Wilson and Kandemir,
 * "Physically addressed queueing (PAQ): improving parallelism in solid state disks", ISCA'12, whose
 * I/O clumping selects, by physical address, groups of requests that can be executed at the same time
 * without a resource conflict.
 *
 * Here a request is the operations one owner submits at one instant (a tasklet request's pages, a host
 * write's programs, a migration step); the resource is the chip (dies and planes are addresses only in
 * this model). Requests wait in arrival order; a request is released to its chips only when none of
 * them holds released, not yet started operations of another request, so the requests a chip's queue
 * holds at any time never conflict there; each chip serves what was released to it in order. The
 * oldest waiting request reserves its chips (a later one may not take them first), so a request that
 * conflicts is passed over only until the chips it needs drain: nothing starves. There is no read
 * priority: a read waits behind a program released before it (the 2PM paper names read priority as
 * its own basic rule, IV-A; policy readfirst is that rule alone). PAQ's multi-plane transaction packing
 * has nothing to pack here (one chip serves one page at a time). The reading of PAQ's clumping this
 * implements is in docs/2PM.md. */
#include "flash/flash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The one word of csd_flash_op.chip_scratch this policy uses: the chip an operation was queued at. */
#define PAQ_CHIP(op) ((op)->chip_scratch[0].u)

typedef struct group {
    const void *owner;
    uint64_t t;                      /* arrival instant */
    csd_flash_op *head, *tail;       /* its operations in arrival order (op->next) */
    struct group *next;
    uint64_t mask[];                 /* the chips it needs */
} group;

typedef struct released {
    csd_flash_op *head, *tail;       /* released, not started, in order (op->next) */
    const void *owner;               /* whose they are: one request at a time */
} released;

typedef struct paq {
    uint32_t chips, words;
    const csd_flash *f;
    group *head, *tail;              /* waiting requests, oldest first */
    group *instant;                  /* the first of those that arrived at the latest instant */
    released *rel;                   /* per chip */
    uint64_t *claimed;               /* chips holding released, not started operations */
    uint64_t *reserved;              /* scratch: chips the oldest blocked request needs */
    int dirty;                       /* something changed since the last release pass */
} paq;

static int bit(const uint64_t *m, uint32_t c) { return (int)((m[c / 64] >> (c % 64)) & 1); }

static int conflicts(const paq *s, const group *g) {
    for (uint32_t w = 0; w < s->words; w++) {
        uint64_t m = g->mask[w] & (s->claimed[w] | s->reserved[w]);
        while (m) {
            uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(m);
            m &= m - 1;
            /* a request never conflicts with its own released operations (a page it grew by), nor does
             * the reservation of a request younger than it hold it there */
            if (bit(s->claimed, c) && g->owner && s->rel[c].owner == g->owner) continue;
            return 1;
        }
    }
    return 0;
}

static void release(paq *s, group *g) {
    csd_flash_op *op = g->head;
    while (op) {
        csd_flash_op *nx = op->next;
        uint32_t c = (uint32_t)PAQ_CHIP(op);
        released *r = &s->rel[c];
        op->next = NULL;
        if (r->tail) r->tail->next = op; else r->head = op;
        r->tail = op;
        r->owner = g->owner;
        s->claimed[c / 64] |= 1ull << (c % 64);
        if (s->f) csd_flash_kick(s->f, c);
        op = nx;
    }
}

/* Release every waiting request that conflicts with nothing released, oldest first. */
static void release_pass(paq *s) {
    s->dirty = 0;
    memset(s->reserved, 0, s->words * sizeof *s->reserved);
    int blocked = 0;
    group **link = &s->head, *prev = NULL;
    while (*link) {
        group *g = *link;
        if (conflicts(s, g)) {
            if (!blocked) {
                for (uint32_t w = 0; w < s->words; w++) s->reserved[w] |= g->mask[w];
                blocked = 1;
            }
            prev = g;
            link = &g->next;
            continue;
        }
        *link = g->next;
        if (s->tail == g) s->tail = prev;
        if (s->instant == g) s->instant = g->next;
        release(s, g);
        free(g);
    }
}

static int paq_init(void **state, const csd_params *p, uint32_t chips) {
    (void)p;
    paq *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->chips = chips ? chips : 1;
    s->words = (s->chips + 63) / 64;
    s->rel = calloc(s->chips, sizeof *s->rel);
    s->claimed = calloc(s->words, sizeof *s->claimed);
    s->reserved = calloc(s->words, sizeof *s->reserved);
    if (!s->rel || !s->claimed || !s->reserved) {
        free(s->rel);
        free(s->claimed);
        free(s->reserved);
        free(s);
        return -ENOMEM;
    }
    *state = s;
    return 0;
}

static void paq_enqueue(void *state, uint32_t chip, csd_flash_op *op, uint64_t now) {
    paq *s = state;
    PAQ_CHIP(op) = chip;
    op->next = NULL;
    if (s->instant && s->instant->t != now) s->instant = NULL;
    group *g = NULL;
    if (op->owner)
        for (g = s->instant; g && g->owner != op->owner; g = g->next) {}
    if (!g) {
        g = calloc(1, sizeof *g + s->words * sizeof(uint64_t));
        if (!g) abort();   /* the flash model cannot drop an operation; as the event heap does */
        g->owner = op->owner;
        g->t = now;
        if (s->tail) s->tail->next = g; else s->head = g;
        s->tail = g;
        if (!s->instant) s->instant = g;
    }
    if (g->tail) g->tail->next = op; else g->head = op;
    g->tail = op;
    g->mask[chip / 64] |= 1ull << (chip % 64);
    s->dirty = 1;
}

static csd_flash_op *paq_next(void *state, uint32_t chip, uint64_t now) {
    (void)now;
    paq *s = state;
    if (s->dirty) release_pass(s);
    released *r = &s->rel[chip];
    csd_flash_op *op = r->head;
    if (!op) return NULL;
    if (!(r->head = op->next)) {
        /* the chip's last released operation starts: it no longer conflicts with anyone */
        r->tail = NULL;
        r->owner = NULL;
        s->claimed[chip / 64] &= ~(1ull << (chip % 64));
        release_pass(s);
    }
    op->next = NULL;
    return op;
}

static void paq_attach(void *state, const csd_flash *f) { ((paq *)state)->f = f; }

static void paq_destroy(void *state) {
    paq *s = state;
    while (s->head) {
        group *g = s->head;
        s->head = g->next;
        free(g);
    }
    free(s->rel);
    free(s->claimed);
    free(s->reserved);
    free(s);
}

const csd_chip_sched_ops csd_chip_sched_paq = {
    .name = "paq", .init = paq_init, .enqueue = paq_enqueue, .next = paq_next, .destroy = paq_destroy,
    .attach = paq_attach,
};
