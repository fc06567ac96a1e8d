/* Log-structured allocation and garbage collection: the mechanism under the placement policy
 * (ftl/place.h), which chooses the unit (and stream and region) of each host page and the GC victim.
 *
 * Each unit (plane) fills open blocks page by page, one per stream; a full block is closed and the
 * next free block (FIFO) of the stream's region opened. Regions (docs/HYBRID.md) are the unit's
 * SLC-mode blocks and its normal (TLC) ones; a device without SLC has only the latter. GC works per
 * unit and region: when a unit has fewer free blocks of a region than that region's threshold (or,
 * with gc_free_device, the device has fewer than the device-wide one), the
 * policy's victim is copied (into the region's default stream, or another region's when the policy
 * migrates the page) and erased. One block per unit and region is kept for GC alone (host pages may
 * not take the last free block), so GC can always make room. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t block_first(const csd_ftl *f, uint32_t gb) { return (uint64_t)gb * f->ppb; }

static uint32_t fq_pop(csd_ftl *f, uint32_t u, int r) {
    uint32_t q = u * FTL_REGIONS + (uint32_t)r;
    uint32_t gb = f->fq[(uint64_t)q * f->bpp + f->fq_head[q]];
    f->fq_head[q] = (f->fq_head[q] + 1) % f->bpp;
    f->nfree[q]--;
    f->free_blocks--;
    return gb;
}

static void fq_push(csd_ftl *f, uint32_t gb) {
    uint32_t q = ftl_unit_of_block(f, gb) * FTL_REGIONS + (uint32_t)ftl_block_region(f, gb);
    f->fq[(uint64_t)q * f->bpp + (f->fq_head[q] + f->nfree[q]) % f->bpp] = gb;
    f->nfree[q]++;
    f->free_blocks++;
}

static int gc_unit(csd_ftl *f, uint32_t u, int r, csd_flash_batch *ops);

/* Does unit u need a GC of region r before it opens a block? Per plane (default): it has fewer free
 * blocks of r than r's reserve. Device-wide (gc_free_device): u is down to the block GC alone may
 * take, or the device has fewer free blocks of r than its reserve over all planes and u holds less
 * than its part of it (a plane with more leaves the deficit to the planes short of blocks: one plane
 * collecting for all would collect until the whole device is above the reserve, inside one command). */
static int need_gc(const csd_ftl *f, uint32_t u, int r) {
    if (!f->p.gc_free_device) return ftl_nfree(f, u, r) < f->gc_min_r[r];
    if (ftl_nfree(f, u, r) < 2) return 1;
    if (ftl_nfree(f, u, r) >= (f->gc_min_dev[r] + f->units - 1) / f->units) return 0;
    uint64_t total = 0;
    for (uint32_t v = 0; v < f->units; v++) total += ftl_nfree(f, v, r);
    return total < f->gc_min_dev[r];
}

static void close_if_full(csd_ftl *f, uint32_t *a) {
    if (*a != NONE32 && f->bwp[*a] >= ftl_block_pages(f, *a)) {
        f->bstate[*a] = BLK_CLOSED;
        *a = NONE32;
    }
}

int ftl_stream_take(csd_ftl *f, uint32_t u, uint32_t s, int r, int gc, csd_flash_batch *ops, uint64_t *ppn) {
    uint32_t *a = ftl_active(f, u, s);
    close_if_full(f, a);
    if (*a == NONE32) {
        if (!gc) {
            if (need_gc(f, u, r)) {
                int rc = gc_unit(f, u, r, ops);
                if (rc) return rc;
            }
            /* GC may have opened a new block for its copies in this stream: use it */
            close_if_full(f, a);
            if (*a != NONE32) goto take;
            if (ftl_nfree(f, u, r) < 2) return -ENOSPC;
        } else if (ftl_nfree(f, u, r) < 1) {
            return -ENOSPC;
        }
        uint32_t q = u * FTL_REGIONS + (uint32_t)r, next = f->fq[(uint64_t)q * f->bpp + f->fq_head[q]];
        int rc = csd_store_reserve(f->st, block_first(f, next), ftl_block_pages(f, next));
        if (rc) return rc;
        *a = fq_pop(f, u, r);
        f->bstate[*a] = BLK_ACTIVE;
        f->bwp[*a] = 0;
    }
take:
    *ppn = block_first(f, *a) + f->bwp[*a]++;
    f->pstate[*ppn] = PG_RESERVED;
    f->bres[*a]++;
    /* a policy stream's full block is closed at once, so GC may take it while the stream is idle
     * (a level no longer written); the default streams close on their next page, as they always did */
    if (s >= FTL_REGIONS) close_if_full(f, a);
    return 0;
}

