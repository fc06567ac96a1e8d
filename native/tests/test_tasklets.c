/* Built-in tasklets against independent references: weblog-q1 / q2 / filter against wc98.py (the
 * Python generator and reference), grep against a naive line scanner written here. Pages of 4096
 * and 8192 bytes; extents split anywhere must add up to the whole-object answer. */
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_tasklets_util.h"

static char wc98[4096];
static const char *tmpdir;

static void find_wc98(void) {
    const char *src = getenv("CSD_SRC");
    if (src && *src) {
        snprintf(wc98, sizeof wc98, "%s/tests/wc98.py", src);
    } else {
        char f[4096];
        snprintf(f, sizeof f, "%s", __FILE__);
        snprintf(wc98, sizeof wc98, "%s/wc98.py", dirname(f));
    }
    CHECK(access(wc98, R_OK) == 0);
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void random_cuts(uint64_t *seed, uint64_t size, uint64_t *cuts, size_t n) {
    for (size_t i = 0; i < n; i++) cuts[i] = rng_next(seed) % (size + 1);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            uint64_t x = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = x;
        }
}

static csd_tasklet_args args_of(const csd_kv *kv, size_t n) {
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.static_params = kv;
    a.n_static = n;
    return a;
}

/* Sum the last integer column per key (the other columns) over a tab-separated row text; rank
 * columns are dropped first when drop_last is set. Result: sorted "key\tsum" lines. */
typedef struct kc { char key[256]; long long n; } kc;

static int kc_cmp(const void *a, const void *b) { return strcmp(((const kc *)a)->key, ((const kc *)b)->key); }

static char *sum_by_key(const char *text, int drop_last) {
    kc *v = NULL;
    size_t n = 0, cap = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        CHECK(nl);
        char line[256];
        size_t len = (size_t)(nl - p);
        CHECK(len < sizeof line);
        memcpy(line, p, len);
        line[len] = 0;
        if (drop_last) *strrchr(line, '\t') = 0;
        char *tab = strrchr(line, '\t');
        CHECK(tab);
        *tab = 0;
        long long c = atoll(tab + 1);
        size_t i = 0;
        while (i < n && strcmp(v[i].key, line)) i++;
        if (i == n) {
            if (n == cap) {
                cap = cap ? cap * 2 : 32;
                v = realloc(v, cap * sizeof *v);
            }
            snprintf(v[n].key, sizeof v[n].key, "%s", line);
            v[n++].n = 0;
        }
        v[i].n += c;
        p = nl + 1;
    }
    qsort(v, n, sizeof *v, kc_cmp);
    tk_text t = {0};
    tk_text_add(&t, "%s", "");
    for (size_t i = 0; i < n; i++) tk_text_add(&t, "%s\t%lld\n", v[i].key, v[i].n);
    free(v);
    return t.s;
}

/* Sorted unique lines. */
static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *unique_lines(const char *text) {
    char *copy = strdup(text);
    char **lines = NULL;
    size_t n = 0, cap = 0;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            lines = realloc(lines, cap * sizeof *lines);
        }
        lines[n++] = l;
    }
    if (n) qsort(lines, n, sizeof *lines, str_cmp);
    tk_text t = {0};
    tk_text_add(&t, "%s", "");
    for (size_t i = 0; i < n; i++)
        if (!i || strcmp(lines[i], lines[i - 1])) tk_text_add(&t, "%s\n", lines[i]);
    free(lines);
    free(copy);
    return t.s;
}

/* ------------------------------------------------------------------ weblog and filter */

typedef struct filter_case {
    const char *off, *width, *op, *value, *be, *sg;
} filter_case;

static const filter_case filter_cases[] = {
    {"8", "4", "lt", "300", "1", "0"},           /* objectID < 300 */
    {"12", "4", "ge", "4294967295", "1", "0"},  /* no size */
    {"17", "1", "eq", "130", "1", "0"},          /* HTTP/1.1, 200 */
    {"2", "2", "lt", "-20000", "0", "1"},        /* little-endian signed view of timestamp bytes */
    {"0", "8", "gt", "-1", "1", "1"},            /* signed 64-bit */
    {"12", "8", "le", "13837183636364587007", "1", "0"},  /* unsigned 64-bit above INT64_MAX */
};

static char *filter_reference(const char *path, uint32_t E, const filter_case *fc) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "python3 %s filter %s --entry-bytes %u --field-offset %s --field-width %s --op %s "
             "--value %s --big-endian %s --signed %s --mode records",
             wc98, path, E, fc->off, fc->width, fc->op, fc->value, fc->be, fc->sg);
    return tk_popen_read(cmd);
}

