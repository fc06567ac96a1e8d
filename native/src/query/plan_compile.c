/* Plan validation and compilation: every check that keeps evaluation in bounds happens here, with a
 * message that names the offending part of the plan. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smartssd/v1/device.pb-c.h"
#include "query/plan_int.h"

typedef struct cctx {
    plan *pl;
    char *err;
    size_t errlen;
} cctx;

static int cfail(cctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfail(cctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

const char *csd_plan_type_name(int t) {
    static const char *const names[] = {"NULL", "INT64", "DOUBLE", "STRING", "BOOL"};
    return t >= 0 && t <= PT_BOOL ? names[t] : "?";
}

static const char *binop_name(int op) {
    static const char *const names[] = {"?", "EQ", "NE", "LT", "LE", "GT", "GE", "AND", "OR", "ADD", "SUB",
                                        "MUL", "DIV", "MOD", "STARTS_WITH", "ENDS_WITH", "CONTAINS"};
    return op >= 1 && op <= 16 ? names[op] : "?";
}

static const char *unop_name(int op) {
    static const char *const names[] = {"?", "NOT", "IS_NULL", "IS_NOT_NULL", "NEG"};
    return op >= 1 && op <= 4 ? names[op] : "?";
}

static int is_num(int t) { return t == PT_INT || t == PT_DOUBLE || t == PT_NULL; }

/* ------------------------------------------------------------------ columns */

static int compile_column(cctx *c, uint32_t i, const Smartssd__V1__Column *m) {
    plan *pl = c->pl;
    pcol *col = &pl->cols[i];
    col->name = strdup(m->name && *m->name ? m->name : "");
    if (!col->name) return -ENOMEM;
    const char *nm = col->name;
    int t = (int)m->type;
    if (t < PT_INT || t > PT_BOOL)
        return cfail(c, "column %u '%s': unknown type %d (INT64, DOUBLE, STRING or BOOL)", i, nm, t);
    col->type = (uint8_t)t;
    if (pl->text || pl->parquet) {
        if (m->field > 65535) return cfail(c, "column '%s': field index %u is above 65535", nm, m->field);
        col->field = m->field;
        if (m->field > pl->max_field) pl->max_field = m->field;
        return 0;
    }
    uint32_t w = m->width;
    if (w == 0) w = t == PT_STRING ? 0 : t == PT_BOOL ? 1 : 8;   /* the natural width */
    switch (t) {
    case PT_INT:
        if (w != 1 && w != 2 && w != 4 && w != 8)
            return cfail(c, "column '%s': INT64 width %u must be 1, 2, 4 or 8", nm, w);
        break;
    case PT_DOUBLE:
        if (w != 8) return cfail(c, "column '%s': DOUBLE width %u must be 8", nm, w);
        break;
    case PT_BOOL:
        if (w != 1) return cfail(c, "column '%s': BOOL width %u must be 1", nm, w);
        break;
    default:
        if (w == 0) return cfail(c, "column '%s': STRING width must be positive", nm);
        break;
    }
    if ((uint64_t)m->offset + w > pl->entry_bytes)
        return cfail(c, "column '%s' reads bytes [%u, %llu) past the %u-byte record", nm, m->offset,
                     (unsigned long long)m->offset + w, pl->entry_bytes);
    if (m->shift > 63) return cfail(c, "column '%s': shift %u must be below 64", nm, m->shift);
    if ((m->mask || m->shift) && t != PT_INT)
        return cfail(c, "column '%s': shift/mask bit fields apply to INT64 columns only", nm);
    if (m->shift && !m->mask) return cfail(c, "column '%s': shift needs a mask", nm);
    col->offset = m->offset;
    col->width = w;
    col->big_endian = m->big_endian;
    col->is_signed = m->signed_;
    col->shift = m->shift;
    col->mask = m->mask;
    col->has_null_raw = m->has_null_raw;
    col->null_raw = m->null_raw;
    return 0;
}

/* ------------------------------------------------------------------ expressions */