int ftl_unit_take(csd_ftl *f, uint32_t u, int gc, csd_flash_batch *ops, uint64_t *ppn) {
    return ftl_stream_take(f, u, REG_TLC, REG_TLC, gc, ops, ppn);
}

void ftl_stream_move(csd_ftl *f, uint32_t u, uint32_t from, uint32_t to) {
    uint32_t *a = ftl_active(f, u, from), *b = ftl_active(f, u, to);
    if (*b == NONE32) {
        *b = *a;
        *a = NONE32;
    }
}

int ftl_alloc_host(csd_ftl *f, csd_flash_batch *ops, uint64_t *ppn) {
    int rc = f->place->alloc(f->place_state, f, f->cur_hint, ops, ppn);
    if (!rc) f->phint[*ppn] = (uint8_t)f->cur_hint;
    return rc;
}

void ftl_release(csd_ftl *f, uint64_t ppn) {
    uint32_t gb = ftl_block_of(f, ppn);
    f->pstate[ppn] = PG_DEAD;
    f->bres[gb]--;
}

void ftl_set_valid(csd_ftl *f, uint64_t ppn, uint64_t id, uint32_t idx, uint32_t crc) {
    uint32_t gb = ftl_block_of(f, ppn);
    if (f->pstate[ppn] == PG_RESERVED) f->bres[gb]--;
    f->pstate[ppn] = PG_VALID;
    f->bvalid[gb]++;
    f->rev_id[ppn] = id;
    f->rev_idx[ppn] = idx;
    f->pcrc[ppn] = crc;
}

void ftl_unmap(csd_ftl *f, uint64_t ppn, int to_state) {
    if (f->pstate[ppn] != PG_VALID) return;
    f->pstate[ppn] = (uint8_t)to_state;
    f->bvalid[ftl_block_of(f, ppn)]--;
}

/* A tombstone only has to stay on flash while an older data version of its page does (else that
 * version would come back at recovery), and while it is the object's last page (its valid_bytes
 * carries the object size). Otherwise it is dropped: the page reads as zeros either way. */
void ftl_maybe_drop_tomb(csd_ftl *f, ftl_obj *o, uint64_t idx) {
    if (idx >= o->cap || !map_is_tomb(o->map[idx]) || o->stale[idx] || idx + 1 >= ftl_obj_pages(f, o)) return;
    ftl_unmap(f, map_ppn(o->map[idx]), PG_DEAD);
    o->map[idx] = MAP_NONE;
    (void)f->map->update(f->map_state, f, o->id, idx, NULL);
    o->tomb_pages--;
    f->lused--;
}

static int erase_block(csd_ftl *f, uint32_t gb, csd_flash_batch *ops) {
    uint64_t first = block_first(f, gb);
    /* a reader that resolved a page of this block and has not taken its bytes yet takes them now */
    if (f->erase_fn) f->erase_fn(f->erase_arg, first, f->ppb);
    int rc = csd_store_erase(f->st, first, f->ppb);
    if (rc) return rc;
    ftl_op(f, ops, CSD_FLASH_ERASE, 1, first);
    for (uint32_t i = 0; i < f->ppb; i++) {
        uint64_t ppn = first + i;
        if (f->pstate[ppn] == PG_STALE) {
            ftl_obj *o = csd_objtab_by_id(&f->tab, f->rev_id[ppn]);
            uint32_t idx = f->rev_idx[ppn];
            if (o && idx < o->cap && o->stale[idx]) {
                o->stale[idx]--;
                ftl_maybe_drop_tomb(f, o, idx);
            }
        }
        f->pstate[ppn] = PG_FREE;
        f->phint[ppn] = 0;
    }
    f->bvalid[gb] = 0;
    f->bwp[gb] = 0;
    f->bres[gb] = 0;
    f->berase[gb]++;
    f->bstate[gb] = BLK_FREE;
    fq_push(f, gb);
    return 0;
}

int ftl_run_flush(csd_ftl *f, ftl_run *r) {
    uint32_t n = r->n;
    r->n = 0;
    return n ? csd_store_write_data_run(f->st, r->ppn0, n, r->buf) : 0;
}

int ftl_run_add(csd_ftl *f, ftl_run *r, uint64_t ppn) {
    if (r->n && ppn != r->ppn0 + r->n) {
        uint8_t *slot = ftl_run_slot(f, r);
        int rc = ftl_run_flush(f, r);
        if (rc) return rc;
        memmove(r->buf, slot, f->pb);
    }
    if (!r->n) r->ppn0 = ppn;
    return ++r->n == FTL_RUN_PAGES ? ftl_run_flush(f, r) : 0;
}

int ftl_oob_flush(csd_ftl *f, ftl_oob_run *r) {
    uint32_t n = r->n;
    r->n = 0;
    return n ? csd_store_write_oob_run(f->st, r->ppn0, n, r->raw) : 0;
}

