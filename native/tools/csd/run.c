/* run: the Smart SSD protocol of Fig. 5 from the command line — create_object(TASKLET),
 * create_object(OUTPUT), execute_object, then read_object until the output is done. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

typedef struct run_opts {
    const char *input, *plan_file;
    uint64_t offset, length;
    int have_offset, have_length;
    Smartssd__V1__Param *sparams[256], *rparams[256];
    size_t ns, nr;
    char *keywords[256];
    size_t nk;
    uint64_t max_outputs;
    const char *filters[16];
    size_t nf;
    int bad;
    char badmsg[256];
} run_opts;

static int parse_u64(const char *s, uint64_t *v) {
    return csd_parse_size(s, v);
}

static Smartssd__V1__Param *kv_param(const char *arg) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return NULL;
    Smartssd__V1__Param *p = calloc(1, sizeof *p);
    smartssd__v1__param__init(p);
    p->key = strndup(arg, (size_t)(eq - arg));
    p->value = strdup(eq + 1);
    return p;
}

static int run_opt(cli *c, int opt, const char *arg, void *a) {
    run_opts *o = a;
    switch (opt) {
    case 'i': o->input = arg; return 0;
    case 'P': o->plan_file = arg; return 0;
    case 'o':
        if (parse_u64(arg, &o->offset)) goto bad;
        o->have_offset = 1;
        return 0;
    case 'l':
        if (parse_u64(arg, &o->length)) goto bad;
        o->have_length = 1;
        return 0;
    case 'm':
        if (parse_u64(arg, &o->max_outputs)) goto bad;
        return 0;
    case 'p':
    case 'r': {
        Smartssd__V1__Param *p = kv_param(arg);
        if (!p) goto bad;
        if (opt == 'p' && o->ns < 256) o->sparams[o->ns++] = p;
        else if (opt == 'r' && o->nr < 256) o->rparams[o->nr++] = p;
        return 0;
    }
    case 'k':
        if (o->nk < 256) o->keywords[o->nk++] = (char *)arg;
        return 0;
    case 'f':
        if (o->nf == 16) goto bad;
        o->filters[o->nf++] = arg;
        return 0;
    }
    return -1;
bad:
    o->bad = 1;
    snprintf(o->badmsg, sizeof o->badmsg, "bad value '%s'", arg);
    return 0;
}

/* Reads length-delimited Rows from buf into rows (appending). */
static int decode_rows(const uint8_t *p, size_t n, json_object *rows, uint64_t *count) {
    size_t i = 0;
    while (i < n) {
        uint64_t len = 0;
        int shift = 0;
        while (i < n && shift < 64) {
            uint8_t b = p[i++];
            len |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80)) break;
        }
        if (len > n - i) return -EINVAL;
        Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, (size_t)len, p + i);
        if (!row) return -EINVAL;
        i += (size_t)len;
        json_object *arr = json_object_new_array();
        for (size_t k = 0; k < row->n_values; k++) {
            Smartssd__V1__Value *v = row->values[k];
            switch (v->v_case) {
            case SMARTSSD__V1__VALUE__V_I: json_object_array_add(arr, json_object_new_int64(v->i)); break;
            case SMARTSSD__V1__VALUE__V_D: json_object_array_add(arr, json_object_new_double(v->d)); break;
            case SMARTSSD__V1__VALUE__V_B: json_object_array_add(arr, json_object_new_boolean(v->b)); break;
            case SMARTSSD__V1__VALUE__V_S: {
                int printable = 1;
                for (size_t j = 0; j < v->s.len; j++)
                    if (v->s.data[j] < 0x20 && v->s.data[j] != '\t') printable = 0;
                if (printable) {
                    json_object_array_add(arr, json_object_new_string_len((const char *)v->s.data, (int)v->s.len));
                } else {
                    /* Binary records print as hex so the JSON stays valid text. */
                    char *hex = malloc(v->s.len * 2 + 3);
                    hex[0] = '0';
                    hex[1] = 'x';
                    for (size_t j = 0; j < v->s.len; j++) sprintf(hex + 2 + 2 * j, "%02x", v->s.data[j]);
                    hex[2 + 2 * v->s.len] = 0;
                    json_object_array_add(arr, json_object_new_string(hex));
                    free(hex);
                }
                break;
            }
            default: json_object_array_add(arr, NULL); break;
            }
        }
        smartssd__v1__row__free_unpacked(row, NULL);
        json_object_array_add(rows, arr);
        (*count)++;
    }
    return 0;
}

