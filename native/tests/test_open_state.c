/* The state an open recovers (csd_ftl_open), against a brute-force recomputation from the raw OOB
 * records. Random images: objects written, overwritten, trimmed, extended and deleted on a small
 * device until GC moves pages, then records added or removed behind the FTL's back: the newest write
 * group cut short (a crash), GC copies of a record that are newer, equal (a duplicate) or older,
 * orphans (an object not in the table), pages past the capacity, records with a bad checksum, a
 * newest group reaching back over groups seen before it (recovery's one pass must then start over),
 * copies dated later than their original. The reference takes the scan's verdicts (ACCEPT or not; test_scan_oob checks those against its own
 * reference) and from the accepted records alone, by pairwise comparison, derives every page's
 * state, object, index, CRC and hint, each block's valid count and write pointer, each object's map,
 * size, mtime, data/tombstone/stale counts, the pages in use and each unit's free lists. */
#include "check.h"
#include "ftl/ftl.h"
#include "ftl/ftl_int.h"
#include "store/store.h"

#include <errno.h>

#define CAP (2u * 1024u * 1024u)
#define MAXREC 8192
#define MAXOBJ 64

typedef struct arec { uint64_t ppn; csd_oob r; } arec;
typedef struct acc { arec a[MAXREC]; int n; uint8_t any[MAXREC]; } acc;   /* any: non-empty, by ppn */
static int n_stale, n_tie, n_newer, n_orphan, n_rollback, n_gc, n_drop, n_reach, n_mtime;

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void on_record(void *arg, uint64_t ppn, const csd_oob *r, int scan, int oob) {
    (void)oob;
    acc *g = arg;
    CHECK(ppn < MAXREC);
    g->any[ppn] = 1;
    n_rollback += scan == SCAN_ROLLBACK;
    if (scan != SCAN_ACCEPT) return;
    CHECK(g->n < MAXREC);
    g->a[g->n++] = (arec){ ppn, *r };
}

/* a beats b: newer seq, or the same seq and more copies (a later GC copy) */
static int beats(const csd_oob *a, const csd_oob *b) {
    return a->seq != b->seq ? a->seq > b->seq : a->copies > b->copies;
}

static void workload(const char *img, uint64_t *rs) {
    csd_ftl *f;
    char err[256];
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    const uint32_t pb = f->pb;
    static uint8_t buf[16 * 4096];
    uint64_t ids[8] = { 0 };
    for (int op = 0; op < 300; op++) {
        int k = (int)(rnd(rs) % 8);
        if (!ids[k]) {
            char name[32];
            snprintf(name, sizeof name, "o%d.%d", k, op);
            (void)csd_ftl_obj_create(f, name, &ids[k]);
            continue;
        }
        csd_obj_info info;
        CHECK(csd_ftl_obj_stat(f, ids[k], &info) == 0);
        uint64_t size = info.size;
        switch (rnd(rs) % 10) {
        case 0:   /* its records become orphans */
            CHECK(csd_ftl_obj_delete(f, ids[k]) == 0);
            ids[k] = 0;
            break;
        case 1:
            if (size) (void)csd_ftl_trim(f, ids[k], rnd(rs) % size, rnd(rs) % (4 * pb), NULL);
            break;
        case 2:
            (void)csd_ftl_extend(f, ids[k], (size / pb + 1 + rnd(rs) % 6) * pb + 1 + rnd(rs) % (pb - 1), NULL);
            break;
        default: {
            uint64_t off = size ? rnd(rs) % (size + 1) : 0, len = 1 + rnd(rs) % sizeof buf;
            memset(buf, (int)(op & 0xff), (size_t)len);
            (void)csd_ftl_write(f, ids[k], off, buf, (size_t)len, NULL);
        }
        }
    }
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    n_gc += c.gc_pages_moved > 0;
    CHECK(csd_ftl_close(f) == 0);
}

