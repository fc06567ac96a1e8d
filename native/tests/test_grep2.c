/* The two-stage tasklet grep2 (2PM paper III-A) against an in-order reference written independently
 * (a char-by-char search over the lines of the whole text): random texts with keys that straddle page
 * boundaries (pages of a few bytes, keys longer than a page, lines over several pages, CRLF, a final
 * line without '\n'), random extents (Hadoop ownership: the extents' answers add up to the whole
 * text's), every page order drawn at random, both matchers, the in-order mode (stages=1) and grep.
 * Also the page classes, growth past the extent, and bad parameters. */
#include "test_tasklets_util.h"

#include "tasklets/pm_match.h"
#include "engine/engine.h"
#include "flash/flash.h"

static uint64_t rng(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static csd_tasklet_args args_of(const csd_kv *kv, size_t n) {
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.static_params = kv;
    a.n_static = n;
    return a;
}

/* ---- the reference: start.*end within a line, by brute force ---------------------------------- */

static int at(const char *s, size_t len, size_t i, const char *k, size_t kl) {
    if (i + kl > len) return 0;
    for (size_t j = 0; j < kl; j++)
        if (s[i + j] != k[j]) return 0;
    return 1;
}

static int ref_match(const char *line, size_t len, const char *a, const char *z) {
    size_t la = strlen(a), lz = z ? strlen(z) : 0;
    for (size_t i = 0; i + la <= len; i++) {
        if (!at(line, len, i, a, la)) continue;
        if (!lz) return 1;
        for (size_t j = i + la; j + lz <= len; j++)
            if (at(line, len, j, z, lz)) return 1;
        return 0;   /* only the first start key counts: a later one leaves less room */
    }
    return 0;
}

typedef struct hitrow { uint64_t off; char *line; size_t len; } hitrow;
typedef struct hits { hitrow *r; size_t n, cap; } hits;

static void hits_add(hits *h, uint64_t off, const char *line, size_t len) {
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->r = realloc(h->r, h->cap * sizeof *h->r);
        CHECK(h->r);
    }
    h->r[h->n].off = off;
    h->r[h->n].line = malloc(len + 1);
    CHECK(h->r[h->n].line);
    memcpy(h->r[h->n].line, line, len);
    h->r[h->n].line[len] = 0;
    h->r[h->n++].len = len;
}

static void hits_free(hits *h) {
    for (size_t i = 0; i < h->n; i++) free(h->r[i].line);
    free(h->r);
    memset(h, 0, sizeof *h);
}

static int hit_cmp(const void *x, const void *y) {
    const hitrow *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

static void reference(const char *text, size_t size, const char *a, const char *z, hits *out) {
    size_t i = 0;
    while (i < size) {
        size_t j = i;
        while (j < size && text[j] != '\n') j++;
        size_t len = j - i;
        if (len && text[i + len - 1] == '\r') len--;
        if (ref_match(text + i, len, a, z)) hits_add(out, i, text + i, len);
        i = j + 1;
    }
}

/* ---- running grep2 as the engine would: pages of each extent in a random order ---------------- */

/* Parse (offset, line) rows. */
static void rows_to_hits(const uint8_t *p, size_t n, hits *h, uint64_t *count) {
    size_t pos = 0;
    while (pos < n) {
        uint64_t len = 0;
        int shift = 0;
        for (;;) {
            uint8_t b = p[pos++];
            len |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80)) break;
        }
        Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, (size_t)len, p + pos);
        CHECK(row);
        if (row->n_values == 1) {
            *count += (uint64_t)row->values[0]->i;
        } else {
            CHECK_EQ_INT(row->n_values, 2);
            hits_add(h, (uint64_t)row->values[0]->i, (const char *)row->values[1]->s.data, row->values[1]->s.len);
        }
        smartssd__v1__row__free_unpacked(row, NULL);
        pos += (size_t)len;
    }
}

typedef struct run_stats { uint64_t pages, grown, matched, partial, mismatched; } run_stats;

