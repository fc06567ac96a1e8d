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
#ifndef CSD_FLASH_H
#define CSD_FLASH_H

#include <stdint.h>
#include "smartssd/params.h"
#include "sim/sim.h"

typedef struct csd_addr {
    uint32_t channel, chip, die, plane, block, page;
    uint32_t chip_global;   /* channel * chips_per_channel + chip */
} csd_addr;

/* Physical page numbers: ppn = (unit * blocks_per_plane + block) * pages_per_block + page, with
 * unit = ((chip_global * dies_per_chip) + die) * planes_per_die + plane. */
void csd_ppn_decode(const csd_params *p, uint64_t ppn, csd_addr *a);
uint64_t csd_ppn_encode(const csd_params *p, const csd_addr *a);
uint32_t csd_units(const csd_params *p);  /* channels * chips * dies * planes */

typedef struct csd_flash_op csd_flash_op;
typedef void (*csd_flash_done_fn)(csd_flash_op *op, uint64_t t_done);

struct csd_flash_op {
    uint8_t kind;            /* csd_flash_kind (ftl/ftl.h): READ, PROGRAM, ERASE */
    uint64_t ppn;
    uint64_t submit_ns;      /* set by csd_flash_submit */
    uint64_t seq;            /* set by csd_flash_submit: global submission order */
    void *owner;             /* the request (or host command) that issued it; for policies */
    int64_t priority;        /* free for policies */
    csd_flash_done_fn done;
    void *arg;
    csd_flash_op *next;      /* queue link, owned by the chip policy while queued */
};

/* Chip-queue discipline (DESIGN.md section 6). FCFS serves in submission order. */
typedef struct csd_chip_sched_ops {
    const char *name;
    int (*init)(void **state, const csd_params *p, uint32_t chips);
    void (*enqueue)(void *state, uint32_t chip, csd_flash_op *op, uint64_t now);
    csd_flash_op *(*next)(void *state, uint32_t chip, uint64_t now);  /* NULL when empty */
    void (*destroy)(void *state);
} csd_chip_sched_ops;

const csd_chip_sched_ops *csd_chip_sched_find(const char *name);
extern const csd_chip_sched_ops csd_chip_sched_fcfs;

typedef struct csd_flash_stats {
    uint64_t reads, programs, erases;          /* completed operations */
    uint64_t bytes_read, bytes_written;
    uint64_t chip_busy_ns, channel_busy_ns;    /* summed over all chips / channels */
    uint64_t fw_busy_ns;                       /* firmware (serial) */
} csd_flash_stats;

typedef struct csd_flash csd_flash;

/* 0, -EINVAL (unknown chip scheduler, zero geometry or blocks_per_plane not yet derived) or -ENOMEM. */
int csd_flash_create(csd_flash **out, const csd_params *p, csd_sim *sim);
/* The same with an explicit chip policy (tests, experiments); p->chip_scheduler is ignored. */
int csd_flash_create_with(csd_flash **out, const csd_params *p, csd_sim *sim,
                          const csd_chip_sched_ops *policy);
/* Frees the model; events it scheduled stay in sim, so destroy the sim with it (never step again). */
void csd_flash_destroy(csd_flash *f);
/* Queue op at the current sim time; op->done(op, t) runs (in an event at t) when it completes. The op
 * memory must stay valid until then. A ppn beyond the geometry wraps onto chip (index mod chips):
 * callers validate addresses; the timing model never reads out of bounds. */
void csd_flash_submit(csd_flash *f, csd_flash_op *op);
void csd_flash_stats_get(const csd_flash *f, csd_flash_stats *s);
/* ns the channel needs for one page. */
uint64_t csd_flash_page_xfer_ns(const csd_flash *f);

#endif
