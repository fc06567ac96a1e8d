/* The backing image on the host's disk: superblock, two metadata slots (A/B), one out-of-band (OOB)
 * record per physical page, and the data pages. docs/IMAGE-FORMAT.md describes every byte.
 *
 * This layer is I/O and encoding only; the FTL (ftl/) decides what to write where. All integers on
 * disk are little-endian. */
#ifndef CSD_STORE_H
#define CSD_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "smartssd/params.h"
#include "host/reader.h"

#define CSD_IMAGE_VERSION 1u
#define CSD_SB_BYTES 16384u          /* superblock region */
#define CSD_SB_HEADER_BYTES 128u     /* binary header; the params text follows it */
#define CSD_OOB_BYTES 64u            /* one OOB record */
#define CSD_META_HDR_BYTES 32u       /* metadata slot header */
#define CSD_META_VOID_MAX 256u       /* rolled-back sequence ranges a slot can hold */
#define CSD_COUNTER_MAX (1ull << 56) /* slot seqs, write seqs and ids above this are damage, not use */
#define CSD_META_ENTRY_FIXED 18u     /* version 1: id u64, created_seq u64, name_len u16 (+ name); the
                                      * slot size is still computed from it (IMAGE-FORMAT.md) */
#define CSD_META_ENTRY_TIMES 24u     /* version 2 adds ctime, mtime, atime (ms) after created_seq */

/* CRC-32 (IEEE 802.3, the zlib one). Start with crc = 0; chain by passing the previous result. */
uint32_t csd_crc32(uint32_t crc, const void *data, size_t len);

/* Geometry of one image and where each area starts. */
typedef struct csd_layout {
    uint64_t capacity;               /* logical bytes (a multiple of page_bytes) */
    uint32_t page_bytes, pages_per_block, blocks_per_plane, units;
    uint64_t physical_pages;         /* units * blocks_per_plane * pages_per_block */
    uint64_t meta_slot_bytes;
    uint64_t meta_off[2];
    uint64_t oob_off, data_off, file_bytes;
    /* hybrid cells (derived from the params, not stored in the header) */
    uint32_t slc_blocks;             /* blocks of each plane in SLC mode (the first ones); 0 = none */
    uint32_t slc_pages_per_block;    /* pages an SLC-mode block holds (0 when slc_blocks is 0) */
    uint64_t unit_pages;             /* pages one plane holds */
} csd_layout;

/* SLC-mode blocks a plane needs for SLC to take host writes: one open, two free for its GC. */
#define CSD_SLC_BLOCKS_MIN 3u
/* Fills l for capacity bytes with geometry p; blocks_per_plane = 0 in p is derived (see
 * IMAGE-FORMAT.md "Derived blocks per plane"). 0 or -EINVAL with err. */
int csd_layout_compute(csd_layout *l, uint64_t capacity, const csd_params *p, char *err, size_t errlen);
/* Pages of physical headroom above the logical capacity that writes may use while an atomic write
 * group is in flight: units * ((blocks_per_plane - 1) * pages_per_block - 1) - capacity pages. One
 * block per unit stays reserved for garbage collection. May be <= 0 for an unusable geometry. */
int64_t csd_layout_headroom(const csd_layout *l);
/* Same layout for the same inputs? (check recomputes and compares.) */
int csd_layout_equal(const csd_layout *a, const csd_layout *b);

/* Superblock: buf is CSD_SB_BYTES. The params are text lines "key = value" from csd_params_visit. */
int csd_sb_encode(uint8_t *buf, const csd_layout *l, const csd_params *p, char *err, size_t errlen);
/* 0, or -EBADMSG (not an image / corrupt) / -EPROTONOSUPPORT (other version) with err. */
int csd_sb_decode(const uint8_t *buf, csd_layout *l, csd_params *p, char *err, size_t errlen);

/* ---------------------------------------------------------------- OOB records */

enum { CSD_OOB_DATA = 1, CSD_OOB_TOMBSTONE = 2 };
enum { CSD_OOB_EMPTY = 0, CSD_OOB_OK = 1, CSD_OOB_BAD_MAGIC = 2, CSD_OOB_BAD_CRC = 3, CSD_OOB_BAD_FIELD = 4 };

