/* Filters pushed into a user tasklet's output (CreateObject.filter): the declaration travels from the
 * C source (csd_tasklet_ops.schema) through a WebAssembly build and a native build to list_tasklets
 * and across a reopen; the device's filtered rows equal a reference computed here from the input with
 * plain C conditions; the rows it dropped never reach the host; and a filter on a column or with an
 * operator the tasklet does not declare, or of another shape, is refused with its reason. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devutil.h"
#include "test_tasklets_util.h"

static const char *dir;
static char src_dir[4096];

#define DECLARED "word STRING FILTER(= <> IN STARTS_WITH CONTAINS NULL), n BIGINT FILTER(= <> < <= > >= IN), " \
                 "score DOUBLE FILTER(> NULL)"

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...) {
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0) {
        fprintf(stderr, "command failed: %s\n", cmd);
        exit(1);
    }
}

static uint8_t *slurp(const char *name, size_t *len) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint64_t n;
    uint8_t *b = tk_read_file(path, &n);
    *len = (size_t)n;
    return b;
}

static csd_device *open_dev(int fresh) {
    char path[4200], err[512], trusted[4200];
    snprintf(path, sizeof path, "%s/dev.img", dir);
    snprintf(trusted, sizeof trusted, "%s/trusted", dir);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    dev_test_threads(&p);
    if (fresh) {
        unlink(path);
        CHECK(csd_format(path, 4u << 20, &p, err, sizeof err) == 0);
    }
    CHECK(strlen(trusted) < sizeof p.tasklet_trusted_dir);
    memcpy(p.tasklet_trusted_dir, trusted, strlen(trusted) + 1);
    csd_device *d;
    csd_open_opts o = { .override = &p };
    if (csd_device_open(&d, path, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        exit(1);
    }
    return d;
}

static Smartssd__V1__Response *install(csd_device *d, const char *name, int native, const void *p, size_t n) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__InstallTasklet in = SMARTSSD__V1__INSTALL_TASKLET__INIT;
    in.name = (char *)name;
    in.format = native ? SMARTSSD__V1__PROGRAM_FORMAT__NATIVE : SMARTSSD__V1__PROGRAM_FORMAT__WASM;
    in.program.data = (uint8_t *)p;
    in.program.len = n;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_INSTALL_TASKLET;
    req.install_tasklet = &in;
    return dev_call(d, &req, NULL);
}

/* ------------------------------------------------------------------ filter expressions (static pool) */

static Smartssd__V1__Expr ex[128];
static Smartssd__V1__Binary bi[64];
static Smartssd__V1__Unary un[32];
static Smartssd__V1__In ins[16];
static Smartssd__V1__Literal li[128], *in_vals[16][8];
static int nex, nbi, nun, nin, nli;

static void pool_reset(void) { nex = nbi = nun = nin = nli = 0; }

