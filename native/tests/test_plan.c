/* The plan tasklet against a reference written directly in C for each query (loops over the logical
 * rows, explicit three-valued logic, qsort): the same logical table is stored as fixed-size binary
 * records and as CSV text, and every query must give the reference's rows in both. Also: every
 * validation error and the division-by-zero runtime error, with their messages.
 * With CSD_WRITE_FUZZ_SEEDS=DIR it also writes seed inputs for fuzz/fuzz_plan.c into DIR. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_plan_build.h"
#include "test_tasklets_util.h"

/* ------------------------------------------------------------------ the logical table */

typedef struct lrow {
    int a_null; int64_t a;
    int64_t b;                  /* 0..65535 */
    int flag_null; int flag;
    int64_t k;                  /* 0..7 (bit field) */
    int64_t nib;                /* -8..7 (signed bit field) */
    int c_null; double c;
    char name[9];
    int64_t d;
} lrow;

#define NROWS 3000
#define ENTRY 32
static const char *const NAMES[] = {"alpha", "abba", "abc", "beta", "phi", "gamma", "delta", "omega",
                                    "zeta", "ab", "alphabet", "x"};

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void make_rows(lrow *r, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        uint64_t x = rng_next(&seed);
        r[i].a_null = x % 9 == 0;
        r[i].a = r[i].a_null ? 0 : (int64_t)(rng_next(&seed) % 2001) - 1000;
        if (!r[i].a_null && x % 13 == 1) r[i].a = (int64_t)(rng_next(&seed) % 8) ;   /* small values: IN hits */
        r[i].b = (int64_t)(rng_next(&seed) % 65536);
        r[i].flag_null = x % 7 == 3;
        r[i].flag = !r[i].flag_null && rng_next(&seed) % 2;
        r[i].k = (int64_t)(rng_next(&seed) % 8);
        r[i].nib = (int64_t)(rng_next(&seed) % 16) - 8;
        r[i].c_null = x % 11 == 5;
        r[i].c = r[i].c_null ? 0 : ((double)(int64_t)(rng_next(&seed) % 200001) - 100000) / 64.0;
        if (!r[i].c_null && x % 17 == 2) r[i].c = 2;    /* c = 2 hits */
        snprintf(r[i].name, sizeof r[i].name, "%s", NAMES[rng_next(&seed) % 12]);
        r[i].d = (int64_t)(rng_next(&seed) % 2000000000001ull) - 1000000000000ll;
    }
}

static void put_be(uint8_t *p, uint64_t v, int w) {
    for (int i = w - 1; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}
static void put_le(uint8_t *p, uint64_t v, int w) {
    for (int i = 0; i < w; i++, v >>= 8) p[i] = (uint8_t)v;
}

static uint8_t *encode_fixed(const lrow *r, size_t n, uint64_t *size) {
    uint8_t *b = calloc(n, ENTRY);
    CHECK(b);
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = b + i * ENTRY;
        put_be(p, r[i].a_null ? 0x80000000u : (uint32_t)(int32_t)r[i].a, 4);
        put_le(p + 4, (uint64_t)r[i].b, 2);
        p[6] = r[i].flag_null ? 2 : (uint8_t)r[i].flag;
        p[7] = (uint8_t)(r[i].k | ((uint64_t)r[i].nib & 0xF) << 3 | 0x80);   /* bit 7: noise outside both fields */
        uint64_t bits;
        memcpy(&bits, &r[i].c, 8);
        put_le(p + 8, r[i].c_null ? UINT64_MAX : bits, 8);
        memcpy(p + 16, r[i].name, strlen(r[i].name));
        put_be(p + 24, (uint64_t)r[i].d, 8);
    }
    *size = (uint64_t)n * ENTRY;
    return b;
}

/* CSV with a header, NULLs as empty or unparsable fields, optionally CRLF and another delimiter. */
static char *encode_text(const lrow *r, size_t n, char delim, int crlf, uint64_t seed, uint64_t *size) {
    tk_text t = {0};
    const char *eol = crlf ? "\r\n" : "\n";
    tk_text_add(&t, "a%cb%cflag%ck%cnib%cc%cname%cd%s", delim, delim, delim, delim, delim, delim, delim, eol);
    static const char *const bad_int[] = {"", "x12", "1.5", "99999999999999999999", " 7"};
    static const char *const bad_bool[] = {"", "yes", "2"};
    static const char *const bad_dbl[] = {"", "abc", "1.2.3", "4e"};
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng_next(&seed);
        if (r[i].a_null) tk_text_add(&t, "%s", bad_int[x % 5]);
        else tk_text_add(&t, "%s%lld", x % 3 == 0 && r[i].a >= 0 ? "+" : "", (long long)r[i].a);
        tk_text_add(&t, "%c%lld%c", delim, (long long)r[i].b, delim);
        if (r[i].flag_null) tk_text_add(&t, "%s", bad_bool[x % 3]);
        else tk_text_add(&t, "%s", (x >> 8) % 2 ? (r[i].flag ? "true" : "False") : (r[i].flag ? "1" : "0"));
        tk_text_add(&t, "%c%lld%c%lld%c", delim, (long long)r[i].k, delim, (long long)r[i].nib, delim);
        if (r[i].c_null) tk_text_add(&t, "%s", bad_dbl[x % 4]);
        else tk_text_add(&t, "%.17g", r[i].c);
        tk_text_add(&t, "%c%s%c%lld%s", delim, r[i].name, delim, (long long)r[i].d, eol);
    }
    *size = t.len;
    return t.s;
}

enum { COL_A, COL_B, COL_FLAG, COL_K, COL_NIB, COL_C, COL_NAME, COL_D };
enum { FMT_FIXED, FMT_CSV, FMT_SEMI_CRLF, N_FMT };

static void add_columns(plan_b *b, int fmt) {
    if (fmt == FMT_FIXED) {
        Smartssd__V1__Column *c;
        c = C_fixed("a", 1, 0, 4, 1, 1);
        c->has_null_raw = 1;
        c->null_raw = 0x80000000u;
        PB_col(b, c);
        PB_col(b, C_fixed("b", 1, 4, 2, 0, 0));
        c = C_fixed("flag", 4, 6, 1, 0, 0);
        c->has_null_raw = 1;
        c->null_raw = 2;
        PB_col(b, c);
        c = C_fixed("k", 1, 7, 1, 0, 0);
        c->mask = 7;
        PB_col(b, c);
        c = C_fixed("nib", 1, 7, 1, 0, 1);
        c->shift = 3;
        c->mask = 0xF;
        PB_col(b, c);
        c = C_fixed("c", 2, 8, 8, 0, 0);
        c->has_null_raw = 1;
        c->null_raw = UINT64_MAX;
        PB_col(b, c);
        PB_col(b, C_fixed("name", 3, 16, 8, 0, 0));
        PB_col(b, C_fixed("d", 1, 24, 8, 1, 1));
    } else {
        static const int types[] = {1, 1, 4, 1, 1, 2, 3, 1};
        static const char *const names[] = {"a", "b", "flag", "k", "nib", "c", "name", "d"};
        for (uint32_t i = 0; i < 8; i++) PB_col(b, C_text(names[i], types[i], i));
    }
}

static void init_plan(plan_b *b, int fmt) {
    if (fmt == FMT_FIXED) PB_init_fixed(b, ENTRY);
    else if (fmt == FMT_CSV) PB_init_text(b, "", 1);
    else PB_init_text(b, ";", 1);
    add_columns(b, fmt);
}

/* ------------------------------------------------------------------ reference output */

typedef struct ref {
    tk_text t;
    int first;
} ref;

static void R_sep(ref *r) {
    if (!r->first) tk_text_add(&r->t, "\t");
    r->first = 0;
}
static void R_int(ref *r, int64_t v) { R_sep(r); tk_text_add(&r->t, "%lld", (long long)v); }
static void R_dbl(ref *r, double v) { R_sep(r); tk_text_add(&r->t, "%.17g", v); }
static void R_str(ref *r, const char *s) { R_sep(r); tk_text_add(&r->t, "%s", s); }
static void R_bool(ref *r, int b) { R_sep(r); tk_text_add(&r->t, "%s", b ? "true" : "false"); }
static void R_null(ref *r) { R_sep(r); tk_text_add(&r->t, "NULL"); }
static void R_tv(ref *r, int tv) { if (tv < 0) R_null(r); else R_bool(r, tv); }

/* rows are written "row\n" */
static void R_begin(ref *r) { r->first = 1; }
static void R_done(ref *r) { tk_text_add(&r->t, "\n"); }

static int tv_and(int a, int b) { return a == 0 || b == 0 ? 0 : a < 0 || b < 0 ? -1 : 1; }
static int tv_or(int a, int b) { return a == 1 || b == 1 ? 1 : a < 0 || b < 0 ? -1 : 0; }
static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }
static int ends(const char *s, const char *p) {
    size_t n = strlen(s), m = strlen(p);
    return m <= n && !strcmp(s + n - m, p);
}

/* ------------------------------------------------------------------ queries */

typedef struct query {
    const char *name;
    void (*plan)(plan_b *b);
    void (*ref)(const lrow *r, size_t n, ref *out);
    int concat_ok;      /* output of extents concatenated equals the whole (no aggregates/order/limit) */
} query;

static void qa_plan(plan_b *b) { (void)b; }
static void qa_ref(const lrow *r, size_t n, ref *o) {
    for (size_t i = 0; i < n; i++) {
        R_begin(o);
        if (r[i].a_null) R_null(o); else R_int(o, r[i].a);
        R_int(o, r[i].b);
        if (r[i].flag_null) R_null(o); else R_bool(o, r[i].flag);
        R_int(o, r[i].k);
        R_int(o, r[i].nib);
        if (r[i].c_null) R_null(o); else R_dbl(o, r[i].c);
        R_str(o, r[i].name);
        R_int(o, r[i].d);
        R_done(o);
    }
}

static void qf_plan(plan_b *b) {
    b->p.filter = OR(AND(E_bin(OP(GT), E_col(COL_A), E_i(10)), E_bin(OP(STARTS_WITH), E_col(COL_NAME), E_s("ab"))),
                     E_un(UOP(IS_NULL), E_col(COL_C)));
    PB_project(b, E_col(COL_A));
    PB_project(b, E_bin(OP(MUL), E_col(COL_C), E_d(2.0)));
    PB_project(b, E_col(COL_NAME));
    PB_project(b, E_bin(OP(ADD), E_col(COL_A), E_col(COL_D)));
    PB_project(b, E_un(UOP(NEG), E_col(COL_B)));
}
static void qf_ref(const lrow *r, size_t n, ref *o) {
    for (size_t i = 0; i < n; i++) {
        int t1 = r[i].a_null ? -1 : r[i].a > 10;
        int t = tv_or(tv_and(t1, starts(r[i].name, "ab")), r[i].c_null);
        if (t != 1) continue;
        R_begin(o);
        if (r[i].a_null) R_null(o); else R_int(o, r[i].a);
        if (r[i].c_null) R_null(o); else R_dbl(o, r[i].c * 2.0);
        R_str(o, r[i].name);
        if (r[i].a_null) R_null(o); else R_int(o, r[i].a + r[i].d);
        R_int(o, -r[i].b);
        R_done(o);
    }
}

