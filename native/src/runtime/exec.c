/* Framing: turns the pages of one extent into the records or lines that extent owns, whole, in order,
 * and hands them to the tasklet. The ownership rules make extents compose: splitting an object into
 * consecutive extents delivers every record/line exactly once.
 *   records: an extent owns the records whose first byte lies in it.
 *   lines:   an extent owns the lines that start in it (Hadoop LineRecordReader); the last one may
 *            run past the extent end, over any number of pages.
 * Items that straddle a page boundary are reassembled in a carry buffer; the rest are passed in place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec.h"
#include "runtime/exec_io.h"

#include <pthread.h>

/* A line longer than this fails the tasklet instead of eating device DRAM. */
#define CSD_MAX_LINE_BYTES (64u << 20)

enum line_phase {
    LP_SEEK,      /* off > 0: skipping through the first '\n' at or after off - 1 */
    LP_START,     /* pos is the start of a line */
    LP_IN_LINE,   /* inside the line that started at item_start */
};

struct csd_exec {
    const csd_tasklet_ops *ops;
    void *state;
    csd_framing fr;
    csd_tasklet_io io;

    int begun, done, finished;
    int status;                  /* sticky failure */
    uint64_t size, off, end;     /* object size; extent [off, end) */
    uint32_t page_bytes;
    uint64_t next_page;          /* the page feed expects next */
    uint64_t first_page, last_page;

    /* records: start of the next record to deliver */
    uint64_t next_rec;
    /* lines */
    enum line_phase phase;
    uint64_t pos;                /* next byte to scan */
    uint64_t item_start;         /* start of the current line */
    int item_skip;               /* current line is not delivered (header or skipped page) */

    uint8_t *carry;              /* bytes of a record/line that began on an earlier page */
    size_t carry_len, carry_cap;

    uint64_t scanned;            /* two-stage: pages through stage 1 */

    /* page hook and CSD_SKIP_PAGE */
    int hooked_any;
    uint64_t hooked_page;
    int skip_active;
    uint64_t skip_page;

    csd_exec_hooks hooks;        /* flush: batched tasklets (sandbox/) */
    const void *prep;            /* the page being fed was prepared (hooks.prepare) into this */
    const uint8_t *prep_page;    /* ... and starts here */

    /* run-ahead (host/ahead.c): feed runs on a worker and stages each page's rows in a chunk; the
     * engine's thread publishes chunk by chunk (commit). A staged row is known to fit the output
     * buffer's limit when every byte staged so far stays within cap = committed + the room the
     * buffer had at the last commit (host reads only add room); otherwise the gate waits until the
     * engine consumes this page, when cap is exact. */
    int ahead;
    int ahead_init;              /* smu and the staging buffers exist (ahead() ran, even if undone) */
    csd_ahead_gate gate;
    csd_outbuf stage;            /* the page being fed (worker) */
    uint64_t staged_before;      /* worker: bytes staged by earlier pages */
    int exact;                   /* worker: cap is exact for the rest of this page */
    uint64_t committed;          /* engine thread: bytes published */
    uint64_t cap;                /* atomic */
    pthread_mutex_t smu;         /* the chunk queue */
    struct stage_chunk *ch_head, *ch_tail;
    uint64_t staged_pages;       /* worker: pages fed ahead (a chunk only for those with rows) */
    uint64_t committed_pages;    /* engine thread: pages published */
};

typedef struct stage_chunk {
    uint8_t *data;
    size_t len;
    uint64_t rows, filtered;
    int truncated;
    uint64_t page;               /* which page fed ahead it is (staged_pages) */
    struct stage_chunk *next;
} stage_chunk;

/* The tasklet failed (rc < 0), or called csd_io_fail / hit a runtime limit while returning >= 0.
 * The status is the runtime's own when it set one, else the tasklet's errno (-EPROTO when the
 * tasklet reported a failure but returned success); the message is the first one recorded. */
static void run_fail(csd_exec *t, int rc, const char *what) {
    int st = t->io.status ? t->io.status : rc < 0 ? rc : -EPROTO;
    csd_taskio_set_error(&t->io, st, "tasklet '%s' %s failed: %s", t->ops->name ? t->ops->name : "?", what,
                     strerror(-st));
    t->status = st;
    t->done = 1;
}

