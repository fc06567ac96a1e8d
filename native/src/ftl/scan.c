/* The OOB scan behind recovery and check. Two passes over the records:
 *  1. find the newest well-formed record that is not in a rolled-back range: its write group is the
 *     only one a crash can have left half-written (groups are written one after the other);
 *  2. hand every record to the caller, holding back that newest group's records until we know
 *     whether all of its pages are present (ACCEPT) or not (ROLLBACK).
 * Pass 2 trusts pass 1's checks (a status byte per page): a record's CRC is computed once. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int csd_seq_voided(const csd_void_range *v, uint32_t n, uint64_t seq) {
    uint32_t lo = 0, hi = n;   /* ranges are sorted and disjoint */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (seq < v[mid].from) hi = mid;
        else if (seq >= v[mid].to) lo = mid + 1;
        else return (int)mid;
    }
    return -1;
}

typedef struct pending { uint64_t ppn; csd_oob r; } pending;

/* Calls visit(arg, ppn, status, &rec) for every non-empty record of the area (total of them; those
 * outside its runs are holes, all empty). status[ppn]
 * keeps each record's status from the first pass (fill = 1); the second pass (fill = 0) decodes only
 * the records found well-formed, without checking them again (the image does not change between the
 * passes: the caller holds it), and skips the empty ones. */
static void each_record(const csd_oob_area *a, uint64_t total, uint32_t page_bytes, uint8_t *status, int fill,
                        void (*visit)(void *, uint64_t, int, const csd_oob *), void *arg) {
    for (size_t run = 0; run < a->nruns; run++) {
        const uint64_t end = a->runs[run][1] < total ? a->runs[run][1] : total;
        for (uint64_t i = a->runs[run][0]; i < end; i++) {
            const uint8_t *in = a->recs + i * CSD_OOB_BYTES;
            csd_oob r;
            int st;
            if (fill) {
                st = csd_oob_decode(in, page_bytes, &r);
                if (st == CSD_OOB_OK && r.op_pages > total) st = CSD_OOB_BAD_FIELD;
                status[i] = (uint8_t)st;
            } else if ((st = status[i]) == CSD_OOB_OK) {
                memset(&r, 0, sizeof r);
                csd_oob_fields(in, &r);
            } else if (st != CSD_OOB_EMPTY) {
                (void)csd_oob_decode(in, page_bytes, &r);   /* as pass 1 saw it */
            }
            if (st != CSD_OOB_EMPTY) visit(arg, i, st, &r);
        }
    }
}

typedef struct scan_ctx {
    const csd_void_range *voids;
    uint32_t n_void;
    csd_scan_fn fn;
    void (*seen_fn)(void *arg, const csd_oob *r);
    void *arg;
    csd_scan_info *info;
    uint64_t best;               /* pass 1: newest non-rolled-back seq */
    uint8_t *seen;               /* pass 2: bitmap over the newest group's seqs */
    pending *pend;
    size_t npend, cap;
    int oom;
} scan_ctx;

static void pass1(void *arg, uint64_t ppn, int st, const csd_oob *r) {
    (void)ppn;
    scan_ctx *c = arg;
    c->info->records++;
    if (st != CSD_OOB_OK) return;
    if (r->seq > c->info->max_seq) c->info->max_seq = r->seq;
    if (csd_seq_voided(c->voids, c->n_void, r->seq) >= 0) return;
    if (c->seen_fn) c->seen_fn(c->arg, r);
    if (r->seq > c->best) {
        c->best = r->seq;
        c->info->have_last = 1;
        c->info->last_first = r->op_first;
        c->info->last_pages = r->op_pages;
    }
}

static void pass2(void *arg, uint64_t ppn, int st, const csd_oob *r) {
    scan_ctx *c = arg;
    csd_scan_info *in = c->info;
    if (st != CSD_OOB_OK) {
        c->fn(c->arg, ppn, r, SCAN_BAD, st);
        return;
    }
    int v = csd_seq_voided(c->voids, c->n_void, r->seq);
    if (v >= 0) {
        in->void_hit[v] = 1;
        c->fn(c->arg, ppn, r, SCAN_VOIDED, st);
        return;
    }
    if (in->have_last && r->seq >= in->last_first) {
        /* Same group as the newest record (seqs are handed out in order, groups never overlap). GC
         * copies share a seq, hence the bitmap rather than a count. */
        uint64_t k = r->seq - in->last_first;
        if (k < in->last_pages && !(c->seen[k / 8] & (1u << (k % 8)))) {
            c->seen[k / 8] |= (uint8_t)(1u << (k % 8));
            in->last_found++;
        }
        if (c->npend == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 64;
            pending *p = realloc(c->pend, cap * sizeof *p);
            if (!p) {
                c->oom = 1;
                return;
            }
            c->pend = p;
            c->cap = cap;
        }
        c->pend[c->npend++] = (pending){ ppn, *r };
        return;
    }
    c->fn(c->arg, ppn, r, SCAN_ACCEPT, st);
}

int csd_scan_oob_area(const csd_oob_area *a, uint64_t total, uint32_t page_bytes, const csd_void_range *voids,
                      uint32_t n_void, csd_scan_fn fn, void (*seen)(void *, const csd_oob *), void *arg,
                      csd_scan_info *info) {
    memset(info, 0, sizeof *info);
    scan_ctx c = { .voids = voids, .n_void = n_void, .fn = fn, .seen_fn = seen, .arg = arg, .info = info };
    uint8_t *status = malloc(total ? total : 1);
    if (!status) return -ENOMEM;
    int rc = 0;
    each_record(a, total, page_bytes, status, 1, pass1, &c);
    if (info->have_last) {
        c.seen = calloc((size_t)(info->last_pages + 7) / 8, 1);
        if (!c.seen) rc = -ENOMEM;
    }
    if (!rc) {
        each_record(a, total, page_bytes, status, 0, pass2, &c);
        if (c.oom) rc = -ENOMEM;
    }
    free(status);
    free(c.seen);
    if (rc) {
        free(c.pend);
        return rc;
    }
    info->last_incomplete = info->have_last && info->last_found < info->last_pages;
    for (size_t i = 0; i < c.npend; i++)
        fn(arg, c.pend[i].ppn, &c.pend[i].r, info->last_incomplete ? SCAN_ROLLBACK : SCAN_ACCEPT, CSD_OOB_OK);
    free(c.pend);
    return 0;
}

int csd_scan_oob(csd_store *s, const csd_void_range *voids, uint32_t n_void, csd_scan_fn fn, void *arg,
                 csd_scan_info *info) {
    csd_oob_area a;
    int rc = csd_store_oob_area(s, &a);
    if (rc) {
        memset(info, 0, sizeof *info);
        return rc;
    }
    rc = csd_scan_oob_area(&a, s->l.physical_pages, s->l.page_bytes, voids, n_void, fn, NULL, arg, info);
    csd_store_oob_area_free(&a);
    return rc;
}