typedef struct csd_oob {
    uint8_t kind;            /* CSD_OOB_DATA / CSD_OOB_TOMBSTONE */
    uint8_t hint;            /* the write's placement hint (0 = none; older records have 0) */
    uint32_t copies;         /* how many times garbage collection copied this version */
    uint32_t valid_bytes;    /* bytes of the page inside the object (page_bytes except the last page) */
    uint64_t obj;            /* object id */
    uint64_t page;           /* page index inside the object */
    uint64_t seq;            /* write sequence number of this version */
    uint64_t time_ms;        /* wall time of the write, ms since the epoch (0 = not recorded) */
    uint64_t op_first;       /* first sequence number of the atomic write group it belongs to */
    uint32_t op_pages;       /* pages in that group (its seqs are op_first .. op_first+op_pages-1) */
    uint32_t data_crc;       /* CRC-32 of the page's page_bytes (0 for a tombstone) */
} csd_oob;

void csd_oob_encode(uint8_t out[CSD_OOB_BYTES], const csd_oob *r);
/* Returns CSD_OOB_EMPTY (magic 0: erased, or a write or erase a crash cut short), _OK, or a _BAD_*
 * status. page_bytes bounds valid_bytes. */
int csd_oob_decode(const uint8_t in[CSD_OOB_BYTES], uint32_t page_bytes, csd_oob *r);
/* The fields of a record already decoded CSD_OOB_OK (no checks: the OOB scan's second pass). */
void csd_oob_fields(const uint8_t in[CSD_OOB_BYTES], csd_oob *r);
const char *csd_oob_status_name(int status);

/* ---------------------------------------------------------------- the file */

typedef struct csd_store {
    int fd;
    int writable;
    int sync_writes;         /* fdatasync in csd_store_barrier */
    int discard;             /* discard_data: page bytes are never written; the data area reads as zeros */
    int punch;               /* 1 while fallocate(PUNCH_HOLE) works on this file system */
    int reserve;             /* 1 while fallocate (allocate) works on this file system */
    csd_layout l;
    struct csd_store_run *runs;   /* read-ahead runs of data pages for csd_store_data_view (store.c) */
    uint64_t run_clock;      /* use stamp of the runs (LRU within a set) */
    int wear_present;        /* the file holds a wear record after the data area */
    csd_reader *rd;          /* the reader thread (host/reader.c), or NULL */
    uint8_t *bzero;          /* per block since this open: 0 unknown, 1 a hole (reads as zeros; the
                              * zero fill waits for its first data write), 2 filled with zeros */
    uint8_t *oob_map;        /* the OOB records, mapped writable (oobmap.c), or NULL: by pwrite */
    void *oob_map_base;
    size_t oob_map_len;
    uint8_t *oob_held;       /* per block since this open: 1 = its records' bytes are allocated */
} csd_store;

/* Create (or truncate) path as a sparse image and write the superblock. 0 or -errno with err. */
int csd_store_create(csd_store **out, const char *path, const csd_layout *l, const csd_params *p,
                     char *err, size_t errlen);
/* Open and decode the superblock; *p receives the stored params. 0 or -errno with err. */
int csd_store_open(csd_store **out, const char *path, int writable, csd_params *p, char *err, size_t errlen);
void csd_store_close(csd_store *s);

/* Bytes [off, off+len) of physical page ppn. */
int csd_store_read_data(csd_store *s, uint64_t ppn, uint32_t off, void *buf, size_t len);
int csd_store_write_data(csd_store *s, uint64_t ppn, const void *page);
/* n whole pages at consecutive ppns from ppn, in one write (pages: n * page_bytes). */
int csd_store_write_data_run(csd_store *s, uint64_t ppn, uint64_t n, const void *pages);
/* 1 when a page of ppn's block not written since the block was reserved (csd_store_reserve, in this
 * open) reads as zeros, so a page of zeros needs no write there; 0 when unknown. */
int csd_store_fresh_zero(const csd_store *s, uint64_t ppn);
/* Physical page ppn, read-only, from a read-ahead buffer: a sequential reader of a flash block (the
 * FTL stripes an object's pages over the units, each unit's pages consecutive in its block) gets its
 * next pages with one pread of up to 8 pages, copied into a buffer that stays in the CPU's caches
 * until it is read. It reads what the last write or erase left, like csd_store_read_data (both
 * invalidate the buffers they touch). Valid until the next call on s; NULL with *rc = -errno when the
 * read failed, NULL with *rc = 0 when ppn is out of range. */
