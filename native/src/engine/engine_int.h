/* Internals shared by engine.c (host commands, requests, cores) and the two issue models
 * (issue_batch.c, issue_stage.c). Not a public contract. */
#ifndef CSD_ENGINE_ENGINE_INT_H
#define CSD_ENGINE_ENGINE_INT_H

#include "engine/engine.h"
#include "engine/issue.h"
#include "flash/cmdset.h"
#include "host/ahead.h"
#include "sim/sim.h"


enum page_state { PG_NONE, PG_INFLIGHT, PG_READY, PG_BUSY, PG_DONE, PG_DROPPED };
enum slot_kind { SLOT_IDLE, SLOT_PAGE, SLOT_FINISH, SLOT_FAIL, SLOT_SEND };
enum sub_adm { SUB_NONE, SUB_WAITING, SUB_ADMITTED, SUB_DRAINING };

/* One flash read of a request. Batch issue: one page (page). Stage mode: a (multi-plane) request of
 * npages pages starting at position pos of sub-request sub. */
typedef struct page_op {
    csd_flash_op op;
    csd_hreq set;            /* batch issue on a map-cached FTL: the page's command set (map reads first) */
    csd_isp_req *r;
    uint64_t page;           /* relative to first */
    struct sub *sub;
    uint64_t pos;
    uint32_t npages;
    uint32_t chip;
    struct page_op *free_next;
} page_op;

/* Stage mode: the pages of one request on one core (paper III-B sub-requests). v must stay first:
 * the policy gets &v and the engine casts back. */
typedef struct sub {
    csd_sreq v;
    csd_isp_req *r;
    uint32_t core;
    uint64_t *list;           /* relative pages, ascending */
    uint64_t n, cap;
    uint64_t send_pos;        /* first list position not sent (later ones may be: see do_send) */
    uint64_t send_lim;        /* positions at or past this are never sent (a stop shrank it) */
    uint64_t sent_hi;         /* every sent position is below this */
    uint64_t ready_pos;       /* list positions below are busy, done or dropped */
    int adm;                  /* sub_adm */
    struct sub *wnext;        /* admission FIFO */
} sub;

/* A page's bytes taken before GC erased its block (csd_engine_block_erasing): rc < 0 when they could not
 * be (the page's read fails with it). */
typedef struct kept_page {
    int rc;
    uint8_t data[];
} kept_page;

struct csd_isp_req {
    csd_engine *e;
    csd_ahead *ah;            /* run-ahead, or NULL (fed on the engine's thread) */
    csd_isp_req *prev, *next; /* engine list, in submission order */
    csd_isp_work work;
    csd_page_source src;
    uint64_t first, last, max_page;
    uint32_t last_len;        /* bytes of page max_page */
    /* per page, indexed page - first; cap entries */
    uint8_t *state;
    uint64_t *ppn;
    uint64_t *cost_ns;
    uint8_t *core_of;         /* stage mode: the page's core */
    kept_page **kept;         /* NULL until GC erases a block under a page not fed yet; then per page */
    int kept_rc;              /* a page's bytes could not be kept (no memory): every later read fails */
    uint64_t cap;
    uint64_t issue_next;      /* next page (relative) to issue (batch); pages with a known ppn (stage) */
    uint64_t fed_next;        /* next page (relative) to feed to the work */
    uint64_t pick_low;        /* every page below this was picked or dropped */
    uint64_t batch_left;      /* flash reads of the current batch not arrived yet */
    uint64_t refs;            /* flash reads in flight + core slots + pending sends */
    page_op *pool, *pool_free;
    int empty_pending;        /* finish() waits for a core: an empty range, or every page through stage 1 */
    int dead;                 /* failing, failed or released: no more issue, feed or picks */
    int finished, status, released, in_policy;
    uint64_t finish_ns;
    uint64_t flash_bytes;
    uint64_t ci_hint_ns, fed_cost_ns;
    csd_cost charged;         /* what the work charged over its pages and finish (csd_isp_progress) */
    /* two-stage processing (work.stage1; 2PM paper III): the best page class so far (csd_match; what
     * the chip-queue policy was last told) and, under core stage 1, each page's class until its slot
     * ends */
    uint8_t match;
    uint64_t matched_ns;
    uint8_t *cls;
    sub *subs;                /* stage mode: one per core */
    uint32_t home;            /* stage mode without the per-chip split: the one core it runs on */
    csd_req_view view;
};

