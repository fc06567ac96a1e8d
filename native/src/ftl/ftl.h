/* Page-mapping FTL over a persistent image: object table, logical (object, page) -> physical page
 * mapping, log-structured allocation striped across channels, greedy GC, TRIM, crash recovery.
 *
 * The FTL moves real bytes (through the store) immediately and reports the flash operations it
 * performed in a csd_flash_batch, so the caller can replay them through the timing model. It is not
 * thread-safe: the device serialises calls. */
#ifndef CSD_FTL_H
#define CSD_FTL_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/params.h"
#include "flash/flash.h"
#include "store/store.h"

#define CSD_OBJ_NAME_MAX 1024
/* Data object ids stay below this: the ids above belong to tasklet and output objects (the host
 * interface's CSD_VOLATILE_ID_BASE, which equals it). */
#define CSD_DATA_ID_LIMIT (1ull << 40)

typedef struct csd_obj_info {
    uint64_t id;
    char name[CSD_OBJ_NAME_MAX + 1];
    uint64_t size;          /* bytes */
    uint64_t pages;         /* mapped pages (written and not trimmed) */
    uint64_t created_seq;
    uint64_t ctime_ms;      /* creation, ms since the epoch (0: the image predates object times) */
    uint64_t mtime_ms;      /* last write, trim or set_times */
    uint64_t atime_ms;      /* last set_times access time, else mtime */
} csd_obj_info;

typedef struct csd_ftl_counters {
    uint64_t host_pages_written, host_pages_read;
    uint64_t zero_pages_unstored;   /* pages of zeros (csd_ftl_write_zeroes) the image held already */
    uint64_t flash_reads, flash_programs, flash_erases;
    uint64_t gc_runs, gc_pages_moved;
    uint64_t trimmed_pages;
    uint64_t free_blocks, total_blocks;
    uint64_t logical_pages_used, logical_pages_capacity;
    /* per cell region, [0] TLC (normal cells), [1] SLC mode (docs/HYBRID.md): flash operations of
     * every source, the host's own page reads and programs among them, and pages GC moved from SLC
     * to TLC (migration) */
    uint64_t region_reads[2], region_programs[2], region_erases[2];
    uint64_t region_host_reads[2], region_host_programs[2];
    uint64_t migrated_pages;
    /* map-cached FTLs (ftl = dftl): translations that found their cache line, that fetched it (CLF),
     * and dirty-line evictions (each one batch update: a map page programmed) */
    uint64_t map_hits, map_misses, map_evictions;
} csd_ftl_counters;

/* Wear per cell region ([0] TLC, [1] SLC): P/E counts as persisted in the image. */
typedef struct csd_ftl_wear {
    uint64_t blocks[2];          /* blocks in the region */
    uint64_t erases[2];          /* P/E cycles summed over its blocks */
    uint32_t pe_max[2];          /* most-erased block */
    uint32_t pe_limit[2];        /* P/E cycles a block of the region endures (pe_cycles_slc/_tlc) */
} csd_ftl_wear;


typedef struct csd_ftl csd_ftl;

/* Create an image at path for capacity bytes of host data with geometry p (blocks_per_plane is
 * derived from capacity and overprovision_pct when 0). The file is sparse. 0 or -errno, err set. */
int csd_ftl_format(const char *path, uint64_t capacity, const csd_params *p, char *err, size_t errlen);

/* Open an image, recovering the mapping from per-page out-of-band records. *p receives the params
 * stored in the image (geometry is fixed at format time). 0 or -errno, err set. */
int csd_ftl_open(csd_ftl **out, const char *path, csd_params *p, char *err, size_t errlen);
/* Flush metadata and close. Returns 0 or -errno. */
int csd_ftl_close(csd_ftl *f);

const csd_params *csd_ftl_params(const csd_ftl *f);
uint64_t csd_ftl_capacity(const csd_ftl *f);          /* logical bytes */
uint64_t csd_ftl_physical_pages(const csd_ftl *f);
/* Largest atomic write group in pages: a write or trim of up to this many pages is all-or-nothing
 * across a crash; a larger one is applied as consecutive groups in offset order. */
