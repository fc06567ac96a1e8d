/* Offline image verification: superblock, both metadata slots, every OOB record, the data CRC of
 * every live page, and the mapping rules recovery relies on. A state a crash can legitimately leave
 * (a torn metadata slot next to a good one, an incomplete newest write group, GC duplicates) is a
 * note; anything else is a problem. */
#include "ftl/ftl_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chk {
    csd_report_fn report;
    void *arg;
    int problems;
    csd_store *st;
    csd_objtab tab;
    csd_build b;
    uint8_t *p1, *p2;
    int rc;
    uint64_t voided, rolled_back, deleted, superseded, bad;
} chk;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void say(chk *c, int problem, const char *fmt, ...) {
    char line[1400];
    int n = snprintf(line, sizeof line, "%s: ", problem ? "problem" : "note");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (problem) c->problems++;
    if (c->report) c->report(c->arg, line);
}

static void chk_record(void *arg, uint64_t ppn, const csd_oob *r, int sst, int ost) {
    chk *c = arg;
    switch (sst) {
    case SCAN_BAD:
        c->bad++;
        say(c, 1, "page %" PRIu64 ": OOB record: %s", ppn, csd_oob_status_name(ost));
        return;
    case SCAN_VOIDED: c->voided++; return;
    case SCAN_ROLLBACK: c->rolled_back++; return;
    }
    if (csd_build_add(&c->b, ppn, r)) c->rc = -ENOMEM;
}

static void chk_orphan(void *arg, uint64_t ppn, const csd_oob *r, int why) {
    chk *c = arg;
    if (why == ORPHAN_PAGE_RANGE) {
        say(c, 1, "page %" PRIu64 ": record for object %" PRIu64 " page %" PRIu64 " is beyond the capacity", ppn,
            r->obj, r->page);
    } else if (r->obj >= c->tab.next_id) {
        say(c, 1, "page %" PRIu64 ": record for object id %" PRIu64 ", which was never created (next id %" PRIu64 ")",
            ppn, r->obj, c->tab.next_id);
    } else {
        c->deleted++;
    }
}

static void chk_lose(void *arg, uint32_t slot, uint64_t page, const csd_win *loser, const csd_win *winner, int tie) {
    (void)tie;
    chk *c = arg;
    c->superseded++;
    if (loser->seq != winner->seq) return;
    /* Two records of the same version (GC copies, or a copy a crash left behind): same data only. */
    const ftl_obj *o = &c->tab.slots[slot];
    int same = loser->kind == winner->kind && loser->valid == winner->valid && loser->crc == winner->crc;
    if (same && loser->kind == CSD_OOB_DATA) {
        uint32_t pb = c->st->l.page_bytes;
        if (csd_store_read_data(c->st, loser->ppn, 0, c->p1, pb) || csd_store_read_data(c->st, winner->ppn, 0, c->p2, pb))
            same = 0;
        else
            same = !memcmp(c->p1, c->p2, pb);
    }
    if (!same)
        say(c, 1, "object '%s' page %" PRIu64 ": pages %" PRIu64 " and %" PRIu64 " hold the same version (seq %" PRIu64
            ") with different contents", o->name, page, loser->ppn, winner->ppn, winner->seq);
}

static void check_objects(chk *c, uint64_t lpages) {
    const uint32_t pb = c->st->l.page_bytes;
    uint64_t live = 0, tombs = 0, policy = 0;
    for (uint32_t s = 0; s < c->tab.nslots; s++) {
        const ftl_obj *o = &c->tab.slots[s];
        if (!o->used) continue;
        const csd_win *w = c->b.win[s];
        uint64_t cap = c->b.win_cap[s], last = UINT64_MAX;
        for (uint64_t i = 0; i < cap; i++)
            if (w[i].ppn != MAP_NONE) last = i;
        for (uint64_t i = 0; last != UINT64_MAX && i <= last; i++) {
            if (w[i].ppn == MAP_NONE) continue;   /* a trimmed page whose tombstone was dropped */
            live++;
            /* a mapping policy's own object (a control character starts its name: no host name can)
             * holds map pages, which live in the spare area, not in the host's capacity */
            policy += (unsigned char)o->name[0] < 0x20;
            if (i < last && w[i].valid != pb)
                say(c, 1, "object '%s' page %" PRIu64 ": %u valid bytes, but only the last page may be partial", o->name,
                    i, w[i].valid);
            if (w[i].kind != CSD_OOB_DATA) {
                tombs++;
                continue;
            }
            if (csd_store_read_data(c->st, w[i].ppn, 0, c->p1, pb)) {
                say(c, 1, "object '%s' page %" PRIu64 ": cannot read physical page %" PRIu64, o->name, i, w[i].ppn);
                continue;
            }
            if (csd_crc32(0, c->p1, pb) != w[i].crc)
                say(c, 1, "object '%s' page %" PRIu64 ": data checksum mismatch at physical page %" PRIu64, o->name, i,
                    w[i].ppn);
        }
    }
    if (live - policy > lpages)
        say(c, 1, "%" PRIu64 " logical pages in use exceed the capacity of %" PRIu64, live - policy, lpages);
    say(c, 0, "%u objects, %" PRIu64 " live pages (%" PRIu64 " tombstones), %" PRIu64 " superseded versions, %" PRIu64
        " records of deleted objects, %" PRIu64 " rolled-back records", c->tab.count, live, tombs, c->superseded,
        c->deleted, c->voided + c->rolled_back);
}