int ftl_oob_add(csd_ftl *f, ftl_oob_run *r, uint64_t ppn, const csd_oob *rec) {
    if (r->n && (ppn != r->ppn0 + r->n || r->n == FTL_RUN_PAGES)) {
        int rc = ftl_oob_flush(f, r);
        if (rc) return rc;
    }
    if (!r->n) r->ppn0 = ppn;
    csd_oob_encode(r->raw + (size_t)r->n++ * CSD_OOB_BYTES, rec);
    return 0;
}

typedef struct gc_move { uint64_t src, dst; csd_oob rec; } gc_move;

/* May a page GC moves out of another region go to region r of unit u? Its default stream has a free
 * page, or r has a free block besides the one its own GC needs. */
static int room_for_copy(const csd_ftl *f, uint32_t u, int r) {
    uint32_t a = *ftl_active(f, u, (uint32_t)r);
    return (a != NONE32 && f->bwp[a] < ftl_block_pages(f, a)) || ftl_nfree(f, u, r) >= 2;
}

/* Copy every valid page of block gb into an open block (its region's default stream, or the region
 * the policy's gc_dest names: migration), then erase gb. Copies keep their sequence number (same
 * version of the data) and count copies + 1, so recovery prefers the copy when a crash leaves both.
 * Data before records before erase: a crash anywhere leaves one intact copy of every page. */
static int gc_block(csd_ftl *f, uint32_t gb, csd_flash_batch *ops) {
    uint32_t u = ftl_unit_of_block(f, gb);
    int r = ftl_block_region(f, gb);
    uint64_t first = block_first(f, gb);
    uint8_t *raw = malloc((size_t)f->ppb * CSD_OOB_BYTES);
    gc_move *mv = malloc((size_t)f->ppb * sizeof *mv);
    int rc = (!raw || !mv) ? -ENOMEM : csd_store_read_oob(f->st, first, f->ppb, raw);
    uint32_t n = 0, migrated = 0;
    for (uint32_t i = 0; !rc && i < f->ppb; i++) {
        uint64_t src = first + i;
        if (f->pstate[src] != PG_VALID) continue;   /* stale, trimmed, dead: not copied */
        gc_move *m = &mv[n];
        m->src = src;
        if (csd_oob_decode(raw + (size_t)i * CSD_OOB_BYTES, f->pb, &m->rec) != CSD_OOB_OK) {
            rc = -EIO;   /* the record of a live page changed under us */
            break;
        }
        int data = m->rec.kind == CSD_OOB_DATA;
        if (data) {
            rc = csd_store_read_data(f->st, src, 0, ftl_run_slot(f, &f->gcrun), f->pb);
            if (rc) break;
            ftl_op(f, ops, CSD_FLASH_READ, 1, src);
        }
        int dr = f->place->gc_dest ? f->place->gc_dest(f->place_state, f, src) : r;
        if (dr != r && !room_for_copy(f, u, dr)) dr = r;   /* never take the other region's GC reserve */
        rc = ftl_stream_take(f, u, (uint32_t)dr, dr, 1, ops, &m->dst);
        if (rc == -ENOSPC && dr != r) rc = ftl_stream_take(f, u, (uint32_t)r, r, 1, ops, &m->dst);
        if (rc) break;
        n++;
        f->phint[m->dst] = f->phint[src];
        if (f->place->moved) f->place->moved(f->place_state, f, src, m->dst);
        if (ftl_ppn_region(f, m->dst) != r) migrated++;
        if (data) {
            rc = ftl_run_add(f, &f->gcrun, m->dst);
            if (rc) break;
        }
        ftl_op(f, ops, CSD_FLASH_PROGRAM, 1, m->dst);
    }
    int rf = ftl_run_flush(f, &f->gcrun);   /* the copies' data before their records */
    if (!rc) rc = rf;
    if (!rc) rc = csd_store_barrier(f->st);
    ftl_oob_run run;
    run.n = 0;
    for (uint32_t k = 0; !rc && k < n; k++) {
        mv[k].rec.copies++;
        rc = ftl_oob_add(f, &run, mv[k].dst, &mv[k].rec);
    }
    if (!rc) rc = ftl_oob_flush(f, &run);
    if (!rc) rc = csd_store_barrier(f->st);
    if (rc) {
        /* Copies without (or with) records are harmless: same data and seq as the source, which
         * stays valid. */
        for (uint32_t k = 0; k < n; k++) ftl_release(f, mv[k].dst);
        free(raw);
        free(mv);
        return rc;
    }
    int was_gc = f->in_gc;
    f->in_gc = 1;   /* map traffic for the moved pages is GC's, not the request's */
    for (uint32_t k = 0; k < n; k++) {
        gc_move *m = &mv[k];
        uint64_t id = f->rev_id[m->src];
        uint32_t idx = f->rev_idx[m->src];
        ftl_obj *o = csd_objtab_by_id(&f->tab, id);
        ftl_set_valid(f, m->dst, id, idx, f->pcrc[m->src]);
        ftl_unmap(f, m->src, PG_DEAD);
        if (o) {
            o->map[idx] = m->dst | (m->rec.kind == CSD_OOB_TOMBSTONE ? MAP_TOMB : 0);
            (void)f->map->update(f->map_state, f, id, idx, ops);
        }
    }
    f->c.gc_pages_moved += n;
    f->c.migrated_pages += migrated;
    f->c.gc_runs++;
    free(raw);
    free(mv);
    rc = erase_block(f, gb, ops);
    f->in_gc = was_gc;
    return rc;
}

