/* Plan state that outlives a record: the group-by hash table with its partial aggregates, and the
 * rows kept for ORDER BY (a bounded heap for top-N, or every row without a limit). Both count their
 * bytes against PLAN_MAX_STATE_BYTES so a plan cannot eat the device's DRAM. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "smartssd/v1/device.pb-c.h"
#include "query/plan_int.h"
#include "runtime/builtin.h"

static int state_full(plan *pl, size_t more) {
    if (more <= pl->max_mem && pl->mem <= pl->max_mem - more) {
        pl->mem += more;
        return 0;
    }
    csd_io_fail(pl->io, "plan state exceeds %zu bytes (too many groups or buffered rows); raise "
                "max_state_bytes, add a limit or split the input", pl->max_mem);
    pl->failed = 1;
    if (!pl->fail_rc) pl->fail_rc = -ENOSPC;
    return -ENOSPC;
}

static int oom(plan *pl) {
    csd_io_fail(pl->io, "out of memory in the plan tasklet");
    pl->failed = 1;
    if (!pl->fail_rc) pl->fail_rc = -ENOMEM;
    return -ENOMEM;
}

/* ------------------------------------------------------------------ output */

int csd_plan_emit(plan *pl, const pv *v, size_t n) {
    csd_io_charge(pl->io, CSD_TK_CYCLES_PER_ROW, 0);
    csd_io_row_begin(pl->io);
    for (size_t i = 0; i < n; i++) {
        switch (v[i].t) {
        case PT_INT: csd_io_val_int(pl->io, v[i].i); break;
        case PT_DOUBLE: csd_io_val_double(pl->io, v[i].d); break;
        case PT_STRING: csd_io_val_bytes(pl->io, v[i].s.p, v[i].s.n); break;
        case PT_BOOL: csd_io_val_bool(pl->io, v[i].b); break;
        default: csd_io_val_null(pl->io); break;
        }
    }
    return csd_io_row_end(pl->io);
}

/* ------------------------------------------------------------------ sort order of output rows */

static int row_cmp(plan *pl, const pv *a, uint64_t sa, const pv *b, uint64_t sb) {
    pl->compares++;
    for (uint32_t k = 0; k < pl->n_order; k++) {
        const psort *s = &pl->order[k];
        int c = csd_plan_cmp(&a[s->output], &b[s->output]);
        /* Spark's defaults: ascending puts NULLs first, descending puts them last */
        if (c) return s->descending ? -c : c;
    }
    return sa < sb ? -1 : sa > sb;
}

/* ------------------------------------------------------------------ buffered rows (ORDER BY) */

static prow *row_copy(plan *pl, const pv *v, size_t n) {
    size_t bytes = sizeof(prow) + n * sizeof(pv);
    for (size_t i = 0; i < n; i++)
        if (v[i].t == PT_STRING) bytes += v[i].s.n;
    if (state_full(pl, bytes)) return NULL;
    prow *r = malloc(bytes);
    if (!r) {
        oom(pl);
        return NULL;
    }
    r->bytes = bytes;
    r->seq = pl->seq++;
    uint8_t *s = (uint8_t *)&r->v[n];
    for (size_t i = 0; i < n; i++) {
        r->v[i] = v[i];
        if (v[i].t == PT_STRING) {
            if (v[i].s.n) memcpy(s, v[i].s.p, v[i].s.n);
            r->v[i].s.p = s;
            s += v[i].s.n;
        }
    }
    return r;
}

static void row_free(plan *pl, prow *r) {
    pl->mem -= r->bytes;
    free(r);
}

/* max-heap on the sort order: the root is the row that would come last */
static int heap_less(plan *pl, size_t i, size_t j) {
    return row_cmp(pl, pl->rows[i]->v, pl->rows[i]->seq, pl->rows[j]->v, pl->rows[j]->seq) < 0;
}

static void heap_swap(plan *pl, size_t i, size_t j) {
    prow *t = pl->rows[i];
    pl->rows[i] = pl->rows[j];
    pl->rows[j] = t;
}

static void sift_up(plan *pl, size_t i) {
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(pl, p, i)) break;
        heap_swap(pl, p, i);
        i = p;
    }
}

static void sift_down(plan *pl, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < pl->n_rows && heap_less(pl, m, l)) m = l;
        if (r < pl->n_rows && heap_less(pl, m, r)) m = r;
        if (m == i) return;
        heap_swap(pl, i, m);
        i = m;
    }
}