/* Tasklet-specific summaries of the rows (docs/TASKLETS.md gives each tasklet's row layout). */
static json_object *summarize(const char *tasklet, json_object *rows) {
    json_object *res = json_object_new_object();
    size_t n = json_object_array_length(rows);
    if (!strcmp(tasklet, "weblog-q1")) {
        json_object *reg = json_object_new_object();
        for (size_t i = 0; i < n; i++) {
            json_object *r = json_object_array_get_idx(rows, i);
            json_object_object_add(reg, json_object_get_string(json_object_array_get_idx(r, 0)),
                                   json_object_get(json_object_array_get_idx(r, 1)));
        }
        json_object_object_add(res, "regions", reg);
    } else if (!strcmp(tasklet, "weblog-q2")) {
        json_object *reg = json_object_new_object();
        for (size_t i = 0; i < n; i++) {
            json_object *r = json_object_array_get_idx(rows, i);
            const char *region = json_object_get_string(json_object_array_get_idx(r, 0));
            json_object *e;
            if (!json_object_object_get_ex(reg, region, &e)) {
                e = json_object_new_object();
                json_object_object_add(e, "types", json_object_new_object());
                json_object_object_add(e, "top", json_object_new_array());
                json_object_object_add(reg, region, e);
            }
            json_object *types, *top;
            json_object_object_get_ex(e, "types", &types);
            json_object_object_get_ex(e, "top", &top);
            const char *type = json_object_get_string(json_object_array_get_idx(r, 1));
            json_object_object_add(types, type, json_object_get(json_object_array_get_idx(r, 2)));
            if (json_object_get_int64(json_object_array_get_idx(r, 3)) > 0)
                json_object_array_add(top, json_object_new_string(type));
        }
        json_object_object_add(res, "regions", reg);
    } else if ((!strcmp(tasklet, "grep") || !strcmp(tasklet, "grep2")) && n == 1 && json_object_array_length(json_object_array_get_idx(rows, 0)) == 1) {
        json_object_object_add(res, "count",
                               json_object_get(json_object_array_get_idx(json_object_array_get_idx(rows, 0), 0)));
    }
    json_object_object_add(res, "rows", json_object_get(rows));
    return res;
}

static void free_opts(run_opts *o) {
    for (size_t i = 0; i < o->ns; i++) {
        free(o->sparams[i]->key);
        free(o->sparams[i]->value);
        free(o->sparams[i]);
    }
    for (size_t i = 0; i < o->nr; i++) {
        free(o->rparams[i]->key);
        free(o->rparams[i]->value);
        free(o->rparams[i]);
    }
}

/* ------------------------------------------------------------------ --filter */

/* A filter the device applies to the tasklet's rows (CreateObject.filter): "COLUMN OP VALUE" with OP
 * one of = <> < <= > >= STARTS_WITH ENDS_WITH CONTAINS, "COLUMN IN V1,V2,...", "COLUMN IS [NOT] NULL".
 * Columns are the tasklet's declared ones (list_tasklets), values typed by them. Every --filter holds. */
static Smartssd__V1__Expr *new_expr(void) {
    Smartssd__V1__Expr *e = calloc(1, sizeof *e);
    smartssd__v1__expr__init(e);
    return e;
}