static int32_t new_node(cctx *c, int kind) {
    plan *pl = c->pl;
    if (pl->n_nodes == PLAN_MAX_NODES) {
        cfail(c, "plan has more than %d expression nodes", PLAN_MAX_NODES);
        return -1;
    }
    if (pl->n_nodes == pl->cap_nodes) {
        uint32_t cap = pl->cap_nodes ? pl->cap_nodes * 2 : 32;
        pnode *n = realloc(pl->nodes, cap * sizeof *n);
        if (!n) {
            cfail(c, "out of memory compiling the plan");
            return -1;
        }
        pl->nodes = n;
        pl->cap_nodes = cap;
    }
    pnode *n = &pl->nodes[pl->n_nodes];
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->a = n->b = -1;
    return (int32_t)pl->n_nodes++;
}

/* Literal strings are copied into one arena; pv.s.p is fixed up once compiling is over (the arena
 * may move while it grows), so meanwhile s.p holds the offset. */
static int literal(cctx *c, const Smartssd__V1__Literal *m, pv *out, const char *where) {
    plan *pl = c->pl;
    memset(out, 0, sizeof *out);
    if (!m) return cfail(c, "%s: missing literal", where);
    switch (m->value_case) {
    case SMARTSSD__V1__LITERAL__VALUE_I: out->t = PT_INT; out->i = m->i; return 0;
    case SMARTSSD__V1__LITERAL__VALUE_D: out->t = PT_DOUBLE; out->d = m->d; return 0;
    case SMARTSSD__V1__LITERAL__VALUE_B: out->t = PT_BOOL; out->b = m->b != 0; return 0;
    case SMARTSSD__V1__LITERAL__VALUE_IS_NULL: out->t = PT_NULL; return 0;
    case SMARTSSD__V1__LITERAL__VALUE_S: {
        size_t n = m->s.len;
        if (pl->lits_len + n > pl->lits_cap || !pl->lits) {   /* never NULL: "" literals point here too */
            size_t cap = pl->lits_cap ? pl->lits_cap : 64;
            while (cap < pl->lits_len + n) cap *= 2;
            uint8_t *l = realloc(pl->lits, cap);
            if (!l) return cfail(c, "out of memory compiling the plan");
            pl->lits = l;
            pl->lits_cap = cap;
        }
        if (n) memcpy(pl->lits + pl->lits_len, m->s.data, n);
        out->t = PT_STRING;
        out->s.p = (const uint8_t *)(uintptr_t)pl->lits_len;
        out->s.n = n;
        pl->lits_len += n;
        return 0;
    }
    default: return cfail(c, "%s: literal has no value", where);
    }
}

static int comparable(int a, int b) {
    return a == PT_NULL || b == PT_NULL || a == b || (is_num(a) && is_num(b));
}

static int32_t compile_expr(cctx *c, const Smartssd__V1__Expr *e, int depth, const char *where);

static int32_t compile_binary(cctx *c, const Smartssd__V1__Binary *m, int depth, const char *where) {
    int op = (int)m->op;
    if (op < 1 || op > 16) {
        cfail(c, "%s: unknown binary op %d", where, op);
        return -1;
    }
    if (!m->left || !m->right) {
        cfail(c, "%s: %s needs two operands", where, binop_name(op));
        return -1;
    }
    int32_t a = compile_expr(c, m->left, depth + 1, where);
    if (a < 0) return -1;
    int32_t b = compile_expr(c, m->right, depth + 1, where);
    if (b < 0) return -1;
    int ta = c->pl->nodes[a].type, tb = c->pl->nodes[b].type, t;
    const char *bad = NULL;
    if (op <= SMARTSSD__V1__BINARY_OP__GE) {
        if (!comparable(ta, tb)) bad = "cannot compare";
        t = PT_BOOL;
    } else if (op <= SMARTSSD__V1__BINARY_OP__OR) {
        if ((ta != PT_BOOL && ta != PT_NULL) || (tb != PT_BOOL && tb != PT_NULL)) bad = "needs BOOL operands, not";
        t = PT_BOOL;
    } else if (op <= SMARTSSD__V1__BINARY_OP__MOD) {
        if (!is_num(ta) || !is_num(tb)) bad = "needs numeric operands, not";
        t = ta == PT_DOUBLE || tb == PT_DOUBLE ? PT_DOUBLE : ta == PT_NULL && tb == PT_NULL ? PT_NULL : PT_INT;
    } else {
        if ((ta != PT_STRING && ta != PT_NULL) || (tb != PT_STRING && tb != PT_NULL))
            bad = "needs STRING operands, not";
        t = PT_BOOL;
    }
    if (bad) {
        cfail(c, "%s: %s %s %s and %s", where, binop_name(op), bad, csd_plan_type_name(ta), csd_plan_type_name(tb));
        return -1;
    }
    int32_t n = new_node(c, PN_BINARY);
    if (n < 0) return -1;
    pnode *x = &c->pl->nodes[n];
    x->op = (uint8_t)op;
    x->a = a;
    x->b = b;
    x->type = (uint8_t)t;
    return n;
}

