/* Every flash operation the FTL performs is counted and reported to the caller's batch, so the timing
 * model replays exactly what the data path did. */
#include "ftl/ftl_int.h"

/* One flash operation in the counters, per region; host: a host page's own read or program. */
static void count_op(csd_ftl *f, int kind, uint64_t ppn, int host) {
    int rg = ftl_ppn_region(f, ppn);
    if (kind == CSD_FLASH_READ) {
        f->c.flash_reads++;
        f->c.region_reads[rg]++;
        if (host) f->c.region_host_reads[rg]++;
    } else if (kind == CSD_FLASH_PROGRAM) {
        f->c.flash_programs++;
        f->c.region_programs[rg]++;
        if (host) f->c.region_host_programs[rg]++;
    } else {
        f->c.flash_erases++;
        f->c.region_erases[rg]++;
    }
}

/* Counters always advance; the batch entry is best effort (a failed allocation loses only a timing
 * record, never data), since the data operation it describes has already happened. */
void ftl_op(csd_ftl *f, csd_flash_batch *ops, int kind, int gc, uint64_t ppn) {
    count_op(f, kind, ppn, !gc);
    if (!ops) return;
    /* an FTL with a map cache labels data operations with the page they serve; GC's stand alone */
    csd_flash_req r = { .kind = (uint8_t)kind, .gc = (uint8_t)(gc != 0), .ppn = ppn };
    if (!gc && f->hidden_id) {
        r.role = CSD_ROLE_DATA;
        r.set = f->op_set;
        if (f->op_wait && f->op_wait_set == f->op_set) {
            r.wait = f->op_wait;
            r.wait_kind = f->op_wait_kind;
            f->op_wait = 0;
        }
    }
    (void)csd_flash_batch_add_req(ops, &r);
}

/* Map traffic (a map-cached FTL's own reads and programs of map pages): counted, never as host I/O. */
void ftl_op_req(csd_ftl *f, csd_flash_batch *ops, const csd_flash_req *r) {
    count_op(f, r->kind, r->ppn, 0);
    if (ops) (void)csd_flash_batch_add_req(ops, r);
}

int csd_ftl_map_cached(const csd_ftl *f) { return f->hidden_id != 0; }

int csd_ftl_map_check(csd_ftl *f, char *err, size_t errlen) {
    return f->map->check ? f->map->check(f->map_state, f, err, errlen) : 0;
}