int csd_ftl_check(const char *path, csd_report_fn report, void *arg) {
    chk c = { .report = report, .arg = arg };
    csd_objtab_init(&c.tab);
    csd_params p;
    char err[512];
    int rc = csd_store_open(&c.st, path, 0, &p, err, sizeof err);
    if (rc == -EBADMSG || rc == -EPROTONOSUPPORT) {
        say(&c, 1, "superblock: %s", err);
        return c.problems;
    }
    if (rc) return rc;
    const csd_layout *l = &c.st->l;
    csd_meta m[2];
    char why[2][128];
    int ok[2];
    for (int s = 0; s < 2; s++) {
        rc = csd_meta_read(c.st, s, &m[s], why[s], sizeof why[s]);
        if (rc && rc != -EBADMSG) {
            if (s == 1 && ok[0]) csd_meta_free(&m[0]);
            csd_store_close(c.st);
            return rc;
        }
        ok[s] = rc == 0;
    }
    if (!ok[0] && !ok[1]) {
        say(&c, 1, "metadata: both slots are unusable (A: %s; B: %s): the object table is lost", why[0], why[1]);
        csd_store_close(c.st);
        return c.problems;
    }
    int cur = (ok[0] && ok[1]) ? (m[1].seq > m[0].seq) : ok[1];
    if (!ok[1 - cur])
        say(&c, 0, "metadata slot %c: %s; slot %c is good (a torn update falls back to it)", "AB"[1 - cur],
            why[1 - cur], "AB"[cur]);
    /* the mapping policy's own objects (dftl's map pages) are entries beyond max_objects */
    const csd_map_ops *mo = csd_map_find(p.ftl);
    uint32_t max_objects = p.max_objects + (mo ? mo->own_objects : 0);
    if (ok[1 - cur]) {   /* the older slot must be a well-formed table too */
        csd_objtab old;
        csd_objtab_init(&old);
        if (csd_objtab_load(&old, &m[1 - cur], max_objects, err, sizeof err))
            say(&c, 1, "metadata slot %c: %s", "AB"[1 - cur], err);
        csd_objtab_free(&old);
    }
    rc = csd_objtab_load(&c.tab, &m[cur], max_objects, err, sizeof err);
    if (rc) say(&c, 1, "metadata slot %c: %s", "AB"[cur], err);
    csd_void_range voids[CSD_META_VOID_MAX];
    uint32_t n_void = m[cur].n_void;
    memcpy(voids, m[cur].voids, n_void * sizeof *voids);
    for (uint32_t i = 0; i < n_void; i++)
        if (voids[i].from >= voids[i].to || (i && voids[i].from < voids[i - 1].to)) {
            say(&c, 1, "metadata slot %c: rolled-back ranges are not sorted and disjoint", "AB"[cur]);
            n_void = 0;
            break;
        }
    uint64_t slot_seq = m[cur].seq, slot_next_seq = m[cur].next_seq;
    for (int s = 0; s < 2; s++)
        if (ok[s]) csd_meta_free(&m[s]);

    uint64_t lpages = l->capacity / l->page_bytes;
    c.p1 = malloc(l->page_bytes);
    c.p2 = malloc(l->page_bytes);
    rc = (!c.p1 || !c.p2) ? -ENOMEM : csd_build_init(&c.b, &c.tab, lpages);
    if (!rc) {
        c.b.arg = &c;
        c.b.lose = chk_lose;
        c.b.orphan = chk_orphan;
        csd_scan_info in;
        rc = csd_scan_oob(c.st, voids, n_void, chk_record, &c, &in);
        if (!rc) rc = c.rc;
        if (!rc) {
            if (in.last_incomplete)
                say(&c, 0, "the newest write group (seq %" PRIu64 "..%" PRIu64 ") is incomplete (%" PRIu64 " of %" PRIu64
                    " pages): open rolls it back", in.last_first, in.last_first + in.last_pages - 1, in.last_found,
                    in.last_pages);
            check_objects(&c, lpages);
            /* open saves the table when it rolls a group back or drops a spent range: it cannot if
             * that save would pass the counter bound */
            int open_saves = in.last_incomplete;
            for (uint32_t i = 0; i < n_void; i++) open_saves |= !in.void_hit[i];
            uint64_t next_seq = in.max_seq + 1 > slot_next_seq ? in.max_seq + 1 : slot_next_seq;
            if (open_saves && (slot_seq >= CSD_COUNTER_MAX || next_seq > CSD_COUNTER_MAX))
                say(&c, 1, "metadata: counters at their bound (slot seq %" PRIu64 ", next seq %" PRIu64
                    "): open cannot save the table", slot_seq, next_seq);
        }
        csd_build_free(&c.b);
    }
    free(c.p1);
    free(c.p2);
    csd_objtab_free(&c.tab);
    csd_store_close(c.st);
    return rc ? rc : c.problems;
}
