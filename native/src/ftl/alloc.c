/* Log-structured allocation and garbage collection: the mechanism under the placement policy
 * (ftl/place.h), which chooses the unit of each host page and the GC victim.
 *
 * Each unit (plane) fills its active block page by page; a full block is closed and the next free
 * block (FIFO) opened. GC works per unit: when a unit has fewer than gc_free_blocks_min free blocks,
 * the policy's victim is copied into the unit's active block and erased. One block per unit is kept
 * for GC alone (host pages may not take the last free block), so GC can always make room. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t block_first(const csd_ftl *f, uint32_t gb) { return (uint64_t)gb * f->ppb; }

static uint32_t fq_pop(csd_ftl *f, uint32_t u) {
    uint32_t gb = f->fq[(uint64_t)u * f->bpp + f->fq_head[u]];
    f->fq_head[u] = (f->fq_head[u] + 1) % f->bpp;
    f->nfree[u]--;
    f->free_blocks--;
    return gb;
}

static void fq_push(csd_ftl *f, uint32_t u, uint32_t gb) {
    f->fq[(uint64_t)u * f->bpp + (f->fq_head[u] + f->nfree[u]) % f->bpp] = gb;
    f->nfree[u]++;
    f->free_blocks++;
}

static int gc_unit(csd_ftl *f, uint32_t u, csd_flash_batch *ops);

int ftl_unit_take(csd_ftl *f, uint32_t u, int gc, csd_flash_batch *ops, uint64_t *ppn) {
    uint32_t a = f->active[u];
    if (a == NONE32 || f->bwp[a] == f->ppb) {
        if (a != NONE32) {
            f->bstate[a] = BLK_CLOSED;
            f->active[u] = NONE32;
        }
        if (!gc) {
            if (f->nfree[u] < f->gc_min) {
                int rc = gc_unit(f, u, ops);
                if (rc) return rc;
            }
            /* GC may have opened a new active block for its copies: use it */
            a = f->active[u];
            if (a != NONE32 && f->bwp[a] < f->ppb) goto take;
            if (a != NONE32) {
                f->bstate[a] = BLK_CLOSED;
                f->active[u] = NONE32;
            }
            if (f->nfree[u] < 2) return -ENOSPC;
        } else if (f->nfree[u] < 1) {
            return -ENOSPC;
        }
        a = fq_pop(f, u);
        f->active[u] = a;
        f->bstate[a] = BLK_ACTIVE;
        f->bwp[a] = 0;
    }
take:
    *ppn = block_first(f, a) + f->bwp[a]++;
    f->pstate[*ppn] = PG_RESERVED;
    f->bres[a]++;
    return 0;
}

int ftl_alloc_host(csd_ftl *f, csd_flash_batch *ops, uint64_t *ppn) {
    return f->place->alloc(f->place_state, f, 0, ops, ppn);
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
    }
    f->bvalid[gb] = 0;
    f->bwp[gb] = 0;
    f->bres[gb] = 0;
    f->berase[gb]++;
    f->bstate[gb] = BLK_FREE;
    fq_push(f, ftl_unit_of_block(f, gb), gb);
    return 0;
}

typedef struct gc_move { uint64_t src, dst; csd_oob rec; } gc_move;

/* Copy every valid page of block gb into its unit's active block, then erase gb. Copies keep their
 * sequence number (same version of the data) and count copies + 1, so recovery prefers the copy
 * when a crash leaves both. Data before records before erase: a crash anywhere leaves one intact
 * copy of every page. */
static int gc_block(csd_ftl *f, uint32_t gb, csd_flash_batch *ops) {
    uint32_t u = ftl_unit_of_block(f, gb);
    uint64_t first = block_first(f, gb);
    uint8_t *raw = malloc((size_t)f->ppb * CSD_OOB_BYTES);
    gc_move *mv = malloc((size_t)f->ppb * sizeof *mv);
    int rc = (!raw || !mv) ? -ENOMEM : csd_store_read_oob(f->st, first, f->ppb, raw);
    uint32_t n = 0;
    for (uint32_t i = 0; !rc && i < f->ppb; i++) {
        uint64_t src = first + i;
        if (f->pstate[src] != PG_VALID) continue;
        gc_move *m = &mv[n];
        m->src = src;
        if (csd_oob_decode(raw + (size_t)i * CSD_OOB_BYTES, f->pb, &m->rec) != CSD_OOB_OK) {
            rc = -EIO;   /* the record of a live page changed under us */
            break;
        }
        int data = m->rec.kind == CSD_OOB_DATA;
        if (data) {
            rc = csd_store_read_data(f->st, src, 0, f->gcbuf, f->pb);
            if (rc) break;
            ftl_op(f, ops, CSD_FLASH_READ, 1, src);
        }
        rc = ftl_unit_take(f, u, 1, ops, &m->dst);
        if (rc) break;
        n++;
        if (data) {
            rc = csd_store_write_data(f->st, m->dst, f->gcbuf);
            if (rc) break;
        }
        ftl_op(f, ops, CSD_FLASH_PROGRAM, 1, m->dst);
    }
    if (!rc) rc = csd_store_barrier(f->st);
    for (uint32_t k = 0; !rc && k < n; k++) {
        mv[k].rec.copies++;
        rc = csd_store_write_oob(f->st, mv[k].dst, &mv[k].rec);
    }
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
    f->c.gc_runs++;
    free(raw);
    free(mv);
    rc = erase_block(f, gb, ops);
    f->in_gc = was_gc;
    return rc;
}

static int gc_unit(csd_ftl *f, uint32_t u, csd_flash_batch *ops) {
    while (f->nfree[u] < f->gc_min) {
        uint32_t victim = f->place->victim(f->place_state, f, u);
        if (victim == NONE32) return 0;   /* nothing to reclaim: the unit is full */
        uint32_t best = f->bvalid[victim];
        uint32_t a = f->active[u];
        uint64_t room = (uint64_t)f->nfree[u] * f->ppb + (a != NONE32 ? f->ppb - f->bwp[a] : 0);
        if (room < best) return 0;
        int rc = gc_block(f, victim, ops);
        if (rc) return rc;
    }
    return 0;
}
