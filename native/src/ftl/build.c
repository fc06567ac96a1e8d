/* Winner selection for recovery and check: per (object, page) the record with the highest
 * (seq, copies) is the current version. A higher seq is a newer write; for the same seq, a higher
 * copy count is a later GC copy of the same data. Records of objects not in the table are orphans
 * (a deleted object, or one whose creation never reached the table). */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int csd_build_init(csd_build *b, const csd_objtab *tab, uint64_t max_pages) {
    memset(b, 0, sizeof *b);
    b->tab = tab;
    b->max_pages = max_pages;
    size_t n = tab->nslots ? tab->nslots : 1;
    b->win = calloc(n, sizeof *b->win);
    b->win_cap = calloc(n, sizeof *b->win_cap);
    if (!b->win || !b->win_cap) {
        csd_build_free(b);
        return -ENOMEM;
    }
    return 0;
}

void csd_build_free(csd_build *b) {
    if (b->win)
        for (uint32_t s = 0; s < b->tab->nslots; s++) free(b->win[s]);
    free(b->win);
    free(b->win_cap);
    b->win = NULL;
    b->win_cap = NULL;
}

static int grow(csd_build *b, uint32_t slot, uint64_t pages) {
    if (pages <= b->win_cap[slot]) return 0;
    uint64_t cap = b->win_cap[slot] ? b->win_cap[slot] : 16;
    while (cap < pages) cap *= 2;
    csd_win *w = realloc(b->win[slot], (size_t)cap * sizeof *w);
    if (!w) return -ENOMEM;
    for (uint64_t i = b->win_cap[slot]; i < cap; i++) w[i] = (csd_win){ .ppn = MAP_NONE };
    b->win[slot] = w;
    b->win_cap[slot] = cap;
    return 0;
}

int csd_build_add(csd_build *b, uint64_t ppn, const csd_oob *r) {
    const ftl_obj *o = csd_objtab_by_id(b->tab, r->obj);
    if (!o) {
        if (b->orphan) b->orphan(b->arg, ppn, r, ORPHAN_NO_OBJECT);
        return 0;
    }
    if (r->page >= b->max_pages) {
        if (b->orphan) b->orphan(b->arg, ppn, r, ORPHAN_PAGE_RANGE);
        return 0;
    }
    uint32_t slot = csd_objtab_slot(b->tab, o);
    if (grow(b, slot, r->page + 1)) return -ENOMEM;
    csd_win *w = &b->win[slot][r->page];
    csd_win cand = { ppn, r->seq, r->copies, r->valid_bytes, r->data_crc, r->kind };
    if (w->ppn == MAP_NONE) {
        *w = cand;
        return 0;
    }
    int newer = cand.seq != w->seq ? cand.seq > w->seq : cand.copies > w->copies;
    int tie = cand.seq == w->seq && cand.copies == w->copies;
    if (newer) {
        csd_win old = *w;
        *w = cand;
        if (b->lose) b->lose(b->arg, slot, r->page, &old, w, 0);
    } else if (b->lose) {
        b->lose(b->arg, slot, r->page, &cand, w, tie);
    }
    return 0;
}
