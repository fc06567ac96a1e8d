/* Internals of the page-mapping FTL shared by its source files (not for other components).
 * docs/IMAGE-FORMAT.md explains the on-disk side; this is the in-memory side. */
#ifndef CSD_FTL_INT_H
#define CSD_FTL_INT_H

#include "ftl/ftl.h"
#include "ftl/map.h"
#include "ftl/place.h"
#include "store/store.h"

/* Per physical page. */
enum {
    PG_FREE = 0,   /* erased, not yet programmed */
    PG_VALID,      /* holds the current version of (rev_id, rev_idx): data or tombstone */
    PG_RESERVED,   /* programmed by a write group whose OOB records are not written yet */
    PG_STALE,      /* an older data version of (rev_id, rev_idx): keeps that page's tombstone alive */
    PG_DEAD,       /* garbage: moved by GC, deleted object, rolled back, unreadable record */
};

enum { BLK_FREE = 0, BLK_ACTIVE, BLK_CLOSED };

/* Mapping entries: a ppn, a tombstone (flag + ppn of its record), or nothing. */
#define MAP_NONE UINT64_MAX
#define MAP_TOMB (1ull << 63)
static inline int map_is_data(uint64_t e) { return !(e & MAP_TOMB); }
static inline int map_is_tomb(uint64_t e) { return e != MAP_NONE && (e & MAP_TOMB); }
static inline uint64_t map_ppn(uint64_t e) { return e & ~MAP_TOMB; }

#define NONE32 UINT32_MAX

/* Cell regions (docs/HYBRID.md): the first slc blocks of every unit run in SLC mode. */
enum { REG_TLC = 0, REG_SLC = 1, FTL_REGIONS = 2 };
/* Open blocks one unit may have at once: stream r < FTL_REGIONS is region r's default (host pages of
 * policies without streams, and GC copies); placement policies may use the others, each bound to a
 * region while it holds a block. */
#define FTL_STREAMS 16

typedef struct ftl_obj {
    uint64_t id, created_seq, size;
    uint64_t ctime_ms, mtime_ms, atime_ms;   /* wall times, ms since the epoch; 0 = unknown / unset */
    uint64_t newest_seq, newest_ms;          /* recovery: the object's newest record and its time */
    char *name;                /* NUL-terminated copy */
    uint32_t name_len;
    uint64_t name_hash;
    uint64_t *map;             /* page index -> entry, cap entries (MAP_NONE past the end) */
    uint32_t *stale;           /* page index -> stale data versions still on flash */
    uint64_t cap;
    uint64_t data_pages, tomb_pages;
    int used;
} ftl_obj;

/* Object table: slots plus hash indexes by id and by name (linear probing, backward-shift delete). */
typedef struct csd_objtab {
    ftl_obj *slots;
    uint32_t nslots, cap_slots, count;
    uint32_t *free_slots;
    uint32_t nfree;
    uint32_t *by_id, *by_name;   /* slot numbers or NONE32 */
    uint32_t idx_cap;            /* power of two */
    uint64_t next_id;
} csd_objtab;

void csd_objtab_init(csd_objtab *t);
void csd_objtab_free(csd_objtab *t);
ftl_obj *csd_objtab_by_id(const csd_objtab *t, uint64_t id);
ftl_obj *csd_objtab_by_name(const csd_objtab *t, const char *name, size_t len);
/* Adds an entry; *slot receives its slot. 0 or -ENOMEM. */
int csd_objtab_add(csd_objtab *t, uint64_t id, const char *name, size_t len, uint64_t created_seq, uint32_t *slot);
void csd_objtab_remove(csd_objtab *t, ftl_obj *o);
/* name: malloc'd and NUL-terminated; the table takes it. */
void csd_objtab_rename(csd_objtab *t, ftl_obj *o, char *name, size_t len);
/* Grow o's map to at least pages entries (MAP_NONE / 0 stale). 0 or -ENOMEM. */
int csd_obj_reserve(ftl_obj *o, uint64_t pages);
static inline uint32_t csd_objtab_slot(const csd_objtab *t, const ftl_obj *o) { return (uint32_t)(o - t->slots); }

/* ---------------------------------------------------------------- the FTL */

