/* REMUS workload assignment, equations (4) and (5) of Huang et al. (section III-B). */
#include "sched/assign.h"

uint32_t csd_assign_chip(uint64_t lba_bytes, uint32_t planes, uint32_t page_bytes, uint32_t chips) {
    uint64_t stripe = (uint64_t)(planes ? planes : 1) * (page_bytes ? page_bytes : 1);
    return chips ? (uint32_t)((lba_bytes / stripe) % chips) : 0;
}

uint32_t csd_assign_core(uint32_t chip, uint32_t cores) { return cores ? chip % cores : 0; }

uint32_t csd_assign_subreq_pages(uint64_t lba_page, uint32_t planes) {
    return planes > 1 && lba_page % planes == 0 ? planes : 1;
}
