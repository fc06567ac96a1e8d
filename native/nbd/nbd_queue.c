/* One client connection's queue to the device (nbd_core.h): waiting requests are submitted together,
 * then the device runs to the next completion; a dispatcher thread does both, the client's threads
 * wait for their own requests. */
#include "nbd_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smartssd/block.h"
#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"

#define BUSY_GIVE_UP_NS 10000000000ull    /* csd_nbd_export.busy_ns's default */
#define BATCH_MAX 256u                     /* requests in one BlockSubmit */
#define BATCH_DATA (16u << 20)             /* bytes of write data in one BlockSubmit (the packet limit is 64 MiB) */
#define READ_HELD (16u << 20)              /* bytes of read data outstanding (the device holds 32 MiB for all) */
#define REFILL_NS 2000000ull               /* csd_nbd_export.refill_ns's default */

typedef struct chunk {
    uint8_t bop;
    uint64_t lba;
    uint32_t count;
    uint8_t *data;          /* a write's bytes, a read's destination */
    uint64_t id;            /* the block request's id while outstanding */
    uint64_t gen;           /* the transport's session it was submitted in */
    uint64_t t_sub;         /* wall time of its submission */
    int state;              /* 0 waiting, 1 on the device, 2 done */
    int err;                /* errno when it failed */
    char msg[200];
    struct chunk *next;     /* in the waiting list or the outstanding list */
} chunk;

