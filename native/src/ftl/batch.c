/* The list of flash operations an FTL call performed, for the timing model to replay. */
#include "ftl/ftl_int.h"

#include <stdlib.h>

void csd_flash_batch_clear(csd_flash_batch *b) { b->n = 0; }

void csd_flash_batch_free(csd_flash_batch *b) {
    free(b->ops);
    b->ops = NULL;
    b->n = b->cap = 0;
}

/* Counters always advance; the batch entry is best effort (a failed allocation loses only a timing
 * record, never data), since the data operation it describes has already happened. */
void ftl_op(csd_ftl *f, csd_flash_batch *ops, int kind, int gc, uint64_t ppn) {
    if (kind == CSD_FLASH_READ) f->c.flash_reads++;
    else if (kind == CSD_FLASH_PROGRAM) f->c.flash_programs++;
    else f->c.flash_erases++;
    if (!ops) return;
    if (ops->n == ops->cap) {
        size_t cap = ops->cap ? ops->cap * 2 : 64;
        csd_flash_req *n = realloc(ops->ops, cap * sizeof *n);
        if (!n) return;
        ops->ops = n;
        ops->cap = cap;
    }
    ops->ops[ops->n++] = (csd_flash_req){ .kind = (uint8_t)kind, .gc = (uint8_t)(gc != 0), .ppn = ppn };
}
