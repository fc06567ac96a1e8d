/* A native tasklet as built against the tasklet ABI before csd_tasklet_ops carried its tag: the layout
 * of that header, spelled out, with the entry point its CSD_TASKLET made. The device must refuse it by
 * name (test_user_tasklets) instead of reading the struct as today's, past its end. */
#include <stddef.h>
#include <stdint.h>

typedef struct old_ops {
    const char *name;
    const char *summary;
    int (*init)(void **state, const void *args, void *framing, char *err, size_t errlen);
    int (*page)(void *state, void *io, uint64_t page_index);
    int (*record)(void *state, void *io, const uint8_t *rec, size_t len, uint64_t offset);
    int (*finish)(void *state, void *io);
    void (*destroy)(void *state);
    int (*page_scan)(void *state, void *io, const void *x, uint64_t page_index, const uint8_t *data, size_t len,
                     int *cls, int *need_next);
    const char *schema;
    int (*need_page)(void *state, uint64_t page_index, uint32_t page_bytes);
} old_ops;

static int o_init(void **state, const void *args, void *framing, char *err, size_t errlen) {
    (void)args, (void)framing, (void)err, (void)errlen;
    *state = NULL;
    return 0;
}

static int o_record(void *state, void *io, const uint8_t *rec, size_t len, uint64_t offset) {
    (void)state, (void)io, (void)rec, (void)len, (void)offset;
    return 0;
}

static const old_ops ops = { .name = "old", .summary = "built before the ABI tag", .init = o_init, .record = o_record };

__attribute__((visibility("default"))) const old_ops *csd_tasklet_entry(void) { return &ops; }