uint64_t csd_ftl_group_pages(const csd_ftl *f);
/* Session override of params.sync_writes (the image stores the format-time value): 1 = fdatasync
 * before any write, trim or object-table change returns. */
void csd_ftl_set_sync_writes(csd_ftl *f, int on);
/* fdatasync the image now (a host's flush): what is written survives a host crash. 0 or -errno. */
int csd_ftl_sync(csd_ftl *f);

/* The rule every new name follows (names.c: UTF-8, NFC, no control characters, no empty, "." or ".."
 * component). 0, or -EINVAL with why set; -ENOMEM. */
int csd_name_check(const char *name, size_t len, char *why, size_t whylen);

/* Object table. New names follow csd_name_check; lookups take any bytes. Ids start at 1 and are never
 * reused. */
/* -EEXIST, -ENOSPC (max_objects reached), -EOVERFLOW (the table with this name does not fit its
 * metadata slot: long names), -EINVAL */
int csd_ftl_obj_create(csd_ftl *f, const char *name, uint64_t *id);
int csd_ftl_obj_delete(csd_ftl *f, uint64_t id);                      /* -ENOENT */
int csd_ftl_obj_rename(csd_ftl *f, uint64_t id, const char *new_name, int replace); /* -ENOENT, -EEXIST */
int csd_ftl_obj_stat(const csd_ftl *f, uint64_t id, csd_obj_info *info); /* -ENOENT */
int csd_ftl_obj_find(const csd_ftl *f, const char *name, uint64_t *id); /* -ENOENT */
/* Set an object's modification and access times (ms since the epoch; CSD_TIME_KEEP leaves one as it
 * is), durably. -ENOENT, or -errno from the metadata write (nothing changed then). */
#define CSD_TIME_KEEP UINT64_MAX
int csd_ftl_obj_set_times(csd_ftl *f, uint64_t id, uint64_t mtime_ms, uint64_t atime_ms);
/* Objects whose name starts with prefix and sorts after start_after (byte order), at most limit
 * (0 = all). Returns the count written to *out (caller frees) or -errno; *more = 1 if cut. */
int csd_ftl_obj_list(const csd_ftl *f, const char *prefix, const char *start_after, size_t limit,
                     csd_obj_info **out, int *more);

/* Data. Writes at offset <= size (no holes); partial pages are read-modify-written. Reads past the
 * end are -ERANGE; trimmed pages read as zeros. Each appends the flash operations it did to ops
 * (ops may be NULL). Returns 0 or -errno (-ENOSPC when the logical capacity is exhausted). */
int csd_ftl_write(csd_ftl *f, uint64_t id, uint64_t offset, const void *data, size_t len,
                  csd_flash_batch *ops);
/* The same with a hint for the placement policy: the data's lifetime class (an LSM level + 1, or any
 * class the host states; 0 = none), at most CSD_FTL_HINT_MAX, kept with each page. -EINVAL above. */
#define CSD_FTL_HINT_MAX 255u
int csd_ftl_write_hint(csd_ftl *f, uint64_t id, uint64_t offset, const void *data, size_t len, uint32_t hint,
                       csd_flash_batch *ops);
/* A write of len zero bytes at offset, as csd_ftl_write_hint with that data (the same pages, records,
 * mapping and flash programs: NVMe's Write Zeroes done by programming), except that a whole page the
 * store knows reads as zeros already (a fresh page of a block reserved as a hole) is not written. */
int csd_ftl_write_zeroes(csd_ftl *f, uint64_t id, uint64_t offset, size_t len, uint32_t hint, csd_flash_batch *ops);
/* The hint ppn's page was written with (0 = none or unknown). */
uint32_t csd_ftl_page_hint(const csd_ftl *f, uint64_t ppn);
int csd_ftl_read(csd_ftl *f, uint64_t id, uint64_t offset, void *buf, size_t len, csd_flash_batch *ops);
/* Deallocate the whole pages inside [offset, offset+len); they read as zeros afterwards. */
int csd_ftl_trim(csd_ftl *f, uint64_t id, uint64_t offset, uint64_t len, csd_flash_batch *ops);

