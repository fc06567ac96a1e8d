/* The plan over a Parquet object. The extent's bytes are gathered as they arrive (BYTES framing);
 * finish reads the footer, then for each row group: are the filter's comparisons possible within the
 * chunk statistics (min/max, null count)? If not, the row group is skipped undecoded. Otherwise only
 * the chunks of the columns the plan uses are decoded, and each row goes through the same evaluator
 * as text and fixed records (the decoded values fill the evaluator's column cache). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query/parquet.h"
#include "query/plan_int.h"
#include "runtime/builtin.h"
#include "host/bufpool.h"

/* Cost model (docs/TASKLETS.md): decoding one value and reading one 4-byte word of a decoded page. */
#define CSD_TK_CYCLES_PER_VALUE 2

typedef struct prange {
    uint64_t start, end;
} prange;

typedef struct plan_pq {
    uint8_t *buf;
    size_t len, cap;
    int big;                 /* buf is csd_pq_big_alloc'd (the prepared layout), else malloc'd */
    int huge;                /* ... on huge pages: the ranges read cover most of the object */
    uint64_t rg_total, rg_skipped;
    /* with the plan's footer (csd_plan_parquet_prepare) */
    int prepared;
    csd_pq_file file;
    uint8_t *used;           /* per plan column: an expression reads it */
    uint8_t *skip;           /* per row group: the statistics exclude the filter */
    uint8_t *other;          /* per row group: not among the plan's row_groups (another request's) */
    prange *ranges;          /* bytes that will be read, sorted and merged */
    size_t n_ranges;
} plan_pq;

void csd_plan_parquet_free(plan *pl) {
    if (!pl->pq) return;
    if (pl->pq->big) csd_bufpool_put(pl->pool, pl->pq->buf, pl->pq->cap, pl->pq->huge);
    else free(pl->pq->buf);
    csd_pq_close(&pl->pq->file);
    free(pl->pq->used);
    free(pl->pq->skip);
    free(pl->pq->other);
    free(pl->pq->ranges);
    free(pl->pq);
    pl->pq = NULL;
}

static int new_state(plan *pl) {
    if (pl->pq) return 0;
    pl->pq = calloc(1, sizeof *pl->pq);
    return pl->pq ? 0 : -ENOMEM;
}