/* Records written behind the FTL's back into empty pages. */
static void tamper(csd_store *s, uint64_t *rs, uint64_t lpages) {
    const uint64_t total = s->l.physical_pages;
    CHECK(total <= MAXREC);
    static uint8_t raw[MAXREC * CSD_OOB_BYTES];
    CHECK(csd_store_read_oob(s, 0, total, raw) == 0);
    csd_oob rec[MAXREC];
    int ok[MAXREC], nok = 0;
    uint64_t newest = 0, newest_ppn = 0;
    for (uint64_t p = 0; p < total; p++) {
        ok[p] = csd_oob_decode(raw + p * CSD_OOB_BYTES, s->l.page_bytes, &rec[p]) == CSD_OOB_OK;
        nok += ok[p];
        if (ok[p] && rec[p].seq > newest) {
            newest = rec[p].seq;
            newest_ppn = p;
        }
    }
    if (!nok) return;
    /* a crash: one page of the newest group never got its record */
    if (rnd(rs) % 2 && rec[newest_ppn].op_pages > 1) {
        uint64_t p = rnd(rs) % total;
        for (uint64_t i = 0; i < total; i++, p = (p + 1) % total)
            if (ok[p] && rec[p].op_first == rec[newest_ppn].op_first && rec[p].seq != newest) {
                CHECK(csd_store_erase(s, p, 1) == 0);
                ok[p] = 0;
                break;
            }
    }
    int adds = (int)(rnd(rs) % 12);
    for (int a = 0; a < adds; a++) {
        uint64_t src = rnd(rs) % total, dst = rnd(rs) % total;
        while (!ok[src]) src = (src + 1) % total;
        int tries = 0;
        while (raw[dst * CSD_OOB_BYTES] != 0 && tries++ < (int)total) dst = (dst + 1) % total;   /* magic's first byte */
        if (raw[dst * CSD_OOB_BYTES] != 0) return;
        csd_oob r = rec[src];
        uint8_t out[CSD_OOB_BYTES];
        if (rnd(rs) % 2) r.time_ms += 1000 + rnd(rs) % 999;   /* which of equal seqs is the newest shows */
        switch (rnd(rs) % 7) {
        case 0: r.copies++; break;                            /* a later GC copy */
        case 1: break;                                        /* a duplicate */
        case 6:   /* a newest group reaching back over groups already seen, at the last empty page */
            dst = total - 1;
            while (dst && raw[dst * CSD_OOB_BYTES] != 0) dst--;
            if (raw[dst * CSD_OOB_BYTES] != 0) return;
            r.seq = newest + 1;
            r.op_pages = (uint32_t)(total < r.seq ? total : r.seq);
            r.op_first = r.seq + 1 - r.op_pages;
            r.copies = 0;
            newest = r.seq;
            n_reach++;
            break;
        case 2: if (r.copies) r.copies--; break;              /* an earlier one */
        case 3: r.obj += 1000; break;                         /* no such object */
        case 4: r.page = lpages + rnd(rs) % 4; break;         /* past the capacity */
        case 5: r.kind = r.kind == CSD_OOB_DATA ? CSD_OOB_TOMBSTONE : CSD_OOB_DATA; break;
        }
        csd_oob_encode(out, &r);
        if (rnd(rs) % 10 == 0) out[20] ^= 1;                  /* checksum mismatch */
        CHECK(csd_store_write_oob_run(s, dst, 1, out) == 0);
        memcpy(raw + dst * CSD_OOB_BYTES, out, CSD_OOB_BYTES);
    }
}

