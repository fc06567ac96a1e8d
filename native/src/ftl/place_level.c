/* Placement policy "level": level-aware placement on a hybrid SLC/TLC device (hybrid paper, sections
 * V-A to V-D). A write's hint is its LSM level + 1 (0 = no level: TLC). Until the first GC of the SLC
 * region every levelled write goes to SLC; that GC sets SLCTargetLevel to the lowest (deepest) level
 * written to SLC so far (V-A). Then Algorithm 1: a level <= SLCTargetLevel goes to SLC while SLC has
 * room, else TLC (an SLC overflow); Algorithms 2-3 move SLCTargetLevel so that the SLC/TLC write
 * ratio tracks the durability ratio phi within +-BalancingWeight, and lower it after an overflow.
 * SLC writes of level N go to a "level N open block" (one stream per level and unit); a level's
 * block left open when SLCTargetLevel drops below N expires and is the first block level N-1 takes
 * (Fig. 8). GC is greedy (VI-A), except that an SLC GC first looks for a migration victim: the SLC
 * block with the highest average level, if that average exceeds SLCTargetLevel (Algorithm 4); its
 * valid pages of a level above SLCTargetLevel move to TLC and the rest stay in SLC (Algorithm 5,
 * done in the same pass that reclaims the block). The logical-to-level table (V-A, V-D) is the level
 * kept with every page (ftl phint, from the OOB record): the policy reads it for SLC pages only.
 * Two switches add our variants, both off by default (the paper as printed): level_balance_ours
 * (Algorithm 3's period, floor and ceiling, balance_check) and level_migrate_any (migration from every
 * SLC GC victim, not only Algorithm 4's). */
#include "ftl/ftl_int.h"
#include "ftl/place.h"

#include <errno.h>
#include <stdlib.h>

#define LVL_STREAMS (FTL_STREAMS - FTL_REGIONS)   /* levels with an own open block; deeper ones share */

typedef struct level {
    uint32_t units, rr;
    int target_set;           /* SLCTargetLevel decided (first SLC GC) */
    int target;               /* SLCTargetLevel; -1 = no level goes to SLC */
    int deepest;              /* deepest level written to SLC before the first SLC GC */
    int max_level;            /* deepest level any write has carried: the target's ceiling */
    double phi, weight;       /* WriteAmountBalance and BalancingWeight (V-B) */
    uint64_t region_slc;      /* RegionSize_SLC in pages */
    uint64_t w_slc, w_tlc, w_slc_over;   /* WriteAmount_SLC, _TLC, _SLC_Overflow in pages */
    int overflow_flag;
    int ours;                 /* level_balance_ours: the TLC end of a period, target in [-1, max_level] */
    int migrate_any;          /* level_migrate_any: migrate from every SLC GC victim, not only Algorithm 4's */
    uint32_t mig_victim;      /* the block Algorithm 4 chose in the running SLC GC (NONE32: none) */
    uint32_t order[];
} level;

static int level_init(void **state, csd_ftl *f) {
    level *s = calloc(1, sizeof *s + (size_t)f->units * sizeof s->order[0]);
    if (!s) return -ENOMEM;
    s->units = f->units;
    ftl_stripe_order(f, s->order);
    s->target = -1;
    s->deepest = -1;
    s->max_level = -1;
    const csd_params *p = &f->p;
    uint32_t tlc = f->bpp - f->slcb;
    /* phi = (pages/block SLC / TLC) x (blocks SLC / TLC) x (P/E SLC / TLC), V-B; level_phi_pct scales it
     * (100 = as printed; the bench's sweep asks what a balance aiming lower would give) */
    s->phi = f->slcb && tlc ? ((double)f->sppb / f->ppb) * ((double)f->slcb / tlc) *
                                  ((double)p->pe_cycles_slc / p->pe_cycles_tlc) * (p->level_phi_pct / 100.0)
                            : 0;
    s->weight = p->level_balance_weight_pct / 100.0;
    s->region_slc = (uint64_t)f->units * f->slcb * f->sppb;
    s->ours = p->level_balance_ours != 0;
    s->migrate_any = p->level_migrate_any != 0;
    s->mig_victim = NONE32;
    *state = s;
    return 0;
}

static uint32_t stream_of(int lvl) { return FTL_REGIONS + (uint32_t)(lvl < LVL_STREAMS ? lvl : LVL_STREAMS - 1); }

static int open_room(const csd_ftl *f, uint32_t u, uint32_t st) {
    uint32_t a = *ftl_active(f, u, st);
    return a != NONE32 && f->bwp[a] < ftl_block_pages(f, a);
}