/* the first range ending after off */
static size_t first_range(const plan_pq *q, uint64_t off) {
    size_t lo = 0, hi = q->n_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (q->ranges[mid].end <= off) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* zero the ranges' bytes within [s, e) of the object buffer */
static void ranges_zero(plan_pq *q, uint64_t s, uint64_t e) {
    for (size_t k = first_range(q, s); k < q->n_ranges && q->ranges[k].start < e; k++) {
        uint64_t a = q->ranges[k].start > s ? q->ranges[k].start : s;
        uint64_t b = q->ranges[k].end < e ? q->ranges[k].end : e;
        memset(q->buf + a, 0, (size_t)(b - a));
    }
}

int csd_plan_parquet_bytes(plan *pl, const uint8_t *p, size_t len, uint64_t off) {
    if (new_state(pl)) {
        csd_io_fail(pl->io, "plan: out of memory gathering the Parquet object");
        return -ENOMEM;
    }
    plan_pq *q = pl->pq;
    if (q->prepared) {
        /* the layout is known: the bytes land at their offsets, the pages not read stay zeros (the
         * leading ones are not even fed) */
        if (!q->buf) {
            if (pl->pq_size > pl->max_mem) {
                csd_io_fail(pl->io, "plan: the Parquet object exceeds max_state_bytes (%zu bytes)", pl->max_mem);
                pl->fail_rc = -ENOSPC;
                return -ENOSPC;
            }
            if (q->n_ranges && off > q->ranges[0].start) {
                csd_io_fail(pl->io, "plan: a Parquet plan reads a whole object; its extent starts at offset %llu, "
                            "after byte %llu which the plan reads", (unsigned long long)off,
                            (unsigned long long)q->ranges[0].start);
                return -EINVAL;
            }
            /* huge pages fault in 2 MiB: worth it where most bytes are written, not for a few chunks */
            uint64_t span = 0;
            for (size_t k = 0; k < q->n_ranges; k++) span += q->ranges[k].end - q->ranges[k].start;
            q->huge = span > pl->pq_size / 2;
            /* not zeroed: a reused region holds an earlier request's bytes, so every byte of the
             * ranges is written below or zeroed where the feed skips it; nothing reads outside them
             * (a chunk's decode stays within its chunk, the footer check within the last range) */
            q->buf = csd_bufpool_get(pl->pool, pl->pq_size ? pl->pq_size : 1, q->huge, 0);
            if (!q->buf) {
                csd_io_fail(pl->io, "plan: out of memory gathering the Parquet object");
                return -ENOMEM;
            }
            q->cap = pl->pq_size ? pl->pq_size : 1;
            q->big = 1;
        }
        if (off < q->len || off > pl->pq_size || len > pl->pq_size - off) {
            csd_io_fail(pl->io, "plan: the object is longer than the %llu bytes of the footer the plan was built from",
                        (unsigned long long)pl->pq_size);
            return -EINVAL;
        }
        /* only the bytes of the ranges the plan reads: the rest stays as calloc left it (the pages not
         * read arrive as zeros anyway, and nothing reads them) */
        uint64_t e = off + len;
        if (off > q->len) ranges_zero(q, q->len, off);   /* bytes not fed (leading pages) */
        size_t lo = first_range(q, off);
        for (size_t k = lo; k < q->n_ranges && q->ranges[k].start < e; k++) {
            uint64_t a = q->ranges[k].start > off ? q->ranges[k].start : off;
            uint64_t b = q->ranges[k].end < e ? q->ranges[k].end : e;
            memcpy(q->buf + a, p + (a - off), (size_t)(b - a));
        }
        q->len = e;
        return 0;
    }
    if (off != q->len) {
        csd_io_fail(pl->io, "plan: a Parquet plan reads a whole object; its extent starts at offset %llu, not 0",
                    (unsigned long long)(off - q->len));
        return -EINVAL;
    }
    if (len > pl->max_mem || q->len > pl->max_mem - len) {
        csd_io_fail(pl->io, "plan: the Parquet object exceeds max_state_bytes (%zu bytes)", pl->max_mem);
        pl->fail_rc = -ENOSPC;
        return -ENOSPC;
    }
    if (q->len + len > q->cap) {
        size_t cap = q->cap ? q->cap : (size_t)1 << 20;
        while (cap < q->len + len) cap *= 2;
        uint8_t *b = realloc(q->buf, cap);
        if (!b) {
            csd_io_fail(pl->io, "plan: out of memory gathering the Parquet object");
            return -ENOMEM;
        }
        q->buf = b;
        q->cap = cap;
    }
    memcpy(q->buf + q->len, p, len);
    q->len += len;
    return 0;
}

/* A chunk statistic (PLAIN bytes) as a plan value of the column's type; 0 when it has none usable. */
static int stat_value(const csd_pq_chunk *c, int is_max, pv *out) {
    const uint8_t *p = is_max ? c->max : c->min;
    uint32_t n = is_max ? c->max_len : c->min_len;
    if (!(is_max ? c->has_max : c->has_min) || !p) return 0;
    switch (c->ptype) {
    case PQ_INT32: {
        if (n != 4) return 0;
        int32_t v;
        memcpy(&v, p, 4);
        out->t = PT_INT;
        out->i = v;
        return 1;
    }
    case PQ_INT64:
        if (n != 8) return 0;
        out->t = PT_INT;
        memcpy(&out->i, p, 8);
        return 1;
    case PQ_BYTE_ARRAY:
        out->t = PT_STRING;
        out->s.p = p;
        out->s.n = n;
        return 1;
    default:
        /* FLOAT/DOUBLE statistics leave NaN out and BOOLEAN ones prune little: never used */
        return 0;
    }
}

static int flip(int op) {
    switch (op) {
    case SMARTSSD__V1__BINARY_OP__LT: return SMARTSSD__V1__BINARY_OP__GT;
    case SMARTSSD__V1__BINARY_OP__LE: return SMARTSSD__V1__BINARY_OP__GE;
    case SMARTSSD__V1__BINARY_OP__GT: return SMARTSSD__V1__BINARY_OP__LT;
    case SMARTSSD__V1__BINARY_OP__GE: return SMARTSSD__V1__BINARY_OP__LE;
    default: return op;
    }
}

/* 0 when node n cannot be TRUE for any row of row group g (by the chunk statistics), else 1. Only
 * AND, OR, comparisons of a column with a literal and IS_NULL are looked into; anything else may be
 * TRUE. A comparison with NULL is never TRUE (the evaluator's three-valued logic). */
static int may_match(const plan *pl, const csd_pq_file *f, const csd_pq_rg *g, int32_t n) {
    const pnode *x = &pl->nodes[n];
    if (x->kind == PN_UNARY && x->op == SMARTSSD__V1__UNARY_OP__IS_NULL && pl->nodes[x->a].kind == PN_COLUMN) {
        uint32_t leaf = pl->cols[pl->nodes[x->a].col].field;
        return leaf >= f->n_leaves || g->chunks[leaf].has_nulls;
    }
    if (x->kind != PN_BINARY) return 1;
    if (x->op == SMARTSSD__V1__BINARY_OP__AND) return may_match(pl, f, g, x->a) && may_match(pl, f, g, x->b);
    if (x->op == SMARTSSD__V1__BINARY_OP__OR) return may_match(pl, f, g, x->a) || may_match(pl, f, g, x->b);
    if (x->op < SMARTSSD__V1__BINARY_OP__EQ || x->op > SMARTSSD__V1__BINARY_OP__GE) return 1;
    const pnode *a = &pl->nodes[x->a], *b = &pl->nodes[x->b];
    int op = x->op;
    if (a->kind == PN_LITERAL && b->kind == PN_COLUMN) {
        const pnode *t = a;
        a = b;
        b = t;
        op = flip(op);
    }
    if (a->kind != PN_COLUMN || b->kind != PN_LITERAL) return 1;
    if (b->lit.t == PT_NULL) return 0;
    const pcol *col = &pl->cols[a->col];
    if (col->field >= f->n_leaves) return 1;
    const csd_pq_chunk *c = &g->chunks[col->field];
    pv lo = { .t = PT_NULL }, hi = { .t = PT_NULL };
    int has_lo = stat_value(c, 0, &lo), has_hi = stat_value(c, 1, &hi);
    /* statistics of another type than the column's (e.g. a mistyped plan) are not compared */
    if ((has_lo && lo.t != col->type) || (has_hi && hi.t != col->type)) return 1;
    if ((col->type == PT_STRING) != (b->lit.t == PT_STRING)) return 1;
    const pv *v = &b->lit;
    switch (op) {
    case SMARTSSD__V1__BINARY_OP__EQ:
        return !(has_lo && csd_plan_cmp(v, &lo) < 0) && !(has_hi && csd_plan_cmp(v, &hi) > 0);
    case SMARTSSD__V1__BINARY_OP__NE:
        return !(has_lo && has_hi && csd_plan_cmp(&lo, v) == 0 && csd_plan_cmp(&hi, v) == 0);
    case SMARTSSD__V1__BINARY_OP__LT: return !has_lo || csd_plan_cmp(&lo, v) < 0;
    case SMARTSSD__V1__BINARY_OP__LE: return !has_lo || csd_plan_cmp(&lo, v) <= 0;
    case SMARTSSD__V1__BINARY_OP__GT: return !has_hi || csd_plan_cmp(&hi, v) > 0;
    case SMARTSSD__V1__BINARY_OP__GE: return !has_hi || csd_plan_cmp(&hi, v) >= 0;
    default: return 1;
    }
}

static int type_ok(int pt, int ptype) {
    switch (pt) {
    case PT_INT: return ptype == PQ_INT32 || ptype == PQ_INT64;
    case PT_DOUBLE: return ptype == PQ_FLOAT || ptype == PQ_DOUBLE;
    case PT_STRING: return ptype == PQ_BYTE_ARRAY;
    case PT_BOOL: return ptype == PQ_BOOLEAN;
    default: return 0;
    }
}

/* Row r of a decoded chunk as a plan value of type t. */
static inline void value_into(pv *o, int t, const csd_pq_values *v, uint64_t r) {
    if (!v->valid[r]) {
        o->t = PT_NULL;
        return;
    }
    switch (t) {
    case PT_INT: o->t = PT_INT; o->i = csd_pq_int(v, r); break;
    case PT_DOUBLE: o->t = PT_DOUBLE; o->d = v->d[r]; break;
    case PT_STRING: o->t = PT_STRING; o->s.p = v->sp[r]; o->s.n = v->sn[r]; break;
    default: o->t = PT_BOOL; o->b = csd_pq_int(v, r) != 0; break;
    }
}

/* Row r of column c's decoded chunk into the evaluator's column cache. */
static inline void load_value(plan *pl, uint32_t c, const csd_pq_values *v, uint64_t r) {
    pv *o = &pl->col_val[c];
    pl->col_gen[c] = pl->gen;
    if (!v->valid[r]) {
        o->t = PT_NULL;
        return;
    }
    switch (pl->cols[c].type) {
    case PT_INT: o->t = PT_INT; o->i = csd_pq_int(v, r); break;
    case PT_DOUBLE: o->t = PT_DOUBLE; o->d = v->d[r]; break;
    case PT_STRING: o->t = PT_STRING; o->s.p = v->sp[r]; o->s.n = v->sn[r]; break;
    default: o->t = PT_BOOL; o->b = csd_pq_int(v, r) != 0; break;
    }
}

/* Marks the columns node n reads. */
static void mark_columns(const plan *pl, int32_t n, uint8_t *mark) {
    if (n < 0) return;
    const pnode *x = &pl->nodes[n];
    if (x->kind == PN_COLUMN) mark[x->col] = 1;
    mark_columns(pl, x->a, mark);
    mark_columns(pl, x->b, mark);
}

/* The plan's columns against the file's leaves: every used column exists with a matching type. */
static int check_columns(const plan *pl, const csd_pq_file *f, const uint8_t *used, char *err, size_t errlen) {
    for (uint32_t c = 0; c < pl->n_cols; c++) {
        if (!used[c]) continue;
        const pcol *col = &pl->cols[c];
        if (col->field >= f->n_leaves) {
            snprintf(err, errlen, "plan: column '%s' reads Parquet column %u; the object has %u", col->name, col->field,
                     f->n_leaves);
            return -EINVAL;
        }
        const csd_pq_leaf *leaf = &f->leaves[col->field];
        if (!type_ok(col->type, leaf->ptype)) {
            snprintf(err, errlen, "plan: column '%s' is %s but Parquet column %u ('%s') holds %s", col->name,
                     csd_plan_type_name(col->type), col->field, leaf->name, csd_pq_type_name(leaf->ptype));
            return -EINVAL;
        }
    }
    return 0;
}

static uint8_t *used_columns(const plan *pl) {
    uint8_t *used = calloc(pl->n_cols ? pl->n_cols : 1, 1);
    if (!used) return NULL;
    for (uint32_t k = 0; k < pl->n_nodes; k++)
        if (pl->nodes[k].kind == PN_COLUMN) used[pl->nodes[k].col] = 1;
    return used;
}

static int cmp_range(const void *a, const void *b) {
    const prange *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int csd_plan_parquet_prepare(plan *pl, char *err, size_t errlen) {
    if (!pl->pq_footer) return 0;
    if (new_state(pl)) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    plan_pq *q = pl->pq;
    char e[256];
    if (csd_pq_open_footer(&q->file, pl->pq_footer, pl->pq_footer_len, pl->pq_size, e, sizeof e)) {
        snprintf(err, errlen, "plan: parquet.footer: %s", e);
        return -EINVAL;
    }
    q->used = used_columns(pl);
    q->skip = calloc(q->file.n_rgs ? q->file.n_rgs : 1, 1);
    size_t cap = (size_t)q->file.n_rgs * (pl->n_cols ? pl->n_cols : 1) + 1;
    q->ranges = malloc(cap * sizeof *q->ranges);
    if (!q->used || !q->skip || !q->ranges) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = check_columns(pl, &q->file, q->used, err, errlen);
    if (rc) return rc;
    if (pl->pq_n_rgs) {
        /* a request for some of the row groups (one of several over the object): the others are
         * neither read nor counted */
        q->other = malloc(q->file.n_rgs ? q->file.n_rgs : 1);
        if (!q->other) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
        memset(q->other, 1, q->file.n_rgs);
        for (size_t k = 0; k < pl->pq_n_rgs; k++) {
            if (pl->pq_rgs[k] >= q->file.n_rgs) {
                snprintf(err, errlen, "plan: parquet.row_groups names row group %u; the footer has %u",
                         pl->pq_rgs[k], q->file.n_rgs);
                return -EINVAL;
            }
            q->other[pl->pq_rgs[k]] = 0;
        }
    }
    /* the footer, its length and the magic at the object's end: checked against the plan's at finish */
    q->ranges[q->n_ranges++] = (prange){ pl->pq_size - 8 - pl->pq_footer_len, pl->pq_size };
    for (uint32_t g = 0; g < q->file.n_rgs; g++) {
        if (q->other && q->other[g]) continue;
        if (pl->filter >= 0 && !may_match(pl, &q->file, &q->file.rgs[g], pl->filter)) {
            q->skip[g] = 1;
            continue;
        }
        for (uint32_t c = 0; c < pl->n_cols; c++) {
            if (!q->used[c]) continue;
            const csd_pq_chunk *k = &q->file.rgs[g].chunks[pl->cols[c].field];
            q->ranges[q->n_ranges++] = (prange){ k->start, k->start + k->size };
        }
    }
    qsort(q->ranges, q->n_ranges, sizeof *q->ranges, cmp_range);
    size_t n = 0;
    for (size_t k = 0; k < q->n_ranges; k++) {
        if (n && q->ranges[k].start <= q->ranges[n - 1].end) {
            if (q->ranges[k].end > q->ranges[n - 1].end) q->ranges[n - 1].end = q->ranges[k].end;
        } else {
            q->ranges[n++] = q->ranges[k];
        }
    }
    q->n_ranges = n;
    q->prepared = 1;
    return 0;
}

int csd_plan_parquet_need_page(const plan *pl, uint64_t page_index, uint32_t page_bytes) {
    const plan_pq *q = pl->pq;
    if (!pl->parquet || !q || !q->prepared) return 1;
    uint64_t s = page_index * page_bytes, e = s + page_bytes;
    /* the first range ending after s */
    size_t lo = 0, hi = q->n_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (q->ranges[mid].end <= s) lo = mid + 1;
        else hi = mid;
    }
    return lo < q->n_ranges && q->ranges[lo].start < e;
}

/* ------------------------------------------------------------------ decoding column chunks
 * The chunks one phase of a row group needs are independent: they are decoded on up to
 * CSD_PQ_DECODE_THREADS host threads at once, no more than the device's host_threads (wall time
 * only); with fewer chunks than threads, a chunk's data pages share the rest (csd_pq_read_threads).
 * Costs are summed, and the first failure reported, in the chunks' order, as decoding them one
 * after another would. */
#define CSD_PQ_DECODE_THREADS 4

typedef struct dec_job {
    const csd_pq_file *f;
    const uint8_t *file;
    size_t len;
    uint32_t g, leaf;
    const uint8_t *sel;
    struct csd_bufpool *pool;
    int threads;             /* its data pages on this many threads */
    int stats;               /* with its pages' least and greatest integers */
    csd_pq_values *out;
    int rc;
    char err[256];
} dec_job;

typedef struct dec_pool {
    dec_job *jobs;
    uint32_t n;
    uint32_t next;           /* atomically taken */
} dec_pool;

static void *dec_worker(void *arg) {
    dec_pool *p = arg;
    for (;;) {
        uint32_t k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (k >= p->n) return NULL;
        dec_job *j = &p->jobs[k];
        j->rc = csd_pq_read_threads(j->f, j->file, j->len, j->g, j->leaf, j->sel, j->pool, j->threads, j->stats, j->out,
                                    j->err, sizeof j->err);
    }
}

/* The device's host_threads (1 = the engine's thread only), at most the online CPUs and the cap. */
static int host_cpus(const plan *pl) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > (long)pl->host_threads) n = (long)pl->host_threads;
    return n < 1 ? 1 : n > CSD_PQ_DECODE_THREADS ? CSD_PQ_DECODE_THREADS : (int)n;
}

