/* Plan evaluation on one record: column decoding (cached per record, one DRAM access each), SQL
 * three-valued logic, INT64/DOUBLE promotion, and the value order used by comparisons and sorting. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "smartssd/v1/device.pb-c.h"
#include "query/plan_int.h"
#include "runtime/builtin.h"
#include "util/fixed.h"

int csd_plan_begin_record(plan *pl, const uint8_t *rec, size_t len) {
    pl->rec = rec;
    pl->rec_len = len;
    pl->gen++;
    pl->n_fields_split = 0;
    pl->fields_done = 0;
    pl->split_pos = 0;
    pl->dbase = SIZE_MAX;
    pl->unq_len = 0;
    /* unescaped fields never outgrow their line, so one buffer the size of the longest line serves
     * every field without allocating while splitting */
    if (pl->quoting && pl->unq_cap < len) {
        size_t cap = pl->unq_cap * 2 > len ? pl->unq_cap * 2 : len;
        uint8_t *b = realloc(pl->unq, cap);
        if (!b) {
            csd_io_fail(pl->io, "plan: out of memory for a %zu-byte line's quoted fields", len);
            return -ENOMEM;
        }
        pl->unq = b;
        pl->unq_cap = cap;
    }
    return 0;
}

/* ------------------------------------------------------------------ fixed records */

static int64_t sign_extend(uint64_t v, unsigned bits) {
    if (bits >= 64) return (int64_t)v;
    uint64_t sign = 1ull << (bits - 1);
    v &= (sign << 1) - 1;
    return (int64_t)(v ^ sign) - (int64_t)sign;
}

static void read_fixed(const pcol *c, const uint8_t *rec, pv *out) {
    const uint8_t *p = rec + c->offset;   /* offset + width <= entry_bytes was checked at compile */
    if (c->type == PT_STRING) {
        size_t n = c->width;
        while (n > 0 && p[n - 1] == 0) n--;
        out->t = PT_STRING;
        out->s.p = p;
        out->s.n = n;
        return;
    }
    uint64_t raw = csd_load_uint(p, c->width, c->big_endian);
    if (c->has_null_raw && raw == c->null_raw) {
        out->t = PT_NULL;
        return;
    }
    switch (c->type) {
    case PT_INT:
        if (c->mask) {
            uint64_t v = (raw >> c->shift) & c->mask;
            /* signed bit fields extend from the mask's top bit */
            out->i = c->is_signed ? sign_extend(v, 64 - (unsigned)__builtin_clzll(c->mask)) : (int64_t)v;
        } else {
            out->i = c->is_signed ? sign_extend(raw, c->width * 8) : (int64_t)raw;
        }
        out->t = PT_INT;
        break;
    case PT_DOUBLE:
        memcpy(&out->d, &raw, sizeof out->d);
        out->t = PT_DOUBLE;
        break;
    default:
        out->b = raw != 0;
        out->t = PT_BOOL;
        break;
    }
}

/* ------------------------------------------------------------------ delimited text */

/* One field at pos with quoting on, as Spark's CSV reader (univocity, multiLine=false) reads it.
 * A field opening with the quote runs to the closing quote (which may be followed by blanks); inside
 * it the delimiter is data, escape+quote and escape+escape stand for the second byte, a quote
 * followed by a quote is kept as one quote, and an unclosed quote runs to the line's end. Text after
 * the closing quote makes the whole field raw text up to the next delimiter. Returns where the
 * field's raw text ends (the delimiter or the line's end). */
static size_t split_quoted(plan *pl, uint32_t k, size_t pos) {
    const uint8_t *s = pl->rec;
    size_t n = pl->rec_len, i = pos + 1;
    const uint8_t q = pl->quote, e = pl->escape, dl = pl->delim;
    int pending = 0;   /* the previous byte was a quote: the closing one unless a quote follows */
    size_t o = pl->unq_len;
    if (pos + 1 >= n || s[pos] != q) goto raw;   /* unquoted; a lone quote ending the line is data */
    for (; i < n; i++) {
        uint8_t ch = s[i];
        if (pl->has_escape && ch == e && i + 1 < n && (s[i + 1] == q || s[i + 1] == e)) {
            pending = 0;
            pl->unq[o++] = s[++i];
        } else if (pending) {
            if (ch == q) {
                pl->unq[o++] = q;
                continue;
            }
            size_t j = i;
            while (j < n && s[j] <= ' ' && s[j] != dl) j++;
            if (j < n && s[j] != dl) goto raw;
            i = j;
            break;
        } else if (ch == q) {
            pending = 1;
        } else {
            pl->unq[o++] = ch;
        }
    }
    pl->funq[k] = 1;
    pl->fstart[k] = (uint32_t)pl->unq_len;
    pl->fend[k] = (uint32_t)o;
    pl->unq_len = o;
    return i;
raw:;
    const uint8_t *d = memchr(s + i - 1, dl, n - (i - 1));
    size_t end = d ? (size_t)(d - s) : n;
    pl->funq[k] = 0;
    pl->fstart[k] = (uint32_t)pos;
    pl->fend[k] = (uint32_t)end;
    return end;
}

/* Split the current line up to field `want` (fields past the line's end stay unsplit: NULL). Unquoted
 * text finds its delimiters from the line's delimiter bits, 64 bytes at a time: a field costs a few
 * bit operations instead of a vector compare; the bits stay in locals while splitting. */
/* Split a page line from the page's delimiter bits (a page of lines without quote bytes, plan.c):
 * each field end is the next set bit, so the next field's end does not wait on this one's as a bit
 * scan from each field's start would. */
static inline void split_line(const uint64_t *dl, pline *L, uint32_t *fs, uint32_t *fe, uint32_t want) {
    const size_t base = L->start, e = base + L->len;
    uint32_t k = L->n_split;
    size_t pos = base + L->split_pos, db = L->db;
    uint64_t dm = L->dm;
    while (k <= want) {
        while (!dm && (db + 1) * 64 < e) dm = dl[++db];
        size_t d = dm ? db * 64 + (size_t)__builtin_ctzll(dm) : SIZE_MAX;
        fs[k] = (uint32_t)(pos - base);
        if (d >= e) {
            fe[k++] = (uint32_t)(e - base);
            L->done = 1;
            break;
        }
        fe[k++] = (uint32_t)(d - base);
        pos = d + 1;
        dm &= dm - 1;
    }
    L->n_split = k;
    L->split_pos = (uint32_t)(pos - base);
    L->db = (uint32_t)db;
    L->dm = dm;
}

static void split_to(plan *pl, uint32_t want) {
    if (pl->pg_dl) {
        split_line(pl->pg_dl, pl->pg_line, pl->fstart, pl->fend, want);
        pl->n_fields_split = pl->pg_line->n_split;
        pl->fields_done = pl->pg_line->done;
        return;
    }
    const uint8_t *s = pl->rec;
    size_t n = pl->rec_len;
    uint32_t k = pl->n_fields_split;
    size_t pos = pl->split_pos;
    if (pl->quoting) {
        while (!pl->fields_done && k <= want) {
            size_t end = split_quoted(pl, k, pos);
            k++;
            if (end >= n) pl->fields_done = 1;
            pos = end + 1;
        }
    } else if (!pl->fields_done) {
        size_t dbase = pl->dbase;
        uint64_t dmask = pl->dmask;
        const uint8_t d = pl->delim;
        uint32_t *fs = pl->fstart, *fe = pl->fend;
        while (k <= want) {
            size_t end = n, q = pos;
            while (q < n) {
                if (dbase == SIZE_MAX || q >= dbase + 64) {
                    dbase = q;
                    dmask = csd_plan_byte_mask(s + q, n - q < 64 ? n - q : 64, d);
                }
                uint64_t m = dmask >> (q - dbase);
                if (m) {
                    end = q + (size_t)__builtin_ctzll(m);
                    break;
                }
                q = dbase + 64;
            }
            fs[k] = (uint32_t)pos;
            fe[k] = (uint32_t)end;
            k++;
            pos = end + 1;
            if (end >= n) {
                pl->fields_done = 1;
                break;
            }
        }
        pl->dbase = dbase;
        pl->dmask = dmask;
    }
    pl->n_fields_split = k;
    pl->split_pos = pos;
}

