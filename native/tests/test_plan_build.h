/* Building smartssd.v1.Plan messages in tests: every node comes from a bump list freed at once. */
#ifndef CSD_TEST_PLAN_BUILD_H
#define CSD_TEST_PLAN_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "smartssd/v1/device.pb-c.h"

typedef struct pb_arena {
    void **p;
    size_t n, cap;
} pb_arena;

static pb_arena pba;   /* test-only scratch: every message of the plan under construction */

static inline void *pb_keep(void *p) {
    CHECK(p);
    if (pba.n == pba.cap) {
        pba.cap = pba.cap ? pba.cap * 2 : 256;
        pba.p = realloc(pba.p, pba.cap * sizeof *pba.p);
        CHECK(pba.p);
    }
    pba.p[pba.n++] = p;
    return p;
}

static inline void pb_free_all(void) {
    for (size_t i = 0; i < pba.n; i++) free(pba.p[i]);
    free(pba.p);
    memset(&pba, 0, sizeof pba);
}

static inline void *pb_new(size_t size, const void *init) {
    void *x = pb_keep(malloc(size));
    memcpy(x, init, size);
    return x;
}
#define PB_NEW(T, INIT) ((T *)pb_new(sizeof(T), &(T)INIT))

static inline Smartssd__V1__Literal *L_i(int64_t i) {
    Smartssd__V1__Literal *l = PB_NEW(Smartssd__V1__Literal, SMARTSSD__V1__LITERAL__INIT);
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_I;
    l->i = i;
    return l;
}
static inline Smartssd__V1__Literal *L_d(double d) {
    Smartssd__V1__Literal *l = PB_NEW(Smartssd__V1__Literal, SMARTSSD__V1__LITERAL__INIT);
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_D;
    l->d = d;
    return l;
}
static inline Smartssd__V1__Literal *L_s(const char *s) {
    Smartssd__V1__Literal *l = PB_NEW(Smartssd__V1__Literal, SMARTSSD__V1__LITERAL__INIT);
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_S;
    l->s.len = strlen(s);
    l->s.data = (uint8_t *)s;
    return l;
}
static inline Smartssd__V1__Literal *L_b(int b) {
    Smartssd__V1__Literal *l = PB_NEW(Smartssd__V1__Literal, SMARTSSD__V1__LITERAL__INIT);
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_B;
    l->b = b;
    return l;
}
static inline Smartssd__V1__Literal *L_null(void) {
    Smartssd__V1__Literal *l = PB_NEW(Smartssd__V1__Literal, SMARTSSD__V1__LITERAL__INIT);
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_IS_NULL;
    l->is_null = 1;
    return l;
}

static inline Smartssd__V1__Expr *E_col(uint32_t i) {
    Smartssd__V1__Expr *e = PB_NEW(Smartssd__V1__Expr, SMARTSSD__V1__EXPR__INIT);
    e->node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    e->column = i;
    return e;
}
static inline Smartssd__V1__Expr *E_lit(Smartssd__V1__Literal *l) {
    Smartssd__V1__Expr *e = PB_NEW(Smartssd__V1__Expr, SMARTSSD__V1__EXPR__INIT);
    e->node_case = SMARTSSD__V1__EXPR__NODE_LITERAL;
    e->literal = l;
    return e;
}
#define E_i(v) E_lit(L_i(v))
#define E_d(v) E_lit(L_d(v))
#define E_s(v) E_lit(L_s(v))
#define E_b(v) E_lit(L_b(v))
#define E_null() E_lit(L_null())

static inline Smartssd__V1__Expr *E_bin(int op, Smartssd__V1__Expr *a, Smartssd__V1__Expr *b) {
    Smartssd__V1__Binary *x = PB_NEW(Smartssd__V1__Binary, SMARTSSD__V1__BINARY__INIT);
    x->op = (Smartssd__V1__BinaryOp)op;
    x->left = a;
    x->right = b;
    Smartssd__V1__Expr *e = PB_NEW(Smartssd__V1__Expr, SMARTSSD__V1__EXPR__INIT);
    e->node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    e->binary = x;
    return e;
}
static inline Smartssd__V1__Expr *E_un(int op, Smartssd__V1__Expr *a) {
    Smartssd__V1__Unary *x = PB_NEW(Smartssd__V1__Unary, SMARTSSD__V1__UNARY__INIT);
    x->op = (Smartssd__V1__UnaryOp)op;
    x->arg = a;
    Smartssd__V1__Expr *e = PB_NEW(Smartssd__V1__Expr, SMARTSSD__V1__EXPR__INIT);
    e->node_case = SMARTSSD__V1__EXPR__NODE_UNARY;
    e->unary = x;
    return e;
}
static inline Smartssd__V1__Expr *E_in(Smartssd__V1__Expr *a, size_t n, Smartssd__V1__Literal **vals) {
    Smartssd__V1__In *x = PB_NEW(Smartssd__V1__In, SMARTSSD__V1__IN__INIT);
    x->arg = a;
    x->n_values = n;
    x->values = pb_keep(malloc((n ? n : 1) * sizeof *vals));
    for (size_t i = 0; i < n; i++) x->values[i] = vals[i];
    Smartssd__V1__Expr *e = PB_NEW(Smartssd__V1__Expr, SMARTSSD__V1__EXPR__INIT);
    e->node_case = SMARTSSD__V1__EXPR__NODE_IN;
    e->in = x;
    return e;
}

