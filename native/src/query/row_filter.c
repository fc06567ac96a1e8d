/* Pushed filters on a tasklet's output rows: its declaration, the check of a filter against it, and
 * evaluation with the plan evaluator (one evaluator for plans and pushed filters). */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "query/plan_int.h"
#include "query/row_filter.h"
#include "runtime/builtin.h"

/* ------------------------------------------------------------------ the declaration */

static const struct { const char *tok; int op; } OPS[] = {
    { "=", SMARTSSD__V1__FILTER_OP__FILTER_EQ },   { "<>", SMARTSSD__V1__FILTER_OP__FILTER_NE },
    { "<", SMARTSSD__V1__FILTER_OP__FILTER_LT },   { "<=", SMARTSSD__V1__FILTER_OP__FILTER_LE },
    { ">", SMARTSSD__V1__FILTER_OP__FILTER_GT },   { ">=", SMARTSSD__V1__FILTER_OP__FILTER_GE },
    { "IN", SMARTSSD__V1__FILTER_OP__FILTER_IN },  { "NULL", SMARTSSD__V1__FILTER_OP__FILTER_NULL },
    { "STARTS_WITH", SMARTSSD__V1__FILTER_OP__FILTER_STARTS_WITH },
    { "ENDS_WITH", SMARTSSD__V1__FILTER_OP__FILTER_ENDS_WITH },
    { "CONTAINS", SMARTSSD__V1__FILTER_OP__FILTER_CONTAINS },
};
#define N_OPS (sizeof OPS / sizeof OPS[0])
#define STRING_OPS (CSD_FOP_BIT(SMARTSSD__V1__FILTER_OP__FILTER_STARTS_WITH) | \
                    CSD_FOP_BIT(SMARTSSD__V1__FILTER_OP__FILTER_ENDS_WITH) | \
                    CSD_FOP_BIT(SMARTSSD__V1__FILTER_OP__FILTER_CONTAINS))

static const struct { const char *tok; int type; } TYPES[] = {
    { "STRING", PT_STRING }, { "BIGINT", PT_INT }, { "LONG", PT_INT }, { "DOUBLE", PT_DOUBLE },
    { "BOOLEAN", PT_BOOL },
};

static int dfail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int dfail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

void csd_decl_ops_text(uint32_t ops, char *out, size_t cap) {
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < N_OPS && k < cap; i++)
        if (ops & CSD_FOP_BIT(OPS[i].op)) k += (size_t)snprintf(out + k, cap - k, "%s%s", k ? " " : "", OPS[i].tok);
}

/* One token of the declaration: a word ([A-Za-z0-9_]+), an operator (runs of <>=), or one of "(),". */
static size_t token(const char *s, size_t i, size_t *len) {
    while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') i++;
    size_t j = i;
    if (isalnum((unsigned char)s[j]) || s[j] == '_')
        while (isalnum((unsigned char)s[j]) || s[j] == '_') j++;
    else if (s[j] == '<' || s[j] == '>' || s[j] == '=')
        while (s[j] == '<' || s[j] == '>' || s[j] == '=') j++;
    else if (s[j])
        j++;
    *len = j - i;
    return i;
}

static int tok_is(const char *s, size_t at, size_t len, const char *w) {
    return strlen(w) == len && !strncasecmp(s + at, w, len);
}