/* refs[k]: wc98.py's records-mode answer for filter_cases[k] */
static void check_filter(const uint8_t *obj, uint64_t size, char *const *refs, uint32_t E, uint32_t P,
                         uint64_t *seed, size_t ncases) {
    char eb[16];
    snprintf(eb, sizeof eb, "%u", E);
    uint64_t nrec = size / E;
    for (size_t k = 0; k < ncases; k++) {
        const filter_case *fc = &filter_cases[k];
        /* records mode */
        csd_kv kv[] = {{"entry_bytes", eb}, {"field_offset", fc->off}, {"field_width", fc->width},
                       {"op", fc->op}, {"value", fc->value}, {"big_endian", fc->be}, {"signed", fc->sg},
                       {"mode", "records"}};
        csd_tasklet_args a = args_of(kv, 8);
        tk_result r = tk_run(csd_tasklet_find("filter"), &a, obj, size, NULL, 0, P, TK_BYTES_HEX, 0, 0);
        CHECK_EQ_INT(r.rc, 0);
        const char *want = refs[k];
        tk_check_text(r.text.s, want, "filter records");
        CHECK_EQ_U64(r.dram, nrec);   /* one access per record examined */
        /* the matching offsets drive the lbas cost reference below */
        uint64_t *match = calloc(nrec + 1, sizeof *match);
        size_t nm = 0;
        for (const char *p = want; *p; p = strchr(p, '\n') + 1) match[nm++] = strtoull(p, NULL, 10);
        CHECK_EQ_U64(nm, r.rows);
        /* split into extents: the same rows */
        uint64_t cuts[6];
        random_cuts(seed, size, cuts, 6);
        tk_result rs = tk_run(csd_tasklet_find("filter"), &a, obj, size, cuts, 6, P, TK_BYTES_HEX, 0, 0);
        CHECK_EQ_INT(rs.rc, 0);
        tk_check_text(rs.text.s, want, "filter records, extents");
        tk_result_free(&rs);
        tk_result_free(&r);

        /* lbas mode: one row per page holding a match (the page where the matching record starts),
         * and only the records up to each page's first match are examined */
        kv[7].value = "lbas";
        r = tk_run(csd_tasklet_find("filter"), &a, obj, size, NULL, 0, P, TK_BYTES_RAW, 0, 0);
        CHECK_EQ_INT(r.rc, 0);
        tk_text pages = {0};
        tk_text_add(&pages, "%s", "");
        for (size_t i = 0; i < nm; i++)
            if (!i || match[i] / P != match[i - 1] / P) tk_text_add(&pages, "%llu\n", (unsigned long long)(match[i] / P));
        tk_check_text(r.text.s, pages.s, "filter lbas");
        uint64_t examined = 0;
        size_t mi = 0;
        for (uint64_t off = 0; off < size; off += E) {
            uint64_t pg = off / P;
            while (mi < nm && match[mi] < off) mi++;
            examined++;
            if (mi < nm && match[mi] == off)   /* first match: skip the rest of the page */
                while (off + E < size && (off + E) / P == pg) off += E;
        }
        CHECK_EQ_U64(r.dram, examined);
        random_cuts(seed, size, cuts, 6);
        rs = tk_run(csd_tasklet_find("filter"), &a, obj, size, cuts, 6, P, TK_BYTES_RAW, 0, 0);
        CHECK_EQ_INT(rs.rc, 0);
        char *u1 = unique_lines(rs.text.s), *u2 = unique_lines(pages.s);
        tk_check_text(u1, u2, "filter lbas, extents");
        free(u1);
        free(u2);
        tk_result_free(&rs);
        tk_result_free(&r);
        free(pages.s);
        free(match);
    }
}

/* many: every filter case and top_n in {3, 1, 13}; otherwise two filter cases and top_n 3 (each
 * reference answer is a Python run, the slow part of this test) */