/* One extent through stage 1 in a random page order, then finish. */
static void run_extent(const csd_tasklet_args *a, const char *text, uint64_t size, uint64_t off, uint64_t len,
                       uint32_t P, uint64_t *seed, hits *h, uint64_t *count, run_stats *st) {
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    csd_exec *t = NULL;
    char err[512];
    CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find("grep2"), a, &ob, err, sizeof err), 0);
    uint64_t fp, lp;
    CHECK_EQ_INT(csd_exec_begin(t, size, off, len, P, &fp, &lp, err, sizeof err), 0);
    csd_isp_work w = csd_exec_work(t);
    CHECK(w.stage1 != NULL);
    /* pages left to scan, taken at random; a page grown by need_next joins them */
    uint64_t *left = malloc(sizeof *left * (size_t)((size / P) + 2));
    size_t nleft = 0;
    for (uint64_t pg = fp; lp >= fp && pg <= lp; pg++) left[nleft++] = pg;
    while (nleft) {
        size_t k = (size_t)(rng(seed) % nleft);
        uint64_t pg = left[k];
        left[k] = left[--nleft];
        size_t n = (size_t)(size - pg * P < P ? size - pg * P : P);
        csd_cost c = { 0, 0 };
        int cls = 0, more = 0;
        CHECK_EQ_INT(w.stage1(w.arg, pg, (const uint8_t *)text + pg * P, n, &c, &cls, &more), 0);
        CHECK(cls >= CSD_PAGE_MISMATCHED && cls <= CSD_PAGE_MATCHED);
        st->pages++;
        st->matched += cls == CSD_PAGE_MATCHED;
        st->partial += cls == CSD_PAGE_PARTIAL;
        st->mismatched += cls == CSD_PAGE_MISMATCHED;
        if (more) {
            CHECK(pg == lp);          /* only the last page may ask */
            left[nleft++] = ++lp;
            st->grown++;
        }
    }
    free(left);
    csd_cost c = { 0, 0 };
    CHECK_EQ_INT(w.finish(w.arg, &c), 0);
    const uint8_t *p;
    size_t n = csd_outbuf_take(&ob, SIZE_MAX, &p);
    rows_to_hits(p, n, h, count);
    csd_exec_destroy(t);
    csd_outbuf_free(&ob);
}

static void check_same(hits *got, hits *want, const char *what) {
    if (got->n) qsort(got->r, got->n, sizeof *got->r, hit_cmp);
    if (got->n != want->n) {
        fprintf(stderr, "%s: %zu lines, reference %zu\n", what, got->n, want->n);
        for (size_t i = 0; i < got->n && i < 20; i++) fprintf(stderr, "  got %llu\n", (unsigned long long)got->r[i].off);
        for (size_t i = 0; i < want->n && i < 20; i++) fprintf(stderr, "  want %llu\n", (unsigned long long)want->r[i].off);
        exit(1);
    }
    for (size_t i = 0; i < got->n; i++) {
        if (got->r[i].off != want->r[i].off || got->r[i].len != want->r[i].len ||
            memcmp(got->r[i].line, want->r[i].line, got->r[i].len)) {
            fprintf(stderr, "%s: line %zu: got %llu '%s', want %llu '%s'\n", what, i,
                    (unsigned long long)got->r[i].off, got->r[i].line, (unsigned long long)want->r[i].off,
                    want->r[i].line);
            exit(1);
        }
    }
}

/* Text over a tiny alphabet, so that keys occur, straddle pages and come in both orders. */
static char *make_text(uint64_t *seed, size_t size, int long_lines) {
    static const char alpha[] = "abcab c  xyz";
    char *b = malloc(size + 1);
    CHECK(b);
    for (size_t i = 0; i < size; i++) {
        uint64_t r = rng(seed);
        uint64_t nl = long_lines ? 400 : 23;
        b[i] = r % nl == 0 ? '\n' : r % 211 == 1 ? '\r' : alpha[(r >> 8) % (sizeof alpha - 1)];
    }
    b[size] = 0;
    return b;
}

static const char *const matchers[] = { "memmem", "hyperscan" };

