/* The tasklet-facing services: cost charging, output rows (length-delimited smartssd.v1.Row
 * messages in a csd_outbuf), failures, and parameter lookup. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec_io.h"
#include "util/varint.h"
#include "smartssd/v1/device.pb-c.h"

/* ------------------------------------------------------------------ output buffer */

void csd_outbuf_init(csd_outbuf *o, size_t limit_bytes, uint64_t max_rows) {
    memset(o, 0, sizeof *o);
    o->limit_bytes = limit_bytes;
    o->max_rows = max_rows;
}

void csd_outbuf_free(csd_outbuf *o) {
    free(o->data);
    o->data = NULL;
    o->len = o->cap = o->read_pos = 0;
}

size_t csd_outbuf_take(csd_outbuf *o, size_t max, const uint8_t **p) {
    size_t pos = o->read_pos, taken = 0;
    while (pos < o->len) {
        uint64_t rl;
        size_t vl = csd_varint_get(o->data + pos, o->len - pos, &rl);
        if (!vl || rl > o->len - pos - vl) break;   /* cannot happen: rows are appended whole */
        size_t whole = vl + (size_t)rl;
        if (taken + whole > max) break;
        taken += whole;
        pos += whole;
    }
    *p = o->data ? o->data + o->read_pos : NULL;
    o->read_pos = pos;
    return taken;
}

/* Make room for n more bytes. Bytes already read are dropped first (a pointer from the previous
 * take is only valid until the next append). */
static int outbuf_reserve(csd_outbuf *o, size_t n) {
    if (o->read_pos && (o->read_pos >= o->len / 2 || o->len + n > o->cap)) {
        memmove(o->data, o->data + o->read_pos, o->len - o->read_pos);
        o->len -= o->read_pos;
        o->read_pos = 0;
    }
    if (o->len + n <= o->cap) return 0;
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + n) cap *= 2;
    uint8_t *d = realloc(o->data, cap);
    if (!d) return -ENOMEM;
    o->data = d;
    o->cap = cap;
    return 0;
}

int csd_outbuf_append(csd_outbuf *o, const uint8_t *p, size_t n, uint64_t rows, uint64_t filtered) {
    if (n) {
        if (outbuf_reserve(o, n)) return -ENOMEM;
        memcpy(o->data + o->len, p, n);
        o->len += n;
    }
    o->rows += rows;
    o->filtered += filtered;
    return 0;
}

/* ------------------------------------------------------------------ io object */

void csd_taskio_init(csd_tasklet_io *io, csd_outbuf *out, const char *tasklet_name) {
    memset(io, 0, sizeof *io);
    io->out = out;
    io->rows = out ? out->rows : 0;
    io->tasklet_name = tasklet_name ? tasklet_name : "?";
}

void csd_taskio_release(csd_tasklet_io *io) {
    free(io->vals);
    free(io->arena);
    free(io->pb_vals);
    free(io->pb_ptrs);
    io->vals = NULL;
    io->arena = NULL;
    io->pb_vals = io->pb_ptrs = NULL;
}

static void io_vset_message(csd_tasklet_io *io, const char *fmt, va_list ap) {
    if (io->msg_set) return;
    io->msg_set = 1;
    vsnprintf(io->err, sizeof io->err, fmt, ap);
}

void csd_taskio_set_error(csd_tasklet_io *io, int status, const char *fmt, ...) {
    if (!io->status) io->status = status < 0 ? status : -EPROTO;
    va_list ap;
    va_start(ap, fmt);
    io_vset_message(io, fmt, ap);
    va_end(ap);
}

void csd_io_fail(csd_tasklet_io *io, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    io_vset_message(io, fmt, ap);
    va_end(ap);
}

void csd_io_charge(csd_tasklet_io *io, uint64_t cycles, uint64_t dram_accesses) {
    io->cycles += cycles;
    io->dram_accesses += dram_accesses;
}

void csd_io_row_begin(csd_tasklet_io *io) {
    io->nvals = 0;
    io->arena_len = 0;
    io->alloc_failed = 0;
}