static void check_weblog(const char *path, uint32_t E, uint64_t *seed, int many_filters, int many_tops) {
    uint64_t size;
    uint8_t *obj = tk_read_file(path, &size);
    uint64_t nrec = size / E;
    char eb[16], cmd[16384];
    snprintf(eb, sizeof eb, "%u", E);

    snprintf(cmd, sizeof cmd, "python3 %s q1 %s --entry-bytes %u", wc98, path, E);
    char *want_q1 = tk_popen_read(cmd);
    const uint32_t tops[] = {3, 1, 13};
    const int ntops = many_tops ? 3 : 1;
    char *want_q2[3];
    for (int i = 0; i < ntops; i++) {
        snprintf(cmd, sizeof cmd, "python3 %s q2 %s --entry-bytes %u --top-n %u", wc98, path, E, tops[i]);
        want_q2[i] = tk_popen_read(cmd);
    }
    /* one extent cross-checked with wc98.py's own reading of the ownership rule */
    uint64_t eo = size / 3 + 7, el = size / 4 + 3;
    snprintf(cmd, sizeof cmd, "python3 %s q1 %s --entry-bytes %u --offset %llu --length %llu", wc98, path, E,
             (unsigned long long)eo, (unsigned long long)el);
    char *want_q1_ext = tk_popen_read(cmd);
    size_t nfc = many_filters ? sizeof filter_cases / sizeof filter_cases[0] : 2;
    char *frefs[sizeof filter_cases / sizeof filter_cases[0]];
    for (size_t k = 0; k < nfc; k++) frefs[k] = filter_reference(path, E, &filter_cases[k]);

    const uint32_t pages[] = {4096, 8192};
    for (int pi = 0; pi < 2; pi++) {
        uint32_t P = pages[pi];
        csd_kv kv1[] = {{"entry_bytes", eb}};
        csd_tasklet_args a1 = args_of(kv1, 1);
        tk_result r = tk_run(csd_tasklet_find("weblog-q1"), &a1, obj, size, NULL, 0, P, TK_BYTES_RAW, 0, 0);
        CHECK_EQ_INT(r.rc, 0);
        tk_check_text(r.text.s, want_q1, "weblog-q1");
        CHECK_EQ_U64(r.dram, nrec);
        CHECK_EQ_U64(r.cycles, nrec * 4);
        tk_result_free(&r);

        /* extents: partial counts add up */
        uint64_t cuts[8];
        random_cuts(seed, size, cuts, 8);
        r = tk_run(csd_tasklet_find("weblog-q1"), &a1, obj, size, cuts, 8, P, TK_BYTES_RAW, 0, 0);
        CHECK_EQ_INT(r.rc, 0);
        CHECK_EQ_U64(r.dram, nrec);
        char *s1 = sum_by_key(r.text.s, 0), *s2 = sum_by_key(want_q1, 0);
        tk_check_text(s1, s2, "weblog-q1 extents summed");
        free(s1);
        free(s2);
        tk_result_free(&r);

        uint64_t c2[2] = {eo, eo + el};
        r = tk_run(csd_tasklet_find("weblog-q1"), &a1, obj, size, c2, 2, P, TK_BYTES_RAW, 0, 0);
        CHECK_EQ_INT(r.rc, 0);
        tk_result_free(&r);
        /* only the middle extent: run [eo, eo+el) alone by cutting and keeping the second part */
        {
            csd_outbuf ob;
            csd_outbuf_init(&ob, 0, 0);
            csd_exec *t;
            char err[256];
            a1.page_bytes = P;
            CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find("weblog-q1"), &a1, &ob, err, sizeof err), 0);
            uint64_t fp, lp;
            CHECK_EQ_INT(csd_exec_begin(t, size, eo, el, P, &fp, &lp, err, sizeof err), 0);
            for (uint64_t pg = fp; pg <= lp; pg++) {
                int more;
                size_t n = (size_t)(size - pg * P < P ? size - pg * P : P);
                CHECK_EQ_INT(csd_exec_feed(t, pg, obj + pg * P, n, NULL, &more), 0);
            }
            CHECK_EQ_INT(csd_exec_finish(t, NULL), 0);
            const uint8_t *p;
            size_t n = csd_outbuf_take(&ob, SIZE_MAX, &p);
            tk_text txt = {0};
            tk_text_add(&txt, "%s", "");
            tk_format_rows(&txt, p, n, TK_BYTES_RAW);
            tk_check_text(txt.s, want_q1_ext, "weblog-q1 one extent");
            free(txt.s);
            csd_exec_destroy(t);
            csd_outbuf_free(&ob);
        }

        for (int i = 0; i < ntops; i++) {
            char tn[8];
            snprintf(tn, sizeof tn, "%u", tops[i]);
            csd_kv kv2[] = {{"entry_bytes", eb}, {"top_n", tn}};
            csd_tasklet_args a2 = args_of(kv2, 2);
            r = tk_run(csd_tasklet_find("weblog-q2"), &a2, obj, size, NULL, 0, P, TK_BYTES_RAW, 0, 0);
            CHECK_EQ_INT(r.rc, 0);
            tk_check_text(r.text.s, want_q2[i], "weblog-q2");
            CHECK_EQ_U64(r.dram, 2 * nrec);
            CHECK(r.finish_cycles > 0);
            tk_result_free(&r);
            random_cuts(seed, size, cuts, 8);
            r = tk_run(csd_tasklet_find("weblog-q2"), &a2, obj, size, cuts, 8, P, TK_BYTES_RAW, 0, 0);
            CHECK_EQ_INT(r.rc, 0);
            s1 = sum_by_key(r.text.s, 1);
            s2 = sum_by_key(want_q2[i], 1);
            tk_check_text(s1, s2, "weblog-q2 extents summed");
            free(s1);
            free(s2);
            tk_result_free(&r);
        }
        check_filter(obj, size, frefs, E, P, seed, nfc);
    }
    free(want_q1);
    free(want_q1_ext);
    for (int i = 0; i < ntops; i++) free(want_q2[i]);
    for (size_t k = 0; k < nfc; k++) free(frefs[k]);
    free(obj);
}

static void test_weblog(void) {
    const uint32_t entries[] = {20, 32, 64, 128, 256};
    uint64_t seed = 0x5eed;
    for (int i = 0; i < 5; i++) {
        uint32_t E = entries[i];
        char path[4200], cmd[16384];
        snprintf(path, sizeof path, "%s/wc98_%u.bin", tmpdir, E);
        /* about 150 KB each: dozens of pages of either size, records straddle pages */
        snprintf(cmd, sizeof cmd, "python3 %s gen %s --records %u --entry-bytes %u --seed %d", wc98, path,
                 150000 / E, E, 10 + i);
        CHECK(system(cmd) == 0);
        check_weblog(path, E, &seed, E == 20, E == 128);
        remove(path);
    }
    /* every region and type byte, so region-4..7, OTHER and ties appear */
    char path[4200], cmd[16384];
    snprintf(path, sizeof path, "%s/wc98_uniform.bin", tmpdir);
    snprintf(cmd, sizeof cmd, "python3 %s gen %s --records 8000 --entry-bytes 24 --seed 3 --mix uniform", wc98,
             path);
    CHECK(system(cmd) == 0);
    check_weblog(path, 24, &seed, 0, 1);
    remove(path);
}

static void test_weblog_errors(void) {
    uint8_t obj[1000] = {0};
    char err[512];
    csd_exec *t;
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    struct { const char *tasklet; csd_kv kv[3]; size_t n; const char *msg; } cases[] = {
        {"weblog-q1", {{"entry_bytes", "19"}}, 1, "param entry_bytes: 19 is out of range [20, 65536]"},
        {"weblog-q1", {{"entry_bytes", "20x"}}, 1, "param entry_bytes: '20x' is not a non-negative integer"},
        {"weblog-q2", {{"top_n", "14"}}, 1, "param top_n: 14 is out of range [1, 13]"},
        {"weblog-q2", {{"top_n", "0"}}, 1, "param top_n: 0 is out of range [1, 13]"},
        {"filter", {{"field_width", "3"}, {"value", "1"}}, 2, "param field_width: 3 is not 1, 2, 4 or 8"},
        {"filter", {{"entry_bytes", "20"}, {"field_offset", "16"}, {"field_width", "8"}}, 3,
         "field [16, 24) lies past the 20-byte record"},
        {"filter", {{"op", "like"}, {"value", "1"}}, 2, "param op: 'like' is not one of eq|ne|lt|le|gt|ge"},
        {"filter", {{"op", "eq"}}, 1, "param value is required"},
        {"filter", {{"value", "12abc"}}, 1, "param value: '12abc' is not a 64-bit integer"},
        {"filter", {{"value", "1"}, {"mode", "pages"}}, 2, "param mode: 'pages' is not one of records|lbas"},
        {"filter", {{"value", "1"}, {"signed", "maybe"}}, 2, "param signed: 'maybe' is not a boolean"},
        {"filter", {{"value", "18446744073709551615"}, {"signed", "1"}}, 2, "is not a 64-bit integer"},
        {"grep", {{"mode", "count"}}, 1, "grep needs a non-empty pattern"},
        {"grep", {{"pattern", ""}}, 1, "grep needs a non-empty pattern"},
        {"grep", {{"pattern", "x"}, {"mode", "all"}}, 2, "param mode: 'all' is not one of count|lines"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        csd_tasklet_args a = args_of(cases[i].kv, cases[i].n);
        err[0] = 0;
        CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find(cases[i].tasklet), &a, &ob, err, sizeof err), -EINVAL);
        CHECK_CONTAINS(err, cases[i].msg);
    }
    /* a wrong entry_bytes shows as an object size that is not a multiple of it */
    csd_kv kv[] = {{"entry_bytes", "32"}};
    csd_tasklet_args a = args_of(kv, 1);
    CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find("weblog-q2"), &a, &ob, err, sizeof err), 0);
    uint64_t fp, lp;
    CHECK_EQ_INT(csd_exec_begin(t, 1000, 0, 1000, 4096, &fp, &lp, err, sizeof err), -EINVAL);
    CHECK_STR(err, "object size 1000 is not a multiple of entry_bytes 32");
    csd_exec_destroy(t);
    (void)obj;
    CHECK(csd_tasklet_find("no-such") == NULL);
    CHECK(csd_tasklet_find(NULL) == NULL);
    size_t n = 0;
    for (const csd_tasklet_ops *const *p = csd_tasklets_builtin(); *p; p++, n++) {
        CHECK((*p)->summary && (*p)->init && (*p)->record);
        CHECK(csd_tasklet_find((*p)->name) == *p);
    }
    CHECK(n >= 5);
    static const char *const expected[] = { "weblog-q1", "weblog-q2", "filter", "grep", "plan", "dram-scan" };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) CHECK(csd_tasklet_find(expected[i]) != NULL);
    /* the registry: the public list is its ops in order; each built-in's hooks travel with it, and a
     * tasklet that only shares a built-in's name gets none */
    size_t k = 0;
    for (const csd_builtin *b; (b = csd_builtin_at(k)); k++) {
        CHECK(csd_tasklets_builtin()[k] == b->ops);
        CHECK(csd_builtin_find(b->ops->name) == b);
        CHECK(csd_builtin_hooks_of(b->ops) == b->hooks);
        int fast = !strcmp(b->ops->name, "weblog-q1") || !strcmp(b->ops->name, "weblog-q2") ||
                   !strcmp(b->ops->name, "grep") || !strcmp(b->ops->name, "plan");
        CHECK_EQ_INT(b->hooks != NULL, fast);
    }
    CHECK_EQ_INT((int)k, (int)n);
    CHECK(csd_builtin_find("no-such") == NULL && csd_builtin_hooks_of(NULL) == NULL);
    csd_tasklet_ops lookalike = *csd_tasklet_find("weblog-q1");
    CHECK(csd_builtin_hooks_of(&lookalike) == NULL);
    csd_outbuf_free(&ob);
}

