/* bench_parquet: the plan tasklet over one Parquet object of `bin/smartssd bench spark` (its web-log
 * schema: ts, client, object, size, method, status, type, region, server, url), fed as the device feeds
 * it (the footer in the plan, pages the plan does not need as zeros, the leading ones not fed), on this
 * thread alone: the wall time of feeding and of finish (decoding and evaluation), and the cost finish
 * charges (cycles, DRAM accesses), which must not depend on how fast the host decodes.
 *   bench_parquet FILE QUERY [REPEATS [HOST_THREADS]]   QUERY: groupby, topn or filter (bench spark's
 *                                            three); HOST_THREADS the device's host_threads (default 1)
 *   bench_parquet FILE QUERY --plan-out PLAN  write the plan (with FILE's footer) for `csd run --plan` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/bufpool.h"
#include "runtime/exec.h"
#include "tasklets/registry.h"
#include "smartssd/tasklet.h"
#include "smartssd/v1/device.pb-c.h"

enum { TS, CLIENT, OBJECT, SIZE, METHOD, STATUS, TYPE, REGION, SERVER, URL, NCOLS };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Expression nodes of one plan, from a fixed pool (the plans here are small). */
typedef struct pool {
    Smartssd__V1__Expr e[32];
    Smartssd__V1__Binary b[16];
    Smartssd__V1__Literal l[16];
    int ne, nb, nl;
} pool;