/* The literal text v as a value of column type t; -1 when it is not one. */
static int filter_literal(const char *v, int t, Smartssd__V1__Literal **out) {
    Smartssd__V1__Literal *l = calloc(1, sizeof *l);
    smartssd__v1__literal__init(l);
    *out = l;
    char *end = NULL;
    size_t n = strlen(v);
    if (t == SMARTSSD__V1__COLUMN_TYPE__STRING) {
        if (n >= 2 && v[0] == '\'' && v[n - 1] == '\'') {   /* 'quoted' keeps spaces and commas */
            v++;
            n -= 2;
        }
        l->value_case = SMARTSSD__V1__LITERAL__VALUE_S;
        l->s.data = malloc(n ? n : 1);
        memcpy(l->s.data, v, n);
        l->s.len = n;
        return 0;
    }
    errno = 0;
    if (t == SMARTSSD__V1__COLUMN_TYPE__INT64) {
        l->value_case = SMARTSSD__V1__LITERAL__VALUE_I;
        l->i = strtoll(v, &end, 10);
    } else if (t == SMARTSSD__V1__COLUMN_TYPE__DOUBLE) {
        l->value_case = SMARTSSD__V1__LITERAL__VALUE_D;
        l->d = strtod(v, &end);
    } else {
        l->value_case = SMARTSSD__V1__LITERAL__VALUE_B;
        l->b = !strcasecmp(v, "true");
        return l->b || !strcasecmp(v, "false") ? 0 : -1;
    }
    return *v && !*end && !errno ? 0 : -1;
}

static int filter_parse(const char *text, Smartssd__V1__DeclaredColumn *const *cols, size_t ncols,
                        Smartssd__V1__Expr **out, char *err, size_t errlen) {
    static const struct { const char *op; int bin; } OPS[] = {
        { "=", SMARTSSD__V1__BINARY_OP__EQ }, { "<>", SMARTSSD__V1__BINARY_OP__NE }, { "!=", SMARTSSD__V1__BINARY_OP__NE },
        { "<", SMARTSSD__V1__BINARY_OP__LT }, { "<=", SMARTSSD__V1__BINARY_OP__LE }, { ">", SMARTSSD__V1__BINARY_OP__GT },
        { ">=", SMARTSSD__V1__BINARY_OP__GE }, { "STARTS_WITH", SMARTSSD__V1__BINARY_OP__STARTS_WITH },
        { "ENDS_WITH", SMARTSSD__V1__BINARY_OP__ENDS_WITH }, { "CONTAINS", SMARTSSD__V1__BINARY_OP__CONTAINS },
    };
    *out = NULL;
    char name[128], op[32];
    int used = 0;
    if (sscanf(text, " %127[A-Za-z0-9_] %31[^ ] %n", name, op, &used) < 2) {
        snprintf(err, errlen, "--filter '%s': give COLUMN OP VALUE, COLUMN IN V1,V2 or COLUMN IS [NOT] NULL", text);
        return -1;
    }
    const char *rest = text + used;
    size_t k = 0;
    while (k < ncols && strcasecmp(cols[k]->name, name)) k++;
    if (k == ncols) {
        snprintf(err, errlen, "--filter '%s': the tasklet declares no column '%s' (csd tasklet ls shows its schema)",
                 text, name);
        return -1;
    }
    int t = cols[k]->type;
    Smartssd__V1__Expr *col = new_expr();
    col->node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    col->column = (uint32_t)k;
    Smartssd__V1__Expr *e = new_expr();
    *out = e;
    if (!strcasecmp(op, "IS")) {
        int not = !strncasecmp(rest, "NOT ", 4);
        const char *tail = rest + (not ? 4 : 0);
        while (*tail == ' ') tail++;
        Smartssd__V1__Unary *u = calloc(1, sizeof *u);
        smartssd__v1__unary__init(u);
        u->op = not ? SMARTSSD__V1__UNARY_OP__IS_NOT_NULL : SMARTSSD__V1__UNARY_OP__IS_NULL;
        u->arg = col;
        e->node_case = SMARTSSD__V1__EXPR__NODE_UNARY;
        e->unary = u;
        if (strcasecmp(tail, "NULL")) {
            snprintf(err, errlen, "--filter '%s': IS takes NULL or NOT NULL", text);
            return -1;
        }
        return 0;
    }
    if (!strcasecmp(op, "IN")) {
        Smartssd__V1__In *in = calloc(1, sizeof *in);
        smartssd__v1__in__init(in);
        in->arg = col;
        e->node_case = SMARTSSD__V1__EXPR__NODE_IN;
        e->in = in;
        in->values = calloc(strlen(rest) + 1, sizeof *in->values);
        char *copy = strdup(rest), *save = NULL;
        int rc = 0;
        for (char *v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
            while (*v == ' ') v++;
            if (filter_literal(v, t, &in->values[in->n_values++])) rc = -1;
        }
        free(copy);
        if (rc || !in->n_values) snprintf(err, errlen, "--filter '%s': IN takes values of the column's type", text);
        return rc || !in->n_values ? -1 : 0;
    }
    int bin = 0;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcasecmp(op, OPS[i].op)) bin = OPS[i].bin;
    Smartssd__V1__Binary *b = calloc(1, sizeof *b);
    smartssd__v1__binary__init(b);
    b->op = bin;
    b->left = col;
    b->right = new_expr();
    b->right->node_case = SMARTSSD__V1__EXPR__NODE_LITERAL;
    e->node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    e->binary = b;
    if (!bin) {
        snprintf(err, errlen, "--filter '%s': unknown operator '%s' (= <> < <= > >= IN IS STARTS_WITH ENDS_WITH "
                 "CONTAINS)", text, op);
        return -1;
    }
    if (filter_literal(rest, t, &b->right->literal)) {
        snprintf(err, errlen, "--filter '%s': '%s' is not a value of column '%s'", text, rest, cols[k]->name);
        return -1;
    }
    return 0;
}