int csd_decl_parse(const char *s, csd_decl *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!s) return 0;
    if (strlen(s) > CSD_DECL_MAX_BYTES) return dfail(err, errlen, "schema: longer than %d bytes", CSD_DECL_MAX_BYTES);
    size_t i = 0, len, at = token(s, 0, &len);
    if (!len) return 0;
    for (;;) {
        /* NAME */
        at = token(s, i, &len);
        if (!len || !(isalpha((unsigned char)s[at]) || s[at] == '_'))
            return dfail(err, errlen, "schema: expected a column name at byte %zu of \"%s\"", at, s);
        if (len > CSD_DECL_NAME_MAX) return dfail(err, errlen, "schema: column name longer than %d bytes", CSD_DECL_NAME_MAX);
        if (out->n == CSD_DECL_MAX_COLUMNS) return dfail(err, errlen, "schema: more than %d columns", CSD_DECL_MAX_COLUMNS);
        csd_decl_column *c = &out->cols[out->n];
        memcpy(c->name, s + at, len);
        c->name[len] = 0;
        for (uint32_t k = 0; k < out->n; k++)
            if (!strcasecmp(out->cols[k].name, c->name))
                return dfail(err, errlen, "schema: column '%s' is declared twice", c->name);
        i = at + len;
        /* TYPE */
        at = token(s, i, &len);
        for (size_t k = 0; k < sizeof TYPES / sizeof TYPES[0]; k++)
            if (tok_is(s, at, len, TYPES[k].tok)) c->type = (uint8_t)TYPES[k].type;
        if (!c->type)
            return dfail(err, errlen, "schema: column '%s' needs a type (STRING, BIGINT, DOUBLE or BOOLEAN), not '%.*s'",
                         c->name, (int)len, s + at);
        i = at + len;
        /* [FILTER(op ...)] */
        at = token(s, i, &len);
        if (tok_is(s, at, len, "FILTER")) {
            i = at + len;
            at = token(s, i, &len);
            if (!tok_is(s, at, len, "("))
                return dfail(err, errlen, "schema: column '%s': FILTER takes its operators in parentheses", c->name);
            i = at + len;
            for (;;) {
                at = token(s, i, &len);
                i = at + len;
                if (tok_is(s, at, len, ")")) break;
                int op = 0;
                for (size_t k = 0; k < N_OPS; k++)
                    if (tok_is(s, at, len, OPS[k].tok)) op = OPS[k].op;
                if (!op)
                    return dfail(err, errlen, "schema: column '%s': unknown filter '%.*s' (= <> < <= > >= IN NULL "
                                 "STARTS_WITH ENDS_WITH CONTAINS)", c->name, (int)len, s + at);
                if ((CSD_FOP_BIT(op) & STRING_OPS) && c->type != PT_STRING)
                    return dfail(err, errlen, "schema: column '%s': %.*s applies to STRING columns only", c->name,
                                 (int)len, s + at);
                c->ops |= CSD_FOP_BIT(op);
            }
            if (!c->ops) return dfail(err, errlen, "schema: column '%s': FILTER() names no operator", c->name);
            at = token(s, i, &len);
        }
        out->n++;
        if (!len) return 0;
        if (!tok_is(s, at, len, ","))
            return dfail(err, errlen, "schema: expected ',' or the end after column '%s', not '%.*s'", c->name, (int)len,
                         s + at);
        i = at + len;
    }
}

/* ------------------------------------------------------------------ checking a pushed filter */

typedef struct fchk {
    const csd_decl *d;
    const char *tasklet;
    char *err;
    size_t errlen;
} fchk;

static int binary_fop(int op) {
    switch (op) {
    case SMARTSSD__V1__BINARY_OP__EQ: return SMARTSSD__V1__FILTER_OP__FILTER_EQ;
    case SMARTSSD__V1__BINARY_OP__NE: return SMARTSSD__V1__FILTER_OP__FILTER_NE;
    case SMARTSSD__V1__BINARY_OP__LT: return SMARTSSD__V1__FILTER_OP__FILTER_LT;
    case SMARTSSD__V1__BINARY_OP__LE: return SMARTSSD__V1__FILTER_OP__FILTER_LE;
    case SMARTSSD__V1__BINARY_OP__GT: return SMARTSSD__V1__FILTER_OP__FILTER_GT;
    case SMARTSSD__V1__BINARY_OP__GE: return SMARTSSD__V1__FILTER_OP__FILTER_GE;
    case SMARTSSD__V1__BINARY_OP__STARTS_WITH: return SMARTSSD__V1__FILTER_OP__FILTER_STARTS_WITH;
    case SMARTSSD__V1__BINARY_OP__ENDS_WITH: return SMARTSSD__V1__FILTER_OP__FILTER_ENDS_WITH;
    case SMARTSSD__V1__BINARY_OP__CONTAINS: return SMARTSSD__V1__FILTER_OP__FILTER_CONTAINS;
    default: return 0;
    }
}