static int32_t compile_unary(cctx *c, const Smartssd__V1__Unary *m, int depth, const char *where) {
    int op = (int)m->op;
    if (op < 1 || op > 4) {
        cfail(c, "%s: unknown unary op %d", where, op);
        return -1;
    }
    if (!m->arg) {
        cfail(c, "%s: %s needs an operand", where, unop_name(op));
        return -1;
    }
    int32_t a = compile_expr(c, m->arg, depth + 1, where);
    if (a < 0) return -1;
    int ta = c->pl->nodes[a].type, t = PT_BOOL;
    if (op == SMARTSSD__V1__UNARY_OP__NOT && ta != PT_BOOL && ta != PT_NULL) {
        cfail(c, "%s: NOT needs a BOOL operand, not %s", where, csd_plan_type_name(ta));
        return -1;
    }
    if (op == SMARTSSD__V1__UNARY_OP__NEG) {
        if (!is_num(ta)) {
            cfail(c, "%s: NEG needs a numeric operand, not %s", where, csd_plan_type_name(ta));
            return -1;
        }
        t = ta;
    }
    int32_t n = new_node(c, PN_UNARY);
    if (n < 0) return -1;
    pnode *x = &c->pl->nodes[n];
    x->op = (uint8_t)op;
    x->a = a;
    x->type = (uint8_t)t;
    return n;
}

static int32_t compile_in(cctx *c, const Smartssd__V1__In *m, int depth, const char *where) {
    plan *pl = c->pl;
    if (!m->arg) {
        cfail(c, "%s: IN needs an operand", where);
        return -1;
    }
    int32_t a = compile_expr(c, m->arg, depth + 1, where);
    if (a < 0) return -1;
    int ta = pl->nodes[a].type;
    if (m->n_values > PLAN_MAX_NODES || pl->n_in + m->n_values > PLAN_MAX_NODES) {
        cfail(c, "%s: IN lists hold more than %d values", where, PLAN_MAX_NODES);
        return -1;
    }
    uint32_t first = pl->n_in;
    if (pl->n_in + m->n_values > pl->cap_in) {
        uint32_t cap = pl->cap_in ? pl->cap_in : 16;
        while (cap < pl->n_in + m->n_values) cap *= 2;
        pv *v = realloc(pl->in_vals, cap * sizeof *v);
        if (!v) {
            cfail(c, "out of memory compiling the plan");
            return -1;
        }
        pl->in_vals = v;
        pl->cap_in = cap;
    }
    for (size_t i = 0; i < m->n_values; i++) {
        pv *v = &pl->in_vals[pl->n_in];
        if (literal(c, m->values[i], v, where)) return -1;
        if (!comparable(ta, v->t)) {
            cfail(c, "%s: IN compares %s with a %s value", where, csd_plan_type_name(ta), csd_plan_type_name(v->t));
            return -1;
        }
        pl->n_in++;
    }
    int32_t n = new_node(c, PN_IN);
    if (n < 0) return -1;
    pnode *x = &pl->nodes[n];
    x->a = a;
    x->in_first = first;
    x->in_n = (uint32_t)m->n_values;
    x->type = PT_BOOL;
    return n;
}