static void qin_plan(plan_b *b) {
    Smartssd__V1__Literal *v[] = {L_i(5), L_i(7), L_i(-3), L_null()};
    b->p.filter = E_in(E_col(COL_A), 4, v);
    PB_project(b, E_col(COL_A));
    PB_project(b, E_col(COL_NAME));
}
static void qin_ref(const lrow *r, size_t n, ref *o) {
    for (size_t i = 0; i < n; i++) {
        if (r[i].a_null || (r[i].a != 5 && r[i].a != 7 && r[i].a != -3)) continue;
        R_begin(o);
        R_int(o, r[i].a);
        R_str(o, r[i].name);
        R_done(o);
    }
}

/* NOT IN with a NULL in the list is never TRUE: an empty result */
static void qnotin_null_plan(plan_b *b) {
    Smartssd__V1__Literal *v[] = {L_i(5), L_i(7), L_null()};
    b->p.filter = NOT(E_in(E_col(COL_A), 3, v));
    PB_project(b, E_col(COL_A));
}
static void qnotin_null_ref(const lrow *r, size_t n, ref *o) { (void)r; (void)n; (void)o; }

static void qnotin_plan(plan_b *b) {
    Smartssd__V1__Literal *v[] = {L_i(5), L_i(7), L_i(0)};
    b->p.filter = NOT(E_in(E_col(COL_A), 3, v));
    PB_project(b, E_col(COL_A));
    PB_project(b, E_un(UOP(NOT), E_col(COL_FLAG)));
}
static void qnotin_ref(const lrow *r, size_t n, ref *o) {
    for (size_t i = 0; i < n; i++) {
        if (r[i].a_null || r[i].a == 5 || r[i].a == 7 || r[i].a == 0) continue;
        R_begin(o);
        R_int(o, r[i].a);
        R_tv(o, r[i].flag_null ? -1 : !r[i].flag);
        R_done(o);
    }
}

static void qcmp_plan(plan_b *b) {
    PB_project(b, E_bin(OP(LT), E_col(COL_A), E_col(COL_C)));
    PB_project(b, E_bin(OP(LE), E_col(COL_A), E_col(COL_C)));
    PB_project(b, E_bin(OP(EQ), E_col(COL_A), E_col(COL_K)));
    PB_project(b, E_bin(OP(NE), E_col(COL_A), E_col(COL_B)));
    PB_project(b, E_bin(OP(GT), E_col(COL_A), E_col(COL_C)));
    PB_project(b, E_bin(OP(GE), E_col(COL_A), E_col(COL_C)));
    PB_project(b, E_bin(OP(EQ), E_col(COL_FLAG), E_b(1)));
    PB_project(b, E_bin(OP(LT), E_col(COL_NAME), E_s("b")));
    PB_project(b, E_bin(OP(EQ), E_col(COL_C), E_i(2)));
    PB_project(b, E_bin(OP(GE), E_col(COL_NIB), E_col(COL_K)));
    PB_project(b, E_bin(OP(EQ), E_col(COL_NAME), E_s("abc")));
    PB_project(b, E_bin(OP(LT), E_col(COL_FLAG), E_b(1)));
}
static void qcmp_ref(const lrow *r, size_t n, ref *o) {
    for (size_t i = 0; i < n; i++) {
        int ac = r[i].a_null || r[i].c_null;
        double a = (double)r[i].a, c = r[i].c;
        R_begin(o);
        R_tv(o, ac ? -1 : a < c);
        R_tv(o, ac ? -1 : a <= c);
        R_tv(o, r[i].a_null ? -1 : r[i].a == r[i].k);
        R_tv(o, r[i].a_null ? -1 : r[i].a != r[i].b);
        R_tv(o, ac ? -1 : a > c);
        R_tv(o, ac ? -1 : a >= c);
        R_tv(o, r[i].flag_null ? -1 : r[i].flag == 1);
        R_tv(o, strcmp(r[i].name, "b") < 0);
        R_tv(o, r[i].c_null ? -1 : c == 2.0);
        R_tv(o, r[i].nib >= r[i].k);
        R_tv(o, !strcmp(r[i].name, "abc"));
        R_tv(o, r[i].flag_null ? -1 : r[i].flag < 1);
        R_done(o);
    }
}

static void qarith_plan(plan_b *b) {
    Smartssd__V1__Expr *b1 = E_bin(OP(ADD), E_col(COL_B), E_i(1));
    PB_project(b, E_bin(OP(DIV), E_col(COL_A), E_i(7)));
    PB_project(b, E_bin(OP(MOD), E_col(COL_A), E_i(7)));
    PB_project(b, E_bin(OP(DIV), E_col(COL_D), b1));
    PB_project(b, E_bin(OP(MOD), E_col(COL_D), E_bin(OP(ADD), E_col(COL_B), E_i(1))));
    PB_project(b, E_bin(OP(DIV), E_col(COL_C), E_d(4.0)));
    PB_project(b, E_bin(OP(SUB), E_col(COL_C), E_col(COL_A)));
    PB_project(b, E_bin(OP(SUB), E_bin(OP(MUL), E_col(COL_A), E_i(3)), E_col(COL_K)));
    PB_project(b, E_un(UOP(NEG), E_col(COL_NIB)));
    PB_project(b, E_bin(OP(MOD), E_col(COL_C), E_d(2.5)));
    PB_project(b, E_bin(OP(DIV), E_col(COL_A), E_null()));   /* NULL divisor: NULL, not an error */
    PB_project(b, E_bin(OP(ADD), E_col(COL_K), E_d(0.5)));
}
static void qarith_ref(const lrow *r, size_t n, ref *o) {
    for (size_t i = 0; i < n; i++) {
        const lrow *x = &r[i];
        R_begin(o);
        if (x->a_null) R_null(o); else R_int(o, x->a / 7);
        if (x->a_null) R_null(o); else R_int(o, x->a % 7);
        R_int(o, x->d / (x->b + 1));
        R_int(o, x->d % (x->b + 1));
        if (x->c_null) R_null(o); else R_dbl(o, x->c / 4.0);
        if (x->c_null || x->a_null) R_null(o); else R_dbl(o, x->c - (double)x->a);
        if (x->a_null) R_null(o); else R_int(o, x->a * 3 - x->k);
        R_int(o, -x->nib);
        if (x->c_null) R_null(o); else R_dbl(o, fmod(x->c, 2.5));
        R_null(o);
        R_dbl(o, (double)x->k + 0.5);
        R_done(o);
    }
}

static void qstr_plan(plan_b *b) {
    b->p.filter = OR(E_bin(OP(ENDS_WITH), E_col(COL_NAME), E_s("ta")),
                     E_bin(OP(CONTAINS), E_col(COL_NAME), E_s("ph")));
    PB_project(b, E_col(COL_NAME));
    PB_project(b, E_un(UOP(IS_NULL), E_col(COL_A)));
    PB_project(b, E_un(UOP(IS_NOT_NULL), E_col(COL_C)));
    PB_project(b, E_bin(OP(CONTAINS), E_col(COL_NAME), E_s("")));
}
static void qstr_ref(const lrow *r, size_t n, ref *o) {
    for (size_t i = 0; i < n; i++) {
        if (!ends(r[i].name, "ta") && !strstr(r[i].name, "ph")) continue;
        R_begin(o);
        R_str(o, r[i].name);
        R_bool(o, r[i].a_null);
        R_bool(o, !r[i].c_null);
        R_bool(o, 1);
        R_done(o);
    }
}

/* group by name, every aggregate, ordered by name */
static void qgroup_plan(plan_b *b) {
    PB_group(b, E_col(COL_NAME));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT, E_col(COL_A));
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(COL_A));
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(COL_C));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MIN, E_col(COL_C));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MAX, E_col(COL_A));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MAX, E_col(COL_NAME));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MIN, E_col(COL_FLAG));
    PB_order(b, 0, 0);
}
static int name_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }
static void qgroup_ref(const lrow *r, size_t n, ref *o) {
    const char *names[12];
    size_t nn = 0;
    for (size_t i = 0; i < 12; i++) {
        int seen = 0;
        for (size_t j = 0; j < n && !seen; j++) seen = !strcmp(r[j].name, NAMES[i]);
        if (seen) names[nn++] = NAMES[i];
    }
    qsort(names, nn, sizeof *names, name_cmp);
    for (size_t g = 0; g < nn; g++) {
        int64_t cnt = 0, cnta = 0, suma = 0, maxa = 0;
        double sumc = 0, minc = 0;
        int nc = 0, nf = 0, minf = 1;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(r[i].name, names[g])) continue;
            cnt++;
            if (!r[i].a_null) {
                if (!cnta || r[i].a > maxa) maxa = r[i].a;
                cnta++;
                suma += r[i].a;
            }
            if (!r[i].c_null) {
                if (!nc || r[i].c < minc) minc = r[i].c;
                sumc += r[i].c;
                nc++;
            }
            if (!r[i].flag_null) {
                nf++;
                if (!r[i].flag) minf = 0;
            }
        }
        R_begin(o);
        R_str(o, names[g]);
        R_int(o, cnt);
        R_int(o, cnta);
        if (cnta) R_int(o, suma); else R_null(o);
        if (nc) R_dbl(o, sumc); else R_null(o);
        if (nc) R_dbl(o, minc); else R_null(o);
        if (cnta) R_int(o, maxa); else R_null(o);
        R_str(o, names[g]);
        if (nf) R_bool(o, minf); else R_null(o);
        R_done(o);
    }
}

/* group by k, first-seen order */
static void qgroup_seen_plan(plan_b *b) {
    PB_group(b, E_col(COL_K));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(COL_D));
}
static void qgroup_seen_ref(const lrow *r, size_t n, ref *o) {
    int64_t order[8], cnt[8] = {0}, sum[8] = {0};
    size_t no = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cnt[r[i].k]) order[no++] = r[i].k;
        cnt[r[i].k]++;
        sum[r[i].k] += r[i].d;
    }
    for (size_t g = 0; g < no; g++) {
        R_begin(o);
        R_int(o, order[g]);
        R_int(o, cnt[order[g]]);
        R_int(o, sum[order[g]]);
        R_done(o);
    }
}