static const char *fop_tok(int op) {
    for (size_t k = 0; k < N_OPS; k++)
        if (OPS[k].op == op) return OPS[k].tok;
    return "?";
}

/* The leaf's column may take fop. */
static int leaf(fchk *k, const Smartssd__V1__Expr *col, int fop) {
    if (!col || col->node_case != SMARTSSD__V1__EXPR__NODE_COLUMN)
        return dfail(k->err, k->errlen, "filter: %s must have a column of tasklet '%s' on its left", fop_tok(fop), k->tasklet);
    if (col->column >= k->d->n)
        return dfail(k->err, k->errlen, "filter: column index %u out of range (tasklet '%s' declares %u columns)",
                     col->column, k->tasklet, k->d->n);
    const csd_decl_column *c = &k->d->cols[col->column];
    if (c->ops & CSD_FOP_BIT(fop)) return 0;
    char have[128];
    csd_decl_ops_text(c->ops, have, sizeof have);
    snprintf(k->err, k->errlen, "filter: tasklet '%s' does not take filter %s on column '%s' (%s%s)", k->tasklet,
             fop_tok(fop), c->name, c->ops ? "it declares: " : "it declares no filter on that column", have);
    return -ENOTSUP;
}

static int is_literal(const Smartssd__V1__Expr *e) { return e && e->node_case == SMARTSSD__V1__EXPR__NODE_LITERAL; }

static int check(fchk *k, const Smartssd__V1__Expr *e, int depth) {
    if (depth > PLAN_MAX_DEPTH) return dfail(k->err, k->errlen, "filter: nested deeper than %d", PLAN_MAX_DEPTH);
    if (!e) return dfail(k->err, k->errlen, "filter: missing expression");
    switch (e->node_case) {
    case SMARTSSD__V1__EXPR__NODE_BINARY: {
        const Smartssd__V1__Binary *b = e->binary;
        if (b->op == SMARTSSD__V1__BINARY_OP__AND || b->op == SMARTSSD__V1__BINARY_OP__OR) {
            int rc = check(k, b->left, depth + 1);
            return rc ? rc : check(k, b->right, depth + 1);
        }
        int fop = binary_fop(b->op);
        if (!fop) break;
        if (is_literal(b->right)) return leaf(k, b->left, fop);
        /* a literal on the left of a comparison: the column on the right, the operator mirrored */
        if (fop <= SMARTSSD__V1__FILTER_OP__FILTER_GE && is_literal(b->left)) {
            static const int mirror[] = { 0, SMARTSSD__V1__FILTER_OP__FILTER_EQ, SMARTSSD__V1__FILTER_OP__FILTER_NE,
                                          SMARTSSD__V1__FILTER_OP__FILTER_GT, SMARTSSD__V1__FILTER_OP__FILTER_GE,
                                          SMARTSSD__V1__FILTER_OP__FILTER_LT, SMARTSSD__V1__FILTER_OP__FILTER_LE };
            return leaf(k, b->right, mirror[fop]);
        }
        return dfail(k->err, k->errlen, "filter: %s compares a column with a literal", fop_tok(fop));
    }
    case SMARTSSD__V1__EXPR__NODE_UNARY: {
        const Smartssd__V1__Unary *u = e->unary;
        if (u->op == SMARTSSD__V1__UNARY_OP__NOT) return check(k, u->arg, depth + 1);
        if (u->op == SMARTSSD__V1__UNARY_OP__IS_NULL || u->op == SMARTSSD__V1__UNARY_OP__IS_NOT_NULL)
            return leaf(k, u->arg, SMARTSSD__V1__FILTER_OP__FILTER_NULL);
        break;
    }
    case SMARTSSD__V1__EXPR__NODE_IN:
        return leaf(k, e->in->arg, SMARTSSD__V1__FILTER_OP__FILTER_IN);
    default: break;
    }
    return dfail(k->err, k->errlen, "filter: a pushed filter is AND / OR / NOT of column comparisons with literals, "
                 "IN lists and IS [NOT] NULL; this one has other terms");
}

