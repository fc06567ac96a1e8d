/* Flash timing model: channels x chips x dies x planes x blocks x pages.
 *
 * A READ waits in its chip's queue, holds the chip for t_read_ns, then waits for its channel and
 * holds channel and chip for the page transfer (csd_xfer_ns(page_bytes, channel_bytes_per_s)); the
 * chip is free after the transfer. Then the flash controller firmware, one serial resource for the
 * whole device, spends fw_page_ns on the page, and the op completes (page in device DRAM).
 * A PROGRAM first takes fw_page_ns on the firmware, then waits in the chip queue, then holds the
 * chip while the channel transfers the page in, then t_prog_ns. An ERASE holds the chip t_erase_ns.
 * Channels serve waiting chips first come first served (ties: lower chip index).
 * The order in which a chip serves its queue is a pluggable policy (csd_chip_sched_ops).
 * The chip is the unit of parallelism: dies and planes are addresses only (no interleaving).
 * A chip and a channel decide what to serve in an event at the current time, after every event
 * already due at that time, so a policy sees all operations that arrive at the same instant.
 * docs/TIMING-MODEL.md has the formulas and worked schedules. */
#ifndef CSD_FLASH_FLASH_H
#define CSD_FLASH_FLASH_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/params.h"
#include "sim/sim.h"

/* The flash layer's operations, as the layers above produce them. */
#define CSD_PPN_NONE UINT64_MAX   /* "no physical page": unmapped or trimmed */

typedef enum csd_flash_kind { CSD_FLASH_READ = 1, CSD_FLASH_PROGRAM = 2, CSD_FLASH_ERASE = 3 } csd_flash_kind;

/* Who asked for an operation: flash-command and chip-queue policies may treat them differently. */
typedef enum csd_flash_src {
    CSD_SRC_HOST = 0,        /* a host command's data (read_object, write_object, trim) */
    CSD_SRC_GC = 1,          /* garbage collection's copies and erases */
    CSD_SRC_ISP = 2,         /* a tasklet request's input pages */
    CSD_SRC_MAP = 3,         /* mapping-table pages (map-cached FTLs) */
} csd_flash_src;

/* What the first stage of two-stage processing has found in an operation's request so far (2PM paper
 * III-A, IV-B): set by the submitter, raised by reordering requests (csd_flash_reorder). */
typedef enum csd_match {
    CSD_MATCH_UNKNOWN = 0,      /* not an ISP request, or none of its pages has been classified yet */
    CSD_MATCH_MISMATCHED = 1,   /* classified pages hold no key pattern */
    CSD_MATCH_PARTIAL = 2,      /* a page holds part of the pattern: the second stage must combine */
    CSD_MATCH_MATCHED = 3,      /* a page holds the whole pattern: a key request */
} csd_match;

/* ---- Flash command sets and request information (DRS paper II-A, V-B, V-D) ----------------------
 * A host request's logical page is served by a flash command set: map reads/programs the map cache
 * needs, then the data read or program, one after the other. A map-cached FTL labels each operation
 * with its role in the set and the set (the object page) it serves; map operations carry a tag so a
 * later request that needs the same cache line can wait for them (a delaying command, V-B-1) instead
 * of issuing its own. The submitter (flash/cmdset.h) turns a request's batch into sets, runs each set
 * in order and fills the request information (reqInfo, V-D-1) the command schedulers order by. */
typedef enum csd_fcmd_role {
    CSD_ROLE_NONE = 0,      /* not part of a set (GC, or an FTL without a map cache) */
    CSD_ROLE_DLE_MR = 1,    /* dirty-line eviction: read the victim's old map page */
    CSD_ROLE_DLE_MP = 2,    /* dirty-line eviction: program the updated map page (batch update) */
    CSD_ROLE_CLF_MR = 3,    /* cache-line fetch: read the map page holding the needed entries */
    CSD_ROLE_DATA = 4,      /* the data read (DR) or program (DP) itself */
} csd_fcmd_role;

