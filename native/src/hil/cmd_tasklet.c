/* Tasklet commands (paper Fig. 5): create_object(TASKLET, static params), create_object(OUTPUT,
 * runtime params), execute_object, read_object(output) with progress for adaptive polling. */
#include "hil/cmd.h"
#include "host/settings.h"
#include "sandbox/sandbox.h"
#include "tasklets/registry.h"
#include "query/row_filter.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies protobuf params into owned key/value pairs, validating count and sizes. */
static int copy_params(cmd_ctx *c, Smartssd__V1__Param **in, size_t n, csd_kv **out, const char *what) {
    *out = NULL;
    if (n > CSD_MAX_PARAMS)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "%s: %zu params exceed the limit of %d", what, n, CSD_MAX_PARAMS);
    if (!n) return 0;
    csd_kv *kv = calloc(n, sizeof *kv);
    if (!kv) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *k = in[i]->key ? in[i]->key : "", *v = in[i]->value ? in[i]->value : "";
        if (!*k || strlen(k) > 128 || strlen(v) > CSD_MAX_PARAM_BYTES) {
            vobj_kv_free(kv, i);
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "%s: param %zu needs a key of 1..128 bytes and a value of at most %d",
                            what, i, CSD_MAX_PARAM_BYTES);
        }
        kv[i].key = strdup(k);
        kv[i].value = strdup(v);
        if (!kv[i].key || !kv[i].value) {
            vobj_kv_free(kv, i + 1);
            return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
        }
    }
    *out = kv;
    return 0;
}

static int cmd_create_tasklet_checked(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c,
                                      const csd_tasklet_ops *ops);

int cmd_create_tasklet(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c) {
    const char *name = m->name ? m->name : "";
    const csd_tasklet_ops *ops = csd_tasklet_find(name);
    struct csd_user_tasklet *user = NULL;
    if (!ops) {
        /* a user program installed under that name (install_tasklet) */
        int lrc = device_program_load(d, c, name, &user);
        if (lrc == -1) return -1;
        if (user) ops = csd_user_tasklet_ops(user);
    }
    if (!ops) {
        char known[512] = "";
        for (const csd_tasklet_ops *const *t = csd_tasklets_builtin(); *t; t++) {
            if (*known) strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, (*t)->name, sizeof known - strlen(known) - 1);
        }
        return cmd_fail(c, CSD_NOT_FOUND, "create_object: unknown tasklet '%s' (built in: %s; or one installed "
                        "with install_tasklet)", name, known);
    }
    int rc_user = cmd_create_tasklet_checked(d, m, c, ops);
    if (rc_user) {
        if (user) csd_user_tasklet_put(user);
        return rc_user;
    }
    vobj *made = vobj_find(d, c->resp->create_object->object_id);
    made->user = user;
    return 0;
}

