/* The ISP engine's shared machinery, under both issue models: the cost model, the ISP buffer,
 * requests' lifetime, and the cores (a slot per page, finish or failure; one dispatch event per
 * instant in which idle cores choose). engine.c is the public face; issue_*.c the issue models. */
#include "engine/engine_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

void csd_eng_sched(csd_engine *e, uint64_t t, csd_sim_fn fn, void *arg) {
    /* The heap only grows past its high-water mark; losing an event would corrupt virtual time. */
    if (csd_sim_at(e->sim, t, fn, arg) != 0) abort();
}

/* ---- cost model ---------------------------------------------------------------------------- */

uint64_t csd_eng_cost_ns(const csd_engine *e, uint64_t base_cycles, const csd_cost *c) {
    /* ceil(cycles * 1000 / mhz), split so a huge charge cannot overflow */
    uint64_t cycles = base_cycles + c->cycles, mhz = e->p.core_mhz;
    uint64_t cyc_ns = cycles / mhz * 1000 + ((cycles % mhz) * 1000 + mhz - 1) / mhz;
    return cyc_ns + c->dram_accesses * e->p.dram_access_ns;
}

/* ---- buffer --------------------------------------------------------------------------------- */

static void buf_traced(csd_engine *e) {
    if (e->timeline)
        csd_trace_counter(e->timeline, "isp buffer bytes", UINT32_MAX, csd_sim_now(e->sim), (int64_t)e->buf_used);
}

void csd_eng_buf_take(csd_engine *e) {
    e->buf_used += e->p.page_bytes;
    if (e->buf_used > e->st.isp_buffer_peak_bytes) e->st.isp_buffer_peak_bytes = e->buf_used;
    buf_traced(e);
}

void csd_eng_buf_give(csd_engine *e) {
    e->buf_used -= e->p.page_bytes;
    buf_traced(e);
}

/* ---- requests ------------------------------------------------------------------------------- */

void csd_eng_req_free(csd_isp_req *r) {
    csd_eng_ahead_detach(r->e, r);
    r->e->im->req_free(r);
    free(r->core_of);
    free(r->cls);
    free(r->state);
    free(r->ppn);
    if (r->kept)
        for (uint64_t i = 0; i < r->cap; i++) free(r->kept[i]);
    free(r->kept);
    free(r->cost_ns);
    free(r->pool);
    free(r);
}

void csd_eng_req_unlink(csd_engine *e, csd_isp_req *r) {
    if (r->prev) r->prev->next = r->next; else e->head = r->next;
    if (r->next) r->next->prev = r->prev; else e->tail = r->prev;
    r->prev = r->next = NULL;
}

/* A released request lingers until nothing refers to it (flash reads in flight, core slots). */
void csd_eng_req_unref(csd_engine *e, csd_isp_req *r) {
    if (--r->refs == 0 && r->released) {
        csd_eng_req_unlink(e, r);
        csd_eng_req_free(r);
    }
}

int csd_eng_req_grow(csd_isp_req *r, uint64_t need) {
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
    uint8_t *cl = realloc(r->cls, cap);
    if (!cl) return -ENOMEM;
    r->cls = cl;
    if (r->kept) {
        kept_page **k = realloc(r->kept, cap * sizeof *k);
        if (!k) return -ENOMEM;
        memset(k + r->cap, 0, (cap - r->cap) * sizeof *k);
        r->kept = k;
    }
    memset(r->state + r->cap, PG_NONE, cap - r->cap);
    r->cap = cap;
    return 0;
}

void csd_eng_policy_remove(csd_engine *e, csd_isp_req *r) {
    if (!r->in_policy) return;
    r->in_policy = 0;
    if (e->rb) e->rb->remove(e->rs_state, r);
    e->im->remove(e, r);
}

/* Drop every page that is in DRAM and not on a core (request dead, or pages past a stop). */
void csd_eng_drop_ready(csd_engine *e, csd_isp_req *r, uint64_t from) {
    for (uint64_t i = from; i < r->issue_next; i++) {
        if (r->state[i] == PG_READY) {
            r->state[i] = PG_DROPPED;
            r->view.pages_ready--;
            csd_eng_buf_give(e);
            e->im->dropped(e, r, i);
        }
    }
}

