/* Mapping policy "dftl": a map cache (DRS paper II-A, after DFTL and dual-granularity caching).
 *
 * The whole page-level map is kept in map pages on flash. A map page holds the entries of epp
 * consecutive pages of one object (header: magic, entry count, object id, map page number). The map
 * pages are the pages of one hidden object (its name starts with a control character, so no user name
 * can take it); that object's own in-memory map is the global translation directory (GTD): map page
 * k of the hidden object sits where the GTD says, GC moves it like any page, and recovery finds it
 * from the pages' OOB records like any page. The directory from (object, map page number) to k is
 * rebuilt at open by reading each map page's header.
 *
 * The cached line table (CLT) holds map_cache_bytes / (8 * map_cache_line_entries) lines of
 * map_cache_line_entries entries, replaced least recently used. A miss fetches the line from its map
 * page (cache-line fetch, CLF: map read MR). A dirty victim is written back with a batch update (DLE:
 * MR of its old map page, then map program MP of the page with every dirty line of that page merged
 * in; those lines become clean). Writes update the cached entry and mark the line dirty.
 *
 * Each map operation is tagged; a line remembers the MR that filled it and the MP that last cleaned
 * it, so a later request that hits a line still being fetched, or takes a clean line whose batch
 * update is still being programmed, waits for that command instead of issuing its own (delaying
 * commands, DRS V-B-1, Fig. 6): its batch entries carry the tag (flash.h, command sets).
 *
 * Host RAM keeps a shadow of each map page's bytes (pb bytes per page of the hidden object, about 8
 * bytes per logical page), so a CLF or a batch update's read-modify-program takes the bytes from RAM
 * instead of reading the image; the flash commands and their timing are unchanged (the MR is still
 * issued). The shadow changes exactly when a map page is programmed (GC moving a map page keeps its
 * bytes and its page index k); at open it is filled by reading each map page once.
 *
 * The FTL's in-memory map stays the ground truth (ftl_int.h); check() verifies the cache and the map
 * pages as stored on the image against it: a cached entry equals it, an uncached entry's map page
 * equals it, and every map page's shadow equals its bytes on the image. After a crash the
 * map pages may lag the ground truth (dirty lines are lost): recovered() rewrites every map page that
 * disagrees with what recovery rebuilt from the OOB records (roll forward). */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MP_MAGIC 0x4d544644u   /* "DFTM" */
#define MP_HDR 24u
#define HIDDEN_NAME "\001dftl-map"

/* ---- a small open-addressing map (a, b) -> v ---- */
typedef struct hent { uint64_t a, b, v; uint8_t used; } hent;
typedef struct hmap { hent *e; size_t cap, n; } hmap;

static size_t hm_slot(const hmap *h, uint64_t a, uint64_t b) {
    uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    return (size_t)x & (h->cap - 1);
}

static int hm_get(const hmap *h, uint64_t a, uint64_t b, uint64_t *v) {
    if (!h->cap) return 0;
    for (size_t i = hm_slot(h, a, b);; i = (i + 1) & (h->cap - 1)) {
        if (!h->e[i].used) return 0;
        if (h->e[i].a == a && h->e[i].b == b) {
            *v = h->e[i].v;
            return 1;
        }
    }
}

static int hm_put(hmap *h, uint64_t a, uint64_t b, uint64_t v) {
    if ((h->n + 1) * 2 > h->cap) {
        hmap n = { calloc(h->cap ? h->cap * 2 : 64, sizeof(hent)), h->cap ? h->cap * 2 : 64, 0 };
        if (!n.e) return -ENOMEM;
        for (size_t i = 0; i < h->cap; i++)
            if (h->e[i].used) (void)hm_put(&n, h->e[i].a, h->e[i].b, h->e[i].v);
        free(h->e);
        *h = n;
    }
    size_t i = hm_slot(h, a, b);
    while (h->e[i].used && !(h->e[i].a == a && h->e[i].b == b)) i = (i + 1) & (h->cap - 1);
    if (!h->e[i].used) h->n++;
    h->e[i] = (hent){ a, b, v, 1 };
    return 0;
}