/* global aggregates with no input: one row, counts 0, the rest NULL */
static void qglobal_empty_plan(plan_b *b) {
    b->p.filter = E_bin(OP(GT), E_col(COL_A), E_i(1000000));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT, E_col(COL_A));
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(COL_A));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MIN, E_col(COL_C));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MAX, E_col(COL_NAME));
}
static void qglobal_empty_ref(const lrow *r, size_t n, ref *o) {
    (void)r; (void)n;
    tk_text_add(&o->t, "0\t0\tNULL\tNULL\tNULL\n");
}

static void qglobal_plan(plan_b *b) {
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT, E_col(COL_C));
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_col(COL_B));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MAX, E_col(COL_D));
    PB_agg(b, SMARTSSD__V1__AGG_FN__MIN, E_col(COL_NAME));
    PB_agg(b, SMARTSSD__V1__AGG_FN__SUM, E_bin(OP(MUL), E_col(COL_K), E_d(0.25)));
}
static void qglobal_ref(const lrow *r, size_t n, ref *o) {
    int64_t nc = 0, sb = 0, md = INT64_MIN;
    double sk = 0;
    const char *mn = NULL;
    for (size_t i = 0; i < n; i++) {
        nc += !r[i].c_null;
        sb += r[i].b;
        if (r[i].d > md) md = r[i].d;
        if (!mn || strcmp(r[i].name, mn) < 0) mn = r[i].name;
        sk += (double)r[i].k * 0.25;
    }
    R_begin(o);
    R_int(o, (int64_t)n);
    R_int(o, nc);
    R_int(o, sb);
    R_int(o, md);
    R_str(o, mn);
    R_dbl(o, sk);
    R_done(o);
}

static void qgroup_empty_plan(plan_b *b) {
    b->p.filter = E_b(0);
    PB_group(b, E_col(COL_K));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
}
static void qgroup_empty_ref(const lrow *r, size_t n, ref *o) { (void)r; (void)n; (void)o; }

/* top-N: c descending (NULLs last), then a ascending (NULLs first), then input order */
static const lrow *sort_rows;
static int topn_cmp(const void *x, const void *y) {
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const lrow *a = &sort_rows[i], *b = &sort_rows[j];
    if (a->c_null != b->c_null) return a->c_null ? 1 : -1;
    if (!a->c_null && a->c != b->c) return a->c > b->c ? -1 : 1;
    if (a->a_null != b->a_null) return a->a_null ? -1 : 1;
    if (!a->a_null && a->a != b->a) return a->a < b->a ? -1 : 1;
    return i < j ? -1 : 1;
}
static void qtopn_plan(plan_b *b) {
    PB_project(b, E_col(COL_NAME));
    PB_project(b, E_col(COL_C));
    PB_project(b, E_col(COL_A));
    PB_order(b, 1, 1);
    PB_order(b, 2, 0);
    b->p.limit = 7;
}
static void topn_ref_n(const lrow *r, size_t n, ref *o, size_t limit) {
    size_t *idx = malloc(n * sizeof *idx);
    for (size_t i = 0; i < n; i++) idx[i] = i;
    sort_rows = r;
    qsort(idx, n, sizeof *idx, topn_cmp);
    for (size_t k = 0; k < n && k < limit; k++) {
        const lrow *x = &r[idx[k]];
        R_begin(o);
        R_str(o, x->name);
        if (x->c_null) R_null(o); else R_dbl(o, x->c);
        if (x->a_null) R_null(o); else R_int(o, x->a);
        R_done(o);
    }
    free(idx);
}
static void qtopn_ref(const lrow *r, size_t n, ref *o) { topn_ref_n(r, n, o, 7); }
static void qsortall_plan(plan_b *b) {
    qtopn_plan(b);
    b->p.limit = 0;
}
static void qsortall_ref(const lrow *r, size_t n, ref *o) { topn_ref_n(r, n, o, SIZE_MAX); }

/* limit without order: the first rows, and input stops */
static void qlimit_plan(plan_b *b) {
    b->p.filter = E_bin(OP(EQ), E_col(COL_FLAG), E_b(1));
    PB_project(b, E_col(COL_A));
    PB_project(b, E_col(COL_NAME));
    b->p.limit = 5;
}
static void qlimit_ref(const lrow *r, size_t n, ref *o) {
    size_t k = 0;
    for (size_t i = 0; i < n && k < 5; i++) {
        if (r[i].flag_null || !r[i].flag) continue;
        k++;
        R_begin(o);
        if (r[i].a_null) R_null(o); else R_int(o, r[i].a);
        R_str(o, r[i].name);
        R_done(o);
    }
}

/* top groups: count desc, k asc, limit 3 */
static void qgroup_top_plan(plan_b *b) {
    PB_group(b, E_col(COL_K));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_order(b, 1, 1);
    PB_order(b, 0, 0);
    b->p.limit = 3;
}
static void qgroup_top_ref(const lrow *r, size_t n, ref *o) {
    int64_t cnt[8] = {0};
    for (size_t i = 0; i < n; i++) cnt[r[i].k]++;
    int used[8] = {0};
    for (int k = 0; k < 3; k++) {
        int best = -1;
        for (int g = 0; g < 8; g++)
            if (!used[g] && cnt[g] && (best < 0 || cnt[g] > cnt[best])) best = g;
        if (best < 0) break;
        used[best] = 1;
        R_begin(o);
        R_int(o, best);
        R_int(o, cnt[best]);
        R_done(o);
    }
}

/* two keys, with a NULL key group; group_by alone = distinct */
static void qmulti_plan(plan_b *b) {
    b->p.filter = E_bin(OP(LT), E_col(COL_K), E_i(3));
    PB_group(b, E_col(COL_FLAG));
    PB_group(b, E_col(COL_K));
    PB_agg(b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_order(b, 0, 0);
    PB_order(b, 1, 1);
}
static void qmulti_ref(const lrow *r, size_t n, ref *o) {
    /* flag: NULL first, then false, then true; k descending */
    for (int f = -1; f <= 1; f++)
        for (int k = 2; k >= 0; k--) {
            int64_t c = 0;
            for (size_t i = 0; i < n; i++) {
                int fv = r[i].flag_null ? -1 : r[i].flag;
                c += fv == f && r[i].k == k;
            }
            if (!c) continue;
            R_begin(o);
            if (f < 0) R_null(o); else R_bool(o, f);
            R_int(o, k);
            R_int(o, c);
            R_done(o);
        }
}
static void qdistinct_plan(plan_b *b) {
    PB_group(b, E_col(COL_NIB));
    PB_order(b, 0, 1);
}
static void qdistinct_ref(const lrow *r, size_t n, ref *o) {
    for (int v = 7; v >= -8; v--) {
        int seen = 0;
        for (size_t i = 0; i < n && !seen; i++) seen = r[i].nib == v;
        if (!seen) continue;
        R_begin(o);
        R_int(o, v);
        R_done(o);
    }
}

static const query queries[] = {
    {"all columns", qa_plan, qa_ref, 1},
    {"filter and project", qf_plan, qf_ref, 1},
    {"IN with NULL", qin_plan, qin_ref, 1},
    {"NOT IN with NULL is empty", qnotin_null_plan, qnotin_null_ref, 1},
    {"NOT IN", qnotin_plan, qnotin_ref, 1},
    {"comparisons", qcmp_plan, qcmp_ref, 1},
    {"arithmetic", qarith_plan, qarith_ref, 1},
    {"string ops", qstr_plan, qstr_ref, 1},
    {"group by name", qgroup_plan, qgroup_ref, 0},
    {"group by first seen", qgroup_seen_plan, qgroup_seen_ref, 0},
    {"global aggregates, no input", qglobal_empty_plan, qglobal_empty_ref, 0},
    {"global aggregates", qglobal_plan, qglobal_ref, 0},
    {"group by, no input", qgroup_empty_plan, qgroup_empty_ref, 0},
    {"top-N", qtopn_plan, qtopn_ref, 0},
    {"order by", qsortall_plan, qsortall_ref, 0},
    {"limit", qlimit_plan, qlimit_ref, 0},
    {"top groups", qgroup_top_plan, qgroup_top_ref, 0},
    {"two keys with NULL", qmulti_plan, qmulti_ref, 0},
    {"distinct", qdistinct_plan, qdistinct_ref, 0},
};
#define NQ (sizeof queries / sizeof queries[0])

/* ------------------------------------------------------------------ running */

static tk_result run_plan(const plan_b *b, const uint8_t *obj, uint64_t size, const uint64_t *cuts, size_t ncuts,
                          uint32_t P) {
    size_t len;
    uint8_t *bytes = PB_pack(b, &len);
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.plan = bytes;
    a.plan_len = len;
    tk_result r = tk_run(csd_tasklet_find("plan"), &a, obj, size, cuts, ncuts, P, TK_BYTES_RAW, 0, 0);
    free(bytes);
    return r;
}

static void write_seed(const char *dir, const char *name, const plan_b *b, const uint8_t *obj, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    uint8_t *bytes = PB_pack(b, &len);
    CHECK(len < 65536);
    FILE *f = fopen(path, "wb");
    CHECK(f);
    uint8_t hdr[2] = {(uint8_t)(len >> 8), (uint8_t)len};   /* fuzz_plan: 2-byte big-endian plan length */
    CHECK(fwrite(hdr, 1, 2, f) == 2);
    CHECK(fwrite(bytes, 1, len, f) == len);
    CHECK(fwrite(obj, 1, n, f) == n);
    fclose(f);
    free(bytes);
}

static void test_queries(void) {
    lrow *rows = malloc(NROWS * sizeof *rows);
    make_rows(rows, NROWS, 0xC0FFEE);
    uint64_t sizes[N_FMT];
    uint8_t *objs[N_FMT];
    objs[FMT_FIXED] = encode_fixed(rows, NROWS, &sizes[FMT_FIXED]);
    objs[FMT_CSV] = (uint8_t *)encode_text(rows, NROWS, ',', 0, 11, &sizes[FMT_CSV]);
    objs[FMT_SEMI_CRLF] = (uint8_t *)encode_text(rows, NROWS, ';', 1, 12, &sizes[FMT_SEMI_CRLF]);
    const char *seed_dir = getenv("CSD_WRITE_FUZZ_SEEDS");
    uint64_t seed = 4242;
    for (size_t q = 0; q < NQ; q++) {
        ref want = {0};
        tk_text_add(&want.t, "%s", "");
        queries[q].ref(rows, NROWS, &want);
        for (int fmt = 0; fmt < N_FMT; fmt++) {
            plan_b b;
            init_plan(&b, fmt);
            queries[q].plan(&b);
            uint32_t P = fmt == FMT_CSV ? 8192 : 4096;
            tk_result r = run_plan(&b, objs[fmt], sizes[fmt], NULL, 0, P);
            if (r.rc) fprintf(stderr, "%s: %s\n", queries[q].name, r.err);
            CHECK_EQ_INT(r.rc, 0);
            char what[128];
            snprintf(what, sizeof what, "%s (format %d)", queries[q].name, fmt);
            tk_check_text(r.text.s, want.t.s, what);
            if (getenv("CSD_PLAN_VERBOSE")) printf("%s: %llu rows\n", what, (unsigned long long)r.rows);
            if (queries[q].plan == qlimit_plan) {
                /* the input stopped after the fifth row: far fewer column reads than rows */
                CHECK(r.dram < NROWS / 10);
            } else if (queries[q].plan != qgroup_empty_plan) {   /* a FALSE literal reads nothing */
                CHECK(r.dram >= NROWS);
            }
            tk_result_free(&r);
            if (queries[q].concat_ok) {
                uint64_t cuts[7];
                for (int i = 0; i < 7; i++) cuts[i] = rng_next(&seed) % (sizes[fmt] + 1);
                for (int i = 1; i < 7; i++)
                    for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                        uint64_t x = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = x;
                    }
                r = run_plan(&b, objs[fmt], sizes[fmt], cuts, 7, P);
                CHECK_EQ_INT(r.rc, 0);
                tk_check_text(r.text.s, want.t.s, what);
                tk_result_free(&r);
            }
            if (seed_dir) {
                char name[64];
                snprintf(name, sizeof name, "q%02zu_fmt%d", q, fmt);
                /* a slice of the data keeps seeds small */
                size_t n = fmt == FMT_FIXED ? 20 * ENTRY : 700;
                write_seed(seed_dir, name, &b, objs[fmt], n);
            }
            pb_free_all();
        }
        free(want.t.s);
    }
    /* partial aggregates from extents add up: COUNT(*) per name over any split */
    for (int fmt = 0; fmt < N_FMT; fmt++) {
        plan_b b;
        init_plan(&b, fmt);
        PB_group(&b, E_col(COL_NAME));
        PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
        uint64_t cuts[5];
        for (int i = 0; i < 5; i++) cuts[i] = (i + 1) * sizes[fmt] / 6 + (uint64_t)i * 13;
        tk_result r = run_plan(&b, objs[fmt], sizes[fmt], cuts, 5, 4096);
        CHECK_EQ_INT(r.rc, 0);
        int64_t cnt[12] = {0}, want[12] = {0};
        for (size_t i = 0; i < NROWS; i++)
            for (int k = 0; k < 12; k++) want[k] += !strcmp(rows[i].name, NAMES[k]);
        for (char *p = r.text.s; *p;) {
            char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');
            *tab = 0;
            for (int k = 0; k < 12; k++)
                if (!strcmp(p, NAMES[k])) cnt[k] += atoll(tab + 1);
            p = nl + 1;
        }
        for (int k = 0; k < 12; k++) CHECK_EQ_INT(cnt[k], want[k]);
        tk_result_free(&r);
        pb_free_all();
    }
    for (int f = 0; f < N_FMT; f++) free(objs[f]);
    free(rows);
}

