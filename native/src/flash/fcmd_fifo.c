/* Flash-command scheduler "fifo": every operation goes to its chip's queue the moment it is
 * submitted, so the chips see them in arrival order. */
#include "flash/flash.h"

static int fifo_init(void **state, const csd_params *p, csd_flash *f) {
    *state = f;
    return 0;
}

static void fifo_submit(void *state, csd_flash_op *op, uint64_t now) { csd_flash_dispatch(state, op); }

static void fifo_chip_idle(void *state, uint32_t chip, uint64_t now) {}

static void fifo_destroy(void *state) {}

const csd_fcmd_ops csd_fcmd_fifo = {
    .name = "fifo", .init = fifo_init, .submit = fifo_submit, .chip_idle = fifo_chip_idle,
    .destroy = fifo_destroy,
};
