/* Mapping policy "page": the whole page-level map lives in device DRAM, so a translation or an update
 * costs no flash operation (the Smart SSD paper's device, and the baseline of map-cached FTLs). */
#include "ftl/map.h"

static int page_init(void **state, csd_ftl *f) {
    *state = NULL;
    return 0;
}

static int page_lookup(void *state, csd_ftl *f, uint64_t obj, uint64_t idx, csd_flash_batch *ops) { return 0; }

static int page_update(void *state, csd_ftl *f, uint64_t obj, uint64_t idx, csd_flash_batch *ops) { return 0; }

static int page_flush(void *state, csd_ftl *f, csd_flash_batch *ops) { return 0; }

static void page_destroy(void *state) {}

const csd_map_ops csd_map_page = {
    .name = "page", .init = page_init, .lookup = page_lookup, .update = page_update, .flush = page_flush,
    .destroy = page_destroy,
};
