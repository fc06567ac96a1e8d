/* A list of flash operations, for the timing model to replay in order. */
#include "flash/flash.h"

#include <errno.h>
#include <stdlib.h>

void csd_flash_batch_clear(csd_flash_batch *b) { b->n = 0; }

void csd_flash_batch_free(csd_flash_batch *b) {
    free(b->ops);
    b->ops = NULL;
    b->n = b->cap = 0;
}

int csd_flash_batch_add(csd_flash_batch *b, uint8_t kind, int gc, uint64_t ppn) {
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        csd_flash_req *n = realloc(b->ops, cap * sizeof *n);
        if (!n) return -ENOMEM;
        b->ops = n;
        b->cap = cap;
    }
    b->ops[b->n++] = (csd_flash_req){ .kind = kind, .gc = (uint8_t)(gc != 0), .ppn = ppn };
    return 0;
}

int csd_flash_batch_add_req(csd_flash_batch *b, const csd_flash_req *r) {
    int rc = csd_flash_batch_add(b, r->kind, r->gc, r->ppn);
    if (!rc) b->ops[b->n - 1] = *r;
    return rc;
}

int csd_req_info_better(const csd_req_info *a, const csd_req_info *b) {
    if (a->type != b->type) {
        if (a->type == CSD_REQ_READ) return 1;
        if (b->type == CSD_REQ_READ) return 0;
        if (b->type == CSD_REQ_NONE) return a->type != CSD_REQ_NONE;
        if (a->type == CSD_REQ_NONE) return 0;
    }
    return a->fot_ns < b->fot_ns;
}