static void hm_del(hmap *h, uint64_t a, uint64_t b) {
    if (!h->cap) return;
    size_t i = hm_slot(h, a, b);
    while (h->e[i].used && !(h->e[i].a == a && h->e[i].b == b)) i = (i + 1) & (h->cap - 1);
    if (!h->e[i].used) return;
    h->e[i].used = 0;
    h->n--;
    /* backward shift: re-place the run after the hole */
    for (size_t j = (i + 1) & (h->cap - 1); h->e[j].used; j = (j + 1) & (h->cap - 1)) {
        hent e = h->e[j];
        h->e[j].used = 0;
        h->n--;
        (void)hm_put(h, e.a, e.b, e.v);
    }
}

/* ---- the cache ---- */
typedef struct line {
    uint64_t obj, lno;          /* entries lno * le .. lno * le + le - 1 of obj */
    uint64_t fill_tag;          /* the MR that fetched it */
    uint64_t clean_tag;         /* the MP that last wrote it back */
    uint32_t prev, next;        /* LRU list: head = most recent */
    uint8_t used, dirty;
} line;

typedef struct pend { uint64_t obj, idx; } pend;

typedef struct dftl {
    csd_ftl *f;
    uint32_t le, epp, nlines;
    line *lines;
    uint64_t *ents;
    uint32_t head, tail, nfree, *freel;
    hmap lmap;                  /* (obj, lno) -> line */
    hmap dir;                   /* (obj, map page) -> page index in the hidden object */
    hmap mptag;                 /* (obj, map page) -> tag of the MP that last programmed it */
    uint64_t next_k, *free_k;
    size_t nfree_k, cap_k;
    int ready, busy;
    pend *pend;
    size_t npend, cap_pend;
    uint8_t *buf, *buf2;
    uint32_t *merged;           /* flush_page: the lines a batch update wrote */
    uint64_t rewritten;         /* map pages rewritten by recovery (roll forward) */
    uint8_t *shadow;            /* bytes of page k of the hidden object at k * pb (valid while it maps data) */
    uint64_t cap_shadow;        /* pages the shadow has room for */
} dftl;

static ftl_obj *hidden(dftl *d) { return csd_objtab_by_id(&d->f->tab, d->f->hidden_id); }
static uint8_t *shadow_of(dftl *d, uint64_t k) { return d->shadow + k * d->f->pb; }

/* Room in the shadow for page k of the hidden object (before it is programmed, so a program never
 * lacks its copy). */
static int shadow_reserve(dftl *d, uint64_t k) {
    if (k < d->cap_shadow) return 0;
    uint64_t cap = d->cap_shadow ? d->cap_shadow : 16;
    while (cap <= k) cap *= 2;
    uint8_t *n = realloc(d->shadow, cap * d->f->pb);
    if (!n) return -ENOMEM;
    d->shadow = n;
    d->cap_shadow = cap;
    return 0;
}
static uint64_t *ents_of(dftl *d, uint32_t li) { return d->ents + (uint64_t)li * d->le; }

static void lru_unlink(dftl *d, uint32_t li) {
    line *l = &d->lines[li];
    if (l->prev != NONE32) d->lines[l->prev].next = l->next; else d->head = l->next;
    if (l->next != NONE32) d->lines[l->next].prev = l->prev; else d->tail = l->prev;
    l->prev = l->next = NONE32;
}

static void lru_front(dftl *d, uint32_t li) {
    line *l = &d->lines[li];
    l->prev = NONE32;
    l->next = d->head;
    if (d->head != NONE32) d->lines[d->head].prev = li; else d->tail = li;
    d->head = li;
}

static uint64_t mp_entry(const uint8_t *page, uint32_t i) {
    uint64_t v;
    memcpy(&v, page + MP_HDR + (size_t)i * 8, 8);
    return v;
}

static void mp_set(uint8_t *page, uint32_t i, uint64_t v) { memcpy(page + MP_HDR + (size_t)i * 8, &v, 8); }

