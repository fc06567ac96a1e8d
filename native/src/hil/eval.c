/* A built-in tasklet on the host (smartssd/eval.h): the execution a device's execute_object would
 * create (runtime/exec.c: framing, extent ownership, the tasklet's fast-path hooks, a pushed row
 * filter), fed with pages the host read instead of pages from flash, and no engine: nothing here is
 * timed. The checks are create_object's and execute_object's (cmd_tasklet.c), so a request refused on
 * the device is refused here with the same reason. */
#include "smartssd/eval.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/row_filter.h"
#include "runtime/exec.h"
#include "smartssd/v1/device.pb-c.h"
#include "tasklets/registry.h"

struct csd_eval {
    Smartssd__V1__CreateObject *tm, *om;   /* the messages; params and keywords point into them */
    csd_kv *sp, *rp;
    uint8_t *plan;
    size_t plan_len;
    csd_decl decl;
    csd_row_filter *rf;
    csd_tasklet_diag diag;
    csd_tasklet_args args;
    csd_outbuf out;
    csd_exec *x;
    csd_cost cost;
    uint64_t pages;
    char err[512];
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return rc;
}

/* Params of m as key/value pairs pointing into m. */
static int kv_of(Smartssd__V1__Param **in, size_t n, csd_kv **out) {
    *out = NULL;
    if (!n) return 0;
    csd_kv *kv = calloc(n, sizeof *kv);
    if (!kv) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        kv[i].key = in[i]->key ? in[i]->key : "";
        kv[i].value = in[i]->value ? in[i]->value : "";
    }
    *out = kv;
    return 0;
}

static int set_filter(csd_eval *e, const csd_tasklet_ops *ops, char *err, size_t errlen) {
    int rc = csd_decl_parse(ops->schema, &e->decl, err, errlen);
    if (rc) return fail(err, errlen, -EINVAL, "tasklet '%s' declares a bad %s", ops->name, err);
    rc = csd_row_filter_check(&e->decl, e->tm->filter, ops->name, err, errlen);
    if (!rc) rc = csd_row_filter_create(&e->rf, &e->decl, e->tm->filter, ops->name, err, errlen);
    return rc;
}

int csd_eval_create(csd_eval **out, const uint8_t *tasklet_msg, size_t tasklet_len, const uint8_t *output_msg,
                    size_t output_len, uint32_t page_bytes, char *param, char *err, size_t errlen) {
    *out = NULL;
    if (param) *param = '\0';
    if (!tasklet_msg) return fail(err, errlen, -EINVAL, "no tasklet message");
    if (page_bytes < 512 || page_bytes > 65536 || (page_bytes & (page_bytes - 1)))
        return fail(err, errlen, -EINVAL, "page size %u is not a power of two in 512..65536", page_bytes);
    csd_eval *e = calloc(1, sizeof *e);
    if (!e) return fail(err, errlen, -ENOMEM, "out of memory");
    int rc = 0;
    e->tm = smartssd__v1__create_object__unpack(NULL, tasklet_len, tasklet_msg);
    if (output_msg && output_len) e->om = smartssd__v1__create_object__unpack(NULL, output_len, output_msg);
    if (!e->tm || (output_msg && output_len && !e->om)) {
        rc = fail(err, errlen, -EINVAL, "not a packed smartssd.v1.CreateObject");
        goto out;
    }
    if (e->tm->kind != SMARTSSD__V1__OBJECT_KIND__TASKLET || (e->om && e->om->kind != SMARTSSD__V1__OBJECT_KIND__OUTPUT)) {
        rc = fail(err, errlen, -EINVAL, "expected a TASKLET and an OUTPUT CreateObject");
        goto out;
    }
    const char *name = e->tm->name ? e->tm->name : "";
    const csd_tasklet_ops *ops = csd_tasklet_find(name);
    if (!ops) {
        rc = fail(err, errlen, -ENOENT, "no built-in tasklet '%s' (user tasklets run on devices only)", name);
        goto out;
    }
    if (!!e->tm->plan != !strcmp(name, "plan")) {
        rc = fail(err, errlen, -EINVAL, e->tm->plan ? "only the 'plan' tasklet takes a plan"
                                                   : "the 'plan' tasklet needs a plan");
        goto out;
    }
    if ((e->tm->filter && (rc = set_filter(e, ops, err, errlen)) != 0)) goto out;
    if ((rc = kv_of(e->tm->params, e->tm->n_params, &e->sp)) || (e->om && (rc = kv_of(e->om->params, e->om->n_params, &e->rp)))) {
        fail(err, errlen, rc, "out of memory");
        goto out;
    }
    if (e->tm->plan) {
        e->plan_len = smartssd__v1__plan__get_packed_size(e->tm->plan);
        e->plan = malloc(e->plan_len ? e->plan_len : 1);
        if (!e->plan) {
            rc = fail(err, errlen, -ENOMEM, "out of memory");
            goto out;
        }
        smartssd__v1__plan__pack(e->tm->plan, e->plan);
    }
    e->args = (csd_tasklet_args){
        .static_params = e->sp, .n_static = e->tm->n_params,
        .runtime_params = e->rp, .n_runtime = e->om ? e->om->n_params : 0,
        .keywords = e->om ? (const char *const *)e->om->keywords : NULL, .n_keywords = e->om ? e->om->n_keywords : 0,
        .plan = e->plan, .plan_len = e->plan_len, .page_bytes = page_bytes, .diag = &e->diag,
    };
    /* no output limit: the caller takes the rows after every page */
    csd_outbuf_init(&e->out, 0, e->om ? e->om->max_outputs : 0);
    rc = csd_exec_create_hooked(&e->x, ops, csd_builtin_hooks_of(ops), NULL, &e->args, &e->out, err, errlen);
    if (rc) {
        e->x = NULL;
        goto out;
    }
    if (e->rf) csd_exec_set_row_filter(e->x, csd_row_filter_keep, e->rf);
out:
    if (rc) {
        if (param) snprintf(param, CSD_EVAL_PARAM_MAX, "%s", e->diag.param);
        csd_eval_destroy(e);
        return rc;
    }
    *out = e;
    return 0;
}