const uint8_t *csd_store_data_view(csd_store *s, uint64_t ppn, int *rc);
/* The reader thread (host/reader.h): data pages read and checksummed ahead of the engine, on another
 * host thread. Start it once (0 or -errno); csd_store_close stops it. Post the ppns the engine will
 * view, in the order it will view them; csd_store_reader_view returns a posted page's bytes and their
 * CRC-32 (valid until the next call on s, like csd_store_data_view), reading it on the caller's thread
 * when the reader has not, or NULL when the page was not posted or its run was given up (then read it
 * as without the reader). Every write, erase and punch drops the runs it touches, so the bytes are
 * always what a read at the time of the view returns. */
int csd_store_reader_start(csd_store *s);
void csd_store_reader_stop(csd_store *s);
void csd_store_reader_post(csd_store *s, const uint64_t *ppns, size_t n);
const uint8_t *csd_store_reader_view(csd_store *s, uint64_t ppn, uint32_t *crc);
typedef csd_reader_stats csd_store_reader_stats;
void csd_store_reader_stats_get(csd_store *s, csd_store_reader_stats *out);
/* n consecutive raw OOB records starting at ppn into buf (n * CSD_OOB_BYTES). */
int csd_store_read_oob(csd_store *s, uint64_t ppn, uint64_t n, void *buf);
/* Every OOB record at once, read-only, for the open's scan and its lookups of earlier records: a shared
 * mapping of the file (the page cache's pages, nothing copied), or one read into a buffer where the
 * file cannot be mapped. recs[ppn * CSD_OOB_BYTES] is ppn's record. runs: the ppn ranges [first, end)
 * that may hold records, in order; every record outside them is in a hole of the file (all zeros), so
 * a scan skips them (a fresh or lightly used image is mostly holes, which mapped in and zeroed page by
 * page cost more than the rest of an open). Valid until freed; the caller holds the image, so nothing
 * writes the region meanwhile. 0 or -errno. */
typedef struct csd_oob_area {
    const uint8_t *recs;
    void *base;
    size_t len;
    int mapped;
    uint64_t (*runs)[2];
    size_t nruns;
} csd_oob_area;
int csd_store_oob_area(csd_store *s, csd_oob_area *a);
void csd_store_oob_area_free(csd_oob_area *a);
int csd_store_write_oob(csd_store *s, uint64_t ppn, const csd_oob *r);
/* n encoded records (csd_oob_encode) of consecutive ppns from ppn, in one write. */
int csd_store_write_oob_run(csd_store *s, uint64_t ppn, uint64_t n, const void *raw);
/* Erase npages pages from first: zero their OOB records. Their data keeps its dead bytes. */
int csd_store_erase(csd_store *s, uint64_t first, uint64_t npages);
/* Allocate the host disk for npages data pages from first (a block about to be programmed), so its
 * writes need no allocation. 0, -EDQUOT (host disk full) or -errno; 0 where the file system cannot. */
int csd_store_reserve(csd_store *s, uint64_t first, uint64_t npages);
/* Give the data of npages erased pages from first back to the host's disk (punch a hole; nothing
 * where the file system cannot). Only for pages without a record. 0 or -errno. */
int csd_store_punch(csd_store *s, uint64_t first, uint64_t npages);
/* fdatasync when sync_writes is on (ordering point for power-loss safety), else nothing. */
int csd_store_barrier(csd_store *s);
int csd_store_sync(csd_store *s);      /* always fdatasync */
/* Raw positioned I/O of whole byte ranges (the metadata slots). */
int csd_store_pread(csd_store *s, uint64_t off, void *buf, size_t len);
int csd_store_pwrite(csd_store *s, uint64_t off, const void *buf, size_t len);
/* Every write above returns -EDQUOT when the host file system holding the image is full (ENOSPC or
 * EDQUOT from the kernel), so callers can tell it from the device's own capacity (-ENOSPC). */

/* ---------------------------------------------------------------- wear record */

/* Bytes the wear record takes after the data area (at file_bytes): magic "CSDWEAR1", u64 block count,
 * u32 P/E count per block, u32 length + the placement policy's state (at most CSD_WEAR_EXTRA_MAX
 * bytes), CRC-32 of all before; padded to 4096. */