typedef struct core {
    csd_engine *e;
    uint32_t index;
    uint8_t kind;             /* slot_kind */
    csd_isp_req *r;
    uint64_t page;            /* SLOT_PAGE: relative page */
    uint64_t start, dur;
    int rc;                   /* SLOT_FINISH / SLOT_FAIL: the status the request ends with */
    uint64_t busy_ns;
    /* stage mode */
    csd_sreq **adm;           /* admitted sub-requests with work left, in admission order */
    size_t nadm, capadm;
    sub *wait_head, *wait_tail;
    uint64_t nwait;
    uint64_t alloc;           /* buffer pages held by admitted and draining sub-requests */
    uint64_t inflight;        /* pages sent and not returned */
    uint64_t Q, buf_pages;
    uint32_t chips;
    sub *slot_sub;            /* SLOT_PAGE / SLOT_SEND: the sub-request served */
} core;

/* block.c: one session's requests not reaped, and those of them completed */
typedef struct csd_blk_sess { uint64_t session, outstanding, ready; } csd_blk_sess;

struct csd_engine {
    csd_params p;
    csd_sim *sim;
    csd_flash *flash;
    csd_serial link;
    /* the request scheduler, from the issue model's table (sched/sched.h): rb under batch issue, rst
     * under stage issue */
    const csd_req_batch_ops *rb;
    const csd_req_stage_ops *rst;
    void *rs_state;
    core *cores;
    csd_isp_req *head, *tail;
    uint64_t next_id;
    uint64_t buf_used;
    int dispatch_pending;
    const csd_issue_model *im;
    uint32_t chips;
    uint64_t quota_sum;        /* stage mode: sum of Q over cores (flash ops a request can have out) */
    uint32_t *chip_out;        /* stage mode: reads sent to each chip and not yet landed */
    uint32_t adapt;            /* stage mode: CSD_ADAPT_* bits in force (baseline_adaptation, sched/adapt.h) */
    uint8_t *page_buf;
    csd_flash_op *host_ops;
    size_t host_ops_cap;
    /* map-cached FTLs: batches labelled with flash command sets run set by set (flash/cmdset.h) */
    csd_cmdset *cmdset;
    csd_flash_batch isp_ops;   /* one tasklet page's command set */
    csd_engine_trace_fn trace;
    void *trace_arg;
    csd_trace *timeline;
    csd_engine_stats st;
    /* host block I/O (block.c) */
    csd_blk_req *blk_all;                        /* every request not reaped */
    csd_blk_req *blk_arr_head, *blk_arr_tail;    /* submitted, not arrived, in arrival order (block.c) */
    csd_blk_req *blk_wait_head, *blk_wait_tail;  /* the I/O request queue: arrived, no slot yet */
    csd_blk_req *blk_done_head, *blk_done_tail;  /* completed, in completion order */
    uint64_t blk_inflight, blk_outstanding, blk_next_id;
    uint64_t blk_fq_used;                        /* flash command queue entries held (flash_queue_depth) */
    uint64_t blk_data_bytes;                     /* read data the requests not reaped hold */
    csd_blk_sess *blk_sess;                      /* per session: its requests' counters */
    size_t blk_nsess, blk_capsess;
    csd_ahead_pool *pool;      /* host_threads > 1: workers that feed pages ahead (host/ahead.c) */
    csd_engine_post_fn post;   /* the pages about to be read, for a reader thread */
    void *post_arg;
    csd_serial *pm;            /* two-stage processing: one pattern-matching unit per channel (2PM paper
                                * IV-E), when pm_bytes_per_s is set */
};

/* block.c: free every block request (engine destroy) */
void csd_eng_blk_free(csd_engine *e);

