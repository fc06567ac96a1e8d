/* The chip-queue policies, in one list. */
#include "flash/flash.h"
#include "util/registry.h"

extern const csd_chip_sched_ops csd_chip_sched_fcfs;

static const csd_chip_sched_ops *const chip_policies[] = { &csd_chip_sched_fcfs };

CSD_REGISTRY(csd_chip_sched, csd_chip_sched_ops, chip_policies)