/* Whole pages bound for consecutive ppns, written to the image in one write (a block's pages are
 * consecutive, so a group or a GC pass usually is one run): one system call instead of one per page.
 * Only ordering matters for crash safety, and every run is flushed before its records are written. */
#define FTL_RUN_PAGES 64u
typedef struct ftl_run {
    uint8_t *buf;                 /* FTL_RUN_PAGES pages */
    uint64_t ppn0;
    uint32_t n;
} ftl_run;

struct csd_ftl {
    csd_store *st;
    csd_params p;
    csd_layout l;
    uint32_t units, bpp, ppb, pb;
    uint64_t lpages;             /* logical capacity in pages */
    uint64_t physical, nblocks;
    uint64_t group_pages;        /* largest atomic write group */
    uint32_t gc_min;             /* GC when a unit has fewer free blocks than this */
    const csd_map_ops *map;      /* mapping policy (map.h) */
    void *map_state;
    const csd_place_ops *place;  /* placement policy (place.h) */
    void *place_state;

    uint8_t *pstate;             /* per ppn */
    uint64_t *rev_id;
    uint32_t *rev_idx, *pcrc;

    uint8_t *phint;              /* per ppn: the hint its page was written with (0 = none; in its OOB) */

    uint8_t *bstate;             /* per block (unit * bpp + block) */
    uint32_t *bvalid, *bwp, *bres, *berase;   /* berase: P/E count, persisted in the wear record */

    uint32_t slcb, sppb;         /* SLC-mode blocks per unit (the first ones), pages each (0: none) */
    uint32_t *active;            /* per unit x FTL_STREAMS: block or NONE32 */
    uint32_t *nfree, *fq_head, *fq;  /* per unit x region FIFO of free blocks (fq: units x regions x bpp) */
    uint64_t free_blocks;
    uint32_t gc_min_r[FTL_REGIONS];  /* per region: GC when a unit has fewer free blocks of it */
    uint32_t gc_min_dev[FTL_REGIONS];   /* gc_free_device: GC when the device has fewer free blocks of it */
    uint32_t cur_hint;           /* the host write being placed: its hint, length in bytes, and whether */
    uint64_t cur_bytes;          /* the page being placed overwrites a mapped one (an update) */
    int cur_update;

    uint64_t next_seq;
    csd_objtab tab;
    int meta_slot;               /* slot holding the newest table (the next write goes to the other) */
    uint64_t meta_seq;
    csd_void_range voids[CSD_META_VOID_MAX];
    uint32_t n_void;
    uint64_t lused;              /* logical pages in use: data + tombstones */
    csd_ftl_counters c;
    int broken;                  /* an unrecoverable I/O error: refuse writes until reopened */

    /* labels for the operations reported to batches (command sets, flash/flash.h) */
    uint64_t op_set;             /* the object page being served + 1 (0: none) */
    int in_gc;                   /* 1 while GC moves pages: map traffic it causes is GC's */
    uint64_t next_tag;           /* map operation tags */
    uint64_t op_wait, op_wait_set;   /* a delay the next data operation of that set carries */
    uint8_t op_wait_kind;
    uint64_t hidden_id;          /* the mapping policy's own object (map pages), 0 = none */

    uint8_t *pagebuf;             /* host read-modify-write */
    uint32_t zero_crc;            /* CRC-32 of a page of zeros, once computed (zero_crc_set) */
    int zero_crc_set;
    uint8_t *gcbuf;               /* GC copies (GC runs inside a host write) */
    csd_buf mbuf;
    ftl_run hrun, gcrun;          /* pages of a host write group / of a GC pass not yet in the file */
    csd_ftl_erase_fn erase_fn;    /* told before a block is erased (csd_ftl_set_erase_hook) */
    void *erase_arg;
};

/* report.c: count a flash operation and append it to the caller's batch (ops may be NULL) */
void ftl_op(csd_ftl *f, csd_flash_batch *ops, int kind, int gc, uint64_t ppn);
/* Append a labelled operation (command sets) and count it. */
void ftl_op_req(csd_ftl *f, csd_flash_batch *ops, const csd_flash_req *r);
/* io.c: write one whole page of object o at idx as its own atomic group, for the mapping policy's
 * map pages (no capacity check, no operation reported: the caller reports the program as its
 * role). *ppn gets the page. 0 or -errno. */
