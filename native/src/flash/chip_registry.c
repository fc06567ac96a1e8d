/* The chip-queue policies, in one list. */
#include "flash/flash.h"
#include "util/registry.h"

extern const csd_chip_sched_ops csd_chip_sched_fcfs;
/* ISP-aware scheduling (2PM paper IV) and the paper's baselines */
extern const csd_chip_sched_ops csd_chip_sched_2pm, csd_chip_sched_2pm_plus, csd_chip_sched_2pm_sl,
    csd_chip_sched_2pm_as, csd_chip_sched_paq,
    csd_chip_sched_readfirst, csd_chip_sched_slacker, csd_chip_sched_cars, csd_chip_sched_flin,
    csd_chip_sched_flin_src;

static const csd_chip_sched_ops *const chip_policies[] = {
    &csd_chip_sched_fcfs, &csd_chip_sched_2pm, &csd_chip_sched_2pm_plus, &csd_chip_sched_2pm_sl,
    &csd_chip_sched_2pm_as, &csd_chip_sched_paq,
    &csd_chip_sched_readfirst, &csd_chip_sched_slacker, &csd_chip_sched_cars, &csd_chip_sched_flin,
    &csd_chip_sched_flin_src,
};

CSD_REGISTRY(csd_chip_sched, csd_chip_sched_ops, chip_policies)
