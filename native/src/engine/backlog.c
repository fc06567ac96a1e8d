/* The device's backlog: the work it still holds for tasklet requests, in time, so that a host choosing
 * between running a split here or on itself knows how long a new request would wait (offload planning;
 * Smart SSD paper VI: "the current load of a host and a device"). Estimates only: a request's pages to
 * come are priced at its own mean core time per page so far. */
#include "engine/engine_int.h"

#include <string.h>

uint64_t csd_engine_flash_page_ns(const csd_params *p) {
    /* steady state of the read path (docs/TIMING-MODEL.md 2.1): the serial firmware, the channels'
     * transfers, the chips' array reads and transfers; the slowest sets the pace */
    uint64_t x = csd_xfer_ns(p->page_bytes, p->channel_bytes_per_s);
    uint64_t chips = (uint64_t)p->channels * p->chips_per_channel;
    uint64_t per = p->fw_page_ns;
    if (p->channels && (x + p->channels - 1) / p->channels > per) per = (x + p->channels - 1) / p->channels;
    if (chips && (p->t_read_ns + x + chips - 1) / chips > per) per = (p->t_read_ns + x + chips - 1) / chips;
    return per;
}

/* Pages of r not yet in device DRAM (not issued, or their read in flight). */
static uint64_t unread_pages(const csd_isp_req *r) {
    uint64_t n = csd_eng_req_pages(r), k = 0;
    for (uint64_t i = 0; i < n && i < r->cap; i++)
        if (r->state[i] == PG_NONE || r->state[i] == PG_INFLIGHT) k++;
    return k;
}

void csd_engine_backlog_get(const csd_engine *e, csd_engine_backlog *b) {
    memset(b, 0, sizeof *b);
    uint64_t now = csd_sim_now(e->sim);
    /* a request with no page done yet: the device's mean over every page it has processed (0 before any) */
    uint64_t mean = e->st.isp_pages ? e->st.isp_core_ns / e->st.isp_pages : 0;
    for (const csd_isp_req *r = e->head; r; r = r->next) {
        if (r->finished || r->released || r->dead) continue;
        uint64_t n = csd_eng_req_pages(r), done = r->view.pages_done;
        uint64_t left = n > done ? n - done : 0;
        b->requests++;
        b->pages_left += left;
        if (done) {
            b->core_ns_left += left * (r->view.core_ns / done);
        } else {
            b->pages_unpriced += left;
            b->core_ns_left += left * mean;
        }
        b->pages_unread += unread_pages(r);
    }
    b->flash_page_ns = csd_engine_flash_page_ns(&e->p);
    b->flash_ns_left = b->pages_unread * b->flash_page_ns;
    b->link_ns_left = e->link.busy_until > now ? e->link.busy_until - now : 0;
    b->block_in_service = e->blk_inflight;
    uint64_t cores = e->p.cores ? e->p.cores : 1;
    b->drain_ns = (b->core_ns_left + cores - 1) / cores;
    if (b->flash_ns_left > b->drain_ns) b->drain_ns = b->flash_ns_left;
    if (b->link_ns_left > b->drain_ns) b->drain_ns = b->link_ns_left;
}
