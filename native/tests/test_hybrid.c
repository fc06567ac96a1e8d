/* Hybrid SLC/TLC device (docs/HYBRID.md): exact flash times per cell type, the region layout, the
 * placement policies "level" (hybrid paper V) and "combo" (its baseline) on hand-checked cases, and
 * randomized invariants across GC, migration and TRIM against an in-memory reference: read-back
 * equals what was written, P/E counts equal the erases performed and survive reopen, an image
 * without a wear record opens with zero counts. */
#include "check.h"
#include "flash/flash.h"
#include "ftl/ftl.h"
#include "ftl/place.h"
#include "store/store.h"

#include <errno.h>
#include <sys/stat.h>

static const char *DIR_;

static const char *path_of(const char *name) {
    static char buf[4][4096];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", DIR_, name);
    return buf[k];
}

static uint64_t rng_state;
static uint64_t rnd(void) {   /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }

/* ---------------------------------------------------------------- exact times */

typedef struct harness {
    csd_params p;
    csd_sim *sim;
    csd_flash *f;
    csd_flash_op ops[8];
    uint64_t done_at[8];
} harness;

static void on_done(csd_flash_op *op, uint64_t t) {
    harness *h = op->arg;
    h->done_at[op - h->ops] = t;
}

/* hybrid preset (Table 2), 64 blocks per plane: blocks 0..5 are SLC-mode (64 x 10% = 6.4 -> 6).
 * A 16 KiB page crosses a 400 MB/s channel in 40,960 ns; no firmware cost per page.
 *   SLC read on chip 0:    50,000 + 40,960           =     90,960
 *   TLC read on chip 1:   250,000 + 40,960           =    290,960 (same channel, no overlap)
 *   SLC program, chip 2:   40,960 + 300,000          =    340,960
 *   TLC program, chip 4:   40,960 + 2,500,000        =  2,540,960
 *   SLC erase, chip 6:                                 10,000,000 */
static void test_times(void) {
    harness h;
    memset(&h, 0, sizeof h);
    CHECK(csd_params_preset(&h.p, "hybrid") == 0);
    h.p.blocks_per_plane = 64;
    CHECK_EQ_INT(csd_params_slc_blocks(&h.p), 6);
    h.sim = csd_sim_create();
    char err[256];
    CHECK(csd_flash_create(&h.f, &h.p, h.sim, err, sizeof err) == 0);
    CHECK_EQ_U64(csd_flash_page_xfer_ns(h.f), 40960);
    struct { int chip; uint32_t block; uint8_t kind; uint64_t want; int slc; } c[] = {
        { 0, 0, CSD_FLASH_READ, 90960, 1 },
        { 1, 10, CSD_FLASH_READ, 290960, 0 },
        { 2, 5, CSD_FLASH_PROGRAM, 340960, 1 },
        { 4, 6, CSD_FLASH_PROGRAM, 2540960, 0 },
        { 6, 3, CSD_FLASH_ERASE, 10000000, 1 },
    };
    for (int i = 0; i < 5; i++) {
        csd_addr a = { .channel = (uint32_t)c[i].chip / 2, .chip = (uint32_t)c[i].chip % 2, .block = c[i].block };
        uint64_t ppn = csd_ppn_encode(&h.p, &a);
        CHECK_EQ_INT(csd_ppn_is_slc(&h.p, ppn), c[i].slc);
        h.ops[i] = (csd_flash_op){ .kind = c[i].kind, .ppn = ppn, .done = on_done, .arg = &h };
        csd_flash_submit(h.f, &h.ops[i]);
    }
    while (csd_sim_step(h.sim)) {}
    for (int i = 0; i < 5; i++) CHECK_EQ_U64(h.done_at[i], c[i].want);
    csd_flash_destroy(h.f);
    csd_sim_destroy(h.sim);

    /* one cell type (slc_share_pct 0): every block takes the normal times, as before */
    csd_params t;
    CHECK(csd_params_preset(&t, "tiny") == 0);
    t.blocks_per_plane = 8;
    CHECK_EQ_INT(csd_ppn_is_slc(&t, 0), 0);
    CHECK_EQ_U64(csd_flash_cell_ns(&t, CSD_FLASH_READ, 0), t.t_read_ns);
    CHECK_EQ_U64(csd_flash_cell_ns(&t, CSD_FLASH_PROGRAM, 0), t.t_prog_ns);
}

/* ---------------------------------------------------------------- layout */

/* One plane per unit, 12 pages per block (4 in SLC mode), 16 KiB... no: 4 KiB pages. */
static csd_params small(const char *placement, uint32_t units, uint32_t bpp, uint32_t slc_pct) {
    csd_params p;
    CHECK(csd_params_preset(&p, "hybrid") == 0);
    p.channels = units;
    p.chips_per_channel = 1;
    p.page_bytes = 4096;
    p.pages_per_block = 12;
    p.slc_pages_per_block = 4;
    p.blocks_per_plane = bpp;
    p.slc_share_pct = slc_pct;
    p.gc_free_pct = 0;
    p.gc_free_blocks_min = 2;
    p.isp_buffer_bytes = 1 << 20;
    snprintf(p.placement, sizeof p.placement, "%s", placement);
    return p;
}

/* Derived blocks per plane with SLC blocks, by hand: 2 units, 96 logical pages, 20% over-provisioning
 * -> 116 pages. Greedy GC's floor is 6 blocks (IMAGE-FORMAT.md); with SLC the plane needs
 * max(ceil(116/2), ceil(100/2) + 12 + 4 + 1) = 67 pages, at least 8 blocks and 3 SLC-mode blocks:
 * 12 blocks (12 x 25% = 3 SLC) hold 9 x 12 + 3 x 4 = 120 pages. Headroom: 2 x (120 - 17) - 96 = 110. */