static int32_t compile_expr(cctx *c, const Smartssd__V1__Expr *e, int depth, const char *where) {
    plan *pl = c->pl;
    if (depth > PLAN_MAX_DEPTH) {
        cfail(c, "%s: expression nesting deeper than %d", where, PLAN_MAX_DEPTH);
        return -1;
    }
    if (!e) {
        cfail(c, "%s: missing expression", where);
        return -1;
    }
    switch (e->node_case) {
    case SMARTSSD__V1__EXPR__NODE_COLUMN: {
        if (e->column >= pl->n_cols) {
            cfail(c, "%s: column index %u out of range (plan has %u columns)", where, e->column, pl->n_cols);
            return -1;
        }
        int32_t n = new_node(c, PN_COLUMN);
        if (n < 0) return -1;
        pl->nodes[n].col = e->column;
        pl->nodes[n].type = pl->cols[e->column].type;
        return n;
    }
    case SMARTSSD__V1__EXPR__NODE_LITERAL: {
        pv v;
        if (literal(c, e->literal, &v, where)) return -1;
        int32_t n = new_node(c, PN_LITERAL);
        if (n < 0) return -1;
        pl->nodes[n].lit = v;
        pl->nodes[n].type = v.t;
        return n;
    }
    case SMARTSSD__V1__EXPR__NODE_BINARY: return compile_binary(c, e->binary, depth, where);
    case SMARTSSD__V1__EXPR__NODE_UNARY: return compile_unary(c, e->unary, depth, where);
    case SMARTSSD__V1__EXPR__NODE_IN: return compile_in(c, e->in, depth, where);
    default:
        cfail(c, "%s: empty expression", where);
        return -1;
    }
}

/* ------------------------------------------------------------------ the plan */

/* text.quote / text.escape: "" = off, else one byte that is not CR/LF or the delimiter */
static int quote_byte(cctx *c, const char *what, const char *v, uint8_t delim, int *on, uint8_t *out) {
    if (!v || !*v) return 0;
    if (strlen(v) != 1 || *v == '\n' || *v == '\r' || (uint8_t)*v == delim)
        return cfail(c, "plan: text.%s must be one byte other than CR/LF and the delimiter, not '%s'", what, v);
    *on = 1;
    *out = (uint8_t)*v;
    return 0;
}