/* ------------------------------------------------------------------ errors */

static void expect_init_error(const plan_b *b, const char *msg) {
    size_t len;
    uint8_t *bytes = PB_pack(b, &len);
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.plan = bytes;
    a.plan_len = len;
    csd_outbuf ob;
    csd_outbuf_init(&ob, 0, 0);
    csd_exec *t = NULL;
    char err[512] = "";
    int rc = csd_exec_create(&t, csd_tasklet_find("plan"), &a, &ob, err, sizeof err);
    if (rc != -EINVAL) fprintf(stderr, "expected init to fail with \"%s\"\n", msg);
    CHECK_EQ_INT(rc, -EINVAL);
    CHECK_CONTAINS(err, msg);
    CHECK(t == NULL);
    free(bytes);
    csd_outbuf_free(&ob);
    pb_free_all();
}

static void test_validation(void) {
    plan_b b;
    /* no format */
    PB_init_fixed(&b, 20);
    b.p.format_case = SMARTSSD__V1__PLAN__FORMAT__NOT_SET;
    b.p.fixed = NULL;
    expect_init_error(&b, "plan: missing input format (fixed, text or parquet)");
    PB_init_fixed(&b, 0);
    expect_init_error(&b, "plan: fixed.entry_bytes must be positive");
    PB_init_text(&b, "ab", 0);
    expect_init_error(&b, "text.delimiter must be one byte");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("x", 1, 16, 8, 1, 0));
    expect_init_error(&b, "column 'x' reads bytes [16, 24) past the 20-byte record");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("s", 3, 10, 11, 0, 0));
    expect_init_error(&b, "column 's' reads bytes [10, 21) past the 20-byte record");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("w", 1, 0, 3, 0, 0));
    expect_init_error(&b, "column 'w': INT64 width 3 must be 1, 2, 4 or 8");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("dd", 2, 0, 4, 0, 0));
    expect_init_error(&b, "column 'dd': DOUBLE width 4 must be 8");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("bb", 4, 0, 2, 0, 0));
    expect_init_error(&b, "column 'bb': BOOL width 2 must be 1");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("ss", 3, 0, 0, 0, 0));
    expect_init_error(&b, "column 'ss': STRING width must be positive");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("t", 9, 0, 4, 0, 0));
    expect_init_error(&b, "column 0 't': unknown type 9");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("m", 1, 0, 4, 0, 0));
    b.cols[0]->shift = 64;
    b.cols[0]->mask = 1;
    expect_init_error(&b, "column 'm': shift 64 must be below 64");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("m", 2, 0, 8, 0, 0));
    b.cols[0]->mask = 1;
    expect_init_error(&b, "column 'm': shift/mask bit fields apply to INT64 columns only");
    /* more than 256 columns */
    PB_init_fixed(&b, 20);
    for (int i = 0; i < 257; i++) PB_col(&b, C_fixed("c", 1, 0, 4, 0, 0));
    expect_init_error(&b, "plan has 257 columns; at most 256");
    /* expressions */
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_col(&b, C_fixed("b", 1, 4, 4, 0, 0));
    PB_col(&b, C_fixed("c", 1, 8, 4, 0, 0));
    b.p.filter = E_bin(OP(GT), E_col(7), E_i(1));
    expect_init_error(&b, "filter: column index 7 out of range (plan has 3 columns)");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_project(&b, E_bin(99, E_col(0), E_i(1)));
    expect_init_error(&b, "project[0]: unknown binary op 99");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_project(&b, E_un(9, E_col(0)));
    expect_init_error(&b, "project[0]: unknown unary op 9");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_agg(&b, 9, E_col(0));
    expect_init_error(&b, "aggregates[0]: unknown aggregate function 9");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_agg(&b, SMARTSSD__V1__AGG_FN__SUM, NULL);
    expect_init_error(&b, "aggregates[0]: needs an argument");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("s", 3, 0, 4, 0, 0));
    PB_agg(&b, SMARTSSD__V1__AGG_FN__SUM, E_col(0));
    expect_init_error(&b, "aggregates[0]: SUM needs a numeric argument, not STRING");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("s", 3, 0, 4, 0, 0));
    PB_project(&b, E_bin(OP(ADD), E_col(0), E_i(1)));
    expect_init_error(&b, "project[0]: ADD needs numeric operands, not STRING and INT64");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("s", 3, 0, 4, 0, 0));
    b.p.filter = E_bin(OP(EQ), E_col(0), E_i(1));
    expect_init_error(&b, "filter: EQ cannot compare STRING and INT64");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    b.p.filter = E_col(0);
    expect_init_error(&b, "filter: is INT64, not BOOL");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    b.p.filter = AND(E_col(0), E_b(1));
    expect_init_error(&b, "filter: AND needs BOOL operands, not INT64 and BOOL");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    b.p.filter = E_bin(OP(CONTAINS), E_col(0), E_s("x"));
    expect_init_error(&b, "filter: CONTAINS needs STRING operands, not INT64 and STRING");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    b.p.filter = NOT(E_col(0));
    expect_init_error(&b, "filter: NOT needs a BOOL operand, not INT64");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    {
        Smartssd__V1__Literal *v[] = {L_s("x")};
        b.p.filter = E_in(E_col(0), 1, v);
    }
    expect_init_error(&b, "filter: IN compares INT64 with a STRING value");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    b.p.filter = E_bin(OP(EQ), E_col(0), NULL);
    expect_init_error(&b, "filter: EQ needs two operands");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_project(&b, E_lit(PB_NEW(Smartssd__V1__Literal, SMARTSSD__V1__LITERAL__INIT)));
    expect_init_error(&b, "project[0]: literal has no value");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_project(&b, PB_NEW(Smartssd__V1__Expr, SMARTSSD__V1__EXPR__INIT));
    expect_init_error(&b, "project[0]: empty expression");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_project(&b, E_col(0));
    PB_order(&b, 1, 0);
    expect_init_error(&b, "order_by[0]: output 1 out of range (rows have 1 columns)");
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("a", 1, 0, 4, 0, 0));
    PB_project(&b, E_col(0));
    PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    expect_init_error(&b, "project cannot be combined with group_by/aggregates");
    /* nesting: 64 levels pass, 65 fail; a very deep message is refused before it is decoded */
    for (int depth = 64; depth <= 65; depth++) {
        PB_init_fixed(&b, 20);
        PB_col(&b, C_fixed("f", 4, 0, 1, 0, 0));
        Smartssd__V1__Expr *e = E_col(0);
        for (int i = 1; i < depth; i++) e = NOT(e);
        b.p.filter = e;
        if (depth == 65) {
            expect_init_error(&b, "filter: expression nesting deeper than 64");
        } else {
            size_t len;
            uint8_t *bytes = PB_pack(&b, &len);
            csd_tasklet_args a;
            memset(&a, 0, sizeof a);
            a.plan = bytes;
            a.plan_len = len;
            uint8_t obj[20] = {0};
            tk_result r = tk_run(csd_tasklet_find("plan"), &a, obj, 20, NULL, 0, 4096, TK_BYTES_RAW, 0, 0);
            CHECK_EQ_INT(r.rc, 0);
            tk_check_text(r.text.s, "false\n", "64 levels (63 NOTs of false pass)");
            tk_result_free(&r);
            free(bytes);
            pb_free_all();
        }
    }
    PB_init_fixed(&b, 20);
    PB_col(&b, C_fixed("f", 4, 0, 1, 0, 0));
    Smartssd__V1__Expr *e = E_col(0);
    for (int i = 0; i < 3000; i++) e = NOT(e);
    b.p.filter = e;
    expect_init_error(&b, "plan: expression nesting deeper than 64");
    /* bytes that are not a Plan */
    {
        const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01};
        csd_tasklet_args a;
        memset(&a, 0, sizeof a);
        a.plan = junk;
        a.plan_len = sizeof junk;
        csd_outbuf ob;
        csd_outbuf_init(&ob, 0, 0);
        csd_exec *t;
        char err[512];
        CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find("plan"), &a, &ob, err, sizeof err), -EINVAL);
        CHECK_CONTAINS(err, "do not decode as a smartssd.v1.Plan");
        a.plan = NULL;
        a.plan_len = 0;
        CHECK_EQ_INT(csd_exec_create(&t, csd_tasklet_find("plan"), &a, &ob, err, sizeof err), -EINVAL);
        CHECK_CONTAINS(err, "missing input format");
        csd_outbuf_free(&ob);
    }
}