static void test_layout(void) {
    csd_params p = small("level", 2, 0, 25);
    csd_layout l;
    char err[256];
    CHECK(csd_layout_compute(&l, 96 * 4096, &p, err, sizeof err) == 0);
    CHECK_EQ_U64(l.blocks_per_plane, 12);
    CHECK_EQ_U64(l.slc_blocks, 3);
    CHECK_EQ_U64(l.unit_pages, 120);
    CHECK_EQ_INT(csd_layout_headroom(&l), 110);
    /* without SLC the same capacity derives 6 blocks (the existing rule, unchanged) */
    p.slc_share_pct = 0;
    CHECK(csd_layout_compute(&l, 96 * 4096, &p, err, sizeof err) == 0);
    CHECK_EQ_U64(l.blocks_per_plane, 6);
    CHECK_EQ_U64(l.slc_blocks, 0);
    /* too few SLC-mode blocks, or too few blocks for both regions' reserves: refused with a reason */
    p = small("level", 2, 8, 25);
    CHECK(csd_layout_compute(&l, 96 * 4096, &p, err, sizeof err) == -EINVAL);
    CHECK_CONTAINS(err, "gives 2 SLC-mode blocks per plane; at least 3 are needed");
    p = small("level", 2, 12, 25);
    CHECK(csd_layout_compute(&l, 210 * 4096, &p, err, sizeof err) == -EINVAL);
    CHECK_CONTAINS(err, "in SLC mode");
}

/* ---------------------------------------------------------------- hand-checked decisions */

static csd_ftl *fresh(const char *name, const csd_params *p, uint64_t cap) {
    char err[512] = "";
    int rc = csd_ftl_format(path_of(name), cap, p, err, sizeof err);
    if (rc) fprintf(stderr, "format: %s\n", err);
    CHECK(rc == 0);
    csd_ftl *f;
    rc = csd_ftl_open(&f, path_of(name), NULL, err, sizeof err);
    if (rc) fprintf(stderr, "open: %s\n", err);
    CHECK(rc == 0);
    return f;
}

static uint64_t mk(csd_ftl *f, const char *name) {
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_create(f, name, &id), 0);
    return id;
}

static uint8_t page_buf[4096];
/* Append one page (filled with tag) to object id with hint; returns its physical page. */
static uint64_t put(csd_ftl *f, uint64_t id, uint64_t idx, uint32_t hint, uint8_t tag) {
    memset(page_buf, tag, sizeof page_buf);
    CHECK_EQ_INT(csd_ftl_write_hint(f, id, idx * 4096, page_buf, 4096, hint, NULL), 0);
    uint64_t ppn = csd_ftl_lookup(f, id, idx);
    CHECK_EQ_U64(csd_ftl_page_hint(f, ppn), hint);
    return ppn;
}

static void expect_page(csd_ftl *f, uint64_t id, uint64_t idx, uint8_t tag) {
    uint8_t b[4096];
    CHECK_EQ_INT(csd_ftl_read(f, id, idx * 4096, b, 4096, NULL), 0);
    for (int i = 0; i < 4096; i++) CHECK_EQ_INT(b[i], tag);
}

typedef struct kv { const char *key; uint64_t v; int found; } kv;
static void find_kv(void *arg, const char *key, uint64_t v) {
    kv *k = arg;
    if (!strcmp(k->key, key)) {
        k->v = v;
        k->found = 1;
    }
}
static uint64_t place_stat(csd_ftl *f, const char *key) {
    kv k = { key, 0, 0 };
    csd_ftl_place_report(f, find_kv, &k);
    CHECK(k.found);
    return k.v;
}

/* One unit of 20 blocks: blocks 0-3 SLC-mode (4 pages each: ppn b*12 .. b*12+3), blocks 4-19 TLC
 * (ppn 48 on). GC keeps 2 free blocks per region. Hint = level + 1. */
static void test_level_decisions(void) {
    csd_params p = small("level", 1, 20, 20);
    csd_ftl *f = fresh("level1.img", &p, 96 * 4096);
    CHECK_EQ_INT(csd_ftl_slc_blocks(f), 4);
    uint64_t a = mk(f, "a"), b = mk(f, "b"), c = mk(f, "c"), d = mk(f, "d");
    /* before the first SLC GC every levelled write goes to SLC, one open block per level (Fig. 8):
     * L0 opens block 0, L2 block 1 (free blocks FIFO), unlevelled data goes to TLC block 4 */
    CHECK_EQ_U64(put(f, a, 0, 1, 0xa0), 0);
    CHECK_EQ_U64(put(f, b, 0, 3, 0xb0), 12);
    CHECK_EQ_U64(put(f, a, 1, 1, 0xa1), 1);
    CHECK_EQ_U64(put(f, c, 0, 0, 0xc0), 48);
    CHECK_EQ_U64(put(f, b, 1, 3, 0xb1), 13);
    CHECK_EQ_U64(place_stat(f, "slc_target_set"), 0);
    /* L1 opens block 2 (two SLC blocks were free: no GC yet) */
    for (int i = 0; i < 4; i++) CHECK_EQ_U64(put(f, d, (uint64_t)i, 2, (uint8_t)(0xd0 + i)), 24 + (uint64_t)i);
    /* the 5th L1 page: block 2 is full and one SLC block is free (< 2): the first SLC GC, which sets
     * SLCTargetLevel to the deepest level in SLC, L2 (hint 3). No block can be reclaimed (block 2
     * is all valid, 0 and 1 are open), so the page overflows to TLC (Algorithm 1, line 11) */
    csd_ftl_counters c0;
    csd_ftl_counters_get(f, &c0);
    CHECK_EQ_U64(put(f, d, 4, 2, 0xd4), 49);
    CHECK_EQ_U64(place_stat(f, "slc_target_set"), 1);
    CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 3);
    /* a level deeper than SLCTargetLevel goes to TLC (Algorithm 1, line 16) */
    uint64_t e = mk(f, "e");
    CHECK_EQ_U64(put(f, e, 0, 4, 0xe0), 50);
    /* L0 within the target: its open block 0 still has pages 2 and 3 */
    CHECK_EQ_U64(put(f, d, 0, 1, 0xd5), 2);
    CHECK_EQ_U64(put(f, d, 1, 1, 0xd6), 3);
    /* GC victim: block 0 is now full and closed with 4 valid pages, block 2 holds d2, d3 (d0, d1
     * were rewritten). The next L0 page needs a block: SLC GC. Algorithm 4's candidate is the
     * highest average level, block 2 (L1 = 1), not above the target (2): no migration; greedy picks
     * block 2 (2 valid, block 0 is full). d2, d3 move to SLC block 3 (GC's stream), block 2 is
     * erased; one SLC block free again (< 2) and nothing more to reclaim: the page overflows to TLC. */
    CHECK_EQ_U64(put(f, a, 2, 1, 0xa2), 51);
    csd_ftl_counters c1;
    csd_ftl_counters_get(f, &c1);
    CHECK_EQ_U64(c1.gc_runs, 1);
    CHECK_EQ_U64(c1.gc_pages_moved, 2);
    CHECK_EQ_U64(c1.migrated_pages, 0);
    CHECK_EQ_U64(csd_ftl_lookup(f, d, 2), 36);
    CHECK_EQ_U64(csd_ftl_lookup(f, d, 3), 37);
    CHECK_EQ_U64(csd_ftl_block_erases(f, 2), 1);
    CHECK_EQ_U64(c1.region_erases[1], 1);
    CHECK_EQ_U64(c1.region_erases[0], 0);
    expect_page(f, d, 2, 0xd2);
    expect_page(f, d, 3, 0xd3);
    expect_page(f, d, 0, 0xd5);
    expect_page(f, b, 1, 0xb1);
    /* host programs per region: SLC a0 b0 a1 b1 d0-d3 d0' d1' = 10, TLC c0 d4 e0 a2 = 4 */
    CHECK_EQ_U64(c1.region_host_programs[1], 10);
    CHECK_EQ_U64(c1.region_host_programs[0], 4);
    CHECK_EQ_U64(c1.region_programs[1], 12);   /* + the two GC copies */
    (void)c0;
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    /* SLCTargetLevel and the page levels survive a reopen (wear record, OOB records) */
    char err[512];
    CHECK_EQ_INT(csd_ftl_open(&f, path_of("level1.img"), NULL, err, sizeof err), 0);
    CHECK_EQ_U64(place_stat(f, "slc_target_set"), 1);
    CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 3);
    CHECK_EQ_U64(csd_ftl_page_hint(f, csd_ftl_lookup(f, d, 2)), 2);
    CHECK(put(f, e, 1, 4, 0xe1) >= 48);   /* L3: TLC, as before the reopen */
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* Migration (Algorithms 4-5): L3 data (hint 4) sits in SLC from before the first SLC GC, so the GC
 * sets SLCTargetLevel to L3. Then only SLC writes (no TLC writes): once an SLC region's worth has
 * been written since, Algorithm 3 finds WriteAmount_SLC above (phi + 0.1) x WriteAmount_TLC = 0 and
 * lowers the target to L2. The next SLC GC's candidate is the block with the highest average level,
 * the L3 block (3 > 2): its valid L3 pages move to TLC; nothing is lost. */