struct csd_nbd_queue {
    csd_nbd_transport t;
    csd_nbd_export x;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    chunk *wait_head, *wait_tail, *out;
    uint64_t next_id, read_held;
    uint64_t arrived;       /* chunks handed to the queue, ever */
    uint64_t busy_since;    /* when the device first refused a submission as too busy (0: it did not) */
    int stop;
    int inline_mode;        /* no dispatcher: each caller runs the exchanges its requests need */
};

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fail_chunk(chunk *c, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_chunk(chunk *c, int e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->err = e;
    c->state = 2;
}

static void log_cpl(const csd_nbd_export *x, const Smartssd__V1__BlockCompletion *c, uint64_t wall) {
    static const char *ops[] = { "?", "read", "write", "trim", "flush" };
    csd_nbd_log *l = x->log;
    pthread_mutex_lock(&l->mu);
    fprintf(l->f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%d,%" PRIu64 "\n",
            c->op <= 4 ? ops[c->op] : "?", c->lba * x->lba_bytes, (uint64_t)c->count * x->lba_bytes, c->arrival_ns,
            c->admit_ns, c->first_flash_ns, c->done_ns, c->flash_ops, (int)c->status, wall);
    pthread_mutex_unlock(&l->mu);
}

static void push_front(csd_nbd_queue *q, chunk *c) {
    c->state = 0;
    c->next = q->wait_head;
    q->wait_head = c;
    if (!q->wait_tail) q->wait_tail = c;
}

/* Out of the outstanding list (it is there). */
static void unlink_out(csd_nbd_queue *q, chunk *c) {
    for (chunk **pp = &q->out; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    if (c->bop == CSD_BLOCK_READ) q->read_held -= (uint64_t)c->count * q->x.lba_bytes;
}

/* Take waiting chunks into a batch within the submission's bounds. Under the lock. */
static size_t take_batch(csd_nbd_queue *q, chunk **batch, uint64_t gen) {
    size_t n = 0;
    uint64_t lbas = 0, wbytes = 0;
    const uint64_t now = mono_ns();
    while (q->wait_head && n < BATCH_MAX) {
        chunk *c = q->wait_head;
        uint64_t b = (uint64_t)c->count * q->x.lba_bytes;
        if (lbas + c->count > CSD_BLOCK_MAX_SUBMIT_LBAS) break;
        if (c->bop == CSD_BLOCK_WRITE && n && wbytes + b > BATCH_DATA) break;
        /* a read waits while too much read data is outstanding, unless nothing is (it is alone) */
        if (c->bop == CSD_BLOCK_READ && q->read_held + b > READ_HELD && (q->out || n)) break;
        q->wait_head = c->next;
        if (!q->wait_head) q->wait_tail = NULL;
        c->id = ++q->next_id;
        c->gen = gen;
        c->t_sub = now;
        c->state = 1;
        c->next = q->out;
        q->out = c;
        lbas += c->count;
        if (c->bop == CSD_BLOCK_WRITE) wbytes += b;
        if (c->bop == CSD_BLOCK_READ) q->read_held += b;
        batch[n++] = c;
    }
    return n;
}

static uint8_t *pack(const Smartssd__V1__Request *r, size_t *len) {
    *len = smartssd__v1__request__get_packed_size(r);
    uint8_t *b = malloc(*len ? *len : 1);
    if (b) smartssd__v1__request__pack(r, b);
    return b;
}

/* The BlockSubmit for the batch (when n) and the BlockPoll; 0 or -ENOMEM. */
static int pack_exchange(const csd_nbd_queue *q, chunk **batch, size_t n, uint8_t **req, size_t *len, size_t *nreq) {
    *nreq = 0;
    if (n) {
        Smartssd__V1__BlockRequest *br = calloc(n, sizeof *br);
        Smartssd__V1__BlockRequest **bp = calloc(n, sizeof *bp);
        if (!br || !bp) {
            free(br);
            free(bp);
            return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
            const chunk *c = batch[i];
            smartssd__v1__block_request__init(&br[i]);
            br[i].id = c->id;
            br[i].op = (Smartssd__V1__BlockOp)c->bop;
            br[i].lba = c->lba;
            br[i].count = c->count;
            if (c->bop == CSD_BLOCK_WRITE) {
                br[i].data.data = c->data;
                br[i].data.len = (size_t)c->count * q->x.lba_bytes;
            }
            br[i].return_data = c->bop == CSD_BLOCK_READ;
            bp[i] = &br[i];
        }
        Smartssd__V1__Request r = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__BlockSubmit bs = SMARTSSD__V1__BLOCK_SUBMIT__INIT;
        bs.n_requests = n;
        bs.requests = bp;
        r.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT;
        r.block_submit = &bs;
        req[0] = pack(&r, &len[0]);
        free(br);
        free(bp);
        if (!req[0]) return -ENOMEM;
        (*nreq)++;
    }
    /* run the device to the next completion (returning every one ready), as an interrupt would */
    Smartssd__V1__Request r = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockPoll bpoll = SMARTSSD__V1__BLOCK_POLL__INIT;
    bpoll.min_completions = 1;
    r.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL;
    r.block_poll = &bpoll;
    req[*nreq] = pack(&r, &len[*nreq]);
    if (!req[*nreq]) {
        if (*nreq) free(req[0]);
        return -ENOMEM;
    }
    (*nreq)++;
    return 0;
}

/* Completions of a poll, under the lock; how many. */
static size_t take_completions(csd_nbd_queue *q, const Smartssd__V1__BlockPollReply *pl) {
    const uint64_t now = mono_ns();
    size_t k = 0;
    for (size_t j = 0; j < pl->n_completions; j++) {
        const Smartssd__V1__BlockCompletion *cp = pl->completions[j];
        chunk *c = q->out;
        while (c && c->id != cp->id) c = c->next;
        /* not outstanding: one submitted again after a refusal or a reconnect, answered twice */
        if (!c || cp->lba != c->lba || cp->count != c->count) continue;
        unlink_out(q, c);
        k++;
        if (q->x.log) log_cpl(&q->x, cp, now - c->t_sub);
        if (cp->status != SMARTSSD__V1__STATUS__OK) {
            int e = csd_nbd_status_errno(cp->status) == ENOSPC ? ENOSPC : EIO;
            fail_chunk(c, e, "%s at LBA %" PRIu64 " (+%u)", (int)cp->status == CSD_NO_SPACE ? "the device is full"
                       : "the device failed", c->lba, c->count);
            continue;
        }
        if (c->bop == CSD_BLOCK_READ) {
            size_t want = (size_t)c->count * q->x.lba_bytes;
            if (cp->data.len != want) {
                fail_chunk(c, EIO, "a read of %u LBAs returned %zu bytes", c->count, cp->data.len);
                continue;
            }
            memcpy(c->data, cp->data.data, want);
        }
        c->err = 0;
        c->state = 2;
    }
    return k;
}

/* The device refused the batch as too busy (or failed it): back to the front of the queue, or failed. */
static void refuse_batch(csd_nbd_queue *q, chunk **batch, size_t n, int st, const char *msg) {
    uint64_t now = mono_ns(), limit = q->x.busy_ns ? q->x.busy_ns : BUSY_GIVE_UP_NS;
    if (st == CSD_RESOURCE_EXHAUSTED && !q->busy_since) q->busy_since = now;
    int again = st == CSD_RESOURCE_EXHAUSTED && now - q->busy_since < limit;
    for (size_t i = n; i-- > 0;) {
        chunk *c = batch[i];
        if (c->state != 1) continue;   /* completed in the same exchange (a prefix was taken) */
        unlink_out(q, c);
        if (again) push_front(q, c);
        else fail_chunk(c, st == CSD_RESOURCE_EXHAUSTED ? ENOMEM : EIO, "block_submit: %s: %s",
                        csd_nbd_status_text(st), msg ? msg : "");
    }
}

/* One exchange: submit what waits, run the device to the next completion, hand the completions out.
 * Called with the lock held (dropped around the exchange). */
static void step(csd_nbd_queue *q) {
    chunk *batch[BATCH_MAX];
    {
        uint64_t gen = q->t.generation ? q->t.generation(q->t.arg) : 0;
        size_t n = take_batch(q, batch, gen);
        pthread_mutex_unlock(&q->mu);

        uint8_t *req[2] = { 0 }, *resp[2] = { 0 };
        size_t len[2], rlen[2] = { 0 }, nreq = 0;
        int rc = pack_exchange(q, batch, n, req, len, &nreq);
        if (!rc) rc = q->t.call(q->t.arg, (const uint8_t *const *)req, len, nreq, resp, rlen);
        for (size_t i = 0; i < nreq; i++) free(req[i]);
        Smartssd__V1__Response *rs[2] = { 0 };
        for (size_t i = 0; !rc && i < nreq; i++) rs[i] = smartssd__v1__response__unpack(NULL, rlen[i], resp[i]);
        for (size_t i = 0; !rc && i < nreq; i++) free(resp[i]);   /* a failed call returns nothing */
        uint64_t gen2 = q->t.generation ? q->t.generation(q->t.arg) : 0;

        pthread_mutex_lock(&q->mu);
        size_t completed = 0;
        if (rc) {
            /* the device is gone and did not come back in time: everything outstanding fails */
            while (q->out) {
                chunk *c = q->out;
                unlink_out(q, c);
                fail_chunk(c, EIO, "the device is unreachable: %s", strerror(rc < 0 ? -rc : rc));
            }
        } else {
            Smartssd__V1__Response *sub = n ? rs[0] : NULL, *pol = rs[nreq - 1];
            if (pol && pol->status == SMARTSSD__V1__STATUS__OK &&
                pol->result_case == SMARTSSD__V1__RESPONSE__RESULT_BLOCK_POLL)
                completed = take_completions(q, pol->block_poll);
            if (n && (!sub || sub->status != SMARTSSD__V1__STATUS__OK))
                refuse_batch(q, batch, n, sub ? (int)sub->status : CSD_INTERNAL,
                             sub ? sub->message : "the device's reply does not decode");
            else if (n)
                q->busy_since = 0;
            if (!pol || pol->status != SMARTSSD__V1__STATUS__OK)
                /* a poll the device refused: nothing to wait for any more */
                while (q->out) {
                    chunk *c = q->out;
                    unlink_out(q, c);
                    fail_chunk(c, EIO, "block_poll: %s", pol ? pol->message : "the device's reply does not decode");
                }
            if (gen2 != gen) {
                /* a new session: this batch went to it (the transport sends a call's frames again on the
                 * connection it makes), what the old one held is gone; submit that again */
                for (size_t i = 0; i < n; i++) batch[i]->gen = gen2;
                for (chunk *c = q->out, *next; c; c = next) {
                    next = c->next;
                    if (c->gen != gen2) {
                        unlink_out(q, c);
                        push_front(q, c);
                    }
                }
            }
        }
        for (size_t i = 0; i < nreq; i++)
            if (rs[i]) smartssd__v1__response__free_unpacked(rs[i], NULL);
        pthread_cond_broadcast(&q->done);
        /* paced, the device's clock moves with wall time anyway: waiting would only delay completions */
        uint64_t refill = q->x.paced || q->x.refill_ns == UINT64_MAX ? 0 : q->x.refill_ns ? q->x.refill_ns : REFILL_NS;
        if (completed && q->out && !q->inline_mode && refill) {
            /* let the client answer its completions before the device's clock moves on */
            uint64_t want = q->arrived + completed;
            struct timespec dl;
            clock_gettime(CLOCK_MONOTONIC, &dl);
            dl.tv_sec += (time_t)(refill / 1000000000ull);
            dl.tv_nsec += (long)(refill % 1000000000ull);
            dl.tv_sec += dl.tv_nsec / 1000000000L;
            dl.tv_nsec %= 1000000000L;
            while (!q->stop && q->arrived < want && pthread_cond_timedwait(&q->work, &q->mu, &dl) != ETIMEDOUT) {}
        }
        if (q->busy_since && !q->out && q->wait_head) {
            /* too busy with nothing of ours outstanding: other clients hold the device; back off */
            pthread_mutex_unlock(&q->mu);
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
            pthread_mutex_lock(&q->mu);
        }
    }
}

static void *dispatch(void *arg) {
    csd_nbd_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->stop && !q->wait_head && !q->out) pthread_cond_wait(&q->work, &q->mu);
        if (!q->wait_head && !q->out) break;   /* stopping, nothing left */
        step(q);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

int csd_nbd_queue_start(csd_nbd_queue **out, const csd_nbd_transport *t, const csd_nbd_export *x) {
    return csd_nbd_queue_start_mode(out, t, x, 0);
}

int csd_nbd_queue_start_mode(csd_nbd_queue **out, const csd_nbd_transport *t, const csd_nbd_export *x, int inline_mode) {
    csd_nbd_queue *q = calloc(1, sizeof *q);
    if (!q) return ENOMEM;
    q->t = *t;
    q->x = *x;
    pthread_mutex_init(&q->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->work, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&q->done, NULL);
    q->inline_mode = inline_mode;
    int rc = inline_mode ? 0 : pthread_create(&q->thread, NULL, dispatch, q);
    if (rc) {
        pthread_mutex_destroy(&q->mu);
        pthread_cond_destroy(&q->work);
        pthread_cond_destroy(&q->done);
        free(q);
        return rc;
    }
    *out = q;
    return 0;
}

void csd_nbd_queue_stop(csd_nbd_queue *q) {
    if (!q) return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
    if (!q->inline_mode) pthread_join(q->thread, NULL);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->work);
    pthread_cond_destroy(&q->done);
    free(q);
}

int csd_nbd_request(csd_nbd_queue *q, int op, void *buf, uint32_t count, uint64_t offset, uint32_t flags, char *err,
                    size_t errlen) {
    uint8_t bop;
    int zero_write;
    int rc = csd_nbd_check(&q->x, op, count, offset, flags, &bop, &zero_write, err, errlen);
    if (rc) return rc;
    void *zeros = NULL;
    if (zero_write) {
        zeros = calloc(1, count);
        if (!zeros) {
            snprintf(err, errlen, "out of memory");
            return ENOMEM;
        }
        buf = zeros;
    }
    /* block requests of at most CSD_BLOCK_MAX_LBAS LBAs */
    const uint32_t lb = q->x.lba_bytes;
    uint64_t lbas = count / lb, lba0 = offset / lb;
    size_t n = bop == CSD_BLOCK_FLUSH ? 1 : (size_t)((lbas + CSD_BLOCK_MAX_LBAS - 1) / CSD_BLOCK_MAX_LBAS);
    chunk *ch = calloc(n, sizeof *ch);
    if (!ch) {
        free(zeros);
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t a = (uint64_t)i * CSD_BLOCK_MAX_LBAS;
        ch[i].bop = bop;
        if (bop != CSD_BLOCK_FLUSH) {
            ch[i].lba = lba0 + a;
            ch[i].count = (uint32_t)(lbas - a < CSD_BLOCK_MAX_LBAS ? lbas - a : CSD_BLOCK_MAX_LBAS);
            ch[i].data = buf ? (uint8_t *)buf + a * lb : NULL;
        }
    }
    pthread_mutex_lock(&q->mu);
    for (size_t i = 0; i < n; i++) {
        ch[i].next = NULL;
        if (q->wait_tail) q->wait_tail->next = &ch[i];
        else q->wait_head = &ch[i];
        q->wait_tail = &ch[i];
    }
    q->arrived += n;
    pthread_cond_signal(&q->work);
    for (size_t i = 0; i < n; i++)
        while (ch[i].state != 2) {
            if (q->inline_mode) step(q);
            else pthread_cond_wait(&q->done, &q->mu);
        }
    pthread_mutex_unlock(&q->mu);
    rc = 0;
    for (size_t i = 0; !rc && i < n; i++)
        if (ch[i].err) {
            rc = ch[i].err;
            snprintf(err, errlen, "%s", ch[i].msg);
        }
    free(ch);
    free(zeros);
    return rc;
}
