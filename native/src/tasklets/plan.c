/* The "plan" tasklet: a declarative query (smartssd.v1.Plan) over fixed-size binary records or
 * delimited text, the target of Spark pushdown. Per record: filter (a row passes only when TRUE),
 * then project and emit, or buffer for ORDER BY, or update its group's partial aggregates.
 * Without aggregates or ORDER BY, a limit stops the input early. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tasklets/plan_int.h"
#include "tasklets/tasklets_int.h"

static int plan_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err,
                     size_t errlen) {
    uint64_t max_mem;
    int rc = csd_tk_param_u64(args, "max_state_bytes", PLAN_MAX_STATE_BYTES, 4096, (uint64_t)1 << 40, &max_mem,
                              err, errlen);
    if (rc) return rc;
    plan *pl = malloc(sizeof *pl);
    if (!pl) return -ENOMEM;
    rc = csd_plan_compile(pl, args->plan, args->plan_len, err, errlen);
    if (rc) {
        csd_plan_free(pl);
        free(pl);
        return rc;
    }
    if (pl->parquet) {
        framing->kind = CSD_FRAMING_BYTES;
        framing->record_bytes = 0;
        framing->skip_header = 0;
    } else if (pl->text) {
        framing->kind = CSD_FRAMING_LINES;
        framing->record_bytes = 0;
        framing->skip_header = pl->skip_header;
    } else {
        framing->kind = CSD_FRAMING_RECORDS;
        framing->record_bytes = pl->entry_bytes;
        framing->skip_header = 0;
    }
    pl->max_mem = (size_t)max_mem;
    if (pl->parquet && (rc = csd_plan_parquet_prepare(pl, err, errlen))) {
        csd_plan_parquet_free(pl);
        csd_plan_free(pl);
        free(pl);
        return rc;
    }
    *state = pl;
    return 0;
}

static int plan_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    plan *pl = state;
    pl->io = io;
    if (pl->failed) return pl->fail_rc ? pl->fail_rc : -ECANCELED;
    pl->dram = pl->nodes_evaluated = 0;
    int rc;
    if (pl->parquet) {
        rc = csd_plan_parquet_bytes(pl, rec, len, off);
        goto out;
    }
    rc = csd_plan_begin_record(pl, rec, len);
    if (rc) goto out;
    if (pl->filter >= 0) {
        pv f;
        rc = csd_plan_eval(pl, pl->filter, &f);
        if (rc || f.t != PT_BOOL || !f.b) goto out;
    }
    if (pl->aggregating) {
        rc = csd_plan_group_update(pl);
        goto out;
    }
    for (uint32_t i = 0; i < pl->n_outs && !rc; i++) rc = csd_plan_eval(pl, pl->outs[i], &pl->scratch[i]);
    if (rc) goto out;
    if (pl->n_order) {
        rc = csd_plan_buffer_row(pl);
        goto out;
    }
    rc = csd_plan_emit(pl, pl->scratch, pl->n_outs);
    if (rc == 0 && pl->limit && ++pl->emitted >= pl->limit) rc = CSD_STOP;
out:
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD + pl->nodes_evaluated * CSD_TK_CYCLES_PER_NODE + pl->compares * CSD_TK_CYCLES_PER_COMPARE,
                  pl->dram);
    pl->compares = 0;
    if (rc < 0) {
        pl->failed = 1;
        if (pl->fail_rc) rc = pl->fail_rc;
    }
    return rc;
}

static int plan_finish(void *state, csd_tasklet_io *io) {
    plan *pl = state;
    pl->io = io;
    if (pl->failed) return pl->fail_rc ? pl->fail_rc : -ECANCELED;
    pl->nodes_evaluated = pl->dram = 0;
    int rc = 0;
    if (pl->parquet) {
        rc = csd_plan_parquet_finish(pl);
        if (rc < 0) {
            pl->failed = 1;
            if (pl->fail_rc) rc = pl->fail_rc;
            return rc;
        }
        pl->nodes_evaluated = pl->dram = 0;
    }
    if (pl->aggregating) rc = csd_plan_finish_groups(pl);
    else if (pl->n_order) rc = csd_plan_finish_rows(pl);
    csd_io_charge(io, pl->nodes_evaluated * CSD_TK_CYCLES_PER_NODE + pl->compares * CSD_TK_CYCLES_PER_COMPARE, 0);
    pl->compares = 0;
    if (rc < 0 && pl->fail_rc) rc = pl->fail_rc;
    return rc < 0 ? rc : 0;
}

static void plan_destroy(void *state) {
    plan *pl = state;
    if (!pl) return;
    csd_plan_parquet_free(pl);
    csd_plan_free(pl);
    free(pl);
}

static int plan_need_page(void *state, uint64_t page_index, uint32_t page_bytes) {
    return csd_plan_parquet_need_page(state, page_index, page_bytes);
}

const csd_tasklet_ops csd_tasklet_plan = {
    .name = "plan",
    .summary = "declarative query (smartssd.v1.Plan): filter, project, group-by aggregates, top-N, limit "
               "over fixed records, delimited text or Parquet objects",
    .init = plan_init,
    .record = plan_record,
    .finish = plan_finish,
    .destroy = plan_destroy,
    .need_page = plan_need_page,
};