static int compile_message(cctx *c, const Smartssd__V1__Plan *m) {
    plan *pl = c->pl;
    char where[64];
    if (m->format_case == SMARTSSD__V1__PLAN__FORMAT_FIXED && m->fixed) {
        if (m->fixed->entry_bytes == 0) return cfail(c, "plan: fixed.entry_bytes must be positive");
        if (m->fixed->entry_bytes > PLAN_MAX_ENTRY_BYTES)
            return cfail(c, "plan: fixed.entry_bytes %u exceeds %u", m->fixed->entry_bytes, PLAN_MAX_ENTRY_BYTES);
        pl->entry_bytes = m->fixed->entry_bytes;
    } else if (m->format_case == SMARTSSD__V1__PLAN__FORMAT_TEXT && m->text) {
        pl->text = 1;
        const char *d = m->text->delimiter ? m->text->delimiter : "";
        if (!*d) d = ",";
        if (strlen(d) != 1 || *d == '\n' || *d == '\r')
            return cfail(c, "plan: text.delimiter must be one byte other than CR/LF, not '%s'", d);
        pl->delim = (uint8_t)*d;
        pl->skip_header = m->text->skip_header;
        int rc = quote_byte(c, "quote", m->text->quote, pl->delim, &pl->quoting, &pl->quote);
        if (!rc) rc = quote_byte(c, "escape", m->text->escape, pl->delim, &pl->has_escape, &pl->escape);
        if (rc) return rc;
        /* an escape only means something inside a quoted field */
        if (!pl->quoting) pl->has_escape = 0;
    } else if (m->format_case == SMARTSSD__V1__PLAN__FORMAT_PARQUET && m->parquet) {
        pl->parquet = 1;
        if (m->parquet->footer.len) {
            if (m->parquet->footer.len + 12 > m->parquet->object_size)
                return cfail(c, "plan: parquet.footer has %zu bytes, more than the %llu-byte object can hold",
                             m->parquet->footer.len, (unsigned long long)m->parquet->object_size);
            pl->pq_footer = malloc(m->parquet->footer.len);
            if (!pl->pq_footer) return cfail(c, "out of memory compiling the plan");
            memcpy(pl->pq_footer, m->parquet->footer.data, m->parquet->footer.len);
            pl->pq_footer_len = m->parquet->footer.len;
            pl->pq_size = m->parquet->object_size;
            if (m->parquet->n_row_groups) {
                pl->pq_rgs = malloc(m->parquet->n_row_groups * sizeof *pl->pq_rgs);
                if (!pl->pq_rgs) return cfail(c, "out of memory compiling the plan");
                memcpy(pl->pq_rgs, m->parquet->row_groups, m->parquet->n_row_groups * sizeof *pl->pq_rgs);
                pl->pq_n_rgs = m->parquet->n_row_groups;
            }
        } else if (m->parquet->n_row_groups) {
            return cfail(c, "plan: parquet.row_groups needs parquet.footer (the row groups are the footer's)");
        }
    } else {
        return cfail(c, "plan: missing input format (fixed, text or parquet)");
    }
    if (m->n_columns > PLAN_MAX_COLUMNS)
        return cfail(c, "plan has %zu columns; at most %d", m->n_columns, PLAN_MAX_COLUMNS);
    pl->cols = calloc(m->n_columns ? m->n_columns : 1, sizeof *pl->cols);
    if (!pl->cols) return cfail(c, "out of memory compiling the plan");
    pl->n_cols = (uint32_t)m->n_columns;
    for (uint32_t i = 0; i < pl->n_cols; i++) {
        if (!m->columns[i]) return cfail(c, "column %u missing", i);
        int rc = compile_column(c, i, m->columns[i]);
        if (rc == -ENOMEM) return cfail(c, "out of memory compiling the plan");
        if (rc) return rc;
    }

    pl->filter = -1;
    if (m->filter) {
        pl->filter = compile_expr(c, m->filter, 1, "filter");
        if (pl->filter < 0) return -EINVAL;
        int t = pl->nodes[pl->filter].type;
        if (t != PT_BOOL && t != PT_NULL) return cfail(c, "filter: is %s, not BOOL", csd_plan_type_name(t));
    }
    pl->aggregating = m->n_group_by > 0 || m->n_aggregates > 0;
    if (pl->aggregating && m->n_project)
        return cfail(c, "plan: project cannot be combined with group_by/aggregates (their rows are the output)");
    if (m->n_project > PLAN_MAX_COLUMNS || m->n_group_by > PLAN_MAX_COLUMNS ||
        m->n_aggregates > PLAN_MAX_COLUMNS || m->n_order_by > PLAN_MAX_COLUMNS)
        return cfail(c, "plan: more than %d project, group_by, aggregate or order_by entries", PLAN_MAX_COLUMNS);

    if (!pl->aggregating) {
        size_t n = m->n_project ? m->n_project : pl->n_cols;
        pl->outs = calloc(n ? n : 1, sizeof *pl->outs);
        if (!pl->outs) return cfail(c, "out of memory compiling the plan");
        pl->n_outs = (uint32_t)n;
        for (uint32_t i = 0; i < n; i++) {
            if (m->n_project) {
                snprintf(where, sizeof where, "project[%u]", i);
                pl->outs[i] = compile_expr(c, m->project[i], 1, where);
                if (pl->outs[i] < 0) return -EINVAL;
            } else {
                Smartssd__V1__Expr col = SMARTSSD__V1__EXPR__INIT;
                col.node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
                col.column = i;
                pl->outs[i] = compile_expr(c, &col, 1, "columns");
                if (pl->outs[i] < 0) return -EINVAL;
            }
        }
        pl->n_output = pl->n_outs;
    } else {
        pl->group = calloc(m->n_group_by ? m->n_group_by : 1, sizeof *pl->group);
        pl->aggs = calloc(m->n_aggregates ? m->n_aggregates : 1, sizeof *pl->aggs);
        if (!pl->group || !pl->aggs) return cfail(c, "out of memory compiling the plan");
        pl->n_group = (uint32_t)m->n_group_by;
        pl->n_aggs = (uint32_t)m->n_aggregates;
        for (uint32_t i = 0; i < pl->n_group; i++) {
            snprintf(where, sizeof where, "group_by[%u]", i);
            pl->group[i] = compile_expr(c, m->group_by[i], 1, where);
            if (pl->group[i] < 0) return -EINVAL;
        }
        for (uint32_t i = 0; i < pl->n_aggs; i++) {
            const Smartssd__V1__Aggregate *a = m->aggregates[i];
            snprintf(where, sizeof where, "aggregates[%u]", i);
            if (!a) return cfail(c, "%s: missing", where);
            int fn = (int)a->fn;
            pagg *g = &pl->aggs[i];
            g->fn = (uint8_t)fn;
            g->arg = -1;
            if (fn < SMARTSSD__V1__AGG_FN__COUNT_ALL || fn > SMARTSSD__V1__AGG_FN__MAX)
                return cfail(c, "%s: unknown aggregate function %d", where, fn);
            if (fn == SMARTSSD__V1__AGG_FN__COUNT_ALL) {
                g->type = PT_INT;
                continue;
            }
            if (!a->arg) return cfail(c, "%s: needs an argument", where);
            g->arg = compile_expr(c, a->arg, 1, where);
            if (g->arg < 0) return -EINVAL;
            int t = pl->nodes[g->arg].type;
            if (fn == SMARTSSD__V1__AGG_FN__COUNT) {
                g->type = PT_INT;
            } else if (fn == SMARTSSD__V1__AGG_FN__SUM) {
                if (!is_num(t)) return cfail(c, "%s: SUM needs a numeric argument, not %s", where, csd_plan_type_name(t));
                g->type = t == PT_DOUBLE ? PT_DOUBLE : PT_INT;
            } else {
                g->type = (uint8_t)t;
            }
        }
        pl->n_output = pl->n_group + pl->n_aggs;
    }
    if (m->n_order_by) {
        pl->order = calloc(m->n_order_by, sizeof *pl->order);
        if (!pl->order) return cfail(c, "out of memory compiling the plan");
        pl->n_order = (uint32_t)m->n_order_by;
        for (uint32_t i = 0; i < pl->n_order; i++) {
            if (!m->order_by[i]) return cfail(c, "order_by[%u]: missing", i);
            if (m->order_by[i]->output >= pl->n_output)
                return cfail(c, "order_by[%u]: output %u out of range (rows have %u columns)", i,
                             m->order_by[i]->output, pl->n_output);
            pl->order[i].output = m->order_by[i]->output;
            pl->order[i].descending = m->order_by[i]->descending;
        }
    }
    pl->limit = m->limit;
    return 0;
}

