/* The mapping policies, in one list. */
#include "ftl/map.h"
#include "util/registry.h"

extern const csd_map_ops csd_map_page, csd_map_dftl;

static const csd_map_ops *const map_policies[] = { &csd_map_page, &csd_map_dftl };

CSD_REGISTRY(csd_map, csd_map_ops, map_policies)