int csd_exec_create(csd_exec **out, const csd_tasklet_ops *ops, const csd_tasklet_args *args,
                       csd_outbuf *outbuf, char *err, size_t errlen) {
    return csd_exec_create_hooked(out, ops, NULL, NULL, args, outbuf, err, errlen);
}

int csd_exec_create_hooked(csd_exec **out, const csd_tasklet_ops *ops, const csd_exec_hooks *hooks,
                           const csd_exec_host *host, const csd_tasklet_args *args, csd_outbuf *outbuf, char *err,
                           size_t errlen) {
    *out = NULL;
    if (!ops || !ops->init || !ops->record || !outbuf) {
        snprintf(err, errlen, "invalid tasklet (missing init/record or output buffer)");
        return -EINVAL;
    }
    csd_exec *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    t->ops = ops;
    if (hooks) {
        t->hooks = *hooks;
        t->state = hooks->ctx;
    }
    csd_taskio_init(&t->io, outbuf, ops->name);
    csd_tasklet_args empty = {0};
    char ebuf[CSD_IO_ERR_MAX] = "";
    static const csd_exec_host alone = { 1, NULL };
    int rc = hooks && hooks->init_host
                 ? hooks->init_host(&t->state, args ? args : &empty, host ? host : &alone, &t->fr, ebuf, sizeof ebuf)
                 : ops->init(&t->state, args ? args : &empty, &t->fr, ebuf, sizeof ebuf);
    if (rc < 0) {
        snprintf(err, errlen, "%s", ebuf[0] ? ebuf : strerror(-rc));
        t->state = NULL;
        csd_exec_destroy(t);
        return rc;
    }
    if ((t->fr.kind != CSD_FRAMING_RECORDS && t->fr.kind != CSD_FRAMING_LINES && t->fr.kind != CSD_FRAMING_BYTES &&
         !(t->fr.kind == CSD_FRAMING_TWO_STAGE && ops->page_scan)) ||
        (t->fr.kind == CSD_FRAMING_RECORDS && t->fr.record_bytes == 0)) {
        snprintf(err, errlen, "tasklet '%s' chose an invalid framing", ops->name ? ops->name : "?");
        csd_exec_destroy(t);
        return -EINVAL;
    }
    *out = t;
    return 0;
}

int csd_exec_begin(csd_exec *t, uint64_t object_size, uint64_t offset, uint64_t length,
                      uint32_t page_bytes, uint64_t *first_page, uint64_t *last_page,
                      char *err, size_t errlen) {
    if (t->begun) {
        snprintf(err, errlen, "execution already begun");
        return -EINVAL;
    }
    if (page_bytes == 0) {
        snprintf(err, errlen, "page size must be positive");
        return -EINVAL;
    }
    if (offset > object_size || length > object_size - offset) {
        snprintf(err, errlen, "extent [%llu, +%llu) lies past the end of the %llu-byte object",
                 (unsigned long long)offset, (unsigned long long)length, (unsigned long long)object_size);
        return -ERANGE;
    }
    uint64_t R = t->fr.record_bytes;
    if (t->fr.kind == CSD_FRAMING_RECORDS && object_size % R) {
        snprintf(err, errlen, "object size %llu is not a multiple of entry_bytes %llu",
                 (unsigned long long)object_size, (unsigned long long)R);
        return -EINVAL;
    }
    t->size = object_size;
    t->off = offset;
    t->end = offset + length;
    t->page_bytes = page_bytes;
    t->begun = 1;

    uint64_t P = page_bytes, fp, lp;
    int empty;
    if (t->fr.kind == CSD_FRAMING_RECORDS) {
        uint64_t first = (offset + R - 1) / R * R;
        empty = first >= t->end;
        t->next_rec = first;
        fp = first / P;
        /* the last owned record starts at the largest multiple of R below end */
        lp = empty ? 0 : (((t->end - 1) / R * R) + R - 1) / P;
    } else if (t->fr.kind == CSD_FRAMING_BYTES) {
        empty = length == 0;
        fp = offset / P;
        lp = empty ? 0 : (t->end - 1) / P;
        /* the pages before the first one the tasklet needs are not fed at all */
        while (!empty && fp < lp && !csd_exec_needs_page(t, fp)) fp++;
    } else {   /* lines, and two-stage text (same pages: byte off - 1 tells whether a line starts at off) */
        empty = length == 0;
        t->phase = offset > 0 ? LP_SEEK : LP_START;
        t->pos = offset > 0 ? offset - 1 : 0;
        fp = t->pos / P;
        lp = empty ? 0 : (t->end - 1) / P;
    }
    if (empty) {
        fp = offset / P + 1;
        lp = offset / P;
        t->done = 1;
    }
    t->first_page = t->next_page = fp;
    t->last_page = lp;
    *first_page = fp;
    *last_page = lp;
    return 0;
}

