/* placeholder until the real tasklet lands */
#include <errno.h>
#include <stdio.h>
#include "tasklets/tasklets_int.h"
static int stub_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err, size_t errlen) {
    snprintf(err, errlen, "tasklet 'plan' is not implemented yet");
    return -ENOSYS;
}
static int stub_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t offset) { return 0; }
const csd_tasklet_ops csd_tasklet_plan = { .name = "plan", .summary = "not implemented yet", .init = stub_init, .record = stub_record };
