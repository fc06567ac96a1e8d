/* Run-ahead: the device's cores on the host's cores (host_threads > 1; host/ahead.h). The event
 * engine stays on one thread and decides everything in virtual time; only the pure part of a page,
 * feeding its bytes to the request's work (tasklet state + page -> new state, staged rows, cost),
 * runs on worker threads, in page order per request, as soon as the page's bytes are known. The
 * engine thread reads the bytes (the store and the FTL are not shared with workers;
 * engine/runahead.c reads them), and when the serial engine would feed page k it joins that page's
 * result instead and commits what the page produced. Cost, rows, stops and failures are the serial
 * engine's, consumed in the same event order, so device times and output bytes do not change with
 * the number of threads. A request whose first pages prove cheaper than their hand-off
 * (host_ahead_min_ns) goes back to the engine's thread once its pages fed ahead are published. */
#include "host/ahead.h"
#include "host/spin.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* When the engine must wait for a worker's page, it waits for this many more (or all loaded): one
 * wake-up per batch instead of one per page, which cost the worker more than a cheap page. */
#define AHEAD_WAKE_BATCH 16u
/* Pages of a request whose feed is timed (host wall time) before their mean, the slowest left out,
 * decides whether it stays ahead (host_ahead_min_ns): enough to smooth slow pages, few of a
 * request's pages. */
#define AHEAD_PROBE_PAGES 16u
/* Pages of a request that may be prepared ahead of its in-order feed (work.prepare): a few per
 * thread keep every worker busy; each holds a prepared page's arrays. */
#define AHEAD_PREP_RING 32u

enum { PREP_FREE, PREP_BUSY, PREP_DONE, PREP_NONE /* nothing prepared: fed whole */ };

/* Run-ahead of one request: pages' bytes loaded by the caller's (engine's) thread into a ring of slots,
 * fed to the work on a worker thread in page order; the engine joins each page's result when the
 * serial engine would feed it. Fields below "guarded by" are guarded by the pool's mutex. */
typedef struct ahead_slot {
    uint8_t *buf;
    size_t len;
    int read_rc;              /* the page could not be read: not fed, the request fails */
    int rc, need_more;
    int prepared;             /* fed with its page prepared apart (work.prepare) */
    csd_cost cost;
} ahead_slot;

struct csd_ahead {
    csd_ahead_pool *pl;
    csd_ahead_work work;
    int unahead;              /* the work can go back to the engine's thread (csd_ahead_new) */
    uint32_t page_bytes;      /* a slot's bytes */
    csd_ahead_read_fn read;   /* how the engine thread reads a page into a slot */
    void *read_ctx;
    uint64_t first;
    ahead_slot *slot;
    uint32_t W;               /* slots: pages loaded and not consumed */
    /* guarded by the pool's mutex */
    uint64_t loaded;          /* pages (relative) whose bytes are in slots */
    uint64_t computed;        /* pages fed */
    int stopped;              /* a feed failed or needs no more: nothing further is fed */
    int queued, running, cancel, gate_wait;
    int main_feeding;         /* the engine's own thread feeds the page it joins */
    uint32_t probed;          /* pages whose feed was timed (host wall time), their time, the slowest's */
    uint64_t probe_ns, probe_max_ns;
    int cheap;                /* the others averaged under host_ahead_min_ns: back to the engine's thread */
    uint32_t min_ns;          /* host_ahead_min_ns */
    struct csd_ahead *qnext;
    /* prepared pages (work.prepare): page j (computed <= j < computed + AHEAD_PREP_RING, j <
     * loaded) prepared by any thread into prep[j % ring] while another feeds the pages before it */
    int can_prep;
    uint64_t prep_next;       /* pages below it are claimed (prepared, being prepared or fed whole) */
    uint32_t preparing;       /* threads preparing one of its pages */
    void **prep;
    uint8_t *prep_st;         /* per ring entry: 0 free, 1 being prepared, 2 prepared */
    uint64_t *prep_ns;        /* its preparation's host wall time (the page's timed feed includes it) */
    struct csd_ahead *pnext;  /* the pool's requests that take prepare jobs */
};

