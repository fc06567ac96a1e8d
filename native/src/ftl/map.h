/* Mapping policies: where the device keeps its logical-to-physical map, and what that costs.
 *
 * The FTL always holds the whole map in host memory (ftl_obj.map): it is the emulator's ground truth
 * and what recovery rebuilds from the pages' out-of-band records. A mapping policy models the
 * device's own copy: `page` keeps all of it in device DRAM, so translations cost nothing; a map-cached
 * policy keeps a cache of it in DRAM and the rest in map pages on flash, and reports the map reads and
 * writes a translation or an update needs into the caller's batch, so the timing model replays them
 * with the data's operations. Each policy is one map_<name>.c; map_registry.c lists them. */
#ifndef CSD_FTL_MAP_H
#define CSD_FTL_MAP_H

#include <stddef.h>
#include <stdint.h>
#include "flash/flash.h"

typedef struct csd_ftl csd_ftl;

typedef struct csd_map_ops {
    const char *name;
    /* Objects of its own the policy keeps on the image beside the user's (dftl: its map pages), each
     * an entry of the object table over max_objects. */
    uint32_t own_objects;
    /* State for an FTL being opened, before recovery rebuilds the map (update() may be called while
     * it does). 0 or -errno. */
    int (*init)(void **state, csd_ftl *f);
    /* The translation of page idx of object obj is about to be used (a read, a read-modify-write, a
     * tasklet's input page). ops (may be NULL) gets the flash operations it needs first. 0 or -errno. */
    int (*lookup)(void *state, csd_ftl *f, uint64_t obj, uint64_t idx, csd_flash_batch *ops);
    /* The entry of page idx of obj changed (written, trimmed, moved by GC, or the object deleted). */
    int (*update)(void *state, csd_ftl *f, uint64_t obj, uint64_t idx, csd_flash_batch *ops);
    /* Make the policy's state durable (at close). 0 or -errno. */
    int (*flush)(void *state, csd_ftl *f, csd_flash_batch *ops);
    void (*destroy)(void *state);
    /* Optional: recovery has rebuilt the ground-truth map (open): find the policy's own state on the
     * image again and bring it in line. 0 or -errno. */
    int (*recovered)(void *state, csd_ftl *f);
    /* Optional: object obj is gone (deleted); replaces per-page update() calls. */
    void (*forget)(void *state, csd_ftl *f, uint64_t obj);
    /* Optional: verify the policy's copy of the map (cache and flash map pages) against the ground
     * truth. 0, or -EIO with err naming the first disagreement. */
    int (*check)(void *state, csd_ftl *f, char *err, size_t errlen);
} csd_map_ops;

const csd_map_ops *csd_map_find(const char *name);
const csd_map_ops *csd_map_at(size_t i);   /* NULL past the last */

#endif