/* Algorithm 3: SLCLoadBalancer (with Algorithm 2's bookkeeping done by the caller). The paper runs the
 * check "once every time data are accumulated in the SLC region by the size of the SLC region" (hybrid
 * paper V-B, Algorithm 3 line 2), and it compares the write amounts of both regions ("monitors the amount
 * of data input to each NAND region"). As printed (level_balance_ours = 0) a period ends on SLC writes
 * only and the target never drops below level 0 (the top level always goes to SLC); nothing bounds it
 * from above but the hint's range. Ours (level_balance_ours = 1) adds three things: a period also ends
 * when the TLC writes reach what goes with one SLC region's worth at the balanced ratio (phi x
 * WriteAmount_TLC >= RegionSize_SLC), the target may drop to -1 (nothing to SLC), and it is not raised
 * past the deepest level written so far. Read literally with a -1 floor, a target below every level is
 * never checked again and SLC stays unused for good; the TLC end undoes that after 1/phi region's worth
 * of TLC writes (at the balanced ratio both ends coincide), and the ceiling keeps a full SLC region,
 * whose overflowing writes count as TLC writes, from raising the target period after period. */
static int target_floor(const level *s) { return s->ours ? -1 : 0; }
static int target_ceiling(const level *s) { return s->ours ? s->max_level : (int)CSD_HINT_MAX - 1; }

static void balance_check(level *s, int tlc_write) {
    if (tlc_write && !s->ours) return;   /* as printed: Algorithm 3 runs on SLC writes (Algorithm 1, line 8) */
    if (s->w_slc < s->region_slc && (!s->ours || s->phi * (double)s->w_tlc < (double)s->region_slc)) return;
    double lo = s->phi - s->weight, hi = s->phi + s->weight;
    if ((double)s->w_slc < lo * (double)s->w_tlc) {
        if (s->target < target_ceiling(s)) s->target++;
    } else if ((double)s->w_slc > hi * (double)s->w_tlc) {
        if (s->target > target_floor(s)) s->target--;
    }
    s->w_slc = 0;
    s->w_tlc = 0;
}

static void balance_overflow(level *s) {
    s->overflow_flag = 1;   /* Algorithm 2, OVERFLOW */
    if (s->w_slc_over >= s->region_slc) {   /* Algorithm 3, lines 15-20 (flag set just above) */
        if (s->target > target_floor(s)) s->target--;
        s->w_slc_over = 0;
        s->overflow_flag = 0;
    }
}

/* One SLC page for level lvl in unit u: its level's open block, else the expired block of the level
 * below it (lvl + 1, no longer placed in SLC), else a new one (Fig. 8). */
static int take_slc(const level *s, csd_ftl *f, uint32_t u, int lvl, csd_flash_batch *ops, uint64_t *ppn) {
    uint32_t st = stream_of(lvl);
    /* level lvl + 1's block is expired once that level no longer goes to SLC */
    if (!open_room(f, u, st) && lvl + 1 < LVL_STREAMS && s->target_set && lvl + 1 > s->target) {
        uint32_t ex = stream_of(lvl + 1);
        if (open_room(f, u, ex)) {
            uint32_t *a = ftl_active(f, u, st);
            if (*a != NONE32) {   /* full: close it so the expired block can take its place */
                f->bstate[*a] = BLK_CLOSED;
                *a = NONE32;
            }
            ftl_stream_move(f, u, ex, st);
        }
    }
    return ftl_stream_take(f, u, st, REG_SLC, 0, ops, ppn);
}

static int take_tlc(level *s, csd_ftl *f, csd_flash_batch *ops, uint64_t *ppn) {
    int rc = -ENOSPC;
    for (uint32_t t = 0; t < s->units; t++) {
        uint32_t u = s->order[s->rr];
        s->rr = (s->rr + 1) % s->units;
        rc = ftl_stream_take(f, u, REG_TLC, REG_TLC, 0, ops, ppn);
        if (rc != -ENOSPC) return rc;
    }
    return rc;
}

static int level_alloc(void *state, csd_ftl *f, uint32_t hint, csd_flash_batch *ops, uint64_t *ppn) {
    level *s = state;
    int lvl = (int)hint - 1;
    if (lvl > s->max_level) s->max_level = lvl;
    if (hint == 0 || !f->slcb || (s->target_set && lvl > s->target)) {   /* Algorithm 1, line 16 */
        int rc = take_tlc(s, f, ops, ppn);
        if (!rc) {
            s->w_tlc++;
            if (s->target_set) balance_check(s, 1);   /* the TLC end of a period (ours only) */
        }
        return rc;
    }
    /* Algorithm 1, lines 1-8 (or every levelled write before SLCTargetLevel is decided) */
    int rc = -ENOSPC;
    for (uint32_t t = 0; t < s->units && rc == -ENOSPC; t++) {
        uint32_t u = s->order[(s->rr + t) % s->units];
        rc = take_slc(s, f, u, lvl, ops, ppn);
        if (rc != -ENOSPC) s->rr = (s->rr + t + 1) % s->units;
    }
    if (!rc) {
        if (!s->target_set && lvl > s->deepest) s->deepest = lvl;
        s->w_slc++;
        if (s->overflow_flag) s->w_slc_over++;
        if (s->target_set) balance_check(s, 0);
        return 0;
    }
    if (rc != -ENOSPC) return rc;
    /* lines 9-14: SLC full of valid pages, the write overflows to TLC */
    rc = take_tlc(s, f, ops, ppn);
    if (!rc) {
        s->w_tlc++;
        if (s->target_set) balance_overflow(s);   /* lines 13-14: the OVERFLOW case only */
    }
    return rc;
}

