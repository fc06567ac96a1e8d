/* The placement policies, in one list. */
#include "ftl/place.h"
#include "util/registry.h"

extern const csd_place_ops csd_place_stripe;
extern const csd_place_ops csd_place_level;
extern const csd_place_ops csd_place_combo;

static const csd_place_ops *const place_policies[] = { &csd_place_stripe, &csd_place_level, &csd_place_combo };

CSD_REGISTRY(csd_place, csd_place_ops, place_policies)
