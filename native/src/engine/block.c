/* Host block I/O in virtual time (engine.h, "Block I/O"): NVMe-like requests, many outstanding, each
 * arriving at its own time. A request that arrives while block_queue_depth requests are in service
 * waits in the I/O request queue (arrival order) for a slot. Once admitted it holds the host link for
 * cmd_overhead_ns plus its bytes in, then submits all its flash operations at once to the
 * flash-command scheduler, so the operations of different requests overlap on the chips; reads
 * stream their pages to the host as they land (as csd_engine_host_io does). It completes when its
 * last operation and its last link transfer are done, which need not be in arrival order. */
#include "engine/engine_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flash/flash.h"
#include "sim/sim.h"

struct csd_blk_req {
    csd_engine *e;
    csd_blk_req *next;            /* I/O request queue, then the completion list */
    csd_blk_req *aprev, *anext;   /* every request not reaped (freed with the engine) */
    csd_blk_tag tag;
    uint64_t arrival, admit, first, done;
    uint64_t to_dev, to_host, link_end;
    uint64_t id;                  /* flash ops' req_id, unique among the engine's block requests */
    int dropped;                  /* its session ended: freed when it completes */
    size_t n, pending;
    /* a map-cached FTL's batch (labelled with command sets) runs through the command-set submitter
     * (flash/cmdset.h), which copies it at the start: kept until then */
    csd_flash_req *sets;
    csd_hreq hr;
    csd_flash_op ops[];
};

/* The service time of an operation that never waits once started (flash.h): what is subtracted from
 * its completion to date its start. */
static uint64_t service_ns(const csd_engine *e, uint8_t kind) {
    uint64_t x = csd_flash_page_xfer_ns(e->flash);
    switch (kind) {
    case CSD_FLASH_READ: return e->p.t_read_ns + x + e->p.fw_page_ns;
    case CSD_FLASH_PROGRAM: return e->p.fw_page_ns + x + e->p.t_prog_ns;
    default: return e->p.t_erase_ns;
    }
}

/* The counters of one session's requests (a host's queue pair); NULL when it has none. */
static csd_blk_sess *sess_find(csd_engine *e, uint64_t session) {
    for (size_t i = 0; i < e->blk_nsess; i++)
        if (e->blk_sess[i].session == session) return &e->blk_sess[i];
    return NULL;
}

static csd_blk_sess *sess_get(csd_engine *e, uint64_t session) {
    csd_blk_sess *s = sess_find(e, session);
    if (s) return s;
    if (e->blk_nsess == e->blk_capsess) {
        size_t cap = e->blk_capsess ? e->blk_capsess * 2 : 4;
        csd_blk_sess *a = realloc(e->blk_sess, cap * sizeof *a);
        if (!a) return NULL;
        e->blk_sess = a;
        e->blk_capsess = cap;
    }
    s = &e->blk_sess[e->blk_nsess++];
    *s = (csd_blk_sess){ .session = session };
    return s;
}

static void unlink_all(csd_engine *e, csd_blk_req *r) {
    if (r->aprev) r->aprev->anext = r->anext;
    else e->blk_all = r->anext;
    if (r->anext) r->anext->aprev = r->aprev;
}

static void blk_admit(csd_engine *e, csd_blk_req *r, uint64_t now);

static void blk_done_ev(csd_sim *sim, void *arg) {
    csd_blk_req *r = arg;
    csd_engine *e = r->e;
    uint64_t now = csd_sim_now(sim);
    r->done = now;
    e->blk_inflight--;
    if (r->dropped) {
        /* nobody will poll for it */
        unlink_all(e, r);
        e->blk_outstanding--;
        free(r);
    } else {
        r->next = NULL;
        if (e->blk_done_tail) e->blk_done_tail->next = r;
        else e->blk_done_head = r;
        e->blk_done_tail = r;
        csd_blk_sess *ss = sess_find(e, r->tag.session);
        if (ss) ss->ready++;
    }
    /* the freed slot goes to the longest waiting request */
    csd_blk_req *w = e->blk_wait_head;
    if (w) {
        e->blk_wait_head = w->next;
        if (!e->blk_wait_head) e->blk_wait_tail = NULL;
        blk_admit(e, w, now);
    }
}

static void blk_ops_done(csd_blk_req *r, uint64_t now) {
    csd_engine *e = r->e;
    if (r->to_host) {
        uint64_t end = csd_serial_reserve(&e->link, now, csd_xfer_ns(r->to_host, e->p.host_link_bytes_per_s));
        r->to_host = 0;
        if (end > r->link_end) r->link_end = end;
    }
    csd_eng_sched(e, r->link_end > now ? r->link_end : now, blk_done_ev, r);
}

