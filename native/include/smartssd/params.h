/* Device parameters: one struct, every field with its unit. Defaults are the Smart SSD paper's
 * device (Kang et al., MSST'13, section V-A); docs/DEVICE-CONFIG.md explains each one. */
#ifndef SMARTSSD_PARAMS_H
#define SMARTSSD_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CSD_NAME_MAX 32
#define CSD_PATH_MAX 256
#define CSD_EMULATOR_WORDS 4

typedef struct csd_params {
    char preset[CSD_NAME_MAX];          /* name of the preset these values started from */

    /* geometry */
    uint32_t channels;                  /* count */
    uint32_t chips_per_channel;         /* count */
    uint32_t dies_per_chip;             /* count */
    uint32_t planes_per_die;            /* count */
    uint32_t pages_per_block;           /* count */
    uint32_t page_bytes;                /* bytes per flash page (power of two, 512..65536) */
    uint32_t blocks_per_plane;          /* count; 0 = derived from capacity at format time */
    uint32_t overprovision_pct;         /* percent of physical space hidden from the host */
    uint32_t gc_free_blocks_min;        /* blocks per plane kept free; GC starts below this */

    /* flash timing */
    uint64_t t_read_ns;                 /* ns, page read array -> page register */
    uint64_t t_prog_ns;                 /* ns, page program */
    uint64_t t_erase_ns;                /* ns, block erase */
    uint64_t channel_bytes_per_s;       /* bytes/s on one flash channel */
    uint64_t fw_page_ns;                /* ns of flash-controller firmware per page moved (serial) */

    /* host link */
    uint64_t host_link_bytes_per_s;     /* bytes/s, e.g. SATA 3 Gb/s = 300,000,000 */
    uint64_t cmd_overhead_ns;           /* ns, fixed cost of one command on the link + firmware */

    /* embedded cores and DRAM */
    uint32_t cores;                     /* embedded cores running tasklets */
    uint32_t core_mhz;                  /* MHz */
    uint64_t dram_access_ns;            /* ns per tasklet DRAM access (4-byte read + compare) */
    uint32_t page_cycles;               /* cycles the runtime spends per page before the tasklet */
    uint32_t isp_batch_pages;           /* pages an internal tasklet read fetches at a time */
    uint64_t isp_buffer_bytes;          /* bytes of device DRAM for tasklet input pages */
    uint64_t isp_send_ns;               /* ns of core time to send one flash request (REMUS stage S, T_s) */
    uint32_t isp_flash_quota;           /* pages one core may have in flight (REMUS Q); 0 = its chips x planes */
    uint64_t output_buffer_bytes;       /* bytes of device DRAM for one output object's results */
    uint32_t max_objects;               /* data objects the object table holds */

    /* policies, one per layer (names: `csd identify`; docs/ARCHITECTURE.md lists the seams) */
    char issue_model[CSD_NAME_MAX];       /* how tasklet requests become flash reads and core slots:
                                           * "batch" (the Smart SSD paper's device) or "stage" (REMUS's
                                           * stages S/F/P; isp_send_ns, isp_flash_quota) */
    char request_scheduler[CSD_NAME_MAX]; /* which tasklet request a core serves, from the issue model's
                                           * table (docs/SCHEDULERS.md) */
    char chip_scheduler[CSD_NAME_MAX];    /* order of one chip's queue */
    char ftl[CSD_NAME_MAX];               /* mapping policy: where the map lives (fixed at format) */
    char flash_scheduler[CSD_NAME_MAX];   /* when submitted flash operations reach the chips' queues */
    char placement[CSD_NAME_MAX];         /* which page a host write takes, which block GC reclaims
                                           * (fixed at format) */

    /* request schedulers: how the baselines are adapted to several cores (docs/SCHEDULERS.md) */
    char baseline_adaptation[CSD_NAME_MAX]; /* "shared-engine" (default) or "paper", +modifiers */
    uint32_t remus_qthres_cap;          /* bool: 1 = REMUS's Q_thres never exceeds Q (default); 0 =
                                         * Algorithm 1 as written (uncapped) */
    char horae_critical_path[CSD_NAME_MAX]; /* HORAE's priority: "remaining" (the work its stages still
                                         * need, default) or "predecessor" (the time its stages have had) */
    uint64_t serico_period_ns;          /* ns between SERICO's deadline updates (default 1 ms) */
    char serico_edf[CSD_NAME_MAX];      /* what SERICO's deadlines order: "stage" (every request's
                                         * stages, default) or "request" (the earliest request holds the
                                         * core) */
    uint32_t serico_half_pages;         /* pages in a half of SERICO's ping-pong buffer; 0 = the
                                         * adaptation's (shared-engine ceil(Q/2), paper Q) */
    /* observing (docs/TRACING.md) */
    char trace_file[CSD_PATH_MAX];      /* timeline of this session, written at close ("" = off); {image}
                                         * and {pid} in it become the image's file name and the pid */
    uint64_t trace_events;              /* events the timeline keeps (the newest; a ring) */
    uint64_t trace_from_ns;             /* ns of device time: record only events overlapping */
    uint64_t trace_to_ns;               /* [from, to); to = 0: no end */

    /* two-stage processing and ISP-aware chip scheduling (2PM; docs/2PM.md) */
    uint64_t pm_bytes_per_s;            /* bytes/s of the pattern-matching unit on each channel's data path
                                         * that runs the first stage of two-stage tasklets; 0 = none (the
                                         * first stage runs on the cores) */
    uint32_t chip_queue_slots;          /* sub-requests a reordering chip-queue policy holds per chip (2PM
                                         * "sub-request queue size"); later ones wait in arrival order;
                                         * 0 = unlimited */
    uint32_t chip_max_passes;           /* count: times a queued operation may be passed by later ones under
                                         * 2pm+ before nothing passes it any more (2PM IV-D); 0 = no bound */
    uint32_t flash_suspend;             /* bool: a read the chip's policy serves next suspends a program or
                                         * erase in progress, which resumes after it (ideal: no cost) */
    /* user tasklets: programs users install (docs/USER-TASKLETS.md) */
    uint64_t tasklet_memory_bytes;      /* bytes of linear memory one sandboxed execution may have */
    uint64_t tasklet_fuel_per_page;     /* instructions (fuel) a sandboxed call may run: init, one page, finish */
    uint32_t tasklet_cycles_per_kfuel;  /* core cycles charged per 1000 instructions (fuel) run */
    uint64_t tasklet_stack_bytes;       /* bytes of native stack sandboxed code may use */
    char tasklet_trusted_dir[CSD_PATH_MAX]; /* directory native (.so) tasklets load from; "" = none */

    /* emulation */
    uint32_t paced;                     /* 1 = wall time never runs ahead of device time */
    uint32_t sync_writes;               /* 1 = fdatasync before acknowledging a write (power-loss safety) */
    uint32_t discard_data;              /* 1 = the image keeps records and metadata but no page bytes (a
                                         * timing-only device: every read returns zeros, so write zeros) */

    /* hardening: clients of a daemon (docs/RELIABILITY.md) */
    uint64_t orphan_timeout_ms;         /* ms: tasklet and output objects of a client that disconnected,
                                         * and a running output whose client stopped reading it, are
                                         * reclaimed once unused this long (0 = at once) */

    /* hybrid SLC/TLC cells and wear (docs/HYBRID.md; hybrid paper VI-A, Table 2) */
    uint32_t slc_share_pct;             /* percent of each plane's blocks run in SLC mode (the first ones);
                                         * 0 = one cell type (t_read_ns, t_prog_ns, pages_per_block) */
    uint32_t slc_pages_per_block;       /* count: pages a block holds in SLC mode (<= pages_per_block) */
    uint64_t t_read_slc_ns;             /* ns, page read of an SLC-mode block */
    uint64_t t_prog_slc_ns;             /* ns, page program of an SLC-mode block */
    uint64_t t_erase_slc_ns;            /* ns, erase of an SLC-mode block */
    uint32_t pe_cycles_slc;             /* P/E cycles an SLC-mode block endures */
    uint32_t pe_cycles_tlc;             /* P/E cycles a TLC (normal) block endures */
    uint32_t gc_free_pct;               /* percent of a region's blocks per plane GC keeps free (at
                                         * least gc_free_blocks_min); 0 = gc_free_blocks_min alone */
    uint32_t level_balance_weight_pct;  /* percent: BalancingWeight of placement "level" (hybrid paper
                                         * V-B, Algorithm 3; 10 = 0.1) */
    uint32_t combo_small_bytes;         /* bytes: placement "combo" sends writes up to this size to SLC */
    uint32_t level_balance_ours;        /* 1 = placement "level" with our additions to Algorithm 3: a period
                                         * also ends on TLC writes, SLCTargetLevel between -1 (nothing to
                                         * SLC) and the deepest level written; 0 = as printed (docs/HYBRID.md) */
    uint32_t level_migrate_any;         /* 1 = deep pages move to TLC from any SLC GC victim; 0 = only from
                                         * Algorithm 4's migration victim (hybrid paper V-D) */
    uint32_t gc_free_device;            /* 1 = a region's reserve (gc_free_pct) counts free blocks over the
                                         * whole device; 0 = per plane */
    uint32_t level_phi_pct;             /* percent: placement "level" balances toward this share of phi
                                         * (Algorithm 3's WriteAmountBalance; 100 = the paper's formula,
                                         * other values a what-if of the hybrid bench's sweep) */

    /* host block I/O (docs/BLOCK-IO.md) */
    uint32_t block_queue_depth;         /* requests: block requests in service at once; later arrivals
                                         * wait in the I/O request queue for a slot (1..65536) */
    uint32_t flash_queue_depth;         /* commands: the flash command queue's entries (DRS paper VI-A);
                                         * each command set in progress holds one (its current command)
                                         * from its request's admission until its last command completes;
                                         * a request waits in the I/O request queue until its sets fit
                                         * (any request fits an empty queue); 0 = no limit */
    /* map-cached FTL (ftl = dftl; DRS paper II-A) */
    uint64_t map_cache_bytes;           /* bytes of device DRAM for cached map entries (8 bytes each) */
    uint32_t map_cache_line_entries;    /* entries per cache line: the unit fetched from a map page */

    /* the emulator's own machinery, apart from the device it models: wall time only, never device
     * time. Its settings have keys like every other field and are set and read by them
     * (csd_params_set, csd_params_visit; docs/DEVICE-CONFIG.md, the rows "the emulator"). */
    uint32_t emulator[CSD_EMULATOR_WORDS];
} csd_params;