/* ------------------------------------------------------------------ grep */

/* Reference: split on '\n' with strtok-free scanning, NUL-terminate each line, naive substring test. */
static int naive_contains(const char *line, size_t len, const char *pat) {
    size_t m = strlen(pat);
    for (size_t i = 0; i + m <= len; i++) {
        size_t k = 0;
        while (k < m && line[i + k] == pat[k]) k++;
        if (k == m) return 1;
    }
    return 0;
}

static void grep_reference(const char *text, size_t size, const char *pat, long long *count, tk_text *lines,
                           uint64_t *words) {
    *count = 0;
    *words = 0;
    size_t i = 0;
    while (i < size) {
        size_t j = i;
        while (j < size && text[j] != '\n') j++;
        size_t len = j - i;
        if (len && text[i + len - 1] == '\r') len--;
        *words += (len + 3) / 4;
        if (naive_contains(text + i, len, pat)) {
            ++*count;
            tk_text_add(lines, "%zu\t%.*s\n", i, (int)len, text + i);
        }
        i = j + 1;
    }
}

static char *make_words(uint64_t *seed, size_t size) {
    static const char *const words[] = {"smart", "ssd", "flash", "page", "tasklet", "host", "GET",
                                        "/english/index.html", "world", "cup", "98", "needle", "hay"};
    char *b = malloc(size + 1);
    size_t i = 0;
    while (i < size) {
        uint64_t r = rng_next(seed);
        const char *w = words[r % 13];
        for (size_t k = 0; w[k] && i < size; k++) b[i++] = w[k];
        if (i < size) b[i++] = r % 9 == 0 ? '\n' : (r % 50 == 1 ? '\r' : ' ');
        if (i < size && r % 97 == 0) b[i++] = '\n';   /* empty lines */
    }
    b[size] = 0;
    return b;
}

