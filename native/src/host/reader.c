/* The reader thread: data pages read and checksummed ahead of the engine, off its thread (host/reader.h;
 * the store starts it, store/store.c).
 *
 * The engine posts the physical pages it will read, in the order it will read them (a request's pages
 * as they are issued). A reader thread takes the posts in order and reads each one's run of up to
 * RD_MAX consecutive pages of its flash block with one pread (the serial read-ahead's unit,
 * csd_store_data_view), computes every page's CRC-32 there, while the bytes are in its cache, and
 * publishes the run. A view of a page in a published run costs the engine a lookup; a page being read
 * makes the engine read the next posted run itself while it waits, so with the reader behind both
 * threads read; a page not posted (or dropped: the queue was full, or every run of its set still had
 * pages to be viewed when the reader came to it) is read by the engine as before.
 *
 * A stream's next run is read ahead of its posts: when the engine starts to view a run, the run after
 * it in its flash block is queued, and the reader reads it when no post is waiting (the engine too,
 * while the run it needs is being read). Posts come with the engine's issue window, two pages of each
 * of a scan's 64 streams a batch, while one run covers eight pages of its stream: so every stream's
 * next run used to be posted within one batch, both threads read them at once, and the reader slept
 * through the batches between.
 *
 * Exactness: a published run always holds what the file holds: every write, erase or punch of the
 * data area (all on the engine's thread) drops the runs it touches, and one being read meanwhile is
 * marked stale and dropped when its read returns. So a view returns the bytes a serial read at that
 * moment would, and the CRC is compared by the caller exactly as for a serial read. */
#include "host/reader.h"
#include "host/spin.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RD_SETS 32u
#define RD_WAYS 16u          /* a scan's streams (one per unit) share sets: each needs one or two runs */
#define RD_MAX 8u            /* pages per run: the serial read-ahead's (store/store.c, measured there) */
#define RD_QUEUE 4096u       /* posted pages not yet taken; posts past it are dropped (read serially) */
#define RD_SCAN 1024u        /* posts the engine looks through for the page it needs */
#define RD_NONE UINT64_MAX
#define RD_NEXT 256u         /* streams' next runs waiting to be read ahead of their posts */
#define RD_WAKE 16u          /* next runs queued that wake an idle reader (posts always do) */

/* RD_HELD: a published run the engine holds; it reads it without the lock (one lock per run, not per
 * page: the lock's cache line moving between the two threads on every page cost more than the
 * lookup) and gives it back when another run of its block's slot comes, or a write drops it. */
enum { RD_EMPTY, RD_READING, RD_READY, RD_HELD };
#define RD_HOLD 256u         /* the engine's held runs, one per slot, slots direct-mapped by block */

typedef struct rd_run {
    uint64_t base;
    uint32_t n;
    uint8_t state, stale;
    uint8_t ahead;           /* read before any of its pages was posted (a stream's next run) */
    uint32_t next_len;       /* pages the stream's next run reads (doubling while it goes on) */
    uint8_t posted, viewed;  /* pages (bit k: base + k) posted, and viewed: posted and not viewed are
                              * still to come, so the run stays (a post after its view is none) */
    uint64_t used;
    uint32_t crc[RD_MAX];
    uint8_t *buf;
} rd_run;

struct csd_reader {
    csd_reader_file f;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t work_cv;  /* the reader: posts, or quit */
    pthread_cond_t done_cv;  /* the engine: a run it waits for was published */
    int quit, idle, engine_waiting;
    uint64_t q[RD_QUEUE];    /* ppns; RD_NONE = taken by the engine */
    uint64_t qhead, qtail;   /* post sequence numbers */
    uint64_t clock;
    uint64_t next[RD_NEXT];  /* first pages of runs that continue a stream the engine views */
    uint64_t next_head, next_tail;
    rd_run *pinned;          /* the run of the last view: valid until the next call */
    rd_run *held[RD_HOLD];   /* the engine's thread only (and under mu where a write drops one) */
    uint64_t views_held;     /* the engine's thread only */
    int posted_any;          /* the engine's thread only: a post was ever made */
    uint64_t views_unposted; /* the engine's thread only: views before any post, read serially */
    rd_run runs[RD_SETS * RD_WAYS];
    csd_reader_stats st;
};