int csd_row_filter_check(const csd_decl *d, const Smartssd__V1__Expr *e, const char *tasklet, char *err,
                         size_t errlen) {
    fchk k = { d, tasklet, err, errlen };
    if (!d->n) {
        snprintf(err, errlen, "filter: tasklet '%s' declares no output columns, so it takes no pushed filter", tasklet);
        return -ENOTSUP;
    }
    return check(&k, e, 0);
}

/* ------------------------------------------------------------------ evaluation */

struct csd_row_filter {
    plan pl;
    csd_decl d;
    pv *vals;
    char tasklet[CSD_DECL_NAME_MAX + 80];
};

int csd_row_filter_create(csd_row_filter **out, const csd_decl *d, const Smartssd__V1__Expr *e, const char *tasklet,
                          char *err, size_t errlen) {
    *out = NULL;
    csd_row_filter *f = calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    f->d = *d;
    snprintf(f->tasklet, sizeof f->tasklet, "%s", tasklet);
    const char *names[CSD_DECL_MAX_COLUMNS];
    uint8_t types[CSD_DECL_MAX_COLUMNS];
    for (uint32_t i = 0; i < d->n; i++) {
        names[i] = d->cols[i].name;
        types[i] = d->cols[i].type;
    }
    f->vals = calloc(d->n ? d->n : 1, sizeof *f->vals);
    int rc = f->vals ? csd_plan_compile_row_filter(&f->pl, names, types, d->n, e, err, errlen) : -ENOMEM;
    if (rc) {
        csd_row_filter_destroy(f);
        return rc;
    }
    *out = f;
    return 0;
}

void csd_row_filter_destroy(csd_row_filter *f) {
    if (!f) return;
    csd_plan_free(&f->pl);
    free(f->vals);
    free(f);
}

int csd_row_filter_keep(void *ctx, const csd_io_val *v, size_t n, const uint8_t *arena, uint64_t *cycles, char *err,
                        size_t errlen) {
    csd_row_filter *f = ctx;
    if (n != f->d.n) {
        snprintf(err, errlen, "tasklet '%s' emitted a row of %zu values; its schema declares %u columns", f->tasklet, n,
                 f->d.n);
        return -EPROTO;
    }
    for (size_t i = 0; i < n; i++) {
        pv *x = &f->vals[i];
        int want = f->d.cols[i].type, ok = 1;
        switch (v[i].kind) {
        case CSD_IO_V_NULL: x->t = PT_NULL; break;
        case CSD_IO_V_INT: x->t = PT_INT; x->i = v[i].i; ok = want == PT_INT || want == PT_DOUBLE; break;
        case CSD_IO_V_DOUBLE: x->t = PT_DOUBLE; x->d = v[i].d; ok = want == PT_DOUBLE; break;
        case CSD_IO_V_BOOL: x->t = PT_BOOL; x->b = v[i].i != 0; ok = want == PT_BOOL; break;
        default:
            x->t = PT_STRING;
            x->s.p = arena + v[i].off;
            x->s.n = v[i].len;
            ok = want == PT_STRING;
            break;
        }
        if (!ok) {
            snprintf(err, errlen, "tasklet '%s' emitted a %s in column '%s', which its schema declares %s", f->tasklet,
                     csd_plan_type_name(x->t), f->d.cols[i].name, csd_plan_type_name(want));
            return -EPROTO;
        }
    }
    f->pl.nodes_evaluated = 0;
    int rc = csd_plan_filter_row(&f->pl, f->vals);
    *cycles += f->pl.nodes_evaluated * CSD_TK_CYCLES_PER_NODE;
    if (rc < 0) snprintf(err, errlen, "tasklet '%s': pushed filter failed", f->tasklet);
    return rc;
}
