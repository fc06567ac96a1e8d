/* stats: per-column statistics of fixed-size records of little-endian int32 values (the INSIDER
 * "statistics" application the REMUS paper uses as STAT, its ref. [28]). Params: record_bytes (a
 * multiple of 4, default 16 = 4 columns). Emits one row per column: (column, count, min, max, sum).
 * Cost: 3 cycles per value (two compares and an add) plus the per-record loop; no DRAM access is
 * charged beyond the page the runtime already holds (values are read sequentially). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasklets/tasklets_int.h"

#define STATS_CYCLES_PER_VALUE 3

typedef struct stats {
    uint32_t cols;
    uint64_t count;
    int64_t *min, *max, *sum;
} stats;

static void stats_destroy(void *state) {
    stats *s = state;
    if (!s) return;
    free(s->min);
    free(s->max);
    free(s->sum);
    free(s);
}

static int stats_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    uint64_t rb;
    if (csd_tk_param_u64(a, "record_bytes", 16, 4, 4096, &rb, err, errlen)) return -EINVAL;
    if (rb % 4) {
        csd_args_reject(a, "record_bytes");
        snprintf(err, errlen, "stats: record_bytes must be a multiple of 4 (int32 columns), got %llu",
                 (unsigned long long)rb);
        return -EINVAL;
    }
    stats *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->cols = (uint32_t)(rb / 4);
    s->min = malloc(s->cols * sizeof *s->min);
    s->max = malloc(s->cols * sizeof *s->max);
    s->sum = calloc(s->cols, sizeof *s->sum);
    if (!s->min || !s->max || !s->sum) {
        stats_destroy(s);
        return -ENOMEM;
    }
    for (uint32_t c = 0; c < s->cols; c++) {
        s->min[c] = INT32_MAX;
        s->max[c] = INT32_MIN;
    }
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = (uint32_t)rb;
    *state = s;
    return 0;
}

static int stats_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    (void)off;
    stats *s = state;
    for (uint32_t c = 0; c < s->cols && (c + 1) * 4 <= len; c++) {
        uint32_t u = (uint32_t)rec[4 * c] | (uint32_t)rec[4 * c + 1] << 8 | (uint32_t)rec[4 * c + 2] << 16 |
                     (uint32_t)rec[4 * c + 3] << 24;
        int64_t v = (int32_t)u;
        if (v < s->min[c]) s->min[c] = v;
        if (v > s->max[c]) s->max[c] = v;
        s->sum[c] += v;
    }
    s->count++;
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD + (uint64_t)s->cols * STATS_CYCLES_PER_VALUE, 0);
    return 0;
}

static int stats_finish(void *state, csd_tasklet_io *io) {
    stats *s = state;
    for (uint32_t c = 0; c < s->cols; c++) {
        csd_io_row_begin(io);
        csd_io_val_int(io, c);
        csd_io_val_int(io, (int64_t)s->count);
        if (s->count) {
            csd_io_val_int(io, s->min[c]);
            csd_io_val_int(io, s->max[c]);
            csd_io_val_int(io, s->sum[c]);
        } else {
            csd_io_val_null(io);
            csd_io_val_null(io);
            csd_io_val_int(io, 0);
        }
        csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
        int rc = csd_io_row_end(io);
        if (rc < 0) return rc;
        if (rc == CSD_STOP) break;
    }
    return 0;
}

static const csd_tasklet_ops csd_tasklet_stats = {
    .name = "stats",
    .summary = "per-column count/min/max/sum of int32 records (REMUS paper's STAT)",
    .init = stats_init, .record = stats_record, .finish = stats_finish, .destroy = stats_destroy,
};

const csd_builtin csd_builtin_stats = { &csd_tasklet_stats, NULL };