void csd_eng_req_end(csd_engine *e, csd_isp_req *r, int status) {
    r->dead = 1;
    r->finished = 1;
    r->status = status;
    r->finish_ns = csd_sim_now(e->sim);
    csd_eng_drop_ready(e, r, 0);
    csd_eng_policy_remove(e, r);
}

/* ---- cores ---------------------------------------------------------------------------------- */

static void core_done_ev(csd_sim *sim, void *arg);

void csd_eng_core_start(core *c, uint8_t kind, csd_isp_req *r, uint64_t page, uint64_t dur, int rc) {
    csd_engine *e = c->e;
    c->kind = kind;
    c->r = r;
    c->page = page;
    c->start = csd_sim_now(e->sim);
    c->dur = dur;
    c->rc = rc;
    r->refs++;
    uint64_t pages = kind == SLOT_SEND ? page : kind == SLOT_PAGE ? 1 : 0;
    if (e->trace) {
        static const char stage[] = { [SLOT_PAGE] = 'P', [SLOT_FINISH] = 'f', [SLOT_FAIL] = 'x', [SLOT_SEND] = 'S' };
        e->trace(e->trace_arg, c->index, stage[kind], r->view.id, c->start, c->start + dur, pages);
    }
    if (e->timeline) {
        /* the stage names of REMUS II-C (S, P) and the end of a request */
        static const char *const name[] = { [SLOT_PAGE] = "P", [SLOT_FINISH] = "finish", [SLOT_FAIL] = "fail",
                                            [SLOT_SEND] = "S" };
        csd_trace_span(e->timeline, CSD_TRACK_CORE, c->index, name[kind], r->view.id, c->start, c->start + dur, pages);
    }
    csd_eng_sched(e, c->start + dur, core_done_ev, c);
}

/* finish() on core c; the request ends when the slot does. */
static void start_finish(core *c, csd_isp_req *r) {
    csd_eng_ahead_detach(c->e, r);   /* finish() runs here, with no worker on the work */
    csd_cost cost = { 0, 0 };
    int rc = r->work.finish(r->work.arg, &cost);
    csd_eng_charged(r, &cost);
    csd_eng_core_start(c, SLOT_FINISH, r, 0, csd_eng_cost_ns(c->e, 0, &cost), rc < 0 ? rc : 0);
}

int csd_eng_page_data(csd_engine *e, csd_isp_req *r, uint64_t rel, const uint8_t **data, size_t *len) {
    *len = r->first + rel == r->max_page ? r->last_len : e->p.page_bytes;
    *data = e->page_buf;
    if (r->ppn[rel] == CSD_PPN_NONE) {
        memset(e->page_buf, 0, e->p.page_bytes);
        return 0;
    }
    return csd_eng_page_bytes(r, rel, e->page_buf, data);
}

void csd_eng_s1_report(csd_engine *e, csd_isp_req *r, int cls) {
    if (cls < CSD_MATCH_MISMATCHED || cls > CSD_MATCH_MATCHED || cls <= r->match) return;
    r->match = (uint8_t)cls;
    if (cls == CSD_MATCH_MATCHED) r->matched_ns = csd_sim_now(e->sim);
    csd_flash_reorder(e->flash, r, r->match);
}

int csd_eng_s1_grow(csd_engine *e, csd_isp_req *r) {
    if (r->last >= r->max_page) return 0;
    int g = csd_eng_req_grow(r, csd_eng_req_pages(r) + 1);
    if (g < 0) return g;
    r->last++;
    r->view.pages_total = csd_eng_req_pages(r);
    return e->im->resize(e, r, csd_eng_req_pages(r) - 1);
}

/* Feed pages up to rel (inclusive) in index order. 0, or a negative errno (tasklet or read failure)
 * with *fail_ns the cost of the page that failed. Applies growth (text needs more) and stops. */