int ftl_write_internal(csd_ftl *f, ftl_obj *o, uint64_t idx, const void *page, csd_flash_batch *ops, uint64_t *ppn);
/* Trim the pages of object o in [first, first + n) (tombstones), without reporting operations. */
int ftl_trim_internal(csd_ftl *f, ftl_obj *o, uint64_t first, uint64_t n);
/* objops.c: add an object the user does not see (names starting with a control character). */
int ftl_obj_create_hidden(csd_ftl *f, const char *name, uint64_t *id);
/* alloc.c: page allocation, garbage collection, erase */
int ftl_alloc_host(csd_ftl *f, csd_flash_batch *ops, uint64_t *ppn);   /* page becomes PG_RESERVED */
/* Next page of stream s of unit u, a block of region r (the stream's block is opened from r's free
 * blocks; GC of region r first when the unit is short of them). As ftl_unit_take otherwise. */
int ftl_stream_take(csd_ftl *f, uint32_t u, uint32_t s, int r, int gc, csd_flash_batch *ops, uint64_t *ppn);
/* Hand stream from's open block of unit u to stream to (which must have none): Fig. 8's expired
 * level block reused for the next level. */
void ftl_stream_move(csd_ftl *f, uint32_t u, uint32_t from, uint32_t to);
static inline uint32_t *ftl_active(const csd_ftl *f, uint32_t u, uint32_t s) {
    return &f->active[(uint64_t)u * FTL_STREAMS + s];
}
static inline int ftl_block_region(const csd_ftl *f, uint32_t gb) { return gb % f->bpp < f->slcb ? REG_SLC : REG_TLC; }
static inline uint32_t ftl_block_pages(const csd_ftl *f, uint32_t gb) {
    return gb % f->bpp < f->slcb ? f->sppb : f->ppb;
}
static inline int ftl_ppn_region(const csd_ftl *f, uint64_t ppn) { return ftl_block_region(f, (uint32_t)(ppn / f->ppb)); }
static inline uint32_t ftl_nfree(const csd_ftl *f, uint32_t u, int r) { return f->nfree[u * FTL_REGIONS + r]; }
/* Next page of unit u's active block, opening a free block when needed (GC first when the unit is
 * short of free blocks). Host pages need two free blocks to open one (the last is GC's); GC pages
 * (gc = 1) may take the last. The page becomes RESERVED. 0, -ENOSPC, or -errno. */
int ftl_unit_take(csd_ftl *f, uint32_t u, int gc, csd_flash_batch *ops, uint64_t *ppn);
void ftl_release(csd_ftl *f, uint64_t ppn);
/* The buffer for the next page of run r (fill it, then ftl_run_add its ppn). */
static inline uint8_t *ftl_run_slot(const csd_ftl *f, const ftl_run *r) { return r->buf + (size_t)r->n * f->pb; }
/* The filled slot goes to ppn: written out with the run once the run ends (flush, a full buffer or
 * a ppn that does not follow). 0 or -errno of the write of the previous pages. */
int ftl_run_add(csd_ftl *f, ftl_run *r, uint64_t ppn);
int ftl_run_flush(csd_ftl *f, ftl_run *r);   /* write the pending pages; the run is empty after */
/* Encoded OOB records of consecutive ppns, written in runs the same way (on the caller's stack). */
typedef struct ftl_oob_run { uint8_t raw[FTL_RUN_PAGES * CSD_OOB_BYTES]; uint64_t ppn0; uint32_t n; } ftl_oob_run;
int ftl_oob_add(csd_ftl *f, ftl_oob_run *r, uint64_t ppn, const csd_oob *rec);
int ftl_oob_flush(csd_ftl *f, ftl_oob_run *r);     /* a reserved page that will not be committed */
void ftl_set_valid(csd_ftl *f, uint64_t ppn, uint64_t id, uint32_t idx, uint32_t crc);
void ftl_unmap(csd_ftl *f, uint64_t ppn, int to_state);   /* a VALID page -> STALE or DEAD */
void ftl_maybe_drop_tomb(csd_ftl *f, ftl_obj *o, uint64_t idx);
/* Units in stripe order (channel fastest, then chip, die, plane): order[position] = unit. */
void ftl_stripe_order(const csd_ftl *f, uint32_t *order);
/* Greedy GC victim of region r in unit u: the closed block with the fewest valid pages (not a full one). */
uint32_t ftl_greedy_victim(const csd_ftl *f, uint32_t u, int r);
/* Persist every block's P/E count (the wear record). 0 or -errno. */
int ftl_wear_save(csd_ftl *f);
static inline uint32_t ftl_block_of(const csd_ftl *f, uint64_t ppn) { return (uint32_t)(ppn / f->ppb); }
static inline uint32_t ftl_unit_of_block(const csd_ftl *f, uint32_t gb) { return gb / f->bpp; }
static inline uint64_t ftl_obj_pages(const csd_ftl *f, const ftl_obj *o) { return (o->size + f->pb - 1) / f->pb; }

