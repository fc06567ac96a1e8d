/* A request's pages fed ahead on the host's worker pool (host_threads > 1; host/ahead.c does the
 * threads): which requests go ahead, how many pages they may hold, how their pages are read (on
 * this, the engine's thread: the store and the FTL are not shared with workers). Wall time only. */
#include "engine/engine_int.h"
#include "host/settings.h"

#include <errno.h>
#include <string.h>

/* Pages one request may have loaded and not consumed: up to what the ISP buffer lets be issued ahead
 * (a worker then never waits for slots the engine could fill), at most AHEAD_SLOTS_MAX; slot buffers
 * are allocated as first used, so a short request costs only what it loads. */
#define AHEAD_SLOTS_MIN 64u
#define AHEAD_SLOTS_MAX 256u

int csd_eng_pool_create(csd_engine *e) { return csd_ahead_pool_create(&e->pool, CSD_HOST_THREADS(&e->p)); }

void csd_eng_pool_destroy(csd_engine *e) {
    csd_ahead_pool_destroy(e->pool);
    e->pool = NULL;
}

/* A page's bytes into a slot: as the serial feed reads them (zeros for a page never written). */
static int read_page(void *ctx, uint64_t i, uint8_t *buf, size_t *len) {
    csd_isp_req *r = ctx;
    const csd_engine *e = r->e;
    *len = r->first + i == r->max_page ? r->last_len : e->p.page_bytes;
    if (r->ppn[i] == CSD_PPN_NONE) {
        memset(buf, 0, e->p.page_bytes);
        return 0;
    }
    const uint8_t *data;
    int rc = csd_eng_page_bytes(r, i, buf, &data);
    if (!rc && data != buf) memcpy(buf, data, e->p.page_bytes);
    return rc < 0 ? rc : 0;
}

int csd_eng_ahead_attach(csd_engine *e, csd_isp_req *r) {
    if (!e->pool || !r->work.ahead || !r->work.commit || r->work.stage1) return 0;
    const csd_isp_work *w = &r->work;
    csd_ahead_work aw = { .arg = w->arg, .feed = w->feed, .commit = w->commit, .prep_new = w->prep_new,
                          .prep_free = w->prep_free, .prepare = w->prepare, .feed_prepared = w->feed_prepared };
    uint64_t buf_pages = e->p.page_bytes ? e->p.isp_buffer_bytes / e->p.page_bytes : 0;
    uint32_t slots = buf_pages < AHEAD_SLOTS_MIN ? AHEAD_SLOTS_MIN : buf_pages > AHEAD_SLOTS_MAX ? AHEAD_SLOTS_MAX
                                                                                              : (uint32_t)buf_pages;
    /* only a work that can go back to the engine's thread is timed for it */
    csd_ahead *a = csd_ahead_new(e->pool, &aw, r->first, slots, e->p.page_bytes, w->unahead ? CSD_HOST_AHEAD_MIN_NS(&e->p) : 0,
                                 w->unahead != NULL, read_page, r);
    if (!a) return -ENOMEM;
    csd_ahead_gate g = { csd_ahead_gate_wait, a };
    if (w->ahead(w->arg, &g) != 1) {
        csd_ahead_free(a);
        return 0;   /* this work runs on the engine's thread */
    }
    r->ah = a;
    csd_ahead_start(a);
    return 0;
}

void csd_eng_ahead_load(csd_engine *e, csd_isp_req *r) {
    (void)e;
    if (!r->ah || r->dead) return;
    uint64_t pages = csd_eng_req_pages(r);
    csd_ahead_load(r->ah, r->fed_next, r->issue_next < pages ? r->issue_next : pages, r->issue_next);
}

void csd_eng_ahead_settle(csd_engine *e, csd_isp_req *r) {
    if (!csd_ahead_settled(r->ah, r->fed_next)) return;
    /* every page computed ahead is published: the work returns to the engine's thread, which
     * reads and feeds page fed_next as the serial engine does */
    csd_eng_ahead_detach(e, r);
    r->work.unahead(r->work.arg);
}

int csd_eng_ahead_join(csd_engine *e, csd_isp_req *r, uint64_t rel, csd_cost *cost, int *need_more, int *read_rc,
                       int *prepared) {
    csd_eng_ahead_load(e, r);
    return csd_ahead_join(r->ah, rel, cost, need_more, read_rc, prepared);
}

void csd_eng_ahead_detach(csd_engine *e, csd_isp_req *r) {
    (void)e;
    csd_ahead_free(r->ah);
    r->ah = NULL;
}
