/* The plan interpreter's internal model: a smartssd.v1.Plan compiled into flat arrays (columns,
 * expression nodes) that evaluation walks with every index and byte range checked at compile time. */
#ifndef CSD_QUERY_PLAN_INT_H
#define CSD_QUERY_PLAN_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "smartssd/tasklet.h"
#include "smartssd/v1/device.pb-c.h"

#define PLAN_MAX_COLUMNS 256
#define PLAN_MAX_DEPTH 64
#define PLAN_MAX_NODES 65536
#define PLAN_MAX_ENTRY_BYTES (1u << 20)
#define PLAN_MAX_STATE_BYTES ((size_t)512 << 20)   /* default cap of groups + buffered rows */

/* value types (also static types of expressions); PT_NULL is the type of a NULL literal */
enum { PT_NULL = 0, PT_INT = 1, PT_DOUBLE = 2, PT_STRING = 3, PT_BOOL = 4 };

typedef struct pv {
    uint8_t t;              /* PT_*; PT_NULL = SQL NULL */
    union {
        int64_t i;
        double d;
        int b;
        struct { const uint8_t *p; size_t n; } s;
    };
} pv;

typedef struct pcol {
    char *name;
    uint8_t type;            /* PT_INT .. PT_BOOL */
    uint32_t offset, width;  /* fixed */
    int big_endian, is_signed;
    uint32_t shift;
    uint64_t mask;
    int has_null_raw;
    uint64_t null_raw;
    uint32_t field;          /* text */
} pcol;

enum { PN_COLUMN, PN_LITERAL, PN_BINARY, PN_UNARY, PN_IN };

typedef struct pnode {
    uint8_t kind, op, type;  /* op: BinaryOp / UnaryOp numbers of the proto */
    uint32_t col;            /* PN_COLUMN */
    int32_t a, b;            /* children (node indexes) */
    uint32_t in_first, in_n; /* PN_IN: values in plan->in_vals */
    pv lit;                  /* PN_LITERAL (strings point into plan->lits) */
} pnode;

typedef struct pagg {
    uint8_t fn;              /* AggFn */
    int32_t arg;             /* node, -1 for COUNT_ALL */
    uint8_t type;            /* output type */
} pagg;

typedef struct psort {
    uint32_t output;
    int descending;
} psort;

/* A buffered output row: values, strings copied behind them. */
typedef struct prow {
    uint64_t seq;            /* arrival order: the last sort key, so sorting is deterministic */
    size_t bytes;            /* allocation size, for the memory cap */
    pv v[];
} prow;

typedef struct pagg_state {
    int64_t count;
    int has;                 /* SUM/MIN/MAX saw a non-null value */
    pv val;                  /* SUM (PT_INT/PT_DOUBLE), MIN/MAX current value */
    uint8_t *buf;            /* MIN/MAX string storage */
    size_t cap;
} pagg_state;

typedef struct pgroup {
    uint64_t hash;
    pv *key;                 /* n_group values, strings copied */
    pagg_state *aggs;
} pgroup;

/* A line of a page being split from the page's delimiter bits: where the next field starts
 * (split_pos, from the line's start), the delimiter word being walked (db) and its unused bits (dm). */
typedef struct pline {
    uint32_t start, len;     /* in the page; len without a trailing '\r' */
    uint32_t n_split, split_pos, db;
    int done;                /* the whole line is split */
    uint64_t dm;
} pline;

