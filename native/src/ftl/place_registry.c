/* The placement policies, in one list. */
#include "ftl/place.h"
#include "util/registry.h"

extern const csd_place_ops csd_place_stripe;

static const csd_place_ops *const place_policies[] = { &csd_place_stripe };

CSD_REGISTRY(csd_place, csd_place_ops, place_policies)