/* Blocks of each plane in SLC mode for p (blocks_per_plane set): the first ones of the plane. */
uint32_t csd_params_slc_blocks(const csd_params *p);

/* Fill p with the named preset ("smartssd-paper", "tiny", "ys9203", "2pm", "hybrid", "drs"). Returns 0 or -ENOENT. */
int csd_params_preset(csd_params *p, const char *name);

/* Names of the presets, NULL-terminated. */
const char *const *csd_params_preset_names(void);

/* Set one field from text ("channels", "16"). Sizes accept K/M/G suffixes (powers of 1024) for byte
 * fields. Returns 0, -ENOENT for an unknown key, -EINVAL for a bad value (err says which). */
int csd_params_set(csd_params *p, const char *key, const char *value, char *err, size_t errlen);

/* Read a config file: lines "key = value", '#' comments; "preset = NAME" first resets to that
 * preset. Returns 0 or a negative errno with err naming the line. */
int csd_params_load_file(csd_params *p, const char *path, char *err, size_t errlen);

/* Parse a byte count with optional K/M/G/T suffix (powers of 1024), e.g. "64M". 0 or -EINVAL. */
int csd_parse_size(const char *s, uint64_t *out);

/* Check the values are consistent. Returns 0 or -EINVAL with err naming the field. */
int csd_params_validate(const csd_params *p, char *err, size_t errlen);

/* Visit every field as (key, value-text) in a stable order. */
typedef void (*csd_params_visit_fn)(void *arg, const char *key, const char *value, const char *unit);
void csd_params_visit(const csd_params *p, csd_params_visit_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif
