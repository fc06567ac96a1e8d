/* Placement policies: which physical page a host page goes to, and which block garbage collection
 * reclaims. The mechanism (active blocks per unit, free-block queues, copying, erasing, the block GC
 * alone may use) is alloc.c's; a policy only chooses. A write may carry a hint (its data's lifetime
 * class, e.g. an LSM level; 0 = none) for policies that separate data by expected lifetime. Each
 * policy is one place_<name>.c; place_registry.c lists them. */
#ifndef CSD_FTL_PLACE_H
#define CSD_FTL_PLACE_H

#include <stddef.h>
#include <stdint.h>
#include "flash/flash.h"

/* Largest hint a write may carry (it is kept in the page's OOB record, one byte). */
#define CSD_HINT_MAX 255u

typedef struct csd_ftl csd_ftl;

typedef void (*csd_place_report_fn)(void *arg, const char *key, uint64_t value);

typedef struct csd_place_ops {
    const char *name;
    /* State for an FTL being opened (geometry known, before recovery). 0 or -errno. */
    int (*init)(void **state, csd_ftl *f);
    /* A physical page for one host page (data or trim record): take it with ftl_unit_take() from the
     * unit of the policy's choice. 0, -ENOSPC when no unit has room, or -errno. */
    int (*alloc)(void *state, csd_ftl *f, uint32_t hint, csd_flash_batch *ops, uint64_t *ppn);
    /* The block garbage collection reclaims in region (ftl_int.h REG_*) of unit u: a closed block of
     * that region holding no page of an uncommitted write group, or UINT32_MAX when none is worth it. */
    uint32_t (*victim)(void *state, csd_ftl *f, uint32_t unit, int region);
    /* Optional: the region a valid page GC moves out of its block goes to (NULL: the block's own).
     * A page sent to another region that has no room stays in its own. */
    int (*gc_dest)(void *state, csd_ftl *f, uint64_t ppn);
    /* Optional: GC copied the page at src to dst (for policies that keep per-page state). */
    void (*moved)(void *state, csd_ftl *f, uint64_t src, uint64_t dst);
    /* Optional: the policy's own state as counters (stats "place.<key>"). */
    void (*report)(void *state, csd_place_report_fn fn, void *arg);
    /* Optional: the state worth keeping across a reopen, saved with the wear record (at most cap
     * bytes; returns the length), and loaded back after recovery. */
    size_t (*save)(void *state, uint8_t *buf, size_t cap);
    void (*load)(void *state, const uint8_t *buf, size_t len);
    void (*destroy)(void *state);
} csd_place_ops;

const csd_place_ops *csd_place_find(const char *name);
const csd_place_ops *csd_place_at(size_t i);   /* NULL past the last */

#endif