/* The rest of create_object(TASKLET) once ops is known. */
static int cmd_create_tasklet_checked(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c,
                                      const csd_tasklet_ops *ops) {
    if (m->n_keywords || m->max_outputs)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: keywords and max_outputs belong to the OUTPUT object");
    if (m->plan && strcmp(ops->name, "plan"))
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: only the 'plan' tasklet takes a plan");
    if (!m->plan && !strcmp(ops->name, "plan"))
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: the 'plan' tasklet needs a plan");
    if (vobj_count(d) >= CSD_MAX_VOLATILE_OBJECTS)
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "create_object: %d tasklet/output objects exist; delete some",
                        CSD_MAX_VOLATILE_OBJECTS);
    /* A pushed filter is checked against what the tasklet declares, here, so the host hears at once
     * which filter it may not push; an undeclared column or operator is UNSUPPORTED. */
    csd_decl *decl = NULL;
    uint8_t *filter = NULL;
    size_t filter_len = 0;
    if (m->filter) {
        char err[512] = "";
        decl = malloc(sizeof *decl);
        if (!decl) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
        int rc = csd_decl_parse(ops->schema, decl, err, sizeof err);
        if (rc) {
            free(decl);
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: tasklet '%s' declares a bad %s", ops->name, err);
        }
        csd_row_filter *trial = NULL;
        rc = csd_row_filter_check(decl, m->filter, ops->name, err, sizeof err);
        if (!rc) rc = csd_row_filter_create(&trial, decl, m->filter, ops->name, err, sizeof err);
        csd_row_filter_destroy(trial);
        if (!rc) {
            filter_len = smartssd__v1__expr__get_packed_size(m->filter);
            filter = malloc(filter_len ? filter_len : 1);
            if (filter) smartssd__v1__expr__pack(m->filter, filter);
            else rc = -ENOMEM;
        }
        if (rc) {
            free(decl);
            int st = rc == -ENOTSUP ? CSD_UNSUPPORTED : rc == -ENOMEM ? CSD_RESOURCE_EXHAUSTED : CSD_INVALID_ARGUMENT;
            return cmd_fail(c, st, "create_object: %s", rc == -ENOMEM ? "out of memory" : err);
        }
    }
    csd_kv *kv;
    if (copy_params(c, m->params, m->n_params, &kv, "create_object")) {
        free(decl);
        free(filter);
        return -1;
    }
    uint8_t *plan = NULL;
    size_t plan_len = 0;
    if (m->plan) {
        plan_len = smartssd__v1__plan__get_packed_size(m->plan);
        plan = malloc(plan_len ? plan_len : 1);
        if (!plan) {
            vobj_kv_free(kv, m->n_params);
            free(decl);
            free(filter);
            return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
        }
        smartssd__v1__plan__pack(m->plan, plan);
        /* Validate a plan now: it has no runtime params, so errors are best reported at create. */
        csd_tasklet_args a = { .static_params = kv, .n_static = m->n_params, .plan = plan, .plan_len = plan_len,
                               .page_bytes = d->params.page_bytes, .diag = &c->diag };
        csd_outbuf ob;
        csd_outbuf_init(&ob, 4096, 0);
        csd_exec *trial = NULL;
        char err[512] = "";
        int rc = csd_exec_create(&trial, ops, &a, &ob, err, sizeof err);
        if (trial) csd_exec_destroy(trial);
        csd_outbuf_free(&ob);
        if (rc) {
            free(plan);
            vobj_kv_free(kv, m->n_params);
            free(decl);
            free(filter);
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: invalid plan: %s", err);
        }
    }
    vobj *o = vobj_new(d, SMARTSSD__V1__OBJECT_KIND__TASKLET);
    if (!o) {
        free(decl);
        free(filter);
        free(plan);
        vobj_kv_free(kv, m->n_params);
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    }
    o->ops = ops;
    o->params = kv;
    o->n_params = m->n_params;
    o->plan = plan;
    o->plan_len = plan_len;
    o->filter = filter;
    o->filter_len = filter_len;
    o->decl = decl;
    return cmd_reply_id(c, o->id);
}

int cmd_create_output(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c) {
    if (m->plan) return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: a plan belongs to the TASKLET object");
    if (m->filter) return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: a filter belongs to the TASKLET object");
    if (m->name && *m->name) return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: an OUTPUT object has no name");
    if (m->n_keywords > CSD_MAX_PARAMS)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: %zu keywords exceed the limit of %d", m->n_keywords,
                        CSD_MAX_PARAMS);
    for (size_t i = 0; i < m->n_keywords; i++)
        if (strlen(m->keywords[i]) > CSD_MAX_PARAM_BYTES)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: keyword %zu is longer than %d bytes", i,
                            CSD_MAX_PARAM_BYTES);
    if (vobj_count(d) >= CSD_MAX_VOLATILE_OBJECTS)
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "create_object: %d tasklet/output objects exist; delete some",
                        CSD_MAX_VOLATILE_OBJECTS);
    csd_kv *kv;
    if (copy_params(c, m->params, m->n_params, &kv, "create_object")) return -1;
    char **kw = m->n_keywords ? calloc(m->n_keywords, sizeof *kw) : NULL;
    vobj *o = (m->n_keywords && !kw) ? NULL : vobj_new(d, SMARTSSD__V1__OBJECT_KIND__OUTPUT);
    if (!o) {
        free(kw);
        vobj_kv_free(kv, m->n_params);
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    }
    o->rparams = kv;
    o->n_rparams = m->n_params;
    o->keywords = kw;
    for (size_t i = 0; i < m->n_keywords; i++) {
        kw[i] = strdup(m->keywords[i]);
        o->n_keywords = i + 1;
        if (!kw[i]) {
            vobj_free(d, o);
            return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
        }
    }
    o->max_outputs = m->max_outputs;
    csd_outbuf_init(&o->out, d->params.output_buffer_bytes, m->max_outputs);
    return cmd_reply_id(c, o->id);
}