/* Wall-clock time for object times, ms since the epoch (virtual time is the engine's, not this). */
uint64_t ftl_now_ms(void);

/* meta.c in ftl: persist the object table (skip: a slot left out, e.g. being deleted; ren/name: a
 * slot saved under a new name). 0 or -errno. */
int ftl_meta_save(csd_ftl *f, const ftl_obj *skip, const ftl_obj *ren, const char *name, size_t len);

/* scan.c: one pass over every OOB record, deciding which records recovery may trust. */
enum { SCAN_ACCEPT, SCAN_VOIDED, SCAN_ROLLBACK, SCAN_BAD };
typedef void (*csd_scan_fn)(void *arg, uint64_t ppn, const csd_oob *r, int scan_status, int oob_status);
typedef struct csd_scan_info {
    uint64_t records;            /* non-empty OOB records */
    uint64_t max_seq;            /* highest seq of any well-formed record (voided or not) */
    int have_last, last_incomplete;
    uint64_t last_first, last_pages, last_found;   /* the newest write group */
    uint8_t void_hit[CSD_META_VOID_MAX];          /* 1 = some record still falls in that range */
} csd_scan_info;
int csd_scan_oob(csd_store *s, const csd_void_range *voids, uint32_t n_void, csd_scan_fn fn, void *arg,
                 csd_scan_info *info);
/* The same over records already in memory (recovery keeps them for its own lookups); seen (may be
 * NULL) is told every well-formed record outside the rolled-back ranges during the first pass,
 * before any call of fn (recovery sizes its maps from them). */
int csd_scan_oob_area(const csd_oob_area *a, uint64_t total, uint32_t page_bytes, const csd_void_range *voids,
                      uint32_t n_void, csd_scan_fn fn, void (*seen)(void *arg, const csd_oob *r), void *arg,
                      csd_scan_info *info);
int csd_seq_voided(const csd_void_range *v, uint32_t n, uint64_t seq);   /* index or -1 */

/* build.c: pick the winning record per (object, page): highest (seq, copies). */
typedef struct csd_win {
    uint64_t ppn, seq;
    uint32_t copies, valid, crc;
    uint8_t kind;
} csd_win;
enum { ORPHAN_NO_OBJECT = 1, ORPHAN_PAGE_RANGE = 2 };
typedef struct csd_build {
    const csd_objtab *tab;
    uint64_t max_pages;          /* page index bound (logical capacity) */
    csd_win **win;               /* per slot */
    uint64_t *win_cap;
    void *arg;
    /* loser lost to winner; tie = same (seq, copies), i.e. a duplicate */
    void (*lose)(void *arg, uint32_t slot, uint64_t page, const csd_win *loser, const csd_win *winner, int tie);
    void (*orphan)(void *arg, uint64_t ppn, const csd_oob *r, int why);
} csd_build;
int csd_build_init(csd_build *b, const csd_objtab *tab, uint64_t max_pages);
int csd_build_add(csd_build *b, uint64_t ppn, const csd_oob *r);   /* 0 or -ENOMEM */
void csd_build_free(csd_build *b);

/* Fill an object table from a metadata slot. 0 or -EBADMSG/-ENOMEM with err. */
int csd_objtab_load(csd_objtab *t, const csd_meta *m, uint32_t max_objects, char *err, size_t errlen);

#endif
