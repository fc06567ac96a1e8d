/* The device's ISP timing engine: the host link, the embedded cores running tasklet requests under a
 * request-scheduling policy (sched/), and the ISP DRAM buffer, over the flash model (flash/).
 *
 * Host commands: csd_engine_host_io() replays the flash operations the FTL did for a command,
 * arriving now: cmd_overhead_ns, then bytes_to_device over the host link, then the ops (programs
 * and reads), reads streaming their bytes to the host link as they complete (up to bytes_to_host in
 * all; any remainder after the ops). It runs the simulation until the command completes (tasklet
 * requests in flight advance too) and returns the command's device time.
 *
 * Tasklet requests run under one of two issue models (engine/issue.h), chosen at creation:
 *
 * Batch issue (Smart SSD paper IV-A): pages [first_page, last_page] of one object are read in batches of
 * isp_batch_pages; a batch is issued as soon as the ISP buffer (isp_buffer_bytes, page_bytes per page
 * from issue until processed) has room for the whole batch, so batches overlap. A page that
 * arrived is ready; an idle core asks the request scheduler which request to serve and takes that
 * request's lowest-index ready page. Processing cost of a page = ceil((page_cycles + tasklet cycles)
 * * 1000 / core_mhz) + dram_accesses * dram_access_ns, where the tasklet cycles and accesses come
 * from feeding the page to the request's work (pages are fed in index order, ahead of virtual time if a
 * later page is picked first). Unmapped pages need no flash op and are ready at issue. When the
 * last page is processed, finish() runs on the core that processed it, and the request finishes.
 *
 * Where the above is silent (docs/TIMING-MODEL.md has the formulas and worked examples):
 * - Host link: one serial resource for both directions. A command holds it for cmd_overhead_ns plus
 *   the transfer of bytes_to_device; its flash ops are all submitted when that ends.
 * - finish() costs ceil(cycles * 1000 / core_mhz) + dram_accesses * dram_access_ns (no page_cycles).
 *   An empty range is served by the first idle core, ahead of the policy's picks.
 * - Buffer: one pool for all requests. A batch is min(isp_batch_pages, buffer pages, pages left) and
 *   issues when that much room is free; when the whole buffer is empty but holds less, it issues what
 *   fits, at least one page (so a buffer smaller than a page cannot deadlock). Requests issue in
 *   submission order whenever room appears.
 * - Idle cores are served in index order in one dispatch event per instant, after every event due
 *   at that instant, so the policy sees all pages that arrived then.
 * - A feed that fails (tasklet error or page read error) ends the request with that status when the
 *   core slot that fed it (charged page_cycles + the work reported) ends; no finish() runs.
 * - A feed that reports need_more = 0 before the last page (the tasklet stopped) shrinks last_page:
 *   later pages are dropped (in flight ones when they arrive) and finish() follows.
 * - Release cancels: no more issue or picks; the engine keeps the request's memory until its flash
 *   reads in flight and core slots end, and calls nothing on run after release returns.
 * - host_threads > 1 (wall time only): a work that allows it (csd_isp_work.ahead) has its pages fed on
 *   host worker threads as soon as their ppn is known; the feed above takes that page's result at the
 *   same event, so every time, row and status is the one-thread engine's (engine/runahead.c, host/ahead.c).
 *
 * Stage issue (REMUS paper section II-C; docs/SCHEDULERS.md): used when the policy has no batch
 * pick(), or when isp_send_ns or isp_flash_quota is set. Each page belongs to one core: the core of
 * its chip (paper eq. 5: chip % cores). A request is split into one sub-request per core; a
 * sub-request is admitted on its core when the policy's buffer() pages fit in the core's share of
 * the ISP buffer (isp_buffer_bytes / cores, admission in submission order), and holds them until its
 * last page there is processed. An idle core asks the policy's decide() for its next stage:
 *   S: send flash requests for one sub-request: each costs isp_send_ns of core time and is
 *      submitted to the flash when its send ends; pages on one chip at planes 0..N_pl-1 (the first at
 *      plane 0, same block and page) go as one multi-plane request (one chip read, N_pl pages);
 *   P: process the sub-request's lowest-index ready page (cost model as above);
 *   wait: until something changes (a page arrives, a slot ends, a request comes or goes).
 * Constraints (1)-(3) of the paper hold per core at every instant: pages in flight <= Q
 * (isp_flash_quota, default: the core's chips x dies x planes); sent - processed <= B_i per
 * sub-request (hence returned - processed <= sum B_i); processed <= returned. csd_engine_check()
 * verifies them; debug builds verify them after every change and abort on a violation. */