static void mp_blank(dftl *d, uint8_t *page, uint64_t obj, uint64_t mpage) {
    memset(page, 0, d->f->pb);
    uint32_t magic = MP_MAGIC, n = d->epp;
    memcpy(page, &magic, 4);
    memcpy(page + 4, &n, 4);
    memcpy(page + 8, &obj, 8);
    memcpy(page + 16, &mpage, 8);
    for (uint32_t i = 0; i < d->epp; i++) mp_set(page, i, MAP_NONE);
}

/* A map page's header: 0 when it is one of ours, with its object and map page number. */
static int mp_header(dftl *d, const uint8_t *page, uint64_t *obj, uint64_t *mpage) {
    uint32_t magic, n;
    memcpy(&magic, page, 4);
    memcpy(&n, page + 4, 4);
    memcpy(obj, page + 8, 8);
    memcpy(mpage, page + 16, 8);
    return magic == MP_MAGIC && n == d->epp ? 0 : -EBADMSG;
}

/* Map page (obj, mpage) into page, or a blank one when it was never written; its ppn or
 * CSD_PPN_NONE. From the shadow, or (image != 0) from the image. */
static int mp_get(dftl *d, uint64_t obj, uint64_t mpage, uint8_t *page, uint64_t *ppn, int image) {
    uint64_t k;
    *ppn = CSD_PPN_NONE;
    ftl_obj *mo = hidden(d);
    if (!mo || !hm_get(&d->dir, obj, mpage, &k) || k >= mo->cap || !map_is_data(mo->map[k])) {
        mp_blank(d, page, obj, mpage);
        return 0;
    }
    *ppn = mo->map[k];
    if (image) {
        int rc = csd_store_read_data(d->f->st, *ppn, 0, page, d->f->pb);
        if (rc) return rc;
    } else {
        if (k >= d->cap_shadow) return -EIO;
        memcpy(page, shadow_of(d, k), d->f->pb);
    }
    uint64_t o2, m2;
    if (mp_header(d, page, &o2, &m2) || o2 != obj || m2 != mpage) return -EIO;
    return 0;
}

static int mp_read(dftl *d, uint64_t obj, uint64_t mpage, uint8_t *page, uint64_t *ppn) {
    return mp_get(d, obj, mpage, page, ppn, 0);
}

static uint64_t emit(dftl *d, csd_flash_batch *ops, uint8_t kind, uint8_t role, uint64_t ppn, uint64_t set) {
    csd_ftl *f = d->f;
    csd_flash_req r = { .kind = kind, .gc = (uint8_t)(f->in_gc != 0), .ppn = ppn, .tag = ++f->next_tag };
    if (!f->in_gc) {
        r.role = role;
        r.set = set;
    }
    ftl_op_req(f, ops, &r);
    return r.tag;
}

/* Program map page (obj, mpage) with content page; the hidden object's map (the GTD) follows. */
static int free_k_reserve(dftl *d);

static int mp_write(dftl *d, uint64_t obj, uint64_t mpage, const uint8_t *page, csd_flash_batch *ops, uint64_t *ppn) {
    ftl_obj *mo = hidden(d);
    if (!mo) return -EIO;
    int rc0 = free_k_reserve(d);   /* room to give k back if the write fails */
    if (rc0) return rc0;
    uint64_t k;
    int fresh = 0;
    if (!hm_get(&d->dir, obj, mpage, &k)) {
        k = d->nfree_k ? d->free_k[--d->nfree_k] : d->next_k++;
        fresh = 1;
    }
    int rc = shadow_reserve(d, k);
    if (!rc) rc = ftl_write_internal(d->f, mo, k, page, ops, ppn);
    if (rc) {
        if (fresh) d->free_k[d->nfree_k++] = k;   /* room: k came from there or is next_k - 1 */
        /* a failed write may still have moved page k: its shadow follows the image (check() reports
         * a read that fails here) */
        mo = hidden(d);
        if (k < d->cap_shadow && mo && k < mo->cap && map_is_data(mo->map[k]))
            (void)csd_store_read_data(d->f->st, mo->map[k], 0, shadow_of(d, k), d->f->pb);
        return rc;
    }
    memcpy(shadow_of(d, k), page, d->f->pb);
    return fresh ? hm_put(&d->dir, obj, mpage, k) : 0;
}