static void expect_runtime_error(const plan_b *b, const uint8_t *obj, uint64_t size, int rc, const char *msg) {
    size_t len;
    uint8_t *bytes = PB_pack(b, &len);
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.plan = bytes;
    a.plan_len = len;
    tk_result r = tk_run(csd_tasklet_find("plan"), &a, obj, size, NULL, 0, 4096, TK_BYTES_RAW, 0, 0);
    CHECK_EQ_INT(r.rc, rc);
    CHECK_STR(r.err, msg);
    tk_result_free(&r);
    free(bytes);
    pb_free_all();
}

static void test_division_by_zero(void) {
    lrow rows[50];
    make_rows(rows, 50, 99);
    uint64_t size;
    uint8_t *obj = encode_fixed(rows, 50, &size);
    plan_b b;
    init_plan(&b, FMT_FIXED);
    PB_project(&b, E_bin(OP(DIV), E_col(COL_A), E_bin(OP(SUB), E_col(COL_B), E_col(COL_B))));
    expect_runtime_error(&b, obj, size, -EDOM, "division by zero");
    init_plan(&b, FMT_FIXED);
    PB_project(&b, E_bin(OP(MOD), E_col(COL_D), E_i(0)));
    expect_runtime_error(&b, obj, size, -EDOM, "division by zero");
    init_plan(&b, FMT_FIXED);
    b.p.filter = E_bin(OP(GT), E_bin(OP(DIV), E_col(COL_C), E_d(0.0)), E_i(1));
    expect_runtime_error(&b, obj, size, -EDOM, "division by zero");
    init_plan(&b, FMT_FIXED);
    PB_agg(&b, SMARTSSD__V1__AGG_FN__SUM, E_bin(OP(DIV), E_col(COL_B), E_i(0)));
    expect_runtime_error(&b, obj, size, -EDOM, "division by zero");
    /* CSV too; and a NULL numerator gives NULL, not an error */
    char *text = encode_text(rows, 50, ',', 0, 1, &size);
    init_plan(&b, FMT_CSV);
    PB_project(&b, E_bin(OP(DIV), E_col(COL_K), E_i(0)));
    expect_runtime_error(&b, (const uint8_t *)text, size, -EDOM, "division by zero");
    init_plan(&b, FMT_CSV);
    PB_project(&b, E_bin(OP(DIV), E_null(), E_i(0)));
    size_t len;
    uint8_t *bytes = PB_pack(&b, &len);
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.plan = bytes;
    a.plan_len = len;
    tk_result r = tk_run(csd_tasklet_find("plan"), &a, (const uint8_t *)text, size, NULL, 0, 4096, TK_BYTES_RAW, 0, 0);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_U64(r.rows, 50);
    tk_result_free(&r);
    free(bytes);
    pb_free_all();
    free(text);
    free(obj);
}

/* The state cap (static param max_state_bytes): too many groups or buffered rows fail cleanly. */
static void test_state_cap(void) {
    lrow *rows = malloc(NROWS * sizeof *rows);
    make_rows(rows, NROWS, 5);
    uint64_t size;
    uint8_t *obj = encode_fixed(rows, NROWS, &size);
    csd_kv kv[] = {{"max_state_bytes", "8192"}};
    for (int k = 0; k < 3; k++) {
        plan_b b;
        init_plan(&b, FMT_FIXED);
        if (k == 0) {
            PB_group(&b, E_col(COL_B));        /* thousands of groups */
            PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
        } else {
            PB_project(&b, E_col(COL_NAME));
            PB_order(&b, 0, 0);
            b.p.limit = k == 1 ? 0 : 5;      /* every row buffered, or only the top 5 */
        }
        size_t len;
        uint8_t *bytes = PB_pack(&b, &len);
        csd_tasklet_args a;
        memset(&a, 0, sizeof a);
        a.plan = bytes;
        a.plan_len = len;
        a.static_params = kv;
        a.n_static = 1;
        tk_result r = tk_run(csd_tasklet_find("plan"), &a, obj, size, NULL, 0, 4096, TK_BYTES_RAW, 0, 0);
        if (k < 2) {
            CHECK_EQ_INT(r.rc, -ENOSPC);
            CHECK_STR(r.err, "plan state exceeds 8192 bytes (too many groups or buffered rows); raise "
                             "max_state_bytes, add a limit or split the input");
        } else {
            CHECK_EQ_INT(r.rc, 0);
            CHECK_EQ_U64(r.rows, 5);
        }
        tk_result_free(&r);
        free(bytes);
        pb_free_all();
    }
    csd_kv bad[] = {{"max_state_bytes", "100"}};
    plan_b b;
    init_plan(&b, FMT_FIXED);
    size_t len;
    uint8_t *bytes = PB_pack(&b, &len);
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.plan = bytes;
    a.plan_len = len;
    a.static_params = bad;
    a.n_static = 1;
    tk_result r = tk_run(csd_tasklet_find("plan"), &a, obj, size, NULL, 0, 4096, TK_BYTES_RAW, 0, 0);
    CHECK_EQ_INT(r.rc, -EINVAL);
    CHECK_CONTAINS(r.err, "param max_state_bytes: 100 is out of range");
    tk_result_free(&r);
    free(bytes);
    pb_free_all();
    free(obj);
    free(rows);
}

/* Edge values: INT64 extremes wrap instead of trapping, 8-byte unsigned raw values, short text
 * lines (missing fields are NULL), a trailing delimiter, strings with NUL padding. */
static void test_edges(void) {
    plan_b b;
    PB_init_text(&b, "", 0);
    PB_col(&b, C_text("x", 1, 0));
    PB_col(&b, C_text("y", 1, 1));
    PB_col(&b, C_text("s", 3, 2));
    PB_col(&b, C_text("z", 2, 5));
    PB_project(&b, E_bin(OP(DIV), E_col(0), E_col(1)));
    PB_project(&b, E_bin(OP(MOD), E_col(0), E_col(1)));
    PB_project(&b, E_bin(OP(ADD), E_col(0), E_col(0)));
    PB_project(&b, E_un(UOP(NEG), E_col(0)));
    PB_project(&b, E_col(2));
    PB_project(&b, E_col(3));
    PB_project(&b, E_bin(OP(STARTS_WITH), E_col(2), E_s("")));   /* the plan's only string literal is "" */
    const char *text =
        "-9223372036854775808,-1,s,,,1e300\n"
        "7,2\n"
        "-7,2,,x,y,\n"
        "9223372036854775807,-2,a,b,c,-0.5\n"
        "\n"
        "-9223372036854775809,1,q,,,NaN";
    size_t len;
    uint8_t *bytes = PB_pack(&b, &len);
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.plan = bytes;
    a.plan_len = len;
    tk_result r = tk_run(csd_tasklet_find("plan"), &a, (const uint8_t *)text, strlen(text), NULL, 0, 16,
                         TK_BYTES_RAW, 0, 0);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s,
                  "-9223372036854775808\t0\t0\t-9223372036854775808\ts\t1.0000000000000001e+300\ttrue\n"
                  "3\t1\t14\t-7\tNULL\tNULL\tNULL\n"
                  "-3\t-1\t-14\t7\tNULL\tNULL\tNULL\n"
                  "-4611686018427387903\t1\t-2\t-9223372036854775807\ta\t-0.5\ttrue\n"
                  "NULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\n"
                  "NULL\tNULL\tNULL\tNULL\tq\tnan\ttrue\n",
                  "edges");
    tk_result_free(&r);
    free(bytes);
    pb_free_all();

    /* fixed: unsigned 8-byte raw above INT64_MAX, little-endian signed 2 bytes, NUL-trimmed string,
     * a string with an inner NUL kept */
    PB_init_fixed(&b, 16);
    PB_col(&b, C_fixed("u", 1, 0, 8, 1, 0));
    PB_col(&b, C_fixed("s16", 1, 8, 2, 0, 1));
    PB_col(&b, C_fixed("str", 3, 10, 6, 0, 0));
    PB_project(&b, E_col(0));
    PB_project(&b, E_col(1));
    PB_project(&b, E_col(2));
    PB_project(&b, E_bin(OP(EQ), E_col(2), E_s("ab")));
    uint8_t obj[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x00, 0x80, 'a', 'b', 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0x7f, 'a', 0, 'b', 0, 0, 0};
    bytes = PB_pack(&b, &len);
    a.plan = bytes;
    a.plan_len = len;
    r = tk_run(csd_tasklet_find("plan"), &a, obj, 32, NULL, 0, 4096, TK_BYTES_HEX, 0, 0);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "-2\t-32768\t6162\ttrue\n5\t32767\t610062\tfalse\n", "fixed edges");
    tk_result_free(&r);
    free(bytes);
    pb_free_all();
}

/* Quoted fields, each line checked against what Spark 4.0's CSV reader (quote ", escape \\,
 * multiLine=false, PERMISSIVE) returned for the same line as (id INT, v STRING, w STRING). */
static const char quoted_csv[] =
        "1,\"a,b\",x\n"
        "2,\"say \\\"hi\\\"\",x\n"
        "3,\"\",x\n"
        "4,\"a\"\"b\",x\n"
        "5,a\"b,x\n"
        "6,\"abc\n"
        "7,\"ab\"c,x\n"
        "8,\"a\\\\\",x\n"
        "9,\"a\\\\b\",x\n"
        "10,\"a\\nb\",x\n"
        "11, \"a,b\",x\n"
        "12,\"a\" ,x\n"
        "13,\"ab,\"c\",x\n"
        "14,ab\\\"c,x\n"
        "15,\"\"\"\",x\n"
        "16,\"a\\\"\n"
        "17,\"a\\\",b\",x\n"
        "18,\"ab\"\"\n"
        "19,\"\\\"\",x\n"
        "20,\"ab\" \"c\",x\n"
        "21,\"\"a,x\n"
        "22,x,\"\"\n"
        "23,x,\"\n"
        "24,\"a\"\"\"\n";