int csd_eval_begin(csd_eval *e, uint64_t object_size, uint64_t offset, uint64_t length, uint64_t *first_page,
                   uint64_t *last_page, char *err, size_t errlen) {
    if (offset > object_size || length > object_size - offset)
        return fail(err, errlen, -ERANGE, "extent [%llu, +%llu) is past the end of the object (%llu bytes)",
                    (unsigned long long)offset, (unsigned long long)length, (unsigned long long)object_size);
    return csd_exec_begin(e->x, object_size, offset, length, e->args.page_bytes, first_page, last_page, err, errlen);
}

int csd_eval_feed(csd_eval *e, uint64_t page_index, const void *data, size_t len, int *need_more) {
    csd_cost c = { 0, 0 };
    int rc = csd_exec_feed(e->x, page_index, data, len, &c, need_more);
    e->cost.cycles += c.cycles;
    e->cost.dram_accesses += c.dram_accesses;
    e->pages++;
    return rc;
}

int csd_eval_finish(csd_eval *e) {
    csd_cost c = { 0, 0 };
    int rc = csd_exec_finish(e->x, &c);
    e->cost.cycles += c.cycles;
    e->cost.dram_accesses += c.dram_accesses;
    return rc;
}

size_t csd_eval_take(csd_eval *e, const uint8_t **rows) { return csd_outbuf_take(&e->out, SIZE_MAX, rows); }

void csd_eval_cost(const csd_eval *e, uint64_t *cycles, uint64_t *dram_accesses, uint64_t *pages) {
    if (cycles) *cycles = e->cost.cycles;
    if (dram_accesses) *dram_accesses = e->cost.dram_accesses;
    if (pages) *pages = e->pages;
}

int csd_eval_truncated(const csd_eval *e) { return e->out.truncated; }

const char *csd_eval_error(const csd_eval *e) { return e->x ? csd_exec_error(e->x) : ""; }

void csd_eval_destroy(csd_eval *e) {
    if (!e) return;
    if (e->x) csd_exec_destroy(e->x);
    csd_row_filter_destroy(e->rf);
    csd_outbuf_free(&e->out);
    free(e->plan);
    free(e->sp);
    free(e->rp);
    if (e->tm) smartssd__v1__create_object__free_unpacked(e->tm, NULL);
    if (e->om) smartssd__v1__create_object__free_unpacked(e->om, NULL);
    free(e);
}