typedef struct plan {
    int text;                /* DelimitedText input, else FixedRecords */
    uint32_t entry_bytes;
    uint8_t delim;
    int skip_header;         /* text: the object's first line is a header */
    int quoting, has_escape; /* text: quote / escape bytes are set */
    uint8_t quote, escape;

    pcol *cols;
    uint32_t n_cols;
    uint32_t max_field;      /* text: highest field index any column reads */

    pnode *nodes;
    uint32_t n_nodes, cap_nodes;
    pv *in_vals;
    uint32_t n_in, cap_in;
    uint8_t *lits;           /* literal string bytes */
    size_t lits_len, lits_cap;

    int32_t filter;          /* node or -1 */
    int32_t *outs;           /* projection nodes (no aggregates); -1 entries = column i itself */
    uint32_t n_outs;
    int32_t *group;          /* group_by nodes */
    uint32_t n_group;
    pagg *aggs;
    uint32_t n_aggs;
    int aggregating;         /* group_by or aggregates present */
    psort *order;
    uint32_t n_order;
    uint64_t limit;
    uint32_t n_output;       /* columns of an output row */

    /* per-record state */
    const uint8_t *rec;
    size_t rec_len;
    uint64_t gen;            /* record counter: column cache validity */
    uint64_t *col_gen;
    pv *col_val;
    uint32_t *fstart, *fend; /* text field bounds of the current line */
    uint32_t n_fields_split; /* fields split so far (0 = line not split yet) */
    int fields_done;         /* the whole line is split */
    size_t split_pos;        /* where the next field starts in rec */
    uint64_t dmask;          /* delimiters of rec[dbase, dbase + 64) as bits (unquoted text) */
    size_t dbase;            /* SIZE_MAX: no mask for this line yet */
    uint8_t *funq;           /* per field: 1 = its bounds index unq (an unescaped copy), 0 = rec */
    uint8_t *unq;            /* this line's unescaped quoted fields; grows to the longest line */
    size_t unq_len, unq_cap;
    uint64_t dram, nodes_evaluated;
    uint64_t *pg_masks;      /* a page of lines: newline, delimiter and quote bits per 64 bytes */
    size_t pg_cap;           /* uint64_t words allocated at pg_masks */
    const uint64_t *pg_dl;   /* while a page is walked: its delimiter bits, else NULL */
    struct pline *pg_line;   /* ... and the current line's split state there */
    struct pbatch *batch;    /* a page evaluated by column (plan_eval.c), NULL until used */
    /* asked once at init (x86-64; 0 elsewhere), as prepared pages read them from other threads */
    int avx2;                /* the CPU has AVX2, used (CSD_PLAN_SIMD not sse2): 1 yes, -1 no */
    int avx512;              /* ... and AVX-512 BW, used (CSD_PLAN_SIMD unset): 1 yes, -1 no */
    int vbmi2;               /* ... and AVX-512 VBMI2 for the delimiters' offsets: 1 yes, -1 no */
    uint32_t host_threads;   /* the device's host_threads: threads a Parquet row group may decode on */
    struct csd_bufpool *pool;  /* the device's large-buffer pool (csd_exec_host.pool), may be NULL */

    /* run state */
    csd_tasklet_io *io;
    int failed;
    int fail_rc;             /* the errno of the first failure: -EDOM, -ENOSPC (state cap), -ENOMEM */
    uint64_t emitted;        /* rows emitted directly (no aggregates, no order) */
    pgroup *groups;
    uint32_t last_group;     /* 1 + the group the previous record updated (0: none): keys repeat */
    size_t n_groups, cap_groups;
    uint32_t *htab;          /* open addressing: group index + 1, 0 = empty */
    size_t hcap;
    prow **rows;             /* buffered rows (order_by without aggregates) */
    size_t n_rows, cap_rows;
    uint64_t seq;
    size_t mem;              /* bytes of groups and buffered rows */
    size_t max_mem;          /* static param max_state_bytes */
    pv *scratch;             /* n_output values of the row being built */
    uint64_t compares;
    uint64_t hashes;         /* group lookups of csd_plan_group_update_values not charged yet */

    /* Parquet input (plan_parquet.c): the object's bytes gathered, decoded at finish */
    int parquet;
    uint8_t *pq_footer;      /* ParquetObject.footer (a copy), NULL when the plan has none */
    size_t pq_footer_len;
    uint64_t pq_size;        /* ParquetObject.object_size */
    uint32_t *pq_rgs;        /* ParquetObject.row_groups (a copy), NULL = every row group */
    size_t pq_n_rgs;
    struct plan_pq *pq;
} plan;

/* Bit i set when s[i] == d, for the avail (<= 64) bytes at s, reading no byte outside them (a line
 * may end at its buffer's end): 16-byte compares in place; a last partial block is the 16 bytes
 * ending at s + avail, shifted; only a line shorter than 16 bytes is copied. */