/* Grow an object to size bytes without writing its data: the new pages are holes that read as zeros
 * and may be written in any order (a block namespace). One tombstone record on the new last page
 * keeps the size across a crash (appended to ops). -ERANGE when size is below the object's, -EINVAL
 * when the new end is inside the object's last page,
 * -ENOSPC, -ENOENT, or -errno. */
int csd_ftl_extend(csd_ftl *f, uint64_t id, uint64_t size, csd_flash_batch *ops);

/* Physical page of (id, page index), or CSD_PPN_NONE if unmapped/trimmed: the FTL's ground truth,
 * at no cost (checks, tools). */
uint64_t csd_ftl_lookup(const csd_ftl *f, uint64_t id, uint64_t page_index);
/* The same as the device does it for a read: the mapping policy appends the flash operations the
 * translation needs (a map-page read on a cache miss) to ops (may be NULL). With a map-cached policy,
 * when it needed any (or must wait for an earlier request's), the data read of *ppn follows them in
 * ops as the set's last command (flash.h, command sets); ops empty = a plain read. 0 or -errno. */
int csd_ftl_translate(csd_ftl *f, uint64_t id, uint64_t page_index, csd_flash_batch *ops, uint64_t *ppn);
/* 1 when the mapping policy caches the map (its operations are labelled with command sets). */
int csd_ftl_map_cached(const csd_ftl *f);
/* Raw page read by physical page number into buf (page_bytes). 0 or -errno. */
int csd_ftl_read_ppn(csd_ftl *f, uint64_t ppn, void *buf);
/* The same page from the store's read-ahead buffers (csd_store_data_view), without a copy into buf:
 * NULL with *rc = 0 when it cannot (use csd_ftl_read_ppn), NULL with a negative *rc when the read
 * fails or the page fails its check. Valid until the next view, write, trim or GC. */
const uint8_t *csd_ftl_view_ppn(csd_ftl *f, uint64_t ppn, int *rc);

/* A reader thread (store.h, csd_store_reader_start) that reads and checksums the pages posted with
 * csd_ftl_reader_post ahead of their csd_ftl_view_ppn, on another host thread. 0 or -errno. */
int csd_ftl_reader_start(csd_ftl *f);
/* ppns about to be viewed, in the order they will be (nothing without the reader). */
void csd_ftl_reader_post(csd_ftl *f, const uint64_t *ppns, size_t n);
void csd_ftl_reader_stats(csd_ftl *f, csd_store_reader_stats *st);

/* Called with a block's first physical page and its page count before GC erases it (its bytes are
 * still readable with csd_ftl_read_ppn then): whoever resolved a page to a ppn and reads its bytes
 * later must copy them before they go, as a device holds a page read in its DRAM. One hook; fn NULL
 * removes it. */
typedef void (*csd_ftl_erase_fn)(void *arg, uint64_t first_ppn, uint32_t npages);
void csd_ftl_set_erase_hook(csd_ftl *f, csd_ftl_erase_fn fn, void *arg);

void csd_ftl_counters_get(const csd_ftl *f, csd_ftl_counters *c);
void csd_ftl_wear_get(const csd_ftl *f, csd_ftl_wear *w);
/* The placement policy's own counters (fn(arg, key, value)); nothing for policies without any. */
void csd_ftl_place_report(const csd_ftl *f, void (*fn)(void *arg, const char *key, uint64_t value), void *arg);
/* Blocks of each plane in SLC mode (0: one cell type). */
uint32_t csd_ftl_slc_blocks(const csd_ftl *f);
/* P/E count of block (unit * blocks_per_plane + block), UINT32_MAX past the last. */
uint32_t csd_ftl_block_erases(const csd_ftl *f, uint64_t block);

/* The mapping policy's own copy of the map (a map cache and its map pages on flash) against the
 * ground truth: 0, or -EIO with err naming the first disagreement. 0 for policies without one. */
int csd_ftl_map_check(csd_ftl *f, char *err, size_t errlen);

/* Verify an image offline: superblock, metadata, every OOB record and data checksum of live pages,
 * mapping consistency. Writes a human-readable report line per problem to report (may be NULL).
 * Returns the number of problems (0 = clean) or -errno if the image cannot be read. */
typedef void (*csd_report_fn)(void *arg, const char *line);
int csd_ftl_check(const char *path, csd_report_fn report, void *arg);

#endif
