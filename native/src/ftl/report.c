/* Every flash operation the FTL performs is counted and reported to the caller's batch, so the timing
 * model replays exactly what the data path did. */
#include "ftl/ftl_int.h"

/* Counters always advance; the batch entry is best effort (a failed allocation loses only a timing
 * record, never data), since the data operation it describes has already happened. */
void ftl_op(csd_ftl *f, csd_flash_batch *ops, int kind, int gc, uint64_t ppn) {
    int r = ftl_ppn_region(f, ppn);
    if (kind == CSD_FLASH_READ) {
        f->c.flash_reads++;
        f->c.region_reads[r]++;
        if (!gc) f->c.region_host_reads[r]++;
    } else if (kind == CSD_FLASH_PROGRAM) {
        f->c.flash_programs++;
        f->c.region_programs[r]++;
        if (!gc) f->c.region_host_programs[r]++;
    } else {
        f->c.flash_erases++;
        f->c.region_erases[r]++;
    }
    if (ops) (void)csd_flash_batch_add(ops, (uint8_t)kind, gc, ppn);
}