int csd_plan_buffer_row(plan *pl) {
    const pv *v = pl->scratch;
    size_t n = pl->n_output;
    if (pl->limit && pl->n_rows >= pl->limit) {
        /* top-N: keep the row only if it sorts before the current worst */
        if (row_cmp(pl, v, pl->seq, pl->rows[0]->v, pl->rows[0]->seq) >= 0) {
            pl->seq++;
            return 0;
        }
        prow *r = row_copy(pl, v, n);
        if (!r) return -ENOMEM;
        row_free(pl, pl->rows[0]);
        pl->rows[0] = r;
        sift_down(pl, 0);
        return 0;
    }
    if (pl->n_rows == pl->cap_rows) {
        size_t cap = pl->cap_rows ? pl->cap_rows * 2 : 64;
        if (state_full(pl, (cap - pl->cap_rows) * sizeof(prow *))) return -ENOMEM;
        prow **rows = realloc(pl->rows, cap * sizeof *rows);
        if (!rows) return oom(pl);
        pl->rows = rows;
        pl->cap_rows = cap;
    }
    prow *r = row_copy(pl, v, n);
    if (!r) return -ENOMEM;
    pl->rows[pl->n_rows++] = r;
    if (pl->limit) sift_up(pl, pl->n_rows - 1);
    return 0;
}

int csd_plan_output_row(plan *pl) {
    if (pl->n_order) return csd_plan_buffer_row(pl);
    int rc = csd_plan_emit(pl, pl->scratch, pl->n_outs);
    if (rc == 0 && pl->limit && ++pl->emitted >= pl->limit) rc = CSD_STOP;
    return rc;
}

int csd_plan_topn_drops(plan *pl, pv *const *ev, size_t i) {
    if (pl->n_order && pl->limit && pl->n_rows >= pl->limit) {
        /* top-N with a full buffer: most rows sort after the current worst and are dropped here,
         * compared from the arrays as csd_plan_buffer_row compares the row (one compare) */
        const prow *w = pl->rows[0];
        pl->compares++;
        int c = 0;
        for (uint32_t k = 0; k < pl->n_order && !c; k++) {
            const psort *o = &pl->order[k];
            const pv *a = &ev[o->output][i], *b = &w->v[o->output];
            c = a->t == PT_INT && b->t == PT_INT ? (a->i < b->i ? -1 : a->i > b->i) : csd_plan_cmp(a, b);
            if (o->descending) c = -c;
        }
        if (c > 0 || (!c && pl->seq >= w->seq)) {
            pl->seq++;
            return 1;
        }
        pl->compares--;   /* csd_plan_buffer_row compares it again */
    }
    return 0;
}

int csd_plan_output_line(plan *pl, pv *const *ev, size_t i) {
    if (csd_plan_topn_drops(pl, ev, i)) return 0;
    for (uint32_t k = 0; k < pl->n_outs; k++) pl->scratch[k] = ev[k][i];
    return csd_plan_output_row(pl);
}

int csd_plan_row_passed(plan *pl) {
    if (pl->aggregating) return csd_plan_group_update(pl);
    int rc = 0;
    for (uint32_t i = 0; i < pl->n_outs && !rc; i++) rc = csd_plan_eval(pl, pl->outs[i], &pl->scratch[i]);
    return rc ? rc : csd_plan_output_row(pl);
}