typedef enum csd_delay_kind { CSD_DELAY_NONE = 0, CSD_DELAY_CLF = 1, CSD_DELAY_DLE = 2 } csd_delay_kind;
typedef enum csd_req_type { CSD_REQ_NONE = 0, CSD_REQ_READ = 1, CSD_REQ_WRITE = 2 } csd_req_type;

/* reqInfo (DRS V-D-1): a request's type and flash operation time (FOT, V-B-2: the summed array and
 * transfer time of every command it must wait for, its own and the delaying ones). */
typedef struct csd_req_info {
    uint8_t type;           /* csd_req_type */
    uint64_t fot_ns;
} csd_req_info;
/* 1 when a should be served before b: a read beats a write whatever the FOT, then the smaller FOT. */
int csd_req_info_better(const csd_req_info *a, const csd_req_info *b);

typedef struct csd_flash_req {
    uint8_t kind;     /* csd_flash_kind */
    uint8_t gc;       /* 1 = issued by garbage collection */
    uint64_t ppn;     /* page (READ/PROGRAM) or first page of the block (ERASE) */
    /* command sets (see above); all zero for an FTL without a map cache */
    uint8_t role;     /* csd_fcmd_role */
    uint8_t wait_kind;/* csd_delay_kind of wait */
    uint64_t set;     /* the set it belongs to (object page + 1; 0 = none) */
    uint64_t tag;     /* map operations: unique, increasing (0 = untagged) */
    uint64_t wait;    /* tag of an earlier map operation this set must wait for (0 = none) */
} csd_flash_req;

/* A growable list of flash operations, in the order the FTL issued them. */
typedef struct csd_flash_batch {
    csd_flash_req *ops;
    size_t n, cap;
} csd_flash_batch;

void csd_flash_batch_clear(csd_flash_batch *b);
void csd_flash_batch_free(csd_flash_batch *b);
/* Append one operation; 0 or -ENOMEM (the batch is unchanged then). */
int csd_flash_batch_add(csd_flash_batch *b, uint8_t kind, int gc, uint64_t ppn);
/* Append one labelled operation (command sets). 0 or -ENOMEM. */
int csd_flash_batch_add_req(csd_flash_batch *b, const csd_flash_req *r);

typedef struct csd_addr {
    uint32_t channel, chip, die, plane, block, page;
    uint32_t chip_global;   /* channel * chips_per_channel + chip */
} csd_addr;

/* Physical page numbers: ppn = (unit * blocks_per_plane + block) * pages_per_block + page, with
 * unit = ((chip_global * dies_per_chip) + die) * planes_per_die + plane. */
void csd_ppn_decode(const csd_params *p, uint64_t ppn, csd_addr *a);
uint64_t csd_ppn_encode(const csd_params *p, const csd_addr *a);
uint32_t csd_units(const csd_params *p);  /* channels * chips * dies * planes */
/* Cell type of ppn's block: 1 = SLC mode (the first csd_params_slc_blocks() blocks of every plane),
 * 0 = the normal (TLC) cells. docs/TIMING-MODEL.md, "Hybrid SLC/TLC blocks". */
int csd_ppn_is_slc(const csd_params *p, uint64_t ppn);
/* Array time of one operation of kind on ppn's block: t_read/t_prog/t_erase of its cell type. */
uint64_t csd_flash_cell_ns(const csd_params *p, uint8_t kind, uint64_t ppn);

typedef struct csd_flash_op csd_flash_op;

/* One word of a policy's scratch area on an operation (csd_flash_op.chip_scratch, .fcmd_scratch). */
typedef union csd_flash_word {
    int64_t i;
    uint64_t u;
} csd_flash_word;
#define CSD_FLASH_CHIP_SCRATCH 4
#define CSD_FLASH_FCMD_SCRATCH 2
typedef void (*csd_flash_done_fn)(csd_flash_op *op, uint64_t t_done);

