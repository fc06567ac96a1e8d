/* The device's timing core (isp/engine.h): host commands replayed on the flash model and the host
 * link, tasklet requests read in batches into the ISP buffer and processed page by page on the
 * embedded cores, under a request-scheduling policy. docs/TIMING-MODEL.md gives every formula.
 *
 * Everything is driven by sim events; decisions that several same-time events may influence (which
 * request an idle core serves) run in one "dispatch" event scheduled at the current time, so a
 * policy sees every page that became ready at that instant. Stage mode (REMUS, engine.h) lives in
 * engine_stage.c; this file calls it at the points where the two modes differ. */
#include "isp/engine_int.h"

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

static void sched(csd_engine *e, uint64_t t, csd_sim_fn fn, void *arg) {
    /* The heap only grows past its high-water mark; losing an event would corrupt virtual time. */
    if (csd_sim_at(e->sim, t, fn, arg) != 0) abort();
}

/* ---- cost model ---------------------------------------------------------------------------- */

static uint64_t cost_ns(const csd_engine *e, uint64_t base_cycles, const csd_cost *c) {
    /* ceil(cycles * 1000 / mhz), split so a huge charge cannot overflow */
    uint64_t cycles = base_cycles + c->cycles, mhz = e->p.core_mhz;
    uint64_t cyc_ns = cycles / mhz * 1000 + ((cycles % mhz) * 1000 + mhz - 1) / mhz;
    return cyc_ns + c->dram_accesses * e->p.dram_access_ns;
}

/* ---- buffer --------------------------------------------------------------------------------- */

static void buf_take(csd_engine *e) {
    e->buf_used += e->p.page_bytes;
    if (e->buf_used > e->st.isp_buffer_peak_bytes) e->st.isp_buffer_peak_bytes = e->buf_used;
}

static void buf_give(csd_engine *e) { e->buf_used -= e->p.page_bytes; }

void csd_eng_sched(csd_engine *e, uint64_t t, csd_sim_fn fn, void *arg) { sched(e, t, fn, arg); }
uint64_t csd_eng_cost_ns(const csd_engine *e, uint64_t base, const csd_cost *c) { return cost_ns(e, base, c); }
void csd_eng_buf_take(csd_engine *e) { buf_take(e); }
void csd_eng_buf_give(csd_engine *e) { buf_give(e); }

/* ---- requests ------------------------------------------------------------------------------- */

static uint64_t req_pages(const csd_isp_req *r) {
    return r->last >= r->first ? r->last - r->first + 1 : 0;
}

static const csd_req_view *view_of(const csd_isp_req *r) { return &r->view; }

static void req_free(csd_isp_req *r) {
    csd_stage_req_free(r);
    free(r->core_of);
    free(r->state);
    free(r->ppn);
    free(r->cost_ns);
    free(r->pool);
    free(r);
}

static void req_unlink(csd_engine *e, csd_isp_req *r) {
    if (r->prev) r->prev->next = r->next; else e->head = r->next;
    if (r->next) r->next->prev = r->prev; else e->tail = r->prev;
    r->prev = r->next = NULL;
}

/* A released request lingers until nothing refers to it (flash reads in flight, core slots). */
static void req_unref(csd_engine *e, csd_isp_req *r) {
    if (--r->refs == 0 && r->released) {
        req_unlink(e, r);
        req_free(r);
    }
}

static int req_grow(csd_isp_req *r, uint64_t need) {
    if (need <= r->cap) return 0;
    uint64_t cap = r->cap ? r->cap : 16;
    while (cap < need) cap *= 2;
    uint8_t *st = realloc(r->state, cap);
    if (!st) return -ENOMEM;
    r->state = st;
    uint64_t *pp = realloc(r->ppn, cap * sizeof *pp);
    if (!pp) return -ENOMEM;
    r->ppn = pp;
    uint64_t *c = realloc(r->cost_ns, cap * sizeof *c);
    if (!c) return -ENOMEM;
    r->cost_ns = c;
    uint8_t *co = realloc(r->core_of, cap);
    if (!co) return -ENOMEM;
    r->core_of = co;
    memset(r->state + r->cap, PG_NONE, cap - r->cap);
    r->cap = cap;
    return 0;
}