/* The page hook for the page where an item starts; returns 0, CSD_SKIP_PAGE, CSD_STOP or < 0. */
static int enter_page(csd_exec *t, uint64_t item_start) {
    uint64_t pg = item_start / t->page_bytes;
    if (t->hooked_any && t->hooked_page == pg) return 0;
    t->hooked_any = 1;
    t->hooked_page = pg;
    if (!t->ops->page) return 0;
    return t->ops->page(t->state, &t->io, pg);
}

/* What a record()'s answer (or one standing for it) does to the execution: a failure, a page to skip
 * (page, or none when the answer names no page), a stop, an answer that is not one, a full output.
 * 0, or < 0 on failure (t->status set). */
static int outcome(csd_exec *t, int rc, int has_page, uint64_t page) {
    if (rc < 0 || t->io.status || t->io.msg_set) {
        run_fail(t, rc, "record");
        return t->status;
    }
    if (rc == CSD_SKIP_PAGE) {
        if (has_page) {
            t->skip_active = 1;
            t->skip_page = page;
        }
    } else if (rc == CSD_STOP) {
        t->done = 1;
    } else if (rc != 0) {
        csd_taskio_set_error(&t->io, -EINVAL, "tasklet '%s' returned %d from record()", t->ops->name, rc);
        run_fail(t, -EINVAL, "record");
        return t->status;
    }
    if (t->io.truncated) t->done = 1;
    return 0;
}

/* The page hook's answer where an item starts, as record()'s would be: 0 lets the item through. */
static int hook_answer(int rc) { return rc > 0 && rc != CSD_SKIP_PAGE && rc != CSD_STOP ? -EINVAL : rc; }

/* Hand one item to the tasklet, with the page hook and the outcome bookkeeping. Returns < 0 on
 * failure (t->status set). */
static int deliver(csd_exec *t, const uint8_t *p, size_t len, uint64_t start) {
    if (t->skip_active && start / t->page_bytes == t->skip_page) return 0;
    int rc = enter_page(t, start);
    rc = rc == 0 ? t->ops->record(t->state, &t->io, p, len, start) : hook_answer(rc);
    return outcome(t, rc, 1, start / t->page_bytes);
}

/* A batched tasklet's records so far: its answer counts as a record()'s, for the page last entered. */
static int flush(csd_exec *t) {
    if (!t->hooks.flush || t->status) return 0;
    return outcome(t, t->hooks.flush(t->state, &t->io), t->hooked_any, t->hooked_page);
}

typedef int (*run_fn)(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t offset);

/* deliver() for a run of items starting in one page: n whole records (hooks.records) or n bytes of
 * whole lines (hooks.lines). */
static int deliver_run(csd_exec *t, run_fn fn, const uint8_t *p, size_t n, uint64_t start) {
    int rc = enter_page(t, start);
    if (rc == 0 && t->prep && fn == t->hooks.lines)
        rc = t->hooks.lines_prepared(t->state, &t->io, p, n, start, t->prep, t->prep_page);
    else rc = rc == 0 ? fn(t->state, &t->io, p, n, start) : hook_answer(rc);
    return outcome(t, rc, 1, start / t->page_bytes);
}