static void test_random(void) {
    uint64_t seed = 0x2b2b2b2b;
    struct { const char *a, *z; } keys[] = {
        { "ab", NULL }, { "abc", "xy" }, { "c", "a" }, { "b a", "zab" }, { "cabcab", NULL },
        { "abcabcabcabcabcabcab", NULL },        /* longer than the smallest pages */
        { "x", "x" }, { "zy", NULL },
    };
    uint32_t pages[] = { 7, 16, 64, 512 };
    uint64_t total = 0, matched = 0, partial = 0, grown = 0;
    for (int round = 0; round < 24; round++) {
        size_t size = 200 + (size_t)(rng(&seed) % 6000);
        char *text = make_text(&seed, size, round % 4 == 3);
        if (round % 3 == 0) text[size - 1] = '\n';
        if (round == 5) memset(text, 'a', size);            /* one line over every page, no break */
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            hits want = { 0 };
            reference(text, size, keys[k].a, keys[k].z, &want);
            for (size_t pi = 0; pi < sizeof pages / sizeof pages[0]; pi++) {
                uint32_t P = pages[pi];
                for (int m = 0; m < 2; m++) {
                    if (m == 1 && !csd_pm_have_hyperscan()) continue;
                    /* 1 to 6 extents cut at random */
                    uint64_t cuts[8];
                    size_t ncut = (size_t)(rng(&seed) % 6);
                    for (size_t i = 0; i < ncut; i++) cuts[i] = rng(&seed) % (size + 1);
                    for (size_t i = 1; i < ncut; i++)
                        for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                            uint64_t tmp = cuts[j];
                            cuts[j] = cuts[j - 1];
                            cuts[j - 1] = tmp;
                        }
                    cuts[ncut] = size;
                    for (int mode = 0; mode < 2; mode++) {
                        csd_kv kv[] = { { "start", keys[k].a }, { "mode", mode ? "lines" : "count" },
                                        { "matcher", matchers[m] }, { "end", keys[k].z } };
                        csd_tasklet_args a = args_of(kv, keys[k].z ? 4 : 3);
                        hits got = { 0 };
                        uint64_t count = 0, prev = 0;
                        run_stats st = { 0 };
                        for (size_t x = 0; x <= ncut; x++) {
                            run_extent(&a, text, size, prev, cuts[x] - prev, P, &seed, &got, &count, &st);
                            prev = cuts[x];
                        }
                        if (mode) {
                            check_same(&got, &want, "grep2 lines");
                        } else {
                            CHECK_EQ_U64(count, want.n);
                        }
                        total += st.pages;
                        matched += st.matched;
                        partial += st.partial;
                        grown += st.grown;
                        hits_free(&got);
                    }
                }
                /* the in-order mode gives the same lines, through the LINES framing */
                csd_kv kv[] = { { "start", keys[k].a }, { "mode", "lines" }, { "stages", "1" }, { "end", keys[k].z } };
                csd_tasklet_args a = args_of(kv, keys[k].z ? 4 : 3);
                tk_result r = tk_run(csd_tasklet_find("grep2"), &a, (const uint8_t *)text, size, NULL, 0, P,
                                     TK_BYTES_RAW, 0, 0);
                CHECK_EQ_INT(r.rc, 0);
                CHECK_EQ_U64(r.rows, want.n);
                tk_result_free(&r);
            }
            hits_free(&want);
        }
        free(text);
    }
    /* the classes and the growth were all exercised */
    CHECK(matched > 0 && partial > 0 && total > matched + partial && grown > 0);
    printf("grep2 random: %llu pages (%llu matched, %llu partially), %llu grown\n", (unsigned long long)total,
           (unsigned long long)matched, (unsigned long long)partial, (unsigned long long)grown);
}

