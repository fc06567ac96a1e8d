/* Format, open (crash recovery), close, and the read-only accessors. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "flash/flash.h"

#define ERR(...) do { if (err && errlen) snprintf(err, errlen, __VA_ARGS__); } while (0)

int csd_ftl_format(const char *path, uint64_t capacity, const csd_params *p, char *err, size_t errlen) {
    char e2[256];
    int rc = csd_config_check_values(p, e2, sizeof e2);
    if (rc) {
        ERR("%s", e2);
        return rc;
    }
    if (!csd_map_find(p->ftl) || !csd_place_find(p->placement)) {
        ERR("unknown %s '%s'", csd_map_find(p->ftl) ? "placement" : "ftl",
            csd_map_find(p->ftl) ? p->placement : p->ftl);
        return -EINVAL;
    }
    csd_layout l;
    rc = csd_layout_compute(&l, capacity, p, e2, sizeof e2);
    if (rc) {
        ERR("%s", e2);
        return rc;
    }
    csd_params stored = *p;
    stored.blocks_per_plane = l.blocks_per_plane;   /* the derived value is part of the geometry */
    csd_store *s;
    rc = csd_store_create(&s, path, &l, &stored, e2, sizeof e2);
    if (rc) {
        ERR("%s", e2);
        return rc;
    }
    /* Both slots start valid and equal, so a fresh image has no torn slot to report. */
    csd_buf b = { 0 };
    csd_meta_begin(&b, 1, 1, NULL, 0, 0);
    rc = csd_meta_write(s, 0, 1, &b);
    if (!rc) rc = csd_meta_write(s, 1, 2, &b);
    if (!rc) rc = csd_store_sync(s);
    csd_buf_free(&b);
    csd_store_close(s);
    if (rc) ERR("%s: writing metadata: %s", path, strerror(-rc));
    return rc;
}

static void ftl_free(csd_ftl *f) {
    if (!f) return;
    csd_store_close(f->st);
    csd_objtab_free(&f->tab);
    if (f->map) f->map->destroy(f->map_state);
    if (f->place) f->place->destroy(f->place_state);
    free(f->pstate);
    free(f->rev_id);
    free(f->rev_idx);
    free(f->pcrc);
    free(f->bstate);
    free(f->bvalid);
    free(f->bwp);
    free(f->bres);
    free(f->berase);
    free(f->phint);
    free(f->active);
    free(f->nfree);
    free(f->fq_head);
    free(f->fq);
    free(f->pagebuf);
    free(f->gcbuf);
    free(f->hrun.buf);
    free(f->gcrun.buf);
    csd_buf_free(&f->mbuf);
    free(f);
}

