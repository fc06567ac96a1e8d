/* An execution: one tasklet instance run over one extent of an object (one execute_object), the
 * functional half of the tasklet runtime: framing (records / lines across page boundaries, extent
 * ownership), the csd_tasklet_io services, and output rows encoded as length-delimited
 * smartssd.v1.Row messages. It knows nothing of virtual time: the engine feeds it pages in order
 * and turns the returned cost into core time. docs/TASKLETS.md states the rules in full:
 *   records: an extent owns the records whose first byte lies in it; the object size must be a
 *            multiple of the record size;
 *   lines:   an extent owns the lines that start in it (Hadoop LineRecordReader); one trailing '\r'
 *            is stripped; a final line without '\n' counts; skip_header only at offset 0. */
#ifndef CSD_RUNTIME_EXEC_H
#define CSD_RUNTIME_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/tasklet.h"
#include "engine/engine.h"

/* Results of one output object, held in device DRAM until the host reads them. */
typedef struct csd_outbuf {
    uint8_t *data;          /* length-delimited Row messages */
    size_t len, cap;
    size_t read_pos;        /* bytes already handed to the host */
    size_t limit_bytes;     /* output_buffer_bytes: unread bytes may not exceed this */
    uint64_t rows;          /* rows emitted */
    uint64_t max_rows;      /* 0 = unlimited */
    int truncated;          /* max_rows reached */
    uint64_t filtered;      /* rows a pushed filter dropped (never stored) */
} csd_outbuf;

void csd_outbuf_init(csd_outbuf *o, size_t limit_bytes, uint64_t max_rows);
void csd_outbuf_free(csd_outbuf *o);
/* Take up to max bytes of whole rows from the unread part; returns the byte count (0 when none). */
size_t csd_outbuf_take(csd_outbuf *o, size_t max, const uint8_t **p);


typedef struct csd_exec csd_exec;

/* Instantiate ops with args, writing rows to out. Returns 0 or a negative errno with err set. */
int csd_exec_create(csd_exec **out, const csd_tasklet_ops *ops, const csd_tasklet_args *args,
                       csd_outbuf *outbuf, char *err, size_t errlen);

/* What the device lends its own tasklets, for wall time only and never device time: the emulator's
 * host threads and its pool of large buffers (host/). A tasklet of the public ABI never sees it. */
struct csd_bufpool;
typedef struct csd_exec_host {
    uint32_t threads;                /* host threads it may use, the engine's own counted (1 = that one) */
    struct csd_bufpool *pool;        /* large buffers reused across requests; NULL = fresh memory */
} csd_exec_host;

/* A tasklet that runs outside the device's own code (sandbox/) takes its records in batches: the
 * runtime calls flush at the end of every page fed and before finish, and flush's answer counts as a
 * record()'s (0, CSD_SKIP_PAGE, CSD_STOP or a negative errno). ctx is handed to init as *state. */
typedef struct csd_exec_hooks {
    void *ctx;
    int (*flush)(void *state, csd_tasklet_io *io);
    /* Optional, RECORDS framing: n records of the framing's size back to back at p, the first at
     * offset (all start in one page), in place of n record() calls; answers as record() does. */
    int (*records)(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t offset);
    /* Optional, LINES framing: n bytes at p of whole lines the extent owns, each ending in '\n', all
     * starting in one page, the first at offset (no header to skip, no skipped page), in place of one
     * record() per line. The tasklet hands itself each line as record() gets it (without the '\n' and
     * one '\r' before it), and stops at the first line whose answer is not 0, returning that answer. */
    int (*lines)(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t offset);
    /* Optional, LINES framing with lines, all four or none: a page's lines prepared apart from the
     * run. prepare() reads only what init() fixed (any thread, while another feeds the state) and
     * leaves in prep what lines_prepared() then uses for the block p..p+n of that page (page: its
     * first byte); lines_prepared answers exactly as lines() would, whatever prep holds. */
    void *(*prep_new)(const void *state);
    void (*prep_free)(const void *state, void *prep);
    int (*prepare)(const void *state, void *prep, const uint8_t *page, size_t len);
    int (*lines_prepared)(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t offset,
                          const void *prep, const uint8_t *page);
    /* Optional, the device's own tasklets: init() given what the device lends too (never NULL), in
     * place of ops->init. */
    int (*init_host)(void **state, const csd_tasklet_args *args, const csd_exec_host *host, csd_framing *framing,
                     char *err, size_t errlen);
} csd_exec_hooks;