static void policy_remove(csd_engine *e, csd_isp_req *r) {
    if (!r->in_policy) return;
    r->in_policy = 0;
    e->rs->remove(e->rs_state, r);
    if (e->staged) csd_stage_remove(e, r);
}

uint64_t csd_eng_req_pages(const csd_isp_req *r) { return req_pages(r); }
int csd_eng_req_grow(csd_isp_req *r, uint64_t need) { return req_grow(r, need); }
void csd_eng_req_unref(csd_engine *e, csd_isp_req *r) { req_unref(e, r); }

/* Drop every page that is in DRAM and not on a core (request dead, or pages past a stop). */
static void drop_ready(csd_engine *e, csd_isp_req *r, uint64_t from) {
    for (uint64_t i = from; i < r->issue_next; i++) {
        if (r->state[i] == PG_READY) {
            r->state[i] = PG_DROPPED;
            r->view.pages_ready--;
            buf_give(e);
            if (e->staged) csd_stage_dropped(e, r, i);
        }
    }
}

static void req_end(csd_engine *e, csd_isp_req *r, int status) {
    r->dead = 1;
    r->finished = 1;
    r->status = status;
    r->finish_ns = csd_sim_now(e->sim);
    drop_ready(e, r, 0);
    policy_remove(e, r);
}

/* ---- issuing batches ------------------------------------------------------------------------ */

static void kick_dispatch(csd_engine *e);
static void page_arrived(csd_flash_op *op, uint64_t t);

/* Issue r's next batch of isp_batch_pages (paper V-A: internal reads fetch 128 pages at a time) as
 * soon as the ISP buffer has room for the whole batch, so a request's batches overlap and one
 * request alone reaches the device's internal read bandwidth. A buffer smaller than a batch makes
 * the batch that small; an empty buffer always takes at least one page, so nothing can deadlock.
 * This is where a policy (REMUS) could later choose which request issues first. */
static uint64_t buffer_pages(const csd_engine *e) {
    uint64_t n = e->p.isp_buffer_bytes / e->p.page_bytes;
    return n ? n : 1;
}

static void issue_for(csd_engine *e, csd_isp_req *r) {
    if (e->staged || r->dead || r->issue_next >= req_pages(r)) return;   /* stage mode: stage S issues */
    uint64_t batch = e->p.isp_batch_pages < buffer_pages(e) ? e->p.isp_batch_pages : buffer_pages(e);
    uint64_t want = req_pages(r) - r->issue_next;
    if (want > batch) want = batch;
    uint64_t room = e->buf_used < e->p.isp_buffer_bytes
                        ? (e->p.isp_buffer_bytes - e->buf_used) / e->p.page_bytes : 0;
    if (want > room) {
        if (e->buf_used) return;          /* wait for a whole batch's room */
        want = room ? room : 1;
    }
    int any_ready = 0;
    for (uint64_t k = 0; k < want; k++) {
        uint64_t i = r->issue_next++;
        uint64_t ppn = r->src.ppn(r->src.arg, r->first + i);
        r->ppn[i] = ppn;
        buf_take(e);
        if (ppn == CSD_PPN_NONE) {
            r->state[i] = PG_READY;       /* unmapped pages read as zeros: no flash op */
            r->view.pages_ready++;
            any_ready = 1;
            continue;
        }
        page_op *po = r->pool_free;
        r->pool_free = po->free_next;
        po->r = r;
        po->page = i;
        po->op = (csd_flash_op){ .kind = CSD_FLASH_READ, .ppn = ppn, .owner = r, .done = page_arrived,
                                 .arg = po };
        r->state[i] = PG_INFLIGHT;
        r->batch_left++;
        r->refs++;
        csd_flash_submit(e->flash, &po->op);
    }
    if (any_ready) kick_dispatch(e);
}

static void issue_all(csd_engine *e) {
    for (csd_isp_req *r = e->head; r; r = r->next) issue_for(e, r);
}

static void page_arrived(csd_flash_op *op, uint64_t t) {
    (void)t;
    page_op *po = op->arg;
    csd_isp_req *r = po->r;
    csd_engine *e = r->e;
    po->free_next = r->pool_free;
    r->pool_free = po;
    r->batch_left--;
    r->flash_bytes += e->p.page_bytes;
    if (r->dead || po->page >= req_pages(r)) {
        r->state[po->page] = PG_DROPPED;   /* nobody needs it any more */
        buf_give(e);
    } else {
        r->state[po->page] = PG_READY;
        r->view.pages_ready++;
        kick_dispatch(e);
    }
    req_unref(e, r);
    issue_all(e);
}