/* as_whole: the pages sel skips are charged as if decoded (their value counts and sizes from their
 * headers): the plan's charge is that of decoding the whole chunk, only the host skips the work */
static int decode_columns(plan *pl, const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t g,
                          const uint32_t *cols, uint32_t n, const uint8_t *sel, csd_pq_values *vals, uint8_t *decoded,
                          uint64_t *cycles, uint64_t *dram, int as_whole, int stats) {
    dec_job *jobs = calloc(n ? n : 1, sizeof *jobs);
    if (!jobs) {
        csd_io_fail(pl->io, "plan: out of memory reading the Parquet object");
        return -ENOMEM;
    }
    uint32_t nj = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t leaf = pl->cols[cols[k]].field;
        int dup = decoded[leaf];
        for (uint32_t m = 0; m < nj && !dup; m++) dup = jobs[m].leaf == leaf;
        if (dup) continue;
        jobs[nj++] = (dec_job){ .f = f, .file = file, .len = len, .g = g, .leaf = leaf, .sel = sel, .pool = pl->pool,
                                .stats = stats, .out = &vals[leaf] };
    }
    dec_pool pool = { jobs, nj, 0 };
    int cpus = host_cpus(pl);
    int want = nj < 2 ? 1 : (int)(nj < (uint32_t)cpus ? nj : (uint32_t)cpus);
    /* fewer chunks than threads (a top-N's one key): the threads left decode a chunk's pages */
    for (uint32_t m = 0; m < nj; m++) jobs[m].threads = nj < (uint32_t)cpus ? cpus / (int)nj : 1;
    pthread_t th[CSD_PQ_DECODE_THREADS];
    int started = 0;
    for (int w = 1; w < want; w++)
        if (pthread_create(&th[started], NULL, dec_worker, &pool) == 0) started++;
    dec_worker(&pool);
    for (int w = 0; w < started; w++) pthread_join(th[w], NULL);
    int rc = 0;
    for (uint32_t m = 0; m < nj; m++) {
        dec_job *j = &jobs[m];
        if (!rc && j->rc) {
            csd_io_fail(pl->io, "plan: %s", j->err);
            rc = -EINVAL;
        }
        if (j->rc) {
            csd_pq_values_free(j->out);   /* a failed decode may leave part of its arrays */
            continue;
        }
        decoded[j->leaf] = 1;             /* freed with the row group's other chunks */
        if (!rc) {
            uint64_t nv = j->out->decoded + (as_whole ? j->out->skipped_values : 0);
            uint64_t nb = j->out->bytes_out + (as_whole ? j->out->skipped_bytes : 0);
            *cycles += nv * CSD_TK_CYCLES_PER_VALUE;
            *dram += nb / 4;
        }
    }
    free(jobs);
    return rc;
}

