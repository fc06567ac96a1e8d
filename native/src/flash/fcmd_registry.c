/* The flash-command schedulers, in one list. */
#include "flash/flash.h"
#include "util/registry.h"

extern const csd_fcmd_ops csd_fcmd_fifo;

static const csd_fcmd_ops *const fcmd_policies[] = { &csd_fcmd_fifo };

CSD_REGISTRY(csd_fcmd, csd_fcmd_ops, fcmd_policies)