int csd_eng_feed_upto(csd_engine *e, csd_isp_req *r, uint64_t rel, uint64_t *fail_ns) {
    while (r->fed_next <= rel && r->fed_next < csd_eng_req_pages(r)) {
        uint64_t i = r->fed_next;
        uint64_t page = r->first + i;
        size_t len = page == r->max_page ? r->last_len : e->p.page_bytes;
        const uint8_t *data = e->page_buf;
        csd_cost cost = { 0, 0 };
        int need_more = 0, rc = 0;
        if (r->ah) csd_eng_ahead_settle(e, r);
        if (r->ah) {
            /* computed ahead on a worker: take its result, and publish its rows now, as feeding it
             * here would */
            int read_rc = 0, prepared = 0;
            rc = csd_eng_ahead_join(e, r, i, &cost, &need_more, &read_rc, &prepared);
            e->st.isp_pages_ahead++;
            e->st.isp_pages_prepared += (uint64_t)prepared;
            if (read_rc < 0) {
                *fail_ns = csd_eng_cost_ns(e, e->p.page_cycles, &(csd_cost){ 0, 0 });
                return read_rc;
            }
            int c = r->work.commit(r->work.arg, 1);
            if (c < 0 && rc >= 0) rc = c;
        } else if (r->ppn[i] == CSD_PPN_NONE) {
            memset(e->page_buf, 0, e->p.page_bytes);
        } else {
            int rc = csd_eng_page_bytes(r, i, e->page_buf, &data);
            if (rc < 0) {
                *fail_ns = csd_eng_cost_ns(e, e->p.page_cycles, &(csd_cost){ 0, 0 });
                return rc;
            }
        }
        if (!r->ah) rc = r->work.feed(r->work.arg, page, data, len, &cost, &need_more);
        csd_eng_page_unkeep(r, i);
        r->cost_ns[i] = csd_eng_cost_ns(e, e->p.page_cycles, &cost);
        r->fed_cost_ns += r->cost_ns[i];
        csd_eng_charged(r, &cost);
        r->fed_next++;
        if (rc < 0) {
            *fail_ns = r->cost_ns[i];
            return rc;
        }
        if (!need_more && i + 1 < csd_eng_req_pages(r)) {
            /* the tasklet stopped (or the extent ended early): later pages are not needed */
            uint64_t old = csd_eng_req_pages(r);
            r->last = page;
            r->view.pages_total = csd_eng_req_pages(r);
            e->im->resize(e, r, old);
            csd_eng_drop_ready(e, r, i + 1);
        } else if (need_more && i + 1 == csd_eng_req_pages(r) && r->last < r->max_page) {
            /* a text line runs past the planned extent: read one more page */
            int g = csd_eng_req_grow(r, csd_eng_req_pages(r) + 1);
            if (g < 0) {
                *fail_ns = r->cost_ns[i];
                return g;
            }
            r->last++;
            r->view.pages_total = csd_eng_req_pages(r);
            if ((g = e->im->resize(e, r, csd_eng_req_pages(r) - 1)) < 0) {
                *fail_ns = r->cost_ns[i];
                return g;
            }
        }
    }
    csd_eng_ahead_load(e, r);   /* consumed slots take the next pages */
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
    e->im->serve(e, c);
}

void csd_eng_fail_on(csd_engine *e, core *c, csd_isp_req *r, uint64_t fail_ns, int rc) {
    r->dead = 1;                          /* no more picks; it ends when this slot does */
    csd_eng_drop_ready(e, r, 0);
    csd_eng_policy_remove(e, r);
    csd_eng_core_start(c, SLOT_FAIL, r, 0, fail_ns, rc);
}


static void dispatch_ev(csd_sim *sim, void *arg) {
    (void)sim;
    csd_engine *e = arg;
    e->dispatch_pending = 0;
    for (uint32_t i = 0; i < e->p.cores; i++)
        if (e->cores[i].kind == SLOT_IDLE) core_serve(e, &e->cores[i]);
}

void csd_eng_kick(csd_engine *e) {
    if (e->dispatch_pending) return;
    e->dispatch_pending = 1;
    csd_eng_sched(e, csd_sim_now(e->sim), dispatch_ev, e);
}


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
        e->im->send_done(e, c);
    } else if (kind == SLOT_PAGE) {
        r->state[c->page] = PG_DONE;
        r->view.pages_done++;
        e->st.isp_pages++;
        csd_eng_buf_give(e);
        e->im->page_done(e, c, r, c->page);
        if (!r->dead && r->view.pages_done == csd_eng_req_pages(r) &&
            (r->work.stage1 || r->fed_next >= csd_eng_req_pages(r))) {
            r->refs--;                    /* the finish slot takes its own reference */
            start_finish(c, r);
            e->im->room(e);
            csd_eng_kick(e);
            return;
        }
    } else if (!r->released) {
        csd_eng_req_end(e, r, c->rc);     /* FINISH or FAIL */
    }
    (void)sim;
    csd_eng_req_unref(e, r);
    e->im->room(e);
    csd_eng_kick(e);
}