static void test_level_migration(void) {
    csd_params p = small("level", 1, 20, 20);
    csd_ftl *f = fresh("level2.img", &p, 96 * 4096);
    uint64_t deep = mk(f, "deep"), top = mk(f, "top");
    for (uint64_t i = 0; i < 4; i++) CHECK_EQ_U64(put(f, deep, i, 4, (uint8_t)(0x30 + i)), i);   /* block 0 */
    /* L0 churn: rewrite 4 pages of "top" in SLC over and over */
    uint64_t migrated = 0;
    int k;
    for (k = 0; k < 200 && !migrated; k++) {
        put(f, top, (uint64_t)(k % 4), 1, (uint8_t)k);
        csd_ftl_counters c;
        csd_ftl_counters_get(f, &c);
        migrated = c.migrated_pages;
    }
    CHECK_EQ_U64(migrated, 4);
    CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 3);   /* L2 */
    for (uint64_t i = 0; i < 4; i++) {
        uint64_t ppn = csd_ftl_lookup(f, deep, i);
        CHECK(ppn >= 48);   /* TLC */
        CHECK_EQ_U64(csd_ftl_page_hint(f, ppn), 4);
        expect_page(f, deep, i, (uint8_t)(0x30 + i));
    }
    CHECK_EQ_U64(csd_ftl_block_erases(f, 0), 1);   /* the migration victim was reclaimed */
    for (uint64_t i = 0; i < 4; i++)
        if ((int)i < k) expect_page(f, top, i, (uint8_t)(k - 1 - (int)((k - 1 - (int)i) % 4)));
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* Algorithm 3 lowering the target and raising it again, with our additions (level_balance_ours = 1:
 * a TLC end of a period, floor -1, ceiling at the deepest level written; hybrid paper V-B). phi = (4/12) x (4/16) x
 * (100,000/2,500) = 3.33 here, RegionSize_SLC = 4 blocks x 4 pages = 16, BalancingWeight 0.1. A period
 * of the balance check ends when the SLC writes reach 16, or when phi x the TLC writes reach 16 (5 TLC
 * writes). One object's 4 pages rewritten at L0 (hint 1), write k to page k % 4:
 *   k 0-11   SLC blocks 0, 1, 2 (ppn 0-3, 12-15, 24-27), before SLCTargetLevel is set
 *   k 12     block 2 is full and 1 SLC block is free (< 2): the first SLC GC sets the target to the
 *            deepest level in SLC, L0, and erases block 0 (no valid page); the page goes to block 3 (36)
 *   k 15     (ppn 39) the 16th SLC write ends a period: 16 > (3.33 + 0.1) x 0 TLC writes, the target
 *            drops to -1 (nothing to SLC)
 *   k 16-20  L0 is now deeper than the target: TLC (ppn 48-52). At the 5th, 3.33 x 5 = 16.7 >= 16
 *            ends a period: 0 SLC writes < (3.33 - 0.1) x 5 = 16.2, the target goes back up to L0
 *   then     5 unlevelled pages (hint 0) go to TLC (ppn 53-57); the 5th ends a period with 0 SLC writes,
 *            but the target is already the deepest level written (L0): raising it would place nothing
 *            more in SLC, so it stays at L0 and both amounts restart
 *   k 21-36  SLC again: block 0 (erased at k 12, ppn 0-3), blocks 1 and 2 (erased by the GCs that
 *            free them: ppn 12-15, 24-27), block 0 again (0-3); the 16th, k 36, drops the target again.
 * Read literally (the check only at the SLC end), the target would stay at -1 from k 16 on. */
