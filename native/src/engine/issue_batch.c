/* Batch issue (engine/engine.h, "Batch issue"; Smart SSD paper IV-A): a request reads its pages in
 * batches of isp_batch_pages into one ISP buffer shared by all requests, and an idle core serves the
 * request the policy's pick() names, taking its lowest-index ready page. */
#include "engine/engine_int.h"

#include <errno.h>
#include <stdlib.h>

static void page_arrived(csd_flash_op *op, uint64_t t);
static void batch_room(csd_engine *e);

static void set_arrived(csd_hreq *h, uint64_t t) {
    page_op *po = h->arg;
    page_arrived(&po->op, t);
}

static uint64_t buffer_pages(const csd_engine *e) {
    uint64_t n = e->p.isp_buffer_bytes / e->p.page_bytes;
    return n ? n : 1;
}

/* Issue r's next batch of isp_batch_pages (paper V-A: internal reads fetch 128 pages at a time) as
 * soon as the ISP buffer has room for the whole batch, so a request's batches overlap and one
 * request alone reaches the device's internal read bandwidth. A buffer smaller than a batch makes
 * the batch that small; an empty buffer always takes at least one page, so nothing can deadlock. */
static void issue_for(csd_engine *e, csd_isp_req *r) {
    if (r->dead || r->issue_next >= csd_eng_req_pages(r)) return;
    uint64_t batch = e->p.isp_batch_pages < buffer_pages(e) ? e->p.isp_batch_pages : buffer_pages(e);
    uint64_t want = csd_eng_req_pages(r) - r->issue_next;
    if (want > batch) want = batch;
    uint64_t room = e->buf_used < e->p.isp_buffer_bytes
                        ? (e->p.isp_buffer_bytes - e->buf_used) / e->p.page_bytes : 0;
    if (want > room) {
        if (e->buf_used) return;          /* wait for a whole batch's room */
        want = room ? room : 1;
    }
    int any_ready = 0;
    uint64_t from = r->issue_next;
    for (uint64_t k = 0; k < want; k++) {
        uint64_t i = r->issue_next++;
        csd_flash_batch_clear(&e->isp_ops);
        uint64_t ppn = r->src.ppn_ops ? r->src.ppn_ops(r->src.arg, r->first + i, &e->isp_ops)
                                      : r->src.ppn(r->src.arg, r->first + i);
        r->ppn[i] = ppn;
        csd_eng_buf_take(e);
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
        po->op = (csd_flash_op){ .kind = CSD_FLASH_READ, .src = CSD_SRC_ISP, .ppn = ppn, .owner = r, .req_id = r->view.id,
                                 .match = r->match, .done = page_arrived, .arg = po };
        r->state[i] = PG_INFLIGHT;
        r->batch_left++;
        r->refs++;
        if (e->isp_ops.n) {
            /* a map-cached FTL: the page's command set (map reads first; DRS paper II-A) */
            po->set = (csd_hreq){ .type = CSD_REQ_READ, .pages = 1, .id = r->view.id, .done = set_arrived, .arg = po };
            if (csd_cmdset_submit(e->cmdset, &po->set, &e->isp_ops) == 0) continue;
        }
        csd_flash_submit(e->flash, &po->op);
    }
    /* only pages the engine's thread reads itself: a request fed ahead by workers keeps the second
     * core busy already, and a reader there took it from them (docs/perf-journal.md, "The reader thread") */
    if (e->post && !r->ah) e->post(e->post_arg, r->ppn + from, r->issue_next - from);
    csd_eng_ahead_load(e, r);
    if (any_ready) csd_eng_kick(e);
}

/* Requests issue in submission order whenever room appears. */
static void batch_room(csd_engine *e) {
    for (csd_isp_req *r = e->head; r; r = r->next) issue_for(e, r);
}

/* Two-stage processing, stage 1 on the pattern-matching unit (2PM paper III-B): the page went through
 * its channel's unit and is classified now. It needs no core; the request's second stage (finish())
 * waits for a core once every page is through. */
static void pm_done_ev(csd_sim *sim, void *arg) {
    page_op *po = arg;
    csd_isp_req *r = po->r;
    csd_engine *e = r->e;
    uint64_t rel = po->page;
    po->free_next = r->pool_free;
    r->pool_free = po;
    csd_eng_buf_give(e);
    if (r->dead) {
        r->state[rel] = PG_DROPPED;
    } else {
        const uint8_t *data;
        size_t len;
        csd_cost cost = { 0, 0 };
        int cls = 0, more = 0;
        int rc = csd_eng_page_data(e, r, rel, &data, &len);
        if (rc == 0) rc = r->work.stage1(r->work.arg, r->first + rel, data, len, &cost, &cls, &more);
        if (rc == 0 && more && rel + 1 == csd_eng_req_pages(r)) rc = csd_eng_s1_grow(e, r);
        r->state[rel] = PG_DONE;
        r->view.pages_done++;
        e->st.isp_pages++;
        if (rc < 0) {
            csd_eng_req_end(e, r, rc);
        } else {
            csd_eng_s1_report(e, r, cls);
            if (r->view.pages_done == csd_eng_req_pages(r)) {
                r->empty_pending = 1;      /* the second stage waits for a core */
                csd_eng_kick(e);
            }
        }
    }
    (void)sim;
    csd_eng_req_unref(e, r);
    batch_room(e);
}