#ifndef CSD_ENGINE_ENGINE_H
#define CSD_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/params.h"
#include "host/ahead.h"
#include "util/cost.h"
#include "flash/flash.h"
#include "sched/sched.h"

typedef struct csd_engine csd_engine;

/* Where a request's input pages come from. */
typedef struct csd_page_source {
    void *arg;
    /* physical page of page_index, or CSD_PPN_NONE when unmapped (reads as zeros) */
    uint64_t (*ppn)(void *arg, uint64_t page_index);
    /* real bytes of ppn into buf (page_bytes); 0 or -errno */
    int (*read)(void *arg, uint64_t ppn, uint8_t *buf);
    /* Optional, tried first: the page's bytes in place (no copy), or NULL with *rc = 0 when it cannot
     * (then read() runs) or a negative errno (the read failed). */
    const uint8_t *(*view)(void *arg, uint64_t ppn, int *rc);
    /* Optional (batch issue): the same through a map-cached FTL, with the page's flash command set
     * (map commands, then the data read) appended to ops; an empty ops means a plain read. */
    uint64_t (*ppn_ops)(void *arg, uint64_t page_index, csd_flash_batch *ops);
} csd_page_source;

/* Run-ahead (host_threads > 1): a feed on a worker thread that must not decide alone (an output
 * buffer check that host reads may relax) waits here until the engine consumes that page; the engine
 * calls the work's commit(arg, 0) first, which makes the check exact. */
typedef struct csd_ahead_gate {
    void (*wait)(void *ctx);
    void *ctx;
} csd_ahead_gate;

/* What a core does with a request's pages: the tasklet runtime on the device (runtime/exec.h),
 * a cost model in experiments. Pages come in index order; a page may be fed before its virtual time. */
typedef struct csd_isp_work {
    void *arg;
    /* Process one page; *cost gets the work done, *need_more = 0 once no later page is needed.
     * 0 or a negative errno (the request fails). */
    csd_page_feed_fn feed;
    /* Input exhausted; 0 or a negative errno. */
    int (*finish)(void *arg, csd_cost *cost);
    /* Optional: two-stage processing (2PM paper III-A). When set, feed() is never called: each page
     * goes to stage1() once, as it lands, in any order (on the channel's pattern-matching unit at
     * pm_bytes_per_s, or on a core when that is 0), and finish() is the second stage, on a core, after
     * every page passed stage 1. *cls is the page's class (CSD_MATCH_MISMATCHED, _PARTIAL, _MATCHED):
     * the request's best class so far goes to the chip-queue policy as a reordering request (2PM
     * IV-B). *need_next = 1 on the request's last page asks for one more page (text running past the
     * extent). 0 or a negative errno (the request fails). Batch issue only. */
    int (*stage1)(void *arg, uint64_t page_index, const uint8_t *data, size_t len, csd_cost *cost, int *cls,
                  int *need_next);
    /* Optional, both or neither: run-ahead on host threads (host_threads > 1; wall time only). ahead()
     * returns 1 when feed() may run on a worker thread before the engine needs the page (pages still in
     * order, one thread at a time, never beside finish()); its effects that others can see (output rows)
     * must then wait for commit(arg, 1), which the engine calls on its own thread when it consumes the
     * page, in the order and at the virtual time the serial engine feeds it. commit(arg, 0) refreshes
     * what the work may do ahead (see csd_ahead_gate). commit returns 0 or a negative errno. */
    int (*ahead)(void *arg, const csd_ahead_gate *gate);
    csd_page_commit_fn commit;
    /* Optional: undo ahead() when every page fed ahead is committed; later pages are fed on the
     * engine's thread as if ahead() had never run. Without it a request stays ahead to its end. */
    void (*unahead)(void *arg);
    /* Optional with ahead, all four or none: part of a page's work done apart from feed, on any
     * thread and in any order, once the page's bytes are known. prepare() may not touch what feed
     * changes; feed_prepared() is feed() given that page's prep (or NULL: nothing prepared) and
     * returns exactly what feed() would. 0 or a negative errno (prepare: prep is then unused). */
    csd_page_prep_new_fn prep_new;
    csd_page_prep_free_fn prep_free;
    csd_page_prepare_fn prepare;
    csd_page_feed_prepared_fn feed_prepared;
} csd_isp_work;

