/* WorldCup98 web-log queries (Smart SSD paper, section V-C):
 *   weblog-q1: accesses per region (one field per record: the server byte);
 *   weblog-q2: accesses per (region, file type) and the top-N types per region (two fields).
 * Records: 20 bytes big-endian (timestamp, clientID, objectID, size: u32; method, status, type,
 * server: u8), padded to entry_bytes. Both emit partial counts: summing the rows of several extents
 * gives the whole-object counts (q2's ranks are recomputed by whoever merges). */
#include <errno.h>
#include <stdlib.h>

#include "tasklets/tasklets_int.h"

#define WC_REGIONS 8
#define WC_TYPES 13            /* 0..11 named, 12 = every other type byte */
#define WC_OFF_TYPE 18
#define WC_OFF_SERVER 19

static const char *const region_names[WC_REGIONS] = {
    "Santa Clara", "Plano", "Herndon", "Paris", "region-4", "region-5", "region-6", "region-7",
};

static const char *const type_names[WC_TYPES] = {
    "HTML", "IMAGE", "AUDIO", "VIDEO", "JAVA", "FORMATTED", "DYNAMIC", "TEXT", "COMPRESSED",
    "PROGRAMS", "DIRECTORY", "ICL", "OTHER",
};

typedef struct weblog {
    uint32_t top_n;
    uint32_t entry_bytes;
    uint64_t counts[WC_REGIONS][WC_TYPES];   /* q1 uses column 0 only */
} weblog;

static int weblog_init_common(void **state, const csd_tasklet_args *args, csd_framing *framing,
                              int with_top_n, char *err, size_t errlen) {
    uint64_t entry, top_n = 3;
    int rc = csd_tk_param_u64(args, "entry_bytes", 20, 20, 65536, &entry, err, errlen);
    if (rc) return rc;
    if (with_top_n && (rc = csd_tk_param_u64(args, "top_n", 3, 1, WC_TYPES, &top_n, err, errlen)))
        return rc;
    weblog *w = calloc(1, sizeof *w);
    if (!w) return -ENOMEM;
    w->top_n = (uint32_t)top_n;
    w->entry_bytes = (uint32_t)entry;
    framing->kind = CSD_FRAMING_RECORDS;
    framing->record_bytes = (uint32_t)entry;
    *state = w;
    return 0;
}

static int q1_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err,
                   size_t errlen) {
    return weblog_init_common(state, args, framing, 0, err, errlen);
}

static int q2_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err,
                   size_t errlen) {
    return weblog_init_common(state, args, framing, 1, err, errlen);
}

static int q1_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    weblog *w = state;
    w->counts[rec[WC_OFF_SERVER] >> 5][0]++;
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD, 1);
    return 0;
}

static int q2_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    weblog *w = state;
    uint8_t type = rec[WC_OFF_TYPE];
    w->counts[rec[WC_OFF_SERVER] >> 5][type < WC_TYPES - 1 ? type : WC_TYPES - 1]++;
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD, 2);
    return 0;
}

/* A run of n whole records at p (the runtime's records hook): the same counts and the same charge as
 * n record() calls, without a call per record. */
static int q1_records(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t off) {
    weblog *w = state;
    size_t R = w->entry_bytes;
    uint64_t c[WC_REGIONS] = { 0 };
    for (size_t k = 0; k < n; k++) c[p[k * R + WC_OFF_SERVER] >> 5]++;
    for (int r = 0; r < WC_REGIONS; r++) w->counts[r][0] += c[r];
    csd_io_charge(io, (uint64_t)n * CSD_TK_CYCLES_PER_RECORD, n);
    (void)off;
    return 0;
}

static int q2_records(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t off) {
    weblog *w = state;
    size_t R = w->entry_bytes;
    for (size_t k = 0; k < n; k++) {
        const uint8_t *rec = p + k * R;
        uint8_t type = rec[WC_OFF_TYPE];
        w->counts[rec[WC_OFF_SERVER] >> 5][type < WC_TYPES - 1 ? type : WC_TYPES - 1]++;
    }
    csd_io_charge(io, (uint64_t)n * CSD_TK_CYCLES_PER_RECORD, 2 * (uint64_t)n);
    (void)off;
    return 0;
}

static int emit_rc(int rc) { return rc < 0 ? rc : 0; }   /* CSD_STOP in finish: just stop emitting */

static int q1_finish(void *state, csd_tasklet_io *io) {
    weblog *w = state;
    for (int r = 0; r < WC_REGIONS; r++) {
        if (!w->counts[r][0]) continue;
        csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
        csd_io_row_begin(io);
        csd_io_val_str(io, region_names[r]);
        csd_io_val_int(io, (int64_t)w->counts[r][0]);
        int rc = csd_io_row_end(io);
        if (rc) return emit_rc(rc);
    }
    return 0;
}

static int q2_finish(void *state, csd_tasklet_io *io) {
    weblog *w = state;
    for (int r = 0; r < WC_REGIONS; r++) {
        /* insertion sort of the type indexes by (count desc, type asc); its compares are the cost */
        int order[WC_TYPES];
        uint64_t compares = 0;
        for (int t = 0; t < WC_TYPES; t++) {
            int j = t;
            while (j > 0) {
                compares++;
                int p = order[j - 1];
                if (w->counts[r][p] >= w->counts[r][t]) break;
                order[j] = p;
                j--;
            }
            order[j] = t;
        }
        csd_io_charge(io, compares * CSD_TK_CYCLES_PER_COMPARE, WC_TYPES);
        int rank_of[WC_TYPES] = {0};
        for (uint32_t k = 0; k < w->top_n; k++)
            if (w->counts[r][order[k]]) rank_of[order[k]] = (int)k + 1;
        /* ranked types first, by rank; then the rest by type */
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < WC_TYPES; k++) {
                int t = pass == 0 ? order[k] : k;
                if (!w->counts[r][t] || (pass == 0) != (rank_of[t] > 0)) continue;
                csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
                csd_io_row_begin(io);
                csd_io_val_str(io, region_names[r]);
                csd_io_val_str(io, type_names[t]);
                csd_io_val_int(io, (int64_t)w->counts[r][t]);
                csd_io_val_int(io, rank_of[t]);
                int rc = csd_io_row_end(io);
                if (rc) return emit_rc(rc);
            }
        }
    }
    return 0;
}

static void weblog_destroy(void *state) { free(state); }

static const csd_exec_hooks csd_tasklet_weblog_q1_hooks = { .records = q1_records };
static const csd_exec_hooks csd_tasklet_weblog_q2_hooks = { .records = q2_records };

static const csd_tasklet_ops csd_tasklet_weblog_q1 = {
    .name = "weblog-q1",
    .summary = "WorldCup98 log: accesses per region (params: entry_bytes)",
    .init = q1_init,
    .record = q1_record,
    .finish = q1_finish,
    .destroy = weblog_destroy,
};

static const csd_tasklet_ops csd_tasklet_weblog_q2 = {
    .name = "weblog-q2",
    .summary = "WorldCup98 log: accesses per region and file type, top-N types per region "
               "(params: entry_bytes, top_n)",
    .init = q2_init,
    .record = q2_record,
    .finish = q2_finish,
    .destroy = weblog_destroy,
};

const csd_builtin csd_builtin_weblog_q1 = { &csd_tasklet_weblog_q1, &csd_tasklet_weblog_q1_hooks };
const csd_builtin csd_builtin_weblog_q2 = { &csd_tasklet_weblog_q2, &csd_tasklet_weblog_q2_hooks };