/* ---- cores ---------------------------------------------------------------------------------- */

static void core_done_ev(csd_sim *sim, void *arg);

static void core_start(core *c, uint8_t kind, csd_isp_req *r, uint64_t page, uint64_t dur, int rc) {
    csd_engine *e = c->e;
    c->kind = kind;
    c->r = r;
    c->page = page;
    c->start = csd_sim_now(e->sim);
    c->dur = dur;
    c->rc = rc;
    r->refs++;
    if (e->trace) {
        static const char stage[] = { [SLOT_PAGE] = 'P', [SLOT_FINISH] = 'f', [SLOT_FAIL] = 'x', [SLOT_SEND] = 'S' };
        e->trace(e->trace_arg, c->index, stage[kind], r->view.id, c->start, c->start + dur,
                 kind == SLOT_SEND ? page : kind == SLOT_PAGE ? 1 : 0);
    }
    sched(e, c->start + dur, core_done_ev, c);
}

/* finish() on core c; the request ends when the slot does. */
static void start_finish(core *c, csd_isp_req *r) {
    csd_cost cost = { 0, 0 };
    int rc = csd_taskrun_finish(r->run, &cost);
    core_start(c, SLOT_FINISH, r, 0, cost_ns(c->e, 0, &cost), rc < 0 ? rc : 0);
}

/* Feed pages up to rel (inclusive) in index order. 0, or a negative errno (tasklet or read failure)
 * with *fail_ns the cost of the page that failed. Applies growth (text needs more) and stops. */
static int feed_upto(csd_engine *e, csd_isp_req *r, uint64_t rel, uint64_t *fail_ns) {
    while (r->fed_next <= rel && r->fed_next < req_pages(r)) {
        uint64_t i = r->fed_next;
        uint64_t page = r->first + i;
        size_t len = page == r->max_page ? r->last_len : e->p.page_bytes;
        const uint8_t *data = e->page_buf;
        if (r->ppn[i] == CSD_PPN_NONE) {
            memset(e->page_buf, 0, e->p.page_bytes);
        } else {
            int rc = r->src.read(r->src.arg, r->ppn[i], e->page_buf);
            if (rc < 0) {
                *fail_ns = cost_ns(e, e->p.page_cycles, &(csd_cost){ 0, 0 });
                return rc;
            }
        }
        csd_cost cost = { 0, 0 };
        int need_more = 0;
        int rc = csd_taskrun_feed(r->run, page, data, len, &cost, &need_more);
        r->cost_ns[i] = cost_ns(e, e->p.page_cycles, &cost);
        r->fed_cost_ns += r->cost_ns[i];
        r->fed_next++;
        if (rc < 0) {
            *fail_ns = r->cost_ns[i];
            return rc;
        }
        if (!need_more && i + 1 < req_pages(r)) {
            /* the tasklet stopped (or the extent ended early): later pages are not needed */
            uint64_t old = req_pages(r);
            r->last = page;
            r->view.pages_total = req_pages(r);
            if (e->staged) csd_stage_resize(e, r, old);
            drop_ready(e, r, i + 1);
        } else if (need_more && i + 1 == req_pages(r) && r->last < r->max_page) {
            /* a text line runs past the planned extent: read one more page */
            int g = req_grow(r, req_pages(r) + 1);
            if (g < 0) {
                *fail_ns = r->cost_ns[i];
                return g;
            }
            r->last++;
            r->view.pages_total = req_pages(r);
            if (e->staged && (g = csd_stage_resize(e, r, req_pages(r) - 1)) < 0) {
                *fail_ns = r->cost_ns[i];
                return g;
            }
        }
    }
    return 0;
}

static int lowest_ready(csd_isp_req *r, uint64_t *rel) {
    while (r->pick_low < r->issue_next && r->state[r->pick_low] >= PG_BUSY) r->pick_low++;
    for (uint64_t i = r->pick_low; i < r->issue_next && i < req_pages(r); i++) {
        if (r->state[i] == PG_READY) {
            *rel = i;
            return 1;
        }
    }
    return 0;
}