static void test_level_balance_down_up(void) {
    csd_params p = small("level", 1, 20, 20);
    p.level_balance_ours = 1;
    csd_ftl *f = fresh("level3.img", &p, 96 * 4096);
    CHECK_EQ_U64(place_stat(f, "phi_milli"), 3333);
    uint64_t top = mk(f, "top"), other = mk(f, "other");
    static const uint64_t want[] = {
        0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27, 36, 37, 38, 39,   /* k 0-15 */
        48, 49, 50, 51, 52,                                             /* k 16-20 */
        0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27, 0, 1, 2, 3,         /* k 21-36 */
        58,                                                             /* k 37 */
    };
    /* SLCTargetLevel + 1 after each write (0: not set, or -1) */
    static const uint64_t target[] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0,
        0, 0, 0, 0, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
        0,
    };
    for (int k = 0; k < (int)(sizeof want / sizeof want[0]); k++) {
        CHECK_EQ_U64(put(f, top, (uint64_t)(k % 4), 1, (uint8_t)k), want[k]);
        CHECK_EQ_U64(place_stat(f, "slc_target_hint"), target[k]);
        if (k == 11) CHECK_EQ_U64(place_stat(f, "slc_target_set"), 0);
        if (k == 12) CHECK_EQ_U64(place_stat(f, "slc_target_set"), 1);
        if (k == 19) {   /* 4 TLC writes: 3.33 x 4 = 13.3 < 16, the period goes on */
            CHECK_EQ_U64(place_stat(f, "write_amount_slc_pages"), 0);
            CHECK_EQ_U64(place_stat(f, "write_amount_tlc_pages"), 4);
        }
        if (k == 20) {
            CHECK_EQ_U64(place_stat(f, "write_amount_tlc_pages"), 0);   /* a new period */
            for (uint64_t i = 0; i < 5; i++) {
                CHECK_EQ_U64(put(f, other, i, 0, 0x55), 53 + i);
                CHECK_EQ_U64(place_stat(f, "write_amount_tlc_pages"), i < 4 ? i + 1 : 0);
                CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 1);
            }
        }
    }
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.region_host_programs[1], 32);   /* SLC: k 0-15 and 21-36 */
    CHECK_EQ_U64(c.region_host_programs[0], 11);   /* TLC: k 16-20, the 5 unlevelled pages, k 37 */
    CHECK_EQ_U64(c.gc_pages_moved, 0);             /* every victim held only stale pages */
    static const uint8_t last[] = { 36, 37, 34, 35 };   /* the last write of each page */
    for (uint64_t i = 0; i < 4; i++) expect_page(f, top, i, last[i]);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* Algorithm 3 as printed (level_balance_ours = 0, the preset's default), same device as above (phi 3.33,
 * RegionSize_SLC 16 pages, BalancingWeight 0.1). One object's 4 pages rewritten at L0 (hint 1), write k
 * to page k % 4; every write lands in SLC: k 0-15 in blocks 0, 1, 2, 3 (ppn 12 x (k / 4) + k % 4), then
 * each new block needs a GC, which reclaims the lowest-numbered block whose pages were all rewritten
 * (greedy, first found): blocks 0, 1, 2, 0, 1, 2, ... (block 3 stays stale): ppn 12 x ((k - 16) / 4 % 3)
 * + k % 4 from k 16 on.
 *   k 12     the first SLC GC sets SLCTargetLevel to L0 (hint 1), as in the test above
 *   then     5 unlevelled pages (hint 0) go to TLC (ppn 48-52); they end no period (no TLC end as
 *            printed): WriteAmount_TLC is 5 after them
 *   k 15     the 16th SLC write ends a period: 16 < (3.33 - 0.1) x 5 = 16.2 TLC-weighted writes, so the
 *            target goes up, to L1 (hint 2), past the deepest level any write carried (no ceiling)
 *   k 31     16 more SLC writes, no TLC write: 16 > (3.33 + 0.1) x 0, the target goes down to L0
 *   k 47     the same again: the target stays at L0, the floor as printed (the same writes with ours:
 *            test_level_balance_switch below) */
static void test_level_balance_as_printed(void) {
    for (int half = 0; half <= 1; half++) {
        csd_params p = small("level", 1, 20, 20);
        CHECK_EQ_INT(p.level_balance_ours, 0);   /* the preset is the paper as printed */
        CHECK_EQ_INT(p.level_phi_pct, 100);
        /* level_phi_pct = 50 (a what-if: the balance aims at half of phi, 1.67): at k 15 the same 16 SLC
         * writes are above (1.67 + 0.1) x 5 = 8.8, so the target goes down (stays at L0, the floor)
         * instead of up; every write takes the same page */
        if (half) p.level_phi_pct = 50;
        csd_ftl *f = fresh(half ? "level4h.img" : "level4.img", &p, 96 * 4096);
        CHECK_EQ_U64(place_stat(f, "phi_milli"), half ? 1667 : 3333);
        uint64_t top = mk(f, "top"), other = mk(f, "other");
        for (int k = 0; k < 64; k++) {
            if (k == 13) {
                for (uint64_t i = 0; i < 5; i++) {
                    CHECK_EQ_U64(put(f, other, i, 0, 0x55), 48 + i);
                    CHECK_EQ_U64(place_stat(f, "write_amount_tlc_pages"), i + 1);
                    CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 1);
                }
            }
            uint64_t blk = k < 16 ? (uint64_t)k / 4 : (uint64_t)((k - 16) / 4) % 3;
            CHECK_EQ_U64(put(f, top, (uint64_t)(k % 4), 1, (uint8_t)k), 12 * blk + (uint64_t)(k % 4));
            uint64_t want = k < 12 ? 0 : half ? 1 : k < 15 ? 1 : k < 31 ? 2 : 1;
            CHECK_EQ_U64(place_stat(f, "slc_target_hint"), want);
        }
        csd_ftl_counters c;
        csd_ftl_counters_get(f, &c);
        CHECK_EQ_U64(c.region_host_programs[1], 64);
        CHECK_EQ_U64(c.region_host_programs[0], 5);
        CHECK_EQ_INT(csd_ftl_close(f), 0);
    }
}