/* Page classes by hand, 16-byte pages: "xx\nab..." */
static void test_classes(void) {
    /*            page 0            page 1            page 2            page 3 */
    const char *t = "q\nzz ab zz xy z\nab tail, then\n xy next line.\n"
                    "no key at all here\n";
    /* page 0 [0,16): "q\nzz ab zz xy z\n": the line "zz ab zz xy z" is whole: matched
     * page 1 [16,32): "ab tail, then\n x": head "ab tail, then" holds the start key: partial
     * page 2 [32,48): "y next line.\nno ": head " xy" ... "y next line." begins with "y" (end of "xy"): partial
     * page 3 [48,..): " key at all here\n": head has no key: mismatched */
    size_t size = strlen(t);
    csd_kv kv[] = { { "start", "ab" }, { "end", "xy" }, { "mode", "count" } };
    csd_tasklet_args a = args_of(kv, 3);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    csd_exec *x = NULL;
    char err[256];
    CHECK_EQ_INT(csd_exec_create(&x, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), 0);
    uint64_t fp, lp;
    CHECK_EQ_INT(csd_exec_begin(x, size, 0, size, 16, &fp, &lp, err, sizeof err), 0);
    CHECK_EQ_U64(fp, 0);
    CHECK_EQ_U64(lp, 3);
    int want[] = { CSD_PAGE_MATCHED, CSD_PAGE_PARTIAL, CSD_PAGE_PARTIAL, CSD_PAGE_MISMATCHED };
    uint64_t order[] = { 2, 0, 3, 1 };
    for (int i = 0; i < 4; i++) {
        uint64_t pg = order[i];
        size_t n = size - pg * 16 < 16 ? size - pg * 16 : 16;
        csd_cost c;
        int cls, more;
        CHECK_EQ_INT(csd_exec_stage1(x, pg, (const uint8_t *)t + pg * 16, n, &c, &cls, &more), 0);
        CHECK_EQ_INT(cls, want[pg]);
        CHECK_EQ_INT(more, 0);
        CHECK_EQ_U64(c.dram_accesses, (n + 3) / 4);      /* one pass over the page */
    }
    csd_cost c;
    CHECK_EQ_INT(csd_exec_finish(x, &c), 0);
    const uint8_t *p;
    size_t n = csd_outbuf_take(&ob, SIZE_MAX, &p);
    hits h = { 0 };
    uint64_t count = 0;
    rows_to_hits(p, n, &h, &count);
    CHECK_EQ_U64(count, 1);            /* "zz ab zz xy z", in stage 1; the cut lines "ab tail, then" (no
                                        * "xy") and " xy next line." (no "ab") do not match */
    csd_exec_destroy(x);
    csd_outbuf_free(&ob);
    hits_free(&h);
}