static int free_k_reserve(dftl *d) {
    if (d->nfree_k + 1 <= d->cap_k) return 0;
    size_t cap = d->cap_k ? d->cap_k * 2 : 64;
    uint64_t *n = realloc(d->free_k, cap * sizeof *n);
    if (!n) return -ENOMEM;
    d->free_k = n;
    d->cap_k = cap;
    return 0;
}

/* Batch update (DFTL): every dirty line of map page (obj, mpage) in one read-modify-program. */
static int flush_page(dftl *d, uint64_t obj, uint64_t mpage, csd_flash_batch *ops, uint64_t set) {
    uint64_t ppn;
    int rc = mp_read(d, obj, mpage, d->buf, &ppn);
    if (rc) return rc;
    if (ppn != CSD_PPN_NONE) emit(d, ops, CSD_FLASH_READ, CSD_ROLE_DLE_MR, ppn, set);
    uint32_t lpp = d->epp / d->le, *merged = d->merged;
    uint32_t nm = 0;
    for (uint32_t j = 0; j < lpp; j++) {
        uint64_t li;
        if (!hm_get(&d->lmap, obj, mpage * lpp + j, &li) || !d->lines[li].dirty) continue;
        memcpy(d->buf + MP_HDR + (size_t)j * d->le * 8, ents_of(d, (uint32_t)li), (size_t)d->le * 8);
        merged[nm++] = (uint32_t)li;
    }
    rc = mp_write(d, obj, mpage, d->buf, ops, &ppn);
    if (rc) return rc;
    uint64_t tag = emit(d, ops, CSD_FLASH_PROGRAM, CSD_ROLE_DLE_MP, ppn, set);
    (void)hm_put(&d->mptag, obj, mpage, tag);   /* a lost entry only loses a delay */
    for (uint32_t i = 0; i < nm; i++) {
        d->lines[merged[i]].dirty = 0;
        d->lines[merged[i]].clean_tag = tag;
    }
    return 0;
}

/* A delay on an earlier request's map command: on this set's entries already in the batch, else
 * on the next operation the FTL reports for the set (ftl_op). */
static void note_wait(dftl *d, csd_flash_batch *ops, uint64_t set, uint64_t tag, uint8_t kind, size_t from) {
    if (!ops || !tag || d->f->in_gc) return;
    for (size_t i = ops->n; i-- > from;) {
        if (ops->ops[i].set == set && !ops->ops[i].gc) {
            ops->ops[i].wait = tag;
            ops->ops[i].wait_kind = kind;
            return;
        }
    }
    for (size_t i = ops->n; i-- > 0;) {
        if (ops->ops[i].set == set && !ops->ops[i].gc && ops->ops[i].role == CSD_ROLE_DATA) {
            ops->ops[i].wait = tag;
            ops->ops[i].wait_kind = kind;
            return;
        }
    }
    d->f->op_wait = tag;
    d->f->op_wait_kind = kind;
    d->f->op_wait_set = set;
}