static inline uint64_t csd_plan_byte_mask(const uint8_t *s, size_t avail, uint8_t d) {
#ifdef __SSE2__
    const __m128i dv = _mm_set1_epi8((char)d);
#define PLAN_MASK16(p) ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p)), dv)))
    if (avail >= 64)
        return PLAN_MASK16(s) | PLAN_MASK16(s + 16) << 16 | PLAN_MASK16(s + 32) << 32 | PLAN_MASK16(s + 48) << 48;
    if (avail < 16) {
        uint8_t t[16] = { 0 };
        memcpy(t, s, avail);
        return PLAN_MASK16(t) & ((1ull << avail) - 1);
    }
    uint64_t m = 0;
    size_t k = 0;
    for (; k + 16 <= avail; k += 16) m |= PLAN_MASK16(s + k) << k;
    if (k < avail) m |= PLAN_MASK16(s + avail - 16) >> (16 - (avail - k)) << k;
#undef PLAN_MASK16
    return m;
#else
    uint64_t m = 0;
    for (size_t k = 0; k < avail; k++) m |= (uint64_t)(s[k] == d) << k;
    return m;
#endif
}

/* plan_compile.c */
int csd_plan_compile(plan *pl, const uint8_t *bytes, size_t len, char *err, size_t errlen);
void csd_plan_free(plan *pl);
/* A plan that only filters rows handed to it as values (a tasklet's output rows): n columns of the
 * given names and PT_* types, and the filter expression e over them. 0 or -EINVAL with err. */
int csd_plan_compile_row_filter(plan *pl, const char *const *names, const uint8_t *types, uint32_t n,
                                const Smartssd__V1__Expr *e, char *err, size_t errlen);
const char *csd_plan_type_name(int t);

/* A page evaluated by column (plan_eval.c "a page by column"); plan.c walks its lines. */
#define PB_MAX_LEVELS 160   /* expression depth the batch takes; deeper ones go line by line */

typedef struct pblevel {
    pv *a, *b;               /* a node's left and right children's values, by line */
    uint32_t *sel;           /* lines the right child is evaluated on */
} pblevel;

typedef struct pbline {
    uint32_t start, len;     /* in the page; len without a trailing '\r' */
    uint32_t d0, nd;         /* its delimiters: dpos[d0 .. d0 + nd), so nd + 1 fields */
} pbline;

typedef struct pbatch {
    const uint8_t *page, *page_end;
    size_t n_lines, cap_lines;
    pbline *lines;
    uint32_t *dpos;          /* every delimiter's offset in the page, in order */
    uint32_t *wdel;          /* delimiters before each 64-byte word of the page */
    uint32_t *npos;          /* every newline's offset */
    size_t cap_bytes;        /* page bytes dpos and wdel hold room for */
    uint32_t *nodes, *dram;  /* per line */
    pv *root;                /* the filter's value per line */
    uint32_t *sel;           /* lines evaluated past the filter */
    size_t n_sel;
    uint32_t n_ev;           /* group keys + aggregate arguments, or outputs */
    int32_t *ev_node;
    pv **ev;                 /* expression k's value per line */
    pblevel lv[PB_MAX_LEVELS];
    pv **colv;               /* per column: its value per line, decoded when cold says so */
    uint8_t **cold;
    uint32_t *used;          /* columns decoded on this page */
    uint32_t *refs;          /* per column: the nodes of the filter, keys, arguments, outputs naming it */
    uint32_t n_used;
    int ok;                  /* allocations at init succeeded */
    /* a filter that is a chain of ANDs (left operand the chain so far, as Spark's pushed filters
     * are joined) over simple conjuncts, evaluated conjunct by conjunct (plan_eval.c "conjuncts") */
    uint32_t n_cj;           /* 0: the filter is evaluated by node */
    uint32_t cj_ands;        /* the chain's AND nodes, each evaluated on every line */
    struct pbconj *cj;
    uint8_t *cj_null;        /* per line: some conjunct evaluated on it was NULL */
    struct pbhead *head;     /* the chain's first conjuncts evaluated over all lines at once (plan_eval.c "head"), or NULL */
    uint8_t *cj_cls;         /* per head column and line: its class byte (cap_lines a column) */
    /* top-N: outputs that are a column named nowhere else and no sort key, decoded only for the
     * lines that enter the buffer (charged on every line as if decoded) */
    uint8_t *lazy;           /* per expression of ev: 1 lazy */
    uint32_t n_lazy;
} pbatch;