/* Average level of block gb's valid pages (hint 0 counts as level 0), -1 when it has none. */
static double avg_level(const csd_ftl *f, uint32_t gb) {
    uint64_t first = (uint64_t)gb * f->ppb, sum = 0, n = 0;
    for (uint32_t i = 0; i < f->bwp[gb]; i++) {
        if (f->pstate[first + i] != PG_VALID) continue;
        uint32_t h = f->phint[first + i];
        sum += h ? h - 1 : 0;
        n++;
    }
    return n ? (double)sum / (double)n : -1;
}

static uint32_t level_victim(void *state, csd_ftl *f, uint32_t u, int r) {
    level *s = state;
    if (r != REG_SLC) return ftl_greedy_victim(f, u, r);
    if (!s->target_set) {   /* the first SLC GC decides SLCTargetLevel (V-A) */
        s->target_set = 1;
        s->target = s->deepest < target_floor(s) ? target_floor(s) : s->deepest;
    }
    /* Algorithm 4: the SLC block with the highest average level is the migration candidate */
    uint32_t cand = NONE32;
    double best = -1;
    for (uint32_t b = 0; b < f->slcb; b++) {
        uint32_t gb = u * f->bpp + b;
        if (f->bstate[gb] != BLK_CLOSED || f->bres[gb]) continue;
        double a = avg_level(f, gb);
        if (a > best) {
            best = a;
            cand = gb;
        }
    }
    if (cand != NONE32 && best > (double)s->target) return s->mig_victim = cand;
    s->mig_victim = NONE32;
    return ftl_greedy_victim(f, u, r);
}

/* Algorithm 5, line 7: a valid SLC page of a level above SLCTargetLevel moves to TLC: a page of
 * Algorithm 4's migration victim (as printed), or of any SLC GC victim (level_migrate_any). */
static int level_gc_dest(void *state, csd_ftl *f, uint64_t ppn) {
    level *s = state;
    int r = ftl_ppn_region(f, ppn);
    if (r != REG_SLC) return r;
    if (!s->migrate_any && ftl_block_of(f, ppn) != s->mig_victim) return REG_SLC;
    uint32_t h = f->phint[ppn];
    return (h ? (int)h - 1 : 0) > s->target ? REG_TLC : REG_SLC;
}

static void level_report(void *state, csd_place_report_fn fn, void *arg) {
    level *s = state;
    fn(arg, "slc_target_hint", s->target_set ? (uint64_t)(s->target + 1) : 0);   /* hint units */
    fn(arg, "slc_target_set", (uint64_t)s->target_set);
    fn(arg, "phi_milli", (uint64_t)(s->phi * 1000 + 0.5));
    fn(arg, "write_amount_slc_pages", s->w_slc);
    fn(arg, "write_amount_tlc_pages", s->w_tlc);
}

/* Kept across a reopen (with the wear record): SLCTargetLevel and Algorithms 2-3's amounts. */
static size_t level_save(void *state, uint8_t *buf, size_t cap) {
    level *s = state;
    const uint64_t v[] = { 2, (uint64_t)s->target_set, (uint64_t)(int64_t)s->target, (uint64_t)(int64_t)s->deepest,
                           s->w_slc, s->w_tlc, s->w_slc_over, (uint64_t)s->overflow_flag, s->rr,
                           (uint64_t)(int64_t)s->max_level };
    size_t n = sizeof v / sizeof v[0];
    if (cap < 8 * n) return 0;
    for (size_t i = 0; i < n; i++) csd_put64(buf + 8 * i, v[i]);
    return 8 * n;
}

static void level_load(void *state, const uint8_t *buf, size_t len) {
    level *s = state;
    /* version 1 had no max_level (10th value); another policy's state is left alone */
    uint64_t ver = len >= 8 ? csd_get64(buf) : 0;
    if (!((ver == 1 && len == 9 * 8) || (ver == 2 && len == 10 * 8))) return;
    s->target_set = csd_get64(buf + 8) != 0;
    s->target = (int)(int64_t)csd_get64(buf + 16);
    s->deepest = (int)(int64_t)csd_get64(buf + 24);
    s->w_slc = csd_get64(buf + 32);
    s->w_tlc = csd_get64(buf + 40);
    s->w_slc_over = csd_get64(buf + 48);
    s->overflow_flag = csd_get64(buf + 56) != 0;
    s->rr = (uint32_t)(csd_get64(buf + 64) % s->units);
    if (s->target < target_floor(s) || s->target > 254) s->target = s->deepest < 0 ? 0 : s->deepest;
    s->max_level = ver == 2 ? (int)(int64_t)csd_get64(buf + 72) : -1;
    if (s->max_level < s->target) s->max_level = s->target;
    if (s->max_level < s->deepest) s->max_level = s->deepest;
    if (s->max_level > 254) s->max_level = 254;
}

static void level_destroy(void *state) { free(state); }

const csd_place_ops csd_place_level = {
    .name = "level", .init = level_init, .alloc = level_alloc, .victim = level_victim,
    .gc_dest = level_gc_dest, .report = level_report, .save = level_save, .load = level_load,
    .destroy = level_destroy,
};
