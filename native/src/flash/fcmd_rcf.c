/* Flash-command scheduler "rcf": read command first (DRS paper II-B, VI-A 1): any flash read
 * (data or map) before any program, each class in arrival order. */
#include "flash/fcmd_queue.h"

static int rcf_before(const csd_fcmd_sortkey *a, const csd_fcmd_sortkey *b) {
    return a->kind == CSD_FLASH_READ && b->kind != CSD_FLASH_READ;
}

static const csd_fcmd_class rcf_class = { rcf_before, 0, 0, 0 };
CSD_FCMD_DEFINE(rcf, rcf_class)
