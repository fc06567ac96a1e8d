/* A user tasklet for the pushed-filter tests: one output row per input line "WORD,N":
 * (word STRING, n BIGINT, score DOUBLE = N / 2, NULL when N is a multiple of 5). Param lie=1 emits n
 * as a DOUBLE, against its declaration. SCHEMA may be defined before including this file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <smartssd/tasklet.h>

#ifndef SCHEMA
#define SCHEMA "word STRING FILTER(= <> IN STARTS_WITH CONTAINS NULL), n BIGINT FILTER(= <> < <= > >= IN), " \
               "score DOUBLE FILTER(> NULL)"
#endif

typedef struct st { int lie; } st;

static int r_init(void **out, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    st *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    const char *lie = csd_args_get(a, "lie");
    s->lie = lie && !strcmp(lie, "1");
    fr->kind = CSD_FRAMING_LINES;
    *out = s;
    return 0;
}

static int r_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t offset) {
    st *s = state;
    const uint8_t *comma = memchr(rec, ',', len);
    if (!comma) return 0;
    char num[32];
    size_t nl = len - (size_t)(comma + 1 - rec);
    if (nl >= sizeof num) nl = sizeof num - 1;
    memcpy(num, comma + 1, nl);
    num[nl] = 0;
    long long n = strtoll(num, NULL, 10);
    csd_io_row_begin(io);
    csd_io_val_bytes(io, rec, (size_t)(comma - rec));
    if (s->lie) csd_io_val_double(io, (double)n);
    else csd_io_val_int(io, n);
    if (n % 5 == 0) csd_io_val_null(io);
    else csd_io_val_double(io, n / 2.0);
    int rc = csd_io_row_end(io);
    return rc < 0 ? rc : rc == CSD_STOP ? CSD_STOP : 0;
}

static void r_destroy(void *state) { free(state); }

static const csd_tasklet_ops ops = {
    .name = "rows",
    .summary = "one row per WORD,N line",
    .init = r_init,
    .record = r_record,
    .destroy = r_destroy,
    .schema = SCHEMA,
};
CSD_TASKLET(ops)