static int alloc_state(csd_ftl *f) {
    const csd_layout *l = &f->l;
    f->units = l->units;
    f->bpp = l->blocks_per_plane;
    f->ppb = l->pages_per_block;
    f->pb = l->page_bytes;
    f->lpages = l->capacity / l->page_bytes;
    f->physical = l->physical_pages;
    f->nblocks = (uint64_t)f->units * f->bpp;
    int64_t head = csd_layout_headroom(l);
    f->group_pages = head > 2 ? (uint64_t)head / 2 : 1;
    f->gc_min = f->p.gc_free_blocks_min > 2 ? f->p.gc_free_blocks_min : 2;
    f->slcb = l->slc_blocks;
    f->sppb = l->slc_pages_per_block;
    uint32_t rb[FTL_REGIONS] = { f->bpp - f->slcb, f->slcb };
    for (int r = 0; r < FTL_REGIONS; r++) {
        /* gc_free_pct of the region's blocks, at least gc_min, but a region's GC must leave it room */
        uint32_t m = (uint32_t)((uint64_t)rb[r] * f->p.gc_free_pct / 100);
        if (m < f->gc_min) m = f->gc_min;
        if (rb[r] && m > rb[r] - 1) m = rb[r] > 2 ? rb[r] - 1 : 2;
        f->gc_min_r[r] = m;
        /* the device-wide reserve: gc_free_pct of all the region's blocks (each plane still keeps its last
         * free block for GC, see alloc.c) */
        uint64_t d = (uint64_t)rb[r] * f->units * f->p.gc_free_pct / 100;
        f->gc_min_dev[r] = (uint32_t)(d > (uint64_t)2 * f->units ? d : (uint64_t)2 * f->units);
    }
    size_t np = (size_t)f->physical, nb = (size_t)f->nblocks, nu = f->units;
    f->pstate = calloc(np, 1);
    f->rev_id = calloc(np, sizeof *f->rev_id);
    f->rev_idx = calloc(np, sizeof *f->rev_idx);
    f->pcrc = calloc(np, sizeof *f->pcrc);
    f->bstate = calloc(nb, 1);
    f->bvalid = calloc(nb, sizeof *f->bvalid);
    f->bwp = calloc(nb, sizeof *f->bwp);
    f->bres = calloc(nb, sizeof *f->bres);
    f->berase = calloc(nb, sizeof *f->berase);
    f->phint = calloc(np, 1);
    f->active = malloc(nu * FTL_STREAMS * sizeof *f->active);
    f->nfree = calloc(nu * FTL_REGIONS, sizeof *f->nfree);
    f->fq_head = calloc(nu * FTL_REGIONS, sizeof *f->fq_head);
    f->fq = calloc(nb * FTL_REGIONS, sizeof *f->fq);
    f->pagebuf = malloc(f->pb);
    f->gcbuf = malloc(f->pb);
    f->hrun.buf = malloc((size_t)FTL_RUN_PAGES * f->pb);
    f->gcrun.buf = malloc((size_t)FTL_RUN_PAGES * f->pb);
    if (!f->pstate || !f->rev_id || !f->rev_idx || !f->pcrc || !f->bstate || !f->bvalid || !f->bwp ||
        !f->bres || !f->berase || !f->phint || !f->active || !f->nfree || !f->fq_head || !f->fq || !f->pagebuf || !f->gcbuf ||
        !f->hrun.buf || !f->gcrun.buf)
        return -ENOMEM;
    for (size_t i = 0; i < nu * FTL_STREAMS; i++) f->active[i] = NONE32;
    return 0;
}

/* ---------------------------------------------------------------- recovery */

/* Recovery builds the winners (per object page the record with the highest (seq, copies), as
 * csd_build picks them for check) straight into the objects' maps and the per-page tables as the
 * records come (rec_scan_once): a page whose record wins is VALID at once and goes back to STALE
 * (data) or DEAD (tombstone) if a later record beats it. The current winner's seq and copies are
 * read back from its record in the OOB area, so no table of winners is built, walked and copied a
 * second time. */
typedef struct rec_ctx {
    csd_ftl *f;
    const uint8_t *recs;   /* every OOB record, by ppn */
    ftl_obj *last;         /* the previous record's object: records come in runs of one object */
    uint64_t *top;         /* per slot: pages its map needs (highest page of a record seen, + 1; 0 =
                            * not known: one pass, the map grows) */
    uint64_t *newest_ppn;  /* per slot: the record behind o->newest_seq */
    uint64_t *bmaxseq;     /* per block: newest accepted seq, to pick the active block */
    uint64_t blk_first;    /* the block of the previous record, and its first ppn */
    uint32_t blk;
    int rc;
} rec_ctx;

/* An older data version of page idx of o: kept on flash while it is (its tombstone stays too). */
static int rec_stale(csd_ftl *f, ftl_obj *o, uint64_t ppn, uint32_t idx) {
    if (!o->stale && !(o->stale = calloc((size_t)o->cap, sizeof *o->stale))) return -ENOMEM;
    f->pstate[ppn] = PG_STALE;
    f->rev_id[ppn] = o->id;
    f->rev_idx[ppn] = idx;
    o->stale[idx]++;
    return 0;
}