/* The switch on the same writes as test_level_balance_as_printed (level_balance_ours = 1): the same
 * page for every write until Algorithm 3's decisions differ, and each difference is one of the three
 * the switch names (a TLC end of a period, the floor at -1, the ceiling at the deepest level written):
 *   k 0-12   as printed (SLC blocks 0-2, then 3 after the first SLC GC set the target to L0)
 *   then     the 5th unlevelled TLC page ends a period (TLC end: 3.33 x 5 >= 16): 13 SLC writes < (3.33
 *            - 0.1) x 5, so the target would go up, but L0 is the deepest level written (ceiling): it
 *            stays at L0 and both amounts restart (as printed: no end, the target rises at k 15)
 *   k 13-28  SLC (block 3, then greedy GC takes the stale blocks 0, 1, 2, 0 in turn); k 28 is the 16th
 *            SLC write since: 16 > (3.33 + 0.1) x 0, the target drops to -1 (floor: as printed it stops
 *            at L0), nothing goes to SLC
 *   k 29-33  L0 is below the target: TLC (ppn 53-57); the 5th ends a period with 0 SLC writes and the
 *            target goes back to L0
 *   k 34-49  SLC again, the 16th (k 49) drops the target to -1; k 50-54 TLC (58-62), k 54 raises it;
 *            k 55-63 SLC.
 * 54 pages in SLC and 15 in TLC, against 64 and 5 as printed. */
static void test_level_balance_switch(void) {
    csd_params p = small("level", 1, 20, 20);
    p.level_balance_ours = 1;
    csd_ftl *f = fresh("level4b.img", &p, 96 * 4096);
    uint64_t top = mk(f, "top"), other = mk(f, "other");
    static const uint64_t want[64] = {
        0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27, 36,                 /* k 0-12 */
        37, 38, 39, 0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27, 0,      /* k 13-28 */
        53, 54, 55, 56, 57,                                             /* k 29-33 */
        1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27, 0, 1, 2, 3, 12,        /* k 34-49 */
        58, 59, 60, 61, 62,                                             /* k 50-54 */
        13, 14, 15, 24, 25, 26, 27, 0, 1,                               /* k 55-63 */
    };
    for (int k = 0; k < 64; k++) {
        if (k == 13) {
            for (uint64_t i = 0; i < 5; i++) {
                CHECK_EQ_U64(put(f, other, i, 0, 0x55), 48 + i);
                CHECK_EQ_U64(place_stat(f, "write_amount_tlc_pages"), i < 4 ? i + 1 : 0);
                CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 1);
            }
        }
        CHECK_EQ_U64(put(f, top, (uint64_t)(k % 4), 1, (uint8_t)k), want[k]);
        uint64_t t = k < 12 ? 0 : (k >= 28 && k < 33) || (k >= 49 && k < 54) ? 0 : 1;
        CHECK_EQ_U64(place_stat(f, "slc_target_hint"), t);
    }
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.region_host_programs[1], 54);
    CHECK_EQ_U64(c.region_host_programs[0], 15);
    for (uint64_t i = 0; i < 4; i++) expect_page(f, top, i, (uint8_t)(60 + i));
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* Migration from Algorithm 4's victim only (level_migrate_any = 0, as printed) or from any SLC GC
 * victim (1). Objects a, b (L0, hint 1), c (L2, hint 3), d (L3, hint 4); one unit, SLC blocks 0-3 of
 * 4 pages. Before the target is set every write goes to SLC, one open block per level:
 *   w0-w1   a0 twice: L0 block 0 (ppn 0, 1)       w2      c0: L2 block 1 (12)
 *   w3-w6   d0 four times: L3 block 2 (24-27)     w7-w8   b0, a1: block 0 (2, 3), now full
 *   w9      b1 needs an L0 block and one SLC block is free (< 2): the first SLC GC sets the target to
 *           L3. Algorithm 4's candidate is block 2 (average 3, not above 3): greedy takes it (1 valid
 *           page, d0 -> the GC stream's block 3, 36), then block 0 (3 valid: a0, b0, a1 -> 37-39);
 *           b1 goes to block 2 (24)
 *   w10-w15 c0 (13), a2 (25), c0 (14), a0 (26), c0 (15), a3 (27); w15 is the 16th SLC write: no TLC
 *           write, so Algorithm 3 lowers the target to L2
 *   w16     a2 needs an L0 block, one free (< 2): SLC GC. No block averages above L2 (block 1: c0, 2;
 *           block 3: d0, b0, a1, (3 + 0 + 0) / 3 = 1; block 2 full), so greedy takes block 1 (c0 ->
 *           a new GC block 0, ppn 0), then block 3: its d0 is of L3, above the target, but block 3 is
 *           not Algorithm 4's victim. As printed d0 stays in SLC (ppn 1, b0 2, a1 3); with
 *           level_migrate_any it moves to TLC (48, b0 1, a1 2). a2 goes to block 1 (12). */
static void test_level_migrate_scope(void) {
    for (int any = 0; any <= 1; any++) {
        csd_params p = small("level", 1, 20, 20);
        p.level_migrate_any = (uint32_t)any;
        csd_ftl *f = fresh(any ? "level5b.img" : "level5a.img", &p, 96 * 4096);
        uint64_t a = mk(f, "a"), b = mk(f, "b"), c = mk(f, "c"), d = mk(f, "d");
        static const struct { int obj; uint64_t idx; uint64_t ppn; } w[] = {
            { 0, 0, 0 }, { 0, 0, 1 }, { 2, 0, 12 }, { 3, 0, 24 }, { 3, 0, 25 }, { 3, 0, 26 }, { 3, 0, 27 },
            { 1, 0, 2 }, { 0, 1, 3 }, { 1, 1, 24 }, { 2, 0, 13 }, { 0, 2, 25 }, { 2, 0, 14 }, { 0, 0, 26 },
            { 2, 0, 15 }, { 0, 3, 27 }, { 0, 2, 12 },
        };
        const uint64_t ids[] = { a, b, c, d };
        const uint32_t hints[] = { 1, 1, 3, 4 };
        for (size_t k = 0; k < sizeof w / sizeof w[0]; k++) {
            CHECK_EQ_U64(put(f, ids[w[k].obj], w[k].idx, hints[w[k].obj], (uint8_t)k), w[k].ppn);
            if (k == 9) CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 4);
            if (k == 15) CHECK_EQ_U64(place_stat(f, "slc_target_hint"), 3);
        }
        CHECK_EQ_U64(csd_ftl_lookup(f, c, 0), 0);
        CHECK_EQ_U64(csd_ftl_lookup(f, d, 0), any ? 48 : 1);
        CHECK_EQ_U64(csd_ftl_lookup(f, b, 0), any ? 1 : 2);
        CHECK_EQ_U64(csd_ftl_lookup(f, a, 1), any ? 2 : 3);
        csd_ftl_counters cn;
        csd_ftl_counters_get(f, &cn);
        CHECK_EQ_U64(cn.migrated_pages, any ? 1 : 0);
        CHECK_EQ_U64(cn.gc_pages_moved, 1 + 3 + 1 + 3);
        expect_page(f, d, 0, 6);
        expect_page(f, a, 1, 8);
        CHECK_EQ_INT(csd_ftl_close(f), 0);
    }
}