struct csd_ahead_pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv;   /* workers: a request has pages to feed, or quit */
    pthread_cond_t done_cv;   /* the engine: a page was fed, a worker let go, a gate waits */
    pthread_t *th;
    uint32_t n;
    int quit;
    uint32_t idle;            /* workers waiting for work: a signal only when one can take it */
    int main_waiting;         /* the engine's thread waits on done_cv: a broadcast only then */
    /* what the engine waits for when it waits for fed pages: a worker wakes it once wait_a has
     * computed wait_upto pages (a batch, not every page: a wake-up costs more than most pages) */
    const struct csd_ahead *wait_a;
    uint64_t wait_upto;
    csd_ahead *qhead, *qtail;
    csd_ahead *preps;         /* requests whose pages workers may prepare (can_prep) */
    pthread_cond_t prep_cv;   /* a feeder: a page it needs was prepared */
    int prep_wake;            /* a worker was woken to prepare pages and has not yet woken */
    uint32_t prep_waiting;    /* feeders waiting on prep_cv */
};

/* The pool's lock is held briefly (a page claimed or marked fed), but three threads take it several
 * times a page, and a mutex found taken sleeps at once: with two host threads the text plan's workers
 * went to sleep on it about as often as on their condition variables (perf sched_switch), each sleep
 * a wake-up system call on the holder's side. So spin briefly first (host/spin.h). */
static void pool_lock(csd_ahead_pool *pl) { csd_mutex_lock_spin(&pl->mu); }

/* Claim a's next page to prepare, with pl->mu held: its index, or UINT64_MAX when there is none
 * (not loaded yet, too far ahead of the feed, or nothing more is fed). */
static uint64_t prep_claim(csd_ahead *a) {
    if (!a->can_prep || a->stopped || a->cancel || a->cheap) return UINT64_MAX;
    uint64_t j = a->prep_next > a->computed ? a->prep_next : a->computed;
    if (j >= a->loaded || j >= a->computed + AHEAD_PREP_RING) return UINT64_MAX;
    a->prep_next = j + 1;
    a->prep_st[j % AHEAD_PREP_RING] = PREP_BUSY;
    a->preparing++;
    return j;
}

/* Prepare page j of a, claimed; called and returns with pl->mu held. The page's slot keeps its
 * bytes meanwhile: it is reloaded only after the page is consumed, and the page is fed only once
 * it is prepared. */
static void prep_page(csd_ahead_pool *pl, csd_ahead *a, uint64_t j) {
    const uint32_t k = (uint32_t)(j % AHEAD_PREP_RING);
    const ahead_slot *s = &a->slot[j % a->W];
    /* only a page whose feed may be timed needs its preparation timed: probed only grows, so a page
     * prepared after the probe is fed after it (two clock reads a page, 0.5 % of a text plan) */
    const int timed = a->probed < AHEAD_PROBE_PAGES;
    pthread_mutex_unlock(&pl->mu);
    struct timespec t0 = { 0, 0 }, t1 = { 0, 0 };
    if (timed) clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!a->prep[k]) a->prep[k] = a->work.prep_new(a->work.arg);
    int ok = a->prep[k] && s->read_rc == 0 && a->work.prepare(a->work.arg, a->prep[k], a->first + j, s->buf, s->len) == 0;
    if (timed) clock_gettime(CLOCK_MONOTONIC, &t1);
    pool_lock(pl);
    a->prep_ns[k] = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec));
    a->prep_st[k] = ok ? PREP_DONE : PREP_NONE;
    a->preparing--;
    if (pl->prep_waiting) pthread_cond_broadcast(&pl->prep_cv);   /* a feeder waiting for this page */
    /* detach waits for the last preparation; the engine waiting for fed pages need not wake */
    if (a->cancel && pl->main_waiting) pthread_cond_broadcast(&pl->done_cv);
}

static void pool_enqueue(csd_ahead_pool *pl, csd_ahead *a) {
    if (a->queued && pl->idle) pthread_cond_signal(&pl->work_cv);
    if (a->queued || a->running || a->stopped || a->cancel || a->cheap || a->computed >= a->loaded) return;
    a->queued = 1;
    a->qnext = NULL;
    if (pl->qtail) pl->qtail->qnext = a; else pl->qhead = a;
    pl->qtail = a;
    if (pl->idle) pthread_cond_signal(&pl->work_cv);
}