/* core.c: what the public face and both issue models use */
void csd_eng_sched(csd_engine *e, uint64_t t, csd_sim_fn fn, void *arg);
/* Core time of work: ceil(cycles * 1000 / core_mhz) + dram_accesses * dram_access_ns. */
uint64_t csd_eng_cost_ns(const csd_engine *e, uint64_t base_cycles, const csd_cost *c);
void csd_eng_buf_take(csd_engine *e);     /* one page of the ISP buffer */
void csd_eng_buf_give(csd_engine *e);
static inline uint64_t csd_eng_req_pages(const csd_isp_req *r) {
    return r->last >= r->first ? r->last - r->first + 1 : 0;
}
int csd_eng_req_grow(csd_isp_req *r, uint64_t need);
/* What a page's (or finish's) work charged, summed per request. */
static inline void csd_eng_charged(csd_isp_req *r, const csd_cost *c) {
    r->charged.cycles += c->cycles;
    r->charged.dram_accesses += c->dram_accesses;
}
/* A released request lingers until nothing refers to it (flash reads in flight, core slots). */
void csd_eng_req_unref(csd_engine *e, csd_isp_req *r);
void csd_eng_req_unlink(csd_engine *e, csd_isp_req *r);
void csd_eng_req_free(csd_isp_req *r);
/* Out of the policy's and the issue model's hands (dead or released). */
void csd_eng_policy_remove(csd_engine *e, csd_isp_req *r);
/* Drop every page from `from` on that is in DRAM and not on a core (request dead, or past a stop). */
void csd_eng_drop_ready(csd_engine *e, csd_isp_req *r, uint64_t from);
/* Ask the idle cores to choose, in one event at the current instant. */
void csd_eng_kick(csd_engine *e);
void csd_eng_core_start(core *c, uint8_t kind, csd_isp_req *r, uint64_t page, uint64_t dur, int rc);
/* The bytes of the request's page rel (in place, or read into the engine's page buffer); 0 or -errno. */
int csd_eng_page_data(csd_engine *e, csd_isp_req *r, uint64_t rel, const uint8_t **data, size_t *len);
/* kept.c: the bytes of page rel (a ppn, not CSD_PPN_NONE): those kept when GC erased its block, or the store's
 * (*data in place, or buf filled). 0 or -errno. */
int csd_eng_page_bytes(csd_isp_req *r, uint64_t rel, uint8_t *buf, const uint8_t **data);
/* Page rel was fed: drop the bytes kept for it. */
void csd_eng_page_unkeep(csd_isp_req *r, uint64_t rel);
/* End r now with status (no core slot): dead, finished, out of the policy's hands. */
void csd_eng_req_end(csd_engine *e, csd_isp_req *r, int status);
/* Two-stage processing: page class cls (csd_match) of r is known; tell the chip-queue policy when the
 * request's best class rises (2PM paper III-B, the result analyzer). */
void csd_eng_s1_report(csd_engine *e, csd_isp_req *r, int cls);
/* Two-stage processing: stage 1 asked for the page after r's last one. 0 or -ENOMEM. */
int csd_eng_s1_grow(csd_engine *e, csd_isp_req *r);
/* Feed pages up to rel (inclusive); 0 or -errno with *fail_ns the failed page's cost. */
int csd_eng_feed_upto(csd_engine *e, csd_isp_req *r, uint64_t rel, uint64_t *fail_ns);
/* runahead.c: a request's pages fed ahead on the host's worker pool (host/ahead.c; wall time only:
 * the clock and every result stay the serial engine's) */
int csd_eng_pool_create(csd_engine *e);            /* 0 or -errno; none when host_threads <= 1 */
void csd_eng_pool_destroy(csd_engine *e);
int csd_eng_ahead_attach(csd_engine *e, csd_isp_req *r);   /* 0 or -ENOMEM; may leave r->ah NULL */
/* Before the engine takes page r->fed_next: a request whose pages proved cheap goes back to the
 * engine's thread once every page computed ahead is consumed (r->ah is NULL after). */
void csd_eng_ahead_settle(csd_engine *e, csd_isp_req *r);
/* Load the bytes of pages with a known ppn into free slots and hand them to a worker. */
void csd_eng_ahead_load(csd_engine *e, csd_isp_req *r);
/* The result of page rel (== r->fed_next), waiting for it; *read_rc < 0 when the page was not read. */
/* *prepared = 1 when the page was fed as prepared apart from its feed (work.prepare) */
int csd_eng_ahead_join(csd_engine *e, csd_isp_req *r, uint64_t rel, csd_cost *cost, int *need_more, int *read_rc,
                       int *prepared);
/* No worker touches r's work after this returns. */
void csd_eng_ahead_detach(csd_engine *e, csd_isp_req *r);
/* the request's page rel failed or the request stops: end it on core c */
void csd_eng_fail_on(csd_engine *e, core *c, csd_isp_req *r, uint64_t fail_ns, int rc);

#endif