static void page_arrived(csd_flash_op *op, uint64_t t) {
    page_op *po = op->arg;
    csd_isp_req *r = po->r;
    csd_engine *e = r->e;
    r->batch_left--;
    r->flash_bytes += e->p.page_bytes;
    if (e->pm && r->work.stage1 && !r->dead && po->page < csd_eng_req_pages(r)) {
        /* on its channel's pattern-matching unit, pipelined behind the page before it there */
        uint32_t ch = csd_flash_channel_of(e->flash, csd_flash_chip_of(e->flash, op));
        size_t len = r->first + po->page == r->max_page ? r->last_len : e->p.page_bytes;
        uint64_t end = csd_serial_reserve(&e->pm[ch], t, csd_xfer_ns(len, e->p.pm_bytes_per_s));
        csd_eng_sched(e, end, pm_done_ev, po);   /* keeps its reference on r until then */
        return;
    }
    po->free_next = r->pool_free;
    r->pool_free = po;
    if (r->dead || po->page >= csd_eng_req_pages(r)) {
        r->state[po->page] = PG_DROPPED;   /* nobody needs it any more */
        csd_eng_buf_give(e);
    } else {
        r->state[po->page] = PG_READY;
        r->view.pages_ready++;
        csd_eng_kick(e);
    }
    csd_eng_req_unref(e, r);
    batch_room(e);
}

static int lowest_ready(csd_isp_req *r, uint64_t *rel) {
    while (r->pick_low < r->issue_next && r->state[r->pick_low] >= PG_BUSY) r->pick_low++;
    for (uint64_t i = r->pick_low; i < r->issue_next && i < csd_eng_req_pages(r); i++) {
        if (r->state[i] == PG_READY) {
            *rel = i;
            return 1;
        }
    }
    return 0;
}

static const csd_req_view *view_of(const csd_isp_req *r) { return &r->view; }

/* Two-stage processing without a pattern-matching unit: stage 1 of exactly page rel, whatever the pages
 * before it (out of order), on the core that picked it; its class is reported when the slot ends. */
static int stage1_on_core(csd_engine *e, csd_isp_req *r, uint64_t rel, uint64_t *fail_ns) {
    const uint8_t *data;
    size_t len;
    csd_cost cost = { 0, 0 };
    int cls = 0, more = 0;
    int rc = csd_eng_page_data(e, r, rel, &data, &len);
    if (rc == 0) rc = r->work.stage1(r->work.arg, r->first + rel, data, len, &cost, &cls, &more);
    r->cost_ns[rel] = csd_eng_cost_ns(e, e->p.page_cycles, &cost);
    r->fed_cost_ns += r->cost_ns[rel];
    csd_eng_charged(r, &cost);
    r->cls[rel] = (uint8_t)cls;
    if (rc == 0 && more && rel + 1 == csd_eng_req_pages(r)) rc = csd_eng_s1_grow(e, r);
    *fail_ns = r->cost_ns[rel];
    return rc;
}

static void batch_serve(csd_engine *e, core *c) {
    for (;;) {
        csd_isp_req *r = e->rb->pick(e->rs_state, c->index, csd_sim_now(e->sim), view_of);
        if (!r) return;
        uint64_t rel;
        if (r->dead || !lowest_ready(r, &rel)) {
            /* a policy must only return requests with a ready page; refuse to spin on a bad one */
            return;
        }
        uint64_t fail_ns = 0;
        uint64_t total_before = csd_eng_req_pages(r);
        int rc = r->work.stage1 ? stage1_on_core(e, r, rel, &fail_ns) : csd_eng_feed_upto(e, r, rel, &fail_ns);
        if (csd_eng_req_pages(r) != total_before) batch_room(e);   /* grew (next page) or stopped (room) */
        if (rc < 0) {
            csd_eng_fail_on(e, c, r, fail_ns, rc);
            return;
        }
        if (rel >= csd_eng_req_pages(r)) continue;   /* the page was dropped by a stop: pick again */
        r->state[rel] = PG_BUSY;
        r->view.pages_ready--;
        csd_eng_core_start(c, SLOT_PAGE, r, rel, r->cost_ns[rel], 0);
        return;
    }
}

static int batch_init(csd_engine *e) {
    if (!e->p.pm_bytes_per_s) return 0;
    e->pm = calloc(e->p.channels, sizeof *e->pm);
    return e->pm ? 0 : -ENOMEM;
}
static void batch_free(csd_engine *e) { free(e->pm); }
static uint64_t batch_pool(const csd_engine *e) { return buffer_pages(e); }
static int batch_submit(csd_engine *e, csd_isp_req *r) { return 0; }
static void batch_req_free(csd_isp_req *r) {}
static void batch_page_done(csd_engine *e, core *c, csd_isp_req *r, uint64_t rel) {
    if (r->work.stage1 && !r->dead) csd_eng_s1_report(e, r, r->cls[rel]);
}
static void batch_send_done(csd_engine *e, core *c) {}
static void batch_dropped(csd_engine *e, csd_isp_req *r, uint64_t rel) {}
static void batch_remove(csd_engine *e, csd_isp_req *r) {}
static int batch_resize(csd_engine *e, csd_isp_req *r, uint64_t old) { return 0; }
static int batch_check(const csd_engine *e, char *err, size_t errlen) { return 0; }

const csd_issue_model csd_issue_batch = {
    .name = "batch", .init = batch_init, .free = batch_free, .pool = batch_pool, .submit = batch_submit,
    .start = issue_for, .req_free = batch_req_free, .serve = batch_serve, .room = batch_room,
    .page_done = batch_page_done, .send_done = batch_send_done, .dropped = batch_dropped,
    .remove = batch_remove, .resize = batch_resize, .check = batch_check,
};