static const char quoted_spark[] =
        "1\ta,b\tx\n"
        "2\tsay \"hi\"\tx\n"
        "3\tNULL\tx\n"
        "4\t\"a\"\"b\"\tx\n"
        "5\ta\"b\tx\n"
        "6\tabc\tNULL\n"
        "7\t\"ab\"c\tx\n"
        "8\ta\\\tx\n"
        "9\ta\\b\tx\n"
        "10\ta\\nb\tx\n"
        "11\t \"a\tb\"\n"
        "12\ta\tx\n"
        "13\t\"ab,\"c\"\tx\n"
        "14\tab\\\"c\tx\n"
        "15\t\"\"\tx\n"
        "16\ta\"\tNULL\n"
        "17\ta\",b\tx\n"
        "18\tab\"\tNULL\n"
        "19\t\"\tx\n"
        "20\t\"ab\" \"c\"\tx\n"
        "21\t\"\"a\tx\n"
        "22\tx\tNULL\n"
        "23\tx\t\"\n"
        "24\ta\"\"\tNULL\n";

static tk_result run_text(const plan_b *b, const char *text) {
    size_t len;
    uint8_t *bytes = PB_pack(b, &len);
    csd_tasklet_args a;
    memset(&a, 0, sizeof a);
    a.plan = bytes;
    a.plan_len = len;
    tk_result r = tk_run(csd_tasklet_find("plan"), &a, (const uint8_t *)text, strlen(text), NULL, 0, 64,
                         TK_BYTES_RAW, 0, 0);
    free(bytes);
    pb_free_all();
    return r;
}

static void quoted_plan(plan_b *b, const char *quote, const char *escape) {
    PB_init_text(b, ",", 0);
    b->p.text->quote = (char *)quote;
    b->p.text->escape = (char *)escape;
    PB_col(b, C_text("id", 1, 0));
    PB_col(b, C_text("v", 3, 1));
    PB_col(b, C_text("w", 3, 2));
}

static void test_quoted(void) {
    plan_b b;
    quoted_plan(&b, "\"", "\\");
    PB_project(&b, E_col(0));
    PB_project(&b, E_col(1));
    PB_project(&b, E_col(2));
    tk_result r = run_text(&b, quoted_csv);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, quoted_spark, "quoted fields as Spark reads them");
    tk_result_free(&r);

    /* the last field read first: splitting jumps over the quoted delimiters of field 1 */
    quoted_plan(&b, "\"", "\\");
    PB_project(&b, E_col(2));
    PB_project(&b, E_col(0));
    r = run_text(&b, "1,\"a,b\",x\n2,\"c\\\",\",y,z\n");
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "x\t1\ny\t2\n", "quoted fields skipped");
    tk_result_free(&r);

    /* a filter and an aggregate on unescaped values */
    quoted_plan(&b, "\"", "\\");
    b.p.filter = E_bin(OP(EQ), E_col(1), E_s("say \"hi\""));
    PB_project(&b, E_col(0));
    r = run_text(&b, quoted_csv);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "2\n", "filter on an unescaped quoted field");
    tk_result_free(&r);
    quoted_plan(&b, "\"", "\\");
    PB_group(&b, E_col(1));
    PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT, E_col(0));
    r = run_text(&b, "1,\"a,b\"\n2,a\n3,\"a\"\n4,\"a\\\",b\"\n5,\"a,b\"\n");
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "a,b\t2\na\t2\na\",b\t1\n", "group by a quoted field");
    tk_result_free(&r);

    /* no escape: a backslash is data and the quote after it closes the field */
    quoted_plan(&b, "\"", "");
    PB_project(&b, E_col(1));
    PB_project(&b, E_col(2));
    r = run_text(&b, "1,\"a\\\",b\n");
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "a\\\tb\n", "quote without escape");
    tk_result_free(&r);

    /* escape = quote: a doubled quote inside a quoted field stands for one */
    quoted_plan(&b, "\"", "\"");
    PB_project(&b, E_col(1));
    r = run_text(&b, "1,\"a\"\"b\",x\n2,\"\",x\n");
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "a\"b\nNULL\n", "escape equals quote");
    tk_result_free(&r);

    /* without quote every delimiter cuts, as before */
    quoted_plan(&b, "", "\\");
    PB_project(&b, E_col(1));
    PB_project(&b, E_col(2));
    r = run_text(&b, "1,\"a,b\",x\n");
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, "\"a\tb\"\n", "quoting off");
    tk_result_free(&r);

    quoted_plan(&b, "ab", "");
    expect_init_error(&b, "text.quote must be one byte");
    quoted_plan(&b, ",", "");
    expect_init_error(&b, "text.quote must be one byte other than CR/LF and the delimiter");
    quoted_plan(&b, "\n", "");
    expect_init_error(&b, "text.quote must be one byte");
    quoted_plan(&b, "\"", "\r");
    expect_init_error(&b, "text.escape must be one byte");
    quoted_plan(&b, "\"", ",");
    expect_init_error(&b, "text.escape must be one byte");
    quoted_plan(&b, "\"", "\\\\");
    expect_init_error(&b, "text.escape must be one byte");
}

/* Lines far longer than the splitter's 64-byte blocks: random field widths (empty fields, runs of
 * delimiters, fields straddling block boundaries), fields at indexes past byte 64 and 128 and past
 * the line's end, projected as strings and checked against a plain C split of each line. Pages of
 * 61 bytes put lines across pages (the carry buffer) as well as inside them. */
static void test_long_lines(void) {
    static const char delims[] = { ',', ' ', '|' };
    static const uint32_t fields[] = { 0, 1, 5, 9, 17, 30, 44, 45 };
    const size_t nf = sizeof fields / sizeof fields[0];
    uint64_t seed = 77;
    for (size_t di = 0; di < sizeof delims; di++) {
        char dl = delims[di];
        char dstr[2] = { dl, 0 };
        plan_b b;
        PB_init_text(&b, dstr, 0);
        static char names[sizeof fields / sizeof fields[0]][16];   /* the plan keeps the pointers */
        for (size_t i = 0; i < nf; i++) {
            snprintf(names[i], sizeof names[i], "f%u", fields[i]);
            PB_col(&b, C_text(names[i], 3, fields[i]));
            PB_project(&b, E_col((uint32_t)i));
        }
        tk_text obj = { 0 }, want = { 0 };
        tk_text_add(&obj, "%s", "");
        tk_text_add(&want, "%s", "");
        for (int line = 0; line < 300; line++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            int nfields = 1 + (int)((seed >> 33) % 45);
            char buf[4096];
            size_t n = 0;
            size_t fs[64], fe[64];
            for (int f = 0; f < nfields; f++) {
                if (f) buf[n++] = dl;
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                int w = (int)((seed >> 35) % 13);
                if ((seed >> 20) % 7 == 0) w = 0;
                fs[f] = n;
                for (int c = 0; c < w; c++) buf[n++] = (char)('a' + (seed >> (c + 3)) % 26);
                fe[f] = n;
            }
            tk_text_add(&obj, "%.*s\n", (int)n, buf);
            for (size_t i = 0; i < nf; i++) {
                uint32_t f = fields[i];
                if (f >= (uint32_t)nfields || fe[f] == fs[f]) tk_text_add(&want, "NULL");
                else tk_text_add(&want, "%.*s", (int)(fe[f] - fs[f]), buf + fs[f]);
                tk_text_add(&want, i + 1 < nf ? "\t" : "\n");
            }
        }
        size_t olen = strlen(obj.s);
        size_t len;
        uint8_t *bytes = PB_pack(&b, &len);
        csd_tasklet_args a;
        memset(&a, 0, sizeof a);
        a.plan = bytes;
        a.plan_len = len;
        const uint32_t pages[] = { 61, 4096 };
        for (int pi = 0; pi < 2; pi++) {
            tk_result r = tk_run(csd_tasklet_find("plan"), &a, (const uint8_t *)obj.s, olen, NULL, 0, pages[pi],
                                 TK_BYTES_RAW, 0, 0);
            CHECK_EQ_INT(r.rc, 0);
            tk_check_text(r.text.s, want.s, "long lines");
            tk_result_free(&r);
        }
        free(bytes);
        free(obj.s);
        free(want.s);
        pb_free_all();
    }
}

/* ------------------------------------------------------------------ page-at-a-time vs line-at-a-time */

/* Random text and random plans through tk_run, which runs the tasklet record by record (the
 * line-at-a-time evaluator) and again through its lines hook (a page's lines evaluated by
 * expression node when the page holds no quote byte) and requires the same rows, status, message
 * and cost of every page: quoted fields, CRLF, empty and missing fields, bad numbers, long lines,
 * lines crossing pages, a last line without a newline, every operator and aggregate, top-N, limits
 * and divisions by zero. */
static uint64_t rs;
static unsigned rnd(unsigned n) { return (unsigned)(rng_next(&rs) % n); }

enum { RC_INT = 1, RC_DBL = 2, RC_STR = 3, RC_BOOL = 4 };
static const int rcol_type[] = {RC_INT, RC_DBL, RC_STR, RC_BOOL, RC_INT, RC_STR, RC_INT};
static const uint32_t rcol_field[] = {0, 1, 2, 3, 4, 5, 9};
#define RCOLS 7
static const char *const rstrs[] = {"alpha", "abba", "x", "zz-long-key2", "beta", "a", "zz-long-key1"};   /* 1 to 12 bytes */