#define OP(x) SMARTSSD__V1__BINARY_OP__##x
#define UOP(x) SMARTSSD__V1__UNARY_OP__##x
#define AND(a, b) E_bin(OP(AND), a, b)
#define OR(a, b) E_bin(OP(OR), a, b)
#define NOT(a) E_un(UOP(NOT), a)

/* Columns */
static inline Smartssd__V1__Column *C_fixed(const char *name, int type, uint32_t off, uint32_t width, int be, int sg) {
    Smartssd__V1__Column *c = PB_NEW(Smartssd__V1__Column, SMARTSSD__V1__COLUMN__INIT);
    c->name = (char *)name;
    c->type = (Smartssd__V1__ColumnType)type;
    c->offset = off;
    c->width = width;
    c->big_endian = be;
    c->signed_ = sg;
    return c;
}
static inline Smartssd__V1__Column *C_text(const char *name, int type, uint32_t field) {
    Smartssd__V1__Column *c = PB_NEW(Smartssd__V1__Column, SMARTSSD__V1__COLUMN__INIT);
    c->name = (char *)name;
    c->type = (Smartssd__V1__ColumnType)type;
    c->field = field;
    return c;
}

typedef struct plan_b {
    Smartssd__V1__Plan p;
    Smartssd__V1__Column *cols[300];
    Smartssd__V1__Expr *project[64], *group[16];
    Smartssd__V1__Aggregate *aggs[16];
    Smartssd__V1__SortKey *order[8];
} plan_b;

static inline void PB_init_fixed(plan_b *b, uint32_t entry) {
    memset(b, 0, sizeof *b);
    Smartssd__V1__Plan init = SMARTSSD__V1__PLAN__INIT;
    b->p = init;
    Smartssd__V1__FixedRecords *f = PB_NEW(Smartssd__V1__FixedRecords, SMARTSSD__V1__FIXED_RECORDS__INIT);
    f->entry_bytes = entry;
    b->p.format_case = SMARTSSD__V1__PLAN__FORMAT_FIXED;
    b->p.fixed = f;
    b->p.columns = b->cols;
    b->p.project = b->project;
    b->p.group_by = b->group;
    b->p.aggregates = b->aggs;
    b->p.order_by = b->order;
}

static inline void PB_init_text(plan_b *b, const char *delim, int skip_header) {
    PB_init_fixed(b, 0);
    Smartssd__V1__DelimitedText *t = PB_NEW(Smartssd__V1__DelimitedText, SMARTSSD__V1__DELIMITED_TEXT__INIT);
    t->delimiter = (char *)delim;
    t->skip_header = skip_header;
    b->p.format_case = SMARTSSD__V1__PLAN__FORMAT_TEXT;
    b->p.text = t;
}

static inline void PB_col(plan_b *b, Smartssd__V1__Column *c) { b->cols[b->p.n_columns++] = c; }
static inline void PB_project(plan_b *b, Smartssd__V1__Expr *e) { b->project[b->p.n_project++] = e; }
static inline void PB_group(plan_b *b, Smartssd__V1__Expr *e) { b->group[b->p.n_group_by++] = e; }
static inline void PB_agg(plan_b *b, int fn, Smartssd__V1__Expr *arg) {
    Smartssd__V1__Aggregate *a = PB_NEW(Smartssd__V1__Aggregate, SMARTSSD__V1__AGGREGATE__INIT);
    a->fn = (Smartssd__V1__AggFn)fn;
    a->arg = arg;
    b->aggs[b->p.n_aggregates++] = a;
}
static inline void PB_order(plan_b *b, uint32_t output, int desc) {
    Smartssd__V1__SortKey *k = PB_NEW(Smartssd__V1__SortKey, SMARTSSD__V1__SORT_KEY__INIT);
    k->output = output;
    k->descending = desc;
    b->order[b->p.n_order_by++] = k;
}

/* Packed bytes (malloc'd; caller frees). */
static inline uint8_t *PB_pack(const plan_b *b, size_t *len) {
    *len = smartssd__v1__plan__get_packed_size(&b->p);
    uint8_t *buf = malloc(*len ? *len : 1);
    CHECK(buf);
    smartssd__v1__plan__pack(&b->p, buf);
    return buf;
}

#endif