/* An extent whose last line runs two pages past its end: stage 1 of the last page asks for the next. */
static void test_growth(void) {
    const char *t = "aaaa\nbbbbbbbbbbbbbbbbbbbbbbbb key cccc\ndddd\n";
    size_t size = strlen(t);
    csd_kv kv[] = { { "start", "key" }, { "mode", "lines" } };
    csd_tasklet_args a = args_of(kv, 2);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    csd_exec *x = NULL;
    char err[256];
    CHECK_EQ_INT(csd_exec_create(&x, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), 0);
    uint64_t fp, lp;
    CHECK_EQ_INT(csd_exec_begin(x, size, 0, 8, 8, &fp, &lp, err, sizeof err), 0);   /* [0, 8): page 0 */
    CHECK_EQ_U64(lp, 0);
    int cls, more, grown = 0;
    csd_cost c;
    for (uint64_t pg = 0;; pg++) {
        CHECK_EQ_INT(csd_exec_stage1(x, pg, (const uint8_t *)t + pg * 8, 8, &c, &cls, &more), 0);
        if (!more) break;
        grown++;
    }
    CHECK_EQ_INT(grown, 4);            /* the line from offset 5 ends at 38, on page 4 */
    /* the request's pages so far must all be scanned before finish */
    CHECK_EQ_INT(csd_exec_finish(x, &c), 0);
    const uint8_t *p;
    size_t n = csd_outbuf_take(&ob, SIZE_MAX, &p);
    hits h = { 0 };
    uint64_t count = 0;
    rows_to_hits(p, n, &h, &count);
    CHECK_EQ_U64(h.n, 1);
    CHECK_EQ_U64(h.r[0].off, 5);
    CHECK_STR(h.r[0].line, "bbbbbbbbbbbbbbbbbbbbbbbb key cccc");
    hits_free(&h);
    csd_exec_destroy(x);
    csd_outbuf_free(&ob);
    /* finishing before every page was scanned is a protocol error */
    csd_outbuf_init(&ob, 0, 0);
    CHECK_EQ_INT(csd_exec_create(&x, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_begin(x, size, 0, size, 8, &fp, &lp, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_stage1(x, 1, (const uint8_t *)t + 8, 8, &c, &cls, &more), 0);
    CHECK_EQ_INT(csd_exec_finish(x, &c), -EPROTO);
    CHECK_CONTAINS(csd_exec_error(x), "finish after 1 of the extent's 6 pages");
    csd_exec_destroy(x);
    /* a page outside the extent, and feed() on a two-stage execution */
    CHECK_EQ_INT(csd_exec_create(&x, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_begin(x, size, 0, 8, 8, &fp, &lp, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_stage1(x, 3, (const uint8_t *)t + 24, 8, &c, &cls, &more), -EINVAL);
    CHECK_CONTAINS(csd_exec_error(x), "outside pages 0..0");
    csd_exec_destroy(x);
    CHECK_EQ_INT(csd_exec_create(&x, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_begin(x, size, 0, 8, 8, &fp, &lp, err, sizeof err), 0);
    CHECK_EQ_INT(csd_exec_feed(x, 0, (const uint8_t *)t, 8, &c, &more), -EINVAL);
    CHECK_CONTAINS(csd_exec_error(x), "through stage 1");
    csd_exec_destroy(x);
    csd_outbuf_free(&ob);
}

static void test_bad_params(void) {
    struct { csd_kv kv[3]; size_t n; const char *msg; } cases[] = {
        { { { "mode", "count" } }, 1, "non-empty start key" },
        { { { "start", "" } }, 1, "non-empty start key" },
        { { { "start", "a\nb" } }, 1, "line break" },
        { { { "start", "a" }, { "end", "x\n" } }, 2, "line break" },
        { { { "start", "a" }, { "stages", "3" } }, 2, "stages" },
        { { { "start", "a" }, { "matcher", "pcre" } }, 2, "matcher" },
        { { { "start", "a" }, { "mode", "sum" } }, 2, "mode" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        csd_tasklet_args a = args_of(cases[i].kv, cases[i].n);
        csd_outbuf ob;
        csd_outbuf_init(&ob, 0, 0);
        csd_exec *t = NULL;
        char err[512] = "";
        CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), -EINVAL);
        CHECK_CONTAINS(err, cases[i].msg);
        CHECK(t == NULL);
        csd_outbuf_free(&ob);
    }
    char big[CSD_PM_KEY_MAX + 2];
    memset(big, 'k', sizeof big - 1);
    big[sizeof big - 1] = 0;
    csd_kv kv[] = { { "start", big } };
    csd_tasklet_args a = args_of(kv, 1);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    csd_exec *t = NULL;
    char err[512] = "";
    CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "1..1024 bytes");
    /* runtime keywords: start then end */
    csd_kv kv2[] = { { "start", "nope" }, { "mode", "lines" }, { "stages", "1" } };
    a = args_of(kv2, 3);
    const char *kw[] = { "ab", "cd" };
    a.keywords = kw;
    a.n_keywords = 2;
    const char *text = "cd ab\nab cd\nabcd\n";
    tk_result r = tk_run(csd_tasklet_find("grep2"), &a, (const uint8_t *)text, strlen(text), NULL, 0, 512,
                         TK_BYTES_RAW, 0, 0);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "6\tab cd\n12\tabcd\n", "grep2 keywords");
    tk_result_free(&r);
    /* fed in order like a plain tasklet, a two-stage execution refuses */
    kv2[2].value = "2";
    r = tk_run(csd_tasklet_find("grep2"), &a, (const uint8_t *)text, strlen(text), NULL, 0, 512, TK_BYTES_RAW, 0, 0);
    CHECK_EQ_INT(r.rc, -EINVAL);
    CHECK_CONTAINS(r.err, "through stage 1");
    tk_result_free(&r);
    csd_outbuf_free(&ob);
}


/* ---- through the engine: exact times of stage 1 on the pattern-matching units and on a core ------ */

typedef struct memobj {
    const csd_params *p;
    const uint8_t *data;
    uint64_t size, pages;
    uint64_t ppn[64];
} memobj;

static uint64_t mo_ppn(void *arg, uint64_t page) { return ((memobj *)arg)->ppn[page]; }

static int mo_read(void *arg, uint64_t ppn, uint8_t *buf) {
    memobj *o = arg;
    for (uint64_t k = 0; k < o->pages; k++) {
        if (o->ppn[k] != ppn) continue;
        uint64_t P = o->p->page_bytes, n = o->size - k * P < P ? o->size - k * P : P;
        memset(buf, 0, P);
        memcpy(buf, o->data + k * P, n);
        return 0;
    }
    return -EIO;
}

/* page k on unit k mod units, as test_engine lays objects out */
static void mo_init(memobj *o, const csd_params *p, const uint8_t *data, uint64_t size) {
    memset(o, 0, sizeof *o);
    o->p = p;
    o->data = data;
    o->size = size;
    o->pages = (size + p->page_bytes - 1) / p->page_bytes;
    CHECK(o->pages <= 64);
    uint32_t units = csd_units(p);
    for (uint64_t k = 0; k < o->pages; k++) {
        uint32_t u = (uint32_t)(k % units);
        csd_addr a = { .channel = u / p->chips_per_channel, .chip = u % p->chips_per_channel,
                       .page = (uint32_t)(k / units) };
        o->ppn[k] = csd_ppn_encode(p, &a);
    }
}

/* a chip policy that serves in arrival order and records the reordering requests it gets */
typedef struct rec_policy { csd_flash_op **head, **tail; int n; uint8_t match[16]; uint64_t at[16];
                            const void *owner[16]; } rec_policy;
static rec_policy *rec_last;
static int rec_init(void **state, const csd_params *p, uint32_t chips) {
    rec_policy *r = calloc(1, sizeof *r);
    r->head = calloc(chips, sizeof *r->head);
    r->tail = calloc(chips, sizeof *r->tail);
    *state = rec_last = r;
    return 0;
}
static void rec_enqueue(void *state, uint32_t chip, csd_flash_op *op, uint64_t now) {
    rec_policy *r = state;
    op->next = NULL;
    if (r->tail[chip]) r->tail[chip]->next = op; else r->head[chip] = op;
    r->tail[chip] = op;
}
static csd_flash_op *rec_next(void *state, uint32_t chip, uint64_t now) {
    rec_policy *r = state;
    csd_flash_op *op = r->head[chip];
    if (op && !(r->head[chip] = op->next)) r->tail[chip] = NULL;
    return op;
}
static void rec_reorder(void *state, const void *owner, uint8_t match, uint64_t now) {
    rec_policy *r = state;
    CHECK(r->n < 16);
    r->owner[r->n] = owner;
    r->match[r->n] = match;
    r->at[r->n++] = now;
}
static void rec_destroy(void *state) {
    rec_policy *r = state;
    free(r->head);
    free(r->tail);
    free(r);
}
static const csd_chip_sched_ops rec_ops = { .name = "2pm-test-recorder", .init = rec_init, .enqueue = rec_enqueue,
                                            .next = rec_next, .destroy = rec_destroy, .reorder = rec_reorder };

/* 4 pages of 64 lines of 63 'z' each: every page ends a line, no fragment holds a key, page 2 holds
 * the line "zz...KEY...zz" in its middle. */
static uint8_t *four_pages(void) {
    uint8_t *t = malloc(4 * 4096);
    CHECK(t);
    for (int i = 0; i < 4 * 64; i++) {
        memset(t + i * 64, 'z', 63);
        t[i * 64 + 63] = '\n';
    }
    memcpy(t + 2 * 4096 + 10 * 64 + 30, "KEY", 3);
    return t;
}

static void run_two_stage(const csd_params *p, uint64_t *finish_ns, uint64_t *pages, uint64_t *count) {
    uint8_t *text = four_pages();
    memobj o;
    mo_init(&o, p, text, 4 * 4096);
    char err[256];
    csd_engine *e = NULL;
    CHECK_EQ_INT(csd_engine_create(&e, p, err, sizeof err), 0);
    csd_kv kv[] = { { "start", "KEY" }, { "mode", "count" } };
    csd_tasklet_args a = args_of(kv, 2);
    a.page_bytes = p->page_bytes;
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    csd_exec *x = NULL;
    CHECK_EQ_INT(csd_exec_create(&x, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), 0);
    uint64_t fp, lp;
    CHECK_EQ_INT(csd_exec_begin(x, o.size, 0, o.size, p->page_bytes, &fp, &lp, err, sizeof err), 0);
    csd_isp_work w = csd_exec_work(x);
    csd_page_source src = { &o, mo_ppn, mo_read, NULL, NULL };
    csd_isp_req *r = NULL;
    CHECK_EQ_INT(csd_engine_submit(e, &r, &w, &src, fp, lp, 3, 4096), 0);
    csd_engine_run_until_finished(e, r);
    csd_isp_progress pr;
    csd_engine_progress(e, r, &pr);
    CHECK(pr.finished);
    CHECK_EQ_INT(pr.status, 0);
    *finish_ns = pr.finish_ns;
    *pages = pr.pages_done;
    const uint8_t *rows;
    size_t n = csd_outbuf_take(&ob, SIZE_MAX, &rows);
    hits h = { 0 };
    *count = 0;
    rows_to_hits(rows, n, &h, count);
    csd_engine_release(e, r);
    csd_engine_destroy(e);
    csd_exec_destroy(x);
    csd_outbuf_free(&ob);
    free(text);
}

static void test_engine(void) {
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "tiny"), 0);
    p.blocks_per_plane = 64;
    p.cores = 1;
    /* Pattern-matching units at one page per 10000 ns. Arrivals (docs/TIMING-MODEL.md 4.1): p0 21000 and
     * p1 31000 on channel 0, p2 22000 and p3 32000 on channel 1. Units: channel 0 p0 21000..31000, p1
     * 31000..41000; channel 1 p2 22000..32000, p3 32000..42000. Then the second stage on the core:
     * no cut line holds a key, so only the count row: 40 cycles: 42040. */
    p.pm_bytes_per_s = 409600000;
    uint64_t fin, pages, count;
    run_two_stage(&p, &fin, &pages, &count);
    CHECK_EQ_U64(fin, 42040);
    CHECK_EQ_U64(pages, 4);
    CHECK_EQ_U64(count, 1);
    /* a reordering request reaches the chip policy's hook */
    {
        csd_sim *sim = csd_sim_create();
        csd_flash *f = NULL;
        char err[128];
        CHECK_EQ_INT(csd_flash_create_with(&f, &p, sim, &rec_ops, csd_fcmd_find("fifo"), err, sizeof err), 0);
        csd_flash_reorder(f, &p, CSD_MATCH_PARTIAL);
        CHECK_EQ_INT(rec_last->n, 1);
        CHECK_EQ_INT(rec_last->match[0], CSD_MATCH_PARTIAL);
        csd_flash_destroy(f);
        csd_sim_destroy(sim);
        rec_last = NULL;
    }
    /* Without the units, stage 1 runs on the core, pages out of order as they are ready: a page costs
     * page_cycles 1000 + 1024 words x 2 cycles + 1024 DRAM accesses x 100 ns = 105448. p0 21000..126448,
     * then p1, p2, p3 (all ready) back to back: ..442792; the count row 40: 442832. */
    p.pm_bytes_per_s = 0;
    run_two_stage(&p, &fin, &pages, &count);
    CHECK_EQ_U64(fin, 442832);
    CHECK_EQ_U64(count, 1);
    /* the stage issue model refuses two-stage work */
    snprintf(p.request_scheduler, sizeof p.request_scheduler, "remus");
    snprintf(p.issue_model, sizeof p.issue_model, "stage");
    csd_engine *e = NULL;
    char err[256];
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);
    uint8_t *text = four_pages();
    memobj o;
    mo_init(&o, &p, text, 4 * 4096);
    csd_kv kv[] = { { "start", "KEY" } };
    csd_tasklet_args a = args_of(kv, 1);
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    csd_exec *x = NULL;
    CHECK_EQ_INT(csd_exec_create(&x, csd_tasklet_find("grep2"), &a, &ob, err, sizeof err), 0);
    uint64_t fp, lp;
    CHECK_EQ_INT(csd_exec_begin(x, o.size, 0, o.size, 4096, &fp, &lp, err, sizeof err), 0);
    csd_isp_work w2 = csd_exec_work(x);
    csd_page_source src = { &o, mo_ppn, mo_read, NULL, NULL };
    csd_isp_req *r = NULL;
    CHECK_EQ_INT(csd_engine_submit(e, &r, &w2, &src, fp, lp, 3, 4096), -EOPNOTSUPP);
    csd_engine_destroy(e);
    csd_exec_destroy(x);
    csd_outbuf_free(&ob);
    free(text);
}

int main(void) {
    test_classes();
    test_growth();
    test_bad_params();
    test_engine();
    test_random();
    TEST_OK("test_grep2");
}