static Smartssd__V1__Expr *col(uint32_t i) {
    Smartssd__V1__Expr *e = &ex[nex++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    e->column = i;
    return e;
}

static Smartssd__V1__Literal *lit(void) {
    Smartssd__V1__Literal *l = &li[nli++];
    smartssd__v1__literal__init(l);
    return l;
}
static Smartssd__V1__Literal *lit_i(int64_t v) {
    Smartssd__V1__Literal *l = lit();
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_I;
    l->i = v;
    return l;
}
static Smartssd__V1__Literal *lit_d(double v) {
    Smartssd__V1__Literal *l = lit();
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_D;
    l->d = v;
    return l;
}
static Smartssd__V1__Literal *lit_s(const char *s) {
    Smartssd__V1__Literal *l = lit();
    l->value_case = SMARTSSD__V1__LITERAL__VALUE_S;
    l->s.data = (uint8_t *)s;
    l->s.len = strlen(s);
    return l;
}
static Smartssd__V1__Expr *L(Smartssd__V1__Literal *l) {
    Smartssd__V1__Expr *e = &ex[nex++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_LITERAL;
    e->literal = l;
    return e;
}
static Smartssd__V1__Expr *B(int op, Smartssd__V1__Expr *a, Smartssd__V1__Expr *b) {
    Smartssd__V1__Binary *x = &bi[nbi++];
    smartssd__v1__binary__init(x);
    x->op = op;
    x->left = a;
    x->right = b;
    Smartssd__V1__Expr *e = &ex[nex++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    e->binary = x;
    return e;
}
static Smartssd__V1__Expr *U(int op, Smartssd__V1__Expr *a) {
    Smartssd__V1__Unary *x = &un[nun++];
    smartssd__v1__unary__init(x);
    x->op = op;
    x->arg = a;
    Smartssd__V1__Expr *e = &ex[nex++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_UNARY;
    e->unary = x;
    return e;
}
static Smartssd__V1__Expr *IN(Smartssd__V1__Expr *a, int n, Smartssd__V1__Literal **v) {
    Smartssd__V1__In *x = &ins[nin];
    smartssd__v1__in__init(x);
    x->arg = a;
    for (int i = 0; i < n; i++) in_vals[nin][i] = v[i];
    x->n_values = (size_t)n;
    x->values = in_vals[nin++];
    Smartssd__V1__Expr *e = &ex[nex++];
    smartssd__v1__expr__init(e);
    e->node_case = SMARTSSD__V1__EXPR__NODE_IN;
    e->in = x;
    return e;
}

enum { EQ = 1, NE, LT, LE, GT, GE, AND, OR };
#define STARTS SMARTSSD__V1__BINARY_OP__STARTS_WITH
#define ENDS SMARTSSD__V1__BINARY_OP__ENDS_WITH
#define CONTAINS SMARTSSD__V1__BINARY_OP__CONTAINS
#define NOT SMARTSSD__V1__UNARY_OP__NOT
#define IS_NULL SMARTSSD__V1__UNARY_OP__IS_NULL

/* ------------------------------------------------------------------ the input and its reference */

#define LINES 3000

typedef struct line { char word[8]; long long n; } line;
static line lines[LINES];

static uint64_t make_input(csd_device *d) {
    tk_text t = { 0 };
    for (int i = 0; i < LINES; i++) {
        snprintf(lines[i].word, sizeof lines[i].word, "w%d", (i * 7) % 50);
        lines[i].n = (i * 37) % 1000 - 100;
        tk_text_add(&t, "%s,%lld\n", lines[i].word, lines[i].n);
    }
    uint64_t id = dev_create_data(d, "lines.txt");
    dev_write(d, id, 0, t.s, strlen(t.s));
    free(t.s);
    return id;
}

/* The rows the tasklet emits for the lines keep() accepts, as tk_format_rows prints them. */
static char *reference(int (*keep)(const line *)) {
    tk_text t = { 0 };
    tk_text_add(&t, "%s", "");
    for (int i = 0; i < LINES; i++) {
        if (!keep(&lines[i])) continue;
        tk_text_add(&t, "%s\t%lld\t", lines[i].word, lines[i].n);
        if (lines[i].n % 5 == 0) tk_text_add(&t, "NULL\n");
        else tk_text_add(&t, "%.17g\n", lines[i].n / 2.0);
    }
    return t.s;
}

static int all(const line *l) { return 1; }
static int k_n_ge_500(const line *l) { return l->n >= 500; }
static int k_in_and_neg(const line *l) { return (!strcmp(l->word, "w3") || !strcmp(l->word, "w10")) && l->n < 0; }
static int k_prefix_or_null(const line *l) { return !strncmp(l->word, "w1", 2) || l->n % 5 == 0; }
static int k_not_contains_score(const line *l) {
    return !strchr(l->word, '2') && l->n % 5 != 0 && l->n / 2.0 > 100.5;
}
static int k_mirror(const line *l) { return l->n < 400 && strcmp(l->word, "w7") != 0; }
static int k_n_in(const line *l) { return l->n == -100 || l->n == 0 || l->n == 5 || l->n == 200; }

/* ------------------------------------------------------------------ runs */

typedef struct run_out {
    int status;
    char message[1024];
    tk_text rows;
    size_t nrows;
    uint64_t filtered, bytes_to_host;
} run_out;

static Smartssd__V1__Response *create(csd_device *d, const char *name, const char *const *kv,
                                      Smartssd__V1__Expr *filter) {
    return dev_create_filtered(d, name, kv, NULL, filter);
}

static run_out run(csd_device *d, const char *name, const char *const *kv, Smartssd__V1__Expr *filter, uint64_t input) {
    run_out o = { 0 };
    tk_text_add(&o.rows, "%s", "");
    Smartssd__V1__Response *r = create(d, name, kv, filter);
    if (r->status) {
        o.status = r->status;
        snprintf(o.message, sizeof o.message, "%s", r->message);
        smartssd__v1__response__free_unpacked(r, NULL);
        return o;
    }
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t out = dev_create_output(d, 0);
    r = dev_execute(d, t, out, input, 0, 0, 1);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    for (int polls = 0; polls < 100000; polls++) {
        r = dev_read(d, out, 0, 0);
        CHECK(r->status == 0);
        Smartssd__V1__ReadObjectReply *rr = r->read_object;
        o.nrows += tk_format_rows(&o.rows, rr->data.data, rr->data.len, TK_BYTES_RAW);
        int done = rr->progress->done;
        if (rr->progress->finished) {
            o.status = rr->progress->status;
            snprintf(o.message, sizeof o.message, "%s", rr->progress->message);
            o.filtered = rr->progress->rows_filtered;
            o.bytes_to_host = rr->progress->bytes_to_host;
        }
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    dev_delete(d, out);
    dev_delete(d, t);
    return o;
}

/* Both builds answer f as the reference keep() does, and drop the rest on the device. */
static void expect_filtered(csd_device *d, uint64_t input, Smartssd__V1__Expr *f, int (*keep)(const line *),
                            uint64_t unfiltered_bytes) {
    char *want = reference(keep);
    size_t kept = 0;
    for (int i = 0; i < LINES; i++) kept += keep(&lines[i]) != 0;
    CHECK(kept > 0 && kept < LINES);   /* each case keeps some and drops some */
    const char *names[] = { "rows-wasm", "rows-native" };
    for (int k = 0; k < 2; k++) {
        run_out o = run(d, names[k], NULL, f, input);
        if (o.status) fprintf(stderr, "%s: %s\n", names[k], o.message);
        CHECK_EQ_INT(o.status, 0);
        tk_check_text(o.rows.s, want, names[k]);
        CHECK_EQ_U64(o.nrows, kept);
        CHECK_EQ_U64(o.filtered, LINES - kept);
        CHECK(o.bytes_to_host < unfiltered_bytes);
        free(o.rows.s);
    }
    free(want);
}

static void list_declares(csd_device *d) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ListTasklets lt = SMARTSSD__V1__LIST_TASKLETS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST_TASKLETS;
    req.list_tasklets = &lt;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    CHECK(r->status == 0);
    int seen = 0;
    for (size_t i = 0; i < r->list_tasklets->n_tasklets; i++) {
        Smartssd__V1__TaskletInfo *t = r->list_tasklets->tasklets[i];
        if (strcmp(t->name, "rows-wasm") && strcmp(t->name, "rows-native")) continue;
        seen++;
        CHECK_STR(t->schema, DECLARED);
        CHECK_STR(t->summary, "one row per WORD,N line");
        CHECK_EQ_U64(t->n_columns, 3);
        CHECK_STR(t->columns[0]->name, "word");
        CHECK(t->columns[0]->type == SMARTSSD__V1__COLUMN_TYPE__STRING);
        CHECK_EQ_U64(t->columns[0]->n_filters, 6);
        CHECK(t->columns[0]->filters[0] == SMARTSSD__V1__FILTER_OP__FILTER_EQ);
        CHECK(t->columns[0]->filters[5] == SMARTSSD__V1__FILTER_OP__FILTER_CONTAINS);
        CHECK_STR(t->columns[1]->name, "n");
        CHECK(t->columns[1]->type == SMARTSSD__V1__COLUMN_TYPE__INT64);
        CHECK_EQ_U64(t->columns[1]->n_filters, 7);
        CHECK(t->columns[2]->type == SMARTSSD__V1__COLUMN_TYPE__DOUBLE);
        CHECK_EQ_U64(t->columns[2]->n_filters, 2);
        CHECK(t->columns[2]->filters[0] == SMARTSSD__V1__FILTER_OP__FILTER_GT);
        CHECK(t->columns[2]->filters[1] == SMARTSSD__V1__FILTER_OP__FILTER_NULL);
    }
    CHECK_EQ_INT(seen, 2);
    smartssd__v1__response__free_unpacked(r, NULL);
}

int main(void) {
    dir = csd_test_dir("pushed_filters");
    snprintf(src_dir, sizeof src_dir, "%s", getenv("CSD_SRC") ? getenv("CSD_SRC") : ".");
    char path[8192];
    snprintf(path, sizeof path, "%s/trusted", dir);
    mkdir(path, 0700);
    char src[4200];
    snprintf(src, sizeof src, "%s/tests/tasklets/rows.c", src_dir);
    sh("python3 %s/sdk/tasklet_sdk.py build -q %s -o %s/rows.wasm", src_dir, src, dir);
    sh("python3 %s/sdk/tasklet_sdk.py build -q --native %s -o %s/trusted/rows.so", src_dir, src, dir);
    /* the same tasklet declaring a schema that does not parse */
    sh("printf '#define SCHEMA \"word STRNG\"\\n#include \"%s\"\\n' > %s/bad.c", src, dir);
    sh("python3 %s/sdk/tasklet_sdk.py build -q %s/bad.c -o %s/bad.wasm", src_dir, dir, dir);
    size_t wlen, blen;
    uint8_t *wasm = slurp("rows.wasm", &wlen), *bad = slurp("bad.wasm", &blen);

    csd_device *d = open_dev(1);
    Smartssd__V1__Response *r = install(d, "rows-wasm", 0, wasm, wlen);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = install(d, "rows-native", 1, "rows.so", 7);
    if (r->status) fprintf(stderr, "install native: %s\n", r->message);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(install(d, "rows-bad", 0, bad, blen), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "tasklet program 'rows-bad' declares a bad schema: column 'word' needs a type");

    /* the declaration, as written and parsed, from both builds; again after a reopen */
    list_declares(d);
    csd_device_close(d);
    d = open_dev(0);
    list_declares(d);

    uint64_t input = make_input(d);
    run_out plain = run(d, "rows-wasm", NULL, NULL, input);
    CHECK_EQ_INT(plain.status, 0);
    char *want_all = reference(all);
    tk_check_text(plain.rows.s, want_all, "unfiltered");
    CHECK_EQ_U64(plain.filtered, 0);
    free(want_all);
    free(plain.rows.s);

    /* device-side filtering against the reference */
    pool_reset();
    expect_filtered(d, input, B(GE, col(1), L(lit_i(500))), k_n_ge_500, plain.bytes_to_host);
    pool_reset();
    {
        Smartssd__V1__Literal *v[] = { lit_s("w3"), lit_s("w10") };
        expect_filtered(d, input, B(AND, IN(col(0), 2, v), B(LT, col(1), L(lit_i(0)))), k_in_and_neg,
                        plain.bytes_to_host);
    }
    pool_reset();
    expect_filtered(d, input, B(OR, B(STARTS, col(0), L(lit_s("w1"))), U(IS_NULL, col(2))), k_prefix_or_null,
                    plain.bytes_to_host);
    pool_reset();
    expect_filtered(d, input, B(AND, U(NOT, B(CONTAINS, col(0), L(lit_s("2")))), B(GT, col(2), L(lit_d(100.5)))),
                    k_not_contains_score, plain.bytes_to_host);
    pool_reset();   /* a literal on the left: 400 > n */
    expect_filtered(d, input, B(AND, B(GT, L(lit_i(400)), col(1)), B(NE, col(0), L(lit_s("w7")))), k_mirror,
                    plain.bytes_to_host);
    pool_reset();
    {
        Smartssd__V1__Literal *v[] = { lit_i(-100), lit_i(0), lit_i(5), lit_i(200) };
        expect_filtered(d, input, IN(col(1), 4, v), k_n_in, plain.bytes_to_host);
    }

    /* refusals, at create_object, with the reason */
    pool_reset();
    EXPECT_STATUS(create(d, "rows-wasm", NULL, B(LT, col(2), L(lit_d(3)))), SMARTSSD__V1__STATUS__UNSUPPORTED,
                  "tasklet 'rows-wasm' does not take filter < on column 'score' (it declares: > NULL)");
    EXPECT_STATUS(create(d, "rows-native", NULL, B(ENDS, col(0), L(lit_s("9")))), SMARTSSD__V1__STATUS__UNSUPPORTED,
                  "does not take filter ENDS_WITH on column 'word'");
    EXPECT_STATUS(create(d, "rows-wasm", NULL, B(AND, B(EQ, col(1), L(lit_i(1))), U(IS_NULL, col(1)))),
                  SMARTSSD__V1__STATUS__UNSUPPORTED, "does not take filter NULL on column 'n'");
    EXPECT_STATUS(create(d, "rows-wasm", NULL, B(GT, B(SMARTSSD__V1__BINARY_OP__ADD, col(1), L(lit_i(1))), L(lit_i(3)))),
                  SMARTSSD__V1__STATUS__INVALID_ARGUMENT, "must have a column of tasklet 'rows-wasm' on its left");
    EXPECT_STATUS(create(d, "rows-wasm", NULL, B(EQ, col(1), col(2))), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "compares a column with a literal");
    EXPECT_STATUS(create(d, "rows-wasm", NULL, B(EQ, col(7), L(lit_i(1)))), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "column index 7 out of range (tasklet 'rows-wasm' declares 3 columns)");
    EXPECT_STATUS(create(d, "rows-wasm", NULL, B(EQ, col(1), L(lit_s("abc")))), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "cannot compare INT64 and STRING");
    EXPECT_STATUS(create(d, "grep", NULL, B(EQ, col(0), L(lit_i(1)))), SMARTSSD__V1__STATUS__UNSUPPORTED,
                  "tasklet 'grep' declares no output columns, so it takes no pushed filter");
    {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
        co.kind = SMARTSSD__V1__OBJECT_KIND__OUTPUT;
        co.filter = B(EQ, col(1), L(lit_i(1)));
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
        req.create_object = &co;
        EXPECT_STATUS(dev_call(d, &req, NULL), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                      "a filter belongs to the TASKLET object");
    }
    /* a row that breaks the declaration fails the run when a filter needs it; without one it ships */
    const char *lie[] = { "lie=1", NULL };
    pool_reset();
    run_out o = run(d, "rows-wasm", lie, B(EQ, col(0), L(lit_s("w1"))), input);
    CHECK_EQ_INT(o.status, SMARTSSD__V1__STATUS__TASKLET_ERROR);
    CHECK_CONTAINS(o.message, "tasklet 'rows-wasm' emitted a DOUBLE in column 'n', which its schema declares INT64");
    free(o.rows.s);
    o = run(d, "rows-wasm", lie, NULL, input);
    CHECK_EQ_INT(o.status, 0);
    CHECK_EQ_U64(o.nrows, LINES);
    free(o.rows.s);
    dev_still_serving(d);

    csd_device_close(d);
    free(wasm);
    free(bad);
    printf("test_pushed_filters: ok\n");
    return 0;
}