struct csd_flash_op {
    uint8_t kind;            /* csd_flash_kind: READ, PROGRAM, ERASE */
    uint8_t src;             /* csd_flash_src */
    uint64_t ppn;
    uint64_t submit_ns;      /* set by csd_flash_submit */
    uint64_t seq;            /* set by csd_flash_submit: global submission order */
    void *owner;             /* the request (or host command) that issued it; for policies */
    uint64_t req_id;         /* that request's number (timelines; 0 = none) */
    /* two-stage processing and its chip-queue policies (2PM paper IV): set by the submitter */
    uint8_t match;           /* csd_match of the owner's first-stage results when submitted */
    /* command sets and request information (DRS paper V-D): set by the submitter (flash/cmdset.h);
     * zero for operations outside a host request's command set */
    uint8_t role;            /* csd_fcmd_role */
    uint8_t req_type;        /* csd_req_type of the request that issued it */
    uint64_t req_pages;      /* that request's size in pages (the Size scheduler) */
    csd_req_info ri[3];      /* reqInfo[0] original request, [1] with CLF-delayed, [2] with DLE-delayed */
    /* Scratch the policies own, each area its own layer's: the chip-queue policy's (flash/chip_queue.h
     * names its words) and the flash-command scheduler's (flash/fcmd_queue.h). A policy keeps what it
     * needs per operation there, under its own names, instead of a field here; csd_flash_submit zeroes
     * both. */
    csd_flash_word chip_scratch[CSD_FLASH_CHIP_SCRATCH];
    csd_flash_word fcmd_scratch[CSD_FLASH_FCMD_SCRATCH];
    csd_flash_done_fn done;
    void *arg;
    csd_flash_op *next;      /* queue link, owned by whoever holds the op: the flash-command
                              * scheduler, then the chip policy */
};

typedef struct csd_flash csd_flash;

/* Chip-queue policy: the order in which one chip serves the operations queued for it. Each is one
 * chip_<name>.c; chip_registry.c lists them. fcfs serves in arrival order. */
typedef struct csd_chip_sched_ops {
    const char *name;
    int (*init)(void **state, const csd_params *p, uint32_t chips);
    void (*enqueue)(void *state, uint32_t chip, csd_flash_op *op, uint64_t now);
    csd_flash_op *(*next)(void *state, uint32_t chip, uint64_t now);  /* NULL when empty */
    void (*destroy)(void *state);
    /* Optional: a reordering request (2PM paper IV-B): the first stage classified a page of owner's
     * request, whose results so far are now `match` (csd_match). */
    void (*reorder)(void *state, const void *owner, uint8_t match, uint64_t now);
    /* Optional: called once after init with the model, for policies that look at its state
     * (csd_flash_channel_busy). */
    void (*attach)(void *state, const csd_flash *f);
} csd_chip_sched_ops;

const csd_chip_sched_ops *csd_chip_sched_find(const char *name);
const csd_chip_sched_ops *csd_chip_sched_at(size_t i);   /* NULL past the last */

/* Flash-command scheduler: sits between the requesters (host commands, garbage collection, tasklet
 * reads, mapping-table traffic) and the chips' queues, and decides when each submitted operation is
 * handed to its chip's queue (csd_flash_dispatch). Each is one fcmd_<name>.c; fcmd_registry.c lists
 * them. fifo hands every operation on the moment it arrives. */
typedef struct csd_fcmd_ops {
    const char *name;
    int (*init)(void **state, const csd_params *p, csd_flash *f);
    /* An operation was submitted at now: keep it, or hand it on with csd_flash_dispatch(). */
    void (*submit)(void *state, csd_flash_op *op, uint64_t now);
    /* A chip finished its operation and has nothing in service: a chance to hand on more. */
    void (*chip_idle)(void *state, uint32_t chip, uint64_t now);
    void (*destroy)(void *state);
    /* Optional: op's request information changed while it is held (a delayed request joined its set,
     * DRS V-C): re-place it. */
    void (*requeue)(void *state, csd_flash_op *op, uint64_t now);
} csd_fcmd_ops;