static csd_io_val *io_push(csd_tasklet_io *io, int kind) {
    if (io->nvals == io->cap_vals) {
        size_t cap = io->cap_vals ? io->cap_vals * 2 : 16;
        csd_io_val *v = realloc(io->vals, cap * sizeof *v);
        if (!v) {
            io->alloc_failed = 1;
            return NULL;
        }
        io->vals = v;
        io->cap_vals = cap;
    }
    csd_io_val *v = &io->vals[io->nvals++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    return v;
}

void csd_io_val_int(csd_tasklet_io *io, int64_t x) {
    csd_io_val *v = io_push(io, CSD_IO_V_INT);
    if (v) v->i = x;
}

void csd_io_val_double(csd_tasklet_io *io, double x) {
    csd_io_val *v = io_push(io, CSD_IO_V_DOUBLE);
    if (v) v->d = x;
}

void csd_io_val_bool(csd_tasklet_io *io, int b) {
    csd_io_val *v = io_push(io, CSD_IO_V_BOOL);
    if (v) v->i = b != 0;
}

void csd_io_val_null(csd_tasklet_io *io) {
    io_push(io, CSD_IO_V_NULL);
}

/* Bytes are copied: the tasklet's buffer need not outlive the call. */
void csd_io_val_bytes(csd_tasklet_io *io, const void *p, size_t n) {
    if (io->arena_len + n > io->arena_cap) {
        size_t cap = io->arena_cap ? io->arena_cap : 256;
        while (cap < io->arena_len + n) cap *= 2;
        uint8_t *a = realloc(io->arena, cap);
        if (!a) {
            io->alloc_failed = 1;
            return;
        }
        io->arena = a;
        io->arena_cap = cap;
    }
    csd_io_val *v = io_push(io, CSD_IO_V_BYTES);
    if (!v) return;
    if (n) memcpy(io->arena + io->arena_len, p, n);
    v->off = io->arena_len;
    v->len = n;
    io->arena_len += n;
}

void csd_io_val_str(csd_tasklet_io *io, const char *s) {
    if (!s)
        csd_io_val_null(io);
    else
        csd_io_val_bytes(io, s, strlen(s));
}

static int io_pack_scratch(csd_tasklet_io *io, size_t n) {
    if (n <= io->pb_cap) return 0;
    size_t cap = io->pb_cap ? io->pb_cap : 16;
    while (cap < n) cap *= 2;
    void *a = realloc(io->pb_vals, cap * sizeof(Smartssd__V1__Value));
    if (!a) return -ENOMEM;
    io->pb_vals = a;
    void *b = realloc(io->pb_ptrs, cap * sizeof(Smartssd__V1__Value *));
    if (!b) return -ENOMEM;
    io->pb_ptrs = b;
    io->pb_cap = cap;
    return 0;
}

int csd_io_row_end(csd_tasklet_io *io) {
    csd_outbuf *o = io->out, *dst = io->stage ? io->stage : io->out;
    size_t n = io->nvals;
    io->nvals = 0;
    if (io->status) return io->status;
    if (io->alloc_failed) {
        csd_taskio_set_error(io, -ENOMEM, "out of memory building an output row");
        return -ENOMEM;
    }
    if (io->keep) {
        /* a pushed filter: a dropped row is never stored, counted or shipped */
        char err[CSD_IO_ERR_MAX] = "";
        int k = io->keep(io->keep_ctx, io->vals, n, io->arena, &io->cycles, err, sizeof err);
        if (k < 0) {
            csd_taskio_set_error(io, k, "%s", err);
            return k;
        }
        if (!k) {
            dst->filtered++;
            return 0;
        }
    }
    if (o->max_rows && io->rows >= o->max_rows) {
        dst->truncated = io->truncated = 1;
        return CSD_STOP;
    }
    if (io_pack_scratch(io, n ? n : 1)) {
        csd_taskio_set_error(io, -ENOMEM, "out of memory building an output row");
        return -ENOMEM;
    }
    Smartssd__V1__Value *pv = io->pb_vals;
    Smartssd__V1__Value **pp = io->pb_ptrs;
    for (size_t k = 0; k < n; k++) {
        const csd_io_val *v = &io->vals[k];
        Smartssd__V1__Value x = SMARTSSD__V1__VALUE__INIT;
        switch (v->kind) {
        case CSD_IO_V_INT: x.v_case = SMARTSSD__V1__VALUE__V_I; x.i = v->i; break;
        case CSD_IO_V_DOUBLE: x.v_case = SMARTSSD__V1__VALUE__V_D; x.d = v->d; break;
        case CSD_IO_V_BOOL: x.v_case = SMARTSSD__V1__VALUE__V_B; x.b = v->i != 0; break;
        case CSD_IO_V_BYTES:
            x.v_case = SMARTSSD__V1__VALUE__V_S;
            x.s.len = v->len;
            x.s.data = v->len ? io->arena + v->off : NULL;
            break;
        default: x.v_case = SMARTSSD__V1__VALUE__V_IS_NULL; x.is_null = 1; break;
        }
        pv[k] = x;
        pp[k] = &pv[k];
    }
    Smartssd__V1__Row row = SMARTSSD__V1__ROW__INIT;
    row.n_values = n;
    row.values = pp;
    size_t body = smartssd__v1__row__get_packed_size(&row);
    uint8_t hdr[10];
    size_t hl = csd_varint_put(hdr, body);
    if (o->limit_bytes && (io->stage ? !io->room(io->room_ctx, dst->len + hl + body)
                                     : o->len - o->read_pos + hl + body > o->limit_bytes)) {
        csd_taskio_set_error(io, -ENOSPC,
                         "output buffer full (%zu bytes); read results sooner or raise output_buffer_bytes",
                         o->limit_bytes);
        return -ENOSPC;
    }
    if (outbuf_reserve(dst, hl + body)) {
        csd_taskio_set_error(io, -ENOMEM, "out of memory growing the output buffer");
        return -ENOMEM;
    }
    memcpy(dst->data + dst->len, hdr, hl);
    smartssd__v1__row__pack(&row, dst->data + dst->len + hl);
    dst->len += hl + body;
    dst->rows++;
    io->rows++;
    if (o->max_rows && io->rows >= o->max_rows) {
        dst->truncated = io->truncated = 1;
        return CSD_STOP;
    }
    return 0;
}

/* ------------------------------------------------------------------ params */

const char *csd_args_get(const csd_tasklet_args *a, const char *key) {
    if (!a || !key) return NULL;
    for (size_t i = a->n_runtime; i-- > 0;)
        if (a->runtime_params[i].key && !strcmp(a->runtime_params[i].key, key))
            return a->runtime_params[i].value;
    for (size_t i = a->n_static; i-- > 0;)
        if (a->static_params[i].key && !strcmp(a->static_params[i].key, key))
            return a->static_params[i].value;
    return NULL;
}

void csd_args_reject(const csd_tasklet_args *a, const char *key) {
    if (!a || !a->diag || !key || a->diag->param[0]) return;
    snprintf(a->diag->param, sizeof a->diag->param, "%s", key);
}