/* ------------------------------------------------------------------ column-at-a-time filter
 * A filter of AND / OR / NOT over comparisons of an integer column with an integer literal and
 * IS [NOT] NULL of a column is evaluated over the decoded column arrays, a row group at a time,
 * instead of row by row through csd_plan_eval. Same answers, three-valued as the row evaluator (a
 * comparison with NULL is NULL; AND / OR decide on their first operand when it alone decides), and
 * the same count of nodes evaluated per row (a comparison 3: itself and its two operands; IS NULL 2;
 * NOT 1 + its operand; AND / OR 1 + the first operand + the second where the first does not decide),
 * so the charged cycles do not change. */
enum { V_FALSE = 0, V_TRUE = 1, V_NULL = 2 };

static int vec_ok(const plan *pl, int32_t n) {
    const pnode *x = &pl->nodes[n];
    if (x->kind == PN_BINARY && (x->op == SMARTSSD__V1__BINARY_OP__AND || x->op == SMARTSSD__V1__BINARY_OP__OR))
        return vec_ok(pl, x->a) && vec_ok(pl, x->b);
    if (x->kind == PN_UNARY) {
        if (x->op == SMARTSSD__V1__UNARY_OP__NOT) return vec_ok(pl, x->a);
        return (x->op == SMARTSSD__V1__UNARY_OP__IS_NULL || x->op == SMARTSSD__V1__UNARY_OP__IS_NOT_NULL) &&
               pl->nodes[x->a].kind == PN_COLUMN;
    }
    if (x->kind != PN_BINARY || x->op < SMARTSSD__V1__BINARY_OP__EQ || x->op > SMARTSSD__V1__BINARY_OP__GE) return 0;
    const pnode *a = &pl->nodes[x->a], *b = &pl->nodes[x->b];
    if (a->kind == PN_LITERAL) {
        const pnode *t = a;
        a = b;
        b = t;
    }
    return a->kind == PN_COLUMN && pl->cols[a->col].type == PT_INT && b->kind == PN_LITERAL && b->lit.t == PT_INT;
}

/* The loops over a row group's rows work on 8 rows a 64-bit word: a row's V_* byte has its TRUE
 * in bit 0 and its NULL in bit 1 (V_FALSE 0, V_TRUE 1, V_NULL 2), act and valid bytes are 0 / 1. */
#define PQ_LO 0x0101010101010101ull
/* rows the filter evaluates at once (a multiple of 8) */
#define PQ_BLOCK 16384