/* Grow o's map to cap entries during recovery. Its stale counts are allocated only when a page has
 * one (rec_stale), or at the end untouched (rec_finish): growing them with the map would write
 * every count once more per step. */
static int rec_grow(ftl_obj *o, uint64_t cap) {
    if (cap > SIZE_MAX / sizeof(uint64_t)) return -ENOMEM;
    uint64_t *m = realloc(o->map, (size_t)cap * sizeof *m);
    if (!m) return -ENOMEM;
    o->map = m;
    if (o->stale) {
        uint32_t *st = realloc(o->stale, (size_t)cap * sizeof *st);
        if (!st) return -ENOMEM;
        memset(st + o->cap, 0, (size_t)(cap - o->cap) * sizeof *st);
        o->stale = st;
    }
    memset(m + o->cap, 0xff, (size_t)(cap - o->cap) * sizeof *m);   /* MAP_NONE */
    o->cap = cap;
    return 0;
}

static void rec_win(csd_ftl *f, ftl_obj *o, uint64_t ppn, uint32_t idx, const csd_oob *r) {
    int data = r->kind == CSD_OOB_DATA;
    o->map[r->page] = ppn | (data ? 0 : MAP_TOMB);
    ftl_set_valid(f, ppn, o->id, idx, r->data_crc);
    if (data) o->data_pages++;
    else o->tomb_pages++;
    f->lused++;
}

/* The winner at ppn lost to a newer record: undo rec_win, leaving what a loser's page holds. */
static int rec_unwin(csd_ftl *f, ftl_obj *o, uint64_t ppn, uint32_t idx, int data) {
    f->bvalid[ftl_block_of(f, ppn)]--;
    f->pcrc[ppn] = 0;
    f->lused--;
    if (data) {
        o->data_pages--;
        return rec_stale(f, o, ppn, idx);
    }
    o->tomb_pages--;
    f->pstate[ppn] = PG_DEAD;
    f->rev_id[ppn] = 0;
    f->rev_idx[ppn] = 0;
    return 0;
}

/* First pass: the map of each object is allocated once, at the size its records need (no growing
 * by doubling, each step copying and initialising the map again). */
static void rec_seen(void *arg, const csd_oob *r) {
    rec_ctx *c = arg;
    csd_ftl *f = c->f;
    ftl_obj *o = c->last;
    if (!o || o->id != r->obj) {
        o = csd_objtab_by_id(&f->tab, r->obj);
        if (!o) return;
        c->last = o;
    }
    uint64_t *t = &c->top[csd_objtab_slot(&f->tab, o)];
    if (r->page < f->lpages && r->page >= *t) *t = r->page + 1;
}