static Smartssd__V1__Expr *r_num(int depth);
static Smartssd__V1__Expr *r_col_of(int type) {
    unsigned c;
    do c = rnd(RCOLS);
    while (rcol_type[c] != type);
    return E_col(c);
}
static Smartssd__V1__Expr *r_num(int depth) {
    unsigned k = rnd(depth > 0 ? 9 : 4);
    switch (k) {
    case 0: return r_col_of(RC_INT);
    case 1: return r_col_of(RC_DBL);
    case 2: return E_i((int64_t)rnd(41) - 20);
    case 3: return E_d(((double)rnd(81) - 40) / 4);
    case 4: return E_un(UOP(NEG), r_num(depth - 1));
    case 5: return E_bin(OP(DIV) + (int)rnd(2), r_num(depth - 1), rnd(4) ? E_i((int64_t)rnd(7) + 1) : r_num(depth - 1));
    default: return E_bin(OP(ADD) + (int)rnd(3), r_num(depth - 1), r_num(depth - 1));
    }
}
static Smartssd__V1__Expr *r_bool(int depth) {
    unsigned k = rnd(depth > 0 ? 12 : 7);
    switch (k) {
    case 0: return E_bin(OP(EQ) + (int)rnd(6), r_num(depth), r_num(0));
    case 1: {   /* an integer column against a literal of its values' range (the page path's word compare) */
        static const int64_t lits[] = {0, 7, 12, 99999999, 100000000, -1, 12345678};
        int64_t l = rnd(2) ? lits[rnd(7)] : (int64_t)(rnd(1000000000u) >> rnd(30));
        return E_bin(OP(EQ) + (int)rnd(6), r_col_of(RC_INT), E_i(l));
    }
    case 2: return E_bin(OP(EQ) + (int)rnd(6), r_col_of(RC_STR), rnd(3) ? E_s(rstrs[rnd(7)]) : r_col_of(RC_STR));
    case 3: return E_bin(OP(STARTS_WITH) + (int)rnd(3), r_col_of(RC_STR), E_s(rstrs[rnd(7)]));
    case 4: return E_un(UOP(IS_NULL) + (int)rnd(2), E_col(rnd(RCOLS)));
    case 5: return rnd(2) ? r_col_of(RC_BOOL) : E_bin(OP(EQ), r_col_of(RC_BOOL), E_b((int)rnd(2)));
    case 6: {
        size_t n = 1 + rnd(4);
        Smartssd__V1__Literal **v = pb_keep(malloc(n * sizeof *v));
        int str = rnd(2);
        for (size_t i = 0; i < n; i++)
            v[i] = !rnd(6) ? L_null() : str ? L_s(rstrs[rnd(7)]) : L_i((int64_t)rnd(21) - 10);
        return E_in(str ? r_col_of(RC_STR) : r_col_of(RC_INT), n, v);
    }
    case 7: case 8: return AND(r_bool(depth - 1), r_bool(depth - 1));
    case 9: case 10: return OR(r_bool(depth - 1), r_bool(depth - 1));
    default: return NOT(r_bool(depth - 1));
    }
}

static void r_field(tk_text *t, unsigned f, char delim, int quotes) {
    unsigned k = rnd(20);
    if (k == 0) return;   /* empty */
    if (quotes && k == 1) {
        tk_text_add(t, "\"%s%c\\\"q\"", rstrs[rnd(7)], delim);   /* delimiter and escaped quote inside */
        return;
    }
    if (quotes && k == 2) {
        tk_text_add(t, "\"%s\"", rstrs[rnd(7)]);
        return;
    }
    if (k == 3) {   /* long */
        for (unsigned i = 0, n = 60 + rnd(300); i < n; i++) tk_text_add(t, "%c", 'a' + (int)rnd(26));
        return;
    }
    if (k == 4) {
        static const char *const bad[] = {"12x", "-", "+", "1.5.2", "99999999999999999999", "-9223372036854775808",
                                          " 7", "nan", "1e3", "TRUE", "yes", "0", "0000000000012", "1234567890123456",
                                          "123456789012345x", "12345678x0123456", "9223372036854775807", "007", "00000000",
                                          "+0012", "012345678"};
        tk_text_add(t, "%s", bad[rnd(21)]);
        return;
    }
    switch (f) {
    case 0: case 4: case 9:
        if (rnd(3)) tk_text_add(t, "%d", (int)rnd(41) - 20);
        else if (rnd(4)) tk_text_add(t, rnd(4) ? "%u" : "+%u", rnd(1000000000u) >> rnd(30));   /* 1 to 9 digits */
        else tk_text_add(t, "%u%08u", 1 + (rnd(1000000000u) >> rnd(30)), rnd(100000000u));   /* 9 to 18 digits */
        break;
    case 1: tk_text_add(t, "%g", ((double)rnd(161) - 80) / 8); break;
    case 3: tk_text_add(t, "%s", rnd(2) ? (rnd(2) ? "true" : "1") : (rnd(2) ? "false" : "0")); break;
    default: tk_text_add(t, "%s", rstrs[rnd(7)]); break;
    }
}

static char *r_text(char delim, int quotes, size_t *len) {
    tk_text t = {0};
    tk_text_add(&t, "%s", "");
    for (unsigned i = 0, n = 50 + rnd(600); i < n; i++) {
        unsigned nf = rnd(8) ? 6 + rnd(5) : rnd(12);
        for (unsigned f = 0; f < nf; f++) {
            if (f) tk_text_add(&t, "%c", delim);
            r_field(&t, f, delim, quotes && !rnd(3));
        }
        if (i + 1 < n || rnd(2)) tk_text_add(&t, "%s", rnd(4) ? "\n" : "\r\n");
    }
    *len = strlen(t.s);
    return t.s;
}

static void test_batch_random(void) {
    static const char delims[] = {',', ' ', '\t', '|'};
    static const uint32_t pages[] = {64, 100, 256, 1000, 4096};
    rs = 20261126;
    unsigned ran = 0, rows = 0, failed = 0;
    for (unsigned iter = 0; iter < 400; iter++) {
        char delim = delims[rnd(4)];
        int quotes = rnd(3) == 0;
        size_t len;
        char *text = r_text(delim, quotes, &len);
        char dstr[2] = {delim, 0};
        plan_b b;
        PB_init_text(&b, dstr, rnd(6) == 0);
        if (quotes || rnd(2)) {
            b.p.text->quote = (char *)"\"";
            b.p.text->escape = (char *)"\\";
        }
        for (unsigned c = 0; c < RCOLS; c++) PB_col(&b, C_text("c", rcol_type[c], rcol_field[c]));
        if (rnd(5)) b.p.filter = r_bool(1 + rnd(3));
        unsigned shape = rnd(4);
        if (shape == 0 || shape == 1) {
            for (unsigned i = 0, n = 1 + rnd(3); i < n; i++) PB_project(&b, rnd(2) ? E_col(rnd(RCOLS)) : r_num(2));
            if (shape == 1) {
                PB_order(&b, rnd(b.p.n_project), (int)rnd(2));
                if (rnd(2)) PB_order(&b, rnd(b.p.n_project), (int)rnd(2));
            }
            if (rnd(2)) b.p.limit = 1 + rnd(20);
        } else {
            if (shape == 2) PB_group(&b, rnd(3) ? E_col(rnd(RCOLS)) : r_num(1));
            PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
            for (unsigned i = 0, n = rnd(4); i < n; i++) {
                int fn = SMARTSSD__V1__AGG_FN__COUNT + (int)rnd(4);
                PB_agg(&b, fn, fn == SMARTSSD__V1__AGG_FN__SUM ? r_num(1) : E_col(rnd(RCOLS)));
            }
            if (shape == 2 && rnd(2)) PB_order(&b, 0, (int)rnd(2));
            if (rnd(3) == 0) b.p.limit = 1 + rnd(5);
        }
        uint64_t cuts[2];
        size_t ncuts = rnd(3);
        for (size_t i = 0; i < ncuts; i++) cuts[i] = (len * (i + 1)) / (ncuts + 1) + rnd(7);
        size_t plen;
        uint8_t *bytes = PB_pack(&b, &plen);
        csd_tasklet_args a;
        memset(&a, 0, sizeof a);
        a.plan = bytes;
        a.plan_len = plen;
        /* tk_run checks the lines hook against record() */
        tk_result r = tk_run(csd_tasklet_find("plan"), &a, (const uint8_t *)text, len, cuts, ncuts, pages[rnd(5)],
                             TK_BYTES_RAW, 0, 0);
        if (r.rc == 0) {
            ran++;
            rows += (unsigned)r.rows;
        } else if (r.rc == -EDOM) {
            failed++;
            CHECK_STR(r.err, "division by zero");
        } else {
            fprintf(stderr, "plan %u: rc %d: %s\n", iter, r.rc, r.err);
            CHECK(r.rc == 0);
        }
        tk_result_free(&r);
        free(bytes);
        free(text);
        pb_free_all();
    }
    /* most plans run to the end, some stop on a division by zero */
    CHECK(ran >= 300);
    CHECK(failed >= 5);
    CHECK(rows >= 2000);
}

/* Filters shaped as Spark pushes them, a chain of ANDs (the left operand the chain so far) over
 * IS [NOT] NULL of any column and integer columns against integer literals, which a page evaluates
 * conjunct by conjunct: the same column named by several conjuncts and by the keys, aggregates or
 * outputs, literals inside and outside the digit-word range, chains of 1 to 8 conjuncts, and chains
 * the page path must not take that way (a conjunct of another shape, ANDs nested to the right).
 * tk_run requires record() and the lines hook to agree on rows, status, message and every page's cost. */
static Smartssd__V1__Expr *r_conjunct(void) {
    static const int64_t lits[] = {0, 3, 7, 12, -1, -20, 20, 99999999, 100000000, 12345678, 404};
    switch (rnd(5)) {
    case 0: case 1: return E_un(UOP(IS_NOT_NULL), E_col(rnd(RCOLS)));
    case 2: return E_un(UOP(IS_NULL), E_col(rnd(RCOLS)));
    default: return E_bin(OP(EQ) + (int)rnd(6), r_col_of(RC_INT), E_i(rnd(3) ? lits[rnd(11)] : (int64_t)rnd(41) - 20));
    }
}

static void test_batch_conjuncts(void) {
    static const char delims[] = {',', ' ', '\t', '|'};
    static const uint32_t pages[] = {64, 100, 256, 1000, 4096};
    rs = 4242;
    unsigned ran = 0, rows = 0;
    for (unsigned iter = 0; iter < 300; iter++) {
        char delim = delims[rnd(4)];
        size_t len;
        char *text = r_text(delim, 0, &len);
        char dstr[2] = {delim, 0};
        plan_b b;
        PB_init_text(&b, dstr, rnd(8) == 0);
        if (rnd(2)) {
            b.p.text->quote = (char *)"\"";
            b.p.text->escape = (char *)"\\";
        }
        for (unsigned c = 0; c < RCOLS; c++) PB_col(&b, C_text("c", rcol_type[c], rcol_field[c]));
        Smartssd__V1__Expr *f = r_conjunct();
        for (unsigned k = 1, n = 1 + rnd(8); k < n; k++) {
            unsigned w = rnd(12);
            Smartssd__V1__Expr *c = w == 0 ? r_bool(1) : r_conjunct();   /* another shape: by node */
            f = w == 1 ? AND(c, f) : AND(f, c);                           /* nested to the right: by node */
        }
        b.p.filter = f;
        unsigned shape = rnd(3);
        if (shape == 0) {
            for (unsigned i = 0, n = 1 + rnd(3); i < n; i++) PB_project(&b, E_col(rnd(RCOLS)));
            if (rnd(2)) b.p.limit = 1 + rnd(20);
        } else {
            if (shape == 1) PB_group(&b, E_col(rnd(RCOLS)));
            PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
            for (unsigned i = 0, n = rnd(3); i < n; i++) {
                int fn = SMARTSSD__V1__AGG_FN__COUNT + (int)rnd(4);
                PB_agg(&b, fn, fn == SMARTSSD__V1__AGG_FN__SUM ? r_col_of(RC_INT) : E_col(rnd(RCOLS)));
            }
        }
        tk_result r = run_plan(&b, (const uint8_t *)text, len, NULL, 0, pages[rnd(5)]);
        if (r.rc == -EDOM) {   /* a conjunct of another shape divided by zero: the same in both */
            CHECK_STR(r.err, "division by zero");
        } else {
            if (r.rc) fprintf(stderr, "plan %u: rc %d: %s\n", iter, r.rc, r.err);
            CHECK_EQ_INT(r.rc, 0);
        }
        ran++;
        rows += (unsigned)r.rows;
        tk_result_free(&r);
        free(text);
        pb_free_all();
    }
    CHECK(ran == 300);
    CHECK(rows >= 1000);
}