static inline uint64_t load8(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline void store8(uint8_t *p, uint64_t w) { memcpy(p, &w, 8); }

/* the 1s of a word whose bytes are 0 or 1: one multiply (x86-64 without -mpopcnt calls libgcc for
 * __builtin_popcountll) */
static inline uint64_t count01(uint64_t w) { return (w * PQ_LO) >> 56; }

static inline uint64_t count_active(const uint8_t *act, uint64_t n) {
    uint64_t k = 0, r = 0;
    for (; r + 8 <= n; r += 8) k += count01(load8(act + r));
    for (; r < n; r++) k += act[r];
    return k;
}

/* a comparison's 0 / 1 where the row is valid, else V_NULL, for 8 rows */
static inline uint64_t with_nulls(uint64_t cmp, uint64_t valid) { return (cmp & valid) | ((valid ^ PQ_LO) << 1); }

/* res[r] for every row r of [base, base + nrows) of the row group (V_*; res and act are indexed from
 * base); returns the nodes the row evaluator would have evaluated over the rows with act[r] != 0 (nact
 * of them). -ENOMEM as (uint64_t)-1. */
static uint64_t vec_eval(const plan *pl, int32_t n, const csd_pq_values *vals, uint64_t base, uint64_t nrows,
                         const uint8_t *act, uint64_t nact, uint8_t *res) {
    const pnode *x = &pl->nodes[n];
    if (x->kind == PN_UNARY && x->op == SMARTSSD__V1__UNARY_OP__NOT) {
        uint64_t k = vec_eval(pl, x->a, vals, base, nrows, act, nact, res);
        if (k == UINT64_MAX) return k;
        for (uint64_t r = 0; r < nrows; r++) res[r] = res[r] == V_NULL ? V_NULL : !res[r];
        return k + nact;
    }
    if (x->kind == PN_UNARY) {
        const uint8_t *valid = vals[pl->cols[pl->nodes[x->a].col].field].valid + base;
        uint8_t want = x->op == SMARTSSD__V1__UNARY_OP__IS_NULL ? 0 : 1;
        for (uint64_t r = 0; r < nrows; r++) res[r] = (valid[r] != 0) == want;
        return 2 * nact;
    }
    if (x->op == SMARTSSD__V1__BINARY_OP__AND || x->op == SMARTSSD__V1__BINARY_OP__OR) {
        uint8_t stop = x->op == SMARTSSD__V1__BINARY_OP__OR;   /* the value that decides alone */
        uint8_t *rb = malloc(nrows ? 2 * nrows : 1);
        if (!rb) return UINT64_MAX;
        uint8_t *actb = rb + nrows;
        uint64_t k = vec_eval(pl, x->a, vals, base, nrows, act, nact, res);
        if (k == UINT64_MAX) {
            free(rb);
            return k;
        }
        /* the second operand is evaluated where the first does not decide: res != stop */
        uint64_t r = 0, nb = 0;
        for (; r + 8 <= nrows; r += 8) {
            uint64_t w = load8(res + r);
            uint64_t ne = stop ? ~w & PQ_LO : (w | w >> 1) & PQ_LO;
            uint64_t o = load8(act + r) & ne;
            store8(actb + r, o);
            nb += count01(o);
        }
        for (; r < nrows; r++) {
            actb[r] = act[r] & (res[r] != stop);
            nb += actb[r];
        }
        uint64_t kb = vec_eval(pl, x->b, vals, base, nrows, actb, nb, rb);
        if (kb == UINT64_MAX) {
            free(rb);
            return kb;
        }
        for (r = 0; r + 8 <= nrows; r += 8) {
            uint64_t ta = load8(res + r), tb = load8(rb + r);
            uint64_t at = ta & PQ_LO, an = ta >> 1 & PQ_LO, bt = tb & PQ_LO, bn = tb >> 1 & PQ_LO, t, nl;
            if (stop) {          /* OR: TRUE if either is, else NULL if either is */
                t = at | bt;
                nl = (an | bn) & ~t & PQ_LO;
            } else {             /* AND: FALSE if either is, else TRUE if both are, else NULL */
                t = at & bt;
                nl = (at | an) & (bt | bn) & ~t & PQ_LO;
            }
            store8(res + r, t | nl << 1);
        }
        for (; r < nrows; r++) {
            uint8_t ta = res[r], tb = rb[r];
            res[r] = ta == stop || tb == stop ? stop : ta == V_NULL || tb == V_NULL ? V_NULL : (uint8_t)!stop;
        }
        free(rb);
        return k + kb + nact;
    }
    /* column <op> literal, either way round */
    const pnode *a = &pl->nodes[x->a], *b = &pl->nodes[x->b];
    int op = x->op;
    if (a->kind == PN_LITERAL) {
        const pnode *t = a;
        a = b;
        b = t;
        op = flip(op);
    }
    const csd_pq_values *v = &vals[pl->cols[a->col].field];
    const int64_t *vi = v->i ? v->i + base : NULL, lit = b->lit.i;
    const uint8_t *valid = v->valid + base;
    if (v->ix) {
        /* dictionary indices: the comparison once per entry, then a byte lookup per row */
        uint8_t tbl[256];
        for (uint64_t e = 0; e < v->dict_n; e++) {
            int64_t y = v->dict_i[e];
            switch (op) {
            case SMARTSSD__V1__BINARY_OP__EQ: tbl[e] = y == lit; break;
            case SMARTSSD__V1__BINARY_OP__NE: tbl[e] = y != lit; break;
            case SMARTSSD__V1__BINARY_OP__LT: tbl[e] = y < lit; break;
            case SMARTSSD__V1__BINARY_OP__LE: tbl[e] = y <= lit; break;
            case SMARTSSD__V1__BINARY_OP__GT: tbl[e] = y > lit; break;
            default: tbl[e] = y >= lit; break;
            }
        }
        const uint8_t *ix = v->ix + base;
        uint64_t r = 0;
        for (; r + 8 <= nrows; r += 8) {
            uint64_t c = 0;
            for (int j = 0; j < 8; j++) c |= (uint64_t)tbl[ix[r + j]] << (8 * j);
            store8(res + r, with_nulls(c, load8(valid + r)));
        }
        for (; r < nrows; r++) res[r] = valid[r] ? tbl[ix[r]] : V_NULL;
        return 3 * nact;
    }
    uint64_t r = 0;
    switch (op) {
#define CMP_LOOP(EXPR)                                                                                            \
    for (; r + 8 <= nrows; r += 8) {                                                                              \
        uint64_t c = 0;                                                                                           \
        for (int j = 0; j < 8; j++) {                                                                             \
            int64_t y = vi[r + j];                                                                                \
            c |= (uint64_t)(EXPR) << (8 * j);                                                                     \
        }                                                                                                         \
        store8(res + r, with_nulls(c, load8(valid + r)));                                                         \
    }                                                                                                             \
    for (; r < nrows; r++) {                                                                                      \
        int64_t y = vi[r];                                                                                        \
        res[r] = valid[r] ? (uint8_t)(EXPR) : V_NULL;                                                             \
    }                                                                                                             \
    break
    case SMARTSSD__V1__BINARY_OP__EQ: CMP_LOOP(y == lit);
    case SMARTSSD__V1__BINARY_OP__NE: CMP_LOOP(y != lit);
    case SMARTSSD__V1__BINARY_OP__LT: CMP_LOOP(y < lit);
    case SMARTSSD__V1__BINARY_OP__LE: CMP_LOOP(y <= lit);
    case SMARTSSD__V1__BINARY_OP__GT: CMP_LOOP(y > lit);
    default: CMP_LOOP(y >= lit);
#undef CMP_LOOP
    }
    return 3 * nact;
}

/* plan columns the outputs read, counted once each (the lazy top-N wants one besides the first key) */
static uint32_t n_out_cols(const plan *pl) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < pl->n_outs; i++) {
        uint32_t c = pl->nodes[pl->outs[i]].col, dup = 0;
        for (uint32_t k = 0; k < i && !dup; k++) dup = pl->nodes[pl->outs[k]].col == c;
        n += !dup;
    }
    return n;
}

/* The rows of a row group the direct top-N loop will read past its first sort key (a row while the
 * heap fills, a row whose first key does not sort after the heap's worst): need[r] = 1. Which rows
 * those are depends on the first key alone: the heap's worst first key is the limit-th best first key
 * seen so far, whichever rows tie on it. 1 with need filled; 0 when it cannot tell (a NULL first key
 * in the heap, or in the rows ascending or while the heap fills); -1 out of memory. */
