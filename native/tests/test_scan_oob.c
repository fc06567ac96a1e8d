/* The OOB scan behind recovery and check (csd_scan_oob), against a brute-force reference: random
 * write groups placed at random pages (chunks of the scan's reads crossed), GC copies sharing a seq,
 * rolled-back ranges, records with a bad magic, a bad checksum or impossible fields, and a newest group
 * with or without missing pages. The scan must hand the caller exactly the reference's calls, in the
 * same order (every record but the newest group's in page order, then that group's, ACCEPT or
 * ROLLBACK), and the same counts. */
#include "check.h"
#include "ftl/ftl.h"
#include "ftl/ftl_int.h"
#include "store/store.h"

#include <errno.h>

#define CAP (16u * 1024u * 1024u)
#define MAXREC 600
#define MAXCALL 1200

typedef struct wrec { uint64_t ppn; csd_oob r; int bad; } wrec;   /* bad: the expected OOB status */
typedef struct call { uint64_t ppn, seq; uint32_t copies; int scan, oob; } call;
/* How often each case came up over the rounds: every one must. */
static int n_rollback, n_accept, n_hit, n_bad;

typedef struct got { call c[MAXCALL]; int n; } got;

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void on_record(void *arg, uint64_t ppn, const csd_oob *r, int scan, int oob) {
    got *g = arg;
    CHECK(g->n < MAXCALL);
    g->c[g->n++] = (call){ ppn, scan == SCAN_BAD ? 0 : r->seq, scan == SCAN_BAD ? 0 : r->copies, scan, oob };
}

static int by_ppn(const void *a, const void *b) {
    const wrec *x = a, *y = b;
    return x->ppn < y->ppn ? -1 : x->ppn > y->ppn;
}

static int in_voids(const csd_void_range *v, uint32_t n, uint64_t seq) {
    for (uint32_t i = 0; i < n; i++)
        if (seq >= v[i].from && seq < v[i].to) return 1;
    return 0;
}

