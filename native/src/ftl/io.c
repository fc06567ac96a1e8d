/* Object data: write (read-modify-write of partial pages), read, trim, lookup.
 *
 * Writes and trims go in atomic groups of at most group_pages pages. A group first programs all its
 * data pages (old versions stay mapped, so GC keeps them), then writes the pages' OOB records, each
 * naming the group (first seq, page count), then switches the mapping in memory. Recovery accepts
 * the newest group only if all its records are present, so after a crash each group is either fully
 * there or not at all. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct grp_page { uint64_t idx, ppn; uint32_t crc, valid; } grp_page;

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Read a live data page and verify it against the CRC its record carries. */
static int read_checked(csd_ftl *f, uint64_t ppn, void *dst, csd_flash_batch *ops) {
    int rc = csd_store_read_data(f->st, ppn, 0, dst, f->pb);
    if (rc) return rc;
    ftl_op(f, ops, CSD_FLASH_READ, 0, ppn);
    return csd_crc32(0, dst, f->pb) == f->pcrc[ppn] ? 0 : -EIO;
}

/* A group's records failed half-way: its seq range is rolled back in the metadata so those records
 * never count, even once later groups make them look "not newest". */
static void group_rollback(csd_ftl *f, grp_page *g, uint32_t n, uint64_t s0, int records) {
    for (uint32_t k = 0; k < n; k++) ftl_release(f, g[k].ppn);
    if (!records) return;
    if (f->n_void == CSD_META_VOID_MAX) {
        f->broken = 1;
        return;
    }
    f->voids[f->n_void++] = (csd_void_range){ s0, s0 + n };
    if (ftl_meta_save(f, NULL, NULL, NULL, 0)) f->broken = 1;
}

/* Records, then the in-memory switch. size_after is the object size once the group is in. */
static int group_commit(csd_ftl *f, ftl_obj *o, grp_page *g, uint32_t n, int kind, uint64_t size_after,
                        csd_flash_batch *ops) {
    uint64_t s0 = f->next_seq, now = ftl_now_ms();
    if (n > CSD_COUNTER_MAX - s0) {   /* records past the bound would read back as damage */
        group_rollback(f, g, n, s0, 0);
        return -EOVERFLOW;
    }
    f->next_seq += n;
    int rc = csd_store_barrier(f->st);
    if (rc) {
        group_rollback(f, g, n, s0, 0);
        return rc;
    }
    ftl_oob_run run;
    run.n = 0;
    for (uint32_t k = 0; !rc && k < n; k++) {
        csd_oob r = { .kind = (uint8_t)kind, .copies = 0, .valid_bytes = g[k].valid, .obj = o->id,
                      .page = g[k].idx, .seq = s0 + k, .op_first = s0, .op_pages = n, .data_crc = g[k].crc,
                      .time_ms = now, .hint = f->phint[g[k].ppn] };
        rc = ftl_oob_add(f, &run, g[k].ppn, &r);
    }
    if (!rc) rc = ftl_oob_flush(f, &run);
    if (rc) {
        group_rollback(f, g, n, s0, 1);
        return rc;
    }
    rc = csd_store_barrier(f->st);
    if (rc) {
        group_rollback(f, g, n, s0, 1);
        return rc;
    }
    uint64_t old_pages = ftl_obj_pages(f, o);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t idx = g[k].idx, old = o->map[idx];
        if (old == MAP_NONE) {
            f->lused++;
        } else if (map_is_data(old)) {
            ftl_unmap(f, old, PG_STALE);
            o->stale[idx]++;
            o->data_pages--;
        } else {
            ftl_unmap(f, map_ppn(old), PG_DEAD);
            o->tomb_pages--;
        }
        if (kind == CSD_OOB_DATA) {
            o->map[idx] = g[k].ppn;
            o->data_pages++;
        } else {
            o->map[idx] = g[k].ppn | MAP_TOMB;
            o->tomb_pages++;
        }
        ftl_set_valid(f, g[k].ppn, o->id, (uint32_t)idx, g[k].crc);
        (void)f->map->update(f->map_state, f, o->id, idx, ops);
    }
    o->size = size_after;
    o->mtime_ms = now;
    /* the old last page no longer carries the size: its tombstone may be droppable now */
    if (old_pages && ftl_obj_pages(f, o) > old_pages) ftl_maybe_drop_tomb(f, o, old_pages - 1);
    return 0;
}

