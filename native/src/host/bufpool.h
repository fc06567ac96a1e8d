/* Large buffers kept for reuse: a device's Parquet requests take an object buffer and row-group
 * arrays of tens of MB each, and fresh anonymous memory costs a kernel fault and a page zeroing per
 * page on first touch (most of a small request's wall time). The pool keeps freed regions (up to a
 * cap) and hands them to the next request; it is hung off the device and shared by its requests and
 * their decode threads (a mutex). Wall time only: nothing the device charges depends on it. */
#ifndef CSD_HOST_BUFPOOL_H
#define CSD_HOST_BUFPOOL_H

#include <stddef.h>
#include <stdint.h>

/* bytes of freed regions a device keeps (the rest are unmapped): two requests in flight over a
 * 42 MB object and its arrays fit */
#define CSD_BUFPOOL_KEEP_BYTES ((size_t)256 << 20)
/* a device's pool: regions below this are ordinary heap memory, never pooled (also the huge-page
 * alignment) */
#define CSD_BUFPOOL_MIN ((size_t)2 << 20)

typedef struct csd_bufpool csd_bufpool;

/* A pool keeping at most keep bytes of freed regions of min bytes or more (a multiple of 4096; sizes
 * are rounded up to it). NULL when out of memory. */
csd_bufpool *csd_bufpool_new(size_t keep, size_t min);
/* Unmap every kept region. Regions still taken must have been put back (or are the caller's leak). */
void csd_bufpool_free(csd_bufpool *bp);

/* n bytes (n >= 1). zero: all n zeroed, as calloc; else the bytes are unspecified (a reused region
 * holds an earlier request's bytes: the caller must write or zero every byte it reads). huge: 2 MiB
 * aligned and advised onto transparent huge pages (for memory mostly written). bp may be NULL: a
 * fresh region each time, as without a pool. NULL when out of memory. */
void *csd_bufpool_get(csd_bufpool *bp, size_t n, int huge, int zero);
/* Give back a region of csd_bufpool_get with the same n and huge; p may be NULL. */
void csd_bufpool_put(csd_bufpool *bp, void *p, size_t n, int huge);

typedef struct csd_bufpool_stats {
    uint64_t hits, misses;     /* gets of pooled sizes served from kept regions / newly mapped */
    size_t kept;               /* bytes of regions kept now */
    size_t mapped;             /* bytes of pooled-size regions mapped now (kept or taken) */
} csd_bufpool_stats;
void csd_bufpool_get_stats(csd_bufpool *bp, csd_bufpool_stats *out);

#endif