static inline int parse_int(const uint8_t *p, size_t n, int64_t *out) {
    size_t i = 0;
    int neg = 0;
    if (i < n && (p[i] == '-' || p[i] == '+')) neg = p[i++] == '-';
    if (i == n) return -1;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    /* 18 digits cannot overflow: check the limit only past them */
    size_t fast = n - i > 18 ? i + 18 : n;
    for (; i < fast; i++) {
        unsigned dgt = (unsigned)(p[i] - '0');
        if (dgt > 9) return -1;
        v = v * 10 + dgt;
    }
    for (; i < n; i++) {
        unsigned dgt = (unsigned)(p[i] - '0');
        if (dgt > 9 || v > (lim - dgt) / 10) return -1;
        v = v * 10 + dgt;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* The copy is on the stack, not in the plan: a page's lines may be prepared on another thread
 * (csd_plan_batch_page_in) while the plan's state is in use. */
static int parse_double(const uint8_t *p, size_t n, double *out) {
    char buf[64];
    if (n == 0 || n >= sizeof buf || p[0] == ' ' || p[0] == '\t') return -1;
    memcpy(buf, p, n);
    buf[n] = 0;
    char *end;
    double d = strtod(buf, &end);
    if (end != buf + n) return -1;
    *out = d;
    return 0;
}

/* A text field's bytes as column c's value. */
static inline void text_value(const pcol *c, const uint8_t *p, size_t n, pv *out) {
    out->t = PT_NULL;
    if (n == 0) return;   /* empty field = NULL */
    switch (c->type) {
    case PT_STRING:
        out->t = PT_STRING;
        out->s.p = p;
        out->s.n = n;
        break;
    case PT_INT:
        if (!parse_int(p, n, &out->i)) out->t = PT_INT;   /* unparsable = NULL (Spark PERMISSIVE) */
        break;
    case PT_DOUBLE:
        if (!parse_double(p, n, &out->d)) out->t = PT_DOUBLE;
        break;
    default:
        if ((n == 4 && !strncasecmp((const char *)p, "true", 4)) || (n == 1 && p[0] == '1')) {
            out->t = PT_BOOL;
            out->b = 1;
        } else if ((n == 5 && !strncasecmp((const char *)p, "false", 5)) || (n == 1 && p[0] == '0')) {
            out->t = PT_BOOL;
            out->b = 0;
        }
        break;
    }
}

static void read_text(plan *pl, const pcol *c, pv *out) {
    if (c->field >= pl->n_fields_split && !pl->fields_done) split_to(pl, c->field);
    if (c->field >= pl->n_fields_split) {
        out->t = PT_NULL;
        return;
    }
    const uint8_t *p = (pl->funq[c->field] ? pl->unq : pl->rec) + pl->fstart[c->field];
    text_value(c, p, pl->fend[c->field] - pl->fstart[c->field], out);
}

/* A value copied member by member: a whole-struct copy reads 16 bytes across the type byte just
 * stored, which the CPU cannot forward from its store buffer (a stall on every column read). */
static inline void pv_copy(pv *d, const pv *s) {
    d->t = s->t;
    d->s.p = s->s.p;
    d->s.n = s->s.n;
}

/* Column i of the current record into *out, decoded once per record. */
static inline void column(plan *pl, uint32_t i, pv *out) {
    pv *c = &pl->col_val[i];
    if (pl->col_gen[i] != pl->gen) {
        pl->col_gen[i] = pl->gen;
        pl->dram++;
        if (pl->text) read_text(pl, &pl->cols[i], c);
        else read_fixed(&pl->cols[i], pl->rec, c);
    }
    pv_copy(out, c);
}

/* ------------------------------------------------------------------ value order */

static int cmp_double(double a, double b) {
    /* Spark's order: NaN equals NaN and sorts above every number; -0.0 equals 0.0 */
    int na = isnan(a), nb = isnan(b);
    if (na || nb) return na - nb;
    return a < b ? -1 : a > b;
}

static int cmp_bytes(const pv *a, const pv *b) {
    size_t n = a->s.n < b->s.n ? a->s.n : b->s.n;
    int c = n ? memcmp(a->s.p, b->s.p, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return a->s.n < b->s.n ? -1 : a->s.n > b->s.n;
}

int csd_plan_cmp(const pv *a, const pv *b) {
    if (a->t == PT_NULL || b->t == PT_NULL) return (b->t == PT_NULL) - (a->t == PT_NULL);
    if (a->t == PT_INT && b->t == PT_INT) return a->i < b->i ? -1 : a->i > b->i;
    if ((a->t == PT_INT || a->t == PT_DOUBLE) && (b->t == PT_INT || b->t == PT_DOUBLE))
        return cmp_double(a->t == PT_INT ? (double)a->i : a->d, b->t == PT_INT ? (double)b->i : b->d);
    if (a->t == PT_STRING && b->t == PT_STRING) return cmp_bytes(a, b);
    if (a->t == PT_BOOL && b->t == PT_BOOL) return (a->b != 0) - (b->b != 0);
    return a->t < b->t ? -1 : a->t > b->t;   /* mixed types cannot pass compile; order them anyway */
}

int csd_plan_equal_group(const pv *a, const pv *b) {
    if (a->t != b->t) return 0;
    return csd_plan_cmp(a, b) == 0;
}

/* One 64-bit word into the hash: multiply-xorshift (the finalizer of splitmix64). */
static inline uint64_t mix64(uint64_t h, uint64_t w) {
    h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

uint64_t csd_plan_hash(const pv *v, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; k++) {
        h = mix64(h, (uint64_t)v[k].t);
        uint64_t bits = 0;
        switch (v[k].t) {
        case PT_INT: bits = (uint64_t)v[k].i; break;
        case PT_BOOL: bits = v[k].b != 0; break;
        case PT_DOUBLE: {
            double d = v[k].d;
            if (d == 0) d = 0;            /* -0.0 groups with 0.0 */
            if (isnan(d)) d = NAN;        /* every NaN in one group */
            memcpy(&bits, &d, sizeof bits);
            break;
        }
        case PT_STRING: {
            const uint8_t *s = v[k].s.p;
            size_t len = v[k].s.n, i = 0;
            for (; i + 8 <= len; i += 8) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                h = mix64(h, w);
            }
            uint64_t tail = 0;
            memcpy(&tail, s + i, len - i);
            h = mix64(h, tail);
            bits = len;
            break;
        }
        default: break;
        }
        h = mix64(h, bits);
    }
    return h;
}

/* ------------------------------------------------------------------ expressions */

static int truth(const pv *v) { return v->t == PT_NULL ? -1 : v->b != 0; }   /* -1 unknown */

static void set_bool(pv *out, int b) {
    out->t = PT_BOOL;
    out->b = b;
}

static int fail_div0(plan *pl) {
    csd_io_fail(pl->io, "division by zero");
    pl->failed = 1;
    if (!pl->fail_rc) pl->fail_rc = -EDOM;
    return -EDOM;
}

/* -EDOM on a division by zero, without failing the run (the batch then gives the page up) */
static int arith_value(int op, const pv *a, const pv *b, pv *out) {
    if (a->t == PT_NULL || b->t == PT_NULL) {
        out->t = PT_NULL;
        return 0;
    }
    if (a->t == PT_INT && b->t == PT_INT) {
        /* two's complement wrap-around (Spark's non-ANSI mode), never undefined behaviour */
        uint64_t x = (uint64_t)a->i, y = (uint64_t)b->i;
        out->t = PT_INT;
        switch (op) {
        case SMARTSSD__V1__BINARY_OP__ADD: out->i = (int64_t)(x + y); break;
        case SMARTSSD__V1__BINARY_OP__SUB: out->i = (int64_t)(x - y); break;
        case SMARTSSD__V1__BINARY_OP__MUL: out->i = (int64_t)(x * y); break;
        default:
            if (b->i == 0) return -EDOM;
            if (b->i == -1) out->i = op == SMARTSSD__V1__BINARY_OP__DIV ? (int64_t)(0 - x) : 0;
            else out->i = op == SMARTSSD__V1__BINARY_OP__DIV ? a->i / b->i : a->i % b->i;
            break;
        }
        return 0;
    }
    double x = a->t == PT_INT ? (double)a->i : a->d, y = b->t == PT_INT ? (double)b->i : b->d;
    out->t = PT_DOUBLE;
    switch (op) {
    case SMARTSSD__V1__BINARY_OP__ADD: out->d = x + y; break;
    case SMARTSSD__V1__BINARY_OP__SUB: out->d = x - y; break;
    case SMARTSSD__V1__BINARY_OP__MUL: out->d = x * y; break;
    default:
        if (y == 0) return -EDOM;
        out->d = op == SMARTSSD__V1__BINARY_OP__DIV ? x / y : fmod(x, y);
        break;
    }
    return 0;
}

static int arith(plan *pl, int op, const pv *a, const pv *b, pv *out) {
    int rc = arith_value(op, a, b, out);
    return rc ? fail_div0(pl) : 0;
}

static int string_op(int op, const pv *a, const pv *b) {
    const uint8_t *s = a->s.p, *t = b->s.p;
    size_t n = a->s.n, m = b->s.n;
    if (m > n) return 0;
    if (m == 0) return 1;
    switch (op) {
    case SMARTSSD__V1__BINARY_OP__STARTS_WITH: return !memcmp(s, t, m);
    case SMARTSSD__V1__BINARY_OP__ENDS_WITH: return !memcmp(s + n - m, t, m);
    default: return memmem(s, n, t, m) != NULL;
    }
}

/* A child node: columns and literals (most children) without the call, counted as csd_plan_eval
 * counts them. */
static inline int eval_child(plan *pl, int32_t n, pv *out) {
    const pnode *x = &pl->nodes[n];
    if (x->kind == PN_COLUMN) {
        pl->nodes_evaluated++;
        column(pl, x->col, out);
        return 0;
    }
    if (x->kind == PN_LITERAL) {
        pl->nodes_evaluated++;
        pv_copy(out, &x->lit);
        return 0;
    }
    return csd_plan_eval(pl, n, out);
}

/* A comparison or string predicate (every binary op but AND/OR and arithmetic) */
static inline void compare_value(int op, const pv *a, const pv *b, pv *out) {
    if (a->t == PT_NULL || b->t == PT_NULL) {
        out->t = PT_NULL;
        return;
    }
    if (op >= SMARTSSD__V1__BINARY_OP__STARTS_WITH) {
        set_bool(out, a->t == PT_STRING && b->t == PT_STRING && string_op(op, a, b));
        return;
    }
    int c = a->t == PT_INT && b->t == PT_INT ? (a->i < b->i ? -1 : a->i > b->i) : csd_plan_cmp(a, b);
    switch (op) {
    case SMARTSSD__V1__BINARY_OP__EQ: set_bool(out, c == 0); break;
    case SMARTSSD__V1__BINARY_OP__NE: set_bool(out, c != 0); break;
    case SMARTSSD__V1__BINARY_OP__LT: set_bool(out, c < 0); break;
    case SMARTSSD__V1__BINARY_OP__LE: set_bool(out, c <= 0); break;
    case SMARTSSD__V1__BINARY_OP__GT: set_bool(out, c > 0); break;
    default: set_bool(out, c >= 0); break;
    }
}

static int eval_binary(plan *pl, const pnode *x, pv *out) {
    pv a, b;
    int op = x->op, rc;
    if ((rc = eval_child(pl, x->a, &a))) return rc;
    if (op == SMARTSSD__V1__BINARY_OP__AND || op == SMARTSSD__V1__BINARY_OP__OR) {
        int stop = op == SMARTSSD__V1__BINARY_OP__OR;   /* the value that decides alone */
        int ta = truth(&a);
        if (ta == stop) {
            set_bool(out, stop);
            return 0;
        }
        if ((rc = eval_child(pl, x->b, &b))) return rc;
        int tb = truth(&b);
        if (tb == stop) set_bool(out, stop);
        else if (ta < 0 || tb < 0) out->t = PT_NULL;
        else set_bool(out, !stop);
        return 0;
    }
    if ((rc = eval_child(pl, x->b, &b))) return rc;
    if (op >= SMARTSSD__V1__BINARY_OP__ADD && op <= SMARTSSD__V1__BINARY_OP__MOD) return arith(pl, op, &a, &b, out);
    compare_value(op, &a, &b, out);
    return 0;
}

static inline void unary_value(int op, const pv *a, pv *out) {
    switch (op) {
    case SMARTSSD__V1__UNARY_OP__IS_NULL: set_bool(out, a->t == PT_NULL); break;
    case SMARTSSD__V1__UNARY_OP__IS_NOT_NULL: set_bool(out, a->t != PT_NULL); break;
    case SMARTSSD__V1__UNARY_OP__NOT:
        if (a->t == PT_NULL) out->t = PT_NULL;
        else set_bool(out, !a->b);
        break;
    default:   /* NEG */
        *out = *a;
        if (a->t == PT_INT) out->i = (int64_t)(0 - (uint64_t)a->i);
        else if (a->t == PT_DOUBLE) out->d = -a->d;
        break;
    }
}

static int eval_unary(plan *pl, const pnode *x, pv *out) {
    pv a;
    int rc = eval_child(pl, x->a, &a);
    if (rc) return rc;
    unary_value(x->op, &a, out);
    return 0;
}

/* a IN (list): returns the list values examined (a node each) */
static inline uint32_t in_value(const plan *pl, const pnode *x, const pv *a, pv *out) {
    if (a->t == PT_NULL) {
        out->t = PT_NULL;
        return 0;
    }
    int saw_null = 0;
    for (uint32_t i = 0; i < x->in_n; i++) {
        const pv *v = &pl->in_vals[x->in_first + i];
        if (v->t == PT_NULL) saw_null = 1;
        else if (csd_plan_cmp(a, v) == 0) {
            set_bool(out, 1);
            return i + 1;
        }
    }
    if (saw_null) out->t = PT_NULL;
    else set_bool(out, 0);
    return x->in_n;
}

static int eval_in(plan *pl, const pnode *x, pv *out) {
    pv a;
    int rc = eval_child(pl, x->a, &a);
    if (rc) return rc;
    pl->nodes_evaluated += in_value(pl, x, &a, out);
    return 0;
}

int csd_plan_eval(plan *pl, int32_t n, pv *out) {
    const pnode *x = &pl->nodes[n];
    pl->nodes_evaluated++;
    switch (x->kind) {
    case PN_COLUMN: column(pl, x->col, out); return 0;
    case PN_LITERAL: *out = x->lit; return 0;
    case PN_BINARY: return eval_binary(pl, x, out);
    case PN_UNARY: return eval_unary(pl, x, out);
    default: return eval_in(pl, x, out);
    }
}

int csd_plan_filter_row(plan *pl, const pv *vals) {
    /* the row's values stand in for decoded columns: the column cache is valid for this generation */
    pl->gen++;
    for (uint32_t i = 0; i < pl->n_cols; i++) {
        pl->col_val[i] = vals[i];
        pl->col_gen[i] = pl->gen;
    }
    pv out;
    int rc = csd_plan_eval(pl, pl->filter, &out);
    if (rc) return rc;
    return out.t == PT_BOOL && out.b;
}

/* ------------------------------------------------------------------ a page by column */

/* A page's lines one expression node at a time: each node runs over the list of lines it is
 * evaluated on (AND/OR pass their right side only the lines the left side did not decide), so a
 * column is split and parsed for all those lines in one loop and a comparison is one loop over
 * values, instead of walking the tree once per line. First the filter on every line, then the
 * group keys and aggregate arguments (or the projection) on the lines it passed. Every line gets
 * the counts the line-at-a-time evaluator would charge it: one node per node evaluated on it (and
 * per IN value examined), one DRAM access per column decoded on it. Evaluation has no side
 * effects, so a page it cannot finish (a division by zero, no memory) goes line by line instead. */
static int grow(void **p, size_t n, size_t size) {
    void *q = realloc(*p, n * size);
    if (!q) return -ENOMEM;
    *p = q;
    return 0;
}

#define PB_HEAD_COLS 4   /* columns the head of a chain of conjuncts reads ("head" below) */

static int batch_grow_lines(const plan *pl, pbatch *bt, size_t cap) {
    if (grow((void **)&bt->lines, cap, sizeof *bt->lines) || grow((void **)&bt->nodes, cap, sizeof *bt->nodes) ||
        grow((void **)&bt->dram, cap, sizeof *bt->dram) || grow((void **)&bt->root, cap, sizeof *bt->root) ||
        grow((void **)&bt->sel, cap, sizeof *bt->sel) || grow((void **)&bt->cj_null, cap, 1) ||
        grow((void **)&bt->cj_cls, cap * PB_HEAD_COLS, 1))
        return -ENOMEM;
    memset(bt->root, 0, cap * sizeof *bt->root);   /* a NULL's unused b is read (and ignored) when selecting */
    for (int l = 0; l < PB_MAX_LEVELS; l++) {
        if (!bt->lv[l].a) continue;
        if (grow((void **)&bt->lv[l].a, cap, sizeof(pv)) || grow((void **)&bt->lv[l].b, cap, sizeof(pv)) ||
            grow((void **)&bt->lv[l].sel, cap, sizeof(uint32_t)))
            return -ENOMEM;
    }
    for (uint32_t k = 0; k < bt->n_ev; k++)
        if (grow((void **)&bt->ev[k], cap, sizeof(pv))) return -ENOMEM;
    for (uint32_t c = 0; c < pl->n_cols; c++) {
        if (!bt->colv[c]) continue;
        if (grow((void **)&bt->colv[c], cap, sizeof(pv)) || grow((void **)&bt->cold[c], cap, 1)) return -ENOMEM;
    }
    bt->cap_lines = cap;
    return 0;
}

/* Add expression n's column references to refs (per column). A column referenced once is decoded
 * at most once per line on a page (each node runs once per line), so it needs no record of which
 * lines have it. */
static void count_refs(const plan *pl, uint32_t *refs, int32_t n, unsigned depth) {
    if (n < 0 || depth > PB_MAX_LEVELS) return;   /* never: compile keeps trees within PLAN_MAX_DEPTH */
    const pnode *x = &pl->nodes[n];
    switch (x->kind) {
    case PN_COLUMN: refs[x->col]++; return;
    case PN_LITERAL: return;
    case PN_BINARY: count_refs(pl, refs, x->b, depth + 1); /* fall through */
    default: count_refs(pl, refs, x->a, depth + 1); return;
    }
}

static int batch_conj_setup(const plan *pl, pbatch *bt);

/* A batch's arrays for plan pl (bt zeroed); 0 or -ENOMEM (bt->ok stays 0). */
static int batch_setup(const plan *pl, pbatch *bt) {
    uint32_t nc = pl->n_cols ? pl->n_cols : 1;
    bt->colv = calloc(nc, sizeof *bt->colv);
    bt->cold = calloc(nc, sizeof *bt->cold);
    bt->used = calloc(nc, sizeof *bt->used);
    bt->n_ev = pl->aggregating ? pl->n_group + pl->n_aggs : pl->n_outs;
    bt->ev_node = calloc(bt->n_ev + 1, sizeof *bt->ev_node);
    bt->ev = calloc(bt->n_ev + 1, sizeof *bt->ev);
    if (!bt->colv || !bt->cold || !bt->used || !bt->ev_node || !bt->ev) return -ENOMEM;
    for (uint32_t k = 0; k < bt->n_ev; k++) {
        if (!pl->aggregating) bt->ev_node[k] = pl->outs[k];
        else if (k < pl->n_group) bt->ev_node[k] = pl->group[k];
        else bt->ev_node[k] = pl->aggs[k - pl->n_group].arg;   /* -1: COUNT(*) */
    }
    bt->refs = calloc(nc, sizeof *bt->refs);
    if (!bt->refs) return -ENOMEM;
    count_refs(pl, bt->refs, pl->filter, 0);
    for (uint32_t k = 0; k < bt->n_ev; k++) count_refs(pl, bt->refs, bt->ev_node[k], 0);
    if (batch_conj_setup(pl, bt) || batch_grow_lines(pl, bt, 256)) return -ENOMEM;
    /* a top-N's outputs that are a column named once and no sort key: lazy */
    if (!pl->aggregating && pl->n_order && pl->limit) {
        if (!(bt->lazy = calloc(bt->n_ev + 1, 1))) return -ENOMEM;
        for (uint32_t k = 0; k < bt->n_ev; k++) {
            const int32_t x = bt->ev_node[k];
            int key = 0;
            for (uint32_t o = 0; o < pl->n_order; o++) key |= pl->order[o].output == k;
            if (!key && x >= 0 && pl->nodes[x].kind == PN_COLUMN && bt->refs[pl->nodes[x].col] == 1) {
                bt->lazy[k] = 1;
                bt->n_lazy++;
            }
        }
    }
    bt->ok = 1;
    return 0;
}

pbatch *csd_plan_batch_new(const plan *pl) {
    pbatch *bt = calloc(1, sizeof *bt);
    if (bt && batch_setup(pl, bt)) {
        csd_plan_batch_destroy(pl, bt);
        return NULL;
    }
    return bt;
}

void csd_plan_batch_destroy(const plan *pl, pbatch *bt) {
    if (!bt) return;
    free(bt->lines), free(bt->dpos), free(bt->wdel), free(bt->npos), free(bt->nodes), free(bt->dram), free(bt->root), free(bt->sel);
    for (int l = 0; l < PB_MAX_LEVELS; l++) free(bt->lv[l].a), free(bt->lv[l].b), free(bt->lv[l].sel);
    for (uint32_t c = 0; c < pl->n_cols && bt->colv; c++) free(bt->colv[c]), free(bt->cold[c]);
    free(bt->refs), free(bt->cj), free(bt->cj_null), free(bt->lazy), free(bt->head), free(bt->cj_cls);
    for (uint32_t k = 0; k < bt->n_ev && bt->ev; k++) free(bt->ev[k]);
    free(bt->colv), free(bt->cold), free(bt->used), free(bt->ev), free(bt->ev_node);
    free(bt);
}

static pblevel *level(pbatch *bt, unsigned d) {
    if (d >= PB_MAX_LEVELS) return NULL;
    pblevel *l = &bt->lv[d];
    if (!l->a) {
        l->a = malloc(bt->cap_lines * sizeof(pv));
        l->b = malloc(bt->cap_lines * sizeof(pv));
        l->sel = malloc(bt->cap_lines * sizeof(uint32_t));
        if (!l->a || !l->b || !l->sel) {
            free(l->a), free(l->b), free(l->sel);
            l->a = l->b = NULL;
            l->sel = NULL;
            return NULL;
        }
    }
    return l;
}

/* 1 to 8 unsigned decimal digits at p (8 bytes readable) as parse_int reads them, all at once: the
 * bytes placed after '0' padding (the word's first byte the most significant digit) and checked to
 * be digits; -1 when a byte is not a digit (a sign or not a number: parse_int decides). Two such
 * words in big-endian order compare as their numbers do. parse_digits8 then combines the digits
 * in three multiplies. */
static inline int digits8_word(const uint8_t *p, size_t n, uint64_t *out) {
    uint64_t w;
    memcpy(&w, p, 8);
    unsigned pad = 8 * (unsigned)(8 - n);
    if (pad) w = (w << pad) | (0x3030303030303030ull >> (64 - pad));   /* first byte = most significant digit */
    if ((w & 0xF0F0F0F0F0F0F0F0ull) != 0x3030303030303030ull ||
        (((w & 0x0F0F0F0F0F0F0F0Full) + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull))
        return -1;
    *out = w;
    return 0;
}

/* The number a digit word of digits8_word holds. */
static inline int64_t digits8_value(uint64_t w) {
    w = ((w & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
    w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
    return (int64_t)(((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32);
}

static inline int parse_digits8(const uint8_t *p, size_t n, int64_t *out) {
    uint64_t w;
    if (digits8_word(p, n, &w)) return -1;
    *out = digits8_value(w);
    return 0;
}

/* Column c's arrays, ready for this page; NULL without memory. */
static pv *batch_col_begin(pbatch *bt, uint32_t c) {
    if (!bt->colv[c]) {
        bt->colv[c] = malloc(bt->cap_lines * sizeof(pv));
        bt->cold[c] = malloc(bt->cap_lines);
        if (!bt->colv[c] || !bt->cold[c]) {
            free(bt->colv[c]), free(bt->cold[c]);
            bt->colv[c] = NULL;
            bt->cold[c] = NULL;
            return NULL;
        }
    }
    uint32_t k;
    for (k = 0; k < bt->n_used && bt->used[k] != c; k++) {}
    if (k == bt->n_used) {
        bt->used[bt->n_used++] = c;
        if (bt->refs[c] > 1) memset(bt->cold[c], 0, bt->n_lines);
    }
    return bt->colv[c];
}

/* Column c on line i, decoded the first time (a DRAM access). Its field's bounds are the line's
 * delimiters' offsets (dpos): field f ends at the line's f-th delimiter, the last at the line's end. */
/* Field f of line i: its bytes at *p, its length returned; -1 past the line's last field. */
static inline __attribute__((always_inline)) ssize_t batch_field(const pbatch *bt, uint32_t f, uint32_t i,
                                                                 const uint8_t **p) {
    const pbline *L = &bt->lines[i];
    if (f > L->nd) return -1;
    const uint32_t *d = bt->dpos + L->d0;
    uint32_t fs = f ? d[f - 1] + 1 : L->start, fe = f < L->nd ? d[f] : L->start + L->len;
    *p = bt->page + fs;
    return (ssize_t)(fe - fs);
}

/* An integer field's n bytes at p (n < 0: past the line's end) as text_value reads them: PT_INT
 * with *val, or PT_NULL. */
static inline __attribute__((always_inline)) int batch_int_bytes(const pbatch *bt, const uint8_t *p, ssize_t n, int64_t *val) {
    if (n <= 0) return PT_NULL;   /* past the line's end, or empty: NULL */
    if (n <= 8) {
        if (p + 8 <= bt->page_end && !parse_digits8(p, (size_t)n, val)) return PT_INT;
    } else if (n <= 16) {   /* 9 to 16 digits (timestamps): two blocks of 8, both inside the page */
        int64_t hi, lo;
        if (!parse_digits8(p, (size_t)n - 8, &hi) && !parse_digits8(p + n - 8, 8, &lo)) {
            *val = hi * 100000000 + lo;
            return PT_INT;
        }
    }
    return parse_int(p, (size_t)n, val) ? PT_NULL : PT_INT;   /* a sign, long, or not a number */
}

static inline __attribute__((always_inline)) int batch_int_decode(const pbatch *bt, uint32_t f, uint32_t i, int64_t *val) {
    const uint8_t *p = NULL;
    const ssize_t n = batch_field(bt, f, i, &p);
    return batch_int_bytes(bt, p, n, val);
}

/* Literal lit's 8 digit bytes, most significant first in big-endian order, into *wl: 1 when lit has
 * 0 to 8 digits (then fields of 1 to 8 digits compare by their word), else 0. */
static inline int lit_digit_word(int64_t lit, uint64_t *wl) {
    *wl = 0;
    if (lit < 0 || lit >= 100000000) return 0;
    for (uint64_t x = (uint64_t)lit, k = 0; k < 8; k++, x /= 10) *wl |= ('0' + x % 10) << (8 * k);
    return 1;
}

/* Integer field f of line i against literal lit (its digit word wl when wok): -1, 0, 1, with *t the
 * field's type as batch_int_bytes reads it (PT_INT, or PT_NULL: the comparison is then NULL). A field
 * of 1 to 8 digits compares by its digit word, with no multiplies. */
static inline __attribute__((always_inline)) int batch_int_cmp_lit(const pbatch *bt, uint32_t f, uint32_t i, int64_t lit,
                                                                   uint64_t wl, int wok, int *t) {
    const uint8_t *p = NULL;
    const ssize_t n = batch_field(bt, f, i, &p);
    uint64_t w;
    *t = PT_INT;
    if (wok && n >= 1 && n <= 8 && p + 8 <= bt->page_end && !digits8_word(p, (size_t)n, &w)) {
        w = __builtin_bswap64(w);
        return (w > wl) - (w < wl);
    }
    int64_t v = 0;
    *t = batch_int_bytes(bt, p, n, &v);
    return (v > lit) - (v < lit);
}

static inline __attribute__((always_inline)) void batch_col_decode(const plan *pl, pbatch *bt, uint32_t c, uint32_t i, pv *v) {
    bt->dram[i]++;
    const pcol *col = &pl->cols[c];
    if (col->type == PT_INT) {   /* text_value's integer case, in the loop */
        int64_t x = 0;
        v->t = (uint8_t)batch_int_decode(bt, col->field, i, &x);
        v->i = x;
        return;
    }
    const uint8_t *p;
    const ssize_t n = batch_field(bt, col->field, i, &p);
    if (n < 0) v->t = PT_NULL;
    else text_value(col, p, (size_t)n, v);
}

/* Column c on line i, decoded the first time (a DRAM access). */
static inline __attribute__((always_inline)) const pv *batch_col_value(const plan *pl, pbatch *bt, uint32_t c, uint32_t i) {
    pv *v = &bt->colv[c][i];
    if (bt->refs[c] > 1) {
        if (bt->cold[c][i]) return v;
        bt->cold[c][i] = 1;
    }
    batch_col_decode(pl, bt, c, i, v);
    return v;
}

/* Column c's values on the lines sel. */
static int batch_column(const plan *pl, pbatch *bt, uint32_t c, const uint32_t *sel, size_t ns, pv *out) {
    if (bt->refs[c] == 1) {   /* decoded here once: straight into out */
        for (size_t j = 0; j < ns; j++) {
            bt->nodes[sel[j]]++;
            batch_col_decode(pl, bt, c, sel[j], &out[sel[j]]);
        }
        return 0;
    }
    if (!batch_col_begin(bt, c)) return -ENOMEM;
    for (size_t j = 0; j < ns; j++) {
        bt->nodes[sel[j]]++;
        pv_copy(&out[sel[j]], batch_col_value(pl, bt, c, sel[j]));
    }
    return 0;
}

/* An integer column against an integer literal (most filters): one loop, no child arrays; the
 * node and its two children counted on each line. */
static inline __attribute__((always_inline)) int cmp_int_op(int op, int c) {
    switch (op) {
    case SMARTSSD__V1__BINARY_OP__EQ: return c == 0;
    case SMARTSSD__V1__BINARY_OP__NE: return c != 0;
    case SMARTSSD__V1__BINARY_OP__LT: return c < 0;
    case SMARTSSD__V1__BINARY_OP__LE: return c <= 0;
    case SMARTSSD__V1__BINARY_OP__GT: return c > 0;
    default: return c >= 0;
    }
}

static int batch_cmp_int(const plan *pl, pbatch *bt, int op, uint32_t col, int64_t lit, const uint32_t *sel, size_t ns,
                         pv *out) {
    if (bt->refs[col] == 1) {
        /* decoded here once: no value kept, one loop per operator */
        const uint32_t f = pl->cols[col].field;
        uint64_t wl;
        const int wok = lit_digit_word(lit, &wl);
#define PB_CMP_LOOP(EXPR)                                                                               \
    for (size_t j = 0; j < ns; j++) {                                                                   \
        const uint32_t i = sel[j];                                                                      \
        bt->nodes[i] += 3;                                                                              \
        bt->dram[i]++;                                                                                  \
        int t;                                                                                          \
        const int c = batch_int_cmp_lit(bt, f, i, lit, wl, wok, &t);                                    \
        out[i].t = t == PT_INT ? PT_BOOL : PT_NULL;                                                     \
        out[i].b = (EXPR);                                                                              \
    }
        switch (op) {
        case SMARTSSD__V1__BINARY_OP__EQ: PB_CMP_LOOP(c == 0) break;
        case SMARTSSD__V1__BINARY_OP__NE: PB_CMP_LOOP(c != 0) break;
        case SMARTSSD__V1__BINARY_OP__LT: PB_CMP_LOOP(c < 0) break;
        case SMARTSSD__V1__BINARY_OP__LE: PB_CMP_LOOP(c <= 0) break;
        case SMARTSSD__V1__BINARY_OP__GT: PB_CMP_LOOP(c > 0) break;
        default: PB_CMP_LOOP(c >= 0) break;
        }
#undef PB_CMP_LOOP
        return 0;
    }
    if (!batch_col_begin(bt, col)) return -ENOMEM;
    for (size_t j = 0; j < ns; j++) {
        uint32_t i = sel[j];
        bt->nodes[i] += 3;
        const pv *v = batch_col_value(pl, bt, col, i);
        if (v->t == PT_NULL) {
            out[i].t = PT_NULL;
            continue;
        }
        set_bool(&out[i], cmp_int_op(op, v->i < lit ? -1 : v->i > lit));
    }
    return 0;
}

/* Node n on the lines sel (ns of them, ascending), values into out[line]; -EDOM/-ENOMEM/-E2BIG:
 * give the page up (nothing is charged or failed here). */
static int batch_eval(const plan *pl, pbatch *bt, int32_t n, const uint32_t *sel, size_t ns, pv *out, unsigned depth) {
    const pnode *x = &pl->nodes[n];
    if (x->kind == PN_COLUMN) return batch_column(pl, bt, x->col, sel, ns, out);   /* counts its node */
    if (x->kind == PN_LITERAL) {
        for (size_t j = 0; j < ns; j++) {
            bt->nodes[sel[j]]++;
            out[sel[j]] = x->lit;
        }
        return 0;
    }
    int op = x->op;
    const pnode *xa = &pl->nodes[x->a], *xb = x->kind == PN_BINARY ? &pl->nodes[x->b] : NULL;
    if (xb && op >= SMARTSSD__V1__BINARY_OP__EQ && op <= SMARTSSD__V1__BINARY_OP__GE && xa->kind == PN_COLUMN &&
        xb->kind == PN_LITERAL && xb->lit.t == PT_INT && pl->cols[xa->col].type == PT_INT)
        return batch_cmp_int(pl, bt, op, xa->col, xb->lit.i, sel, ns, out);   /* counts its three nodes */
    for (size_t j = 0; j < ns; j++) bt->nodes[sel[j]]++;
    pblevel *l = level(bt, depth);
    if (!l) return -E2BIG;
    pv *a = l->a, *b = l->b;
    int rc = batch_eval(pl, bt, x->a, sel, ns, a, depth + 1);
    if (rc) return rc;
    if (x->kind == PN_UNARY) {
        for (size_t j = 0; j < ns; j++) unary_value(x->op, &a[sel[j]], &out[sel[j]]);
        return 0;
    }
    if (x->kind == PN_IN) {
        for (size_t j = 0; j < ns; j++) bt->nodes[sel[j]] += in_value(pl, x, &a[sel[j]], &out[sel[j]]);
        return 0;
    }
    if (op == SMARTSSD__V1__BINARY_OP__AND || op == SMARTSSD__V1__BINARY_OP__OR) {
        int stop = op == SMARTSSD__V1__BINARY_OP__OR;   /* the value that decides alone */
        uint32_t *sb = l->sel;
        size_t nb = 0;
        for (size_t j = 0; j < ns; j++) {
            uint32_t i = sel[j];
            if (truth(&a[i]) == stop) set_bool(&out[i], stop);
            else sb[nb++] = i;
        }
        if (!nb) return 0;
        if ((rc = batch_eval(pl, bt, x->b, sb, nb, b, depth + 1))) return rc;
        for (size_t j = 0; j < nb; j++) {
            uint32_t i = sb[j];
            int ta = truth(&a[i]), tb = truth(&b[i]);
            if (tb == stop) set_bool(&out[i], stop);
            else if (ta < 0 || tb < 0) out[i].t = PT_NULL;
            else set_bool(&out[i], !stop);
        }
        return 0;
    }
    if ((rc = batch_eval(pl, bt, x->b, sel, ns, b, depth + 1))) return rc;
    if (op >= SMARTSSD__V1__BINARY_OP__ADD && op <= SMARTSSD__V1__BINARY_OP__MOD) {
        for (size_t j = 0; j < ns; j++)
            if (arith_value(op, &a[sel[j]], &b[sel[j]], &out[sel[j]])) return -EDOM;
        return 0;
    }
    for (size_t j = 0; j < ns; j++) compare_value(op, &a[sel[j]], &b[sel[j]], &out[sel[j]]);
    return 0;
}

/* ------------------------------------------------------------------ conjuncts
 * A filter AND(AND(AND(c0, c1), c2), c3) (how Spark joins its pushed filters; it adds an IS NOT
 * NULL for each column a comparison names) whose conjuncts are IS [NOT] NULL(column) or an integer
 * column <op> an integer literal runs conjunct by conjunct over the lines still undecided, instead
 * of node by node through arrays of values. Conjunct k is evaluated exactly where none of c0 ..
 * c(k-1) was FALSE, which is where the node-by-node evaluation and record() evaluate it, and the
 * chain's ANDs are evaluated on every line: a line leaves the list at its first FALSE, a NULL marks
 * it (the filter is then NULL, not TRUE), and the counts are the same. A column is decoded (one
 * DRAM access) by the first conjunct naming it, on every line that conjunct runs on, so the later
 * conjuncts find it decoded on all of theirs: no per-line flag but the one keys and outputs read. */
#define PB_MAX_CONJ 32
enum { PBC_CMP, PBC_IS_NULL, PBC_NOT_NULL };
/* A kept integer value that is a field of 1 to 8 digits, as its digit word in big-endian order
 * (which compares as the number does against a literal's word): no multiplies unless a literal
 * outside 0 .. 99999999 needs the number. Only in columns no key or output reads. */
enum { PB_WORD = 8 };
typedef struct pbconj {
    uint8_t kind, op;
    uint8_t first;   /* the first conjunct naming its column: decodes it */
    uint8_t keep;    /* the column is named again (a later conjunct, a key, an output): values kept */
    uint8_t word;    /* ... by conjuncts only: 1 to 8 digits kept as their digit word (PB_WORD) */
    uint32_t col;
    int64_t lit;
} pbconj;

/* An integer column's field on line i as a kept value: PB_WORD for 1 to 8 digits, else as
 * batch_int_bytes reads it. */
static inline __attribute__((always_inline)) void batch_int_word(const pbatch *bt, uint32_t f, uint32_t i, pv *v) {
    const uint8_t *p = NULL;
    const ssize_t n = batch_field(bt, f, i, &p);
    uint64_t w;
    if (n >= 1 && n <= 8 && p + 8 <= bt->page_end && !digits8_word(p, (size_t)n, &w)) {
        v->t = PB_WORD;
        v->i = (int64_t)__builtin_bswap64(w);   /* ASCII digits: below 2^63 */
        return;
    }
    int64_t x = 0;
    v->t = (uint8_t)batch_int_bytes(bt, p, n, &x);
    v->i = x;
}

/* A kept value against literal lit (its digit word wl when wok): -1, 0, 1. */
static inline __attribute__((always_inline)) int cj_cmp(const pv *v, int64_t lit, uint64_t wl, int wok) {
    if (v->t == PB_WORD) {
        if (wok) return ((uint64_t)v->i > wl) - ((uint64_t)v->i < wl);
        const int64_t x = digits8_value(__builtin_bswap64((uint64_t)v->i));
        return (x > lit) - (x < lit);
    }
    return (v->i > lit) - (v->i < lit);
}

static int batch_head_setup(const plan *pl, pbatch *bt);

/* The filter as conjuncts (bt->cj, n_cj), or n_cj = 0 when it has another shape. */
static int batch_conj_setup(const plan *pl, pbatch *bt) {
    bt->n_cj = 0;
    if (pl->filter < 0) return 0;
    int32_t right[PB_MAX_CONJ], n = pl->filter;
    uint32_t ands = 0;
    while (pl->nodes[n].kind == PN_BINARY && pl->nodes[n].op == SMARTSSD__V1__BINARY_OP__AND) {
        if (ands + 1 >= PB_MAX_CONJ) return 0;
        right[ands++] = pl->nodes[n].b;
        n = pl->nodes[n].a;
    }
    /* one conjunct alone: the node's own loop (batch_cmp_int) is as cheap, and measured a little
     * cheaper on the text plan's `status = 200` */
    if (!ands) return 0;
    pbconj cj[PB_MAX_CONJ];
    uint8_t seen[PLAN_MAX_COLUMNS] = { 0 };
    for (uint32_t k = 0; k <= ands; k++) {
        const pnode *x = &pl->nodes[k ? right[ands - k] : n];
        const pnode *xa = x->kind == PN_BINARY || x->kind == PN_UNARY ? &pl->nodes[x->a] : NULL;
        if (!xa || xa->kind != PN_COLUMN) return 0;
        pbconj *c = &cj[k];
        c->col = xa->col;
        c->op = x->op;
        c->lit = 0;
        if (x->kind == PN_BINARY) {
            const pnode *xb = &pl->nodes[x->b];
            if (x->op < SMARTSSD__V1__BINARY_OP__EQ || x->op > SMARTSSD__V1__BINARY_OP__GE || xb->kind != PN_LITERAL ||
                xb->lit.t != PT_INT || pl->cols[xa->col].type != PT_INT)
                return 0;
            c->kind = PBC_CMP;
            c->lit = xb->lit.i;
        } else if (x->op == SMARTSSD__V1__UNARY_OP__IS_NULL || x->op == SMARTSSD__V1__UNARY_OP__IS_NOT_NULL) {
            c->kind = x->op == SMARTSSD__V1__UNARY_OP__IS_NULL ? PBC_IS_NULL : PBC_NOT_NULL;
        } else {
            return 0;
        }
        c->first = !seen[c->col];
        seen[c->col]++;
        c->keep = bt->refs[c->col] > 1;
    }
    for (uint32_t k = 0; k <= ands; k++)   /* every reference a conjunct's: words will do */
        cj[k].word = cj[k].keep && seen[cj[k].col] == bt->refs[cj[k].col] && pl->cols[cj[k].col].type == PT_INT;
    if (!(bt->cj = malloc((ands + 1) * sizeof *bt->cj))) return -ENOMEM;
    memcpy(bt->cj, cj, (ands + 1) * sizeof *bt->cj);
    bt->n_cj = ands + 1;
    bt->cj_ands = ands;
    return batch_head_setup(pl, bt);
}

/* One conjunct over the lines sel[0 .. ns): the lines it does not make FALSE kept in sel (in
 * place), a NULL marked in nul; the number kept. mode: CJ_READ the column's kept values, CJ_WORD
 * decoded here as words, CJ_DECODE decoded here as values (into tmp when not kept); op < 0: IS
 * NULL (want 1) or IS NOT NULL (want 0). Called with constant mode and op, so each combination is
 * its own loop with no test of them per line. */
enum { CJ_READ, CJ_WORD, CJ_DECODE };
static inline __attribute__((always_inline)) size_t cj_pass(const plan *pl, pbatch *bt, uint32_t *restrict sel, size_t ns,
                                                            uint8_t *restrict nul, pv *restrict cv, uint8_t *restrict cold,
                                                            uint32_t col, int mode, int op, int want, int64_t lit,
                                                            uint64_t wl, int wok) {
    uint32_t *restrict nodes = bt->nodes, *restrict dram = bt->dram;
    const uint32_t f = pl->cols[col].field;
    size_t m = 0;
    pv tmp;
    for (size_t j = 0; j < ns; j++) {
        const uint32_t i = sel[j];
        pv *v = cv ? &cv[i] : &tmp;
        if (mode == CJ_WORD) {
            dram[i]++;
            batch_int_word(bt, f, i, v);
        } else if (mode == CJ_DECODE) {
            batch_col_decode(pl, bt, col, i, v);
            if (cold) cold[i] = 1;
        }
        int keep;
        if (op < 0) {
            nodes[i] += 2;
            keep = (v->t == PT_NULL) == want;
        } else {
            nodes[i] += 3;
            const int isn = v->t == PT_NULL;
            nul[i] |= (uint8_t)isn;
            keep = isn | cmp_int_op(op, cj_cmp(v, lit, wl, wok));
        }
        sel[m] = i;
        m += (size_t)keep;
    }
    return m;
}

#define CJ_OPS(MODE)                                                                                                   \
    switch (c->op) {                                                                                                   \
    case SMARTSSD__V1__BINARY_OP__EQ: m = CJ_PASS(MODE, SMARTSSD__V1__BINARY_OP__EQ); break;                           \
    case SMARTSSD__V1__BINARY_OP__NE: m = CJ_PASS(MODE, SMARTSSD__V1__BINARY_OP__NE); break;                           \
    case SMARTSSD__V1__BINARY_OP__LT: m = CJ_PASS(MODE, SMARTSSD__V1__BINARY_OP__LT); break;                           \
    case SMARTSSD__V1__BINARY_OP__LE: m = CJ_PASS(MODE, SMARTSSD__V1__BINARY_OP__LE); break;                           \
    case SMARTSSD__V1__BINARY_OP__GT: m = CJ_PASS(MODE, SMARTSSD__V1__BINARY_OP__GT); break;                           \
    default: m = CJ_PASS(MODE, SMARTSSD__V1__BINARY_OP__GE); break;                                                    \
    }

/* ------------------------------------------------------------------ head
 * Spark's chains start with an IS NOT NULL per column its comparisons name, then the comparisons
 * (`type IS NOT NULL AND status IS NOT NULL AND type = 3 AND status = 404`). Their columns are
 * read on nearly every line anyway (an IS NOT NULL is seldom FALSE), so the chain's head (its
 * conjuncts through the first comparison, and any after it whose column the head already reads)
 * runs as one pass per head column over all the page's lines, each line's field reduced to a class
 * byte (NULL, and the outcome of each comparison naming the column), then one pass that turns the
 * lines' class bytes into every head conjunct's FALSE and NULL bits (a table per column): the
 * line's first FALSE (ctz) gives the counts the conjunct-by-conjunct walk gives it, the nodes and
 * first decodes of the conjuncts up to that one. Reading a column on a line its conjunct would not
 * reach costs time, never a count: head columns are integer columns only head conjuncts name. */
#define PB_HEAD_CMPS 7   /* comparisons of one head column: class bits 1 .. 7 */
typedef struct pbhead {
    uint32_t n;                        /* head conjuncts */
    uint32_t n_cols, field[PB_HEAD_COLS];
    uint32_t n_cmp[PB_HEAD_COLS];      /* comparisons naming head column h */
    uint8_t truth[PB_HEAD_COLS][PB_HEAD_CMPS];   /* comparison j of column h: bit c + 1 set when (field <op> lit) for cmp c */
    uint8_t wok[PB_HEAD_COLS][PB_HEAD_CMPS];
    int64_t lit[PB_HEAD_COLS][PB_HEAD_CMPS];
    uint64_t wl[PB_HEAD_COLS][PB_HEAD_CMPS];
    uint32_t lut_f[PB_HEAD_COLS][256], lut_n[PB_HEAD_COLS][256];   /* class byte -> conjuncts' FALSE, NULL bits */
    uint32_t nodes[PB_MAX_CONJ + 1];   /* by first FALSE conjunct e (n: none): the chain's ANDs and conjuncts 0 .. e */
    uint32_t dram[PB_MAX_CONJ + 1];    /* ... and the first decodes among them */
    /* two columns of one comparison each (two2): by class bytes c0 << 2 | c1, the line's nodes (bits
     * 0-15), DRAM accesses (16-23), NULL mark (24), no FALSE (25), no FALSE and no NULL (26) */
    int two2;
    uint32_t two[16];
} pbhead;

static int batch_head_setup(const plan *pl, pbatch *bt) {
    const pbconj *cj = bt->cj;
    pbhead *hd = calloc(1, sizeof *hd);
    if (!hd) return -ENOMEM;
    uint32_t hcol[PB_HEAD_COLS], col_of[PB_MAX_CONJ], cmp_of[PB_MAX_CONJ];
    int cmp_seen = 0;
    uint32_t n = 0;
    for (; n < bt->n_cj; n++) {
        const pbconj *c = &cj[n];
        uint32_t h;
        for (h = 0; h < hd->n_cols && hcol[h] != c->col; h++) {}
        if (cmp_seen && h == hd->n_cols) break;   /* past the first comparison: only columns already read */
        if (h == hd->n_cols) {
            uint32_t named = 0;
            for (uint32_t k = 0; k < bt->n_cj; k++) named += cj[k].col == c->col;
            /* an integer column no key or output reads */
            if (pl->cols[c->col].type != PT_INT || named != bt->refs[c->col] || hd->n_cols == PB_HEAD_COLS) break;
            hcol[h] = c->col;
            hd->field[hd->n_cols++] = pl->cols[c->col].field;
        }
        col_of[n] = h;
        if (c->kind == PBC_CMP) {
            if (hd->n_cmp[h] == PB_HEAD_CMPS) break;
            static const uint8_t truth[] = {
                [SMARTSSD__V1__BINARY_OP__EQ] = 2, [SMARTSSD__V1__BINARY_OP__NE] = 5, [SMARTSSD__V1__BINARY_OP__LT] = 1,
                [SMARTSSD__V1__BINARY_OP__LE] = 3, [SMARTSSD__V1__BINARY_OP__GT] = 4, [SMARTSSD__V1__BINARY_OP__GE] = 6,
            };
            const uint32_t j = cmp_of[n] = hd->n_cmp[h]++;
            cmp_seen = 1;
            hd->truth[h][j] = truth[c->op];
            hd->lit[h][j] = c->lit;
            hd->wok[h][j] = (uint8_t)lit_digit_word(c->lit, &hd->wl[h][j]);
        }
        hd->nodes[n] = (n ? hd->nodes[n - 1] : bt->cj_ands) + (c->kind == PBC_CMP ? 3 : 2);
        hd->dram[n] = (n ? hd->dram[n - 1] : 0) + c->first;
    }
    /* the rest of the chain must not name a head column: its passes would read kept values */
again:
    for (uint32_t k = n; k < bt->n_cj; k++)
        for (uint32_t j = 0; j < n; j++)
            if (cj[k].col == cj[j].col) {
                n = j;
                goto again;
            }
    if (n < 2) {
        free(hd);
        return 0;
    }
    hd->n = n;
    hd->nodes[n] = hd->nodes[n - 1];
    hd->dram[n] = hd->dram[n - 1];
    hd->n_cols = 0;
    for (uint32_t k = 0; k < n; k++)   /* columns in order of first use: those of the head kept */
        if (col_of[k] + 1 > hd->n_cols) hd->n_cols = col_of[k] + 1;
    for (uint32_t h = 0; h < hd->n_cols; h++)
        for (uint32_t cls = 0; cls < 256; cls++) {
            const uint32_t isn = cls & 1;
            for (uint32_t k = 0; k < n; k++) {
                if (col_of[k] != h) continue;
                if (cj[k].kind == PBC_IS_NULL) hd->lut_f[h][cls] |= (isn ^ 1) << k;
                else if (cj[k].kind == PBC_NOT_NULL) hd->lut_f[h][cls] |= isn << k;
                else {
                    hd->lut_n[h][cls] |= isn << k;
                    hd->lut_f[h][cls] |= (~isn & ~(cls >> (1 + cmp_of[k])) & 1u) << k;
                }
            }
        }
    hd->two2 = hd->n_cols == 2 && hd->n_cmp[0] == 1 && hd->wok[0][0] && hd->n_cmp[1] == 1 && hd->wok[1][0];
    for (uint32_t x = 0; hd->two2 && x < 16; x++) {
        const uint32_t F = hd->lut_f[0][x >> 2] | hd->lut_f[1][x & 3], N = hd->lut_n[0][x >> 2] | hd->lut_n[1][x & 3];
        const uint32_t e = (uint32_t)__builtin_ctz(F | 1u << n), nn = (N & ((1u << e) - 1)) != 0;
        hd->two[x] = hd->nodes[e] | hd->dram[e] << 16 | nn << 24 | (uint32_t)(F == 0) << 25 | (uint32_t)(F == 0 && !nn) << 26;
    }
    bt->head = hd;
    return 0;
}

/* Head column h's class byte on line L: bit 0 NULL, bit 1 + j comparison j TRUE. One comparison
 * with a literal of 0 to 8 digits (one == 1) is the common case, decided first. The batch's
 * pointers come in locals: the class bytes' stores may alias them. */
static inline __attribute__((always_inline)) uint32_t head_class(const pbatch *bt, const pbhead *hd, uint32_t h,
                                                                 const pbline *L, const uint32_t *dpos,
                                                                 const uint8_t *page, const uint8_t *page_end, int one) {
    const uint32_t f = hd->field[h];
    const uint8_t *p = page;
    ssize_t len = -1;
    if (f <= L->nd) {   /* batch_field */
        const uint32_t *d = dpos + L->d0;
        const uint32_t fs = f ? d[f - 1] + 1 : L->start, fe = f < L->nd ? d[f] : L->start + L->len;
        p = page + fs;
        len = (ssize_t)(fe - fs);
    }
    uint64_t w = 0;
    int64_t x = 0;
    int t = PB_WORD;
    if (!(len >= 1 && len <= 8 && p + 8 <= page_end && !digits8_word(p, (size_t)len, &w)))
        t = batch_int_bytes(bt, p, len, &x);
    if (one && t == PB_WORD) {
        const uint64_t be = __builtin_bswap64(w), wl = hd->wl[h][0];
        const int c = (be > wl) - (be < wl);
        return (((uint32_t)hd->truth[h][0] >> (c + 1)) & 1u) << 1;
    }
    uint32_t b = t == PT_NULL;
    for (uint32_t j = 0; j < hd->n_cmp[h]; j++) {
        int c;
        if (t == PB_WORD && hd->wok[h][j]) {
            const uint64_t be = __builtin_bswap64(w);
            c = (be > hd->wl[h][j]) - (be < hd->wl[h][j]);
        } else {
            const int64_t v = t == PB_WORD ? digits8_value(w) : x;
            c = (v > hd->lit[h][j]) - (v < hd->lit[h][j]);
        }
        b |= (((uint32_t)hd->truth[h][j] >> (c + 1)) & 1u) << (1 + j);
    }
    return b;
}

/* A line's counts, NULL mark and place in sel from its head FALSE and NULL bits; 1 kept. */
static inline __attribute__((always_inline)) uint32_t head_line(const pbhead *hd, uint32_t F, uint32_t N, size_t i,
                                                                uint32_t *restrict nodes, uint32_t *restrict dram,
                                                                uint8_t *restrict nul, int whole) {
    const uint32_t e = (uint32_t)__builtin_ctz(F | 1u << hd->n);
    nodes[i] = hd->nodes[e];
    dram[i] = hd->dram[e];
    const uint32_t nn = (N & ((1u << e) - 1)) != 0;
    nul[i] = (uint8_t)nn;
    return (F == 0) & (!whole | !nn);
}

/* The head over all the page's lines: their counts set, a NULL marked in nul, the lines no head
 * conjunct made FALSE into sel (only those also without a NULL when the head is the whole chain);
 * the number kept. cls: room for PB_HEAD_COLS class bytes a line. Two columns with one
 * comparison each (Spark's `a = x AND b = y`) in one loop; otherwise a pass per column. */
static size_t batch_head_run(pbatch *bt, const pbhead *hd, uint32_t *restrict sel, uint8_t *restrict nul,
                             uint8_t *restrict cls, int whole) {
    const size_t nl = bt->n_lines, cap = bt->cap_lines;
    const uint32_t nc = hd->n_cols;
    const pbline *restrict lines = bt->lines;
    const uint32_t *restrict dpos = bt->dpos;
    const uint8_t *const page = bt->page, *const page_end = bt->page_end;
    uint32_t *restrict nodes = bt->nodes, *restrict dram = bt->dram;
    size_t m = 0;
    if (hd->two2) {   /* a line's outcome straight from its two class bytes */
        const uint32_t keep = whole ? 26 : 25;
        for (size_t i = 0; i < nl; i++) {
            const uint32_t c0 = head_class(bt, hd, 0, &lines[i], dpos, page, page_end, 1);
            const uint32_t c1 = head_class(bt, hd, 1, &lines[i], dpos, page, page_end, 1);
            const uint32_t v = hd->two[c0 << 2 | c1];
            nodes[i] = v & 0xffff;
            dram[i] = v >> 16 & 0xff;
            nul[i] = (uint8_t)(v >> 24 & 1);
            sel[m] = (uint32_t)i;
            m += v >> keep & 1;
        }
        return m;
    }
    for (uint32_t h = 0; h < nc; h++) {
        uint8_t *restrict ch = cls + h * cap;
        if (hd->n_cmp[h] == 1 && hd->wok[h][0])
            for (size_t i = 0; i < nl; i++) ch[i] = (uint8_t)head_class(bt, hd, h, &lines[i], dpos, page, page_end, 1);
        else
            for (size_t i = 0; i < nl; i++) ch[i] = (uint8_t)head_class(bt, hd, h, &lines[i], dpos, page, page_end, 0);
    }
    for (size_t i = 0; i < nl; i++) {
        uint32_t F = hd->lut_f[0][cls[i]], N = hd->lut_n[0][cls[i]];
        for (uint32_t h = 1; h < nc; h++) {
            F |= hd->lut_f[h][cls[h * cap + i]];
            N |= hd->lut_n[h][cls[h * cap + i]];
        }
        sel[m] = (uint32_t)i;
        m += head_line(hd, F, N, i, nodes, dram, nul, whole);
    }
    return m;
}

/* The conjuncts over the page's lines (bt->sel holds them all): bt->sel and n_sel the lines where
 * the filter is TRUE, each line's nodes and DRAM accesses counted. */
static int batch_conj_filter(const plan *pl, pbatch *bt) {
    const size_t nl = bt->n_lines;
    uint32_t *sel = bt->sel, *nodes = bt->nodes, *dram = bt->dram;
    uint8_t *nul = bt->cj_null;
    size_t ns = nl;
    uint32_t k0 = 0;
    if (bt->head) {
        const pbhead *hd = bt->head;
        ns = batch_head_run(bt, hd, sel, nul, bt->cj_cls, hd->n == bt->n_cj);
        if (hd->n == bt->n_cj) {
            bt->n_sel = ns;
            return 0;
        }
        k0 = hd->n;
    } else {
        memset(nul, 0, nl);
        for (size_t i = 0; i < nl; i++) nodes[i] = bt->cj_ands;
    }
    for (uint32_t k = k0; k < bt->n_cj && ns; k++) {
        const pbconj *c = &bt->cj[k];
        pv *cv = NULL;
        uint8_t *cold = NULL;
        if (c->keep) {
            if (c->first && !batch_col_begin(bt, c->col)) return -ENOMEM;
            cv = bt->colv[c->col];
            cold = c->word ? NULL : bt->cold[c->col];
        }
        const int mode = !c->first ? CJ_READ : c->word ? CJ_WORD : CJ_DECODE;
        const int64_t lit = c->lit;
        uint64_t wl;
        const int wok = lit_digit_word(lit, &wl);
        size_t m = 0;
        if (c->kind != PBC_CMP) {   /* IS [NOT] NULL: TRUE or FALSE */
            const int want = c->kind == PBC_IS_NULL;
#define CJ_PASS(MODE, OP) cj_pass(pl, bt, sel, ns, nul, cv, cold, c->col, MODE, OP, want, 0, 0, 0)
            if (mode == CJ_READ) m = CJ_PASS(CJ_READ, -1);
            else if (mode == CJ_WORD) m = CJ_PASS(CJ_WORD, -1);
            else m = CJ_PASS(CJ_DECODE, -1);
#undef CJ_PASS
        } else if (!c->keep) {   /* the only use of the column: compared from its digits, as batch_cmp_int */
            const uint32_t f = pl->cols[c->col].field;
#define PB_CJ_DIGITS(EXPR)                                                                              \
    for (size_t j = 0; j < ns; j++) {                                                                   \
        const uint32_t i = sel[j];                                                                      \
        nodes[i] += 3;                                                                                  \
        dram[i]++;                                                                                      \
        int t;                                                                                          \
        const int cmp = batch_int_cmp_lit(bt, f, i, lit, wl, wok, &t);                                  \
        nul[i] |= t != PT_INT;                                                                          \
        sel[m] = i;                                                                                     \
        m += (t != PT_INT) | (EXPR);                                                                    \
    }
            switch (c->op) {
            case SMARTSSD__V1__BINARY_OP__EQ: PB_CJ_DIGITS(cmp == 0) break;
            case SMARTSSD__V1__BINARY_OP__NE: PB_CJ_DIGITS(cmp != 0) break;
            case SMARTSSD__V1__BINARY_OP__LT: PB_CJ_DIGITS(cmp < 0) break;
            case SMARTSSD__V1__BINARY_OP__LE: PB_CJ_DIGITS(cmp <= 0) break;
            case SMARTSSD__V1__BINARY_OP__GT: PB_CJ_DIGITS(cmp > 0) break;
            default: PB_CJ_DIGITS(cmp >= 0) break;
            }
#undef PB_CJ_DIGITS
        } else {   /* the column's values kept: decoded here the first time, else read */
#define CJ_PASS(MODE, OP) cj_pass(pl, bt, sel, ns, nul, cv, cold, c->col, MODE, OP, 0, lit, wl, wok)
            if (mode == CJ_READ) {
                CJ_OPS(CJ_READ)
            } else if (mode == CJ_WORD) {
                CJ_OPS(CJ_WORD)
            } else {
                CJ_OPS(CJ_DECODE)
            }
#undef CJ_PASS
        }
        ns = m;
    }
    size_t m = 0;
    for (size_t j = 0; j < ns; j++) {   /* TRUE: no NULL on the way */
        sel[m] = sel[j];
        m += !nul[sel[j]];
    }
    bt->n_sel = m;
    return 0;
}
#undef CJ_OPS

/* Room for a page of n bytes holding `lines` lines: the lines' arrays, and the delimiter and
 * newline offsets (at most one a byte), which the walk below writes a few entries past the last
 * one it keeps. */
static int batch_room(const plan *pl, pbatch *bt, size_t n, size_t lines) {
    if (lines + 4 > bt->cap_lines &&
        batch_grow_lines(pl, bt, lines + 4 > 2 * bt->cap_lines ? lines + 4 : 2 * bt->cap_lines))
        return -ENOMEM;
    if (n + 64 > bt->cap_bytes) {
        size_t cap = n + 64 > 2 * bt->cap_bytes ? n + 64 : 2 * bt->cap_bytes;
        if (grow((void **)&bt->dpos, cap, sizeof(uint32_t)) || grow((void **)&bt->npos, cap, sizeof(uint32_t)) ||
            grow((void **)&bt->wdel, cap / 64 + 2, sizeof(uint32_t)))
            return -ENOMEM;
        bt->cap_bytes = cap;
    }
    return 0;
}

/* The set bits of m as offsets base + bit into o, in order; returns how many. The first 8 of each
 * 32-bit half are written whatever their count (slots past the count are overwritten later), so
 * a word costs no branch on its bits unless a half holds more than 8; the halves' bit chains are
 * independent. o has room for 8 entries past the count. */
static inline __attribute__((always_inline)) uint32_t bits_to_offsets(uint64_t m, uint32_t base, uint32_t *o) {
    uint32_t lo = (uint32_t)m, hi = (uint32_t)(m >> 32);
    const uint32_t nlo = (uint32_t)__builtin_popcount(lo), nhi = (uint32_t)__builtin_popcount(hi);
    uint32_t *oh = o + nlo;
    /* an empty half's slots get bit 31's offset: they are past the count */
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++, lo &= lo - 1) o[j] = base + (uint32_t)__builtin_ctz(lo | 0x80000000u);
    if (__builtin_expect(nlo > 8, 0))
        for (uint32_t j = 8; j < nlo; j++, lo &= lo - 1) o[j] = base + (uint32_t)__builtin_ctz(lo);
    /* after the low half's slots, which reach into these */
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++, hi &= hi - 1) oh[j] = base + 32 + (uint32_t)__builtin_ctz(hi | 0x80000000u);
    if (__builtin_expect(nhi > 8, 0))
        for (uint32_t j = 8; j < nhi; j++, hi &= hi - 1) oh[j] = base + 32 + (uint32_t)__builtin_ctz(hi);
    return nlo + nhi;
}

/* The page's newlines' offsets (npos) and room for its lines; the number of lines. */
static inline __attribute__((always_inline)) ssize_t index_newlines(const plan *pl, pbatch *bt, size_t n, const uint64_t *nl) {
    const size_t nb = (n + 63) / 64;
    if (batch_room(pl, bt, n, 0)) return -ENOMEM;
    uint32_t *npos = bt->npos, nn = 0;
    for (size_t w = 0; w < nb; w++) {
        /* lines of 32 bytes or more: at most two newlines a word, written whatever their count */
        uint64_t m = nl[w];
        const uint32_t c = (uint32_t)__builtin_popcountll(m), base = (uint32_t)(w * 64);
        npos[nn] = base + (uint32_t)__builtin_ctzll(m | 1ull << 63);
        m &= m - 1;
        npos[nn + 1] = base + (uint32_t)__builtin_ctzll(m | 1ull << 63);
        if (__builtin_expect(c > 2, 0))
            for (uint32_t j = 2; j < c; j++) {
                m &= m - 1;
                npos[nn + j] = base + (uint32_t)__builtin_ctzll(m);
            }
        nn += c;
    }
    if (batch_room(pl, bt, n, nn)) return -ENOMEM;
    return (ssize_t)nn;
}

/* Every delimiter's offset (dpos) with the count before each word (wdel). */
static inline __attribute__((always_inline)) void index_delims(pbatch *bt, size_t n, const uint64_t *dl) {
    uint32_t *dpos = bt->dpos, *wdel = bt->wdel, nd = 0;
    for (size_t w = 0, nb = (n + 63) / 64; w < nb; w++) {
        wdel[w] = nd;
        nd += bits_to_offsets(dl[w], (uint32_t)(w * 64), dpos + nd);
    }
}

/* The lines from the newlines and delimiters: a line's fields are the delimiters between its
 * start and its newline, found by counting, so no walk branches on delimiter against newline. */
static inline __attribute__((always_inline)) void index_lines(pbatch *bt, const uint8_t *p, const uint64_t *dl,
                                                              size_t lines) {
    const uint32_t *npos = bt->npos, *wdel = bt->wdel;
    uint32_t lstart = 0, d0 = 0;
    for (size_t i = 0; i < lines; i++) {
        const uint32_t pos = npos[i], w = pos >> 6;
        /* the delimiters before the newline: the word's count plus those below its bit */
        const uint32_t dend = wdel[w] + (uint32_t)__builtin_popcountll(dl[w] & ((1ull << (pos & 63)) - 1));
        uint32_t e = pos;
        if (e > lstart && p[e - 1] == '\r') e--;
        pbline *L = &bt->lines[i];
        L->start = lstart;
        L->len = e - lstart;
        L->d0 = d0;
        L->nd = dend - d0;
        d0 = dend;
        lstart = pos + 1;
    }
}

/* The page's lines and delimiters as offsets (bt->lines, dpos, wdel, npos); the number of lines. */
static ssize_t index_page_generic(const plan *pl, pbatch *bt, const uint8_t *p, size_t n, const uint64_t *nl,
                                  const uint64_t *dl) {
    ssize_t lines = index_newlines(pl, bt, n, nl);
    if (lines < 0) return lines;
    index_delims(bt, n, dl);
    index_lines(bt, p, dl, (size_t)lines);
    return lines;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* With the popcnt and tzcnt instructions (every CPU with AVX2 has them; the build targets plain
 * x86-64, where a popcount is a library call). */
__attribute__((target("popcnt,bmi,bmi2"))) static ssize_t index_page_bmi(const plan *pl, pbatch *bt, const uint8_t *p, size_t n,
                                                                         const uint64_t *nl, const uint64_t *dl) {
    ssize_t lines = index_newlines(pl, bt, n, nl);
    if (lines < 0) return lines;
    index_delims(bt, n, dl);
    index_lines(bt, p, dl, (size_t)lines);
    return lines;
}

/* With AVX-512 VBMI2: a word's delimiter offsets are the byte indexes 0..63 compressed by its
 * bits, widened 16 at a time, instead of a bit scan per delimiter. */
__attribute__((target("popcnt,bmi,bmi2,avx512f,avx512bw,avx512vbmi2"))) static ssize_t
index_page_vbmi2(const plan *pl, pbatch *bt, const uint8_t *p, size_t n, const uint64_t *nl, const uint64_t *dl) {
    ssize_t lines = index_newlines(pl, bt, n, nl);
    if (lines < 0) return lines;
    static const uint8_t iota[64] = { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                      32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                                      48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63 };
    const __m512i idx = _mm512_loadu_si512(iota);
    uint32_t *dpos = bt->dpos, *wdel = bt->wdel, nd = 0;
    for (size_t w = 0, nb = (n + 63) / 64; w < nb; w++) {
        const uint64_t m = dl[w];
        const uint32_t c = (uint32_t)__builtin_popcountll(m);
        const __m512i v = _mm512_maskz_compress_epi8((__mmask64)m, idx), base = _mm512_set1_epi32((int)(w * 64));
        wdel[w] = nd;
        /* 16 offsets written whatever the count (dpos has room past it), more when there are */
        _mm512_storeu_si512(dpos + nd, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(v)), base));
        if (__builtin_expect(c > 16, 0)) {
            _mm512_storeu_si512(dpos + nd + 16, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 1)), base));
            _mm512_storeu_si512(dpos + nd + 32, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 2)), base));
            _mm512_storeu_si512(dpos + nd + 48, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(v, 3)), base));
        }
        nd += c;
    }
    index_lines(bt, p, dl, (size_t)lines);
    return lines;
}
#endif