static void rec_record(void *arg, uint64_t ppn, const csd_oob *r, int sst, int ost) {
    (void)ost;
    rec_ctx *c = arg;
    csd_ftl *f = c->f;
    if (ppn - c->blk_first >= f->ppb) {   /* records come mostly in ppn order: a division per block */
        c->blk = ftl_block_of(f, ppn);
        c->blk_first = (uint64_t)c->blk * f->ppb;
    }
    uint32_t gb = c->blk, page = (uint32_t)(ppn - c->blk_first);
    if (page + 1 > f->bwp[gb]) f->bwp[gb] = page + 1;
    f->pstate[ppn] = PG_DEAD;   /* occupied; winners become VALID, older data versions STALE */
    if (sst != SCAN_ACCEPT) return;
    f->phint[ppn] = r->hint;
    if (r->seq > c->bmaxseq[gb]) c->bmaxseq[gb] = r->seq;
    ftl_obj *o = c->last;
    if (!o || o->id != r->obj) {
        o = csd_objtab_by_id(&f->tab, r->obj);
        if (!o) return;   /* an orphan: a deleted object's page, garbage */
        c->last = o;
    }
    /* Records may come out of ppn order (rec_scan_once), so every choice below depends on the records
     * alone: of equal seqs the one with the highest ppn is the newest (the last one the scan's order
     * gives: same seq, same group, so both held back or neither), of equal (seq, copies) the one with
     * the lowest ppn wins (the first). */
    uint32_t slot = csd_objtab_slot(&f->tab, o);
    if (r->seq > o->newest_seq || (r->seq == o->newest_seq && ppn > c->newest_ppn[slot])) {
        o->newest_seq = r->seq;
        o->newest_ms = r->time_ms;
        c->newest_ppn[slot] = ppn;
    }
    if (r->page >= f->lpages) return;   /* beyond the logical capacity: garbage too */
    uint32_t idx = (uint32_t)r->page;
    if (r->page >= o->cap) {
        uint64_t need = r->page + 1, cap = c->top[slot];
        if (cap < need)   /* not sized by a first pass: grow by a quarter (large maps move by mremap) */
            cap = o->cap < 1024 ? (need > 2 * o->cap ? need : 2 * o->cap) : (need > o->cap + o->cap / 4 ? need : o->cap + o->cap / 4);
        if (rec_grow(o, cap)) {
            c->rc = -ENOMEM;
            return;
        }
    }
    uint64_t e = o->map[r->page];
    if (e == MAP_NONE) {
        rec_win(f, o, ppn, idx, r);
        return;
    }
    csd_oob w;
    csd_oob_fields(c->recs + map_ppn(e) * CSD_OOB_BYTES, &w);
    int rc = 0;
    if (r->seq != w.seq ? r->seq > w.seq : r->copies != w.copies ? r->copies > w.copies : ppn < map_ppn(e)) {
        rc = rec_unwin(f, o, map_ppn(e), idx, map_is_data(e));
        rec_win(f, o, ppn, idx, r);
    } else if (r->kind == CSD_OOB_DATA) {   /* older (or a duplicate): only data versions can come back */
        rc = rec_stale(f, o, ppn, idx);
    }
    if (rc) c->rc = rc;
}

/* The scan's two passes in one (csd_scan_oob's calls, ACCEPT or not, with the same verdicts), so the
 * records are read from memory once: pass 1 is there only to know the newest write group before
 * any record is accepted. Here a record is accepted at once when its seq is below the first seq of
 * the newest group seen so far, and kept back otherwise; at the end the records kept back below the
 * newest group's first seq are accepted, the group's own follow as the scan gives them. Only if a
 * record accepted early turns out to be in the final newest group (a damaged image whose groups
 * overlap) is one pass not enough: 1, and the caller starts over with the two-pass scan. */