typedef struct csd_isp_progress {
    uint64_t pages_done, pages_total;
    int finished;            /* 1 once finish() ran or the request failed */
    int status;              /* 0 or negative errno from the work */
    uint64_t submit_ns, finish_ns;
    uint64_t device_ns;      /* finish_ns - submit_ns, or now - submit_ns while running */
    uint64_t flash_bytes_read;
    uint64_t core_ns;
    uint64_t cycles, dram_accesses;   /* what the work charged (csd_cost) over its pages so far and finish */
    uint8_t match;           /* two-stage: the best class of its pages so far (csd_match) */
    uint64_t matched_ns;     /* two-stage: when a page first matched (0 = none has) */
    uint64_t id;             /* the request's number: its flash operations' req_id, its timeline spans' req */
} csd_isp_progress;

typedef struct csd_engine_stats {
    uint64_t host_bytes_in, host_bytes_out, host_commands;
    uint64_t host_link_busy_ns;          /* ns the host link was reserved (both directions) */
    uint64_t isp_requests, isp_pages, isp_core_ns;   /* submitted; pages processed; all cores */
    uint64_t isp_buffer_peak_bytes;
    uint64_t isp_buffer_used_bytes;      /* now */
    uint32_t cores;                      /* for csd_engine_core_busy_ns */
    uint64_t stage_decisions;            /* stage mode: decide() calls */
    uint64_t stage_forced;               /* stage mode: waits with nothing in flight, overridden */
    uint64_t isp_pages_ahead;            /* pages whose feed ran ahead on host threads (host_threads > 1;
                                          * wall time only) */
    uint64_t isp_pages_saved;            /* issued pages not yet fed whose block GC erased: their bytes
                                          * kept, as of the read (csd_engine_block_erasing) */
    uint64_t isp_pages_prepared;         /* of isp_pages_ahead: fed with their lines prepared apart, on
                                          * any host thread (csd_isp_work.prepare; wall time only) */
} csd_engine_stats;

int csd_engine_create(csd_engine **out, const csd_params *p, char *err, size_t errlen);
void csd_engine_destroy(csd_engine *e);   /* drops unfinished requests */
uint64_t csd_engine_now(const csd_engine *e);

uint64_t csd_engine_host_io(csd_engine *e, const csd_flash_batch *ops, uint64_t bytes_to_device,
                            uint64_t bytes_to_host);

/* Submit a request at now. The engine copies work and src; what they point to must outlive the
 * request. An empty range (last_page < first_page) finishes after finish() alone. last_page may grow
 * for text up to max_page (the object's last page) while the work says it needs more. 0 or -errno. */
int csd_engine_submit(csd_engine *e, csd_isp_req **out, const csd_isp_work *work, const csd_page_source *src,
                      uint64_t first_page, uint64_t last_page, uint64_t max_page, uint32_t last_page_len);
/* The same, with the profiled processing time per page (the paper's c_i, used by the stage-mode
 * policies before the request has processed pages; 0 = unknown: the base page cost). */
int csd_engine_submit_ex(csd_engine *e, csd_isp_req **out, const csd_isp_work *work, const csd_page_source *src,
                         uint64_t first_page, uint64_t last_page, uint64_t max_page, uint32_t last_page_len,
                         uint64_t ci_hint_ns);
void csd_engine_progress(const csd_engine *e, const csd_isp_req *r, csd_isp_progress *p);
/* The issue model p->issue_model names and the request scheduler p->request_scheduler names in that
 * model's table (sched/sched.h), checked together, with the stage model's own requirement (a buffer
 * page per core); batch issue takes neither isp_send_ns nor isp_flash_quota. 0 or -EINVAL with err. */
int csd_engine_check_sched(const csd_params *p, char *err, size_t errlen);
/* The i-th issue model's name, NULL past the last. */
const char *csd_engine_issue_model_at(size_t i);
/* 1 when the engine runs the stage issue model. */
int csd_engine_staged(const csd_engine *e);
/* "batch" or "stage". */
const char *csd_engine_issue_model(const csd_engine *e);
/* Stage mode: verify constraints (1)-(3), the buffer allocation and every counter against the page
 * states. 0, or -1 with err naming the first violation (always 0 outside stage mode). */