/* Give idle core c work, or leave it idle. */
static void core_serve(csd_engine *e, core *c) {
    for (csd_isp_req *r = e->head; r; r = r->next) {
        if (r->empty_pending && !r->dead) {
            r->empty_pending = 0;
            start_finish(c, r);
            return;
        }
    }
    if (e->staged) {
        csd_stage_serve(e, c);
        return;
    }
    for (;;) {
        csd_isp_req *r = e->rs->pick(e->rs_state, c->index, csd_sim_now(e->sim), view_of);
        if (!r) return;
        uint64_t rel;
        if (r->dead || !lowest_ready(r, &rel)) {
            /* a policy must only return requests with a ready page; refuse to spin on a bad one */
            return;
        }
        uint64_t fail_ns = 0;
        uint64_t total_before = req_pages(r);
        int rc = feed_upto(e, r, rel, &fail_ns);
        if (req_pages(r) != total_before) issue_all(e);   /* grew (next page) or stopped (room) */
        if (rc < 0) {
            csd_eng_fail_on(e, c, r, fail_ns, rc);
            return;
        }
        if (rel >= req_pages(r)) continue;   /* the page was dropped by a stop: pick again */
        r->state[rel] = PG_BUSY;
        r->view.pages_ready--;
        core_start(c, SLOT_PAGE, r, rel, r->cost_ns[rel], 0);
        return;
    }
}

void csd_eng_fail_on(csd_engine *e, core *c, csd_isp_req *r, uint64_t fail_ns, int rc) {
    r->dead = 1;                          /* no more picks; it ends when this slot does */
    drop_ready(e, r, 0);
    policy_remove(e, r);
    core_start(c, SLOT_FAIL, r, 0, fail_ns, rc);
}

void csd_eng_core_start(core *c, uint8_t kind, csd_isp_req *r, uint64_t page, uint64_t dur, int rc) {
    core_start(c, kind, r, page, dur, rc);
}

int csd_eng_feed_upto(csd_engine *e, csd_isp_req *r, uint64_t rel, uint64_t *fail_ns) {
    return feed_upto(e, r, rel, fail_ns);
}

static void dispatch_ev(csd_sim *sim, void *arg) {
    (void)sim;
    csd_engine *e = arg;
    e->dispatch_pending = 0;
    for (uint32_t i = 0; i < e->p.cores; i++)
        if (e->cores[i].kind == SLOT_IDLE) core_serve(e, &e->cores[i]);
}

static void kick_dispatch(csd_engine *e) {
    if (e->dispatch_pending) return;
    e->dispatch_pending = 1;
    sched(e, csd_sim_now(e->sim), dispatch_ev, e);
}

void csd_eng_kick(csd_engine *e) { kick_dispatch(e); }

static void core_done_ev(csd_sim *sim, void *arg) {
    core *c = arg;
    csd_engine *e = c->e;
    csd_isp_req *r = c->r;
    uint8_t kind = c->kind;
    c->busy_ns += c->dur;
    e->st.isp_core_ns += c->dur;
    r->view.core_ns += c->dur;
    c->kind = SLOT_IDLE;
    c->r = NULL;
    if (kind == SLOT_SEND) {
        csd_stage_send_done(e, c);
    } else if (kind == SLOT_PAGE) {
        r->state[c->page] = PG_DONE;
        r->view.pages_done++;
        e->st.isp_pages++;
        buf_give(e);
        if (e->staged) csd_stage_page_done(e, c, r, c->page);
        if (!r->dead && r->view.pages_done == req_pages(r) && r->fed_next >= req_pages(r)) {
            r->refs--;                    /* the finish slot takes its own reference */
            start_finish(c, r);
            issue_all(e);
            kick_dispatch(e);
            return;
        }
    } else if (!r->released) {
        req_end(e, r, c->rc);             /* FINISH or FAIL */
    }
    (void)sim;
    req_unref(e, r);
    issue_all(e);
    kick_dispatch(e);
}

/* ---- public API ----------------------------------------------------------------------------- */