/* merge sort of prow pointers by row_cmp (stable, O(n log n), no global context) */
static void merge_sort(plan *pl, prow **a, prow **tmp, size_t n) {
    if (n < 2) return;
    size_t h = n / 2;
    merge_sort(pl, a, tmp, h);
    merge_sort(pl, a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = row_cmp(pl, a[j]->v, a[j]->seq, a[i]->v, a[i]->seq) < 0 ? a[j++] : a[i++];
    while (i < h) tmp[k++] = a[i++];
    while (j < n) tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

static int sort_rows(plan *pl) {
    if (pl->n_rows < 2) return 0;
    prow **tmp = malloc(pl->n_rows * sizeof *tmp);
    if (!tmp) return oom(pl);
    merge_sort(pl, pl->rows, tmp, pl->n_rows);
    free(tmp);
    return 0;
}

int csd_plan_finish_rows(plan *pl) {
    int rc = sort_rows(pl);
    if (rc) return rc;
    csd_io_charge(pl->io, pl->compares * CSD_TK_CYCLES_PER_COMPARE, 0);
    pl->compares = 0;
    for (size_t i = 0; i < pl->n_rows; i++) {
        rc = csd_plan_emit(pl, pl->rows[i]->v, pl->n_output);
        if (rc) return rc < 0 ? rc : 0;
    }
    return 0;
}

/* ------------------------------------------------------------------ groups */

static int agg_set_string(plan *pl, pagg_state *s, const pv *v) {
    if (v->s.n > s->cap) {
        size_t cap = v->s.n;
        if (state_full(pl, cap - s->cap)) return -ENOMEM;
        uint8_t *b = realloc(s->buf, cap);
        if (!b) return oom(pl);
        s->buf = b;
        s->cap = cap;
    }
    if (v->s.n) memcpy(s->buf, v->s.p, v->s.n);
    s->val.t = PT_STRING;
    s->val.s.p = s->buf;
    s->val.s.n = v->s.n;
    return 0;
}

/* aggregate g's state s with its argument's value v (unused for COUNT(*)) */
static inline __attribute__((always_inline)) int agg_value(plan *pl, const pagg *g, pagg_state *s, pv v) {
    if (g->fn == SMARTSSD__V1__AGG_FN__COUNT_ALL) {
        s->count++;
        return 0;
    }
    if (v.t == PT_NULL) return 0;
    switch (g->fn) {
    case SMARTSSD__V1__AGG_FN__COUNT: s->count++; return 0;
    case SMARTSSD__V1__AGG_FN__SUM:
        if (!s->has) {
            s->val.t = g->type;
            if (g->type == PT_INT) s->val.i = 0;
            else s->val.d = 0;
        }
        s->has = 1;
        if (g->type == PT_INT) s->val.i = (int64_t)((uint64_t)s->val.i + (uint64_t)(v.t == PT_INT ? v.i : 0));   /* wraps like Spark */
        else s->val.d += v.t == PT_INT ? (double)v.i : v.d;
        return 0;
    default: {
        int c = s->has ? csd_plan_cmp(&v, &s->val) : 0;
        int take = !s->has || (g->fn == SMARTSSD__V1__AGG_FN__MIN ? c < 0 : c > 0);
        s->has = 1;
        if (!take) return 0;
        if (v.t == PT_STRING) return agg_set_string(pl, s, &v);
        s->val = v;
        return 0;
    }
    }
}

static int agg_update(plan *pl, const pagg *g, pagg_state *s) {
    pv v = { .t = PT_NULL };
    if (g->fn != SMARTSSD__V1__AGG_FN__COUNT_ALL) {
        int rc = csd_plan_eval(pl, g->arg, &v);
        if (rc) return rc;
    }
    return agg_value(pl, g, s, v);
}

static int htab_grow(plan *pl) {
    size_t cap = pl->hcap ? pl->hcap * 2 : 64;
    if (state_full(pl, (cap - pl->hcap) * sizeof(uint32_t))) return -ENOMEM;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return oom(pl);
    for (size_t g = 0; g < pl->n_groups; g++) {
        size_t i = pl->groups[g].hash & (cap - 1);
        while (t[i]) i = (i + 1) & (cap - 1);
        t[i] = (uint32_t)(g + 1);
    }
    free(pl->htab);
    pl->htab = t;
    pl->hcap = cap;
    return 0;
}

static pgroup *new_group(plan *pl, const pv *key, uint64_t h) {
    if (pl->n_groups >= UINT32_MAX - 1) {
        state_full(pl, SIZE_MAX);
        return NULL;
    }
    if (pl->n_groups == pl->cap_groups) {
        size_t cap = pl->cap_groups ? pl->cap_groups * 2 : 16;
        if (state_full(pl, (cap - pl->cap_groups) * sizeof(pgroup))) return NULL;
        pgroup *g = realloc(pl->groups, cap * sizeof *g);
        if (!g) {
            oom(pl);
            return NULL;
        }
        pl->groups = g;
        pl->cap_groups = cap;
    }
    size_t bytes = pl->n_group * sizeof(pv) + pl->n_aggs * sizeof(pagg_state);
    for (uint32_t i = 0; i < pl->n_group; i++)
        if (key[i].t == PT_STRING) bytes += key[i].s.n;
    if (state_full(pl, bytes)) return NULL;
    uint8_t *mem = calloc(1, bytes ? bytes : 1);
    if (!mem) {
        oom(pl);
        return NULL;
    }
    pgroup *g = &pl->groups[pl->n_groups++];
    g->hash = h;
    g->aggs = (pagg_state *)mem;
    g->key = (pv *)(mem + pl->n_aggs * sizeof(pagg_state));
    uint8_t *s = (uint8_t *)(g->key + pl->n_group);
    for (uint32_t i = 0; i < pl->n_group; i++) {
        g->key[i] = key[i];
        if (key[i].t == PT_STRING) {
            if (key[i].s.n) memcpy(s, key[i].s.p, key[i].s.n);
            g->key[i].s.p = s;
            s += key[i].s.n;
        }
    }
    return g;
}

/* csd_plan_equal_group, with strings and integers (most keys) compared in place */
static inline int key_equal(const pv *a, const pv *b) {
    if (a->t != b->t) return 0;
    if (a->t == PT_STRING) {
        if (a->s.n != b->s.n) return 0;
        const size_t n = a->s.n;
        const uint8_t *x = a->s.p, *y = b->s.p;
        if (n > 16) return !memcmp(x, y, n);
        /* short keys: no call; 4 to 16 bytes as two overlapping words each, within the bytes */
        if (n >= 8) {
            uint64_t x0, x1, y0, y1;
            memcpy(&x0, x, 8), memcpy(&x1, x + n - 8, 8), memcpy(&y0, y, 8), memcpy(&y1, y + n - 8, 8);
            return ((x0 ^ y0) | (x1 ^ y1)) == 0;
        }
        if (n >= 4) {
            uint32_t x0, x1, y0, y1;
            memcpy(&x0, x, 4), memcpy(&x1, x + n - 4, 4), memcpy(&y0, y, 4), memcpy(&y1, y + n - 4, 4);
            return ((x0 ^ y0) | (x1 ^ y1)) == 0;
        }
        for (size_t i = 0; i < n; i++)
            if (x[i] != y[i]) return 0;
        return 1;
    }
    if (a->t == PT_INT) return a->i == b->i;
    return csd_plan_equal_group(a, b);
}

static inline __attribute__((always_inline)) int same_key(const plan *pl, const pgroup *g, const pv *key) {
    uint32_t k = 0;
    while (k < pl->n_group && key_equal(&g->key[k], &key[k])) k++;
    return k == pl->n_group;
}

/* the device's cost is a hash lookup either way (charged by the callers); the emulator first tries
 * the previous group */
static pgroup *lookup_group(plan *pl, const pv *key) {
    if (pl->last_group && same_key(pl, &pl->groups[pl->last_group - 1], key)) return &pl->groups[pl->last_group - 1];
    uint64_t h = csd_plan_hash(key, pl->n_group);
    if (pl->n_groups + 1 > pl->hcap / 2 && htab_grow(pl)) return NULL;
    size_t i = h & (pl->hcap - 1);
    while (pl->htab[i]) {
        pgroup *g = &pl->groups[pl->htab[i] - 1];
        if (g->hash == h && same_key(pl, g, key)) {
            pl->last_group = pl->htab[i];
            return g;
        }
        i = (i + 1) & (pl->hcap - 1);
    }
    pgroup *g = new_group(pl, key, h);
    if (g) pl->htab[i] = pl->last_group = (uint32_t)pl->n_groups;
    return g;
}

static pgroup *find_group(plan *pl, const pv *key) {
    csd_io_charge(pl->io, CSD_TK_CYCLES_PER_HASH, 1);
    return lookup_group(pl, key);
}

int csd_plan_group_update(plan *pl) {
    pv *key = pl->scratch;   /* the first n_group outputs are the key */
    for (uint32_t i = 0; i < pl->n_group; i++) {
        int rc = csd_plan_eval(pl, pl->group[i], &key[i]);
        if (rc) return rc;
    }
    pgroup *g = find_group(pl, key);
    if (!g) return -ENOMEM;
    for (uint32_t a = 0; a < pl->n_aggs; a++) {
        int rc = agg_update(pl, &pl->aggs[a], &g->aggs[a]);
        if (rc) return rc;
    }
    return 0;
}

/* Line i's group key from the evaluated arrays (one key: its value is the whole key). */
static inline const pv *sel_key(plan *pl, pv *const *ev, uint32_t i) {
    if (pl->n_group == 1) return &ev[0][i];
    for (uint32_t k = 0; k < pl->n_group; k++) pl->scratch[k] = ev[k][i];
    return pl->scratch;
}

int csd_plan_group_update_sel(plan *pl, pv *const *ev, const uint32_t *sel, size_t ns, size_t *done) {
    /* Consecutive lines of one group (most pages repeat a few keys) update its aggregates one
     * aggregate at a time over the run, as the line-at-a-time order would leave them. A MIN/MAX
     * of strings copies and may fail at a line: then every line goes alone, so the failure stays
     * at its line. */
    int runs = 1;
    for (uint32_t a = 0; a < pl->n_aggs; a++)
        if (pl->aggs[a].type == PT_STRING) runs = 0;
    size_t j = 0;
    while (j < ns) {
        const pv *key = sel_key(pl, ev, sel[j]);
        pgroup *g;
        if (pl->last_group && same_key(pl, &pl->groups[pl->last_group - 1], key)) g = &pl->groups[pl->last_group - 1];
        else g = lookup_group(pl, key);
        if (!g) {
            pl->hashes += j + 1;
            *done = j + 1;
            return -ENOMEM;
        }
        size_t r = j + 1;
        if (runs)
            while (r < ns && same_key(pl, g, sel_key(pl, ev, sel[r]))) r++;
        for (uint32_t a = 0; a < pl->n_aggs; a++) {
            const pagg *ag = &pl->aggs[a];
            pagg_state *st = &g->aggs[a];
            if (ag->fn == SMARTSSD__V1__AGG_FN__COUNT_ALL) {
                st->count += (int64_t)(r - j);
                continue;
            }
            const pv *v = ev[pl->n_group + a];
            if (ag->fn == SMARTSSD__V1__AGG_FN__SUM && ag->type == PT_INT) {
                uint64_t sum = 0;
                int any = 0;
                for (size_t q = j; q < r; q++) {
                    const pv *x = &v[sel[q]];
                    if (x->t == PT_NULL) continue;
                    any = 1;
                    sum += (uint64_t)(x->t == PT_INT ? x->i : 0);
                }
                if (any) {   /* integer sums wrap, so their order does not matter */
                    if (!st->has) {
                        st->val.t = PT_INT;
                        st->val.i = 0;
                    }
                    st->has = 1;
                    st->val.i = (int64_t)((uint64_t)st->val.i + sum);
                }
                continue;
            }
            for (size_t q = j; q < r; q++) {
                int rc = agg_value(pl, ag, st, v[sel[q]]);
                if (rc) {   /* only without runs: q == j */
                    pl->hashes += q + 1;
                    *done = q + 1;
                    return rc;
                }
            }
        }
        j = r;
    }
    pl->hashes += ns;
    *done = ns;
    return 0;
}

static void group_row(plan *pl, const pgroup *g, pv *out) {
    for (uint32_t i = 0; i < pl->n_group; i++) out[i] = g->key[i];
    for (uint32_t a = 0; a < pl->n_aggs; a++) {
        const pagg_state *s = &g->aggs[a];
        pv *v = &out[pl->n_group + a];
        int fn = pl->aggs[a].fn;
        if (fn == SMARTSSD__V1__AGG_FN__COUNT_ALL || fn == SMARTSSD__V1__AGG_FN__COUNT) {
            v->t = PT_INT;
            v->i = s->count;
        } else if (s->has) {
            *v = s->val;
        } else {
            v->t = PT_NULL;
        }
    }
}

int csd_plan_finish_groups(plan *pl) {
    /* a global aggregate (no group_by) has one row even without input */
    if (pl->n_group == 0 && pl->n_groups == 0 && !find_group(pl, pl->scratch)) return -ENOMEM;
    for (size_t i = 0; i < pl->n_groups; i++) {
        group_row(pl, &pl->groups[i], pl->scratch);
        if (pl->n_order) {
            int rc = csd_plan_buffer_row(pl);
            if (rc) return rc;
            continue;
        }
        if (pl->limit && i >= pl->limit) break;
        int rc = csd_plan_emit(pl, pl->scratch, pl->n_output);
        if (rc) return rc < 0 ? rc : 0;
    }
    return pl->n_order ? csd_plan_finish_rows(pl) : 0;
}

void csd_plan_state_free(plan *pl) {
    for (size_t i = 0; i < pl->n_groups; i++) {
        for (uint32_t a = 0; a < pl->n_aggs; a++) free(pl->groups[i].aggs[a].buf);
        free(pl->groups[i].aggs);
    }
    free(pl->groups);
    free(pl->htab);
    for (size_t i = 0; i < pl->n_rows; i++) free(pl->rows[i]);
    free(pl->rows);
    pl->groups = NULL;
    pl->htab = NULL;
    pl->rows = NULL;
    pl->n_groups = pl->n_rows = 0;
}