static int need_rows(const plan *pl, const csd_pq_values *v0, uint64_t nrows, uint8_t *need) {
    const psort *o0 = &pl->order[0];
    int desc = o0->descending;
    /* ascending, a NULL first key sorts before every integer and enters the heap: not told here */
    for (uint64_t r = 0; r < nrows && !desc; r++)
        if (!v0->valid[r]) return 0;
    size_t cap = pl->limit < pl->n_rows + nrows ? pl->limit : pl->n_rows + nrows;
    int64_t *h = malloc((cap ? cap : 1) * sizeof *h);
    if (!h) return -1;
    size_t cnt = 0;
    /* h[0] the worst: the smallest first key when descending, else the largest */
#define PQ_WORSE(a, b) (desc ? (a) < (b) : (a) > (b))
#define PQ_SIFT_DOWN()                                                                                            \
    for (size_t i = 0;;) {                                                                                      \
        size_t l = 2 * i + 1, w = i;                                                                            \
        if (l < cnt && PQ_WORSE(h[l], h[w])) w = l;                                                             \
        if (l + 1 < cnt && PQ_WORSE(h[l + 1], h[w])) w = l + 1;                                                 \
        if (w == i) break;                                                                                      \
        int64_t t_ = h[i];                                                                                      \
        h[i] = h[w];                                                                                            \
        h[w] = t_;                                                                                              \
        i = w;                                                                                                  \
    }
#define PQ_PUSH(x)                                                                                                \
    do {                                                                                                          \
        size_t i = cnt++;                                                                                         \
        h[i] = (x);                                                                                               \
        while (i && PQ_WORSE(h[i], h[(i - 1) / 2])) {                                                             \
            int64_t t_ = h[i];                                                                                    \
            h[i] = h[(i - 1) / 2];                                                                                \
            h[(i - 1) / 2] = t_;                                                                                  \
            i = (i - 1) / 2;                                                                                      \
        }                                                                                                         \
    } while (0)
    for (size_t k = 0; k < pl->n_rows; k++) {
        const pv *b = &pl->rows[k]->v[o0->output];
        if (b->t != PT_INT) {
            free(h);
            return 0;
        }
        PQ_PUSH(b->i);
    }
    /* pages whose least (ascending) or greatest (descending) integer does not reach the full heap's
     * worst hold no row it would look at: passed over whole (the heap only gets better) */
    const csd_pq_pstat *ps = v0->pstat;
    uint64_t np = v0->pstat ? v0->n_pstat : 0, pi = 0;
    for (uint64_t r = 0; r < nrows; r++) {
        while (pi < np && ps[pi].first + ps[pi].n <= r) pi++;
        if (pi < np && ps[pi].first == r && cnt == pl->limit && cnt) {
            const csd_pq_pstat *q = &ps[pi];
            /* a page of NULLs alone: dropped after the worst descending (ascending does not get here) */
            int none = (q->known && (desc ? q->max < h[0] : q->min > h[0])) || (q->all_null && desc);
            if (none && q->n && r + q->n <= nrows) {
                memset(need + r, 0, q->n);
                r += q->n - 1;
                continue;
            }
        }
        if (!v0->valid[r]) {
            /* descending, a NULL first key sorts after every integer: once the heap is full of
             * integers the loop drops it after one comparison; while it fills, not told here */
            if (cnt < pl->limit) {
                free(h);
                return 0;
            }
            need[r] = 0;
            continue;
        }
        int64_t x = csd_pq_int(v0, r);
        if (cnt < pl->limit) {
            need[r] = 1;
            PQ_PUSH(x);
            continue;
        }
        int64_t t = h[0];
        need[r] = desc ? x >= t : x <= t;
        if (desc ? x > t : x < t) {
            h[0] = x;
            PQ_SIFT_DOWN();
        }
    }
#undef PQ_PUSH
#undef PQ_SIFT_DOWN
#undef PQ_WORSE
    free(h);
    return 1;
}

/* ------------------------------------------------------------------ the finish step
 * Every row group of the object, one after another: skipped when its statistics rule the filter out;
 * else the filter's columns decoded and the filter run on every row (rg_filter), the other columns
 * decoded only in the pages that hold a row that passed (rg_decode_rest: late materialization), and
 * the rows that passed handed on: straight from the decoded arrays when the plan is an ORDER BY over
 * plain columns (rg_direct), else through the row path (rg_rows). */

/* What the finish step keeps across row groups. */
typedef struct pq_fin {
    plan *pl;
    plan_pq *q;
    csd_pq_file f;
    const uint8_t *file;
    size_t len;
    const uint8_t *use;       /* per plan column: read at all */
    uint8_t *sel;             /* per row of the row group: passed the filter */
    uint64_t max_rows;
    uint8_t *ones;            /* every row: the column-at-a-time filter's rows to evaluate */
    uint8_t *need;            /* lazy top-N: rows whose other outputs the heap loop reads */
    int vec;                  /* the filter runs a column at a time (vec_eval) */
    int direct;               /* ORDER BY over plain columns: rows straight from the arrays */
    int int_keys;             /* ... every sort key an integer column */
    int lazy;                 /* ... and the first key decoded before the other outputs */
    csd_pq_values *vals;      /* per leaf: its decoded values in this row group */
    uint8_t *decoded;         /* per leaf: vals holds it */
    uint32_t *fcols, *ocols;  /* used plan columns the filter reads, and the rest */
    uint32_t n_fcols, n_ocols;
} pq_fin;

/* One row group's run, with what it charges. */
typedef struct pq_rg_run {
    uint32_t g;
    const csd_pq_rg *rg;
    uint64_t cycles, dram;          /* decoding */
    uint64_t row_cycles, row_dram;  /* the filter and the rows */
    uint64_t passed;                /* rows that passed the filter */
    int need_ok;                    /* need[] holds the rows the heap loop reads past the first key */
} pq_rg_run;

/* The object the finish step reads: the one the plan's footer describes (checked here, its pages the
 * footer ruled out are zeros), or opened from its own footer with the plan's columns checked against
 * it (*own, *used then to be freed). 0 or a negative errno after csd_io_fail. */
static int fin_open(pq_fin *x, csd_pq_file *own, uint8_t **used) {
    plan *pl = x->pl;
    const uint8_t *file = x->file;
    size_t len = x->len;
    char err[256];
    if (x->q && x->q->prepared) {
        size_t fl = pl->pq_footer_len;
        if (len != pl->pq_size || memcmp(file + len - 4, "PAR1", 4) ||
            memcmp(file + len - 8 - fl, pl->pq_footer, fl) ||
            ((uint32_t)file[len - 8] | (uint32_t)file[len - 7] << 8 | (uint32_t)file[len - 6] << 16 |
             (uint32_t)file[len - 5] << 24) != fl) {
            csd_io_fail(pl->io, "plan: the object (%zu bytes) does not end with the footer the plan was built from "
                        "(%zu bytes of a %llu-byte object): it changed after the host read it", len, fl,
                        (unsigned long long)pl->pq_size);
            return -EINVAL;
        }
        x->f = x->q->file;
        x->use = x->q->used;
        return 0;
    }
    if (csd_pq_open(own, file, len, err, sizeof err)) {
        csd_io_fail(pl->io, "plan: %s", err);
        return -EINVAL;
    }
    *used = used_columns(pl);
    if (!*used) {
        csd_io_fail(pl->io, "plan: out of memory reading the Parquet object");
        csd_pq_close(own);
        return -ENOMEM;
    }
    int rc = check_columns(pl, own, *used, err, sizeof err);
    if (rc) {
        csd_io_fail(pl->io, "%s", err);
        free(*used);
        *used = NULL;
        csd_pq_close(own);
        return rc;
    }
    x->f = *own;
    x->use = *used;
    return 0;
}