static void pool_dequeue(csd_ahead_pool *pl, csd_ahead *a) {
    if (!a->queued) return;
    csd_ahead **pp = &pl->qhead, *prev = NULL;
    while (*pp && *pp != a) {
        prev = *pp;
        pp = &(*pp)->qnext;
    }
    if (*pp) {
        *pp = a->qnext;
        if (pl->qtail == a) pl->qtail = prev;
    }
    a->qnext = NULL;
    a->queued = 0;
}

/* Feed a's loaded pages in order while nothing stops it; called with pl->mu held, a->running set. At
 * most upto pages (the engine thread helps with one page range; workers take all). */
static void feed_pages(csd_ahead_pool *pl, csd_ahead *a, uint64_t upto) {
    while (!a->stopped && !a->cancel && !a->cheap && a->computed < a->loaded && a->computed < upto) {
        uint64_t i = a->computed;
        ahead_slot *s = &a->slot[i % a->W];
        void *prep = NULL;
        uint64_t prep_ns = 0;
        if (a->can_prep) {
            const uint32_t k = (uint32_t)(i % AHEAD_PREP_RING);
            if (i >= a->prep_next) {
                a->prep_next = i + 1;   /* nobody took it: fed whole here */
            } else {
                /* another thread prepares it: prepare a later page meanwhile, or wait */
                while (a->prep_st[k] == PREP_BUSY && !a->cancel) {
                    uint64_t j = prep_claim(a);
                    if (j != UINT64_MAX) prep_page(pl, a, j);
                    else {
                        pl->prep_waiting++;
                        pthread_cond_wait(&pl->prep_cv, &pl->mu);
                        pl->prep_waiting--;
                    }
                }
                if (a->cancel) break;
                if (a->prep_st[k] == PREP_DONE) {
                    prep = a->prep[k];
                    prep_ns = a->prep_ns[k];
                }
            }
        }
        int timed = a->probed < AHEAD_PROBE_PAGES;
        pthread_mutex_unlock(&pl->mu);
        int rc = 0, need_more = 0;
        csd_cost cost = { 0, 0 };
        struct timespec t0, t1;
        if (timed) clock_gettime(CLOCK_MONOTONIC, &t0);
        if (s->read_rc == 0 && prep)
            rc = a->work.feed_prepared(a->work.arg, a->first + i, s->buf, s->len, prep, &cost, &need_more);
        else if (s->read_rc == 0)
            rc = a->work.feed(a->work.arg, a->first + i, s->buf, s->len, &cost, &need_more);
        if (timed) clock_gettime(CLOCK_MONOTONIC, &t1);
        pool_lock(pl);
        if (a->can_prep) a->prep_st[i % AHEAD_PREP_RING] = PREP_FREE;
        if (timed) {
            /* a prepared page's cost is its preparation's too, wherever it ran; the slowest page is
             * left out of the mean: the first page's cold start (25-90 us, against 0.2-0.8 us for
             * weblog-q1's next pages) or one preemption alone kept a cheap request ahead in some
             * runs. (Not the median: a text plan's pages take 4-5 us, about host_ahead_min_ns, and
             * a median flipped it between the two paths from run to run.) */
            uint64_t ns = prep_ns + (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec));
            a->probe_ns += ns;
            if (ns > a->probe_max_ns) a->probe_max_ns = ns;
            if (++a->probed == AHEAD_PROBE_PAGES &&
                a->probe_ns - a->probe_max_ns < (uint64_t)a->min_ns * (AHEAD_PROBE_PAGES - 1))
                a->cheap = 1;
        }
        s->rc = rc;
        s->prepared = prep != NULL;
        s->cost = cost;
        s->need_more = need_more;
        /* release: the engine's join reads the slot without the lock once it sees computed past it */
        __atomic_store_n(&a->computed, a->computed + 1, __ATOMIC_RELEASE);
        if (s->read_rc < 0 || rc < 0 || !need_more) a->stopped = 1;
        /* the engine waits for a batch of this request's pages; a stop, a gate or the worker
         * letting go wakes it elsewhere */
        if (pl->main_waiting && pl->wait_a == a && a->computed >= pl->wait_upto) pthread_cond_broadcast(&pl->done_cv);
        /* an idle worker prepares pages again once the feed has freed half the ring */
        if (a->can_prep && pl->idle && !pl->prep_wake && a->prep_next + AHEAD_PREP_RING / 2 <= a->computed + AHEAD_PREP_RING &&
            a->prep_next + 4 <= a->loaded) {
            pl->prep_wake = 1;   /* one wake-up until a worker takes it: each is a system call */
            pthread_cond_signal(&pl->work_cv);
        }
    }
}

