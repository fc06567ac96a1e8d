/* Flash-command scheduler "size": RCF, and among reads the one from the smaller request first (DRS
 * paper VI-A 2, after Xie et al.); it does not look at command sets or request types. */
#include "flash/fcmd_queue.h"

static int size_before(const csd_fcmd_sortkey *a, const csd_fcmd_sortkey *b) {
    int ra = a->kind == CSD_FLASH_READ, rb = b->kind == CSD_FLASH_READ;
    if (ra != rb) return ra;
    return ra && a->req_pages < b->req_pages;
}

static const csd_fcmd_class size_class = { size_before, 0, 0, 0 };
CSD_FCMD_DEFINE(size, size_class)