/* The GC reserve per plane or device-wide (gc_free_device), on a device without SLC (placement stripe,
 * 2 units of 20 blocks of 12 pages; consecutive pages alternate units, so unit 0 opens its n-th block
 * at host page 24 (n - 1)). gc_free_pct 14: a plane keeps 20 x 14% = 2.8 -> 2 blocks free, the device
 * 40 x 14% = 5.6 -> 5. Per plane, unit 0 collects when it opens a block with 1 free (< 2): its 20th, at
 * page 456. Device-wide, when the device has fewer than 5 free and unit 0 fewer than its part, 3: before
 * unit 0's 19th open both units have opened 18, 4 free, 2 each: page 432. Every page overwrites one of
 * 24, so GC always finds stale blocks. */
static void test_gc_reserve_scope(void) {
    for (int dev = 0; dev <= 1; dev++) {
        csd_params p = small("stripe", 2, 20, 0);
        p.gc_free_pct = 14;
        p.gc_free_device = (uint32_t)dev;
        csd_ftl *f = fresh(dev ? "gc-dev.img" : "gc-plane.img", &p, 96 * 4096);
        uint64_t id = mk(f, "o");
        uint64_t first = 0;
        for (uint64_t k = 0; k < 600 && !first; k++) {
            memset(page_buf, (int)k, sizeof page_buf);
            CHECK_EQ_INT(csd_ftl_write(f, id, (k % 24) * 4096, page_buf, 4096, NULL), 0);
            csd_ftl_counters c;
            csd_ftl_counters_get(f, &c);
            if (c.flash_erases) first = k;
        }
        CHECK_EQ_U64(first, dev ? 432 : 456);
        CHECK_EQ_INT(csd_ftl_close(f), 0);
    }
}