int csd_engine_check(const csd_engine *e, char *err, size_t errlen);
/* Stage mode: a trace of the slots of every core, for tests: fn(arg, core, stage, request id, start,
 * end, pages); stage is 'S', 'P' or 'f' (finish). NULL turns it off. */
typedef void (*csd_engine_trace_fn)(void *arg, uint32_t core, char stage, uint64_t req_id, uint64_t start,
                                    uint64_t end, uint64_t pages);
void csd_engine_set_trace(csd_engine *e, csd_engine_trace_fn fn, void *arg);
/* Record a timeline into t (trace/trace.h): core slots, the ISP buffer's occupancy, and the flash
 * model's spans. NULL stops. */
typedef struct csd_trace csd_trace;
void csd_engine_set_timeline(csd_engine *e, csd_trace *t);
/* Requests in the engine now (running or not yet released), for live views: fn gets each one's
 * progress and id. */
void csd_engine_visit_requests(const csd_engine *e, void (*fn)(void *arg, uint64_t id, const csd_isp_progress *p),
                               void *arg);
/* The work the device holds for tasklet requests (backlog.c): what a new request would wait behind. */
typedef struct csd_engine_backlog {
    uint32_t requests;           /* tasklet requests not finished */
    uint64_t pages_left;         /* their pages not processed yet */
    uint64_t pages_unpriced;     /* of those, pages of requests with no page done: priced at the device's
                                  * mean core time per page (0 before its first page) */
    uint64_t pages_unread;       /* of pages_left, not in device DRAM yet */
    uint64_t core_ns_left;       /* core time of pages_left: each request's mean per page so far */
    uint64_t flash_page_ns;      /* ns: the read path's steady time per page (csd_engine_flash_page_ns) */
    uint64_t flash_ns_left;      /* pages_unread x flash_page_ns */
    uint64_t link_ns_left;       /* ns the host link is reserved past now */
    uint64_t block_in_service;   /* host block requests in service (block_queue_depth bounds them) */
    uint64_t drain_ns;           /* max(core_ns_left / cores, flash_ns_left, link_ns_left) */
} csd_engine_backlog;
void csd_engine_backlog_get(const csd_engine *e, csd_engine_backlog *b);
/* ns per page of the flash read path in steady state: max(fw_page_ns, transfer / channels,
 * (t_read + transfer) / chips), the transfer xfer_ns(page_bytes, channel_bytes_per_s). */
uint64_t csd_engine_flash_page_ns(const csd_params *p);
/* Forget a request (cancelling it if it is still running). */
void csd_engine_release(csd_engine *e, csd_isp_req *r);

/* ---- Block I/O (block.c): host block requests, NVMe-like (docs/BLOCK-IO.md) ----
 * A request arrives at arrival_ns (clamped to now); if block_queue_depth requests are in service, or
 * its command sets do not fit the flash command queue (flash_queue_depth entries, one per set in
 * progress; an empty queue takes any request), it waits in the I/O request queue (arrival order). Admitted at t_adm, it holds the host link
 * for cmd_overhead_ns + xfer(bytes_to_device), then submits all of ops (the FTL's, in issue order; GC
 * ones as CSD_SRC_GC) to the flash-command scheduler at once; each READ streams min(page, bytes left)
 * to the host link as it lands, the rest after the last op. It completes at the end of its last op or
 * link transfer. Each request belongs to a session (a host's queue pair): a session reaps only its own
 * completions, in completion order. */
typedef struct csd_blk_req csd_blk_req;
/* What the host interface keeps with a request; the engine hands it back with the completion. data,
 * when set, is malloc'd memory the engine frees if the request is never reaped. */