/* The line holding entry idx of obj, fetched (and a victim evicted) if needed. */
static int ensure_line(dftl *d, uint64_t obj, uint64_t idx, csd_flash_batch *ops, uint32_t *out) {
    uint64_t lno = idx / d->le, li, set = idx + 1;
    size_t from = ops ? ops->n : 0;
    if (hm_get(&d->lmap, obj, lno, &li)) {
        d->f->c.map_hits++;
        lru_unlink(d, (uint32_t)li);
        lru_front(d, (uint32_t)li);
        /* a hit on a line whose fetch may still be running: CLF-delayed (V-C) */
        note_wait(d, ops, set, d->lines[li].fill_tag, CSD_DELAY_CLF, from);
        *out = (uint32_t)li;
        return 0;
    }
    /* A set waits for at most one earlier map command: the latest of those it depends on (they were
     * issued in this order). Reading a map page an earlier batch update is still programming waits
     * for that MP, like taking a line it cleaned (DLE-delayed, V-C). */
    uint64_t wait = 0, t, mpage = lno * d->le / d->epp, flushed = UINT64_MAX;
    d->f->c.map_misses++;
    if (d->nfree) {
        li = d->freel[--d->nfree];
    } else {
        li = d->tail;
        line *v = &d->lines[li];
        if (v->dirty) {
            d->f->c.map_evictions++;
            uint64_t vpage = v->lno * d->le / d->epp;
            if (hm_get(&d->mptag, v->obj, vpage, &t) && t > wait) wait = t;   /* its DLE reads that page */
            int rc = flush_page(d, v->obj, vpage, ops, set);
            if (rc) return rc;
            if (v->obj == obj) flushed = vpage;
        } else if (v->clean_tag > wait) {
            wait = v->clean_tag;   /* a clean line whose batch update may still be programming */
        }
        hm_del(&d->lmap, v->obj, v->lno);
        lru_unlink(d, (uint32_t)li);
        v->used = 0;
    }
    /* the page this set fetches from, unless its own batch update just wrote it (ordered in the set) */
    if (mpage != flushed && hm_get(&d->mptag, obj, mpage, &t) && t > wait) wait = t;
    line *l = &d->lines[li];
    uint64_t ppn;
    int rc = mp_read(d, obj, mpage, d->buf2, &ppn);
    if (!rc) rc = hm_put(&d->lmap, obj, lno, li);
    if (rc) {
        d->freel[d->nfree++] = (uint32_t)li;
        return rc;
    }
    *l = (line){ .obj = obj, .lno = lno, .prev = NONE32, .next = NONE32, .used = 1 };
    memcpy(ents_of(d, (uint32_t)li), d->buf2 + MP_HDR + (size_t)((lno * d->le) % d->epp) * 8, (size_t)d->le * 8);
    if (ppn != CSD_PPN_NONE) l->fill_tag = emit(d, ops, CSD_FLASH_READ, CSD_ROLE_CLF_MR, ppn, set);
    lru_front(d, (uint32_t)li);
    note_wait(d, ops, set, wait, CSD_DELAY_DLE, from);
    *out = (uint32_t)li;
    return 0;
}

static int apply_update(dftl *d, uint64_t obj, uint64_t idx, csd_flash_batch *ops);

/* Updates GC made while a map page was being written, applied now (as GC's traffic). */
static int drain(dftl *d, csd_flash_batch *ops) {
    int rc = 0, gc = d->f->in_gc;
    d->f->in_gc = 1;
    while (!rc && d->npend) {
        pend p = d->pend[--d->npend];
        rc = apply_update(d, p.obj, p.idx, ops);
    }
    d->f->in_gc = gc;
    return rc;
}

static int dftl_lookup(void *state, csd_ftl *f, uint64_t obj, uint64_t idx, csd_flash_batch *ops) {
    dftl *d = state;
    if (!d->ready || obj == f->hidden_id) return 0;
    uint32_t li;
    d->busy = 1;
    int rc = ensure_line(d, obj, idx, ops, &li);
    d->busy = 0;
    return rc ? rc : drain(d, ops);
}

static int apply_update(dftl *d, uint64_t obj, uint64_t idx, csd_flash_batch *ops) {
    ftl_obj *o = csd_objtab_by_id(&d->f->tab, obj);
    if (!o) return 0;   /* gone (forget drops its lines) */
    uint32_t li;
    d->busy = 1;
    int rc = ensure_line(d, obj, idx, ops, &li);
    d->busy = 0;
    if (rc) return rc;
    ents_of(d, li)[idx % d->le] = idx < o->cap ? o->map[idx] : MAP_NONE;
    d->lines[li].dirty = 1;
    return 0;
}