/* The arrays and the choices the row groups share. 0 or -ENOMEM after csd_io_fail. */
static int fin_setup(pq_fin *x) {
    plan *pl = x->pl;
    const csd_pq_file *f = &x->f;
    x->max_rows = 1;
    x->vals = calloc(f->n_leaves ? f->n_leaves : 1, sizeof *x->vals);
    x->decoded = calloc(f->n_leaves ? f->n_leaves : 1, 1);
    if (!x->vals || !x->decoded) {
        csd_io_fail(pl->io, "plan: out of memory reading the Parquet object");
        return -ENOMEM;
    }
    x->fcols = malloc((pl->n_cols ? pl->n_cols : 1) * sizeof *x->fcols);
    x->ocols = malloc((pl->n_cols ? pl->n_cols : 1) * sizeof *x->ocols);
    uint8_t *infilter = calloc(pl->n_cols ? pl->n_cols : 1, 1);
    for (uint32_t g = 0; g < f->n_rgs; g++)
        if (f->rgs[g].num_rows > x->max_rows) x->max_rows = f->rgs[g].num_rows;
    x->sel = csd_pq_big_alloc(pl->pool, x->max_rows, 1);   /* written whole for every row group */
    x->vec = pl->filter >= 0 && vec_ok(pl, pl->filter);
    x->direct = !pl->aggregating && pl->n_order;
    for (uint32_t i = 0; i < pl->n_outs && x->direct; i++) x->direct = pl->nodes[pl->outs[i]].kind == PN_COLUMN;
    /* every sort key an integer column: rows the full heap rejects are told apart without the evaluator */
    x->int_keys = x->direct;
    for (uint32_t k = 0; k < pl->n_order && x->int_keys; k++)
        x->int_keys = pl->order[k].output < pl->n_outs &&
                      pl->cols[pl->nodes[pl->outs[pl->order[k].output]].col].type == PT_INT;
    /* the lazy top-N: the first sort key is a column decoded in phase 1 with others beside it */
    x->lazy = x->int_keys && pl->filter < 0 && pl->limit && n_out_cols(pl) > 1;
    x->need = x->lazy ? malloc(x->max_rows) : NULL;
    if (x->lazy && !x->need) x->lazy = 0;   /* decoded whole instead */
    x->ones = x->vec ? malloc(PQ_BLOCK) : NULL;
    if (x->ones) memset(x->ones, 1, PQ_BLOCK);
    if (!x->fcols || !x->ocols || !infilter || !x->sel || (x->vec && !x->ones)) {
        free(infilter);
        csd_io_fail(pl->io, "plan: out of memory reading the Parquet object");
        return -ENOMEM;
    }
    mark_columns(pl, pl->filter, infilter);
    for (uint32_t c = 0; c < pl->n_cols; c++) {
        if (!x->use[c]) continue;
        if (infilter[c]) x->fcols[x->n_fcols++] = c;
        else x->ocols[x->n_ocols++] = c;
    }
    free(infilter);
    return 0;
}

/* The filter a column at a time, a block of rows at once: the operands' scratch stays small and in
 * cache (every count is a sum over rows, so blocks add up to the whole row group's). */
static int filter_vec(pq_fin *x, pq_rg_run *g) {
    plan *pl = x->pl;
    const uint64_t rows = g->rg->num_rows;
    uint64_t nodes = 0;
    for (uint64_t b0 = 0; b0 < rows; b0 += PQ_BLOCK) {
        uint64_t nb = rows - b0 < PQ_BLOCK ? rows - b0 : PQ_BLOCK;
        uint8_t *sb = x->sel + b0;
        uint64_t k = vec_eval(pl, pl->filter, x->vals, b0, nb, x->ones, nb, sb);
        if (k == UINT64_MAX) {
            csd_io_fail(pl->io, "plan: out of memory evaluating the filter");
            return -ENOMEM;
        }
        nodes += k;
        /* V_TRUE is bit 0 alone */
        uint64_t r = 0;
        for (; r + 8 <= nb; r += 8) {
            uint64_t w = load8(sb + r) & PQ_LO;
            store8(sb + r, w);
            g->passed += count01(w);
        }
        for (; r < nb; r++) {
            sb[r] = sb[r] == V_TRUE;
            g->passed += sb[r];
        }
    }
    g->row_cycles += rows * CSD_TK_CYCLES_PER_RECORD + nodes * CSD_TK_CYCLES_PER_NODE;
    g->row_dram += rows * x->n_fcols;
    return 0;
}

/* The filter a row at a time, through the evaluator. */
static int filter_rows(pq_fin *x, pq_rg_run *g) {
    plan *pl = x->pl;
    int rc = 0;
    for (uint64_t r = 0; r < g->rg->num_rows && !rc; r++) {
        pl->gen++;
        pl->nodes_evaluated = 0;
        for (uint32_t k = 0; k < x->n_fcols; k++)
            load_value(pl, x->fcols[k], &x->vals[pl->cols[x->fcols[k]].field], r);
        pv fv;
        rc = csd_plan_eval(pl, pl->filter, &fv);
        x->sel[r] = !rc && fv.t == PT_BOOL && fv.b;
        g->passed += x->sel[r];
        g->row_cycles += CSD_TK_CYCLES_PER_RECORD + pl->nodes_evaluated * CSD_TK_CYCLES_PER_NODE +
                         pl->compares * CSD_TK_CYCLES_PER_COMPARE;
        g->row_dram += x->n_fcols;   /* one DRAM access per value loaded, as the record paths count */
        pl->compares = 0;
    }
    return rc;
}

/* Phase 1: the filter's columns decoded and the filter run on every row (sel, passed). */
static int rg_filter(pq_fin *x, pq_rg_run *g) {
    plan *pl = x->pl;
    int rc = decode_columns(pl, &x->f, x->file, x->len, g->g, x->fcols, x->n_fcols, NULL, x->vals, x->decoded,
                            &g->cycles, &g->dram, 0, 0);
    if (rc) return rc;
    if (pl->filter < 0) {
        memset(x->sel, 1, g->rg->num_rows);
        g->passed = g->rg->num_rows;
        return 0;
    }
    return x->vec ? filter_vec(x, g) : filter_rows(x, g);
}

/* Phase 2: the other columns, only in the pages of rows that passed; under the lazy top-N (no
 * filter) the first sort key whole, then the other outputs only in the pages of rows the heap will
 * look at (need_rows), charged as decoded whole. */
static int rg_decode_rest(pq_fin *x, pq_rg_run *g) {
    plan *pl = x->pl;
    if (!g->passed) return 0;
    if (!x->lazy)
        return decode_columns(pl, &x->f, x->file, x->len, g->g, x->ocols, x->n_ocols, pl->filter >= 0 ? x->sel : NULL,
                              x->vals, x->decoded, &g->cycles, &g->dram, 0, 0);
    uint32_t kc = pl->nodes[pl->outs[pl->order[0].output]].col;
    int rc = decode_columns(pl, &x->f, x->file, x->len, g->g, &kc, 1, NULL, x->vals, x->decoded, &g->cycles, &g->dram,
                            0, 1);
    if (rc) return rc;
    int part = need_rows(pl, &x->vals[pl->cols[kc].field], g->rg->num_rows, x->need);
    if (part < 0) {
        csd_io_fail(pl->io, "plan: out of memory reading the Parquet object");
        return -ENOMEM;
    }
    g->need_ok = part == 1;
    return decode_columns(pl, &x->f, x->file, x->len, g->g, x->ocols, x->n_ocols, part ? x->need : NULL, x->vals,
                          x->decoded, &g->cycles, &g->dram, 1, 0);
}

/* The heap is full and its worst row's first key is the integer t: the rows from r on that the first
 * key alone puts after the worst are dropped, each counted as the row loop counts a dropped row. The
 * first row not dropped (the row group's rows: none). */