/* Logical pages the host's objects hold: the mapping policy's own map pages (the hidden object) live in
 * the spare area, as a real device's do, not in the capacity the host was given. */
static uint64_t host_lused(const csd_ftl *f) {
    const ftl_obj *h = f->hidden_id ? csd_objtab_by_id(&f->tab, f->hidden_id) : NULL;
    return f->lused - (h ? h->data_pages + h->tomb_pages : 0);
}

int csd_ftl_write(csd_ftl *f, uint64_t id, uint64_t offset, const void *data, size_t len, csd_flash_batch *ops) {
    return csd_ftl_write_hint(f, id, offset, data, len, 0, ops);
}

/* data NULL: zeros (csd_ftl_write_zeroes) */
static int write_pages(csd_ftl *f, uint64_t id, uint64_t offset, const void *data, size_t len, uint32_t hint,
                       csd_flash_batch *ops) {
    if (f->broken) return -EIO;
    if (hint > CSD_FTL_HINT_MAX) return -EINVAL;
    ftl_obj *o = id == f->hidden_id ? NULL : csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    if (offset > o->size || len > UINT64_MAX - offset) return -ERANGE;
    if (len == 0) return 0;
    const uint64_t pb = f->pb, end = offset + len, first = offset / pb, last = (end - 1) / pb;
    if (last >= f->lpages) return -ENOSPC;
    uint64_t np = ftl_obj_pages(f, o), added = last + 1 > np ? last + 1 - np : 0;
    for (uint64_t i = first; i < np && i <= last; i++) added += o->map[i] == MAP_NONE;
    if (host_lused(f) + added > f->lpages) return -ENOSPC;
    if (csd_obj_reserve(o, last + 1)) return -ENOMEM;
    uint64_t gmax = min64(f->group_pages, last - first + 1);
    grp_page *g = malloc((size_t)gmax * sizeof *g);
    if (!g) return -ENOMEM;
    const uint8_t *src = data;
    int rc = 0;
    f->cur_hint = hint;   /* for the placement policy (ftl_alloc_host), this write's pages only */
    f->cur_bytes = len;
    for (uint64_t g0 = first; !rc && g0 <= last; g0 += gmax) {
        uint64_t g1 = min64(last, g0 + gmax - 1);
        uint64_t size_after = max64(o->size, min64(end, (g1 + 1) * pb));
        uint32_t n = 0;
        for (uint64_t i = g0; i <= g1; i++) {
            uint64_t ps = i * pb, lo = max64(ps, offset), hi = min64(ps + pb, end);
            uint8_t *buf = ftl_run_slot(f, &f->hrun);
            f->op_set = i + 1;
            int zero_page = !src && lo == ps && hi == ps + pb;
            if (zero_page) {
                /* filled below, once it is known whether the page is written at all */
            } else if (lo == ps && hi == ps + pb) {
                memcpy(buf, src + (ps - offset), pb);
            } else {
                uint64_t e = o->map[i];
                if (map_is_data(e)) {
                    rc = f->map->lookup(f->map_state, f, o->id, i, ops);
                    /* a map cache's write-back may have let GC move the page: look again */
                    if (!rc) rc = read_checked(f, o->map[i], buf, ops);
                    if (rc) break;
                } else {
                    memset(buf, 0, pb);
                }
                if (src) memcpy(buf + (lo - ps), src + (lo - offset), hi - lo);
                else memset(buf + (lo - ps), 0, hi - lo);
            }
            uint64_t ppn;
            f->cur_update = map_is_data(o->map[i]);
            rc = ftl_alloc_host(f, ops, &ppn);
            if (rc) break;
            /* a page of zeros where the store reads zeros already is not written */
            int elide = zero_page && csd_store_fresh_zero(f->st, ppn);
            if (zero_page && (!elide || !f->zero_crc_set)) memset(buf, 0, pb);
            if (zero_page && !f->zero_crc_set) {
                f->zero_crc = csd_crc32(0, buf, pb);
                f->zero_crc_set = 1;
            }
            g[n++] = (grp_page){ i, ppn, zero_page ? f->zero_crc : csd_crc32(0, buf, pb),
                                 (uint32_t)min64(pb, size_after - ps) };
            if (!elide) rc = ftl_run_add(f, &f->hrun, ppn);
            else f->c.zero_pages_unstored++;
            if (rc) break;
            f->op_set = i + 1;   /* GC in the allocation may have served other pages */
            ftl_op(f, ops, CSD_FLASH_PROGRAM, 0, ppn);
        }
        int rf = ftl_run_flush(f, &f->hrun);   /* the group's data before its records */
        if (!rc) rc = rf;
        if (rc) {
            group_rollback(f, g, n, 0, 0);
            break;
        }
        rc = group_commit(f, o, g, n, CSD_OOB_DATA, size_after, ops);
        if (!rc) f->c.host_pages_written += n;
    }
    f->cur_hint = 0;
    f->cur_bytes = 0;
    f->cur_update = 0;
    free(g);
    return rc;
}