static int carry_append(csd_exec *t, const uint8_t *p, size_t n) {
    if (t->carry_len + n > t->carry_cap) {
        size_t cap = t->carry_cap ? t->carry_cap : 256;
        while (cap < t->carry_len + n) cap *= 2;
        uint8_t *c = realloc(t->carry, cap);
        if (!c) {
            csd_taskio_set_error(&t->io, -ENOMEM, "out of memory reassembling a record");
            t->status = t->io.status;
            t->done = 1;
            return -ENOMEM;
        }
        t->carry = c;
        t->carry_cap = cap;
    }
    memcpy(t->carry + t->carry_len, p, n);
    t->carry_len += n;
    return 0;
}

/* Records in page bytes [base, base+len). */
static int feed_records(csd_exec *t, const uint8_t *data, uint64_t base, size_t len) {
    uint64_t R = t->fr.record_bytes, P = t->page_bytes, pend = base + len;
    while (!t->done) {
        uint64_t s = t->next_rec;
        if (s >= t->end) {
            t->done = 1;
            break;
        }
        if (t->skip_active && s / P == t->skip_page && t->carry_len == 0) {
            /* jump to the first record starting after the skipped page */
            uint64_t nxt = (t->skip_page + 1) * P;
            t->next_rec = (nxt + R - 1) / R * R;
            continue;
        }
        uint64_t have = s + t->carry_len;    /* next byte of this record still needed */
        if (have >= pend) break;             /* starts on a later page */
        if (have < base) {                   /* cannot happen when pages come in order */
            csd_taskio_set_error(&t->io, -EINVAL, "record at offset %llu lost its bytes before page at %llu",
                             (unsigned long long)s, (unsigned long long)base);
            t->status = t->io.status;
            return t->status;
        }
        int rc;
        if (t->hooks.records && t->carry_len == 0 && s + R <= pend) {
            /* every whole record that starts here and is owned, in one call */
            uint64_t n_fit = (pend - s) / R, n_own = (t->end - s + R - 1) / R;
            uint64_t n = n_fit < n_own ? n_fit : n_own;
            rc = deliver_run(t, t->hooks.records, data + (s - base), (size_t)n, s);
            if (rc < 0) return rc;
            t->next_rec = s + n * R;
            continue;
        }
        if (t->carry_len == 0 && s + R <= pend) {
            rc = deliver(t, data + (s - base), R, s);
        } else {
            size_t need = (size_t)(R - t->carry_len);
            size_t avail = (size_t)(pend - have);
            size_t n = need < avail ? need : avail;
            if (carry_append(t, data + (have - base), n)) return t->status;
            if (t->carry_len < R) break;
            rc = deliver(t, t->carry, R, s);
            t->carry_len = 0;
        }
        if (rc < 0) return rc;
        t->next_rec = s + R;
    }
    return 0;
}

static int deliver_line(csd_exec *t, const uint8_t *p, size_t n) {
    static const uint8_t no_bytes[1];
    if (t->item_skip) return 0;
    if (!p) p = no_bytes;   /* an empty line still gets a valid pointer */
    if (n && p[n - 1] == '\r') n--;   /* CRLF text: the '\r' is part of the terminator */
    return deliver(t, p, n, t->item_start);
}