static void blk_op_done(csd_flash_op *op, uint64_t t) {
    csd_blk_req *r = op->arg;
    csd_engine *e = r->e;
    uint64_t svc = service_ns(e, op->kind), start = t > svc ? t - svc : 0;
    if (start < op->submit_ns) start = op->submit_ns;
    if (!r->first || start < r->first) r->first = start;
    if (op->kind == CSD_FLASH_READ && r->to_host) {
        uint64_t chunk = r->to_host < e->p.page_bytes ? r->to_host : e->p.page_bytes;
        r->to_host -= chunk;
        uint64_t end = csd_serial_reserve(&e->link, t, csd_xfer_ns(chunk, e->p.host_link_bytes_per_s));
        if (end > r->link_end) r->link_end = end;
    }
    if (--r->pending == 0) blk_ops_done(r, t);
}

/* Command sets: each data read streams its page to the host as it lands (map reads and GC do not). */
static void blk_set_op(csd_hreq *h, const csd_flash_op *op, uint64_t t) {
    csd_blk_req *r = h->arg;
    csd_engine *e = r->e;
    uint64_t svc = service_ns(e, op->kind), start = t > svc ? t - svc : 0;
    if (start < op->submit_ns) start = op->submit_ns;
    if (!r->first || start < r->first) r->first = start;
    if (op->kind == CSD_FLASH_READ && op->src == CSD_SRC_HOST && r->to_host) {
        uint64_t chunk = r->to_host < e->p.page_bytes ? r->to_host : e->p.page_bytes;
        r->to_host -= chunk;
        uint64_t end = csd_serial_reserve(&e->link, t, csd_xfer_ns(chunk, e->p.host_link_bytes_per_s));
        if (end > r->link_end) r->link_end = end;
    }
}

static void blk_set_done(csd_hreq *h, uint64_t t) { blk_ops_done(h->arg, t); }

static void blk_start_ev(csd_sim *sim, void *arg) {
    csd_blk_req *r = arg;
    if (r->n == 0) {
        blk_ops_done(r, csd_sim_now(sim));
        return;
    }
    if (r->sets) {
        /* DRS paper II-A, V-B: the request's pages as command sets (map commands, then the data
         * command), waiting on other requests' in-flight map commands; its type and size, and the
         * FOT the submitter computes, are the request information the schedulers order by (V-D-1).
         * A trim is a write: it changes the map and nobody waits for its data. */
        uint64_t pages = 0;
        for (size_t i = 0; i < r->n; i++) pages += r->sets[i].role == CSD_ROLE_DATA;
        r->hr = (csd_hreq){ .type = r->to_host ? CSD_REQ_READ : CSD_REQ_WRITE, .pages = pages, .id = r->id,
                            .done = blk_set_done, .op_done = blk_set_op, .arg = r };
        csd_flash_batch b = { r->sets, r->n, r->n };
        int rc = csd_cmdset_submit(r->e->cmdset, &r->hr, &b);
        free(r->sets);
        r->sets = NULL;
        if (rc) blk_ops_done(r, csd_sim_now(sim));   /* out of memory: charge the link only */
        return;
    }
    for (size_t i = 0; i < r->n; i++) csd_flash_submit(r->e->flash, &r->ops[i]);
}

static void blk_admit(csd_engine *e, csd_blk_req *r, uint64_t now) {
    e->blk_inflight++;
    r->admit = now;
    uint64_t t_in = csd_serial_reserve(&e->link, now,
                                       e->p.cmd_overhead_ns + csd_xfer_ns(r->to_dev, e->p.host_link_bytes_per_s));
    r->link_end = t_in;
    csd_eng_sched(e, t_in, blk_start_ev, r);
}

static void blk_arrive_ev(csd_sim *sim, void *arg) {
    csd_blk_req *r = arg;
    csd_engine *e = r->e;
    if (e->blk_inflight < e->p.block_queue_depth) {
        blk_admit(e, r, csd_sim_now(sim));
        return;
    }
    r->next = NULL;
    if (e->blk_wait_tail) e->blk_wait_tail->next = r;
    else e->blk_wait_head = r;
    e->blk_wait_tail = r;
}