int csd_plan_batch_page(plan *pl, const uint8_t *p, size_t n, const uint64_t *nl, const uint64_t *dl) {
    if (!pl->batch && !(pl->batch = calloc(1, sizeof *pl->batch))) return -ENOMEM;
    if (!pl->batch->ok && (pl->batch->colv || batch_setup(pl, pl->batch))) return -ENOMEM;   /* setup failed once */
    return csd_plan_batch_page_in(pl, pl->batch, p, n, nl, dl);
}

int csd_plan_batch_page_in(const plan *pl, pbatch *bt, const uint8_t *p, size_t n, const uint64_t *nl,
                           const uint64_t *dl) {
    if (!bt->ok) return -ENOMEM;
#if defined(__x86_64__) && defined(__GNUC__)
    /* the CPU's features were asked at plan init (pl->avx2, pl->vbmi2): prepared pages read them
     * from other threads */
    const ssize_t lines = pl->vbmi2 > 0 ? index_page_vbmi2(pl, bt, p, n, nl, dl)
                          : pl->avx2 > 0 ? index_page_bmi(pl, bt, p, n, nl, dl)
                                         : index_page_generic(pl, bt, p, n, nl, dl);
#else
    const ssize_t lines = index_page_generic(pl, bt, p, n, nl, dl);
#endif
    if (lines < 0) return (int)lines;
    const size_t i = (size_t)lines;
    if (!bt->head) {   /* a head sets every line's counts and list itself */
        memset(bt->nodes, 0, i * sizeof *bt->nodes);
        memset(bt->dram, 0, i * sizeof *bt->dram);
        for (size_t j = 0; j < i; j++) bt->sel[j] = (uint32_t)j;
    }
    bt->page = p;
    bt->page_end = p + n;
    bt->n_lines = bt->n_sel = i;
    bt->n_used = 0;
    int rc;
    if (bt->n_cj) {
        if ((rc = batch_conj_filter(pl, bt))) return rc;
    } else if (pl->filter >= 0) {
        if ((rc = batch_eval(pl, bt, pl->filter, bt->sel, i, bt->root, 0))) return rc;
        size_t ns = 0;
        for (size_t j = 0; j < i; j++) {   /* no branch on the filter's outcome */
            bt->sel[ns] = (uint32_t)j;
            ns += (bt->root[j].t == PT_BOOL) & (bt->root[j].b != 0);
        }
        bt->n_sel = ns;
    }
    for (uint32_t x = 0; x < bt->n_ev; x++) {
        if (bt->n_lazy && bt->lazy[x]) {   /* charged as batch_column charges it; decoded if kept */
            for (size_t j = 0; j < bt->n_sel; j++) {
                bt->nodes[bt->sel[j]]++;
                bt->dram[bt->sel[j]]++;
            }
            continue;
        }
        if (bt->ev_node[x] >= 0 && (rc = batch_eval(pl, bt, bt->ev_node[x], bt->sel, bt->n_sel, bt->ev[x], 0)))
            return rc;
    }
    return 0;
}

void csd_plan_batch_fill(const plan *pl, const pbatch *bt, size_t i) {
    for (uint32_t x = 0; x < bt->n_ev; x++)
        if (bt->lazy[x]) {
            const uint32_t c = pl->nodes[bt->ev_node[x]].col;
            const pcol *col = &pl->cols[c];
            pv *v = &bt->ev[x][i];
            const uint8_t *p;
            if (col->type == PT_INT) {
                int64_t val = 0;
                v->t = (uint8_t)batch_int_decode(bt, col->field, (uint32_t)i, &val);
                v->i = val;
                continue;
            }
            const ssize_t n = batch_field(bt, col->field, (uint32_t)i, &p);
            if (n < 0) v->t = PT_NULL;
            else text_value(col, p, (size_t)n, v);
        }
}

void csd_plan_batch_free(plan *pl) {
    csd_plan_batch_destroy(pl, pl->batch);
    pl->batch = NULL;
}