/* csd_exec_create with hooks (NULL = none) and what the device lends (NULL = one thread, no pool). */
int csd_exec_create_hooked(csd_exec **out, const csd_tasklet_ops *ops, const csd_exec_hooks *hooks,
                           const csd_exec_host *host, const csd_tasklet_args *args, csd_outbuf *outbuf, char *err,
                           size_t errlen);

/* Plan an extent [offset, offset+length) of an object of object_size bytes, page size page_bytes.
 * Sets the first page to feed and the last page the extent surely needs (inclusive); text extents may
 * need more pages after that (see feed's need_more). An empty extent gives *last_page < *first_page.
 * Returns 0, or -EINVAL / -ERANGE with err set (e.g. size not a multiple of the record size). */
int csd_exec_begin(csd_exec *t, uint64_t object_size, uint64_t offset, uint64_t length,
                      uint32_t page_bytes, uint64_t *first_page, uint64_t *last_page,
                      char *err, size_t errlen);

/* Feed the next page (pages come in order, starting at first_page; len < page_bytes only for the
 * object's last page). cost receives the tasklet's work for this page. *need_more is set to 0 once
 * the extent's last record/line is complete (or the tasklet stopped). Returns 0 or a negative errno
 * (tasklet failure; csd_exec_error() says why). */
int csd_exec_feed(csd_exec *t, uint64_t page_index, const uint8_t *data, size_t len,
                     csd_cost *cost, int *need_more);

/* No more input: flush a partial text line at end of object, call finish(). (feed already delivers
 * the object's final unterminated line when it is given the object's last page; finish fails with
 * -EPROTO if the caller stopped feeding while need_more was still 1.) */
int csd_exec_finish(csd_exec *t, csd_cost *cost);

/* Two-stage text (CSD_FRAMING_TWO_STAGE; 2PM paper III-A), the first stage: one page of the extent,
 * in any order, once. *cls gets the page's class (CSD_PAGE_*); *need_next = 1 when the extent's last
 * line may run into the next page, which then belongs to the extent (its last page grows by one).
 * 0 or a negative errno. finish() is the second stage. */
int csd_exec_stage1(csd_exec *t, uint64_t page_index, const uint8_t *data, size_t len, csd_cost *cost,
                    int *cls, int *need_next);

/* A filter on output rows (query/row_filter.c): 1 keep, 0 drop, < 0 with err; cycles grows by the
 * work it did. vals are the row's values (runtime/exec_io.h), strings in arena. */
struct csd_io_val;
typedef int (*csd_row_keep_fn)(void *ctx, const struct csd_io_val *vals, size_t n, const uint8_t *arena,
                               uint64_t *cycles, char *err, size_t errlen);
/* Apply keep to every row the tasklet emits, before it is stored for the host; ctx is owned by the
 * caller and outlives t. */
void csd_exec_set_row_filter(csd_exec *t, csd_row_keep_fn keep, void *ctx);

/* 0 when the tasklet says it will not look at page_index (its need_page; BYTES framing only), else 1.
 * csd_exec_begin already starts a BYTES extent at the first page the tasklet needs. */
int csd_exec_needs_page(const csd_exec *t, uint64_t page_index);

/* The failure message ("" when none): the tasklet's csd_io_fail text, the output-buffer-full message,
 * or a framing error. */
const char *csd_exec_error(const csd_exec *t);
/* The execution as the engine's work for one request (feed and finish go to it). */
csd_isp_work csd_exec_work(csd_exec *t);
void csd_exec_destroy(csd_exec *t);

#endif
