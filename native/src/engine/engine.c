/* The ISP timing engine's public face (engine/engine.h): creation (choosing the issue model), host
 * commands replayed on the flash model and the host link, tasklet requests in and out, the clock.
 * core.c has the machinery both issue models share; issue_batch.c and issue_stage.c the models;
 * docs/TIMING-MODEL.md gives every formula.
 *
 * Everything is driven by sim events; decisions that several same-time events may influence (which
 * request an idle core serves) run in one "dispatch" event scheduled at the current time, so a
 * policy sees every page that became ready at that instant. */
#include "engine/engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash/flash.h"
#include "sim/sim.h"

/* A host command being replayed; lives on csd_engine_host_io's stack while it runs the sim. */
typedef struct host_cmd {
    csd_engine *e;
    uint64_t remaining_to_host;
    size_t pending;
    uint64_t link_end;
    int done;
} host_cmd;

/* ---- public API ----------------------------------------------------------------------------- */

/* Every request_scheduler there is, for messages. */
static void sched_names(char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    const char *name;
    for (size_t i = 0; (name = csd_req_sched_name_at(i)) && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", name);
}

int csd_engine_check_sched(const csd_params *p, char *err, size_t errlen) {
    const csd_issue_model *im = csd_issue_find(p->issue_model);
    if (!im) {
        snprintf(err, errlen, "issue_model '%s' is unknown (known: batch, stage)", p->issue_model);
        return -EINVAL;
    }
    const char *name = p->request_scheduler;
    const int batch = im == &csd_issue_batch;
    if (batch ? !csd_req_batch_find(name) : !csd_req_stage_find(name)) {
        char known[256];
        sched_names(known, sizeof known);
        if (batch ? csd_req_stage_find(name) != NULL : csd_req_batch_find(name) != NULL)
            snprintf(err, errlen, "request_scheduler '%s' has no %s issue model: set issue_model = %s", name,
                     batch ? "batch" : "stage", batch ? "stage" : "batch");
        else
            snprintf(err, errlen, "request_scheduler '%s' is unknown (known: %s)", name, known);
        return -EINVAL;
    }
    if (batch && (p->isp_send_ns || p->isp_flash_quota)) {
        snprintf(err, errlen, "isp_send_ns and isp_flash_quota are the stage issue model's: set issue_model = stage, "
                 "or leave them 0");
        return -EINVAL;
    }
    if (!batch && p->page_bytes && p->isp_buffer_bytes / p->page_bytes < p->cores) {
        snprintf(err, errlen, "the stage model (request_scheduler '%s') needs isp_buffer_bytes of at least one page "
                 "per core (%u pages)", name, p->cores);
        return -EINVAL;
    }
    return 0;
}

const char *csd_engine_issue_model_at(size_t i) {
    const csd_issue_model *m = csd_issue_at(i);
    return m ? m->name : NULL;
}

int csd_engine_create(csd_engine **out, const csd_params *p, char *err, size_t errlen) {
    *out = NULL;
    const char *bad = NULL;
    if (p->cores == 0) bad = "cores must be at least 1";
    else if (p->core_mhz == 0) bad = "core_mhz must be at least 1";
    else if (p->page_bytes == 0) bad = "page_bytes must be at least 1";
    else if (p->isp_batch_pages == 0) bad = "isp_batch_pages must be at least 1";
    else if (p->block_queue_depth == 0) bad = "block_queue_depth must be at least 1";
    else if (p->blocks_per_plane == 0) bad = "blocks_per_plane is 0: the geometry is not derived yet";
    if (bad) {
        snprintf(err, errlen, "engine: %s", bad);
        return -EINVAL;
    }
    char why[300];
    if (csd_engine_check_sched(p, why, sizeof why)) {
        snprintf(err, errlen, "engine: %s", why);
        return -EINVAL;
    }
    const csd_issue_model *im = csd_issue_find(p->issue_model);
    const csd_req_batch_ops *rb = im == &csd_issue_batch ? csd_req_batch_find(p->request_scheduler) : NULL;
    const csd_req_stage_ops *rst = im == &csd_issue_stage ? csd_req_stage_find(p->request_scheduler) : NULL;
    /* how the baselines use the cores and the flash; REMUS's assignment is its own (sched/adapt.h) */
    uint32_t adapt = CSD_ADAPT_ENGINE;
    if (rst) {
        if (csd_adapt_parse(p->baseline_adaptation, &adapt, why, sizeof why)) {
            snprintf(err, errlen, "engine: %s", why);
            return -EINVAL;
        }
        if (rst->own_assignment) adapt = CSD_ADAPT_ENGINE;
    }
    csd_engine *e = calloc(1, sizeof *e);
    if (!e) goto nomem;
    e->p = *p;
    e->adapt = adapt;
    e->rb = rb;
    e->rst = rst;
    e->im = im;
    e->next_id = 1;
    e->sim = csd_sim_create();
    e->cores = calloc(p->cores, sizeof *e->cores);
    e->page_buf = malloc(p->page_bytes);
    if (!e->sim || !e->cores || !e->page_buf) goto nomem;
    for (uint32_t i = 0; i < p->cores; i++) e->cores[i] = (core){ .e = e, .index = i };
    int rc = csd_flash_create(&e->flash, p, e->sim, err, errlen);
    if (rc) {
        csd_engine_destroy(e);
        return rc;
    }
    if (csd_cmdset_create(&e->cmdset, e->flash) != 0) goto nomem;
    if ((rb ? rb->init(&e->rs_state, p) : rst->init(&e->rs_state, p)) != 0) goto nomem;
    if (im->init(e) != 0) goto nomem;
    if (csd_eng_pool_create(e) != 0) goto nomem;
    *out = e;
    return 0;
nomem:
    csd_engine_destroy(e);
    snprintf(err, errlen, "engine: out of memory");
    return -ENOMEM;
}

void csd_engine_destroy(csd_engine *e) {
    if (!e) return;
    csd_isp_req *r = e->head;
    while (r) {
        csd_isp_req *n = r->next;
        csd_eng_req_free(r);
        r = n;
    }
    csd_eng_blk_free(e);
    csd_eng_pool_destroy(e);
    if (e->rs_state && e->rb) e->rb->destroy(e->rs_state);
    if (e->rs_state && e->rst) e->rst->destroy(e->rs_state);
    if (e->im) e->im->free(e);
    csd_cmdset_destroy(e->cmdset);
    csd_flash_batch_free(&e->isp_ops);
    csd_flash_destroy(e->flash);
    csd_sim_destroy(e->sim);
    free(e->host_ops);
    free(e->page_buf);
    free(e->cores);
    free(e);
}

uint64_t csd_engine_now(const csd_engine *e) { return csd_sim_now(e->sim); }

/* ---- host commands -------------------------------------------------------------------------- */

static void host_done_ev(csd_sim *sim, void *arg) {
    (void)sim;
    ((host_cmd *)arg)->done = 1;
}

static void host_ops_done(host_cmd *h) {
    csd_engine *e = h->e;
    uint64_t now = csd_sim_now(e->sim);
    if (h->remaining_to_host) {
        uint64_t end = csd_serial_reserve(&e->link, now, csd_xfer_ns(h->remaining_to_host, e->p.host_link_bytes_per_s));
        h->remaining_to_host = 0;
        if (end > h->link_end) h->link_end = end;
    }
    csd_eng_sched(e, h->link_end > now ? h->link_end : now, host_done_ev, h);
}

/* stream a data page to the host as soon as it is in DRAM */
static void host_stream(host_cmd *h, const csd_flash_op *op, uint64_t t) {
    csd_engine *e = h->e;
    if (op->kind == CSD_FLASH_READ && op->src != CSD_SRC_MAP && op->src != CSD_SRC_GC && h->remaining_to_host) {
        /* stream this page to the host as soon as it is in DRAM */
        uint64_t chunk = h->remaining_to_host < e->p.page_bytes ? h->remaining_to_host : e->p.page_bytes;
        h->remaining_to_host -= chunk;
        uint64_t end = csd_serial_reserve(&e->link, t, csd_xfer_ns(chunk, e->p.host_link_bytes_per_s));
        if (end > h->link_end) h->link_end = end;
    }
}

static void host_op_done(csd_flash_op *op, uint64_t t) {
    host_cmd *h = op->arg;
    if (op->kind == CSD_FLASH_READ && h->remaining_to_host) {
        /* a host read: only data reads reach this path (no command sets) */
        csd_flash_op tmp = *op;
        tmp.src = CSD_SRC_HOST;
        host_stream(h, &tmp, t);
    }
    if (--h->pending == 0) host_ops_done(h);
}

typedef struct host_start { host_cmd *h; const csd_flash_batch *ops; csd_hreq set; } host_start;

static void host_set_op(csd_hreq *r, const csd_flash_op *op, uint64_t t) { host_stream(r->arg, op, t); }
static void host_set_done(csd_hreq *r, uint64_t t) {
    (void)t;
    host_ops_done(r->arg);
}

static void host_start_ev(csd_sim *sim, void *arg) {
    (void)sim;
    host_start *s = arg;
    host_cmd *h = s->h;
    csd_engine *e = h->e;
    if (h->pending == 0) {
        host_ops_done(h);
        return;
    }
    /* A map-cached FTL labels its operations with command sets (DRS paper II-A): they run set by set,
     * map commands first, through the command-set submitter, which also gives the flash-command
     * scheduler each command's request information. */
    int sets = 0, writes = 0;
    uint64_t pages = 0;
    for (size_t i = 0; i < s->ops->n; i++) {
        sets |= s->ops->ops[i].set != 0;
        writes |= s->ops->ops[i].role == CSD_ROLE_DATA && s->ops->ops[i].kind == CSD_FLASH_PROGRAM;
        pages += s->ops->ops[i].role == CSD_ROLE_DATA;
    }
    if (sets) {
        s->set = (csd_hreq){ .type = writes ? CSD_REQ_WRITE : CSD_REQ_READ, .pages = pages, .done = host_set_done,
                             .op_done = host_set_op, .arg = h };
        if (csd_cmdset_submit(e->cmdset, &s->set, s->ops) == 0) return;
        host_ops_done(h);   /* out of memory: charge the link only, rather than fail the command */
        return;
    }
    for (size_t i = 0; i < s->ops->n; i++) {
        e->host_ops[i] = (csd_flash_op){ .kind = s->ops->ops[i].kind,
                                         .src = s->ops->ops[i].gc ? CSD_SRC_GC : CSD_SRC_HOST, .ppn = s->ops->ops[i].ppn,
                                         .owner = h, .done = host_op_done, .arg = h };
        csd_flash_submit(e->flash, &e->host_ops[i]);
    }
}

uint64_t csd_engine_host_io(csd_engine *e, const csd_flash_batch *ops, uint64_t bytes_to_device,
                            uint64_t bytes_to_host) {
    uint64_t start = csd_sim_now(e->sim);
    size_t n = ops ? ops->n : 0;
    if (n > e->host_ops_cap) {
        csd_flash_op *a = realloc(e->host_ops, n * sizeof *a);
        if (a) {
            e->host_ops = a;
            e->host_ops_cap = n;
        } else {
            n = 0;   /* cannot replay the ops: charge the link only, rather than fail the command */
        }
    }
    e->st.host_commands++;
    e->st.host_bytes_in += bytes_to_device;
    e->st.host_bytes_out += bytes_to_host;
    /* command overhead and the data in hold the (half-duplex) link, one after the other */
    uint64_t t_in = csd_serial_reserve(&e->link, start,
                                       e->p.cmd_overhead_ns + csd_xfer_ns(bytes_to_device, e->p.host_link_bytes_per_s));
    host_cmd h = { .e = e, .remaining_to_host = bytes_to_host, .pending = n, .link_end = t_in };
    csd_flash_batch view = { ops ? ops->ops : NULL, n, n };
    host_start hs = { &h, &view, { 0 } };
    csd_eng_sched(e, t_in, host_start_ev, &hs);
    while (!h.done && csd_sim_step(e->sim)) {}
    return csd_sim_now(e->sim) - start;
}

/* ---- requests: public ----------------------------------------------------------------------- */

int csd_engine_submit(csd_engine *e, csd_isp_req **out, const csd_isp_work *work, const csd_page_source *src,
                      uint64_t first_page, uint64_t last_page, uint64_t max_page, uint32_t last_page_len) {
    return csd_engine_submit_ex(e, out, work, src, first_page, last_page, max_page, last_page_len, 0);
}

int csd_engine_submit_ex(csd_engine *e, csd_isp_req **out, const csd_isp_work *work, const csd_page_source *src,
                         uint64_t first_page, uint64_t last_page, uint64_t max_page, uint32_t last_page_len,
                         uint64_t ci_hint_ns) {
    *out = NULL;
    if (!work || !work->feed || !work->finish || !src || !src->ppn || !src->read || last_page_len > e->p.page_bytes)
        return -EINVAL;
    if (work->stage1 && e->im != &csd_issue_batch) return -EOPNOTSUPP;   /* two-stage: batch issue only */
    int empty = last_page < first_page;
    if (!empty && last_page > max_page) return -ERANGE;
    csd_isp_req *r = calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    r->e = e;
    r->work = *work;
    r->src = *src;
    r->first = first_page;
    r->last = last_page;
    r->max_page = max_page;
    r->last_len = last_page_len;
    r->ci_hint_ns = ci_hint_ns;
    uint64_t pages = empty ? 0 : last_page - first_page + 1;
    uint64_t pool = e->im->pool(e);
    r->pool = calloc(pool, sizeof *r->pool);
    if (!r->pool || (pages && csd_eng_req_grow(r, pages) < 0) || csd_eng_ahead_attach(e, r) < 0) {
        csd_eng_req_free(r);
        return -ENOMEM;
    }
    for (uint64_t i = 0; i < pool; i++) {
        r->pool[i].free_next = r->pool_free;
        r->pool_free = &r->pool[i];
    }
    uint64_t now = csd_sim_now(e->sim);
    r->view = (csd_req_view){ .id = e->next_id, .submit_ns = now, .pages_total = pages };
    int rc = e->im->submit(e, r);
    if (rc < 0) {
        csd_eng_req_free(r);
        return rc;
    }
    rc = e->rb ? e->rb->submit(e->rs_state, r, &r->view, now) : 0;   /* stage policies see sub-requests */
    if (rc < 0) {
        e->im->remove(e, r);
        csd_eng_req_free(r);
        return rc;
    }
    e->next_id++;
    r->in_policy = 1;
    r->prev = e->tail;
    if (e->tail) e->tail->next = r; else e->head = r;
    e->tail = r;
    e->st.isp_requests++;
    if (empty) {
        r->empty_pending = 1;
        csd_eng_kick(e);
    } else {
        e->im->start(e, r);
    }
    *out = r;
    return 0;
}

void csd_engine_progress(const csd_engine *e, const csd_isp_req *r, csd_isp_progress *p) {
    memset(p, 0, sizeof *p);
    if (!r) return;
    p->pages_done = r->view.pages_done;
    p->pages_total = csd_eng_req_pages(r);
    p->finished = r->finished;
    p->status = r->status;
    p->submit_ns = r->view.submit_ns;
    p->finish_ns = r->finish_ns;
    p->device_ns = (r->finished ? r->finish_ns : csd_sim_now(e->sim)) - r->view.submit_ns;
    p->flash_bytes_read = r->flash_bytes;
    p->core_ns = r->view.core_ns;
    p->cycles = r->charged.cycles;
    p->dram_accesses = r->charged.dram_accesses;
    p->match = r->match;
    p->matched_ns = r->matched_ns;
    p->id = r->view.id;
}

void csd_engine_release(csd_engine *e, csd_isp_req *r) {
    if (!r) return;
    csd_eng_ahead_detach(e, r);   /* the caller may free the work once this returns */
    if (!r->finished) {
        /* cancelled: stop issuing and picking; pages in flight or on a core finish on their own */
        r->dead = 1;
        csd_eng_drop_ready(e, r, 0);
        csd_eng_policy_remove(e, r);
    }
    r->released = 1;
    r->empty_pending = 0;
    if (r->refs == 0) {
        csd_eng_req_unlink(e, r);
        csd_eng_req_free(r);
    }
    e->im->room(e);   /* dropped pages may have made room in the buffer */
}

int csd_engine_step(csd_engine *e) { return csd_sim_step(e->sim); }

int csd_engine_peek(const csd_engine *e, uint64_t *t) { return csd_sim_peek(e->sim, t); }

void csd_engine_run_until(csd_engine *e, uint64_t t) {
    uint64_t next;
    while (csd_sim_peek(e->sim, &next) && next <= t) csd_sim_step(e->sim);
    csd_sim_advance(e->sim, t);
}

void csd_engine_run_until_finished(csd_engine *e, csd_isp_req *r) {
    while (!r->finished && csd_sim_step(e->sim)) {}
}

void csd_engine_stats_get(const csd_engine *e, csd_engine_stats *s, csd_flash_stats *fs) {
    if (s) {
        *s = e->st;
        s->host_link_busy_ns = e->link.busy_ns;
        s->isp_buffer_used_bytes = e->buf_used;
        s->cores = e->p.cores;
    }
    if (fs) csd_flash_stats_get(e->flash, fs);
}

uint32_t csd_engine_chip_queued(const csd_engine *e, uint32_t chip) { return csd_flash_chip_queued(e->flash, chip); }

csd_flash *csd_engine_flash(csd_engine *e) { return e->flash; }

uint64_t csd_engine_core_busy_ns(const csd_engine *e, uint32_t core) {
    return core < e->p.cores ? e->cores[core].busy_ns : 0;
}

int csd_engine_staged(const csd_engine *e) { return e->im == &csd_issue_stage; }

const char *csd_engine_issue_model(const csd_engine *e) { return e->im->name; }

int csd_engine_check(const csd_engine *e, char *err, size_t errlen) {
    if (errlen) err[0] = 0;
    return e->im->check(e, err, errlen);
}

void csd_engine_set_post_hook(csd_engine *e, csd_engine_post_fn fn, void *arg) {
    e->post = fn;
    e->post_arg = arg;
}

void csd_engine_set_trace(csd_engine *e, csd_engine_trace_fn fn, void *arg) {
    e->trace = fn;
    e->trace_arg = arg;
}

void csd_engine_set_timeline(csd_engine *e, csd_trace *t) {
    e->timeline = t;
    csd_flash_set_trace(e->flash, t);
}

void csd_engine_visit_requests(const csd_engine *e, void (*fn)(void *arg, uint64_t id, const csd_isp_progress *p),
                               void *arg) {
    for (const csd_isp_req *r = e->head; r; r = r->next) {
        if (r->released) continue;
        csd_isp_progress p;
        csd_engine_progress(e, r, &p);
        fn(arg, r->view.id, &p);
    }
}