/* Literal strings: offsets become pointers now that the arena is final. */
static void fix_literals(plan *pl) {
    for (uint32_t i = 0; i < pl->n_nodes; i++)
        if (pl->nodes[i].kind == PN_LITERAL && pl->nodes[i].lit.t == PT_STRING)
            pl->nodes[i].lit.s.p = pl->lits + (uintptr_t)pl->nodes[i].lit.s.p;
    for (uint32_t i = 0; i < pl->n_in; i++)
        if (pl->in_vals[i].t == PT_STRING) pl->in_vals[i].s.p = pl->lits + (uintptr_t)pl->in_vals[i].s.p;
}

int csd_plan_compile_row_filter(plan *pl, const char *const *names, const uint8_t *types, uint32_t n,
                                const Smartssd__V1__Expr *e, char *err, size_t errlen) {
    cctx c = {pl, err, errlen};
    memset(pl, 0, sizeof *pl);
    pl->filter = -1;
    if (n > PLAN_MAX_COLUMNS) return cfail(&c, "filter: more than %d columns", PLAN_MAX_COLUMNS);
    pl->cols = calloc(n ? n : 1, sizeof *pl->cols);
    if (!pl->cols) return cfail(&c, "out of memory compiling the filter");
    for (uint32_t i = 0; i < n; i++) {
        pl->cols[i].name = strdup(names[i]);
        if (!pl->cols[i].name) return cfail(&c, "out of memory compiling the filter");
        pl->cols[i].type = types[i];
        pl->n_cols = i + 1;
    }
    pl->filter = compile_expr(&c, e, 1, "filter");
    if (pl->filter < 0) return -EINVAL;
    int ft = pl->nodes[pl->filter].type;
    if (ft != PT_BOOL && ft != PT_NULL) return cfail(&c, "filter: must be BOOL, not %s", csd_plan_type_name(ft));
    fix_literals(pl);
    pl->col_gen = calloc(n ? n : 1, sizeof *pl->col_gen);
    pl->col_val = calloc(n ? n : 1, sizeof *pl->col_val);
    pl->scratch = calloc(1, sizeof *pl->scratch);
    if (!pl->col_gen || !pl->col_val || !pl->scratch) return cfail(&c, "out of memory compiling the filter");
    return 0;
}

