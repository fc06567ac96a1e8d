/* Device lifecycle: format, check, open (the image, the engine, the device thread), close. The device
 * thread advances tasklet requests between commands. */
#include "hil/device.h"
#include "config/config.h"
#include "host/settings.h"
#include "sandbox/sandbox.h"
#include "hil/pace.h"
#include "hil/timeline.h"
#include "store/store.h"
#include "host/bufpool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


int csd_format(const char *image, uint64_t capacity, const csd_params *p, char *err, size_t errlen) {
    csd_params def;
    if (!p) {
        csd_params_preset(&def, NULL);
        p = &def;
    }
    if (!image || !*image) {
        snprintf(err, errlen, "no image path");
        return -EINVAL;
    }
    int rc = csd_params_validate(p, err, errlen);
    if (rc) return rc;
    csd_params stored = *p;
    stored.trace_file[0] = 0;   /* a session's choice, not the image's */
    return csd_ftl_format(image, capacity, &stored, err, errlen);
}

int csd_check(const char *image, void (*report)(void *arg, const char *line), void *arg) {
    int problems = csd_ftl_check(image, report, arg);
    if (problems < 0) return problems;
    /* open also starts the stored policies: a stored name or value this build refuses is damage */
    csd_store *st;
    csd_params p;
    char err[512], line[600];
    if (csd_store_open(&st, image, 0, &p, err, sizeof err) == 0) {
        csd_store_close(st);
        if (csd_params_validate(&p, err, sizeof err)) {
            snprintf(line, sizeof line, "problem: superblock params: %s", err);
            if (report) report(arg, line);
            problems++;
        }
    }
    return problems;
}

const csd_params *csd_device_params(const csd_device *dev) { return &dev->params; }


/* Wait on work_cv, but not past the next orphan-rule deadline (then reclaim). */
static void worker_wait(csd_device *d) {
    if (d->reclaim_at_ns == UINT64_MAX) {
        pthread_cond_wait(&d->work_cv, &d->mu);
        return;
    }
    uint64_t now = pace_wall_ns();
    if (now < d->reclaim_at_ns) {
        uint64_t wait = d->reclaim_at_ns - now;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t ns = (uint64_t)ts.tv_nsec + wait % 1000000000ull;
        ts.tv_sec += (time_t)(wait / 1000000000ull + ns / 1000000000ull);
        ts.tv_nsec = (long)(ns % 1000000000ull);
        pthread_cond_timedwait(&d->work_cv, &d->mu, &ts);
        now = pace_wall_ns();
    }
    if (now >= d->reclaim_at_ns) vobj_reclaim(d, now);
}

int csd_session_begin(csd_device *d, uint64_t *session) {
    pthread_mutex_lock(&d->mu);
    if (d->n_sessions == d->cap_sessions) {
        size_t cap = d->cap_sessions ? d->cap_sessions * 2 : 16;
        uint64_t *s = realloc(d->sessions, cap * sizeof *s);
        if (!s) {
            pthread_mutex_unlock(&d->mu);
            return -ENOMEM;
        }
        d->sessions = s;
        d->cap_sessions = cap;
    }
    *session = ++d->next_session;
    d->sessions[d->n_sessions++] = *session;
    /* from now on the orphan rule has work: a first pass one timeout from now */
    uint64_t due = pace_wall_ns() + d->params.orphan_timeout_ms * 1000000ull;
    if (due < d->reclaim_at_ns) d->reclaim_at_ns = due;
    pthread_mutex_unlock(&d->mu);
    return 0;
}

void csd_session_end(csd_device *d, uint64_t session) {
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < d->n_sessions; i++) {
        if (d->sessions[i] == session) {
            d->sessions[i] = d->sessions[--d->n_sessions];
            uint64_t now = pace_wall_ns();
            vobj_session_ended(d, session, now);
            csd_engine_blk_drop(d->eng, session);   /* its block completions have no one to poll them */
            if (now >= d->reclaim_at_ns) vobj_reclaim(d, now);
            break;
        }
    }
    /* the device thread may sleep until a deadline that is now earlier */
    pthread_cond_signal(&d->work_cv);
    pthread_mutex_unlock(&d->mu);
}