static int rec_scan_once(rec_ctx *c, const csd_oob_area *a, csd_scan_info *in) {
    csd_ftl *f = c->f;
    const uint64_t total = f->physical;
    const uint8_t *recs = a->recs;
    memset(in, 0, sizeof *in);
    uint64_t best = 0, first = 0, max_early = 0, *held = NULL;
    size_t nheld = 0, cap = 0;
    for (size_t run = 0; run < a->nruns; run++) {
        const uint64_t end = a->runs[run][1] < total ? a->runs[run][1] : total;
        for (uint64_t ppn = a->runs[run][0]; ppn < end; ppn++) {
            csd_oob r;
            int st = csd_oob_decode(recs + ppn * CSD_OOB_BYTES, f->pb, &r);
            if (st == CSD_OOB_EMPTY) continue;
            in->records++;
            if (st == CSD_OOB_OK && r.op_pages > total) st = CSD_OOB_BAD_FIELD;
            if (st != CSD_OOB_OK) {
                rec_record(c, ppn, &r, SCAN_BAD, st);
                continue;
            }
            if (r.seq > in->max_seq) in->max_seq = r.seq;
            int v = csd_seq_voided(f->voids, f->n_void, r.seq);
            if (v >= 0) {
                in->void_hit[v] = 1;
                rec_record(c, ppn, &r, SCAN_VOIDED, st);
                continue;
            }
            if (r.seq > best) {
                best = r.seq;
                first = r.op_first;
                in->have_last = 1;
                in->last_first = r.op_first;
                in->last_pages = r.op_pages;
            }
            if (r.seq < first) {
                if (r.seq > max_early) max_early = r.seq;
                rec_record(c, ppn, &r, SCAN_ACCEPT, st);
                continue;
            }
            if (nheld == cap) {
                size_t n = cap ? cap * 2 : 1024;
                uint64_t *h = realloc(held, n * sizeof *h);
                if (!h) {
                    free(held);
                    return -ENOMEM;
                }
                held = h;
                cap = n;
            }
            held[nheld++] = ppn;
        }
    }
    if (in->have_last && max_early >= in->last_first) {
        free(held);
        return 1;
    }
    uint8_t *seen = in->have_last ? calloc((size_t)(in->last_pages + 7) / 8, 1) : NULL;
    if (in->have_last && !seen) {
        free(held);
        return -ENOMEM;
    }
    for (size_t i = 0; i < nheld; i++) {
        csd_oob r;
        csd_oob_fields(recs + held[i] * CSD_OOB_BYTES, &r);
        if (r.seq < in->last_first) {
            rec_record(c, held[i], &r, SCAN_ACCEPT, CSD_OOB_OK);
            continue;
        }
        uint64_t k = r.seq - in->last_first;   /* as the scan counts the newest group's pages */
        if (k < in->last_pages && !(seen[k / 8] & (1u << (k % 8)))) {
            seen[k / 8] |= (uint8_t)(1u << (k % 8));
            in->last_found++;
        }
    }
    in->last_incomplete = in->have_last && in->last_found < in->last_pages;
    for (size_t i = 0; i < nheld; i++) {
        csd_oob r;
        csd_oob_fields(recs + held[i] * CSD_OOB_BYTES, &r);
        if (r.seq >= in->last_first)
            rec_record(c, held[i], &r, in->last_incomplete ? SCAN_ROLLBACK : SCAN_ACCEPT, CSD_OOB_OK);
    }
    free(seen);
    free(held);
    return 0;
}

/* Back to the state before any record (for the two-pass scan after rec_scan_once gave up). */
static void rec_reset(rec_ctx *c) {
    csd_ftl *f = c->f;
    size_t np = (size_t)f->physical, nb = (size_t)f->nblocks;
    memset(f->pstate, 0, np);
    memset(f->rev_id, 0, np * sizeof *f->rev_id);
    memset(f->rev_idx, 0, np * sizeof *f->rev_idx);
    memset(f->pcrc, 0, np * sizeof *f->pcrc);
    memset(f->phint, 0, np);
    memset(f->bwp, 0, nb * sizeof *f->bwp);
    memset(f->bvalid, 0, nb * sizeof *f->bvalid);
    memset(c->bmaxseq, 0, nb * sizeof *c->bmaxseq);
    f->lused = 0;
    for (uint32_t s = 0; s < f->tab.nslots; s++) {
        ftl_obj *o = &f->tab.slots[s];
        c->top[s] = 0;
        c->newest_ppn[s] = 0;
        if (!o->used) continue;
        free(o->map);
        free(o->stale);
        o->map = NULL;
        o->stale = NULL;
        o->cap = o->data_pages = o->tomb_pages = o->newest_seq = o->newest_ms = 0;
    }
    c->last = NULL;
    c->rc = 0;
}

/* Sizes from the last page's winner, then the tombstones nothing needs any more. 0 or -ENOMEM. */
static int rec_finish(csd_ftl *f, const uint8_t *recs) {
    for (uint32_t s = 0; s < f->tab.nslots; s++) {
        ftl_obj *o = &f->tab.slots[s];
        if (!o->used) continue;
        if (o->cap && !o->stale && !(o->stale = calloc((size_t)o->cap, sizeof *o->stale))) return -ENOMEM;
        uint64_t i = o->cap;
        while (i && o->map[i - 1] == MAP_NONE) i--;
        o->size = 0;
        if (i) {
            csd_oob w;
            csd_oob_fields(recs + map_ppn(o->map[i - 1]) * CSD_OOB_BYTES, &w);
            o->size = (i - 1) * f->pb + w.valid_bytes;
        }
        if (o->tomb_pages)
            for (uint64_t k = 0; k < i; k++) ftl_maybe_drop_tomb(f, o, k);
    }
    return 0;
}