static int dftl_update(void *state, csd_ftl *f, uint64_t obj, uint64_t idx, csd_flash_batch *ops) {
    dftl *d = state;
    if (!d->ready || obj == f->hidden_id) return 0;
    if (d->busy || f->in_gc) {
        /* GC moved a page (maybe while a map page was being written): apply it once GC is done, as
         * GC's traffic, so the map cache never writes (and allocates, and collects) inside GC */
        if (d->npend == d->cap_pend) {
            size_t cap = d->cap_pend ? d->cap_pend * 2 : 64;
            pend *n = realloc(d->pend, cap * sizeof *n);
            if (!n) return -ENOMEM;
            d->pend = n;
            d->cap_pend = cap;
        }
        d->pend[d->npend++] = (pend){ obj, idx };
        return 0;
    }
    int rc = apply_update(d, obj, idx, ops);
    return rc ? rc : drain(d, ops);
}

static int dftl_flush(void *state, csd_ftl *f, csd_flash_batch *ops) {
    dftl *d = state;
    if (!d->ready) return 0;
    for (uint32_t li = 0; li < d->nlines; li++) {
        line *l = &d->lines[li];
        if (!l->used || !l->dirty) continue;
        d->busy = 1;
        int rc = flush_page(d, l->obj, l->lno * d->le / d->epp, ops, 0);
        d->busy = 0;
        if (rc || (rc = drain(d, ops)) != 0) return rc;
        li = (uint32_t)-1;   /* pending updates may have dirtied lines already passed: start over */
    }
    return 0;
}

/* Trim the map pages of obj (or every page listed in ks) from the hidden object. */
static int trim_pages(dftl *d, const uint64_t *ks, size_t n, int apply) {
    ftl_obj *mo = hidden(d);
    int rc = 0;
    d->busy = 1;
    for (size_t i = 0; !rc && i < n; i++) {
        rc = ftl_trim_internal(d->f, mo, ks[i], 1);
        mo = hidden(d);
    }
    d->busy = 0;
    return rc || !apply ? rc : drain(d, NULL);
}

static void dftl_forget(void *state, csd_ftl *f, uint64_t obj) {
    dftl *d = state;
    if (!d->ready) return;
    for (uint32_t li = 0; li < d->nlines; li++) {
        line *l = &d->lines[li];
        if (!l->used || l->obj != obj) continue;
        hm_del(&d->lmap, l->obj, l->lno);
        lru_unlink(d, li);
        l->used = 0;
        d->freel[d->nfree++] = li;
    }
    size_t n = 0;
    uint64_t *ks = calloc(d->dir.n + 1, sizeof *ks);
    if (!ks) return;
    for (size_t i = 0; i < d->dir.cap; i++)
        if (d->dir.e[i].used && d->dir.e[i].a == obj) ks[n++] = d->dir.e[i].v;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d->dir.cap; j++) {
            if (d->dir.e[j].used && d->dir.e[j].a == obj && d->dir.e[j].v == ks[i]) {
                uint64_t mpage = d->dir.e[j].b;
                hm_del(&d->dir, obj, mpage);
                hm_del(&d->mptag, obj, mpage);
                break;
            }
        }
    }
    /* a failed trim leaves a map page whose object is gone: recovery drops it at the next open */
    if (!trim_pages(d, ks, n, 1)) {
        for (size_t i = 0; i < n && !free_k_reserve(d); i++) d->free_k[d->nfree_k++] = ks[i];
    }
    free(ks);
}

static uint64_t truth(const ftl_obj *o, uint64_t idx) { return idx < o->cap ? o->map[idx] : MAP_NONE; }

/* Open: find the hidden object, read every map page's header into the directory, drop map pages of
 * objects that are gone, then rewrite each map page that lags the recovered map. */
