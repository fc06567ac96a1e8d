/* A native tasklet whose ops carry the tag of a later, larger csd_tasklet_ops: the device must refuse
 * it by name (test_user_tasklets), reading no more than its own struct. */
#include <errno.h>

#include <smartssd/tasklet.h>

static int n_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    return -EINVAL;
}

static int n_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t offset) { return 0; }

static struct {
    csd_tasklet_ops ops;
    void *later;   /* a field this device does not know */
} newer = { { .name = "newer", .init = n_init, .record = n_record }, 0 };

__attribute__((visibility("default"))) const csd_tasklet_ops *csd_tasklet_entry(void) {
    newer.ops.abi = ((uint64_t)CSD_TASKLET_ABI_MAGIC << 32) | sizeof newer;
    return &newer.ops;
}