int csd_engine_create(csd_engine **out, const csd_params *p, char *err, size_t errlen) {
    *out = NULL;
    const char *bad = NULL;
    if (p->cores == 0) bad = "cores must be at least 1";
    else if (p->core_mhz == 0) bad = "core_mhz must be at least 1";
    else if (p->page_bytes == 0) bad = "page_bytes must be at least 1";
    else if (p->isp_batch_pages == 0) bad = "isp_batch_pages must be at least 1";
    else if (p->blocks_per_plane == 0) bad = "blocks_per_plane is 0: the geometry is not derived yet";
    if (bad) {
        snprintf(err, errlen, "engine: %s", bad);
        return -EINVAL;
    }
    const csd_req_sched_ops *rs = csd_req_sched_find(p->request_scheduler);
    if (!rs) {
        snprintf(err, errlen, "engine: unknown request_scheduler '%s' (known: fcfs, cfs, horae, serico, "
                 "remus)", p->request_scheduler);
        return -EINVAL;
    }
    int staged = !rs->pick || p->isp_send_ns || p->isp_flash_quota;
    if (staged && !rs->decide) {
        snprintf(err, errlen, "engine: request_scheduler '%s' has no stage mode (isp_send_ns / "
                 "isp_flash_quota need one)", p->request_scheduler);
        return -EINVAL;
    }
    if (!csd_chip_sched_find(p->chip_scheduler)) {
        snprintf(err, errlen, "engine: unknown chip_scheduler '%s' (known: fcfs)", p->chip_scheduler);
        return -EINVAL;
    }
    if (staged && p->isp_buffer_bytes / p->page_bytes < p->cores) {
        snprintf(err, errlen, "engine: stage mode (request_scheduler '%s') needs isp_buffer_bytes of at least "
                 "one page per core (%u pages)", p->request_scheduler, p->cores);
        return -EINVAL;
    }
    csd_engine *e = calloc(1, sizeof *e);
    if (!e) goto nomem;
    e->p = *p;
    e->rs = rs;
    e->staged = staged;
    e->next_id = 1;
    e->sim = csd_sim_create();
    e->cores = calloc(p->cores, sizeof *e->cores);
    e->page_buf = malloc(p->page_bytes);
    if (!e->sim || !e->cores || !e->page_buf) goto nomem;
    for (uint32_t i = 0; i < p->cores; i++) e->cores[i] = (core){ .e = e, .index = i };
    int rc = csd_flash_create(&e->flash, p, e->sim);
    if (rc == -ENOMEM) goto nomem;
    if (rc) {
        snprintf(err, errlen, "engine: invalid flash geometry");
        csd_engine_destroy(e);
        return rc;
    }
    if (rs->init(&e->rs_state, p) != 0) goto nomem;
    if (staged && csd_stage_init(e) != 0) goto nomem;
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
        req_free(r);
        r = n;
    }
    if (e->rs_state) e->rs->destroy(e->rs_state);
    csd_stage_free(e);
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
    sched(e, h->link_end > now ? h->link_end : now, host_done_ev, h);
}

static void host_op_done(csd_flash_op *op, uint64_t t) {
    host_cmd *h = op->arg;
    csd_engine *e = h->e;
    if (op->kind == CSD_FLASH_READ && h->remaining_to_host) {
        /* stream this page to the host as soon as it is in DRAM */
        uint64_t chunk = h->remaining_to_host < e->p.page_bytes ? h->remaining_to_host : e->p.page_bytes;
        h->remaining_to_host -= chunk;
        uint64_t end = csd_serial_reserve(&e->link, t, csd_xfer_ns(chunk, e->p.host_link_bytes_per_s));
        if (end > h->link_end) h->link_end = end;
    }
    if (--h->pending == 0) host_ops_done(h);
}

typedef struct host_start { host_cmd *h; const csd_flash_batch *ops; } host_start;