/* The AND of every --filter, over the declared columns of tasklet name; NULL with err on a failure. */
static Smartssd__V1__Expr *filter_build(cli *c, const run_opts *o, const char *name, char *err, size_t errlen) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ListTasklets lt = SMARTSSD__V1__LIST_TASKLETS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST_TASKLETS;
    req.list_tasklets = &lt;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return NULL;
    Smartssd__V1__TaskletInfo *t = NULL;
    for (size_t i = 0; i < r->list_tasklets->n_tasklets; i++)
        if (!strcmp(r->list_tasklets->tasklets[i]->name, name)) t = r->list_tasklets->tasklets[i];
    Smartssd__V1__Expr *all = NULL;
    snprintf(err, errlen, "--filter: '%s' is no installed tasklet declaring its columns (csd tasklet ls)", name);
    for (size_t i = 0; t && t->n_columns && i < o->nf; i++) {
        Smartssd__V1__Expr *e;
        if (filter_parse(o->filters[i], t->columns, t->n_columns, &e, err, errlen)) {
            if (e) smartssd__v1__expr__free_unpacked(e, NULL);
            if (all) smartssd__v1__expr__free_unpacked(all, NULL);
            all = NULL;
            break;
        }
        if (!all) {
            all = e;
            continue;
        }
        Smartssd__V1__Expr *both = new_expr();
        Smartssd__V1__Binary *b = calloc(1, sizeof *b);
        smartssd__v1__binary__init(b);
        b->op = SMARTSSD__V1__BINARY_OP__AND;
        b->left = all;
        b->right = e;
        both->node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
        both->binary = b;
        all = both;
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    return all;
}

static uint64_t create_obj(cli *c, Smartssd__V1__CreateObject *co, uint64_t *device_ns) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = co;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) return 0;
    uint64_t id = r->create_object->object_id;
    *device_ns += r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    return id;
}

