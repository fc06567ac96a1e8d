/* The web-log analysis's first query (Smart SSD paper V-C) written as a user tasklet: accesses per
 * region of WorldCup98 records. It answers exactly as the built-in weblog-q1 does: one row
 * (region STRING, count INT64) per region with a count, in region order; counts are partial per
 * extent. Its schema declares both columns filterable (docs/USER-TASKLETS.md, "Declaring filterable
 * columns"). The device charges it by what it runs (docs/USER-TASKLETS.md, "Cost"), so it calls no
 * csd_io_charge of its own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <smartssd/tasklet.h>

#define REGIONS 8
#define OFF_SERVER 19      /* server byte: bits 7-5 region */

static const char *const region_names[REGIONS] = {
    "Santa Clara", "Plano", "Herndon", "Paris", "region-4", "region-5", "region-6", "region-7",
};

typedef struct q1 {
    uint64_t counts[REGIONS];
} q1;

static int q1_init(void **state, const csd_tasklet_args *args, csd_framing *fr, char *err, size_t errlen) {
    const char *v = csd_args_get(args, "entry_bytes");
    unsigned long entry = 20;
    if (v) {
        char *end;
        entry = strtoul(v, &end, 10);
        if (!*v || *end || entry < 20 || entry > 65536) {
            snprintf(err, errlen, "param entry_bytes: '%s' is out of range [20, 65536]", v);
            csd_args_reject(args, "entry_bytes");
            return -EINVAL;
        }
    }
    q1 *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = (uint32_t)entry;
    *state = s;
    return 0;
}

static int q1_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    q1 *s = state;
    s->counts[rec[OFF_SERVER] >> 5]++;
    return 0;
}

static int q1_finish(void *state, csd_tasklet_io *io) {
    q1 *s = state;
    for (int r = 0; r < REGIONS; r++) {
        if (!s->counts[r]) continue;
        csd_io_row_begin(io);
        csd_io_val_str(io, region_names[r]);
        csd_io_val_int(io, (int64_t)s->counts[r]);
        int rc = csd_io_row_end(io);
        if (rc < 0) return rc;
        if (rc == CSD_STOP) break;
    }
    return 0;
}

static void q1_destroy(void *state) { free(state); }

static const csd_tasklet_ops ops = {
    .name = "weblog-q1-user",
    .summary = "accesses per region of WorldCup98 records (the built-in weblog-q1, as a user tasklet)",
    .init = q1_init,
    .record = q1_record,
    .finish = q1_finish,
    .destroy = q1_destroy,
    /* its rows, and the filters the device may apply to them before they are shipped (a host that
     * asks for one region, or for the large counts, then receives only those rows) */
    .schema = "region STRING FILTER(= <> IN STARTS_WITH NULL), count BIGINT FILTER(= <> < <= > >=)",
};
CSD_TASKLET(ops)