static void rebuild_blocks(csd_ftl *f, const uint64_t *bmaxseq) {
    for (uint32_t gb = 0; gb < f->nblocks; gb++) {
        uint32_t u = ftl_unit_of_block(f, gb), wp = f->bwp[gb];
        uint64_t first = (uint64_t)gb * f->ppb;
        for (uint32_t i = 0; i < wp; i++)
            if (f->pstate[first + i] == PG_FREE) f->pstate[first + i] = PG_DEAD;   /* a gap: not writable */
        int r = ftl_block_region(f, gb);
        if (wp == 0) {
            uint32_t q = u * FTL_REGIONS + (uint32_t)r;
            f->bstate[gb] = BLK_FREE;
            f->fq[(uint64_t)q * f->bpp + f->nfree[q]] = gb;
            f->nfree[q]++;
            f->free_blocks++;
            continue;
        }
        f->bstate[gb] = BLK_CLOSED;
        if (wp >= ftl_block_pages(f, gb)) continue;
        /* appending goes on in the newest partly written block of each region (its default stream);
         * the open blocks of other streams stay closed part-full (GC reclaims their free pages) */
        uint32_t *a = ftl_active(f, u, (uint32_t)r);
        if (*a == NONE32 || bmaxseq[gb] > bmaxseq[*a]) {
            if (*a != NONE32) f->bstate[*a] = BLK_CLOSED;
            *a = gb;
            f->bstate[gb] = BLK_ACTIVE;
        }
    }
}

/* Rolled-back ranges: drop the ones no record falls in any more (GC erased them), add the newest
 * group if the crash left it incomplete. Returns 1 if the list changed. */
static int update_voids(csd_ftl *f, const csd_scan_info *in) {
    uint32_t n = 0;
    int changed = 0;
    for (uint32_t i = 0; i < f->n_void; i++) {
        if (in->void_hit[i]) f->voids[n++] = f->voids[i];
        else changed = 1;
    }
    f->n_void = n;
    if (in->last_incomplete) {
        csd_void_range v = { in->last_first, in->max_seq + 1 };
        while (f->n_void && f->voids[f->n_void - 1].to > v.from) {   /* keep ranges disjoint */
            if (f->voids[f->n_void - 1].from < v.from) v.from = f->voids[f->n_void - 1].from;
            f->n_void--;
        }
        if (f->n_void == CSD_META_VOID_MAX) return -ENOSPC;
        f->voids[f->n_void++] = v;
        changed = 1;
    }
    return changed;
}