int csd_ftl_write_hint(csd_ftl *f, uint64_t id, uint64_t offset, const void *data, size_t len, uint32_t hint,
                       csd_flash_batch *ops) {
    if (len && !data) return -EINVAL;
    return write_pages(f, id, offset, data, len, hint, ops);
}

int csd_ftl_write_zeroes(csd_ftl *f, uint64_t id, uint64_t offset, size_t len, uint32_t hint, csd_flash_batch *ops) {
    return write_pages(f, id, offset, NULL, len, hint, ops);
}

int csd_ftl_read(csd_ftl *f, uint64_t id, uint64_t offset, void *buf, size_t len, csd_flash_batch *ops) {
    ftl_obj *o = id == f->hidden_id ? NULL : csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    if (offset > o->size || len > o->size - offset) return -ERANGE;
    if (len == 0) return 0;
    if (!buf) return -EINVAL;
    const uint64_t pb = f->pb, end = offset + len;
    uint8_t *dst = buf;
    for (uint64_t i = offset / pb; i <= (end - 1) / pb; i++) {
        uint64_t ps = i * pb, lo = max64(ps, offset), hi = min64(ps + pb, end);
        uint64_t e = i < o->cap ? o->map[i] : MAP_NONE;
        uint8_t *out = dst + (lo - offset);
        if (!map_is_data(e)) {
            memset(out, 0, hi - lo);   /* trimmed */
            continue;
        }
        int whole = lo == ps && hi == ps + pb;
        f->op_set = i + 1;
        int rc = f->map->lookup(f->map_state, f, o->id, i, ops);
        /* a map cache's write-back may have let GC move the page: look again */
        if (!rc) rc = read_checked(f, o->map[i], whole ? out : f->pagebuf, ops);
        if (rc) return rc;
        if (!whole) memcpy(out, f->pagebuf + (lo - ps), hi - lo);
        f->c.host_pages_read++;
    }
    return 0;
}

static int trim_obj(csd_ftl *f, ftl_obj *o, uint64_t offset, uint64_t len, csd_flash_batch *ops);

int csd_ftl_trim(csd_ftl *f, uint64_t id, uint64_t offset, uint64_t len, csd_flash_batch *ops) {
    if (f->broken) return -EIO;
    ftl_obj *o = id == f->hidden_id ? NULL : csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    return trim_obj(f, o, offset, len, ops);
}

int ftl_trim_internal(csd_ftl *f, ftl_obj *o, uint64_t first, uint64_t n) {
    if (f->broken) return -EIO;
    return first * f->pb > o->size ? 0 : trim_obj(f, o, first * f->pb, n * f->pb, NULL);
}