const csd_fcmd_ops *csd_fcmd_find(const char *name);
const csd_fcmd_ops *csd_fcmd_at(size_t i);   /* NULL past the last */

typedef struct csd_flash_stats {
    uint64_t reads, programs, erases;          /* completed operations */
    uint64_t bytes_read, bytes_written;
    uint64_t chip_busy_ns, channel_busy_ns;    /* summed over all chips / channels */
    uint64_t fw_busy_ns;                       /* firmware (serial) */
    uint64_t suspends;                         /* programs and erases a read suspended (flash_suspend) */
} csd_flash_stats;

/* The flash model with the policies p names (chip_scheduler, flash_scheduler). 0, -EINVAL (unknown
 * policy, zero geometry or blocks_per_plane not yet derived; err says which) or -ENOMEM. */
int csd_flash_create(csd_flash **out, const csd_params *p, csd_sim *sim, char *err, size_t errlen);
/* The same with explicit policies (tests, experiments); the names in p are ignored. */
int csd_flash_create_with(csd_flash **out, const csd_params *p, csd_sim *sim,
                          const csd_chip_sched_ops *policy, const csd_fcmd_ops *fcmd, char *err, size_t errlen);
/* Frees the model; events it scheduled stay in sim, so destroy the sim with it (never step again). */
void csd_flash_destroy(csd_flash *f);
/* Submit op at the current sim time, to the flash-command scheduler; op->done(op, t) runs (in an
 * event at t) when it completes. The op memory must stay valid until then. A ppn beyond the geometry
 * wraps onto chip (index mod chips): callers validate addresses; the timing model never reads out of
 * bounds. */
void csd_flash_submit(csd_flash *f, csd_flash_op *op);
/* For flash-command schedulers: hand op on to its chip now (a program goes through the firmware
 * first, then queues). */
void csd_flash_dispatch(csd_flash *f, csd_flash_op *op);
/* op's request information changed (DRS V-C): the scheduler re-places it if it still holds it. */
void csd_flash_requeue(csd_flash *f, csd_flash_op *op);
/* The model's clock, and an event at t >= now for schedulers (deadlines, same-instant decisions). */
uint64_t csd_flash_now(const csd_flash *f);
void csd_flash_at(csd_flash *f, uint64_t t, csd_sim_fn fn, void *arg);
/* Chip and channel time of one operation of kind (array time + page transfer): its share of a FOT. */
uint64_t csd_flash_op_ns(const csd_flash *f, uint8_t kind);
/* The chip (global index) op addresses. */
uint32_t csd_flash_chip_of(const csd_flash *f, const csd_flash_op *op);
/* 1 when chip has no operation in service. */
int csd_flash_chip_idle(const csd_flash *f, uint32_t chip);
/* For chip-queue policies that hold queued operations back (paq): chip may have work now; if it is
 * idle it asks the policy's next() in an event at the current time. Changes nothing else. */
void csd_flash_kick(const csd_flash *f, uint32_t chip);
void csd_flash_stats_get(const csd_flash *f, csd_flash_stats *s);
/* Record chip, channel and firmware spans and chip queue depths into t (NULL: stop). */
typedef struct csd_trace csd_trace;
void csd_flash_set_trace(csd_flash *f, csd_trace *t);
/* Operations queued at chip (dispatched, not yet started). */
uint32_t csd_flash_chip_queued(const csd_flash *f, uint32_t chip);
/* ns the channel needs for one page. */
uint64_t csd_flash_page_xfer_ns(const csd_flash *f);
/* A reordering request to the chip-queue policy (2PM paper III-B "result analyzer", IV-B): owner's
 * first-stage results are now match. Policies without a reorder hook ignore it. */
void csd_flash_reorder(csd_flash *f, const void *owner, uint8_t match);
/* 1 when channel is transferring a page now. */
int csd_flash_channel_busy(const csd_flash *f, uint32_t channel);
/* The channel of a chip (global index). */
uint32_t csd_flash_channel_of(const csd_flash *f, uint32_t chip);

#endif
