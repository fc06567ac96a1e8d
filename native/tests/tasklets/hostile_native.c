/* A hostile native tasklet (built with the SDK's --native) for the stack tests: param `attack`
 *   clash   one 8 MiB frame touched only at its two ends: without the tasklet stack's guard and the
 *           SDK's -fstack-clash-protection it would jump the guard page and write whatever lies below
 *   stack   recurses with 1 KiB frames until the stack runs out (a dense overflow)
 *   none    counts its records (the device still runs it after the others overflowed) */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <smartssd/tasklet.h>

#include "hostile_frames.h"

typedef struct st {
    char attack[16];
    int64_t n;
} st;

static int h_init(void **out, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t n) {
    st *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    const char *v = csd_args_get(a, "attack");
    strncpy(s->attack, v ? v : "", sizeof s->attack - 1);
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = 32;
    *out = s;
    return 0;
}

static int h_record(void *p, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    st *s = p;
    if (!strcmp(s->attack, "clash")) s->n += clash(rec[0]);
    else if (!strcmp(s->attack, "stack")) s->n += frames(0);
    else s->n++;
    return 0;
}

static int h_finish(void *p, csd_tasklet_io *io) {
    st *s = p;
    csd_io_row_begin(io);
    csd_io_val_int(io, s->n);
    int rc = csd_io_row_end(io);
    return rc < 0 ? rc : 0;
}

static void h_destroy(void *p) { free(p); }

static const csd_tasklet_ops ops = { .name = "hostile-native", .init = h_init, .record = h_record,
                                     .finish = h_finish, .destroy = h_destroy };
CSD_TASKLET(ops)