static void round_(csd_store *s, uint64_t *rs, int round) {
    const uint64_t total = s->l.physical_pages;
    CHECK(csd_store_erase(s, 0, total) == 0);
    static wrec w[MAXREC];
    static uint8_t used[1u << 20];
    CHECK(total <= sizeof used);
    memset(used, 0, total);
    int n = 0;
    uint64_t seq = 1 + rnd(rs) % 50;
    int groups = 1 + (int)(rnd(rs) % 40);
    for (int g = 0; g < groups && n < MAXREC - 40; g++) {
        uint32_t pages = 1 + (uint32_t)(rnd(rs) % 12);
        int drop = rnd(rs) % 3 == 0;          /* a group with a page missing (only the newest matters) */
        for (uint32_t k = 0; k < pages; k++) {
            if (drop && k == pages / 2) continue;
            int copies = rnd(rs) % 6 == 0 ? 2 : 1;   /* a GC copy: same seq, one more copy */
            for (int c = 0; c < copies; c++) {
                uint64_t ppn;
                do ppn = rnd(rs) % total; while (used[ppn]);
                used[ppn] = 1;
                csd_oob r = { .kind = CSD_OOB_DATA, .copies = (uint32_t)c, .valid_bytes = s->l.page_bytes,
                              .obj = 1 + (uint64_t)g, .page = k, .seq = seq + k, .op_first = seq,
                              .op_pages = pages, .time_ms = 1000u * (uint64_t)round + k };
                int bad = CSD_OOB_OK;
                switch (rnd(rs) % 16) {
                case 0: bad = CSD_OOB_BAD_MAGIC; break;
                case 1: bad = CSD_OOB_BAD_CRC; break;
                case 2: bad = CSD_OOB_BAD_FIELD; r.valid_bytes = s->l.page_bytes + 1; break;
                }
                w[n++] = (wrec){ ppn, r, bad };
            }
        }
        seq += pages + rnd(rs) % 3;
    }
    for (int i = 0; i < n; i++) {
        uint8_t raw[CSD_OOB_BYTES];
        csd_oob_encode(raw, &w[i].r);
        if (w[i].bad == CSD_OOB_BAD_MAGIC) raw[1] ^= 0x40;
        if (w[i].bad == CSD_OOB_BAD_CRC) raw[20] ^= 1;
        CHECK(csd_store_write_oob_run(s, w[i].ppn, 1, raw) == 0);
    }
    /* Up to three disjoint rolled-back ranges, sorted. */
    csd_void_range v[3];
    uint32_t nv = 0;
    uint64_t at = 1;
    for (int i = 0; i < 3; i++) {
        if (rnd(rs) % 2) continue;
        uint64_t from = at + rnd(rs) % (seq / 3 + 1), len = 1 + rnd(rs) % 10;
        v[nv++] = (csd_void_range){ .from = from, .to = from + len };
        at = from + len + 1;
    }

    /* The reference: the newest well-formed record outside the ranges names the group held back. */
    qsort(w, (size_t)n, sizeof *w, by_ppn);
    uint64_t best = 0, first = 0, pages = 0, max_seq = 0;
    for (int i = 0; i < n; i++) {
        if (w[i].bad != CSD_OOB_OK) continue;
        if (w[i].r.seq > max_seq) max_seq = w[i].r.seq;
        if (!in_voids(v, nv, w[i].r.seq) && w[i].r.seq > best) {
            best = w[i].r.seq;
            first = w[i].r.op_first;
            pages = w[i].r.op_pages;
        }
    }
    got want = { .n = 0 };
    int held[MAXREC], nheld = 0;
    for (int i = 0; i < n; i++) {
        const csd_oob *r = &w[i].r;
        if (w[i].bad != CSD_OOB_OK) on_record(&want, w[i].ppn, r, SCAN_BAD, w[i].bad);
        else if (in_voids(v, nv, r->seq)) on_record(&want, w[i].ppn, r, SCAN_VOIDED, CSD_OOB_OK);
        else if (best && r->seq >= first) held[nheld++] = i;
        else on_record(&want, w[i].ppn, r, SCAN_ACCEPT, CSD_OOB_OK);
    }
    uint64_t found = 0;
    for (uint64_t q = first; best && q < first + pages; q++) {
        int seen = 0;
        for (int j = 0; j < nheld; j++) seen |= w[held[j]].r.seq == q;
        found += (uint64_t)seen;
    }
    int incomplete = best && found < pages;
    n_rollback += incomplete;
    n_accept += best && !incomplete;
    for (int i = 0; i < want.n; i++) n_bad += want.c[i].scan == SCAN_BAD;
    for (int j = 0; j < nheld; j++)
        on_record(&want, w[held[j]].ppn, &w[held[j]].r, incomplete ? SCAN_ROLLBACK : SCAN_ACCEPT, CSD_OOB_OK);

    got g = { .n = 0 };
    csd_scan_info in;
    CHECK(csd_scan_oob(s, v, nv, on_record, &g, &in) == 0);
    CHECK_EQ_U64(in.records, (uint64_t)n);
    CHECK_EQ_U64(in.max_seq, max_seq);
    CHECK_EQ_INT(in.have_last, best != 0);
    CHECK_EQ_INT(in.last_incomplete, incomplete);
    if (best) {
        CHECK_EQ_U64(in.last_first, first);
        CHECK_EQ_U64(in.last_pages, pages);
        CHECK_EQ_U64(in.last_found, found);
    }
    for (uint32_t i = 0; i < nv; i++) {
        int hit = 0;
        for (int j = 0; j < n; j++) hit |= w[j].bad == CSD_OOB_OK && w[j].r.seq >= v[i].from && w[j].r.seq < v[i].to;
        CHECK_EQ_INT(in.void_hit[i], hit);
        n_hit += hit;
    }
    CHECK_EQ_INT(g.n, want.n);
    for (int i = 0; i < g.n; i++) {
        CHECK_EQ_U64(g.c[i].ppn, want.c[i].ppn);
        CHECK_EQ_U64(g.c[i].seq, want.c[i].seq);
        CHECK_EQ_U64(g.c[i].copies, want.c[i].copies);
        CHECK_EQ_INT(g.c[i].scan, want.c[i].scan);
        CHECK_EQ_INT(g.c[i].oob, want.c[i].oob);
    }
}

int main(void) {
    const char *dir = csd_test_dir("scan_oob");
    char img[4200];
    snprintf(img, sizeof img, "%s/scan.img", dir);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    char err[256];
    CHECK(csd_ftl_format(img, CAP, &p, err, sizeof err) == 0);
    csd_store *s;
    CHECK(csd_store_open(&s, img, 1, &p, err, sizeof err) == 0);
    CHECK(s->l.physical_pages > 2048);   /* records in more than one of the scan's reads */

    /* A formatted image holds no record. */
    got g = { .n = 0 };
    csd_scan_info in;
    CHECK(csd_scan_oob(s, NULL, 0, on_record, &g, &in) == 0);
    CHECK_EQ_INT(g.n, 0);
    CHECK_EQ_U64(in.records, 0);
    CHECK_EQ_INT(in.have_last, 0);

    uint64_t rs = 0x5eed5eedull;
    for (int r = 0; r < 200; r++) round_(s, &rs, r);
    CHECK(n_rollback > 10 && n_accept > 10 && n_hit > 10 && n_bad > 0);
    csd_store_close(s);
    unlink(img);
    rmdir(dir);
    printf("test_scan_oob: ok\n");
    return 0;
}