/* Advances tasklet requests while any runs; in paced mode at the pace of wall time. */
static void *worker_main(void *arg) {
    csd_device *d = arg;
    pthread_mutex_lock(&d->mu);
    uint64_t wall0 = 0, dev0 = 0;
    int busy = 0;
    while (!d->stop) {
        if (!d->running || vobj_backlogged(d)) {
            /* Idle, or an output holds half its buffer unread: like a real device with a full
             * result buffer, stop until the host reads (a read signals work_cv). */
            busy = 0;
            worker_wait(d);
            continue;
        }
        if (!busy) {
            busy = 1;
            wall0 = pace_wall_ns();
            dev0 = csd_engine_now(d->eng);
        }
        int stepped = 0;
        if (d->params.paced) {
            int r = pace_slice(d, wall0, dev0);
            if (r > 0) continue;
            stepped = r == 0;
        } else {
            /* look at the output buffers after every event: one event can process a batch of pages,
             * and a slice of 256 could fill a buffer past its limit (the run then fails "output
             * buffer full") before the backlog check above */
            for (int i = 0; i < 256 && csd_engine_step(d->eng); i++) {
                stepped++;
                if (vobj_backlogged(d)) break;
            }
        }
        vobj_poll_runs(d);
        pthread_cond_broadcast(&d->progress_cv);
        if (!stepped && d->running) {
            /* Nothing left to simulate yet a run is open: cannot happen unless a request is lost;
             * wait instead of spinning. */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000000;
            if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
            pthread_cond_timedwait(&d->work_cv, &d->mu, &ts);
            continue;
        }
        /* Let waiting commands in between slices. */
        pthread_mutex_unlock(&d->mu);
        sched_yield();
        pthread_mutex_lock(&d->mu);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* GC erases a block: tasklet pages resolved to it and not processed keep the bytes they were read with. */
static void erasing(void *arg, uint64_t first_ppn, uint32_t npages) {
    csd_engine_block_erasing(arg, first_ppn, npages);
}

/* The pages a request is about to read: the FTL's reader thread reads them ahead. */
static void posted(void *arg, const uint64_t *ppns, size_t n) { csd_ftl_reader_post(arg, ppns, n); }

int csd_device_open(csd_device **out, const char *image, const csd_open_opts *opts, char *err, size_t errlen) {
    *out = NULL;
    csd_device *d = calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    csd_params stored;
    int rc = csd_ftl_open(&d->ftl, image, &stored, err, errlen);
    if (rc) {
        free(d);
        return rc;
    }
    d->params = stored;
    if (opts && (opts->override || opts->edit)) {
        /* What is fixed at format stays the image's (the parameter table says which); the rest may
         * change per session. */
        csd_params o = opts->override ? *opts->override : stored;
        if (opts->edit && (rc = opts->edit(opts->edit_arg, &o, err, errlen)) != 0) {
            if (rc > 0) rc = -EINVAL;
            goto fail;
        }
        csd_params_keep_fixed(&o, &stored);
        rc = csd_params_validate(&o, err, errlen);
        if (rc) goto fail;
        d->params = o;
        csd_ftl_set_sync_writes(d->ftl, o.sync_writes);
    }
    d->background = opts ? opts->background : 1;
    d->pool = csd_bufpool_new(CSD_BUFPOOL_KEEP_BYTES, CSD_BUFPOOL_MIN);
    if (!d->pool) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
        goto fail;
    }
    rc = csd_engine_create(&d->eng, &d->params, err, errlen);
    if (rc) goto fail;
    csd_ftl_set_erase_hook(d->ftl, erasing, d->eng);
    /* without a thread to be had the engine reads its pages itself, as with host_reader = 0 */
    if (CSD_HOST_THREADS(&d->params) > 1 && CSD_HOST_READER(&d->params) && csd_ftl_reader_start(d->ftl) == 0)
        csd_engine_set_post_hook(d->eng, posted, d->ftl);
    snprintf(d->name, sizeof d->name, "%s", image);
    rc = timeline_open(d, image, err, errlen);
    if (rc) goto fail;
    d->next_vid = CSD_VOLATILE_ID_BASE;
    d->reclaim_at_ns = UINT64_MAX;   /* nothing to reclaim until a session exists */
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->work_cv, NULL);
    pthread_cond_init(&d->progress_cv, NULL);
    if (d->background) {
        if (pthread_create(&d->worker, NULL, worker_main, d)) {
            snprintf(err, errlen, "cannot start the device thread");
            rc = -EAGAIN;
            goto fail_sync;
        }
        d->worker_started = 1;
    }
    *out = d;
    return 0;
fail_sync:
    pthread_cond_destroy(&d->progress_cv);
    pthread_cond_destroy(&d->work_cv);
    pthread_mutex_destroy(&d->mu);
fail:
    if (d->trace) timeline_close(d, d->name);
    csd_ftl_set_erase_hook(d->ftl, NULL, NULL);
    if (d->eng) csd_engine_destroy(d->eng);
    csd_ftl_close(d->ftl);
    csd_bufpool_free(d->pool);
    free(d);
    return rc;
}

int csd_device_close(csd_device *d) {
    if (!d) return -EINVAL;
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_broadcast(&d->work_cv);
    pthread_cond_broadcast(&d->progress_cv);
    pthread_mutex_unlock(&d->mu);
    if (d->worker_started) pthread_join(d->worker, NULL);
    while (d->vobjs) vobj_free(d, d->vobjs);
    free(d->sessions);
    csd_sandbox_destroy(d->sandbox);
    int trc = timeline_close(d, d->name);
    csd_ftl_set_erase_hook(d->ftl, NULL, NULL);
    csd_engine_destroy(d->eng);
    free(d->blk_buf);
    csd_flash_batch_free(&d->blk_ops);
    csd_bufpool_free(d->pool);   /* after every output: no request holds a region */
    int rc = csd_ftl_close(d->ftl);
    if (!rc) rc = trc;
    pthread_cond_destroy(&d->progress_cv);
    pthread_cond_destroy(&d->work_cv);
    pthread_mutex_destroy(&d->mu);
    free(d);
    return rc;
}