static void *worker_main(void *arg) {
    csd_ahead_pool *pl = arg;
    pool_lock(pl);
    for (;;) {
        /* a request's in-order feed first; else a page of some request to prepare */
        csd_ahead *pa = NULL;
        uint64_t j = UINT64_MAX;
        while (!pl->quit && !pl->qhead) {
            for (pa = pl->preps; pa && (j = prep_claim(pa)) == UINT64_MAX; pa = pa->pnext) {}
            if (pa) break;
            pl->idle++;
            pthread_cond_wait(&pl->work_cv, &pl->mu);
            pl->idle--;
            pl->prep_wake = 0;
        }
        if (pa) {
            prep_page(pl, pa, j);
            continue;
        }
        if (pl->quit) break;
        csd_ahead *a = pl->qhead;
        pool_dequeue(pl, a);
        a->running = 1;
        feed_pages(pl, a, UINT64_MAX);
        a->running = 0;
        if (pl->main_waiting) pthread_cond_broadcast(&pl->done_cv);
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

void csd_ahead_gate_wait(void *ctx) {
    csd_ahead *a = ctx;
    csd_ahead_pool *pl = a->pl;
    pool_lock(pl);
    if (a->main_feeding) {
        /* the engine's thread feeds the very page it joins: the check can be made exact right here */
        pthread_mutex_unlock(&pl->mu);
        a->work.commit(a->work.arg, 0);
        return;
    }
    if (!a->cancel) {
        a->gate_wait = 1;
        if (pl->main_waiting) pthread_cond_broadcast(&pl->done_cv);
        while (a->gate_wait && !a->cancel) pthread_cond_wait(&pl->done_cv, &pl->mu);
    }
    pthread_mutex_unlock(&pl->mu);
}

int csd_ahead_pool_create(csd_ahead_pool **out, uint32_t threads) {
    *out = NULL;
    if (threads <= 1) return 0;
    csd_ahead_pool *pl = calloc(1, sizeof *pl);
    if (!pl) return -ENOMEM;
    pl->th = calloc(threads, sizeof *pl->th);
    if (!pl->th) {
        free(pl);
        return -ENOMEM;
    }
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->work_cv, NULL);
    pthread_cond_init(&pl->done_cv, NULL);
    pthread_cond_init(&pl->prep_cv, NULL);
    /* threads counts the engine's own thread: it reads the pages and, while it waits for a fed
     * page, prepares others, so host_threads workers beside it kept one more thread busy than there
     * are cores (two cores: three threads taking turns); host_threads - 1 workers measured 0.95 of
     * the wall time of a text plan request with two (docs/perf-journal.md) */
    const uint32_t workers = threads - 1;
    for (uint32_t i = 0; i < workers; i++) {
        if (pthread_create(&pl->th[i], NULL, worker_main, pl) != 0) break;
        pl->n++;
    }
    if (pl->n == 0) {
        csd_ahead_pool_destroy(pl);   /* no thread to be had: the engine's own thread does it all */
        return 0;
    }
    *out = pl;
    return 0;
}

void csd_ahead_pool_destroy(csd_ahead_pool *pl) {
    if (!pl) return;
    pool_lock(pl);
    pl->quit = 1;
    pthread_cond_broadcast(&pl->work_cv);
    pthread_mutex_unlock(&pl->mu);
    for (uint32_t i = 0; i < pl->n; i++) pthread_join(pl->th[i], NULL);
    pthread_cond_destroy(&pl->work_cv);
    pthread_cond_destroy(&pl->done_cv);
    pthread_cond_destroy(&pl->prep_cv);
    pthread_mutex_destroy(&pl->mu);
    free(pl->th);
    free(pl);
}

csd_ahead *csd_ahead_new(csd_ahead_pool *pl, const csd_ahead_work *w, uint64_t first, uint32_t slots,
                         uint32_t page_bytes, uint32_t min_ns, int unahead, csd_ahead_read_fn read, void *read_ctx) {
    csd_ahead *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->pl = pl;
    a->work = *w;
    a->unahead = unahead;
    a->page_bytes = page_bytes;
    a->read = read;
    a->read_ctx = read_ctx;
    a->first = first;
    /* the first pages are timed wherever they are fed; cheap ones send the request back to the
     * engine's thread (a page there costs less than its copy and hand-off) */
    a->probed = min_ns ? 0 : AHEAD_PROBE_PAGES;
    a->min_ns = min_ns;
    a->W = slots;
    a->slot = calloc(a->W, sizeof *a->slot);
    if (!a->slot) {
        free(a);
        return NULL;
    }
    if (w->prep_new && w->prep_free && w->prepare && w->feed_prepared) {
        a->prep = calloc(AHEAD_PREP_RING, sizeof *a->prep);
        a->prep_st = calloc(AHEAD_PREP_RING, sizeof *a->prep_st);
        a->prep_ns = calloc(AHEAD_PREP_RING, sizeof *a->prep_ns);
        a->can_prep = a->prep && a->prep_st && a->prep_ns;   /* else its pages are fed whole */
    }
    return a;
}

void csd_ahead_start(csd_ahead *a) {
    if (a->can_prep) {
        csd_ahead_pool *pl = a->pl;
        pool_lock(pl);
        a->pnext = pl->preps;
        pl->preps = a;
        pthread_mutex_unlock(&pl->mu);
    }
}

void csd_ahead_load(csd_ahead *a, uint64_t consumed, uint64_t avail, uint64_t issued) {
    csd_ahead_pool *pl = a->pl;
    /* loaded is written on this thread only: whether there is a page to load needs no lock (this
     * runs before every join, and most joins load nothing) */
    uint64_t loaded = a->loaded;
    /* slot k % W is free once page k - W is consumed */
    uint64_t lim = consumed + a->W, n = 0;
    if (loaded >= avail || loaded >= lim) return;
    pool_lock(pl);
    uint64_t stopped = a->stopped || a->cheap;
    pthread_mutex_unlock(&pl->mu);
    if (stopped) return;   /* a cheap request's next pages are the engine's to read */
    int no_mem = 0;
    while (loaded + n < avail && loaded + n < lim) {
        uint64_t i = loaded + n;
        ahead_slot *s = &a->slot[i % a->W];
        s->len = 0;
        s->read_rc = 0;
        if (!s->buf && !(s->buf = malloc(a->page_bytes)) && a->unahead) {
            no_mem = 1;   /* no slot: the request goes back to the engine's thread, which needs none */
            break;
        }
        if (!s->buf) s->read_rc = -ENOMEM;   /* fails the request at this page, as a read error would */
        else s->read_rc = a->read(a->read_ctx, i, s->buf, &s->len);
        n++;
    }
    if (no_mem) {
        pool_lock(pl);
        a->cheap = 1;
        pthread_mutex_unlock(&pl->mu);
    }
    if (!n) return;
    pool_lock(pl);
    a->loaded += n;
    /* wake a worker for 2 * AHEAD_WAKE_BATCH pages at a time (or the request's last pages), not
     * page by page: a wake-up costs more than most tasklets spend on a page */
    if (a->loaded - a->computed >= 2 * AHEAD_WAKE_BATCH || a->loaded >= issued) {
        pool_enqueue(pl, a);
        /* a second idle worker prepares the pages the first one feeds */
        if (a->can_prep && pl->idle && !pl->prep_wake && a->prep_next < a->loaded) {
            pl->prep_wake = 1;
            pthread_cond_signal(&pl->work_cv);
        }
    }
    pthread_mutex_unlock(&pl->mu);
}

int csd_ahead_settled(csd_ahead *a, uint64_t consumed) {
    csd_ahead_pool *pl = a->pl;
    pool_lock(pl);
    /* not while a page is being fed: cheap set for want of memory does not stop a feed under way,
     * whose page the engine then takes as computed */
    int back = a->cheap && a->computed == consumed && !a->running;
    pthread_mutex_unlock(&pl->mu);
    return back;
}

int csd_ahead_join(csd_ahead *a, uint64_t rel, csd_cost *cost, int *need_more, int *read_rc, int *prepared) {
    csd_ahead_pool *pl = a->pl;
    if (__atomic_load_n(&a->computed, __ATOMIC_ACQUIRE) > rel) {
        /* fed already: its slot is final (reloaded only by this thread, after the page is consumed),
         * so no lock; the lock on every page kept three threads' caches trading its line */
        const ahead_slot *s = &a->slot[rel % a->W];
        *cost = s->cost;
        *need_more = s->need_more;
        *read_rc = s->read_rc;
        *prepared = s->prepared;
        return s->rc;
    }
    pool_lock(pl);
    while (a->computed <= rel) {
        if (a->gate_wait) {
            /* the worker waits on this very page: every page before it is committed, so the work's
             * view of the output is now what the serial engine's would be */
            pthread_mutex_unlock(&pl->mu);
            a->work.commit(a->work.arg, 0);
            pool_lock(pl);
            a->gate_wait = 0;
            pthread_cond_broadcast(&pl->done_cv);
        } else if (!a->running && !a->stopped && !a->cheap && a->computed < a->loaded && !pl->idle) {
            /* every worker is busy with other requests: feed it here rather than wait */
            pool_dequeue(pl, a);
            a->running = a->main_feeding = 1;
            feed_pages(pl, a, rel + 1);
            a->running = a->main_feeding = 0;
            pool_enqueue(pl, a);
        } else if (!a->running && (a->stopped || a->cheap || a->computed >= a->loaded)) {
            pthread_mutex_unlock(&pl->mu);
            return -EIO;   /* cannot happen: the page is loaded and nothing stopped before it (a
                            * cheap request settled back to the engine's thread before this page) */
        } else {
            /* a worker has it or an idle one takes it: taking it here would leave that one idle
             * and the engine computing, page after page */
            if (!a->running) pool_enqueue(pl, a);
            /* rather than sleep, prepare a page ahead of the feed (this request's first) */
            csd_ahead *pa = a;
            uint64_t j = prep_claim(a);
            if (j == UINT64_MAX)
                for (pa = pl->preps; pa && (j = prep_claim(pa)) == UINT64_MAX; pa = pa->pnext) {}
            if (j != UINT64_MAX) {
                prep_page(pl, pa, j);
                continue;
            }
            pl->main_waiting = 1;
            pl->wait_a = a;
            pl->wait_upto = rel + 1 + AHEAD_WAKE_BATCH < a->loaded ? rel + 1 + AHEAD_WAKE_BATCH : a->loaded;
            if (pl->wait_upto < rel + 1) pl->wait_upto = rel + 1;
            pthread_cond_wait(&pl->done_cv, &pl->mu);
            pl->main_waiting = 0;
            pl->wait_a = NULL;
        }
    }
    ahead_slot *s = &a->slot[rel % a->W];
    *cost = s->cost;
    *need_more = s->need_more;
    *read_rc = s->read_rc;
    *prepared = s->prepared;
    int rc = s->rc;
    pthread_mutex_unlock(&pl->mu);
    return rc;
}

void csd_ahead_free(csd_ahead *a) {
    if (!a) return;
    csd_ahead_pool *pl = a->pl;
    pool_lock(pl);
    a->cancel = 1;
    pool_dequeue(pl, a);
    for (csd_ahead **pp = &pl->preps; *pp; pp = &(*pp)->pnext)
        if (*pp == a) {
            *pp = a->pnext;
            break;
        }
    pthread_cond_broadcast(&pl->done_cv);   /* a gate waiting on this request lets go */
    pthread_cond_broadcast(&pl->prep_cv);   /* so does a feeder waiting for a prepared page */
    while (a->running || a->preparing) {
        pl->main_waiting = 1;
        pthread_cond_wait(&pl->done_cv, &pl->mu);
        pl->main_waiting = 0;
    }
    pthread_mutex_unlock(&pl->mu);
    for (uint32_t i = 0; i < a->W; i++) free(a->slot[i].buf);
    for (uint32_t k = 0; a->prep && k < AHEAD_PREP_RING; k++)
        if (a->prep[k]) a->work.prep_free(a->work.arg, a->prep[k]);
    free(a->prep), free(a->prep_st), free(a->prep_ns);
    free(a->slot);
    free(a);
}
