/* knn: the k nearest neighbours of a query point among fixed-size records of little-endian float32
 * coordinates (the REMUS paper's KNN, its ref. [23]). Params: dims (default 16), k (default 10),
 * query (comma-separated dims values, default the origin). Emits k rows (offset, squared distance),
 * nearest first. Cost: 12 cycles per dimension (a software float subtract, multiply and add on a
 * core without a vector unit) plus the loop and, for a record that enters the top k, the insert. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasklets/tasklets_int.h"

#define KNN_CYCLES_PER_DIM 12
#define KNN_MAX_DIMS 1024
#define KNN_MAX_K 1024

typedef struct knn {
    uint32_t dims, k, n;
    float *query;
    double *dist;            /* the best n <= k, ascending */
    uint64_t *off;
} knn;

static void knn_destroy(void *state) {
    knn *s = state;
    if (!s) return;
    free(s->query);
    free(s->dist);
    free(s->off);
    free(s);
}

static int knn_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    uint64_t dims, k;
    if (csd_tk_param_u64(a, "dims", 16, 1, KNN_MAX_DIMS, &dims, err, errlen) ||
        csd_tk_param_u64(a, "k", 10, 1, KNN_MAX_K, &k, err, errlen))
        return -EINVAL;
    knn *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->dims = (uint32_t)dims;
    s->k = (uint32_t)k;
    s->query = calloc(dims, sizeof *s->query);
    s->dist = malloc(k * sizeof *s->dist);
    s->off = malloc(k * sizeof *s->off);
    if (!s->query || !s->dist || !s->off) {
        knn_destroy(s);
        return -ENOMEM;
    }
    const char *q = csd_args_get(a, "query");
    for (uint32_t d = 0; q && *q; d++) {
        char *end;
        double v = strtod(q, &end);
        if (end == q || d >= dims || (*end && *end != ',')) {
            csd_args_reject(a, "query");
            snprintf(err, errlen, "knn: query must be up to %u comma-separated numbers", (unsigned)dims);
            knn_destroy(s);
            return -EINVAL;
        }
        s->query[d] = (float)v;
        q = *end ? end + 1 : end;
    }
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = (uint32_t)(dims * 4);
    *state = s;
    return 0;
}

static int knn_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    knn *s = state;
    double d2 = 0;
    for (uint32_t d = 0; d < s->dims && (d + 1) * 4 <= len; d++) {
        float v;
        memcpy(&v, rec + 4 * d, 4);
        double x = (double)v - s->query[d];
        d2 += x * x;
    }
    uint64_t cycles = CSD_TK_CYCLES_PER_RECORD + (uint64_t)s->dims * KNN_CYCLES_PER_DIM;
    if (s->n < s->k || d2 < s->dist[s->n - 1]) {
        uint32_t i = s->n < s->k ? s->n++ : s->k - 1;
        while (i > 0 && s->dist[i - 1] > d2) {   /* insertion keeps ties in input order */
            s->dist[i] = s->dist[i - 1];
            s->off[i] = s->off[i - 1];
            i--;
            cycles += CSD_TK_CYCLES_PER_COMPARE;
        }
        s->dist[i] = d2;
        s->off[i] = off;
    }
    csd_io_charge(io, cycles, 0);
    return 0;
}

static int knn_finish(void *state, csd_tasklet_io *io) {
    knn *s = state;
    for (uint32_t i = 0; i < s->n; i++) {
        csd_io_row_begin(io);
        csd_io_val_int(io, (int64_t)s->off[i]);
        csd_io_val_double(io, s->dist[i]);
        csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
        int rc = csd_io_row_end(io);
        if (rc < 0) return rc;
        if (rc == CSD_STOP) break;
    }
    return 0;
}

static const csd_tasklet_ops csd_tasklet_knn = {
    .name = "knn",
    .summary = "k nearest neighbours of a query among float32 records (REMUS paper's KNN)",
    .init = knn_init, .record = knn_record, .finish = knn_finish, .destroy = knn_destroy,
};

const csd_builtin csd_builtin_knn = { &csd_tasklet_knn, NULL };
