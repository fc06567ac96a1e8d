/* The csd_tasklet_io a tasklet talks to: cost accumulators, the row under construction and the first
 * failure. Shared by exec.c (which owns one per execution) and tasklet_io.c (the csd_io_* API);
 * a row filter (query/row_filter.c) reads csd_io_val; nothing else should look inside. */
#ifndef CSD_RUNTIME_EXEC_IO_H
#define CSD_RUNTIME_EXEC_IO_H

#include <stddef.h>
#include <stdint.h>
#include "runtime/exec.h"

#define CSD_IO_ERR_MAX 512

typedef struct csd_io_val {
    int kind;            /* CSD_IO_V_* */
    int64_t i;
    double d;
    size_t off, len;     /* bytes: position in the row arena (the arena may move while a row grows) */
} csd_io_val;

enum { CSD_IO_V_NULL, CSD_IO_V_INT, CSD_IO_V_DOUBLE, CSD_IO_V_BYTES, CSD_IO_V_BOOL };

struct csd_tasklet_io {
    csd_outbuf *out;
    /* Run-ahead (host/ahead.c): while stage is set, rows go there instead of out, to be published
     * when the engine consumes the page; room(room_ctx, n) says whether n more staged bytes of this
     * page surely fit out's limit (it may wait for the engine to know). rows and truncated count
     * this execution's rows wherever they went (max_rows). */
    csd_outbuf *stage;
    int (*room)(void *ctx, size_t n);
    void *room_ctx;
    uint64_t rows;
    int truncated;
    csd_row_keep_fn keep;             /* pushed filter (CreateObject.filter), or NULL */
    void *keep_ctx;
    const char *tasklet_name;
    uint64_t cycles, dram_accesses;   /* charged since the last reset */
    /* the row being built */
    csd_io_val *vals;
    size_t nvals, cap_vals;
    uint8_t *arena;
    size_t arena_len, arena_cap;
    int alloc_failed;                 /* a value could not be stored: row_end fails with -ENOMEM */
    /* scratch for packing */
    void *pb_vals, *pb_ptrs;
    size_t pb_cap;
    /* first failure: the message, and the status when the runtime itself decided it (-ENOSPC,
     * -ENOMEM, framing errors); a tasklet's csd_io_fail only leaves a message, its status is the
     * errno the tasklet returns */
    int status;                       /* 0 or negative errno */
    int msg_set;
    char err[CSD_IO_ERR_MAX];
};

void csd_taskio_init(csd_tasklet_io *io, csd_outbuf *out, const char *tasklet_name);
void csd_taskio_release(csd_tasklet_io *io);
/* Append n bytes of whole rows (rows of them, filtered dropped) to o, past its limit if need be (the
 * rows were checked against it when staged). 0 or -ENOMEM. */
int csd_outbuf_append(csd_outbuf *o, const uint8_t *p, size_t n, uint64_t rows, uint64_t filtered);
/* Record a runtime failure status (kept if none yet) and its message (kept if none yet: the first
 * one is the cause). */
void csd_taskio_set_error(csd_tasklet_io *io, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