static void host_start_ev(csd_sim *sim, void *arg) {
    (void)sim;
    host_start *s = arg;
    host_cmd *h = s->h;
    csd_engine *e = h->e;
    if (h->pending == 0) {
        host_ops_done(h);
        return;
    }
    for (size_t i = 0; i < s->ops->n; i++) {
        e->host_ops[i] = (csd_flash_op){ .kind = s->ops->ops[i].kind, .ppn = s->ops->ops[i].ppn,
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
    host_start hs = { &h, &view };
    sched(e, t_in, host_start_ev, &hs);
    while (!h.done && csd_sim_step(e->sim)) {}
    return csd_sim_now(e->sim) - start;
}

/* ---- requests: public ----------------------------------------------------------------------- */

int csd_engine_submit(csd_engine *e, csd_isp_req **out, csd_taskrun *run, const csd_page_source *src,
                      uint64_t first_page, uint64_t last_page, uint64_t max_page, uint32_t last_page_len) {
    return csd_engine_submit_ex(e, out, run, src, first_page, last_page, max_page, last_page_len, 0);
}

int csd_engine_submit_ex(csd_engine *e, csd_isp_req **out, csd_taskrun *run, const csd_page_source *src,
                         uint64_t first_page, uint64_t last_page, uint64_t max_page, uint32_t last_page_len,
                         uint64_t ci_hint_ns) {
    *out = NULL;
    if (!run || !src || !src->ppn || !src->read || last_page_len > e->p.page_bytes) return -EINVAL;
    int empty = last_page < first_page;
    if (!empty && last_page > max_page) return -ERANGE;
    csd_isp_req *r = calloc(1, sizeof *r);
    if (!r) return -ENOMEM;
    r->e = e;
    r->run = run;
    r->src = *src;
    r->first = first_page;
    r->last = last_page;
    r->max_page = max_page;
    r->last_len = last_page_len;
    r->ci_hint_ns = ci_hint_ns;
    uint64_t pages = empty ? 0 : last_page - first_page + 1;
    /* stage mode: a core has at most Q pages (so at most Q flash requests) out */
    uint64_t pool = e->staged ? e->quota_sum : buffer_pages(e);
    r->pool = calloc(pool, sizeof *r->pool);
    if (!r->pool || (pages && req_grow(r, pages) < 0)) {
        req_free(r);
        return -ENOMEM;
    }
    for (uint64_t i = 0; i < pool; i++) {
        r->pool[i].free_next = r->pool_free;
        r->pool_free = &r->pool[i];
    }
    uint64_t now = csd_sim_now(e->sim);
    r->view = (csd_req_view){ .id = e->next_id, .submit_ns = now, .pages_total = pages };
    int rc = e->staged ? csd_stage_submit(e, r) : 0;
    if (rc < 0) {
        req_free(r);
        return rc;
    }
    rc = e->rs->submit(e->rs_state, r, &r->view, now);
    if (rc < 0) {
        if (e->staged) csd_stage_remove(e, r);
        req_free(r);
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
        kick_dispatch(e);
    } else if (e->staged) {
        kick_dispatch(e);
    } else {
        issue_for(e, r);
    }
    *out = r;
    return 0;
}

void csd_engine_progress(const csd_engine *e, const csd_isp_req *r, csd_isp_progress *p) {
    memset(p, 0, sizeof *p);
    if (!r) return;
    p->pages_done = r->view.pages_done;
    p->pages_total = req_pages(r);
    p->finished = r->finished;
    p->status = r->status;
    p->submit_ns = r->view.submit_ns;
    p->finish_ns = r->finish_ns;
    p->device_ns = (r->finished ? r->finish_ns : csd_sim_now(e->sim)) - r->view.submit_ns;
    p->flash_bytes_read = r->flash_bytes;
    p->core_ns = r->view.core_ns;
}

void csd_engine_release(csd_engine *e, csd_isp_req *r) {
    if (!r) return;
    if (!r->finished) {
        /* cancelled: stop issuing and picking; pages in flight or on a core finish on their own */
        r->dead = 1;
        drop_ready(e, r, 0);
        policy_remove(e, r);
    }
    r->released = 1;
    r->empty_pending = 0;
    if (r->refs == 0) {
        req_unlink(e, r);
        req_free(r);
    }
    issue_all(e);   /* dropped pages may have made room in the buffer */
}

int csd_engine_step(csd_engine *e) { return csd_sim_step(e->sim); }

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

uint64_t csd_engine_core_busy_ns(const csd_engine *e, uint32_t core) {
    return core < e->p.cores ? e->cores[core].busy_ns : 0;
}

int csd_engine_staged(const csd_engine *e) { return e->staged; }

int csd_engine_check(const csd_engine *e, char *err, size_t errlen) {
    if (errlen) err[0] = 0;
    return e->staged ? csd_stage_check(e, err, errlen, 1) : 0;
}

void csd_engine_set_trace(csd_engine *e, csd_engine_trace_fn fn, void *arg) {
    e->trace = fn;
    e->trace_arg = arg;
}