static int gc_unit(csd_ftl *f, uint32_t u, int r, csd_flash_batch *ops) {
    while (need_gc(f, u, r)) {
        uint32_t victim = f->place->victim(f->place_state, f, u, r);
        if (victim == NONE32) return 0;   /* nothing to reclaim: the region is full */
        uint32_t best = f->bvalid[victim];
        uint32_t a = *ftl_active(f, u, (uint32_t)r);
        uint32_t bp = r == REG_SLC ? f->sppb : f->ppb;
        uint64_t room = (uint64_t)ftl_nfree(f, u, r) * bp + (a != NONE32 ? ftl_block_pages(f, a) - f->bwp[a] : 0);
        if (room < best) return 0;
        int rc = gc_block(f, victim, ops);
        if (rc) return rc;
    }
    return 0;
}

/* The greedy choice (hybrid paper VI-A: the block with the most invalid pages), within one region:
 * the closed block with the fewest valid pages. */
uint32_t ftl_greedy_victim(const csd_ftl *f, uint32_t u, int r) {
    uint32_t victim = NONE32, best = UINT32_MAX;
    uint32_t b0 = r == REG_SLC ? 0 : f->slcb, b1 = r == REG_SLC ? f->slcb : f->bpp;
    for (uint32_t b = b0; b < b1; b++) {
        uint32_t gb = u * f->bpp + b;
        if (f->bstate[gb] == BLK_CLOSED && f->bres[gb] == 0 && f->bvalid[gb] < best &&
            f->bvalid[gb] < ftl_block_pages(f, gb)) {
            victim = gb;
            best = f->bvalid[gb];
        }
    }
    return victim;
}

int ftl_wear_save(csd_ftl *f) {
    uint8_t extra[CSD_WEAR_EXTRA_MAX];
    size_t n = f->place->save ? f->place->save(f->place_state, extra, sizeof extra) : 0;
    return csd_store_write_wear(f->st, f->berase, extra, n);
}

void csd_ftl_wear_get(const csd_ftl *f, csd_ftl_wear *w) {
    memset(w, 0, sizeof *w);
    w->pe_limit[REG_TLC] = f->p.pe_cycles_tlc;
    w->pe_limit[REG_SLC] = f->p.pe_cycles_slc;
    for (uint32_t gb = 0; gb < f->nblocks; gb++) {
        int r = ftl_block_region(f, gb);
        w->blocks[r]++;
        w->erases[r] += f->berase[gb];
        if (f->berase[gb] > w->pe_max[r]) w->pe_max[r] = f->berase[gb];
    }
}

uint32_t csd_ftl_block_erases(const csd_ftl *f, uint64_t block) {
    return block < f->nblocks ? f->berase[block] : UINT32_MAX;
}

uint32_t csd_ftl_page_hint(const csd_ftl *f, uint64_t ppn) { return ppn < f->physical ? f->phint[ppn] : 0; }

void ftl_stripe_order(const csd_ftl *f, uint32_t *order) {
    const csd_params *p = &f->p;
    uint32_t C = p->channels, K = p->chips_per_channel, D = p->dies_per_chip;
    for (uint32_t r = 0; r < f->units; r++) {
        uint32_t ch = r % C, chip = (r / C) % K, die = (r / (C * K)) % D, plane = r / (C * K * D);
        order[r] = ((ch * K + chip) * D + die) * p->planes_per_die + plane;
    }
}

void csd_ftl_place_report(const csd_ftl *f, void (*fn)(void *arg, const char *key, uint64_t value), void *arg) {
    if (f->place->report) f->place->report(f->place_state, fn, arg);
}

uint32_t csd_ftl_slc_blocks(const csd_ftl *f) { return f->slcb; }

void csd_ftl_set_erase_hook(csd_ftl *f, csd_ftl_erase_fn fn, void *arg) {
    f->erase_fn = fn;
    f->erase_arg = arg;
}