/* plan_eval.c: a page of lines without quote bytes (delimiter bits dl; line ends from the newline
 * bits nl) evaluated by expression node: the filter over every line, then the group keys and
 * aggregate arguments (or the projection) over the lines it passed, each line's node and DRAM
 * counts kept to be charged when the line is reached. 0, or < 0 when the page must go line by
 * line (an expression that fails on some line, or no memory): nothing was charged or changed. */
int csd_plan_batch_page(plan *pl, const uint8_t *p, size_t n, const uint64_t *nl, const uint64_t *dl);
void csd_plan_batch_free(plan *pl);
/* The same into a batch of one's own: reads only the compiled plan, never its run state, so any
 * thread may prepare a page while another runs the plan (plan.c's prepared pages). */
pbatch *csd_plan_batch_new(const plan *pl);
void csd_plan_batch_destroy(const plan *pl, pbatch *bt);
int csd_plan_batch_page_in(const plan *pl, pbatch *bt, const uint8_t *p, size_t n, const uint64_t *nl,
                           const uint64_t *dl);

/* The lazy outputs (pbatch.lazy) of line i decoded into their ev arrays, while the page's bytes
 * are still those the batch was prepared from. */
void csd_plan_batch_fill(const plan *pl, const pbatch *bt, size_t i);
/* plan_eval.c: evaluate node n on the current record; < 0 after csd_io_fail (division by zero) */
int csd_plan_eval(plan *pl, int32_t n, pv *out);
/* value order used by MIN/MAX, ORDER BY and comparisons: NULL first, INT/DOUBLE promote */
int csd_plan_cmp(const pv *a, const pv *b);
int csd_plan_equal_group(const pv *a, const pv *b);
uint64_t csd_plan_hash(const pv *v, size_t n);
/* -ENOMEM after csd_io_fail when the quoted-field buffer cannot grow to the line */
int csd_plan_begin_record(plan *pl, const uint8_t *rec, size_t len);
/* The filter of a row-filter plan on one row of n_cols values: 1 keep (TRUE), 0 drop (FALSE or NULL),
 * or < 0 after csd_io_fail. */
int csd_plan_filter_row(plan *pl, const pv *vals);

/* plan_parquet.c: a ParquetObject plan gathers the whole object (BYTES framing), then at finish reads
 * the footer, skips row groups by their statistics and evaluates the plan on decoded columns. */
/* After compiling: with the plan's footer, parse it and decide which row groups and chunks will be
 * read (0 or -EINVAL with err); csd_plan_parquet_need_page then answers for each page. */
int csd_plan_parquet_prepare(plan *pl, char *err, size_t errlen);
int csd_plan_parquet_need_page(const plan *pl, uint64_t page_index, uint32_t page_bytes);
int csd_plan_parquet_bytes(plan *pl, const uint8_t *p, size_t len, uint64_t off);
int csd_plan_parquet_finish(plan *pl);
void csd_plan_parquet_free(plan *pl);

/* plan_state.c: groups and buffered rows */
int csd_plan_group_update(plan *pl);
/* the group update of the lines sel[0 .. ns) of a page evaluated by column, in order, with the
 * n_group key values at ev[k][line] and aggregate a's argument at ev[n_group + a][line];
 * *done = the lines updated, a failing one included; each line's hash lookup is counted in
 * pl->hashes for the caller to charge */
int csd_plan_group_update_sel(plan *pl, pv *const *ev, const uint32_t *sel, size_t ns, size_t *done);
int csd_plan_buffer_row(plan *pl);
/* pl->scratch holds a row's outputs: buffered for ORDER BY, else emitted (CSD_STOP at the limit) */
int csd_plan_output_row(plan *pl);
/* the same with the row's outputs at ev[k][i] (a page evaluated by column) */
int csd_plan_output_line(plan *pl, pv *const *ev, size_t i);
/* top-N with a full buffer: 1 when line i sorts after the worst row and is dropped (its compare
 * counted), from its sort keys alone; 0 when it must go on to csd_plan_output_line */
int csd_plan_topn_drops(plan *pl, pv *const *ev, size_t i);
/* a row whose filter passed: its group updated, or its outputs evaluated and output */
int csd_plan_row_passed(plan *pl);
int csd_plan_finish_groups(plan *pl);
int csd_plan_finish_rows(plan *pl);
int csd_plan_emit(plan *pl, const pv *v, size_t n);
void csd_plan_state_free(plan *pl);

#include "util/pb_walk.h"

#endif