/* Lines in page bytes [base, base+len). */
static int feed_lines(csd_exec *t, const uint8_t *data, uint64_t base, size_t len) {
    uint64_t P = t->page_bytes, pend = base + len;
    while (!t->done && t->pos < pend) {
        if (t->pos < base) {
            csd_taskio_set_error(&t->io, -EINVAL, "line scan at offset %llu lost its bytes before page at %llu",
                             (unsigned long long)t->pos, (unsigned long long)base);
            t->status = t->io.status;
            return t->status;
        }
        const uint8_t *p = data + (t->pos - base);
        size_t avail = (size_t)(pend - t->pos);
        if (t->phase == LP_SEEK) {
            const uint8_t *nl = memchr(p, '\n', avail);
            if (!nl) {
                t->pos = pend;
                break;
            }
            t->pos += (uint64_t)(nl - p) + 1;
            t->phase = LP_START;
            continue;
        }
        if (t->phase == LP_START) {
            if (t->pos >= t->end) {
                t->done = 1;
                break;
            }
            if (t->hooks.lines && !(t->fr.skip_header && t->pos == 0) &&
                !(t->skip_active && t->pos / P == t->skip_page)) {
                /* every whole line from here to the page's last '\n', but none starting at or after
                 * the extent's end: the block then ends with the line holding byte end - 1 */
                const uint8_t *last = memrchr(p, '\n', avail);
                if (last) {
                    size_t blen = (size_t)(last - p) + 1;
                    if (t->pos + blen > t->end) {
                        uint64_t from = t->end - 1;
                        const uint8_t *nl = memchr(data + (from - base), '\n', (size_t)(pend - from));
                        blen = (size_t)(nl - p) + 1;
                    }
                    int rc = deliver_run(t, t->hooks.lines, p, blen, t->pos);
                    if (rc < 0) return rc;
                    t->pos += blen;
                    continue;
                }
            }
            t->item_start = t->pos;
            t->item_skip = (t->fr.skip_header && t->pos == 0) ||
                           (t->skip_active && t->pos / P == t->skip_page);
            t->carry_len = 0;
            t->phase = LP_IN_LINE;
        }
        const uint8_t *nl = memchr(p, '\n', avail);
        if (nl) {
            size_t n = (size_t)(nl - p);
            int rc;
            if (t->carry_len == 0 && t->item_start == t->pos) {
                rc = deliver_line(t, p, n);
            } else {
                if (!t->item_skip && carry_append(t, p, n)) return t->status;
                rc = deliver_line(t, t->carry, t->carry_len);
                t->carry_len = 0;
            }
            if (rc < 0) return rc;
            t->pos += n + 1;
            t->phase = LP_START;
        } else {
            if (!t->item_skip) {
                if (t->carry_len + avail > CSD_MAX_LINE_BYTES) {
                    csd_taskio_set_error(&t->io, -E2BIG, "line at offset %llu is longer than %u bytes",
                                     (unsigned long long)t->item_start, CSD_MAX_LINE_BYTES);
                    t->status = t->io.status;
                    t->done = 1;
                    return t->status;
                }
                if (carry_append(t, p, avail)) return t->status;
            }
            t->pos = pend;
        }
    }
    return 0;
}

/* Input reached the end of the object: a final line without '\n' still counts. */
static int lines_at_eof(csd_exec *t) {
    if (t->done || t->pos < t->size) return 0;
    int rc = 0;
    if (t->phase == LP_IN_LINE) {
        rc = deliver_line(t, t->carry, t->carry_len);
        t->carry_len = 0;
        t->phase = LP_START;
    }
    t->done = 1;
    return rc < 0 ? rc : 0;
}

static void take_cost(csd_exec *t, csd_cost *cost) {
    if (cost) {
        cost->cycles = t->io.cycles;
        cost->dram_accesses = t->io.dram_accesses;
    }
    t->io.cycles = t->io.dram_accesses = 0;
}

static int exec_room(void *ctx, size_t n) {
    csd_exec *t = ctx;
    if (t->staged_before + n <= __atomic_load_n(&t->cap, __ATOMIC_ACQUIRE)) return 1;
    if (t->exact) return 0;
    t->gate.wait(t->gate.ctx);
    t->exact = 1;
    return t->staged_before + n <= __atomic_load_n(&t->cap, __ATOMIC_ACQUIRE);
}

/* Engine thread: what the worker may stage from now on. */
static void exec_refresh_cap(csd_exec *t) {
    const csd_outbuf *o = t->io.out;
    size_t unread = o->len - o->read_pos;
    uint64_t cap = !o->limit_bytes ? UINT64_MAX
                   : t->committed + (unread < o->limit_bytes ? o->limit_bytes - unread : 0);
    __atomic_store_n(&t->cap, cap, __ATOMIC_RELEASE);
}

