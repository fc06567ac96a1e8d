/* Placement policy "combo": the hybrid paper's baseline, ComboFTL-style hot/cold separation (Im and
 * Shin, as the hybrid paper describes it in section IV): a small write (at most combo_small_bytes)
 * or an update of a mapped page is hot and goes to SLC; a large new write is cold and goes to TLC.
 * Data in SLC is hot when written and becomes warm if it is not updated during a wrap-around of the
 * clock (here: the SLC region's worth of pages written to SLC since); warm data not updated for more
 * than COMBO_WARM_GCS SLC GCs moves to TLC when its block is collected. Hints are ignored. When SLC has
 * no room a hot write goes to TLC. GC is greedy in both regions. (ComboFTL's TLC-to-SLC promotion of
 * hot data is the update rule: a page rewritten in TLC is written to SLC.) Not modelled, for want of
 * their definition in the hybrid paper: ComboFTL's adaptive adjustment of its policies. */
#include "ftl/ftl_int.h"
#include "ftl/place.h"

#include <errno.h>
#include <stdlib.h>

#define COMBO_WARM_GCS 2u   /* SLC GCs a page survives before it is migrated ("a certain number") */

typedef struct combo {
    uint32_t units, rr;
    uint64_t slc_gcs;          /* SLC GC runs so far */
    uint64_t clock;            /* the SLC clock: pages written to SLC so far (host and GC copies) */
    uint64_t region;           /* pages the SLC region holds: one wrap-around of the clock */
    uint64_t *born;            /* per ppn: slc_gcs when the page was written to SLC */
    uint64_t *born_clk;        /* per ppn: the clock then */
    uint64_t nppn;
    uint64_t hot, cold;        /* host pages placed in SLC / TLC */
    uint32_t order[];
} combo;

static int combo_init(void **state, csd_ftl *f) {
    combo *s = calloc(1, sizeof *s + (size_t)f->units * sizeof s->order[0]);
    if (!s) return -ENOMEM;
    s->born = calloc((size_t)f->physical, sizeof *s->born);
    s->born_clk = calloc((size_t)f->physical, sizeof *s->born_clk);
    if (!s->born || !s->born_clk) {
        free(s->born);
        free(s->born_clk);
        free(s);
        return -ENOMEM;
    }
    s->region = (uint64_t)f->units * f->slcb * f->sppb;
    s->units = f->units;
    s->nppn = f->physical;
    ftl_stripe_order(f, s->order);
    *state = s;
    return 0;
}

static int take_in(combo *s, csd_ftl *f, int r, csd_flash_batch *ops, uint64_t *ppn) {
    int rc = -ENOSPC;
    for (uint32_t t = 0; t < s->units && rc == -ENOSPC; t++) {
        uint32_t u = s->order[(s->rr + t) % s->units];
        rc = ftl_stream_take(f, u, (uint32_t)r, r, 0, ops, ppn);
        if (rc != -ENOSPC) s->rr = (s->rr + t + 1) % s->units;
    }
    return rc;
}

static int combo_alloc(void *state, csd_ftl *f, uint32_t hint, csd_flash_batch *ops, uint64_t *ppn) {
    (void)hint;
    combo *s = state;
    int hot = f->slcb && (f->cur_bytes <= f->p.combo_small_bytes || f->cur_update);
    if (hot) {
        int rc = take_in(s, f, REG_SLC, ops, ppn);
        if (!rc) {
            s->born[*ppn] = s->slc_gcs;
            s->born_clk[*ppn] = s->clock++;
            s->hot++;
            return 0;
        }
        if (rc != -ENOSPC) return rc;
    }
    int rc = take_in(s, f, REG_TLC, ops, ppn);
    if (!rc) s->cold++;
    return rc;
}

static uint32_t combo_victim(void *state, csd_ftl *f, uint32_t u, int r) {
    combo *s = state;
    if (r == REG_SLC) s->slc_gcs++;
    return ftl_greedy_victim(f, u, r);
}

static int combo_gc_dest(void *state, csd_ftl *f, uint64_t ppn) {
    combo *s = state;
    int r = ftl_ppn_region(f, ppn);
    /* warm (a wrap-around of the clock without an update) and unchanged for COMBO_WARM_GCS GCs */
    if (r == REG_SLC && s->clock - s->born_clk[ppn] >= s->region && s->slc_gcs - s->born[ppn] > COMBO_WARM_GCS)
        return REG_TLC;
    return r;
}

static void combo_moved(void *state, csd_ftl *f, uint64_t src, uint64_t dst) {
    combo *s = state;
    s->born[dst] = s->born[src];
    s->born_clk[dst] = s->born_clk[src];
    if (ftl_ppn_region(f, dst) == REG_SLC) s->clock++;
}

static void combo_report(void *state, csd_place_report_fn fn, void *arg) {
    combo *s = state;
    fn(arg, "hot_pages", s->hot);
    fn(arg, "cold_pages", s->cold);
    fn(arg, "slc_gcs", s->slc_gcs);
}

/* Kept across a reopen: the SLC clock and the counters ('C' 1 marks the layout). Page ages are not:
 * every SLC page counts as written at the reopen. */
static size_t combo_save(void *state, uint8_t *buf, size_t cap) {
    combo *s = state;
    const uint64_t v[] = { 0x4301, s->slc_gcs, s->hot, s->cold, s->rr };
    if (cap < sizeof v) return 0;
    for (size_t i = 0; i < 5; i++) csd_put64(buf + 8 * i, v[i]);
    return sizeof v;
}

static void combo_load(void *state, const uint8_t *buf, size_t len) {
    combo *s = state;
    if (len != 40 || csd_get64(buf) != 0x4301) return;
    s->slc_gcs = csd_get64(buf + 8);
    s->hot = csd_get64(buf + 16);
    s->cold = csd_get64(buf + 24);
    s->rr = (uint32_t)(csd_get64(buf + 32) % s->units);
    for (uint64_t i = 0; i < s->nppn; i++) s->born[i] = s->slc_gcs;
}

static void combo_destroy(void *state) {
    combo *s = state;
    if (s) {
        free(s->born);
        free(s->born_clk);
    }
    free(s);
}

const csd_place_ops csd_place_combo = {
    .name = "combo", .init = combo_init, .alloc = combo_alloc, .victim = combo_victim,
    .gc_dest = combo_gc_dest, .moved = combo_moved, .report = combo_report, .save = combo_save,
    .load = combo_load, .destroy = combo_destroy,
};