int ftl_write_internal(csd_ftl *f, ftl_obj *o, uint64_t idx, const void *page, csd_flash_batch *ops, uint64_t *ppn) {
    if (f->broken) return -EIO;
    if (idx >= f->lpages) return -ENOSPC;
    if (csd_obj_reserve(o, idx + 1)) return -ENOMEM;
    grp_page g = { .idx = idx, .crc = csd_crc32(0, page, f->pb), .valid = f->pb };
    int rc = ftl_alloc_host(f, ops, &g.ppn);
    if (rc) return rc;
    rc = csd_store_write_data(f->st, g.ppn, page);
    if (rc) {
        group_rollback(f, &g, 1, 0, 0);
        return rc;
    }
    rc = group_commit(f, o, &g, 1, CSD_OOB_DATA, max64(o->size, (idx + 1) * f->pb), ops);
    if (!rc) *ppn = g.ppn;
    return rc;
}

static int trim_obj(csd_ftl *f, ftl_obj *o, uint64_t offset, uint64_t len, csd_flash_batch *ops) {
    if (offset > o->size) return -ERANGE;
    const uint64_t pb = f->pb, np = ftl_obj_pages(f, o);
    uint64_t end = len > UINT64_MAX - offset ? UINT64_MAX : offset + len;
    /* a range reaching the end of the object covers its partial last page too */
    uint64_t lim = (end >= o->size ? np * pb : end) / pb;
    uint64_t i = (offset + pb - 1) / pb;
    grp_page *g = malloc((size_t)min64(f->group_pages, lim > i ? lim - i : 1) * sizeof *g);
    if (!g) return -ENOMEM;
    int rc = 0;
    f->cur_bytes = len;   /* tombstones are placed as a request of the trimmed length, without a hint */
    while (!rc && i < lim) {
        uint32_t n = 0;
        for (; i < lim && n < f->group_pages; i++) {
            if (!map_is_data(o->map[i])) continue;   /* already trimmed */
            uint64_t ppn;
            rc = ftl_alloc_host(f, ops, &ppn);
            if (rc) break;
            /* a tombstone takes a page slot but writes no data: the page stays a hole */
            g[n++] = (grp_page){ i, ppn, 0, (uint32_t)min64(pb, o->size - i * pb) };
            f->op_set = i + 1;
            ftl_op(f, ops, CSD_FLASH_PROGRAM, 0, ppn);
        }
        if (rc) {
            group_rollback(f, g, n, 0, 0);
            break;
        }
        if (n) rc = group_commit(f, o, g, n, CSD_OOB_TOMBSTONE, o->size, ops);
        if (!rc) f->c.trimmed_pages += n;
    }
    f->cur_bytes = 0;
    free(g);
    return rc;
}

int csd_ftl_translate(csd_ftl *f, uint64_t id, uint64_t page_index, csd_flash_batch *ops, uint64_t *ppn) {
    *ppn = csd_ftl_lookup(f, id, page_index);
    f->op_set = page_index + 1;
    if (*ppn == CSD_PPN_NONE) return 0;
    size_t before = ops ? ops->n : 0;
    int rc = f->map->lookup(f->map_state, f, id, page_index, ops);
    *ppn = csd_ftl_lookup(f, id, page_index);   /* GC may have moved it meanwhile */
    /* a map-cached FTL: the translation is part of a command set; the data read closes it (and
     * carries a delay on an earlier request's map command) */
    if (!rc && ops && f->hidden_id && (ops->n > before || (f->op_wait && f->op_wait_set == f->op_set)))
        ftl_op(f, ops, CSD_FLASH_READ, 0, *ppn);
    f->op_wait = 0;
    return rc;
}

uint64_t csd_ftl_lookup(const csd_ftl *f, uint64_t id, uint64_t page_index) {
    const ftl_obj *o = csd_objtab_by_id(&f->tab, id);
    if (!o || page_index >= o->cap || page_index >= ftl_obj_pages(f, o)) return CSD_PPN_NONE;
    uint64_t e = o->map[page_index];
    return map_is_data(e) ? e : CSD_PPN_NONE;
}

