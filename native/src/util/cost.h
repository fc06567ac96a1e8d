/* Work done on an embedded core, as the cost model counts it (docs/TIMING-MODEL.md): cycles at
 * core_mhz plus DRAM accesses at dram_access_ns each. */
#ifndef CSD_UTIL_COST_H
#define CSD_UTIL_COST_H

#include <stdint.h>

typedef struct csd_cost {
    uint64_t cycles;
    uint64_t dram_accesses;
} csd_cost;

#endif