#define CSD_WEAR_EXTRA_MAX 256u
uint64_t csd_wear_bytes(const csd_layout *l);
/* Every block's P/E count into counts (units * blocks_per_plane) and the policy state into extra
 * (CSD_WEAR_EXTRA_MAX bytes; *extra_len its length): zeros and no state when the image has no record
 * (0) or a damaged one (-EBADMSG); -errno on a read error. */
int csd_store_read_wear(csd_store *s, uint32_t *counts, uint8_t *extra, size_t *extra_len);
/* Write the record (the file grows by csd_wear_bytes the first time). 0 or -errno. */
int csd_store_write_wear(csd_store *s, const uint32_t *counts, const uint8_t *extra, size_t extra_len);

/* ---------------------------------------------------------------- metadata slots */

typedef struct csd_void_range { uint64_t from, to; } csd_void_range;   /* seqs [from, to) */

typedef struct csd_meta_obj {
    uint64_t id, created_seq;
    uint64_t ctime_ms, mtime_ms, atime_ms;   /* 0 in version-1 slots */
    uint16_t name_len;
    const char *name;        /* points into the decoded payload; not NUL-terminated */
} csd_meta_obj;

typedef struct csd_meta {
    uint64_t seq;            /* slot write counter: the newest valid slot wins */
    uint64_t next_id;        /* ids are never reused */
    uint64_t next_seq;       /* lower bound for the next write sequence number */
    uint32_t n_void;
    csd_void_range voids[CSD_META_VOID_MAX];
    uint32_t n_obj;
    csd_meta_obj *objs;
    uint8_t *payload;        /* owned */
} csd_meta;

/* Growable byte buffer for encoding a slot. */
typedef struct csd_buf { uint8_t *p; size_t n, cap; int oom; } csd_buf;
void csd_buf_put(csd_buf *b, const void *data, size_t len);
void csd_buf_u16(csd_buf *b, uint16_t v);
void csd_buf_u32(csd_buf *b, uint32_t v);
void csd_buf_u64(csd_buf *b, uint64_t v);
void csd_buf_free(csd_buf *b);

/* Start a slot image in b (header placeholder + next_id, next_seq, voids, object count). */
void csd_meta_begin(csd_buf *b, uint64_t next_id, uint64_t next_seq, const csd_void_range *voids,
                    uint32_t n_void, uint32_t n_obj);
void csd_meta_add(csd_buf *b, const csd_meta_obj *o);
/* Seal the header (seq, length, CRCs) and write it to slot 0 (A) or 1 (B). 0, -ENOMEM, -ENOSPC
 * (larger than the slot), or -errno. */
int csd_meta_write(csd_store *s, int slot, uint64_t seq, csd_buf *b);
/* Read and validate a slot. 0, -EBADMSG (torn, empty or corrupt: why says which), or -errno. */
int csd_meta_read(csd_store *s, int slot, csd_meta *m, char *why, size_t whylen);
void csd_meta_free(csd_meta *m);

/* Little-endian helpers shared by the encoders. One load or store each (memcpy, byte-swapped on a
 * big-endian host): the byte loops compiled to loops, a fifth of an image open's CPU in decoding the
 * OOB records. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CSD_LE16(v) __builtin_bswap16(v)
#define CSD_LE32(v) __builtin_bswap32(v)
#define CSD_LE64(v) __builtin_bswap64(v)
#else
#define CSD_LE16(v) (v)
#define CSD_LE32(v) (v)
#define CSD_LE64(v) (v)
#endif
static inline void csd_put16(uint8_t *p, uint16_t v) { v = CSD_LE16(v); memcpy(p, &v, sizeof v); }
static inline void csd_put32(uint8_t *p, uint32_t v) { v = CSD_LE32(v); memcpy(p, &v, sizeof v); }
static inline void csd_put64(uint8_t *p, uint64_t v) { v = CSD_LE64(v); memcpy(p, &v, sizeof v); }
static inline uint16_t csd_get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, sizeof v); return CSD_LE16(v); }
static inline uint32_t csd_get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, sizeof v); return CSD_LE32(v); }
static inline uint64_t csd_get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, sizeof v); return CSD_LE64(v); }

#endif