/* A live data page's bytes must match the CRC its record carries (tombstones and garbage have
 * nothing to check against). */
static int live_ppn(const csd_ftl *f, uint64_t ppn) {
    if (f->pstate[ppn] != PG_VALID) return 0;
    const ftl_obj *o = csd_objtab_by_id(&f->tab, f->rev_id[ppn]);
    uint32_t idx = f->rev_idx[ppn];
    return o && idx < o->cap && o->map[idx] == ppn;
}

static int verify_ppn(const csd_ftl *f, uint64_t ppn, const uint8_t *page) {
    return live_ppn(f, ppn) && csd_crc32(0, page, f->pb) != f->pcrc[ppn] ? -EIO : 0;
}

/* A view's page with its CRC already known: the compare first; equal, the page passes whether live or
 * not, and the liveness lookup (object table, map) is skipped. A scan's pages are live, so the CRC is
 * worth computing before knowing. */
static int verify_crc(const csd_ftl *f, uint64_t ppn, uint32_t crc) {
    return crc != f->pcrc[ppn] && live_ppn(f, ppn) ? -EIO : 0;
}

int csd_ftl_read_ppn(csd_ftl *f, uint64_t ppn, void *buf) {
    if (ppn >= f->physical || !buf) return -EINVAL;
    int rc = csd_store_read_data(f->st, ppn, 0, buf, f->pb);
    return rc ? rc : verify_ppn(f, ppn, buf);
}

const uint8_t *csd_ftl_view_ppn(csd_ftl *f, uint64_t ppn, int *rc) {
    *rc = 0;
    if (ppn >= f->physical) {
        *rc = -EINVAL;
        return NULL;
    }
    uint32_t crc;
    /* the reader thread's copy carries its CRC, computed there; the check against the record is the
     * same as below */
    const uint8_t *page = csd_store_reader_view(f->st, ppn, &crc);
    if (page) return (*rc = verify_crc(f, ppn, crc)) != 0 ? NULL : page;
    page = csd_store_data_view(f->st, ppn, rc);
    if (page && (*rc = verify_crc(f, ppn, csd_crc32(0, page, f->pb))) != 0) return NULL;
    return page;
}

int csd_ftl_reader_start(csd_ftl *f) { return csd_store_reader_start(f->st); }

void csd_ftl_reader_post(csd_ftl *f, const uint64_t *ppns, size_t n) { csd_store_reader_post(f->st, ppns, n); }

void csd_ftl_reader_stats(csd_ftl *f, csd_store_reader_stats *st) { csd_store_reader_stats_get(f->st, st); }

int csd_ftl_extend(csd_ftl *f, uint64_t id, uint64_t size, csd_flash_batch *ops) {
    if (f->broken) return -EIO;
    ftl_obj *o = csd_objtab_by_id(&f->tab, id);
    if (!o) return -ENOENT;
    if (size < o->size) return -ERANGE;
    if (size == o->size) return 0;
    const uint64_t pb = f->pb, last = (size - 1) / pb;
    if (last >= f->lpages) return -ENOSPC;
    /* growing inside the last page would need its record rewritten: not what a namespace needs */
    if (last < ftl_obj_pages(f, o)) return -EINVAL;
    if (host_lused(f) + 1 > f->lpages) return -ENOSPC;
    if (csd_obj_reserve(o, last + 1)) return -ENOMEM;
    /* a tombstone on the new last page carries the size across a crash (recovery derives sizes from
     * records) and keeps every page before it a hole that reads as zeros */
    grp_page g;
    uint64_t ppn;
    int rc = ftl_alloc_host(f, ops, &ppn);
    if (rc) return rc;
    g = (grp_page){ last, ppn, 0, (uint32_t)(size - last * pb) };
    ftl_op(f, ops, CSD_FLASH_PROGRAM, 0, ppn);
    return group_commit(f, o, &g, 1, CSD_OOB_TOMBSTONE, size, ops);
}