static int recover(csd_ftl *f, char *err, size_t errlen) {
    rec_ctx c = { .f = f };   /* blk 0, first ppn 0 */
    csd_oob_area area;
    int rc = csd_store_oob_area(f->st, &area);
    if (rc) {
        ERR("reading the OOB records: %s", strerror(-rc));
        return rc;
    }
    c.recs = area.recs;
    c.bmaxseq = calloc((size_t)f->nblocks, sizeof *c.bmaxseq);
    c.top = calloc(f->tab.nslots ? f->tab.nslots : 1, sizeof *c.top);
    c.newest_ppn = calloc(f->tab.nslots ? f->tab.nslots : 1, sizeof *c.newest_ppn);
    if (!c.bmaxseq || !c.top || !c.newest_ppn) {
        free(c.bmaxseq);
        free(c.top);
        free(c.newest_ppn);
        csd_store_oob_area_free(&area);
        ERR("out of memory");
        return -ENOMEM;
    }
    csd_scan_info in;
    rc = rec_scan_once(&c, &area, &in);
    if (!rc) rc = c.rc;
    if (rc == 1) {
        rec_reset(&c);
        rc = csd_scan_oob_area(&area, f->physical, f->pb, f->voids, f->n_void, rec_record, rec_seen, &c, &in);
        if (!rc) rc = c.rc;
    }
    if (!rc) rc = rec_finish(f, area.recs);
    if (!rc) rebuild_blocks(f, c.bmaxseq);
    csd_store_oob_area_free(&area);
    free(c.bmaxseq);
    free(c.top);
    free(c.newest_ppn);
    if (rc) {
        ERR("recovery scan failed: %s", strerror(-rc));
        return rc;
    }
    /* The table's times are as of its last save, when the sequence counter stood at f->next_seq;
     * an object written since carries its write time in its newest record. */
    for (uint32_t s = 0; s < f->tab.nslots; s++) {
        ftl_obj *o = &f->tab.slots[s];
        if (o->used && o->newest_ms && o->newest_seq >= f->next_seq) o->mtime_ms = o->newest_ms;
    }
    if (in.max_seq + 1 > f->next_seq) f->next_seq = in.max_seq + 1;
    int ch = update_voids(f, &in);
    if (ch < 0) {
        ERR("too many rolled-back write groups (%u); run check", CSD_META_VOID_MAX);
        return ch;
    }
    if (ch && (rc = ftl_meta_save(f, NULL, NULL, NULL, 0)) != 0) {
        ERR("writing metadata: %s", rc == -EOVERFLOW ? "counters at their bound" : strerror(-rc));
        return rc;
    }
    return 0;
}

int csd_ftl_open(csd_ftl **out, const char *path, csd_params *p, char *err, size_t errlen) {
    *out = NULL;
    csd_ftl *f = calloc(1, sizeof *f);
    if (!f) {
        ERR("out of memory");
        return -ENOMEM;
    }
    csd_objtab_init(&f->tab);
    char e2[512];
    int rc = csd_store_open(&f->st, path, 1, &f->p, e2, sizeof e2);
    if (rc) {
        ERR("%s", e2);
        goto fail;
    }
    f->l = f->st->l;
    /* newest valid metadata slot */
    csd_meta m[2];
    char why[2][128];
    int ok[2];
    for (int s = 0; s < 2; s++) ok[s] = csd_meta_read(f->st, s, &m[s], why[s], sizeof why[s]) == 0;
    if (!ok[0] && !ok[1]) {
        ERR("%s: both metadata slots are unreadable (A: %s; B: %s)", path, why[0], why[1]);
        rc = -EBADMSG;
        goto fail;
    }
    int cur = (ok[0] && ok[1]) ? (m[1].seq > m[0].seq) : ok[1];
    f->meta_slot = cur;
    f->meta_seq = m[cur].seq;
    f->next_seq = m[cur].next_seq ? m[cur].next_seq : 1;
    f->n_void = m[cur].n_void;
    memcpy(f->voids, m[cur].voids, m[cur].n_void * sizeof *f->voids);
    /* a map-cached FTL keeps its map pages in one hidden object beside the user's */
    const csd_map_ops *mo = csd_map_find(f->p.ftl);   /* an unknown one is refused below */
    rc = csd_objtab_load(&f->tab, &m[cur], f->p.max_objects + (mo ? mo->own_objects : 0), e2, sizeof e2);
    for (int s = 0; s < 2; s++)
        if (ok[s]) csd_meta_free(&m[s]);
    if (rc) {
        ERR("%s: metadata slot %c: %s", path, "AB"[cur], e2);
        goto fail;
    }
    for (uint32_t i = 1; i < f->n_void; i++) {
        if (f->voids[i].from < f->voids[i - 1].to || f->voids[i].from >= f->voids[i].to) {
            ERR("%s: metadata slot %c: rolled-back ranges are not sorted", path, "AB"[cur]);
            rc = -EBADMSG;
            goto fail;
        }
    }
    rc = alloc_state(f);
    if (rc) {
        ERR("out of memory");
        goto fail;
    }
    f->map = csd_map_find(f->p.ftl);
    f->place = csd_place_find(f->p.placement);
    if (!f->map || !f->place) {
        ERR("%s: unknown %s '%s'", path, f->map ? "placement" : "ftl", f->map ? f->p.placement : f->p.ftl);
        f->map = NULL;
        f->place = NULL;
        rc = -EINVAL;
        goto fail;
    }
    if ((rc = f->map->init(&f->map_state, f)) != 0) {
        f->map = NULL;
        ERR("%s: starting the mapping policy '%s': %s", path, f->p.ftl, strerror(-rc));
        goto fail;
    }
    if ((rc = f->place->init(&f->place_state, f)) != 0) {
        f->place = NULL;
        ERR("%s: starting the placement policy '%s': %s", path, f->p.placement, strerror(-rc));
        goto fail;
    }
    rc = recover(f, e2, sizeof e2);
    if (rc) {
        ERR("%s: %s", path, e2);
        goto fail;
    }
    /* P/E counts: a missing record (older image) or a damaged one starts from zero */
    uint8_t extra[CSD_WEAR_EXTRA_MAX];
    size_t nextra = 0;
    rc = csd_store_read_wear(f->st, f->berase, extra, &nextra);
    if (rc && rc != -EBADMSG) {
        ERR("%s: reading the wear record: %s", path, strerror(-rc));
        goto fail;
    }
    rc = 0;
    if (nextra && f->place->load) f->place->load(f->place_state, extra, nextra);
    if (f->map->recovered && (rc = f->map->recovered(f->map_state, f)) != 0) {
        ERR("%s: the mapping policy '%s' could not restore its map pages: %s", path, f->p.ftl, strerror(-rc));
        goto fail;
    }
    if (p) *p = f->p;
    *out = f;
    return 0;
fail:
    ftl_free(f);
    return rc;
}

