/* smartssd: a built-in tasklet run on the host, over bytes the host read from the device.
 *
 * The host side of offload planning (docs/OFFLOAD.md): a split left to the host gives the same answer
 * as on the device because it runs the same tasklet code with the same framing (records and lines owned
 * by the extent as on the device), pushed filter, runtime params, keywords and row limit. No device and
 * no virtual time: the host's CPU does the work. The request is the pair of messages a device run
 * takes, packed: CreateObject(TASKLET) and CreateObject(OUTPUT). */
#ifndef SMARTSSD_EVAL_H
#define SMARTSSD_EVAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct csd_eval csd_eval;

/* Bytes of the param key a tasklet may reject, with its NUL. */
#define CSD_EVAL_PARAM_MAX 129

/* A run of the built-in tasklet that tasklet_msg (a packed smartssd.v1.CreateObject of kind TASKLET)
 * names, with output_msg's runtime params, keywords and max_outputs (a packed CreateObject of kind
 * OUTPUT; NULL / 0 = none), over pages of page_bytes. 0, or a negative errno with err set: -ENOENT an
 * unknown tasklet (user tasklets run on devices only), -EINVAL a bad message or a param the tasklet
 * rejects (its key in param, CSD_EVAL_PARAM_MAX bytes, "" when none; param may be NULL), -ENOTSUP a
 * filter the tasklet does not declare. */
int csd_eval_create(csd_eval **out, const uint8_t *tasklet_msg, size_t tasklet_len, const uint8_t *output_msg,
                    size_t output_len, uint32_t page_bytes, char *param, char *err, size_t errlen);
/* The extent [offset, offset + length) of an object of object_size bytes: the pages to feed are
 * *first_page..*last_page (text may need pages past last: see csd_eval_feed's need_more). 0 or a
 * negative errno with err. */
int csd_eval_begin(csd_eval *e, uint64_t object_size, uint64_t offset, uint64_t length, uint64_t *first_page,
                   uint64_t *last_page, char *err, size_t errlen);
/* The next page, in order from first_page (len < page_bytes only for the object's last page).
 * *need_more = 0 once the extent is complete. 0 or a negative errno (csd_eval_error says why). */
int csd_eval_feed(csd_eval *e, uint64_t page_index, const void *data, size_t len, int *need_more);
/* No more input: the tasklet's finish(). 0 or a negative errno. */
int csd_eval_finish(csd_eval *e);
/* Rows produced since the last take (length-delimited smartssd.v1.Row messages, as read_object returns
 * them); *rows stays valid until the next call on e. */
size_t csd_eval_take(csd_eval *e, const uint8_t **rows);
/* What the tasklet charged so far (csd_io_charge) over how many pages: the device's cost model would
 * make core time of it. */
void csd_eval_cost(const csd_eval *e, uint64_t *cycles, uint64_t *dram_accesses, uint64_t *pages);
/* 1 once max_outputs rows were produced. */
int csd_eval_truncated(const csd_eval *e);
const char *csd_eval_error(const csd_eval *e);
void csd_eval_destroy(csd_eval *e);

#ifdef __cplusplus
}
#endif
#endif