static Smartssd__V1__Expr *col(pool *p, uint32_t c) {
    Smartssd__V1__Expr *e = &p->e[p->ne++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    e->column = c;
    return e;
}

static Smartssd__V1__Expr *lit(pool *p, int64_t v) {
    Smartssd__V1__Literal *l = &p->l[p->nl++];
    smartssd__v1__literal__init(l);
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_I;
    l->i = v;
    Smartssd__V1__Expr *e = &p->e[p->ne++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_LITERAL;
    e->literal = l;
    return e;
}

static Smartssd__V1__Expr *bin(pool *p, int op, Smartssd__V1__Expr *a, Smartssd__V1__Expr *b) {
    Smartssd__V1__Binary *x = &p->b[p->nb++];
    smartssd__v1__binary__init(x);
    x->op = (Smartssd__V1__BinaryOp)op;
    x->left = a;
    x->right = b;
    Smartssd__V1__Expr *e = &p->e[p->ne++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    e->binary = x;
    return e;
}

#define EQ SMARTSSD__V1__BINARY_OP__EQ
#define AND SMARTSSD__V1__BINARY_OP__AND

/* bench spark's queries as the connector pushes them: packed, malloc'd. */
static uint8_t *make_plan(const char *q, const uint8_t *obj, uint64_t size, size_t *len) {
    static const char *const names[NCOLS] = {"ts", "client", "object", "size", "method", "status", "type",
                                             "region", "server", "url"};
    pool p = {0};
    Smartssd__V1__Plan pl = SMARTSSD__V1__PLAN__INIT;
    Smartssd__V1__ParquetObject pq = SMARTSSD__V1__PARQUET_OBJECT__INIT;
    Smartssd__V1__Column cols[NCOLS], *colp[NCOLS];
    for (int i = 0; i < NCOLS; i++) {
        smartssd__v1__column__init(&cols[i]);
        cols[i].name = (char *)names[i];
        cols[i].type = i == URL ? SMARTSSD__V1__COLUMN_TYPE__STRING : SMARTSSD__V1__COLUMN_TYPE__INT64;
        cols[i].field = (uint32_t)i;
        colp[i] = &cols[i];
    }
    uint32_t flen = (uint32_t)obj[size - 8] | (uint32_t)obj[size - 7] << 8 | (uint32_t)obj[size - 6] << 16 |
                    (uint32_t)obj[size - 5] << 24;
    pq.footer.data = (uint8_t *)obj + size - 8 - flen;
    pq.footer.len = flen;
    pq.object_size = size;
    pl.format_case = SMARTSSD__V1__PLAN__FORMAT_PARQUET;
    pl.parquet = &pq;
    pl.n_columns = NCOLS;
    pl.columns = colp;
    Smartssd__V1__Expr *proj[NCOLS], *group[1];
    Smartssd__V1__Aggregate agg = SMARTSSD__V1__AGGREGATE__INIT, *aggp[1] = {&agg};
    Smartssd__V1__SortKey keys[2], *keyp[2] = {&keys[0], &keys[1]};
    if (!strcmp(q, "groupby")) {
        /* SELECT region, count(*) WHERE type = 3 AND status = 404 GROUP BY region */
        pl.filter = bin(&p, AND, bin(&p, EQ, col(&p, TYPE), lit(&p, 3)), bin(&p, EQ, col(&p, STATUS), lit(&p, 404)));
        group[0] = col(&p, REGION);
        pl.n_group_by = 1;
        pl.group_by = group;
        agg.fn = SMARTSSD__V1__AGG_FN__COUNT_ALL;
        pl.n_aggregates = 1;
        pl.aggregates = aggp;
    } else if (!strcmp(q, "topn")) {
        /* SELECT size, ts ORDER BY size DESC, ts DESC LIMIT 10 */
        proj[0] = col(&p, SIZE);
        proj[1] = col(&p, TS);
        pl.n_project = 2;
        pl.project = proj;
        for (int k = 0; k < 2; k++) {
            smartssd__v1__sort_key__init(&keys[k]);
            keys[k].output = (uint32_t)k;
            keys[k].descending = 1;
        }
        pl.n_order_by = 2;
        pl.order_by = keyp;
        pl.limit = 10;
    } else if (!strcmp(q, "filter")) {
        /* SELECT * WHERE client = 4242 AND method = 1 */
        pl.filter = bin(&p, AND, bin(&p, EQ, col(&p, CLIENT), lit(&p, 4242)), bin(&p, EQ, col(&p, METHOD), lit(&p, 1)));
        for (int i = 0; i < NCOLS; i++) proj[i] = col(&p, (uint32_t)i);
        pl.n_project = NCOLS;
        pl.project = proj;
    } else {
        return NULL;
    }
    *len = smartssd__v1__plan__get_packed_size(&pl);
    uint8_t *buf = malloc(*len ? *len : 1);
    if (buf) smartssd__v1__plan__pack(&pl, buf);
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_parquet FILE groupby|topn|filter [REPEATS [HOST_THREADS] | --plan-out PLAN]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    uint64_t size = (uint64_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *obj = malloc(size ? size : 1);
    if (!obj || size < 12 || fread(obj, 1, size, f) != size) {
        fprintf(stderr, "%s: cannot read a Parquet file\n", argv[1]);
        return 1;
    }
    fclose(f);
    size_t plen;
    uint8_t *plan = make_plan(argv[2], obj, size, &plen);
    if (!plan) {
        fprintf(stderr, "unknown query '%s' (groupby, topn, filter)\n", argv[2]);
        return 2;
    }
    if (argc > 4 && !strcmp(argv[3], "--plan-out")) {
        FILE *o = fopen(argv[4], "wb");
        int ok = o && fwrite(plan, 1, plen, o) == plen;
        if (o) ok &= fclose(o) == 0;
        free(plan);
        free(obj);
        return ok ? 0 : 1;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    int threads = argc > 4 ? atoi(argv[4]) : 1;
    const uint32_t P = 16384;
    uint8_t *zero = calloc(1, P);
    printf("run,pages_fed,pages_needed,feed_s,finish_s,finish_cycles,finish_dram,out_bytes\n");
    int rc = 0;
    /* the runs share a pool of large buffers, as a device's requests do */
    csd_bufpool *pool = csd_bufpool_new(CSD_BUFPOOL_KEEP_BYTES, CSD_BUFPOOL_MIN);
    for (int rep = 0; rep < reps && !rc; rep++) {
        csd_tasklet_args a = {0};
        const csd_exec_host host = { threads > 0 ? (uint32_t)threads : 1, pool };
        a.plan = plan;
        a.plan_len = plen;
        a.page_bytes = P;
        csd_outbuf ob;
        csd_outbuf_init(&ob, 64u << 20, 0);
        csd_exec *t = NULL;
        char err[256] = "";
        uint64_t fp = 0, lp = 0, fed = 0, needed = 0;
        double t0 = now();
        const csd_tasklet_ops *plan_ops = csd_tasklet_find("plan");
        rc = csd_exec_create_hooked(&t, plan_ops, csd_builtin_hooks_of(plan_ops), &host, &a, &ob, err, sizeof err);
        if (!rc) rc = csd_exec_begin(t, size, 0, size, P, &fp, &lp, err, sizeof err);
        for (uint64_t pg = fp; !rc && pg <= lp; pg++) {
            size_t n = (size_t)(size - pg * P < P ? size - pg * P : P);
            int need = csd_exec_needs_page(t, pg), more;
            csd_cost c = {0, 0};
            needed += (uint64_t)need;
            fed++;
            rc = csd_exec_feed(t, pg, need ? obj + pg * P : zero, n, &c, &more);
        }
        double t1 = now();
        csd_cost c = {0, 0};
        if (!rc) rc = csd_exec_finish(t, &c);
        double t2 = now();
        if (rc) {
            fprintf(stderr, "run %d failed: %s%s\n", rep, err, t ? csd_exec_error(t) : "");
        } else {
            const uint8_t *out;
            size_t n = csd_outbuf_take(&ob, SIZE_MAX, &out);
            printf("%d,%llu,%llu,%.4f,%.4f,%llu,%llu,%zu\n", rep, (unsigned long long)fed,
                   (unsigned long long)needed, t1 - t0, t2 - t1, (unsigned long long)c.cycles,
                   (unsigned long long)c.dram_accesses, n);
        }
        csd_exec_destroy(t);
        csd_outbuf_free(&ob);
    }
    csd_bufpool_free(pool);
    free(zero);
    free(plan);
    free(obj);
    return rc ? 1 : 0;
}