/* Worker: the page's rows become one chunk for the engine to publish. */
static void stage_close(csd_exec *t) {
    csd_outbuf *s = &t->stage;
    t->io.stage = NULL;
    uint64_t page = t->staged_pages++;
    /* a page that staged nothing (most pages of an aggregation) needs no chunk: its commit finds
     * none of its own; the allocation and the queue's lock per page were 1-2 % of a text plan */
    if (!s->len && !s->rows && !s->filtered && !s->truncated) return;
    stage_chunk *c = calloc(1, sizeof *c);
    if (!c) {
        csd_taskio_set_error(&t->io, -ENOMEM, "out of memory staging output rows");
        t->status = t->io.status;
        t->done = 1;
        free(s->data);
    } else {
        *c = (stage_chunk){ s->data, s->len, s->rows, s->filtered, s->truncated, page, NULL };
        t->staged_before += s->len;
        pthread_mutex_lock(&t->smu);
        if (t->ch_tail) t->ch_tail->next = c; else t->ch_head = c;
        t->ch_tail = c;
        pthread_mutex_unlock(&t->smu);
    }
    memset(s, 0, sizeof *s);
}

int csd_exec_feed(csd_exec *t, uint64_t page_index, const uint8_t *data, size_t len,
                     csd_cost *cost, int *need_more) {
    t->io.cycles = t->io.dram_accesses = 0;
    if (t->ahead) {
        t->io.stage = &t->stage;
        t->exact = 0;
    }
    int rc = 0;
    if (t->status) {
        rc = t->status;
    } else if (!t->begun || t->finished) {
        csd_taskio_set_error(&t->io, -EINVAL, "feed %s", t->finished ? "after finish" : "before begin");
        rc = t->status = t->io.status;
    } else if (t->fr.kind == CSD_FRAMING_TWO_STAGE) {
        csd_taskio_set_error(&t->io, -EINVAL, "a two-stage execution takes its pages through stage 1");
        rc = t->status = t->io.status;
    } else if (!t->done) {
        uint64_t P = t->page_bytes, base = page_index * P;
        uint64_t want = base < t->size ? (t->size - base < P ? t->size - base : P) : 0;
        if (page_index != t->next_page || len != want || (len && !data)) {
            csd_taskio_set_error(&t->io, -EINVAL,
                             "fed page %llu with %zu bytes, expected page %llu with %llu bytes",
                             (unsigned long long)page_index, len, (unsigned long long)t->next_page,
                             (unsigned long long)(t->next_page * P < t->size
                                 ? (t->size - t->next_page * P < P ? t->size - t->next_page * P : P) : 0));
            rc = t->status = t->io.status;
        } else {
            t->next_page++;
            if (t->fr.kind == CSD_FRAMING_RECORDS) {
                rc = feed_records(t, data, base, len);
            } else if (t->fr.kind == CSD_FRAMING_BYTES) {
                /* the page's part of the extent, in place */
                uint64_t s = base > t->off ? base : t->off, e = base + len < t->end ? base + len : t->end;
                if (s < e) rc = deliver(t, data + (s - base), (size_t)(e - s), s);
                if (base + len >= t->end) t->done = 1;
            } else {
                rc = feed_lines(t, data, base, len);
                if (rc == 0) rc = lines_at_eof(t);
            }
            if (rc == 0) rc = flush(t);
        }
    }
    if (t->ahead) stage_close(t);
    take_cost(t, cost);
    if (need_more) *need_more = !t->done && !t->status;
    return rc < 0 ? rc : t->status;
}

int csd_exec_finish(csd_exec *t, csd_cost *cost) {
    t->io.cycles = t->io.dram_accesses = 0;
    int rc = t->status;
    if (!rc && (!t->begun || t->finished)) {
        csd_taskio_set_error(&t->io, -EINVAL, "finish %s", t->finished ? "called twice" : "before begin");
        rc = t->status = t->io.status;
    }
    if (!rc && t->fr.kind == CSD_FRAMING_LINES) rc = lines_at_eof(t);
    if (!rc && t->fr.kind == CSD_FRAMING_TWO_STAGE) {
        if (t->scanned != (t->last_page >= t->first_page ? t->last_page - t->first_page + 1 : 0) && !t->done) {
            csd_taskio_set_error(&t->io, -EPROTO, "finish after %llu of the extent's %llu pages",
                                 (unsigned long long)t->scanned,
                                 (unsigned long long)(t->last_page - t->first_page + 1));
            rc = t->status = t->io.status;
        }
        t->done = 1;
    }
    if (!rc) rc = flush(t);
    if (!rc && !t->done) {
        /* the caller stopped feeding before the extent's last record/line was complete */
        uint64_t at = t->fr.kind == CSD_FRAMING_RECORDS ? t->next_rec : t->pos;
        csd_taskio_set_error(&t->io, -EPROTO, "input ended at offset %llu before the extent [%llu, %llu) was complete",
                         (unsigned long long)at, (unsigned long long)t->off, (unsigned long long)t->end);
        rc = t->status = t->io.status;
    }
    if (!rc) {
        t->done = 1;
        t->finished = 1;
        if (t->ops->finish) {
            int r = t->ops->finish(t->state, &t->io);
            if (r < 0 || t->io.status || t->io.msg_set) {
                run_fail(t, r, "finish");
                rc = t->status;
            }
        }
    }
    take_cost(t, cost);
    return rc;
}

