/* libFuzzer target for the plan over Parquet objects: the input is the object. A fixed plan reads all
 * six columns of the seed files' schema (tests/data/parquet) with a filter the row-group statistics
 * can prune, a group-by and aggregates, through an execution over small pages; a second pass reads
 * every leaf of the footer with the decoder directly. Whatever the bytes, nothing may crash, leak or
 * read out of bounds, and every refusal carries a message. Seeds: the Parquet files Spark wrote. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec.h"
#include "smartssd/tasklet.h"
#include "smartssd/v1/device.pb-c.h"
#include "query/parquet.h"

static uint8_t *plan_bytes;
static size_t plan_len;

static Smartssd__V1__Expr *col(uint32_t i, Smartssd__V1__Expr *e) {
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    e->column = i;
    return e;
}

static void build_plan(void) {
    static const char *const names[] = {"id", "i", "d", "name", "flag", "f"};
    static const Smartssd__V1__ColumnType types[] = {1, 1, 2, 3, 4, 2};
    Smartssd__V1__Column cols[6], *cp[6];
    for (int k = 0; k < 6; k++) {
        smartssd__v1__column__init(&cols[k]);
        cols[k].name = (char *)names[k];
        cols[k].type = types[k];
        cols[k].field = (uint32_t)k;
        cp[k] = &cols[k];
    }
    Smartssd__V1__ParquetObject pq = SMARTSSD__V1__PARQUET_OBJECT__INIT;
    Smartssd__V1__Plan p = SMARTSSD__V1__PLAN__INIT;
    p.format_case = SMARTSSD__V1__PLAN__FORMAT_PARQUET;
    p.parquet = &pq;
    p.n_columns = 6;
    p.columns = cp;
    /* filter: id > 0 OR name >= "m" */
    Smartssd__V1__Expr e_id, e_name, lit0, lits, gt, ge, or_;
    Smartssd__V1__Literal l0 = SMARTSSD__V1__LITERAL__INIT, ls = SMARTSSD__V1__LITERAL__INIT;
    l0.value_case = SMARTSSD__V1__LITERAL__VALUE_I;
    ls.value_case = SMARTSSD__V1__LITERAL__VALUE_S;
    ls.s.data = (uint8_t *)"m";
    ls.s.len = 1;
    smartssd__v1__expr__init(&lit0);
    lit0.node_case = SMARTSSD__V1__EXPR__NODE_LITERAL;
    lit0.literal = &l0;
    smartssd__v1__expr__init(&lits);
    lits.node_case = SMARTSSD__V1__EXPR__NODE_LITERAL;
    lits.literal = &ls;
    Smartssd__V1__Binary bgt = SMARTSSD__V1__BINARY__INIT, bge = SMARTSSD__V1__BINARY__INIT,
                         bor = SMARTSSD__V1__BINARY__INIT;
    bgt.op = SMARTSSD__V1__BINARY_OP__GT;
    bgt.left = col(0, &e_id);
    bgt.right = &lit0;
    bge.op = SMARTSSD__V1__BINARY_OP__GE;
    bge.left = col(3, &e_name);
    bge.right = &lits;
    bor.op = SMARTSSD__V1__BINARY_OP__OR;
    bor.left = &gt;
    bor.right = &ge;
    smartssd__v1__expr__init(&gt);
    gt.node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    gt.binary = &bgt;
    smartssd__v1__expr__init(&ge);
    ge.node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    ge.binary = &bge;
    smartssd__v1__expr__init(&or_);
    or_.node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    or_.binary = &bor;
    p.filter = &or_;
    Smartssd__V1__Expr g_name, a_i, a_d, a_f, a_flag;
    Smartssd__V1__Expr *groups[] = {col(3, &g_name)};
    Smartssd__V1__Aggregate ag[4], *agp[4];
    Smartssd__V1__Expr *args[] = {col(1, &a_i), col(2, &a_d), col(5, &a_f), col(4, &a_flag)};
    Smartssd__V1__AggFn fns[] = {SMARTSSD__V1__AGG_FN__SUM, SMARTSSD__V1__AGG_FN__MIN, SMARTSSD__V1__AGG_FN__MAX,
                                 SMARTSSD__V1__AGG_FN__COUNT};
    for (int k = 0; k < 4; k++) {
        smartssd__v1__aggregate__init(&ag[k]);
        ag[k].fn = fns[k];
        ag[k].arg = args[k];
        agp[k] = &ag[k];
    }
    p.n_group_by = 1;
    p.group_by = groups;
    p.n_aggregates = 4;
    p.aggregates = agp;
    plan_len = smartssd__v1__plan__get_packed_size(&p);
    plan_bytes = malloc(plan_len);
    if (!plan_bytes) abort();
    smartssd__v1__plan__pack(&p, plan_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!plan_bytes) build_plan();
    const csd_tasklet_ops *ops = csd_tasklet_find("plan");
    if (!ops) abort();
    csd_tasklet_args args = {0};
    args.plan = plan_bytes;
    args.plan_len = plan_len;
    args.page_bytes = 512;
    char err[512];
    csd_outbuf ob;
    csd_outbuf_init(&ob, 1 << 20, 0);
    csd_exec *t;
    if (csd_exec_create(&t, ops, &args, &ob, err, sizeof err)) abort();
    uint64_t fp, lp;
    const uint32_t P = 512;
    if (csd_exec_begin(t, size, 0, size, P, &fp, &lp, err, sizeof err)) abort();
    int more = lp >= fp, rc = 0;
    for (uint64_t pg = fp; size && pg <= lp && !rc; pg++) {
        size_t n = (size_t)(size - pg * P < P ? size - pg * P : P);
        csd_cost c;
        rc = csd_exec_feed(t, pg, data + pg * P, n, &c, &more);
    }
    if (!rc) rc = csd_exec_finish(t, NULL);
    if (rc && !csd_exec_error(t)[0]) abort();
    csd_exec_destroy(t);
    csd_outbuf_free(&ob);

    /* every leaf of every row group, whatever its type */
    csd_pq_file f;
    if (csd_pq_open(&f, data, size, err, sizeof err) == 0) {
        for (uint32_t g = 0; g < f.n_rgs && g < 16; g++)
            for (uint32_t c = 0; c < f.n_leaves && c < 16; c++) {
                csd_pq_values v;
                err[0] = 0;
                if (csd_pq_read(&f, data, size, g, c, &v, err, sizeof err) == 0) csd_pq_values_free(&v);
                else if (!err[0]) abort();
            }
        csd_pq_close(&f);
    } else if (!err[0]) {
        abort();
    }
    return 0;
}