/* Through a map-cached FTL the translation has its own flash commands (cache-line fetches, evictions):
 * the engine replays them (ops) before the data read. */
static uint64_t src_ppn_ops(void *arg, uint64_t page_index, csd_flash_batch *ops) {
    page_src_ctx *s = arg;
    uint64_t ppn;
    /* a page the tasklet will not look at is not read from flash (it arrives as zeros) */
    if (s->run && !csd_exec_needs_page(s->run, page_index)) return CSD_PPN_NONE;
    return csd_ftl_translate(s->dev->ftl, s->object_id, page_index, ops, &ppn) ? CSD_PPN_NONE : ppn;
}

static uint64_t src_ppn(void *arg, uint64_t page_index) { return src_ppn_ops(arg, page_index, NULL); }

static int src_read(void *arg, uint64_t ppn, uint8_t *buf) {
    page_src_ctx *s = arg;
    return csd_ftl_read_ppn(s->dev->ftl, ppn, buf);
}

static const uint8_t *src_view(void *arg, uint64_t ppn, int *rc) {
    page_src_ctx *s = arg;
    return csd_ftl_view_ppn(s->dev->ftl, ppn, rc);
}

int cmd_execute(csd_device *d, const Smartssd__V1__ExecuteObject *m, cmd_ctx *c) {
    vobj *t = vobj_use(d, m->tasklet_id);
    if (!t || t->kind != SMARTSSD__V1__OBJECT_KIND__TASKLET)
        return cmd_fail(c, CSD_NOT_FOUND, "execute_object: no tasklet object %" PRIu64 "%s", m->tasklet_id,
                        vobj_gone(d, m->tasklet_id));
    vobj *o = vobj_use(d, m->output_id);
    if (!o || o->kind != SMARTSSD__V1__OBJECT_KIND__OUTPUT)
        return cmd_fail(c, CSD_NOT_FOUND, "execute_object: no output object %" PRIu64 "%s", m->output_id,
                        vobj_gone(d, m->output_id));
    if (o->state != RUN_IDLE)
        return cmd_fail(c, CSD_BUSY, "execute_object: output object %" PRIu64 " already holds a run; create a new one",
                        m->output_id);
    if (!m->input) return cmd_fail(c, CSD_INVALID_ARGUMENT, "execute_object: an input extent is required");
    const Smartssd__V1__Extent *x = m->input;
    csd_obj_info info;
    if (x->object_id == 0 || x->object_id >= CSD_VOLATILE_ID_BASE || csd_ftl_obj_stat(d->ftl, x->object_id, &info) ||
        cmd_block_reserved(info.name))
        return cmd_fail(c, CSD_NOT_FOUND, "execute_object: no data object %" PRIu64 " to read", x->object_id);
    uint64_t off = x->offset, len = x->length;
    if (x->whole) {
        if (len) return cmd_fail(c, CSD_INVALID_ARGUMENT, "execute_object: give either whole or a length");
        if (off > info.size)
            return cmd_fail(c, CSD_OUT_OF_RANGE, "execute_object: offset %" PRIu64 " is past the end of '%s' (%" PRIu64
                            " bytes)", off, info.name, info.size);
        len = info.size - off;
    } else if (off > info.size || len > info.size - off) {
        return cmd_fail(c, CSD_OUT_OF_RANGE, "execute_object: extent [%" PRIu64 ", +%" PRIu64 ") is past the end of '%s' (%"
                        PRIu64 " bytes)", off, len, info.name, info.size);
    }

    o->diag = (csd_tasklet_diag){ "" };   /* a refused execute may be retried on the same output */
    o->args = (csd_tasklet_args){
        .static_params = t->params, .n_static = t->n_params,
        .runtime_params = o->rparams, .n_runtime = o->n_rparams,
        .keywords = (const char *const *)o->keywords, .n_keywords = o->n_keywords,
        .plan = t->plan, .plan_len = t->plan_len, .page_bytes = d->params.page_bytes, .diag = &o->diag,
    };
    char err[512] = "";
    const csd_exec_host host = { CSD_HOST_THREADS(&d->params), d->pool };
    int rc = t->user ? csd_exec_create_hooked(&o->run, t->ops, csd_user_tasklet_hooks(t->user), NULL, &o->args,
                                              &o->out, err, sizeof err)
                     : csd_exec_create_hooked(&o->run, t->ops, csd_builtin_hooks_of(t->ops), &host, &o->args,
                                              &o->out, err, sizeof err);
    if (rc) {
        o->run = NULL;
        c->diag = o->diag;
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "execute_object: tasklet '%s': %s", t->ops->name, err);
    }
    if (t->filter) {
        /* each run its own compiled filter: evaluation keeps per-row state */
        csd_row_filter_destroy(o->rfilter);
        o->rfilter = NULL;
        Smartssd__V1__Expr *e = smartssd__v1__expr__unpack(NULL, t->filter_len, t->filter);
        rc = e ? csd_row_filter_create(&o->rfilter, t->decl, e, t->ops->name, err, sizeof err) : -ENOMEM;
        if (e) smartssd__v1__expr__free_unpacked(e, NULL);
        if (rc) {
            csd_exec_destroy(o->run);
            o->run = NULL;
            return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "execute_object: tasklet '%s': cannot compile its filter: %s",
                            t->ops->name, rc == -ENOMEM ? "out of memory" : err);
        }
        csd_exec_set_row_filter(o->run, csd_row_filter_keep, o->rfilter);
    }
    uint64_t first, last;
    rc = csd_exec_begin(o->run, info.size, off, len, d->params.page_bytes, &first, &last, err, sizeof err);
    if (rc) {
        csd_exec_destroy(o->run);
        o->run = NULL;
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "execute_object: tasklet '%s' on '%s': %s", t->ops->name, info.name, err);
    }
    o->src_ctx = (page_src_ctx){ d, x->object_id, o->run };
    o->src = (csd_page_source){ .arg = &o->src_ctx, .ppn = src_ppn, .read = src_read, .view = src_view,
                                .ppn_ops = src_ppn_ops };
    uint64_t max_page = info.size ? (info.size - 1) / d->params.page_bytes : 0;
    uint32_t last_len = info.size ? (uint32_t)(info.size - max_page * d->params.page_bytes) : 0;
    cmd_charge(d, c, NULL, 0, 0);
    o->work = csd_exec_work(o->run);
    rc = csd_engine_submit(d->eng, &o->req, &o->work, &o->src, first, last, max_page, last_len);
    if (rc) {
        csd_exec_destroy(o->run);
        o->run = NULL;
        return cmd_fail_errno(c, rc, "execute_object: cannot start: %s", strerror(-rc));
    }
    o->state = RUN_RUNNING;
    o->tasklet_id = t->id;
    if (t->user && !o->user) {
        /* the run's ops live in the program: hold it as long as the run exists */
        o->user = t->user;
        csd_user_tasklet_ref(t->user);
    }
    o->input_id = x->object_id;
    t->users++;
    d->running++;
    Smartssd__V1__ExecuteObjectReply *rep = cmd_alloc(c, sizeof *rep);
    if (!rep) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__execute_object_reply__init(rep);
    rep->pages_total = last >= first ? last - first + 1 : 0;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_EXECUTE_OBJECT;
    c->resp->execute_object = rep;
    if (d->background) pthread_cond_signal(&d->work_cv);
    return 0;
}