static int run_run(cli *c, int argc, char **argv) {
    static const struct option extra[] = {
        { "input", required_argument, 0, 'i' }, { "offset", required_argument, 0, 'o' },
        { "length", required_argument, 0, 'l' }, { "param", required_argument, 0, 'p' },
        { "runtime", required_argument, 0, 'r' }, { "keyword", required_argument, 0, 'k' },
        { "max-outputs", required_argument, 0, 'm' }, { "plan", required_argument, 0, 'P' },
        { "filter", required_argument, 0, 'f' },
    };
    run_opts o = { 0 };
    char *pos[2];
    int np, rc = cli_parse(c, &CMD_RUN, argc, argv, extra, 9, run_opt, &o, pos, 2, 2, &np);
    if (rc >= 0 || o.bad) {
        if (o.bad) rc = cli_usage_error(c, &CMD_RUN, "%s", o.badmsg);
        free_opts(&o);
        return rc;
    }
    if (!o.input) {
        free_opts(&o);
        return cli_usage_error(c, &CMD_RUN, "--input NAME is required");
    }
    Smartssd__V1__Plan *plan = NULL;
    Smartssd__V1__Expr *filter = NULL;
    if (o.plan_file) {
        FILE *f = fopen(o.plan_file, "rb");
        uint8_t *buf = malloc(1 << 20);
        size_t n = f ? fread(buf, 1, 1 << 20, f) : 0;
        if (f) fclose(f);
        plan = (f && n < (1 << 20)) ? smartssd__v1__plan__unpack(NULL, n, buf) : NULL;
        free(buf);
        if (!plan) {
            free_opts(&o);
            return cli_usage_error(c, &CMD_RUN, "--plan %s: not a readable binary smartssd.v1.Plan", o.plan_file);
        }
    }
    if ((rc = cli_open(c, pos[0]))) goto out;
    uint64_t size, input = cli_find_object(c, o.input, &size), device_ns = 0;
    rc = EXIT_DEVICE;
    if (!input) goto out;

    if (o.nf) {
        char ferr[512];
        filter = filter_build(c, &o, pos[1], ferr, sizeof ferr);
        if (!filter) {
            rc = cli_usage_error(c, &CMD_RUN, "%s", ferr);
            goto out;
        }
    }
    Smartssd__V1__CreateObject ct = SMARTSSD__V1__CREATE_OBJECT__INIT;
    ct.filter = filter;
    ct.kind = SMARTSSD__V1__OBJECT_KIND__TASKLET;
    ct.name = pos[1];
    ct.n_params = o.ns;
    ct.params = o.sparams;
    ct.plan = plan;
    uint64_t tid = create_obj(c, &ct, &device_ns);
    if (!tid) goto out;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__OUTPUT;
    co.n_params = o.nr;
    co.params = o.rparams;
    co.n_keywords = o.nk;
    co.keywords = o.keywords;
    co.max_outputs = o.max_outputs;
    uint64_t oid = create_obj(c, &co, &device_ns);
    if (!oid) goto out;

    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ExecuteObject ex = SMARTSSD__V1__EXECUTE_OBJECT__INIT;
    Smartssd__V1__Extent ext = SMARTSSD__V1__EXTENT__INIT;
    ext.object_id = input;
    ext.offset = o.offset;
    if (o.have_length) ext.length = o.length;
    else ext.whole = 1;
    ex.tasklet_id = tid;
    ex.output_id = oid;
    ex.input = &ext;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_EXECUTE_OBJECT;
    req.execute_object = &ex;
    Smartssd__V1__Response *r = cli_call(c, &req, NULL);
    if (!r) goto out;
    device_ns += r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);

    json_object *rows = json_object_new_array();
    uint64_t nrows = 0, polls = 0, task_ns = 0, flash = 0, to_host = 0, pages = 0, filtered = 0;
    int truncated = 0;
    for (;;) {
        Smartssd__V1__Request rq = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
        ro.object_id = oid;
        rq.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
        rq.read_object = &ro;
        r = cli_call(c, &rq, NULL);
        if (!r) {
            json_object_put(rows);
            goto out;
        }
        polls++;
        device_ns += r->device_ns;
        Smartssd__V1__ReadObjectReply *rr = r->read_object;
        if (decode_rows(rr->data.data, rr->data.len, rows, &nrows)) {
            smartssd__v1__response__free_unpacked(r, NULL);
            json_object_put(rows);
            rc = cli_error(c, "INTERNAL", "result rows do not decode");
            goto out;
        }
        Smartssd__V1__Progress *p = rr->progress;
        int done = p->done;
        if (p->finished && p->status != SMARTSSD__V1__STATUS__OK) {
            cli_error(c, csd_status_name(p->status), "%s", p->message);
            smartssd__v1__response__free_unpacked(r, NULL);
            json_object_put(rows);
            goto out;
        }
        task_ns = p->device_ns;
        flash = p->flash_bytes_read;
        to_host = p->bytes_to_host;
        filtered = p->rows_filtered;
        pages = p->pages_done;
        truncated = p->truncated;
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    rc = 0;
    if (c->json) {
        json_object *res = json_object_new_object();
        json_object_object_add(res, "tasklet", json_object_new_string(pos[1]));
        json_object_object_add(res, "input", json_object_new_string(o.input));
        json_object_object_add(res, "results", summarize(pos[1], rows));
        json_object_object_add(res, "row_count", json_object_new_int64((int64_t)nrows));
        json_object_object_add(res, "truncated", json_object_new_boolean(truncated));
        json_object_object_add(res, "device_ns", json_object_new_int64((int64_t)task_ns));
        json_object_object_add(res, "commands_device_ns", json_object_new_int64((int64_t)device_ns));
        json_object_object_add(res, "pages", json_object_new_int64((int64_t)pages));
        json_object_object_add(res, "flash_bytes_read", json_object_new_int64((int64_t)flash));
        json_object_object_add(res, "bytes_to_host", json_object_new_int64((int64_t)to_host));
        json_object_object_add(res, "rows_filtered", json_object_new_int64((int64_t)filtered));
        json_object_object_add(res, "polls", json_object_new_int64((int64_t)polls));
        cli_json_print(res);
    } else {
        for (size_t i = 0; i < json_object_array_length(rows); i++) {
            json_object *row = json_object_array_get_idx(rows, i);
            for (size_t k = 0; k < json_object_array_length(row); k++) {
                json_object *v = json_object_array_get_idx(row, k);
                printf("%s%s", k ? "\t" : "", v ? json_object_get_string(v) : "NULL");
            }
            printf("\n");
        }
        printf("# %" PRIu64 " rows%s; tasklet device time %.3f ms over %" PRIu64 " pages; flash read %" PRIu64
               " bytes; sent to host %" PRIu64 " bytes\n",
               nrows, truncated ? " (truncated)" : "", task_ns / 1e6, pages, flash, to_host);
    }
    json_object_put(rows);
out:
    if (plan) smartssd__v1__plan__free_unpacked(plan, NULL);
    if (filter) smartssd__v1__expr__free_unpacked(filter, NULL);
    free_opts(&o);
    return rc;
}

