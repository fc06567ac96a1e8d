/* Imports a function the device does not provide: refused at install. */
#include <smartssd/tasklet.h>

__attribute__((import_module("env"), import_name("open_device_memory"))) int open_device_memory(int);

static int m_init(void **out, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t n) {
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = open_device_memory(1);
    return 0;
}
static int m_record(void *p, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) { return 0; }
static const csd_tasklet_ops ops = { .name = "malformed", .init = m_init, .record = m_record };
CSD_TASKLET(ops)