/* combo: a small write (<= combo_small_bytes) or an update is hot (SLC); a large new write is cold. */
static void test_combo_decisions(void) {
    csd_params p = small("combo", 1, 20, 20);
    p.combo_small_bytes = 8192;
    csd_ftl *f = fresh("combo1.img", &p, 96 * 4096);
    uint64_t big = mk(f, "big"), sm = mk(f, "small");
    static uint8_t buf[4 * 4096];
    memset(buf, 7, sizeof buf);
    CHECK_EQ_INT(csd_ftl_write_hint(f, big, 0, buf, sizeof buf, 1, NULL), 0);   /* 16 KiB, new: TLC */
    for (uint64_t i = 0; i < 4; i++) CHECK_EQ_U64(csd_ftl_lookup(f, big, i), 48 + i);
    CHECK_EQ_INT(csd_ftl_write(f, sm, 0, buf, 8192, NULL), 0);                  /* 8 KiB: SLC */
    CHECK_EQ_U64(csd_ftl_lookup(f, sm, 0), 0);
    CHECK_EQ_U64(csd_ftl_lookup(f, sm, 1), 1);
    CHECK_EQ_INT(csd_ftl_write(f, big, 0, buf, sizeof buf, NULL), 0);           /* update: SLC */
    for (uint64_t i = 0; i < 4; i++) CHECK_EQ_U64(csd_ftl_lookup(f, big, i), i < 2 ? 2 + i : 12 + (i - 2));
    CHECK_EQ_U64(place_stat(f, "hot_pages"), 6);
    CHECK_EQ_U64(place_stat(f, "cold_pages"), 4);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    /* the threshold decides exactly the size class: with 16 KiB the same new 16 KiB write is small (SLC) */
    p.combo_small_bytes = 16384;
    f = fresh("combo2.img", &p, 96 * 4096);
    big = mk(f, "big");
    CHECK_EQ_INT(csd_ftl_write(f, big, 0, buf, sizeof buf, NULL), 0);
    for (uint64_t i = 0; i < 4; i++) CHECK_EQ_U64(csd_ftl_lookup(f, big, i), i);
    CHECK_EQ_U64(place_stat(f, "hot_pages"), 4);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* combo's clock: an SLC page becomes warm once the SLC region's worth of pages (16 here: 8 blocks of 2)
 * has been written to SLC since it was, and a warm page not updated for more than 2 SLC GCs moves to TLC
 * when its block is collected. One unit of 40 blocks of 6 pages (2 in SLC mode), blocks 0-7 SLC (ppn
 * 6 b + i), TLC from ppn 48; every 4 KiB write is small (hot). Q0-Q10 fill blocks 0-5 (clock 0-10), P
 * goes beside Q10 in block 5 (ppn 31, clock 11). Rewrites of Q0, Q1, Q10, Q2 take blocks 6 and 7 (one
 * GC, of block 0, all stale). Rewriting Q3 needs a block with one free: SLC GCs 2 and 3 take block 1
 * (Q3's old copy) and block 5 (P alone). P has survived 3 GCs, but only 5 pages went to SLC since it was
 * written: not warm, it is copied within SLC (ppn 1; the rule without the clock, 3 GCs > 2, would have
 * moved it to TLC). The second round of rewrites wraps the clock past P (more than 16 SLC pages since
 * it): when its block is collected again it goes to TLC (ppn 49). */
static void test_combo_clock(void) {
    csd_params p = small("combo", 1, 40, 20);
    p.pages_per_block = 6;
    p.slc_pages_per_block = 2;
    p.combo_small_bytes = 4096;
    csd_ftl *f = fresh("combo-clock.img", &p, 96 * 4096);
    CHECK_EQ_INT(csd_ftl_slc_blocks(f), 8);
    uint64_t q = mk(f, "q"), pp = mk(f, "p");
    for (uint64_t i = 0; i < 11; i++) CHECK_EQ_U64(put(f, q, i, 0, (uint8_t)i), 6 * (i / 2) + i % 2);
    CHECK_EQ_U64(put(f, pp, 0, 0, 0x77), 31);
    static const uint64_t seq[] = { 0, 1, 10, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 10, 2, 3, 4, 5, 6, 7 };
    static const uint64_t p_at[] = { 31, 31, 31, 31, 1, 1, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 49 };
    for (size_t k = 0; k < sizeof seq / sizeof seq[0]; k++) {
        put(f, q, seq[k], 0, (uint8_t)(0x80 + k));
        CHECK_EQ_U64(csd_ftl_lookup(f, pp, 0), p_at[k]);
        csd_ftl_counters c;
        csd_ftl_counters_get(f, &c);
        if (k == 4) CHECK_EQ_U64(c.gc_runs, 3);
    }
    expect_page(f, pp, 0, 0x77);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* ---------------------------------------------------------------- randomized invariants */

typedef struct ref { uint64_t id; uint8_t *data; uint64_t size; int live; char name[16]; } ref;

static void verify_all(csd_ftl *f, ref *r, int n) {
    for (int i = 0; i < n; i++) {
        if (!r[i].live) continue;
        csd_obj_info info;
        CHECK_EQ_INT(csd_ftl_obj_stat(f, r[i].id, &info), 0);
        CHECK_EQ_U64(info.size, r[i].size);
        uint8_t *b = malloc(r[i].size + 1);
        CHECK_EQ_INT(csd_ftl_read(f, r[i].id, 0, b, r[i].size, NULL), 0);
        CHECK(!memcmp(b, r[i].data, r[i].size));
        free(b);
    }
}

static uint64_t sum_erases(csd_ftl *f, uint64_t nblocks, uint32_t *out) {
    uint64_t s = 0;
    for (uint64_t b = 0; b < nblocks; b++) {
        uint32_t e = csd_ftl_block_erases(f, b);
        if (out) out[b] = e;
        s += e;
    }
    return s;
}

static void random_run(const char *placement, uint64_t seed) {
    enum { NOBJ = 6, MAXP = 10 };
    csd_params p = small(placement, 2, 24, 25);
    /* phi = (4/12) x (6/18) x (5000/2500) = 0.22: SLC may take about a fifth of TLC's writes, so the
     * target level moves both ways and migrations happen */
    p.pe_cycles_slc = 5000;
    char img[64];
    snprintf(img, sizeof img, "rand-%s.img", placement);
    csd_ftl *f = fresh(img, &p, 96 * 4096);
    uint64_t nblocks = 2ull * 24;
    CHECK_EQ_U64(csd_ftl_block_erases(f, nblocks), UINT32_MAX);
    rng_state = seed;
    ref r[NOBJ];
    memset(r, 0, sizeof r);
    for (int i = 0; i < NOBJ; i++) snprintf(r[i].name, sizeof r[i].name, "o%d", i);
    static uint8_t buf[MAXP * 4096];
    uint64_t trims = 0, deletes = 0;
    for (int step = 0; step < 3000; step++) {
        int i = (int)rnd_below(NOBJ);
        ref *o = &r[i];
        if (!o->live) {
            CHECK_EQ_INT(csd_ftl_obj_create(f, o->name, &o->id), 0);
            o->live = 1;
            o->data = calloc(MAXP * 4096, 1);
            o->size = 0;
            continue;
        }
        uint64_t what = rnd_below(20);
        if (what < 14) {   /* write (append or overwrite) with a level hint */
            uint64_t off = rnd_below(o->size + 1), len = 1 + rnd_below(3 * 4096);
            if (off + len > MAXP * 4096) len = MAXP * 4096 - off;
            if (!len) continue;
            for (uint64_t j = 0; j < len; j++) buf[j] = (uint8_t)rnd();
            uint32_t hint = (uint32_t)rnd_below(5);
            int rc = csd_ftl_write_hint(f, o->id, off, buf, len, hint, NULL);
            CHECK_EQ_INT(rc, 0);
            memcpy(o->data + off, buf, len);
            if (off + len > o->size) o->size = off + len;
        } else if (what < 18) {   /* trim whole pages inside a range */
            uint64_t off = rnd_below(o->size + 1), len = rnd_below(o->size - off + 1);
            CHECK_EQ_INT(csd_ftl_trim(f, o->id, off, len, NULL), 0);
            uint64_t end = off + len;
            uint64_t lim = (end >= o->size ? (o->size + 4095) / 4096 * 4096 : end) / 4096;
            for (uint64_t pg = (off + 4095) / 4096; pg < lim; pg++) {
                uint64_t e = (pg + 1) * 4096 > o->size ? o->size : (pg + 1) * 4096;
                memset(o->data + pg * 4096, 0, e - pg * 4096);
                CHECK_EQ_U64(csd_ftl_lookup(f, o->id, pg), CSD_PPN_NONE);
            }
            trims++;
        } else {   /* delete */
            CHECK_EQ_INT(csd_ftl_obj_delete(f, o->id), 0);
            free(o->data);
            o->data = NULL;
            o->live = 0;
            deletes++;
        }
        if (step % 500 == 0) verify_all(f, r, NOBJ);
    }
    verify_all(f, r, NOBJ);
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    /* wear counts equal the erases performed: per block sums, per region and in total */
    uint32_t *pe = calloc(nblocks, sizeof *pe);
    CHECK_EQ_U64(sum_erases(f, nblocks, pe), c.flash_erases);
    CHECK_EQ_U64(c.region_erases[0] + c.region_erases[1], c.flash_erases);
    csd_ftl_wear w;
    csd_ftl_wear_get(f, &w);
    CHECK_EQ_U64(w.erases[0], c.region_erases[0]);
    CHECK_EQ_U64(w.erases[1], c.region_erases[1]);
    CHECK_EQ_U64(w.blocks[1], 2 * 6);   /* 24 x 25% per unit */
    CHECK_EQ_U64(c.region_programs[0] + c.region_programs[1], c.flash_programs);
    fprintf(stderr, "%s: %" PRIu64 " host pages, gc %" PRIu64 " runs, %" PRIu64 " moved, %" PRIu64
            " migrated, erases TLC %" PRIu64 " SLC %" PRIu64 ", host programs TLC %" PRIu64 " SLC %" PRIu64 "\n",
            placement, c.host_pages_written, c.gc_runs, c.gc_pages_moved, c.migrated_pages, c.region_erases[0],
            c.region_erases[1], c.region_host_programs[0], c.region_host_programs[1]);
    CHECK(c.gc_runs > 10 && trims > 50 && deletes > 10);
    if (!strcmp(placement, "level")) {
        CHECK(c.region_host_programs[1] > 0);
        CHECK(c.migrated_pages > 0);
    }
    if (!strcmp(placement, "stripe")) CHECK_EQ_U64(c.region_programs[1], 0);   /* stripe leaves SLC unused */
    CHECK_EQ_INT(csd_ftl_close(f), 0);

    /* P/E counts and data survive reopen */
    char err[512];
    CHECK_EQ_INT(csd_ftl_open(&f, path_of(img), NULL, err, sizeof err), 0);
    for (uint64_t b = 0; b < nblocks; b++) CHECK_EQ_U64(csd_ftl_block_erases(f, b), pe[b]);
    verify_all(f, r, NOBJ);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    CHECK_EQ_INT(csd_ftl_check(path_of(img), NULL, NULL), 0);

    /* an image without a wear record (as made before it existed) opens with zero counts */
    csd_layout l;
    CHECK(csd_layout_compute(&l, 96 * 4096, &p, err, sizeof err) == 0);
    CHECK_EQ_INT(truncate(path_of(img), (off_t)l.file_bytes), 0);
    CHECK_EQ_INT(csd_ftl_open(&f, path_of(img), NULL, err, sizeof err), 0);
    CHECK_EQ_U64(sum_erases(f, nblocks, NULL), 0);
    verify_all(f, r, NOBJ);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    /* a torn wear record (a crash while it was first written) also reads as zero counts */
    CHECK_EQ_INT(truncate(path_of(img), (off_t)l.file_bytes + 100), 0);
    CHECK_EQ_INT(csd_ftl_open(&f, path_of(img), NULL, err, sizeof err), 0);
    CHECK_EQ_U64(sum_erases(f, nblocks, NULL), 0);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    free(pe);
    for (int i = 0; i < NOBJ; i++) free(r[i].data);
}

/* discard_data: a timing-only image keeps records, not page bytes. The same writes take the same
 * pages and flash programs as on a normal image; zeros read back as written, other bytes fail their CRC
 * (-EIO: nothing silently wrong), and the data area stays a hole. */
static void test_discard_data(void) {
    uint64_t progs[2], ppn[2][3];
    for (int discard = 0; discard <= 1; discard++) {
        csd_params p = small("level", 1, 20, 20);
        p.discard_data = (uint32_t)discard;
        csd_ftl *f = fresh(discard ? "discard1.img" : "discard0.img", &p, 96 * 4096);
        uint64_t id = mk(f, "z"), other = mk(f, "x");
        static uint8_t zeros[3 * 4096];
        CHECK_EQ_INT(csd_ftl_write_hint(f, id, 0, zeros, sizeof zeros, 1, NULL), 0);
        for (uint64_t i = 0; i < 3; i++) ppn[discard][i] = csd_ftl_lookup(f, id, i);
        expect_page(f, id, 2, 0);
        put(f, other, 0, 1, 0x5a);
        uint8_t back[4096];
        int rc = csd_ftl_read(f, other, 0, back, sizeof back, NULL);
        CHECK_EQ_INT(rc, discard ? -EIO : 0);
        csd_ftl_counters c;
        csd_ftl_counters_get(f, &c);
        progs[discard] = c.flash_programs;
        CHECK_EQ_INT(csd_ftl_close(f), 0);
        struct stat st;
        CHECK_EQ_INT(stat(path_of(discard ? "discard1.img" : "discard0.img"), &st), 0);
        if (discard) {
            csd_layout l;
            char err[256];
            CHECK(csd_layout_compute(&l, 96 * 4096, &p, err, sizeof err) == 0);
            CHECK((uint64_t)st.st_blocks * 512 <= l.data_off);   /* nothing of the data area allocated */
        }
    }
    CHECK_EQ_U64(progs[0], progs[1]);
    for (int i = 0; i < 3; i++) CHECK_EQ_U64(ppn[0][i], ppn[1][i]);
}

/* A hint above the range is refused before anything is written. */
static void test_bad_hint(void) {
    csd_params p = small("level", 1, 20, 20);
    csd_ftl *f = fresh("hint.img", &p, 96 * 4096);
    uint64_t id = mk(f, "x");
    CHECK_EQ_INT(csd_ftl_write_hint(f, id, 0, page_buf, 4096, 256, NULL), -EINVAL);
    csd_obj_info info;
    CHECK_EQ_INT(csd_ftl_obj_stat(f, id, &info), 0);
    CHECK_EQ_U64(info.size, 0);
    CHECK_EQ_U64(put(f, id, 0, 255, 1), 0);   /* the largest hint is a level too (254): SLC first */
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* Setting combo_small_bytes leaves the switch after it alone (it was written as 8 bytes over a 4-byte
 * field, so a sweep point that set it after level_balance_ours = 1 ran the literal Algorithm 3). */
static void test_params_switches(void) {
    csd_params p;
    char err[256];
    CHECK_EQ_INT(csd_params_preset(&p, "hybrid"), 0);
    CHECK_EQ_INT(csd_params_set(&p, "level_balance_ours", "1", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_set(&p, "level_migrate_any", "1", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_set(&p, "combo_small_bytes", "65536", err, sizeof err), 0);
    CHECK_EQ_INT(p.level_balance_ours, 1);
    CHECK_EQ_INT(p.level_migrate_any, 1);
    CHECK_EQ_U64(p.combo_small_bytes, 65536);
    CHECK_EQ_INT(csd_params_set(&p, "combo_small_bytes", "4294967296", err, sizeof err), -EINVAL);
    CHECK_EQ_INT(p.level_balance_ours, 1);
}

int main(void) {
    DIR_ = csd_test_dir("test_hybrid");
    test_params_switches();
    test_times();
    test_layout();
    test_level_decisions();
    test_level_migration();
    test_level_balance_down_up();
    test_level_balance_as_printed();
    test_level_balance_switch();
    test_level_migrate_scope();
    test_gc_reserve_scope();
    test_combo_decisions();
    test_combo_clock();
    test_bad_hint();
    test_discard_data();
    for (size_t i = 0; csd_place_at(i); i++) random_run(csd_place_at(i)->name, 11 + i);   /* every registered one */
    TEST_OK("test_hybrid");
}