void csd_exec_set_row_filter(csd_exec *t, csd_row_keep_fn keep, void *ctx) {
    t->io.keep = keep;
    t->io.keep_ctx = ctx;
}

int csd_exec_needs_page(const csd_exec *t, uint64_t page_index) {
    if (!t || t->fr.kind != CSD_FRAMING_BYTES || !t->ops->need_page || !t->state || t->status) return 1;
    return t->ops->need_page(t->state, page_index, t->page_bytes) != 0;
}

const char *csd_exec_error(const csd_exec *t) {
    return t && t->status ? t->io.err : "";
}

void csd_exec_destroy(csd_exec *t) {
    if (!t) return;
    if (t->state && t->ops->destroy) t->ops->destroy(t->state);
    csd_taskio_release(&t->io);
    free(t->carry);
    if (t->ahead_init) {
        for (stage_chunk *c = t->ch_head, *n; c; c = n) {
            n = c->next;
            free(c->data);
            free(c);
        }
        free(t->stage.data);
        pthread_mutex_destroy(&t->smu);
    }
    free(t);
}

static int work_feed(void *arg, uint64_t page_index, const uint8_t *data, size_t len, csd_cost *cost,
                     int *need_more) {
    return csd_exec_feed(arg, page_index, data, len, cost, need_more);
}

static void *work_prep_new(void *arg) {
    csd_exec *t = arg;
    return t->hooks.prep_new(t->state);
}

static void work_prep_free(void *arg, void *prep) {
    csd_exec *t = arg;
    t->hooks.prep_free(t->state, prep);
}

/* Any thread: reads only the tasklet's state as init() left it (the hook's promise). */
static int work_prepare(void *arg, void *prep, uint64_t page_index, const uint8_t *data, size_t len) {
    csd_exec *t = arg;
    (void)page_index;
    return t->hooks.prepare(t->state, prep, data, len);
}

static int work_feed_prepared(void *arg, uint64_t page_index, const uint8_t *data, size_t len, void *prep,
                              csd_cost *cost, int *need_more) {
    csd_exec *t = arg;
    t->prep = prep;
    t->prep_page = data;
    int rc = csd_exec_feed(t, page_index, data, len, cost, need_more);
    t->prep = NULL;
    t->prep_page = NULL;
    return rc;
}

static int work_finish(void *arg, csd_cost *cost) { return csd_exec_finish(arg, cost); }