/* The Spark bench's group-by shape, WHERE type IS NOT NULL AND status IS NOT NULL AND type = 3 AND
 * status = 404 GROUP BY region, COUNT(*), over fields whose reading is plain (digits with leading
 * zeros, empty, missing, a sign, not a number, longer than 8 digits): the counts per region against
 * a count made here from the fields as written. */
/* Chains shaped as Spark pushes them (an IS [NOT] NULL per integer column, then comparisons of
 * those columns), which the page path runs as a head of column passes with class bytes: several
 * comparisons of one column, literals inside and outside the digit-word range, chains that go on
 * past the head with other columns (and name a head column again there: the head then stops
 * before it), head columns also named by a key or output (no head). Every page's rows, status
 * and cost against record(), line by line (tk_run). */
static void test_batch_conj_heads(void) {
    static const unsigned icols[] = {0, 4, 6};   /* the integer columns of rcol_type */
    static const int64_t lits[] = {0, 3, 7, 12, -1, -20, 20, 99999999, 100000000, 12345678, 404, -100000000};
    static const uint32_t pages[] = {64, 100, 256, 1000, 4096};
    rs = 5151;
    unsigned rows = 0;
    for (unsigned iter = 0; iter < 300; iter++) {
        size_t len;
        char *text = r_text(',', 0, &len);
        plan_b b;
        PB_init_text(&b, ",", rnd(8) == 0);
        for (unsigned c = 0; c < RCOLS; c++) PB_col(&b, C_text("c", rcol_type[c], rcol_field[c]));
        unsigned hc[3], nh = 1 + rnd(3);
        for (unsigned k = 0; k < nh; k++) hc[k] = icols[(iter + k) % 3];
        Smartssd__V1__Expr *f = NULL;
        for (unsigned k = 0; k < nh; k++) {
            Smartssd__V1__Expr *c = E_un(rnd(6) ? UOP(IS_NOT_NULL) : UOP(IS_NULL), E_col(hc[k]));
            f = f ? AND(f, c) : c;
        }
        for (unsigned k = 0, n = rnd(6); k < n; k++) {
            int64_t lit = rnd(3) ? lits[rnd(12)] : (int64_t)rnd(41) - 20;
            f = AND(f, E_bin(OP(EQ) + (int)rnd(6), E_col(hc[rnd(nh)]), E_i(lit)));
        }
        if (rnd(3) == 0)   /* on past the head: another column, sometimes a head column again */
            for (unsigned k = 0, n = 1 + rnd(3); k < n; k++) {
                unsigned c = rnd(4) ? 1 + rnd(RCOLS - 1) : hc[rnd(nh)];
                f = AND(f, rcol_type[c] == RC_INT && rnd(2) ? E_bin(OP(EQ) + (int)rnd(6), E_col(c), E_i(lits[rnd(12)]))
                                                           : E_un(UOP(IS_NULL) + (int)rnd(2), E_col(c)));
            }
        b.p.filter = f;
        /* keys and outputs: mostly columns the chain does not name */
        unsigned other = rnd(4) ? 1 + 2 * rnd(2) : hc[0];   /* c1 (double), c3 (bool), or a head column */
        if (rnd(2)) {
            PB_group(&b, E_col(other));
            PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
        } else {
            PB_project(&b, E_col(other));
            PB_project(&b, E_col(5));
        }
        tk_result r = run_plan(&b, (const uint8_t *)text, len, NULL, 0, pages[rnd(5)]);
        CHECK_EQ_INT(r.rc, 0);
        rows += (unsigned)r.rows;
        tk_result_free(&r);
        free(text);
        pb_free_all();
    }
    CHECK(rows >= 1000);
}

static void test_conjuncts_spark_groupby(void) {
    static const char *const types[] = {"3", "03", "00000003", "000000003", "", "3x", "4", "-3", "13", "+3", "30"};
    static const int type_is3[] = {1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0};
    static const char *const statuses[] = {"404", "0404", "", "40", "4040", "404x", "200", "-404", "00000000404", "+404"};
    static const int status_is404[] = {1, 1, 0, 0, 0, 0, 0, 0, 1, 1};
    enum { NREG = 6, NLINES = 20000 };
    int64_t cnt[NREG + 1] = {0};   /* NREG: the empty region (NULL) */
    int order[NREG + 1], n_order = 0, seen[NREG + 1] = {0};
    tk_text t = {0};
    tk_text_add(&t, "%s", "");
    rs = 404;
    for (int i = 0; i < NLINES; i++) {
        unsigned ty = rnd(4) ? rnd(3) * 4 % 11 : rnd(11), st = rnd(3) ? rnd(2) * 6 : rnd(10);
        int reg = (int)rnd(NREG + 1);
        int missing = rnd(50) == 0;   /* the line ends before status */
        if (missing)
            tk_text_add(&t, "%d,%s\n", i, types[ty]);
        else if (reg == NREG)
            tk_text_add(&t, "%d,%s,%s,\n", i, types[ty], statuses[st]);
        else
            tk_text_add(&t, "%d,%s,%s,%d,x\n", i, types[ty], statuses[st], reg);
        if (!missing && type_is3[ty] && status_is404[st]) {
            if (!seen[reg]) seen[reg] = 1, order[n_order++] = reg;
            cnt[reg]++;
        }
    }
    ref want = {0};
    tk_text_add(&want.t, "%s", "");
    for (int o = 0; o < n_order; o++) {
        R_begin(&want);
        if (order[o] == NREG) R_null(&want);
        else R_int(&want, order[o]);
        R_int(&want, cnt[order[o]]);
        R_done(&want);
    }
    plan_b b;
    PB_init_text(&b, ",", 0);
    b.p.text->quote = (char *)"\"";
    b.p.text->escape = (char *)"\\";
    PB_col(&b, C_text("ts", RC_INT, 0));
    PB_col(&b, C_text("type", RC_INT, 1));
    PB_col(&b, C_text("status", RC_INT, 2));
    PB_col(&b, C_text("region", RC_INT, 3));
    b.p.filter = AND(AND(AND(E_un(UOP(IS_NOT_NULL), E_col(1)), E_un(UOP(IS_NOT_NULL), E_col(2))),
                         E_bin(OP(EQ), E_col(1), E_i(3))),
                     E_bin(OP(EQ), E_col(2), E_i(404)));
    PB_group(&b, E_col(3));
    PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    tk_result r = run_plan(&b, (const uint8_t *)t.s, strlen(t.s), NULL, 0, 4096);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, want.t.s, "type = 3 AND status = 404 GROUP BY region");
    tk_result_free(&r);
    free(want.t.s);
    free(t.s);
    pb_free_all();
}

/* Group keys of 1 to 20 bytes that differ only in their first or last byte, in runs of one key, as
 * a page evaluated by column meets them (a run of lines of one group is updated at once): counts
 * and sums per key against a count made here, groups in order of first appearance. */
static void test_group_keys(void) {
    enum { NKEYS = 40, NLINES = 6000 };
    char keys[NKEYS][24];
    for (int k = 0; k < NKEYS; k++) {
        int len = 1 + k % 20;
        memset(keys[k], 'k', (size_t)len);
        keys[k][len] = 0;
        keys[k][k < 20 ? len - 1 : 0] = (char)('0' + k / 20);   /* the same length twice: last or first byte */
    }
    int64_t cnt[NKEYS] = {0}, sum[NKEYS] = {0};
    int order[NKEYS], n_order = 0, seen[NKEYS] = {0};
    tk_text t = {0};
    tk_text_add(&t, "%s", "");
    rs = 777;
    for (int i = 0; i < NLINES;) {
        int k = (int)rnd(NKEYS), run = 1 + (int)rnd(12);
        for (int j = 0; j < run && i < NLINES; j++, i++) {
            int v = (int)rnd(1000);
            tk_text_add(&t, "%s,%d\n", keys[k], v);
            if (!seen[k]) seen[k] = 1, order[n_order++] = k;
            cnt[k]++;
            sum[k] += v;
        }
    }
    ref want = {0};
    tk_text_add(&want.t, "%s", "");
    for (int o = 0; o < n_order; o++) {
        R_begin(&want);
        R_str(&want, keys[order[o]]);
        R_int(&want, cnt[order[o]]);
        R_int(&want, sum[order[o]]);
        R_done(&want);
    }
    plan_b b;
    PB_init_text(&b, ",", 0);
    PB_col(&b, C_text("key", RC_STR, 0));
    PB_col(&b, C_text("v", RC_INT, 1));
    PB_group(&b, E_col(0));
    PB_agg(&b, SMARTSSD__V1__AGG_FN__COUNT_ALL, NULL);
    PB_agg(&b, SMARTSSD__V1__AGG_FN__SUM, E_col(1));
    tk_result r = run_plan(&b, (const uint8_t *)t.s, strlen(t.s), NULL, 0, 4096);
    CHECK_EQ_INT(r.rc, 0);
    tk_check_text(r.text.s, want.t.s, "group keys of 1 to 20 bytes");
    tk_result_free(&r);
    free(want.t.s);
    free(t.s);
    pb_free_all();
}

int main(void) {
    test_validation();
    test_division_by_zero();
    test_edges();
    test_long_lines();
    test_quoted();
    test_state_cap();
    test_queries();
    test_batch_random();
    test_batch_conjuncts();
    test_batch_conj_heads();
    test_conjuncts_spark_groupby();
    test_group_keys();
    TEST_OK("test_plan");
}