/* Erase leaves a block's dead data in the file (csd_store_erase says why); at a clean close every
 * run of free blocks goes back to the host's disk in one punch, so an image at rest stays sparse. */
static int punch_free_blocks(csd_ftl *f) {
    if (!f->st->writable) return 0;
    for (uint64_t b = 0; b < f->nblocks;) {
        if (f->bstate[b] != BLK_FREE) {
            b++;
            continue;
        }
        uint64_t e = b;
        while (e < f->nblocks && f->bstate[e] == BLK_FREE) e++;
        int rc = csd_store_punch(f->st, b * f->ppb, (e - b) * f->ppb);
        if (rc) return rc;
        b = e;
    }
    return 0;
}

int csd_ftl_close(csd_ftl *f) {
    if (!f) return 0;
    int rc = f->map->flush(f->map_state, f, NULL);
    int rw = ftl_wear_save(f);
    if (!rc) rc = rw;
    int rp = punch_free_blocks(f);
    if (!rc) rc = rp;
    int rs = csd_store_sync(f->st);
    if (!rc) rc = rs;
    ftl_free(f);
    return rc;
}

const csd_params *csd_ftl_params(const csd_ftl *f) { return &f->p; }
uint64_t csd_ftl_capacity(const csd_ftl *f) { return f->l.capacity; }
uint64_t csd_ftl_physical_pages(const csd_ftl *f) { return f->physical; }
uint64_t csd_ftl_group_pages(const csd_ftl *f) { return f->group_pages; }

int csd_ftl_sync(csd_ftl *f) { return csd_store_sync(f->st); }

void csd_ftl_set_sync_writes(csd_ftl *f, int on) {
    f->p.sync_writes = on != 0;
    f->st->sync_writes = on != 0;
}

void csd_ftl_counters_get(const csd_ftl *f, csd_ftl_counters *c) {
    *c = f->c;
    c->free_blocks = f->free_blocks;
    c->total_blocks = f->nblocks;
    c->logical_pages_used = f->lused;
    c->logical_pages_capacity = f->lpages;
}