static uint64_t drop_after_worst(pq_fin *x, pq_rg_run *g, uint64_t r, int64_t t, uint64_t per_row) {
    plan *pl = x->pl;
    const uint64_t rows = g->rg->num_rows;
    const psort *o0 = &pl->order[0];
    const csd_pq_values *v0 = &x->vals[pl->cols[pl->nodes[pl->outs[o0->output]].col].field];
    uint64_t dropped = 0, e = r;
    if (g->need_ok) {
        /* need_rows marked exactly the rows this loop does not drop (every row selected and valid
         * there): skip to the next, 8 rows a word */
        while (e < rows && !x->need[e] && (e & 7)) e++;
        while (e + 8 <= rows && !load8(x->need + e)) e += 8;
        while (e < rows && !x->need[e]) e++;
        dropped = e - r;
    }
    for (; !g->need_ok && e < rows; e++) {
        if (!x->sel[e]) continue;
        if (!v0->valid[e]) {
            /* NULL sorts last descending (csd_plan_cmp, row_cmp): after the worst, one comparison, as
             * an integer after it; first ascending */
            if (!o0->descending) break;
            dropped++;
            continue;
        }
        int64_t v = csd_pq_int(v0, e);
        if (o0->descending ? v >= t : v <= t) break;
        dropped++;
    }
    if (dropped) {
        pl->seq += dropped;
        g->row_dram += dropped * x->n_ocols;
        g->row_cycles += dropped * (per_row + CSD_TK_CYCLES_PER_COMPARE);
    }
    return e;
}

/* Row r does not sort before the full heap's worst row, on integer keys known in both (csd_plan_buffer_row's
 * row_cmp, done here on the integers; ties go to the earlier row: that one). */
static int heap_rejects(const pq_fin *x, uint64_t r) {
    const plan *pl = x->pl;
    const pv *top = pl->rows[0]->v;
    int c = 0, known = 1;
    for (uint32_t k = 0; k < pl->n_order && !c && known; k++) {
        const psort *o = &pl->order[k];
        const csd_pq_values *v = &x->vals[pl->cols[pl->nodes[pl->outs[o->output]].col].field];
        const pv *b = &top[o->output];
        known = v->valid[r] && b->t == PT_INT;
        int64_t val = known ? csd_pq_int(v, r) : 0;
        if (known) c = val < b->i ? -1 : val > b->i;
        if (o->descending) c = -c;
    }
    return known && c >= 0;
}

/* ORDER BY over plain columns: each output is its column's value (one node evaluated, as
 * csd_plan_eval counts a column), straight from the decoded arrays into the row buffer. */
static int rg_direct(pq_fin *x, pq_rg_run *g) {
    plan *pl = x->pl;
    const uint64_t rows = g->rg->num_rows;
    const uint64_t per_row = (uint64_t)pl->n_outs * CSD_TK_CYCLES_PER_NODE +
                             (pl->filter < 0 ? CSD_TK_CYCLES_PER_RECORD : 0);
    int rc = 0;
    for (uint64_t r = 0; r < rows && !rc; r++) {
        if (!x->sel[r]) continue;
        if (x->int_keys && pl->limit && pl->n_rows >= pl->limit) {
            const pv *b0 = &pl->rows[0]->v[pl->order[0].output];
            if (b0->t == PT_INT) {
                /* the worst stays until a row gets in: rows its first key alone puts after it go in
                 * a tight loop */
                r = drop_after_worst(x, g, r, b0->i, per_row);
                if (r >= rows) break;
            }
            if (heap_rejects(x, r)) {
                pl->seq++;
                g->row_dram += x->n_ocols;
                g->row_cycles += per_row + CSD_TK_CYCLES_PER_COMPARE;
                continue;
            }
        }
        for (uint32_t i = 0; i < pl->n_outs; i++) {
            uint32_t c = pl->nodes[pl->outs[i]].col;
            value_into(&pl->scratch[i], pl->cols[c].type, &x->vals[pl->cols[c].field], r);
        }
        g->row_dram += x->n_ocols;
        rc = csd_plan_buffer_row(pl);
        g->row_cycles += per_row + pl->compares * CSD_TK_CYCLES_PER_COMPARE;
        pl->compares = 0;
    }
    g->passed = 0;   /* handed on */
    return rc;
}

/* The rows that passed through the row path (csd_plan_row_passed: project, group, buffer or emit). */
static int rg_rows(pq_fin *x, pq_rg_run *g) {
    plan *pl = x->pl;
    int rc = 0;
    for (uint64_t r = 0; r < g->rg->num_rows && !rc && g->passed; r++) {
        if (!x->sel[r]) continue;
        pl->gen++;
        pl->nodes_evaluated = 0;
        for (uint32_t k = 0; k < x->n_fcols; k++)
            load_value(pl, x->fcols[k], &x->vals[pl->cols[x->fcols[k]].field], r);
        for (uint32_t k = 0; k < x->n_ocols; k++)
            load_value(pl, x->ocols[k], &x->vals[pl->cols[x->ocols[k]].field], r);
        g->row_dram += x->n_ocols;
        rc = csd_plan_row_passed(pl);
        g->row_cycles += pl->nodes_evaluated * CSD_TK_CYCLES_PER_NODE + pl->compares * CSD_TK_CYCLES_PER_COMPARE +
                         (pl->filter < 0 ? CSD_TK_CYCLES_PER_RECORD : 0);
        pl->compares = 0;
    }
    return rc;
}

/* Row group g: ruled out, or filtered, decoded and handed on; its costs charged. */
static int fin_row_group(pq_fin *x, uint32_t g) {
    plan *pl = x->pl;
    plan_pq *q = x->q;
    const csd_pq_rg *rg = &x->f.rgs[g];
    if (q->prepared && q->other && q->other[g]) return 0;
    q->rg_total++;
    pl->nodes_evaluated = pl->dram = 0;
    if (q->prepared ? q->skip[g] : pl->filter >= 0 && !may_match(pl, &x->f, rg, pl->filter)) {
        q->rg_skipped++;
        return 0;
    }
    pq_rg_run run = { .g = g, .rg = rg };
    int rc = rg_filter(x, &run);
    if (!rc) rc = rg_decode_rest(x, &run);
    csd_io_charge(pl->io, run.cycles, run.dram);
    if (!rc && x->direct && run.passed) rc = rg_direct(x, &run);
    if (!rc) rc = rg_rows(x, &run);
    csd_io_charge(pl->io, run.row_cycles, run.row_dram);
    for (uint32_t k = 0; k < x->f.n_leaves; k++) {
        if (x->decoded[k]) csd_pq_values_free(&x->vals[k]);
        x->decoded[k] = 0;
    }
    return rc;
}

int csd_plan_parquet_finish(plan *pl) {
    static const uint8_t none[1];
    pq_fin x = { .pl = pl, .q = pl->pq, .file = pl->pq ? pl->pq->buf : none, .len = pl->pq ? pl->pq->len : 0 };
    csd_pq_file own = {0};
    uint8_t *used = NULL;
    int rc = fin_open(&x, &own, &used);
    if (rc) return rc;
    rc = fin_setup(&x);
    if (!rc) x.q->rg_total = 0;
    for (uint32_t g = 0; g < x.f.n_rgs && !rc; g++) rc = fin_row_group(&x, g);
    if (rc == CSD_STOP) rc = 0;
    free(x.fcols);
    free(x.ocols);
    free(x.ones);
    free(x.need);
    csd_pq_big_free(pl->pool, x.sel, x.max_rows, 1);
    if (x.vals)
        for (uint32_t k = 0; k < x.f.n_leaves; k++) csd_pq_values_free(&x.vals[k]);
    free(x.vals);
    free(x.decoded);
    free(used);
    csd_pq_close(&own);
    return rc;
}