/* A run untouched for this many views and reads is given up though posts for it were not viewed
 * (its pages were dropped: a tasklet that stopped, a request that failed); twice what the post queue
 * holds. */
#define RD_LAG (2u * RD_QUEUE)

static uint64_t blk(const csd_reader *rd, uint64_t ppn) { return ppn / rd->f.pages_per_block; }

/* The lock is held for well under a microsecond at a time (a lookup, a run claimed or published),
 * but a plain mutex found taken puts the caller to sleep at once and its holder into the kernel to
 * wake it: the engine's views and the reader's publishing met that way often enough for the futex
 * sleeps and wake-ups to take about 14 % of weblog-q1's samples with two host threads (perf). So spin
 * briefly first (host/spin.h). */
static void rd_lock(csd_reader *rd) { csd_mutex_lock_spin(&rd->mu); }

static rd_run *set_of(csd_reader *rd, uint64_t ppn) {
    uint64_t h = blk(rd, ppn) * 0x9e3779b97f4a7c15ull;
    return &rd->runs[(h >> 40) % RD_SETS * RD_WAYS];
}

static rd_run **hold_slot(csd_reader *rd, uint64_t ppn) {
    return &rd->held[(blk(rd, ppn) * 0x9e3779b97f4a7c15ull >> 40) % RD_HOLD];
}

static rd_run *find(csd_reader *rd, uint64_t ppn) {
    rd_run *set = set_of(rd, ppn);
    for (uint32_t w = 0; w < RD_WAYS; w++)
        if (set[w].state != RD_EMPTY && ppn - set[w].base < set[w].n) return &set[w];
    return NULL;
}

static int reusable(const csd_reader *rd, const rd_run *r) {
    if (r->state == RD_EMPTY) return 1;
    /* every page viewed; or untouched for long (its last pages were never posted or viewed) */
    return r->state == RD_READY && r != rd->pinned && (r->viewed == (uint8_t)((1u << r->n) - 1) || r->used + RD_LAG < rd->clock);
}

/* Take a run for posted ppn (mu held): RD_READING, to be read by the caller. NULL when every run of
 * its set is in use. */
static rd_run *claim(csd_reader *rd, uint64_t ppn, int ahead) {
    rd_run *set = set_of(rd, ppn), *v = NULL;
    /* a buffer used last is likeliest still in the caches: an empty run with a buffer first, then
     * the run viewed last, then a run never used (a new buffer), then one given up */
    int best = 0;
    for (uint32_t w = 0; w < RD_WAYS; w++) {
        rd_run *r = &set[w];
        if (!reusable(rd, r)) continue;
        int cls = r->state == RD_EMPTY ? (r->buf ? 4 : 2) : r->viewed == (uint8_t)((1u << r->n) - 1) ? 3 : 1;
        if (cls > best || (cls == best && r->used > v->used)) {
            v = r;
            best = cls;
        }
    }
    if (!v) return NULL;
    if (v->state == RD_READY && v->ahead && !v->viewed) rd->st.runs_ahead_unviewed++;
    /* the stream goes on past a run of this block: double its length (the serial read-ahead's rule) */
    uint32_t len = 1;
    for (uint32_t w = 0; w < RD_WAYS; w++)
        if (set[w].state != RD_EMPTY && set[w].base + set[w].n == ppn && set[w].next_len > len) len = set[w].next_len;
    uint64_t b = blk(rd, ppn), end = (b + 1) * rd->f.pages_per_block;
    if (end > rd->f.pages) end = rd->f.pages;
    if (len > end - ppn) len = (uint32_t)(end - ppn);
    v->next_len = len * 2 < RD_MAX ? len * 2 : RD_MAX;
    v->base = ppn;
    v->n = len;
    v->state = RD_READING;
    v->stale = 0;
    v->posted = ahead ? 0 : 1;
    v->ahead = (uint8_t)ahead;
    v->viewed = 0;
    v->used = ++rd->clock;
    return v;
}

