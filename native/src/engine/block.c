/* Host block I/O in virtual time (engine.h, "Block I/O"): NVMe-like requests, many outstanding, each
 * arriving at its own time. A request that arrives while block_queue_depth requests are in service,
 * or whose command sets do not fit the flash command queue (flash_queue_depth entries, one per set in
 * progress: the DRS paper's queue depth counts flash commands, VI-A), waits in the I/O request queue
 * (arrival order). Once admitted it holds the host link for cmd_overhead_ns plus its bytes in, then
 * submits all its flash operations at once to the flash-command scheduler, so the operations of
 * different requests overlap on the chips; reads stream their pages to the host as they land (as
 * csd_engine_host_io does). It completes when its last operation and its last link transfer are done,
 * which need not be in arrival order. */
#include "engine/engine_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flash/flash.h"
#include "sim/sim.h"

struct csd_blk_req {
    csd_engine *e;
    csd_blk_req *next;            /* I/O request queue, then the completion list */
    csd_blk_req *arr_next;        /* the arrivals still to come (csd_engine_blk_submit) */
    uint64_t arr_seq;             /* its arrival event's place among events of the same time */
    csd_blk_req *aprev, *anext;   /* every request not reaped (freed with the engine) */
    csd_blk_tag tag;
    uint64_t arrival, admit, first, done;
    uint64_t to_dev, to_host, link_end;
    uint64_t id;                  /* flash ops' req_id, unique among the engine's block requests */
    int dropped;                  /* its session ended: freed when it completes */
    size_t n, pending;
    uint32_t fq_need, fq_held;    /* flash command queue entries (command sets) it takes / still holds */
    /* the DRS paper's Fig. 10 parts: when its commands went to the scheduler, when the last of them
     * completed, and the service intervals of its own commands (not GC's) */
    uint64_t submit, flash_done, flash_busy;
    uint64_t (*iv)[2];
    size_t niv;
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

/* The flash command queue's entries: a request fits when it is first in line and the queue has room
 * for all its sets, or is empty (a request larger than the queue enters it alone). */
static int fq_fits(const csd_engine *e, const csd_blk_req *r) {
    uint32_t qd = e->p.flash_queue_depth;
    return !qd || !e->blk_fq_used || e->blk_fq_used + r->fq_need <= qd;
}

static void blk_admit(csd_engine *e, csd_blk_req *r, uint64_t now);

/* Admit waiting requests, in arrival order, while there is room. */
static void admit_waiting(csd_engine *e, uint64_t now) {
    csd_blk_req *w;
    while ((w = e->blk_wait_head) != NULL && e->blk_inflight < e->p.block_queue_depth && fq_fits(e, w)) {
        e->blk_wait_head = w->next;
        if (!e->blk_wait_head) e->blk_wait_tail = NULL;
        blk_admit(e, w, now);
    }
}

static void fq_release(csd_blk_req *r, uint32_t k, uint64_t now) {
    if (k > r->fq_held) k = r->fq_held;
    if (!k) return;
    r->fq_held -= k;
    r->e->blk_fq_used -= k;
    admit_waiting(r->e, now);
}

/* One of its flash operations held the flash from start to t: the request's last flash time, and, for
 * its own commands (not GC's), that interval. */
static void note_op(csd_blk_req *r, const csd_flash_op *op, uint64_t t, uint64_t start) {
    if (t > r->flash_done) r->flash_done = t;
    if (op->src == CSD_SRC_GC || !r->iv) return;
    r->iv[r->niv][0] = start;
    r->iv[r->niv][1] = t;
    r->niv++;
}

static int iv_cmp(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Time covered by the request's own commands: their sum when they never overlap (one chip). */
static uint64_t own_flash_ns(csd_blk_req *r) {
    if (!r->niv) return 0;
    if (r->niv > 16) {
        qsort(r->iv, r->niv, sizeof *r->iv, iv_cmp);
    } else {
        /* a request's few intervals (a call of qsort cost more than the rest of its completion) */
        for (size_t i = 1; i < r->niv; i++) {
            uint64_t s0 = r->iv[i][0], e0 = r->iv[i][1];
            size_t j = i;
            for (; j > 0 && r->iv[j - 1][0] > s0; j--) {
                r->iv[j][0] = r->iv[j - 1][0];
                r->iv[j][1] = r->iv[j - 1][1];
            }
            r->iv[j][0] = s0;
            r->iv[j][1] = e0;
        }
    }
    uint64_t sum = 0, s = r->iv[0][0], e = r->iv[0][1];
    for (size_t i = 1; i < r->niv; i++) {
        if (r->iv[i][0] > e) {
            sum += e - s;
            s = r->iv[i][0];
            e = r->iv[i][1];
        } else if (r->iv[i][1] > e) {
            e = r->iv[i][1];
        }
    }
    return sum + (e - s);
}

static void unlink_all(csd_engine *e, csd_blk_req *r) {
    if (r->aprev) r->aprev->anext = r->anext;
    else e->blk_all = r->anext;
    if (r->anext) r->anext->aprev = r->aprev;
}

static void blk_done_ev(csd_sim *sim, void *arg) {
    csd_blk_req *r = arg;
    csd_engine *e = r->e;
    uint64_t now = csd_sim_now(sim);
    r->done = now;
    e->blk_inflight--;
    uint32_t held = r->fq_held;   /* sets that never ran (out of memory): their entries */
    r->fq_held = 0;
    e->blk_fq_used -= held;
    r->flash_busy = own_flash_ns(r);
    r->iv = NULL;   /* (in r's own allocation) */
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
    /* the freed slot goes to the longest waiting requests */
    admit_waiting(e, now);
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
    note_op(r, op, t, start);
    if (op->kind == CSD_FLASH_READ && r->to_host) {
        uint64_t chunk = r->to_host < e->p.page_bytes ? r->to_host : e->p.page_bytes;
        r->to_host -= chunk;
        uint64_t end = csd_serial_reserve(&e->link, t, csd_xfer_ns(chunk, e->p.host_link_bytes_per_s));
        if (end > r->link_end) r->link_end = end;
    }
    /* each operation outside GC is a command set of its own (no map cache) */
    if (op->src != CSD_SRC_GC) fq_release(r, 1, t);
    if (--r->pending == 0) blk_ops_done(r, t);
}

/* Command sets: each data read streams its page to the host as it lands (map reads and GC do not). */
static void blk_set_op(csd_hreq *h, const csd_flash_op *op, uint64_t t) {
    csd_blk_req *r = h->arg;
    csd_engine *e = r->e;
    uint64_t svc = service_ns(e, op->kind), start = t > svc ? t - svc : 0;
    if (start < op->submit_ns) start = op->submit_ns;
    if (!r->first || start < r->first) r->first = start;
    note_op(r, op, t, start);
    if (op->kind == CSD_FLASH_READ && op->src == CSD_SRC_HOST && r->to_host) {
        uint64_t chunk = r->to_host < e->p.page_bytes ? r->to_host : e->p.page_bytes;
        r->to_host -= chunk;
        uint64_t end = csd_serial_reserve(&e->link, t, csd_xfer_ns(chunk, e->p.host_link_bytes_per_s));
        if (end > r->link_end) r->link_end = end;
    }
}

static void blk_set_done(csd_hreq *h, uint64_t t) { blk_ops_done(h->arg, t); }

static void blk_one_set_done(csd_hreq *h, uint64_t t) { fq_release(h->arg, 1, t); }

static void blk_start_ev(csd_sim *sim, void *arg) {
    csd_blk_req *r = arg;
    r->submit = csd_sim_now(sim);
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
                            .done = blk_set_done, .op_done = blk_set_op, .set_done = blk_one_set_done,
                            .arg = r };
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
    e->blk_fq_used += r->fq_need;
    r->fq_held = r->fq_need;
    r->admit = now;
    uint64_t t_in = csd_serial_reserve(&e->link, now,
                                       e->p.cmd_overhead_ns + csd_xfer_ns(r->to_dev, e->p.host_link_bytes_per_s));
    r->link_end = t_in;
    csd_eng_sched(e, t_in, blk_start_ev, r);
}

static void blk_arrive_ev(csd_sim *sim, void *arg) {
    csd_blk_req *r = arg;
    csd_engine *e = r->e;
    /* behind those already waiting, in arrival order */
    if (!e->blk_wait_head && e->blk_inflight < e->p.block_queue_depth && fq_fits(e, r)) {
        blk_admit(e, r, csd_sim_now(sim));
        return;
    }
    r->next = NULL;
    if (e->blk_wait_tail) e->blk_wait_tail->next = r;
    else e->blk_wait_head = r;
    e->blk_wait_tail = r;
}

/* The head of the arrivals to come: its event, at the place among same-time events that its
 * submission took. */
static void arr_sched(csd_engine *e, csd_blk_req *r);

static void arr_next_ev(csd_sim *sim, void *arg) {
    csd_engine *e = arg;
    csd_blk_req *r = e->blk_arr_head;
    e->blk_arr_head = r->arr_next;
    if (!e->blk_arr_head) e->blk_arr_tail = NULL;
    else arr_sched(e, e->blk_arr_head);
    blk_arrive_ev(sim, r);
}

static void arr_sched(csd_engine *e, csd_blk_req *r) {
    if (csd_sim_at_seq(e->sim, r->arrival, r->arr_seq, arr_next_ev, e) != 0) abort();
}

/* A request's arrival event. A client submits many requests ahead of their arrival times (csd replay:
 * thousands), in arrival order, so they wait in a FIFO with only its head's event pending: the event
 * heap stays as small as the device's own work. Each takes its event's sequence number at submission,
 * so events run in exactly the (time, sequence) order of one event per request. An arrival earlier
 * than the last one queued (which block submission never makes) is an event of its own. */
static void arr_queue(csd_engine *e, csd_blk_req *r) {
    csd_blk_req *t = e->blk_arr_tail;
    if (t && r->arrival < t->arrival) {
        csd_eng_sched(e, r->arrival, blk_arrive_ev, r);
        return;
    }
    r->arr_seq = csd_sim_seq_take(e->sim);
    r->arr_next = NULL;
    if (t) {
        t->arr_next = r;
    } else {
        e->blk_arr_head = r;
        arr_sched(e, r);
    }
    e->blk_arr_tail = r;
}

int csd_engine_blk_submit(csd_engine *e, uint64_t arrival_ns, const csd_flash_batch *ops, uint64_t bytes_to_device,
                          uint64_t bytes_to_host, const csd_blk_tag *tag) {
    size_t n = ops ? ops->n : 0;
    if (n > (SIZE_MAX - sizeof(csd_blk_req)) / (sizeof(csd_flash_op) + sizeof(uint64_t[2]))) return -ENOMEM;
    csd_blk_sess *ss = sess_get(e, tag->session);
    int labelled = 0;
    for (size_t i = 0; i < n && !labelled; i++) labelled = ops->ops[i].set != 0;
    /* its ops (unlabelled) and the intervals of its own commands after it, in one allocation */
    size_t nops = labelled ? 0 : n;
    csd_blk_req *r = ss ? malloc(sizeof *r + nops * sizeof(csd_flash_op) + n * sizeof *r->iv) : NULL;
    if (!r) return -ENOMEM;
    ss->outstanding++;
    e->blk_data_bytes += tag->data ? tag->data_len : 0;
    uint64_t now = csd_sim_now(e->sim);
    *r = (csd_blk_req){ .e = e, .tag = *tag, .arrival = arrival_ns > now ? arrival_ns : now,
                        .to_dev = bytes_to_device, .to_host = bytes_to_host, .id = ++e->blk_next_id,
                        .n = n, .pending = n };
    r->iv = n ? (uint64_t(*)[2])(void *)&r->ops[nops] : NULL;
    if (labelled) r->sets = malloc(n * sizeof *r->sets);
    if (labelled && !r->sets) {
        free(r);
        ss->outstanding--;
        e->blk_data_bytes -= tag->data ? tag->data_len : 0;
        return -ENOMEM;
    }
    if (labelled) {
        memcpy(r->sets, ops->ops, n * sizeof *r->sets);
        r->fq_need = (uint32_t)csd_cmdset_count(ops);
    } else {
        for (size_t i = 0; i < n; i++) r->fq_need += !ops->ops[i].gc;
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
    arr_queue(e, r);
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
                                   .first_flash_ns = r->first, .done_ns = r->done, .flash_ops = (uint32_t)r->n,
                                   .submit_ns = r->submit, .flash_done_ns = r->flash_done,
                                   .flash_busy_ns = r->flash_busy, .clf_delayed = r->hr.delayed[CSD_DELAY_CLF],
                                   .dle_delayed = r->hr.delayed[CSD_DELAY_DLE] };
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

void csd_engine_blk_run(csd_engine *e, uint64_t session, size_t min) {
    /* the session's counters, found once: steps run events, which never add or drop a session */
    const csd_blk_sess *s = sess_find(e, session);
    while (s && s->ready < min && s->ready < s->outstanding)
        if (!csd_sim_step(e->sim)) break;
}
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
    e->blk_arr_head = e->blk_arr_tail = NULL;
    e->blk_fq_used = 0;
    free(e->blk_sess);
    e->blk_sess = NULL;
    e->blk_nsess = e->blk_capsess = 0;
}
