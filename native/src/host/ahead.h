/* Run-ahead: the emulator's worker pool, on which the pure part of a request's pages (feeding its bytes
 * to the work: state + page -> new state, staged rows, cost) runs before the serial engine needs it.
 * Wall time only: the engine decides everything in virtual time on its own thread and joins each
 * page's result when it would feed that page (engine/runahead.c), so no device time, row or status
 * depends on the threads. This file knows pages, slots and threads, nothing of the device. */
#ifndef CSD_HOST_AHEAD_H
#define CSD_HOST_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "util/cost.h"

typedef struct csd_ahead_pool csd_ahead_pool;
typedef struct csd_ahead csd_ahead;

/* The page work's calls that run ahead, one signature each (the engine's csd_isp_work, engine/engine.h,
 * says what each does and has the same fields). */
typedef int (*csd_page_feed_fn)(void *arg, uint64_t page_index, const uint8_t *data, size_t len, csd_cost *cost,
                                int *need_more);
typedef int (*csd_page_commit_fn)(void *arg, int page);
typedef void *(*csd_page_prep_new_fn)(void *arg);
typedef void (*csd_page_prep_free_fn)(void *arg, void *prep);
typedef int (*csd_page_prepare_fn)(void *arg, void *prep, uint64_t page_index, const uint8_t *data, size_t len);
typedef int (*csd_page_feed_prepared_fn)(void *arg, uint64_t page_index, const uint8_t *data, size_t len, void *prep,
                                         csd_cost *cost, int *need_more);

/* What a request's pages are fed to: the run-ahead half of the engine's work. prep_new, prep_free,
 * prepare and feed_prepared: all four or none. */
typedef struct csd_ahead_work {
    void *arg;
    csd_page_feed_fn feed;
    csd_page_commit_fn commit;
    csd_page_prep_new_fn prep_new;
    csd_page_prep_free_fn prep_free;
    csd_page_prepare_fn prepare;
    csd_page_feed_prepared_fn feed_prepared;
} csd_ahead_work;

/* Read the request's page rel (relative to its first) into buf (page_bytes) and set *len to its
 * bytes; 0 or a negative errno (the request then fails at that page). Engine thread. */
typedef int (*csd_ahead_read_fn)(void *ctx, uint64_t rel, uint8_t *buf, size_t *len);

/* threads counts the caller's own thread: threads - 1 workers beside it. *out stays NULL when
 * threads <= 1 or no thread could be started (the caller's thread then does everything). 0 or
 * -ENOMEM. */
int csd_ahead_pool_create(csd_ahead_pool **out, uint32_t threads);
void csd_ahead_pool_destroy(csd_ahead_pool *pl);

/* A request's run-ahead over pool pl, not yet started: its pages first, first + 1, ... fed to w in
 * order, slots pages loaded and not consumed at most (page_bytes each), read with read(read_ctx).
 * min_ns: its first pages are timed, and once they averaged less than this (host wall time) it
 * goes cheap, back to the caller's thread (0: never); unahead: the work can go back without
 * memory for a slot. NULL when out of memory. */
csd_ahead *csd_ahead_new(csd_ahead_pool *pl, const csd_ahead_work *w, uint64_t first, uint32_t slots,
                         uint32_t page_bytes, uint32_t min_ns, int unahead, csd_ahead_read_fn read, void *read_ctx);
/* The gate a's work waits at (engine/engine.h, csd_ahead_gate): its wait function, with a as ctx. */
void csd_ahead_gate_wait(void *a);
/* The work took it (its ahead() said 1): workers may take its pages. */
void csd_ahead_start(csd_ahead *a);
/* Not started, or done: wait until no worker touches it, then free it. */
void csd_ahead_free(csd_ahead *a);

/* Caller's thread: load pages into free slots, up to avail (pages whose bytes are known; slot k %
 * slots is free once page k - slots is consumed, consumed pages being those below `consumed`), and
 * hand them to the workers; issued: pages issued so far (loading the last of them wakes a worker
 * at once). */
void csd_ahead_load(csd_ahead *a, uint64_t consumed, uint64_t avail, uint64_t issued);
/* Caller's thread: 1 when a went cheap and every page fed ahead is consumed: the caller then frees
 * it and feeds page `consumed` itself. */
int csd_ahead_settled(csd_ahead *a, uint64_t consumed);
/* Caller's thread: page rel's result (feed's return value, cost, need_more; *read_rc < 0 when the
 * page could not be read; *prepared when it was fed prepared), waiting for it, or feeding it here
 * when every worker is busy. Its slot is free for a later page once the call returns. */
int csd_ahead_join(csd_ahead *a, uint64_t rel, csd_cost *cost, int *need_more, int *read_rc, int *prepared);

#endif