const subcmd CMD_RUN = {
    "run", "IMAGE TASKLET --input NAME [--offset N --length N] [--param K=V...]",
    "run a tasklet inside the device over a data object (or an extent of it)", run_run,
    "options:\n"
    "  --input NAME         data object to process (required)\n"
    "  --offset N           extent start, bytes (default 0)\n"
    "  --length N           extent length, bytes (default: to the end)\n"
    "  --param K=V          static tasklet parameter (create_object TASKLET), repeatable\n"
    "  --runtime K=V        runtime parameter (create_object OUTPUT), repeatable\n"
    "  --keyword K          runtime search keyword, repeatable\n"
    "  --filter 'C OP V'    keep only rows where the tasklet's declared column C passes (OP: = <> < <= > >=\n"
    "                       STARTS_WITH ENDS_WITH CONTAINS; or 'C IN V1,V2', 'C IS [NOT] NULL'); the device\n"
    "                       drops the others before shipping them; repeatable (all must hold)\n"
    "  --max-outputs N      stop after N result rows\n"
    "  --plan FILE          binary smartssd.v1.Plan for the 'plan' tasklet\n"
    "tasklets: see 'csd identify IMAGE' and docs/TASKLETS.md\n"
    "--json prints {results, device_ns, flash_bytes_read, bytes_to_host, ...}; weblog-q1 gives\n"
    "results.regions (region -> count), grep and grep2 in count mode results.count.\n",
};