static int dftl_recovered(void *state, csd_ftl *f) {
    dftl *d = state;
    ftl_obj *mo = csd_objtab_by_name(&f->tab, HIDDEN_NAME, strlen(HIDDEN_NAME));
    int rc = 0;
    if (!mo) {
        uint64_t id;
        if ((rc = ftl_obj_create_hidden(f, HIDDEN_NAME, &id)) != 0) return rc;
        f->hidden_id = id;
    } else {
        f->hidden_id = mo->id;
    }
    mo = hidden(d);
    uint64_t np = ftl_obj_pages(f, mo);
    uint64_t *drop = calloc(np + 1, sizeof *drop);
    size_t ndrop = 0;
    if (!drop) return -ENOMEM;
    if (np && (rc = shadow_reserve(d, np - 1)) != 0) {
        free(drop);
        return rc;
    }
    for (uint64_t k = 0; k < np; k++) {
        uint64_t e = truth(mo, k), obj, mpage, other;
        if (!map_is_data(e)) {
            if ((rc = free_k_reserve(d)) != 0) break;
            d->free_k[d->nfree_k++] = k;
            continue;
        }
        /* the only read of this map page from the image while the device is open */
        if ((rc = csd_store_read_data(f->st, e, 0, shadow_of(d, k), f->pb)) != 0) break;
        if (mp_header(d, shadow_of(d, k), &obj, &mpage) || obj == f->hidden_id || !csd_objtab_by_id(&f->tab, obj) ||
            hm_get(&d->dir, obj, mpage, &other)) {
            drop[ndrop++] = k;
            continue;
        }
        if ((rc = hm_put(&d->dir, obj, mpage, k)) != 0) break;
    }
    d->next_k = np;
    d->ready = 1;
    /* GC during recovery's writes only queues its updates: they are applied once every map page
     * matches the recovered map, so no line is fetched from a page still to be rewritten */
    if (!rc) rc = trim_pages(d, drop, ndrop, 0);
    for (size_t i = 0; !rc && i < ndrop; i++) {
        if ((rc = free_k_reserve(d)) == 0) d->free_k[d->nfree_k++] = drop[i];
    }
    free(drop);
    /* roll forward: every object's map pages against the recovered map */
    for (uint32_t s = 0; !rc && s < f->tab.nslots; s++) {
        ftl_obj *o = &f->tab.slots[s];
        if (!o->used || o->id == f->hidden_id) continue;
        uint64_t id = o->id, cap = o->cap;
        for (uint64_t mpage = 0; !rc && mpage * d->epp < cap; mpage++) {
            uint64_t ppn;
            if ((rc = mp_read(d, id, mpage, d->buf, &ppn)) != 0) break;
            o = csd_objtab_by_id(&f->tab, id);
            int same = 1;
            for (uint32_t i = 0; i < d->epp; i++) {
                uint64_t t = truth(o, mpage * d->epp + i);
                if (mp_entry(d->buf, i) != t) same = 0;
                mp_set(d->buf, i, t);
            }
            if (same) continue;
            d->busy = 1;
            rc = mp_write(d, id, mpage, d->buf, NULL, &ppn);
            d->busy = 0;
            d->rewritten++;
        }
    }
    return rc ? rc : drain(d, NULL);
}

