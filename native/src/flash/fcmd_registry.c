/* The flash-command schedulers, in one list. */
#include "flash/flash.h"
#include "util/registry.h"

extern const csd_fcmd_ops csd_fcmd_fifo, csd_fcmd_rcf, csd_fcmd_size, csd_fcmd_rrf, csd_fcmd_fot, csd_fcmd_drs;

static const csd_fcmd_ops *const fcmd_policies[] = { &csd_fcmd_fifo, &csd_fcmd_rcf, &csd_fcmd_size, &csd_fcmd_rrf, &csd_fcmd_fot, &csd_fcmd_drs };

CSD_REGISTRY(csd_fcmd, csd_fcmd_ops, fcmd_policies)