/* len bytes at off of the file (the reader reads the file itself, on its thread) */
static int read_at(int fd, uint8_t *p, size_t len, uint64_t off) {
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? -errno : -EIO;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* Read a claimed run (mu not held) and publish it (mu held again on return). */
static void fill(csd_reader *rd, rd_run *r, int by_engine) {
    const uint64_t pb = rd->f.page_bytes;
    uint64_t base = r->base;
    uint32_t n = r->n;
    pthread_mutex_unlock(&rd->mu);
    int rc = 0;
    if (!r->buf && !(r->buf = malloc(RD_MAX * pb))) rc = -ENOMEM;
    if (!rc) rc = read_at(rd->f.fd, r->buf, n * pb, rd->f.data_off + base * pb);
    if (!rc)
        for (uint32_t k = 0; k < n; k++) r->crc[k] = rd->f.crc(0, r->buf + k * pb, pb);
    rd_lock(rd);
    /* a failed read is not published: the engine's own read of the page reports it */
    if (rc || r->stale) {
        r->state = RD_EMPTY;
        rd->st.runs_dropped++;
    } else {
        r->state = RD_READY;
        if (by_engine) rd->st.runs_engine++; else rd->st.runs_reader++;
        if (r->ahead) rd->st.runs_ahead++;   /* counted once published, with its pages */
        rd->st.pages_read += n;
    }
    if (rd->engine_waiting) pthread_cond_broadcast(&rd->done_cv);
}

/* The oldest post not taken (mu held): its ppn, or RD_NONE. Posts taken by the engine are skipped. */
static uint64_t head(csd_reader *rd) {
    while (rd->qhead < rd->qtail && rd->q[rd->qhead % RD_QUEUE] == RD_NONE) rd->qhead++;
    return rd->qhead < rd->qtail ? rd->q[rd->qhead % RD_QUEUE] : RD_NONE;
}

/* Take the oldest post (mu held): 1 when it was handled (read by the caller, or already in a run), 0
 * when there is none or its set has no free run. */
static int take_one(csd_reader *rd, int by_engine) {
    uint64_t ppn = head(rd);
    if (ppn == RD_NONE) return 0;
    rd_run *r = find(rd, ppn);
    if (r) {
        r->posted |= (uint8_t)(1u << (ppn - r->base));
        r->used = ++rd->clock;
        rd->qhead++;
        return 1;
    }
    if (!(r = claim(rd, ppn, 0))) return 0;
    rd->qhead++;
    fill(rd, r, by_engine);
    return 1;
}

/* A run the engine starts to view (mu held): the run after it in its flash block is its stream's next,
 * to be read ahead of its post. Posts come with the issue window (a batch of pages a stream), while a
 * stream's run covers up to RD_MAX of its pages: without this, every stream's next run was posted in
 * the same batch and read by both threads at once, and the reader slept through the batches between. */
static void queue_next(csd_reader *rd, const rd_run *r) {
    uint64_t ppn = r->base + r->n;
    if (ppn % rd->f.pages_per_block == 0 || ppn >= rd->f.pages) return;
    if (rd->next_tail - rd->next_head == RD_NEXT) return;   /* full: left to its post */
    rd->next[rd->next_tail++ % RD_NEXT] = ppn;
    /* a wake-up costs the engine's thread a system call: wake the reader for a few runs at once */
    if (rd->idle && rd->next_tail - rd->next_head >= RD_WAKE) pthread_cond_signal(&rd->work_cv);
}

/* Read the oldest queued next run (mu held): 1 when one was taken (read by the caller, already in a
 * run, or dropped: its set had no free run), 0 when none is queued. */
static int take_next(csd_reader *rd, int by_engine) {
    if (rd->next_head == rd->next_tail) return 0;
    uint64_t ppn = rd->next[rd->next_head++ % RD_NEXT];
    /* still wanted: the engine still views the run it continues (it holds it: it has not gone on to
     * this one, read by a post meanwhile and maybe reused since), and nothing covers it yet */
    const rd_run *h = *hold_slot(rd, ppn);
    rd_run *r;
    if (!h || h->state != RD_HELD || h->base + h->n != ppn || find(rd, ppn)) return 1;
    if (!(r = claim(rd, ppn, 1))) return 1;
    fill(rd, r, by_engine);
    return 1;
}

static void *reader_main(void *arg) {
    csd_reader *rd = arg;
    pthread_mutex_lock(&rd->mu);
    while (!rd->quit) {
        if (take_one(rd, 0)) continue;
        if (head(rd) == RD_NONE && take_next(rd, 0)) continue;
        if (head(rd) == RD_NONE) {
            rd->idle = 1;
            rd->st.sleeps++;
            pthread_cond_wait(&rd->work_cv, &rd->mu);
            rd->idle = 0;
        } else {
            /* every run of its set still has pages to be viewed: this page is left to the engine
             * rather than hold up the posts behind it */
            rd->qhead++;
            rd->st.posts_skipped++;
        }
    }
    pthread_mutex_unlock(&rd->mu);
    return NULL;
}

int csd_reader_start(csd_reader **out, const csd_reader_file *f) {
    *out = NULL;
    csd_reader *rd = calloc(1, sizeof *rd);
    if (!rd) return -ENOMEM;
    rd->f = *f;
    pthread_mutex_init(&rd->mu, NULL);
    pthread_cond_init(&rd->work_cv, NULL);
    pthread_cond_init(&rd->done_cv, NULL);
    if (pthread_create(&rd->th, NULL, reader_main, rd) != 0) {
        pthread_cond_destroy(&rd->done_cv);
        pthread_cond_destroy(&rd->work_cv);
        pthread_mutex_destroy(&rd->mu);
        free(rd);
        return -EAGAIN;
    }
    *out = rd;
    return 0;
}

void csd_reader_stop(csd_reader *rd) {
    if (!rd) return;
    pthread_mutex_lock(&rd->mu);
    rd->quit = 1;
    pthread_cond_broadcast(&rd->work_cv);
    pthread_mutex_unlock(&rd->mu);
    pthread_join(rd->th, NULL);
    for (size_t i = 0; i < RD_SETS * RD_WAYS; i++) free(rd->runs[i].buf);
    pthread_cond_destroy(&rd->done_cv);
    pthread_cond_destroy(&rd->work_cv);
    pthread_mutex_destroy(&rd->mu);
    free(rd);
}

void csd_reader_post(csd_reader *rd, const uint64_t *ppns, size_t n) {
    if (!rd || !n) return;
    rd->posted_any = 1;
    rd_lock(rd);
    size_t k = 0;
    for (; k < n && rd->qtail - rd->qhead < RD_QUEUE; k++)
        if (ppns[k] < rd->f.pages) rd->q[rd->qtail++ % RD_QUEUE] = ppns[k];
    rd->st.posts += k;
    rd->st.posts_dropped += n - k;
    if (rd->idle) pthread_cond_signal(&rd->work_cv);
    pthread_mutex_unlock(&rd->mu);
}

void csd_reader_invalidate(csd_reader *rd, uint64_t first, uint64_t n) {
    if (!rd || !n) return;
    const uint64_t ppb = rd->f.pages_per_block;
    pthread_mutex_lock(&rd->mu);
    for (uint64_t b = first / ppb; b <= (first + n - 1) / ppb; b++) {
        rd_run *set = set_of(rd, b * ppb);
        for (uint32_t w = 0; w < RD_WAYS; w++) {
            rd_run *r = &set[w];
            if (r->state == RD_EMPTY || r->base >= first + n || first >= r->base + r->n) continue;
            if (r->state == RD_READING) {
                r->stale = 1;   /* its read may have seen part of this write: dropped when it returns */
            } else {
                rd_run **h = hold_slot(rd, r->base);
                if (*h == r) *h = NULL;
                r->state = RD_EMPTY;
                if (rd->pinned == r) rd->pinned = NULL;
            }
        }
    }
    pthread_mutex_unlock(&rd->mu);
}

/* Find post ppn among the first RD_SCAN not taken and take it for the engine: 1, or 0 when it is not
 * there. */
static int take_post(csd_reader *rd, uint64_t ppn) {
    head(rd);
    uint64_t lim = rd->qtail - rd->qhead < RD_SCAN ? rd->qtail : rd->qhead + RD_SCAN;
    for (uint64_t i = rd->qhead; i < lim; i++)
        if (rd->q[i % RD_QUEUE] == ppn) {
            /* the engine reads in post order: the posts before it are for pages it has passed */
            rd->qhead = i + 1;
            return 1;
        }
    return 0;
}

const uint8_t *csd_reader_view(csd_reader *rd, uint64_t ppn, uint32_t *crc) {
    if (!rd || ppn >= rd->f.pages) return NULL;
    rd_run **h = hold_slot(rd, ppn), *held = *h;
    if (held && ppn - held->base < held->n) {
        /* a held run's base, n, bytes and CRCs do not change while it is held */
        held->viewed |= (uint8_t)(1u << (ppn - held->base));
        rd->views_held++;
        *crc = held->crc[ppn - held->base];
        return held->buf + (ppn - held->base) * rd->f.page_bytes;
    }
    if (!rd->posted_any) {
        /* nothing posted yet (a run-ahead request's pages are not): no run can hold the page, and
         * the lock on every page cost the engine's thread 1-2 % of a text plan's CPU */
        rd->views_unposted++;
        return NULL;
    }
    rd_lock(rd);
    const uint8_t *out = NULL;
    rd->pinned = NULL;
    for (;;) {
        rd_run *r = find(rd, ppn);
        if (r && (r->state == RD_READY || r->state == RD_HELD)) {
            if (r->state == RD_READY && !r->viewed) queue_next(rd, r);
            if (*h && *h != r) {
                (*h)->state = RD_READY;   /* given back: the view that returned it is over */
                (*h)->used = ++rd->clock;
            }
            *h = r;
            r->state = RD_HELD;
            r->viewed |= (uint8_t)(1u << (ppn - r->base));
            r->used = ++rd->clock;
            *crc = r->crc[ppn - r->base];
            out = r->buf + (ppn - r->base) * rd->f.page_bytes;
            rd->st.views_ready++;
            break;
        }
        if (r) {
            /* the reader has it under way: read the next posted run meanwhile rather than sleep */
            if (take_one(rd, 1) || take_next(rd, 1)) continue;
            rd->st.waits++;
            rd->engine_waiting = 1;
            pthread_cond_wait(&rd->done_cv, &rd->mu);
            rd->engine_waiting = 0;
            continue;
        }
        if (take_post(rd, ppn) && (r = claim(rd, ppn, 0)) != NULL) {
            fill(rd, r, 1);
            continue;
        }
        rd->st.views_serial++;   /* not posted, given up or dropped: the caller reads it itself */
        break;
    }
    rd->clock++;   /* every view ages the runs */
    pthread_mutex_unlock(&rd->mu);
    return out;
}

void csd_reader_stats_get(csd_reader *rd, csd_reader_stats *out) {
    memset(out, 0, sizeof *out);
    if (!rd) return;
    pthread_mutex_lock(&rd->mu);
    *out = rd->st;
    out->views_ready += rd->views_held;   /* called on the engine's thread */
    out->views_serial += rd->views_unposted;
    pthread_mutex_unlock(&rd->mu);
}