static void test_grep(void) {
    uint64_t seed = 77;
    const char *pats[] = {"needle", "ssd flash", "e", "98\r", "/english/index.html", "zzz"};
    for (int round = 0; round < 4; round++) {
        size_t size = 50000 + rng_next(&seed) % 50000;
        char *text = make_words(&seed, size);
        if (round == 1) text[size - 1] = '\n';
        for (size_t pi = 0; pi < sizeof pats / sizeof pats[0]; pi++) {
            long long count;
            uint64_t words;
            tk_text lines = {0};
            tk_text_add(&lines, "%s", "");
            grep_reference(text, size, pats[pi], &count, &lines, &words);
            for (int P = 4096; P <= 8192; P *= 2) {
                csd_kv kv[] = {{"pattern", pats[pi]}, {"mode", "count"}};
                csd_tasklet_args a = args_of(kv, 2);
                tk_result r = tk_run(csd_tasklet_find("grep"), &a, (const uint8_t *)text, size, NULL, 0,
                                     (uint32_t)P, TK_BYTES_RAW, 0, 0);
                CHECK_EQ_INT(r.rc, 0);
                char want[64];
                snprintf(want, sizeof want, "%lld\n", count);
                tk_check_text(r.text.s, want, "grep count");
                CHECK_EQ_U64(r.dram, words);
                tk_result_free(&r);
                /* extents: counts add up */
                uint64_t cuts[10];
                random_cuts(&seed, size, cuts, 10);
                r = tk_run(csd_tasklet_find("grep"), &a, (const uint8_t *)text, size, cuts, 10, (uint32_t)P,
                           TK_BYTES_RAW, 0, 0);
                CHECK_EQ_INT(r.rc, 0);
                CHECK_EQ_U64(r.rows, 11);
                long long sum = 0;
                for (const char *p = r.text.s; *p; p = strchr(p, '\n') + 1) sum += atoll(p);
                CHECK_EQ_INT(sum, count);
                CHECK_EQ_U64(r.dram, words);
                tk_result_free(&r);
                /* lines mode, split */
                kv[1].value = "lines";
                r = tk_run(csd_tasklet_find("grep"), &a, (const uint8_t *)text, size, cuts, 10, (uint32_t)P,
                           TK_BYTES_RAW, 0, 0);
                CHECK_EQ_INT(r.rc, 0);
                tk_check_text(r.text.s, lines.s, "grep lines");
                tk_result_free(&r);
            }
            free(lines.s);
        }
        free(text);
    }
    /* a runtime keyword wins over the static pattern; max_outputs truncates */
    const char *text = "alpha\nbeta\ngamma\nbeta gamma\nbetamax\n";
    csd_kv kv[] = {{"pattern", "alpha"}, {"mode", "lines"}};
    csd_tasklet_args a = args_of(kv, 2);
    const char *kw[] = {"beta"};
    a.keywords = kw;
    a.n_keywords = 1;
    tk_result r = tk_run(csd_tasklet_find("grep"), &a, (const uint8_t *)text, strlen(text), NULL, 0, 4096,
                         TK_BYTES_RAW, 0, 0);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "6\tbeta\n17\tbeta gamma\n28\tbetamax\n", "grep keyword");
    tk_result_free(&r);
    r = tk_run(csd_tasklet_find("grep"), &a, (const uint8_t *)text, strlen(text), NULL, 0, 4096, TK_BYTES_RAW, 2, 0);
    CHECK_EQ_INT(r.rc, 0);
    CHECK(r.truncated);
    tk_check_text(r.text.s, "6\tbeta\n17\tbeta gamma\n", "grep max_outputs");
    tk_result_free(&r);
    /* runtime params override static ones */
    csd_kv rt[] = {{"mode", "count"}};
    a.runtime_params = rt;
    a.n_runtime = 1;
    r = tk_run(csd_tasklet_find("grep"), &a, (const uint8_t *)text, strlen(text), NULL, 0, 4096, TK_BYTES_RAW, 0, 0);
    tk_check_text(r.text.s, "3\n", "grep runtime mode");
    tk_result_free(&r);
}

int main(void) {
    find_wc98();
    tmpdir = csd_test_dir("test_tasklets");
    test_weblog_errors();
    test_grep();
    test_weblog();
    rmdir(tmpdir);
    TEST_OK("test_tasklets");
}