static int dftl_check(void *state, csd_ftl *f, char *err, size_t errlen) {
    dftl *d = state;
    if (!d->ready) return 0;
    if (d->npend && drain(d, NULL)) {   /* a failed write left GC's updates waiting */
        snprintf(err, errlen, "applying updates GC left: failed");
        return -EIO;
    }
    /* every map page's shadow holds its bytes on the image */
    ftl_obj *mo = hidden(d);
    for (uint64_t k = 0; mo && k < ftl_obj_pages(f, mo); k++) {
        if (k >= mo->cap || !map_is_data(mo->map[k])) continue;
        int rc = k < d->cap_shadow ? csd_store_read_data(f->st, mo->map[k], 0, d->buf2, f->pb) : -ERANGE;
        if (rc) {
            snprintf(err, errlen, "map page %llu: unreadable or not shadowed (%d)", (unsigned long long)k, rc);
            return -EIO;
        }
        if (memcmp(d->buf2, shadow_of(d, k), f->pb)) {
            size_t b = 0;
            while (d->buf2[b] == shadow_of(d, k)[b]) b++;
            snprintf(err, errlen, "map page %llu: shadow differs from the image at byte %zu", (unsigned long long)k, b);
            return -EIO;
        }
    }
    for (uint32_t s = 0; s < f->tab.nslots; s++) {
        ftl_obj *o = &f->tab.slots[s];
        if (!o->used || o->id == f->hidden_id) continue;
        uint64_t lim = o->cap > ftl_obj_pages(f, o) ? o->cap : ftl_obj_pages(f, o);
        for (uint64_t mpage = 0; mpage * d->epp < lim; mpage++) {
            uint64_t ppn;
            int rc = mp_get(d, o->id, mpage, d->buf2, &ppn, 1);   /* as stored on the image */
            if (rc) {
                snprintf(err, errlen, "object %llu map page %llu: unreadable (%d)", (unsigned long long)o->id,
                         (unsigned long long)mpage, rc);
                return -EIO;
            }
            for (uint32_t i = 0; i < d->epp; i++) {
                uint64_t idx = mpage * d->epp + i, t = truth(o, idx), flash = mp_entry(d->buf2, i), li;
                int cached = hm_get(&d->lmap, o->id, idx / d->le, &li);
                uint64_t c = cached ? ents_of(d, (uint32_t)li)[idx % d->le] : flash;
                const char *what = NULL;
                if (c != t) what = cached ? "cached entry" : "map page entry";
                else if (cached && !d->lines[li].dirty && flash != c) what = "clean line vs its map page";
                if (what) {
                    snprintf(err, errlen, "object %llu page %llu: %s %llx, map %llx (flash %llx)",
                             (unsigned long long)o->id, (unsigned long long)idx, what, (unsigned long long)c,
                             (unsigned long long)t, (unsigned long long)flash);
                    return -EIO;
                }
            }
        }
    }
    return 0;
}

static void dftl_destroy(void *state) {
    dftl *d = state;
    if (!d) return;
    free(d->lines);
    free(d->ents);
    free(d->freel);
    free(d->lmap.e);
    free(d->dir.e);
    free(d->mptag.e);
    free(d->free_k);
    free(d->pend);
    free(d->buf);
    free(d->buf2);
    free(d->merged);
    free(d->shadow);
    free(d);
}

static int dftl_init(void **state, csd_ftl *f) {
    *state = NULL;
    uint32_t le = f->p.map_cache_line_entries;
    uint32_t per_page = (f->pb - MP_HDR) / 8;
    if (le == 0 || le > per_page) return -EINVAL;
    dftl *d = calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    d->f = f;
    d->le = le;
    d->epp = per_page / le * le;   /* whole lines per map page */
    uint64_t n = f->p.map_cache_bytes / (8ull * le);
    d->nlines = n ? (uint32_t)(n > (1u << 24) ? (1u << 24) : n) : 1;
    d->lines = calloc(d->nlines, sizeof *d->lines);
    d->ents = calloc((size_t)d->nlines * le, 8);
    d->freel = malloc(d->nlines * sizeof *d->freel);
    d->buf = malloc(f->pb);
    d->buf2 = malloc(f->pb);
    d->merged = malloc((d->epp / le) * sizeof *d->merged);
    if (!d->lines || !d->ents || !d->freel || !d->buf || !d->buf2 || !d->merged) {
        dftl_destroy(d);
        return -ENOMEM;
    }
    d->head = d->tail = NONE32;
    for (uint32_t i = 0; i < d->nlines; i++) d->freel[d->nfree++] = d->nlines - 1 - i;
    *state = d;
    return 0;
}

const csd_map_ops csd_map_dftl = {
    .name = "dftl", .own_objects = 1, .init = dftl_init, .lookup = dftl_lookup, .update = dftl_update, .flush = dftl_flush,
    .destroy = dftl_destroy, .recovered = dftl_recovered, .forget = dftl_forget, .check = dftl_check,
};