int cmd_read_output(csd_device *d, vobj *o, const Smartssd__V1__ReadObject *m, cmd_ctx *c) {
    if (o->state == RUN_IDLE)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "read_object: output object %" PRIu64 " has not been executed", o->id);
    if (m->offset) return cmd_fail(c, CSD_INVALID_ARGUMENT, "read_object: an output object is read in order; offset must be 0");
    size_t max = m->length ? (size_t)m->length : CSD_DEFAULT_RESULT_CHUNK;
    int to_payload = c->payload && c->payload->out;
    if (to_payload && max > c->payload->out_cap) max = c->payload->out_cap;
    if (!to_payload && max > CSD_MAX_PACKET - 4096) max = CSD_MAX_PACKET - 4096;
    /* Without a device thread, a poll advances the device until this output has a full chunk or its
     * run ends: deterministic, and results larger than the output buffer still flow. */
    size_t enough = max < o->out.limit_bytes / 2 ? max : o->out.limit_bytes / 2;
    while (!d->background && o->state == RUN_RUNNING && o->out.len - o->out.read_pos < enough) {
        int stepped = 0;
        while (stepped < 64 && csd_engine_step(d->eng)) stepped++;
        vobj_poll_runs(d);
        if (!stepped) break;
    }
    const uint8_t *p;
    size_t n = csd_outbuf_take(&o->out, max, &p);
    Smartssd__V1__ReadObjectReply *rep = cmd_alloc(c, sizeof *rep);
    Smartssd__V1__Progress *pr = cmd_alloc(c, sizeof *pr);
    uint8_t *buf = to_payload ? c->payload->out : cmd_alloc(c, n);
    if (!rep || !pr || !buf) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    if (n) memcpy(buf, p, n);
    /* The device thread may be waiting for the host to drain this output. */
    if (n && d->background) pthread_cond_signal(&d->work_cv);
    cmd_charge(d, c, NULL, 0, n);
    o->bytes_to_host += n;
    smartssd__v1__read_object_reply__init(rep);
    smartssd__v1__progress__init(pr);
    if (to_payload) {
        rep->payload_length = n;
    } else {
        rep->data.data = buf;
        rep->data.len = n;
    }
    csd_isp_progress ip;
    csd_engine_progress(d->eng, o->req, &ip);
    pr->pages_done = ip.pages_done;
    pr->pages_total = ip.pages_total;
    pr->finished = o->state == RUN_FINISHED;
    pr->done = pr->finished && o->out.read_pos == o->out.len;
    pr->truncated = o->out.truncated;
    pr->status = (Smartssd__V1__Status)o->status;
    pr->message = o->message;
    pr->device_ns = ip.device_ns;
    pr->flash_bytes_read = ip.flash_bytes_read;
    pr->bytes_to_host = o->bytes_to_host;
    pr->rows_filtered = o->out.filtered;
    pr->rows = o->out.rows;
    pr->core_ns = ip.core_ns;
    pr->cycles = ip.cycles;
    pr->dram_accesses = ip.dram_accesses;
    rep->progress = pr;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_READ_OBJECT;
    c->resp->read_object = rep;
    return 0;
}

int cmd_delete_vobj(csd_device *d, vobj *o, cmd_ctx *c) {
    if (o->kind == SMARTSSD__V1__OBJECT_KIND__TASKLET && o->users)
        return cmd_fail(c, CSD_BUSY, "delete_object: tasklet %" PRIu64 " is running; delete its output objects first",
                        o->id);
    /* Deleting a running output cancels its run. */
    vobj_free(d, o);
    return 0;
}
