/* Image geometry: how many blocks a plane gets, and where each area of the file starts. */
#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

/* Planes in the device: the units the FTL stripes over (the flash layer numbers them the same way). */
static uint32_t units_of(const csd_params *p) {
    return p->channels * p->chips_per_channel * p->dies_per_chip * p->planes_per_die;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static uint64_t meta_slot_bytes(uint32_t max_objects) {
    uint64_t fixed = CSD_META_HDR_BYTES + 8 + 8 + 4 + (uint64_t)CSD_META_VOID_MAX * 16 + 4;
    return align_up(fixed + (uint64_t)max_objects * (CSD_META_ENTRY_FIXED + 1024), 4096);
}

/* Pages one plane holds: SLC-mode blocks hold slc_pages_per_block of their pages_per_block. */
static uint64_t unit_pages(const csd_params *p, uint64_t bpp) {
    csd_params q = *p;
    q.blocks_per_plane = (uint32_t)bpp;
    uint64_t slc = csd_params_slc_blocks(&q);
    return (bpp - slc) * p->pages_per_block + slc * p->slc_pages_per_block;
}

static uint32_t slc_of(const csd_params *p, uint64_t bpp) {
    csd_params q = *p;
    q.blocks_per_plane = (uint32_t)bpp;
    return csd_params_slc_blocks(&q);
}

int64_t csd_layout_headroom(const csd_layout *l) {
    /* one block per region per unit stays reserved for garbage collection */
    int64_t per_unit = l->slc_blocks ? (int64_t)l->unit_pages - l->pages_per_block - l->slc_pages_per_block - 1
                                     : ((int64_t)l->blocks_per_plane - 1) * l->pages_per_block - 1;
    return (int64_t)l->units * per_unit - (int64_t)(l->capacity / l->page_bytes);
}

/* Smallest blocks per plane that leaves at least two pages of headroom per unit (one stripe for an
 * atomic write group) after the block reserved for garbage collection: without it greedy GC can run
 * out of victims before the logical capacity is full. */
static uint64_t blocks_for_gc(uint64_t lpages, uint32_t units, uint32_t ppb) {
    uint64_t per_unit = div_up(lpages + 2ull * units, units) + 1;
    return div_up(per_unit, ppb) + 1;
}

int csd_layout_compute(csd_layout *l, uint64_t capacity, const csd_params *p, char *err, size_t errlen) {
    *l = (csd_layout){ 0 };
    if (!p->page_bytes || !p->pages_per_block || !units_of(p)) {
        snprintf(err, errlen, "geometry has a zero field");
        return -EINVAL;
    }
    uint64_t lpages = capacity / p->page_bytes;
    if (lpages == 0) {
        snprintf(err, errlen, "capacity %" PRIu64 " is smaller than one page (%u bytes)", capacity, p->page_bytes);
        return -EINVAL;
    }
    if (lpages >= UINT32_MAX) {
        snprintf(err, errlen, "capacity %" PRIu64 " is too large (at most %u pages)", capacity, UINT32_MAX - 1);
        return -EINVAL;
    }
    uint32_t units = units_of(p), ppb = p->pages_per_block;
    uint64_t stripe = (uint64_t)units * ppb;
    uint64_t min_b = p->gc_free_blocks_min + 2ull;
    uint64_t gc_b = blocks_for_gc(lpages, units, ppb);
    if (gc_b > min_b) min_b = gc_b;
    uint64_t bpp = p->blocks_per_plane;
    if (bpp == 0) {
        /* physical >= capacity * (100 + overprovision_pct) / 100, rounded up to whole blocks */
        uint64_t phys = div_up(lpages * (100ull + p->overprovision_pct), 100);
        bpp = div_up(phys, stripe);
        if (bpp < min_b) bpp = min_b;
        if (p->slc_share_pct) {
            /* SLC-mode blocks hold fewer pages: grow until the pages (and the GC reserve of both
             * regions, two pages of headroom per unit) are there */
            uint64_t need = div_up(phys, units), reserve = (uint64_t)ppb + p->slc_pages_per_block + 1;
            uint64_t need2 = div_up(lpages + 2ull * units, units) + reserve;
            if (need2 > need) need = need2;
            while (unit_pages(p, bpp) < need || bpp < min_b + 2 || slc_of(p, bpp) < CSD_SLC_BLOCKS_MIN) bpp++;
        }
    } else if (bpp < min_b) {
        snprintf(err, errlen, "blocks_per_plane %" PRIu64 " is too small for capacity %" PRIu64
                 " (at least %" PRIu64 " needed: capacity plus a garbage-collection reserve)", bpp, capacity, min_b);
        return -EINVAL;
    }
    uint64_t physical = bpp * stripe;
    if (bpp > UINT32_MAX || physical >= UINT32_MAX) {
        snprintf(err, errlen, "image too large: %" PRIu64 " physical pages (at most %u)", physical, UINT32_MAX - 1);
        return -EINVAL;
    }
    l->capacity = lpages * p->page_bytes;
    l->page_bytes = p->page_bytes;
    l->pages_per_block = ppb;
    l->blocks_per_plane = (uint32_t)bpp;
    l->units = units;
    l->physical_pages = physical;
    csd_params q = *p;
    q.blocks_per_plane = (uint32_t)bpp;
    l->slc_blocks = csd_params_slc_blocks(&q);
    l->slc_pages_per_block = l->slc_blocks ? p->slc_pages_per_block : 0;
    l->unit_pages = unit_pages(p, bpp);
    if (l->slc_blocks && l->slc_blocks < CSD_SLC_BLOCKS_MIN) {
        snprintf(err, errlen, "blocks_per_plane %" PRIu64 " with slc_share_pct %u gives %u SLC-mode blocks per plane; "
                 "at least %u are needed (one open, two kept free for GC)", bpp, p->slc_share_pct, l->slc_blocks,
                 CSD_SLC_BLOCKS_MIN);
        return -EINVAL;
    }
    if (l->slc_blocks && (l->slc_blocks + 2 > bpp || csd_layout_headroom(l) < 2ll * units)) {
        snprintf(err, errlen, "blocks_per_plane %" PRIu64 " leaves no room for capacity %" PRIu64
                 " with %u%% of the blocks in SLC mode (each region needs a GC reserve)", bpp, capacity,
                 p->slc_share_pct);
        return -EINVAL;
    }
    l->meta_slot_bytes = meta_slot_bytes(p->max_objects);
    l->meta_off[0] = CSD_SB_BYTES;
    l->meta_off[1] = l->meta_off[0] + l->meta_slot_bytes;
    l->oob_off = l->meta_off[1] + l->meta_slot_bytes;
    uint64_t oob_bytes = align_up(physical * CSD_OOB_BYTES, 4096);
    uint64_t data_align = p->page_bytes > 4096 ? p->page_bytes : 4096;
    l->data_off = align_up(l->oob_off + oob_bytes, data_align);
    l->file_bytes = l->data_off + physical * p->page_bytes;
    return 0;
}

int csd_layout_equal(const csd_layout *a, const csd_layout *b) {
    return a->capacity == b->capacity && a->page_bytes == b->page_bytes &&
           a->pages_per_block == b->pages_per_block && a->blocks_per_plane == b->blocks_per_plane &&
           a->units == b->units && a->physical_pages == b->physical_pages &&
           a->meta_slot_bytes == b->meta_slot_bytes && a->meta_off[0] == b->meta_off[0] &&
           a->meta_off[1] == b->meta_off[1] && a->oob_off == b->oob_off && a->data_off == b->data_off &&
           a->file_bytes == b->file_bytes;
}

uint64_t csd_wear_bytes(const csd_layout *l) {
    uint64_t n = 16 + 4 * (uint64_t)l->units * l->blocks_per_plane + 4 + CSD_WEAR_EXTRA_MAX + 4;
    return align_up(n, 4096);
}