int csd_engine_blk_submit(csd_engine *e, uint64_t arrival_ns, const csd_flash_batch *ops, uint64_t bytes_to_device,
                          uint64_t bytes_to_host, const csd_blk_tag *tag) {
    size_t n = ops ? ops->n : 0;
    if (n > (SIZE_MAX - sizeof(csd_blk_req)) / sizeof(csd_flash_op)) return -ENOMEM;
    csd_blk_sess *ss = sess_get(e, tag->session);
    int labelled = 0;
    for (size_t i = 0; i < n && !labelled; i++) labelled = ops->ops[i].set != 0;
    csd_blk_req *r = ss ? malloc(sizeof *r + (labelled ? 0 : n) * sizeof(csd_flash_op)) : NULL;
    if (!r) return -ENOMEM;
    ss->outstanding++;
    e->blk_data_bytes += tag->data ? tag->data_len : 0;
    uint64_t now = csd_sim_now(e->sim);
    *r = (csd_blk_req){ .e = e, .tag = *tag, .arrival = arrival_ns > now ? arrival_ns : now,
                        .to_dev = bytes_to_device, .to_host = bytes_to_host, .id = ++e->blk_next_id,
                        .n = n, .pending = n };
    if (labelled) {
        r->sets = malloc(n * sizeof *r->sets);
        if (!r->sets) {
            free(r);
            ss->outstanding--;
            e->blk_data_bytes -= tag->data ? tag->data_len : 0;
            return -ENOMEM;
        }
        memcpy(r->sets, ops->ops, n * sizeof *r->sets);
    }
    for (size_t i = 0; i < n && !labelled; i++) {
        const csd_flash_req *q = &ops->ops[i];
        r->ops[i] = (csd_flash_op){ .kind = q->kind, .src = q->gc ? CSD_SRC_GC : CSD_SRC_HOST, .ppn = q->ppn,
                                    .owner = r, .req_id = r->id, .done = blk_op_done, .arg = r };
    }
    e->st.host_commands++;
    e->st.host_bytes_in += bytes_to_device;
    e->st.host_bytes_out += bytes_to_host;
    e->blk_outstanding++;
    r->anext = e->blk_all;
    if (e->blk_all) e->blk_all->aprev = r;
    e->blk_all = r;
    csd_eng_sched(e, r->arrival, blk_arrive_ev, r);
    return 0;
}

size_t csd_engine_blk_reap(csd_engine *e, uint64_t session, csd_blk_done *out, size_t max) {
    csd_blk_sess *ss = sess_find(e, session);
    size_t k = 0;
    csd_blk_req *prev = NULL, *r = e->blk_done_head;
    while (ss && k < max && ss->ready && r) {
        csd_blk_req *next = r->next;
        if (r->tag.session != session) {
            prev = r;
            r = next;
            continue;
        }
        if (prev) prev->next = next;
        else e->blk_done_head = next;
        if (e->blk_done_tail == r) e->blk_done_tail = prev;
        out[k++] = (csd_blk_done){ .tag = r->tag, .arrival_ns = r->arrival, .admit_ns = r->admit,
                                   .first_flash_ns = r->first, .done_ns = r->done, .flash_ops = (uint32_t)r->n };
        ss->ready--;
        ss->outstanding--;
        e->blk_outstanding--;
        if (r->tag.data) e->blk_data_bytes -= r->tag.data_len;   /* the caller owns the data now */
        unlink_all(e, r);
        free(r);
        r = next;
    }
    return k;
}

size_t csd_engine_blk_ready(const csd_engine *e, uint64_t session) {
    const csd_blk_sess *s = sess_find((csd_engine *)e, session);
    return s ? s->ready : 0;
}

size_t csd_engine_blk_outstanding(const csd_engine *e, uint64_t session) {
    const csd_blk_sess *s = sess_find((csd_engine *)e, session);
    return s ? s->outstanding : 0;
}

size_t csd_engine_blk_outstanding_all(const csd_engine *e) { return e->blk_outstanding; }
uint64_t csd_engine_blk_data_bytes(const csd_engine *e) { return e->blk_data_bytes; }

void csd_engine_blk_drop(csd_engine *e, uint64_t session) {
    csd_blk_sess *ss = sess_find(e, session);
    if (!ss) return;
    /* completed ones go now; the rest still occupy the device and go when they complete */
    csd_blk_req *prev = NULL, *r = e->blk_done_head;
    while (r) {
        csd_blk_req *next = r->next;
        if (r->tag.session == session) {
            if (prev) prev->next = next;
            else e->blk_done_head = next;
            if (e->blk_done_tail == r) e->blk_done_tail = prev;
            e->blk_outstanding--;
            if (r->tag.data) e->blk_data_bytes -= r->tag.data_len;
            free(r->tag.data);
            unlink_all(e, r);
            free(r);
        } else {
            prev = r;
        }
        r = next;
    }
    for (r = e->blk_all; r; r = r->anext) {
        if (r->tag.session != session) continue;
        r->dropped = 1;
        if (r->tag.data) e->blk_data_bytes -= r->tag.data_len;
        free(r->tag.data);
        r->tag.data = NULL;
    }
    *ss = e->blk_sess[--e->blk_nsess];
}

/* Requests not yet reaped, in flight or not: freed with the engine (their events die with its sim). */
void csd_eng_blk_free(csd_engine *e) {
    csd_blk_req *r = e->blk_all;
    while (r) {
        csd_blk_req *n = r->anext;
        free(r->tag.data);
        free(r->sets);
        csd_cmdset_forget(e->cmdset, &r->hr);
        free(r);
        r = n;
    }
    e->blk_all = e->blk_done_head = e->blk_done_tail = e->blk_wait_head = e->blk_wait_tail = NULL;
    free(e->blk_sess);
    e->blk_sess = NULL;
    e->blk_nsess = e->blk_capsess = 0;
}
