/* dram-scan: the Smart SSD paper's DRAM micro-benchmark (section V-B-2, Fig. 6). For each page it
 * makes `accesses` DRAM accesses, each reading one 4-byte integer (evenly spaced over the page) and
 * comparing it with `key`; with 32 accesses it reads 128 bytes of an 8 KB page. It emits one row:
 * (matches INT64, accesses INT64). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasklets/tasklets_int.h"

typedef struct dram_scan {
    uint64_t accesses;      /* per page */
    uint32_t key;
    uint32_t page_bytes;
    uint64_t matches, total;
} dram_scan;

static int ds_init(void **state, const csd_tasklet_args *a, csd_framing *framing, char *err, size_t errlen) {
    uint64_t acc, key;
    uint64_t max = a->page_bytes / 4;
    if (csd_tk_param_u64(a, "accesses", 32, 1, max, &acc, err, errlen)) return -EINVAL;
    if (csd_tk_param_u64(a, "key", 0, 0, UINT32_MAX, &key, err, errlen)) return -EINVAL;
    dram_scan *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->accesses = acc;
    s->key = (uint32_t)key;
    s->page_bytes = a->page_bytes;
    /* One record per page: the runtime hands each page to record() whole. */
    framing->kind = CSD_FRAMING_RECORDS;
    framing->record_bytes = a->page_bytes;
    *state = s;
    return 0;
}

static int ds_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    dram_scan *s = state;
    uint64_t stride = (len / 4) / s->accesses;
    if (stride == 0) stride = 1;
    uint64_t n = 0;
    for (uint64_t i = 0; i < s->accesses && (i * stride + 1) * 4 <= len; i++) {
        uint32_t v;
        memcpy(&v, rec + i * stride * 4, 4);
        s->matches += v == s->key;
        n++;
    }
    s->total += n;
    csd_io_charge(io, n * CSD_TK_CYCLES_PER_COMPARE, n);
    return 0;
}

static int ds_finish(void *state, csd_tasklet_io *io) {
    dram_scan *s = state;
    csd_io_row_begin(io);
    csd_io_val_int(io, (int64_t)s->matches);
    csd_io_val_int(io, (int64_t)s->total);
    int rc = csd_io_row_end(io);
    return rc < 0 ? rc : 0;
}

static void ds_destroy(void *state) { free(state); }

static const csd_tasklet_ops csd_tasklet_dram_scan = {
    .name = "dram-scan",
    .summary = "DRAM micro-benchmark (paper V-B-2): `accesses` 4-byte reads + compares per page",
    .init = ds_init,
    .record = ds_record,
    .finish = ds_finish,
    .destroy = ds_destroy,
};

const csd_builtin csd_builtin_dram_scan = { &csd_tasklet_dram_scan, NULL };