int csd_plan_compile(plan *pl, const uint8_t *bytes, size_t len, char *err, size_t errlen) {
    cctx c = {pl, err, errlen};
    memset(pl, 0, sizeof *pl);
    pl->filter = -1;
    if (!bytes || !len) {
        /* an empty message is a valid (empty) Plan, which then lacks a format */
        if (!bytes && len) return cfail(&c, "plan: missing");
    }
    if (!csd_pb_depth_ok(bytes, len, &smartssd__v1__plan__descriptor, 2 * PLAN_MAX_DEPTH + 8))
        return cfail(&c, "plan: expression nesting deeper than %d", PLAN_MAX_DEPTH);
    static const uint8_t empty[1];
    Smartssd__V1__Plan *m = smartssd__v1__plan__unpack(NULL, len, bytes ? bytes : empty);
    if (!m) return cfail(&c, "plan: the bytes do not decode as a smartssd.v1.Plan message");
    int rc = compile_message(&c, m);
    smartssd__v1__plan__free_unpacked(m, NULL);
    if (rc) return rc;
    fix_literals(pl);
    pl->col_gen = calloc(pl->n_cols ? pl->n_cols : 1, sizeof *pl->col_gen);
    pl->col_val = calloc(pl->n_cols ? pl->n_cols : 1, sizeof *pl->col_val);
    pl->scratch = calloc(pl->n_output ? pl->n_output : 1, sizeof *pl->scratch);
    if (pl->text) {
        pl->fstart = calloc((size_t)pl->max_field + 1, sizeof *pl->fstart);
        pl->fend = calloc((size_t)pl->max_field + 1, sizeof *pl->fend);
        pl->funq = calloc((size_t)pl->max_field + 1, sizeof *pl->funq);
    }
    if (!pl->col_gen || !pl->col_val || !pl->scratch || (pl->text && (!pl->fstart || !pl->fend || !pl->funq)))
        return cfail(&c, "out of memory compiling the plan");
    return 0;
}

void csd_plan_free(plan *pl) {
    csd_plan_batch_free(pl);   /* first: it gives the field bound arrays back */
    csd_plan_state_free(pl);
    for (uint32_t i = 0; i < pl->n_cols; i++) free(pl->cols[i].name);
    free(pl->cols);
    free(pl->nodes);
    free(pl->in_vals);
    free(pl->lits);
    free(pl->outs);
    free(pl->group);
    free(pl->aggs);
    free(pl->order);
    free(pl->col_gen);
    free(pl->col_val);
    free(pl->scratch);
    free(pl->fstart);
    free(pl->fend);
    free(pl->funq);
    free(pl->unq);
    free(pl->pg_masks);
    free(pl->pq_footer);
    free(pl->pq_rgs);
}