static void round_(const char *img, const csd_params *p, uint64_t *rs) {
    char err[256];
    CHECK(csd_ftl_format(img, CAP, p, err, sizeof err) == 0);
    workload(img, rs);

    csd_store *s;
    csd_params sp;
    CHECK(csd_store_open(&s, img, 1, &sp, err, sizeof err) == 0);
    const uint64_t total = s->l.physical_pages, ppb = s->l.pages_per_block, pb = s->l.page_bytes;
    const uint64_t lpages = s->l.capacity / pb;
    tamper(s, rs, lpages);
    /* the newest metadata slot: the table's ids and the rolled-back ranges */
    csd_meta m[2];
    char why[128];
    int okm[2];
    for (int i = 0; i < 2; i++) okm[i] = csd_meta_read(s, i, &m[i], why, sizeof why) == 0;
    CHECK(okm[0] || okm[1]);
    const csd_meta *cm = okm[0] && okm[1] ? &m[m[1].seq > m[0].seq] : &m[okm[1]];
    static acc g;
    memset(&g, 0, sizeof g);
    csd_scan_info in;
    CHECK(csd_scan_oob(s, cm->voids, cm->n_void, on_record, &g, &in) == 0);
    uint64_t tids[MAXOBJ], tmtime[MAXOBJ], next_seq = cm->next_seq ? cm->next_seq : 1;
    uint32_t nobj = cm->n_obj;
    CHECK(nobj <= MAXOBJ);
    for (uint32_t i = 0; i < nobj; i++) {
        tids[i] = cm->objs[i].id;
        tmtime[i] = cm->objs[i].mtime_ms;
    }
    for (int i = 0; i < 2; i++)
        if (okm[i]) csd_meta_free(&m[i]);
    csd_store_close(s);

    /* the reference */
    static uint8_t est[MAXREC], ehint[MAXREC];
    static uint64_t erid[MAXREC];
    static uint32_t eridx[MAXREC], ecrc[MAXREC];
    memset(est, PG_FREE, sizeof est);
    memset(ehint, 0, sizeof ehint);
    memset(erid, 0, sizeof erid);
    memset(eridx, 0, sizeof eridx);
    memset(ecrc, 0, sizeof ecrc);
    for (uint64_t q = 0; q < total; q++)
        if (g.any[q]) est[q] = PG_DEAD;
    static int win[MAXREC];
    for (int i = 0; i < g.n; i++) {
        const arec *x = &g.a[i];
        ehint[x->ppn] = x->r.hint;
        int known = 0;
        for (uint32_t o = 0; o < nobj; o++) known |= tids[o] == x->r.obj;
        win[i] = -1;
        if (!known || x->r.page >= lpages) {
            n_orphan++;
            continue;
        }
        /* it wins when no record of its page beats it and none before it in the scan's order ties it */
        int w = 1;
        for (int j = 0; j < g.n && w; j++) {
            const arec *y = &g.a[j];
            if (j == i || y->r.obj != x->r.obj || y->r.page != x->r.page) continue;
            if (beats(&y->r, &x->r) || (j < i && !beats(&x->r, &y->r))) w = 0;
        }
        win[i] = w;
        if (w) {
            est[x->ppn] = PG_VALID;
            erid[x->ppn] = x->r.obj;
            eridx[x->ppn] = (uint32_t)x->r.page;
            ecrc[x->ppn] = x->r.data_crc;
        } else if (x->r.kind == CSD_OOB_DATA) {
            est[x->ppn] = PG_STALE;
            erid[x->ppn] = x->r.obj;
            eridx[x->ppn] = (uint32_t)x->r.page;
            n_stale++;
        }
        for (int j = 0; j < i; j++)
            if (g.a[j].r.obj == x->r.obj && g.a[j].r.page == x->r.page) {
                n_tie += !beats(&x->r, &g.a[j].r) && !beats(&g.a[j].r, &x->r);
                n_newer += beats(&x->r, &g.a[j].r);
            }
    }
    csd_ftl *f;
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    uint64_t lused = 0;
    for (uint32_t k = 0; k < nobj; k++) {
        const ftl_obj *o = csd_objtab_by_id(&f->tab, tids[k]);
        CHECK(o != NULL);
        uint64_t size = 0, data = 0, tomb = 0;
        for (int i = 0; i < g.n; i++)
            if (win[i] == 1 && g.a[i].r.obj == tids[k] && g.a[i].r.page * pb + g.a[i].r.valid_bytes > size)
                size = g.a[i].r.page * pb + g.a[i].r.valid_bytes;
        CHECK_EQ_U64(o->size, size);
        uint64_t pages = (size + pb - 1) / pb;
        for (uint64_t pg = 0; pg < lpages; pg++) {
            uint64_t want = MAP_NONE;
            uint32_t stale = 0;
            for (int i = 0; i < g.n; i++) {
                const arec *x = &g.a[i];
                if (x->r.obj != tids[k] || x->r.page != pg || win[i] < 0) continue;
                if (win[i]) want = x->ppn | (x->r.kind == CSD_OOB_DATA ? 0 : MAP_TOMB);
                else stale += x->r.kind == CSD_OOB_DATA;
            }
            /* a tombstone stays while an older data version does, or while it is the last page */
            if (map_is_tomb(want) && !stale && pg + 1 < pages) {
                est[map_ppn(want)] = PG_DEAD;   /* its other fields stay as they were */
                want = MAP_NONE;
                n_drop++;
            }
            CHECK_EQ_U64(pg < o->cap ? o->map[pg] : MAP_NONE, want);
            CHECK_EQ_U64(pg < o->cap ? o->stale[pg] : 0, stale);
            data += want != MAP_NONE && map_is_data(want);
            tomb += map_is_tomb(want);
        }
        /* its newest accepted record (of equal seqs the scan's last) dates a write after the table's save */
        uint64_t nseq = 0, nms = 0, mtime = tmtime[k];
        for (int i = 0; i < g.n; i++)
            if (g.a[i].r.obj == tids[k] && g.a[i].r.seq >= nseq) {
                nseq = g.a[i].r.seq;
                nms = g.a[i].r.time_ms;
            }
        if (nms && nseq >= next_seq) {
            mtime = nms;
            n_mtime++;
        }
        CHECK_EQ_U64(o->mtime_ms, mtime);
        CHECK_EQ_U64(o->data_pages, data);
        CHECK_EQ_U64(o->tomb_pages, tomb);
        lused += data + tomb;
    }
    CHECK_EQ_U64(f->tab.count, nobj);
    CHECK_EQ_U64(f->lused, lused);
    uint64_t free_blocks = 0;
    for (uint64_t b = 0; b < f->nblocks; b++) {
        uint32_t valid = 0, wp = 0;
        for (uint64_t q = b * ppb; q < (b + 1) * ppb; q++) {
            if (g.any[q]) wp = (uint32_t)(q - b * ppb + 1);
            valid += est[q] == PG_VALID;
        }
        for (uint64_t q = b * ppb; q < b * ppb + wp; q++)
            if (est[q] == PG_FREE) est[q] = PG_DEAD;   /* a gap below the write pointer */
        CHECK_EQ_U64(f->bwp[b], wp);
        CHECK_EQ_U64(f->bvalid[b], valid);
        CHECK_EQ_INT(f->bstate[b] == BLK_FREE, wp == 0);
        free_blocks += wp == 0;
    }
    CHECK_EQ_U64(f->free_blocks, free_blocks);
    /* each unit's free lists, one per cell region: its free blocks in block order */
    for (uint32_t u = 0; u < f->units; u++)
        for (int r = 0; r < FTL_REGIONS; r++) {
            uint32_t q = u * FTL_REGIONS + (uint32_t)r, n = 0;
            for (uint32_t b = u * f->bpp; b < (u + 1) * f->bpp; b++) {
                if (f->bwp[b] || ftl_block_region(f, b) != r) continue;
                CHECK(n < f->nfree[q]);
                CHECK_EQ_U64(f->fq[(uint64_t)q * f->bpp + n], b);
                n++;
            }
            CHECK_EQ_U64(f->nfree[q], n);
        }
    for (uint64_t q = 0; q < total; q++) {
        CHECK_EQ_INT(f->pstate[q], est[q]);
        CHECK_EQ_U64(f->rev_id[q], erid[q]);
        CHECK_EQ_U64(f->rev_idx[q], eridx[q]);
        CHECK_EQ_U64(f->pcrc[q], ecrc[q]);
        CHECK_EQ_INT(f->phint[q], ehint[q]);
    }
    CHECK(csd_ftl_close(f) == 0);
}

int main(void) {
    const char *dir = csd_test_dir("open_state");
    char img[4200];
    snprintf(img, sizeof img, "%s/state.img", dir);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    uint64_t rs = 0x0b5e55edull;
    for (int r = 0; r < 60; r++) round_(img, &p, &rs);
    printf("test_open_state: gc %d, stale %d, ties %d, newer %d, orphans %d, rollback %d, dropped tombs %d, "
           "groups reaching back %d, mtimes from records %d\n",
           n_gc, n_stale, n_tie, n_newer, n_orphan, n_rollback, n_drop, n_reach, n_mtime);
    /* every case came up */
    CHECK(n_gc > 10 && n_stale > 10 && n_tie > 3 && n_newer > 10 && n_orphan > 10 && n_rollback > 3 && n_drop > 3 &&
          n_reach > 3 && n_mtime > 10);
    unlink(img);
    rmdir(dir);
    printf("test_open_state: ok\n");
    return 0;
}