/* Two-stage text (2PM paper III-A): the first stage, one page in any order. */
int csd_exec_stage1(csd_exec *t, uint64_t page_index, const uint8_t *data, size_t len, csd_cost *cost,
                    int *cls, int *need_next) {
    t->io.cycles = t->io.dram_accesses = 0;
    *cls = CSD_PAGE_MISMATCHED;
    *need_next = 0;
    int rc = t->status;
    uint64_t P = t->page_bytes, base = page_index * P;
    uint64_t want = base < t->size ? (t->size - base < P ? t->size - base : P) : 0;
    if (!rc && (t->fr.kind != CSD_FRAMING_TWO_STAGE || !t->begun || t->finished)) {
        csd_taskio_set_error(&t->io, -EINVAL, "stage 1 %s", t->fr.kind != CSD_FRAMING_TWO_STAGE
                             ? "of an execution that is not two-stage" : t->finished ? "after finish" : "before begin");
        rc = t->status = t->io.status;
    }
    if (!rc && (page_index < t->first_page || page_index > t->last_page || len != want || (len && !data))) {
        csd_taskio_set_error(&t->io, -EINVAL, "stage 1 of page %llu with %zu bytes, outside pages %llu..%llu or "
                             "not %llu bytes", (unsigned long long)page_index, len,
                             (unsigned long long)t->first_page, (unsigned long long)t->last_page,
                             (unsigned long long)want);
        rc = t->status = t->io.status;
    }
    if (!rc) {
        csd_extent x = { t->off, t->end, t->size, t->page_bytes };
        int c = CSD_PAGE_MISMATCHED, more = 0;
        int r = t->ops->page_scan(t->state, &t->io, &x, page_index, data, len, &c, &more);
        if (r < 0 || t->io.status || t->io.msg_set) {
            run_fail(t, r, "page_scan");
            rc = t->status;
        } else {
            t->scanned++;
            *cls = c >= CSD_PAGE_MISMATCHED && c <= CSD_PAGE_MATCHED ? c : CSD_PAGE_PARTIAL;
            /* the next page exists and the extent's last line may run into it */
            if (more && page_index == t->last_page && (page_index + 1) * P < t->size) {
                t->last_page++;
                *need_next = 1;
            }
        }
    }
    take_cost(t, cost);
    return rc;
}

static int work_stage1(void *arg, uint64_t page_index, const uint8_t *data, size_t len, csd_cost *cost, int *cls,
                       int *need_next) {
    return csd_exec_stage1(arg, page_index, data, len, cost, cls, need_next);
}

/* Run-ahead is for the device's own tasklets whose feed depends only on the execution and the page:
 * not a sandboxed program (flush; its instance is shared), not a two-stage one, not one whose
 * need_page the engine asks while it issues. */
static int work_ahead(void *arg, const csd_ahead_gate *gate) {
    csd_exec *t = arg;
    if (t->ahead || t->ahead_init || t->hooks.flush || t->finished || !t->begun || t->fr.kind == CSD_FRAMING_TWO_STAGE ||
        (t->fr.kind == CSD_FRAMING_BYTES && t->ops->need_page))
        return 0;
    pthread_mutex_init(&t->smu, NULL);
    t->ahead_init = 1;
    t->gate = *gate;
    t->io.room = exec_room;
    t->io.room_ctx = t;
    t->ahead = 1;
    exec_refresh_cap(t);
    return 1;
}

static int work_commit(void *arg, int page) {
    csd_exec *t = arg;
    int rc = 0;
    if (page) {
        const uint64_t k = t->committed_pages++;
        pthread_mutex_lock(&t->smu);
        stage_chunk *c = t->ch_head;
        if (c && c->page != k) c = NULL;   /* page k staged nothing: the head is a later page's */
        if (c) {
            t->ch_head = c->next;
            if (!t->ch_head) t->ch_tail = NULL;
        }
        pthread_mutex_unlock(&t->smu);
        if (c) {
            rc = csd_outbuf_append(t->io.out, c->data, c->len, c->rows, c->filtered);
            if (c->truncated) t->io.out->truncated = 1;
            t->committed += c->len;
            free(c->data);
            free(c);
        }
    }
    exec_refresh_cap(t);
    return rc;
}

/* Engine thread, every staged page published: rows go straight to the output again, checked there. */
static void work_unahead(void *arg) {
    csd_exec *t = arg;
    t->ahead = 0;
    t->io.stage = NULL;
    t->io.room = NULL;
    t->io.room_ctx = NULL;
}

csd_isp_work csd_exec_work(csd_exec *t) {
    csd_isp_work w = { .arg = t, .feed = work_feed, .finish = work_finish,
                       .stage1 = t->fr.kind == CSD_FRAMING_TWO_STAGE ? work_stage1 : NULL,
                       .ahead = work_ahead, .commit = work_commit, .unahead = work_unahead };
    const csd_exec_hooks *h = &t->hooks;
    if (t->fr.kind == CSD_FRAMING_LINES && h->lines && h->prep_new && h->prep_free && h->prepare && h->lines_prepared) {
        w.prep_new = work_prep_new;
        w.prep_free = work_prep_free;
        w.prepare = work_prepare;
        w.feed_prepared = work_feed_prepared;
    }
    return w;
}