typedef struct csd_blk_tag {
    uint64_t session;
    uint64_t id, lba;
    uint32_t count;
    uint8_t op;
    int status;
    void *data;
    size_t data_len;
} csd_blk_tag;
typedef struct csd_blk_done {
    csd_blk_tag tag;
    uint64_t arrival_ns;      /* arrived */
    uint64_t admit_ns;        /* took a device queue slot */
    uint64_t first_flash_ns;  /* earliest start of one of its flash operations: its completion minus its
                               * service time (flash.h) when it never waits once started; 0 = none */
    uint64_t done_ns;
    uint32_t flash_ops;
    /* the DRS paper's Fig. 10: done - arrival = (admit - arrival) [I/O request queue]
     * + (submit - admit) + (done - flash_done) [host link: command, data in; data out after the last
     * flash command] + flash_busy [its own commands on the flash] + the rest [flash command queue:
     * its commands waiting for the chip, for other requests' delaying commands, for GC] */
    uint64_t submit_ns;       /* its commands went to the flash-command scheduler (after the link) */
    uint64_t flash_done_ns;   /* its last flash command completed (0 = none) */
    uint64_t flash_busy_ns;   /* time its own commands (map and data, not GC) held the flash: their
                               * service times summed where they do not overlap */
    uint32_t clf_delayed, dle_delayed;   /* its command sets that waited for another request's cache-line
                                          * fetch / dirty-line eviction (DRS V-C's delayed requests) */
} csd_blk_done;
/* 0 or -ENOMEM. tag comes back with the completion. */
int csd_engine_blk_submit(csd_engine *e, uint64_t arrival_ns, const csd_flash_batch *ops, uint64_t bytes_to_device,
                          uint64_t bytes_to_host, const csd_blk_tag *tag);
/* Up to max of session's completed requests, oldest completion first; they are forgotten (the caller
 * owns their data). */
size_t csd_engine_blk_reap(csd_engine *e, uint64_t session, csd_blk_done *out, size_t max);
size_t csd_engine_blk_ready(const csd_engine *e, uint64_t session);        /* completed, not reaped */
size_t csd_engine_blk_outstanding(const csd_engine *e, uint64_t session);  /* submitted, not reaped */
size_t csd_engine_blk_outstanding_all(const csd_engine *e);               /* every session's */
/* Step until min of session's completions are ready, or all its requests not reaped are (or nothing is
 * left to run). */
void csd_engine_blk_run(csd_engine *e, uint64_t session, size_t min);
uint64_t csd_engine_blk_data_bytes(const csd_engine *e);                  /* data held for reaps */
/* The session is gone: its completions are freed, and its requests in flight when they complete. */
void csd_engine_blk_drop(csd_engine *e, uint64_t session);

/* Run one event; 1 if one ran, 0 if idle. */
int csd_engine_step(csd_engine *e);
/* Time of the next pending event into *t: 1, or 0 when none is pending. */
int csd_engine_peek(const csd_engine *e, uint64_t *t);
/* Run every event due at or before t, then move the clock to t (idle time). Never goes backwards. */
void csd_engine_run_until(csd_engine *e, uint64_t t);
/* Run until r finishes (or nothing is pending). */
void csd_engine_run_until_finished(csd_engine *e, csd_isp_req *r);

/* GC is about to erase physical pages [first_ppn, first_ppn + npages): every request's pages resolved
 * to one of them and not fed yet keep their bytes as they are now (the bytes their flash read returns,
 * which a device would hold in its DRAM), and are fed those later. Times do not change. */
void csd_engine_block_erasing(csd_engine *e, uint64_t first_ppn, uint64_t npages);

/* Told the ppns a request will read (CSD_PPN_NONE for none), in the order the engine will read them,
 * as its pages are resolved: a reader thread reads them ahead (the store's, csd_store_reader_post).
 * Only the pages of requests fed on the engine's own thread (no run-ahead, or settled back to it as
 * cheap) are told. Wall time only. One hook; fn NULL removes it. */
typedef void (*csd_engine_post_fn)(void *arg, const uint64_t *ppns, size_t n);
void csd_engine_set_post_hook(csd_engine *e, csd_engine_post_fn fn, void *arg);

/* Counters of the flash array, host link and cores (either pointer may be NULL). */
void csd_engine_stats_get(const csd_engine *e, csd_engine_stats *s, csd_flash_stats *fs);
/* Busy ns of one core (page slots and finish() slots); 0 for a core that does not exist. */
uint64_t csd_engine_core_busy_ns(const csd_engine *e, uint32_t core);
/* Flash operations queued at a chip now. */
uint32_t csd_engine_chip_queued(const csd_engine *e, uint32_t chip);
/* The flash model under the engine, for experiments that submit their own operations beside the
 * requests (background host and migration traffic; they share the chips with the requests). */
csd_flash *csd_engine_flash(csd_engine *e);

#endif
