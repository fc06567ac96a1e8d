/* The flash model with the policies its parameters name (the registries resolve them, so the model
 * itself never depends on the policies that call back into it). */
#include "flash/flash.h"

#include <errno.h>
#include <stdio.h>

int csd_flash_create(csd_flash **out, const csd_params *p, csd_sim *sim, char *err, size_t errlen) {
    *out = NULL;
    const csd_chip_sched_ops *chip = csd_chip_sched_find(p->chip_scheduler);
    const csd_fcmd_ops *fcmd = csd_fcmd_find(p->flash_scheduler);
    if (!chip || !fcmd) {
        snprintf(err, errlen, "flash: unknown %s '%s'", chip ? "flash_scheduler" : "chip_scheduler",
                 chip ? p->flash_scheduler : p->chip_scheduler);
        return -EINVAL;
    }
    return csd_flash_create_with(out, p, sim, chip, fcmd, err, errlen);
}
