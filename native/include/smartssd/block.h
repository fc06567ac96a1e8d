/* smartssd host block I/O: a block namespace beside the objects, read, written and trimmed in LBA
 * ranges with a queue depth, as an NVMe host does (docs/BLOCK-IO.md).
 *
 * One LBA is one device page (page_bytes). The namespace spans the device's logical capacity and is
 * thin: its LBAs share the flash with the objects, an LBA never written or trimmed reads as zeros, and
 * a write finds NO_SPACE when the device is full. It lives in the image (a reserved object that object
 * commands neither list nor touch), so it survives reopen and crash like objects do.
 *
 * Requests carry their arrival time on the device clock; many are outstanding at once. The device
 * serves at most block_queue_depth of them at a time, and with flash_queue_depth only as many as its
 * flash command queue holds the command sets of (the rest wait in the I/O request queue in arrival
 * order), their flash commands overlap on the chips, and completions come back in completion
 * order with the virtual times of each step. The data moves when a request is submitted, in
 * submission order (so a read sees every write submitted before it); the virtual times follow the
 * timing model. A client session (csd_session_begin) polls only its own completions; these functions
 * act as session 0, this process. The same commands travel as BlockSubmit / BlockPoll / BlockInfo packets
 * (proto/smartssd/v1/device.proto); these functions call them without the packing. */
#ifndef SMARTSSD_BLOCK_H
#define SMARTSSD_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/csd.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CSD_BLOCK_MAX_OUTSTANDING 65536u   /* requests submitted and not yet polled */
#define CSD_BLOCK_MAX_LBAS 4096u           /* LBAs of one request */
#define CSD_BLOCK_MAX_SUBMIT_LBAS 262144u  /* LBAs of all the requests of one submission */
#define CSD_BLOCK_MAX_TIME_NS (1ull << 62) /* arrival and poll times: ~146 years, far from overflow */
#define CSD_BLOCK_MAX_DATA_BYTES (32u << 20) /* read data held for BlockPoll replies (return_data) */

/* The same numbers as smartssd.v1.BlockOp. */
typedef enum csd_block_op {
    CSD_BLOCK_READ = 1,
    CSD_BLOCK_WRITE = 2,
    CSD_BLOCK_TRIM = 3,
    CSD_BLOCK_FLUSH = 4,             /* lba 0, count 0: the device has no volatile write cache, so only the
                                      * command's link time; the image is synced (fdatasync) so every write
                                      * acknowledged before it survives a host crash too */
} csd_block_op;

typedef struct csd_block_info {
    uint32_t lba_bytes;
    uint64_t lbas;
    uint32_t queue_depth;            /* block_queue_depth */
    uint32_t max_outstanding;        /* CSD_BLOCK_MAX_OUTSTANDING */
    uint64_t namespace_object;       /* the reserved object's id */
    uint32_t flash_queue_depth;      /* flash_queue_depth (0 = no limit) */
} csd_block_info;

typedef struct csd_block_req {
    uint64_t id;                     /* echoed in the completion */
    uint8_t op;                      /* csd_block_op */
    uint64_t lba;
    uint32_t count;                  /* LBAs, 1..CSD_BLOCK_MAX_LBAS (a FLUSH: 0) */
    uint64_t arrival_ns;             /* device clock; >= the clock and the previous arrival; 0 = at once
                                      * (the clock, or the previous arrival if later) */
    const void *data;                /* WRITE: count * lba_bytes bytes; NULL = the fill pattern */
    uint64_t fill;                   /* WRITE without data: each 8-byte word of LBA x is fill ^ x */
    void *buf;                       /* READ: receives count * lba_bytes bytes at submission (NULL = none) */
    uint32_t hint;                   /* WRITE: the data's lifetime class for the placement policy (e.g. an
                                      * LSM level + 1; 0 = none, at most 255), as write_object's */
    uint64_t bytes;                  /* READ, WRITE: the bytes the host link carries, when the host asked
                                      * for part of the LBAs (a sub-page request, whose first and last
                                      * LBAs it may cover in part): more than count - 2 and at most count
                                      * LBAs' worth; 0 = count * lba_bytes. The flash still reads and
                                      * programs whole pages. */
    uint8_t zeroes;                  /* WRITE: its data are zeros, given by this flag instead of data or
                                      * fill. Timed exactly as that write (its bytes cross the link, the
                                      * pages are mapped and programmed); on the host, a page the image
                                      * holds as zeros already is not rewritten, so no data is stored */
} csd_block_req;

typedef struct csd_block_cpl {
    uint64_t id, lba;
    uint32_t count;
    uint8_t op;
    int status;                      /* csd_status: OK, NO_SPACE, IO_ERROR, ... */
    uint64_t arrival_ns;             /* arrived */
    uint64_t admit_ns;               /* took a device queue slot */
    uint64_t first_flash_ns;         /* its first flash command started (0 = it had none) */
    uint64_t done_ns;                /* completed */
    uint32_t flash_ops;              /* flash commands it issued: map, data, garbage collection */
    /* its latency in the DRS paper's Fig. 10 parts (docs/BLOCK-IO.md): I/O request queue =
     * admit - arrival; host link = (submit - admit) + (done - flash_done); flash operations =
     * flash_busy; flash command queue = the rest */
    uint64_t submit_ns;              /* its commands went to the flash-command scheduler */
    uint64_t flash_done_ns;          /* its last flash command completed (0 = it had none) */
    uint64_t flash_busy_ns;          /* its own commands' (map, data; not GC) time on the flash */
    uint32_t clf_delayed, dle_delayed; /* its command sets that waited for another request's cache-line
                                        * fetch / dirty-line eviction (map-cached FTL; docs/DRS.md) */
} csd_block_cpl;

/* Each returns a csd_status (0 = OK) with err set on failure; the device keeps serving. */
int csd_block_info_get(csd_device *dev, csd_block_info *out, char *err, size_t errlen);
/* Validate all n requests, then apply them in order: either all are accepted or none. */
int csd_block_submit(csd_device *dev, const csd_block_req *reqs, size_t n, char *err, size_t errlen);
/* Run the device until min_completions completions are ready (or nothing is outstanding), then on to
 * until_ns if that is later; *got (<= max) completions into out, oldest completion first. */
int csd_block_poll(csd_device *dev, size_t min_completions, uint64_t until_ns, csd_block_cpl *out, size_t max,
                   size_t *got, char *err, size_t errlen);
/* Requests submitted and not yet polled; the device clock (ns). */
uint64_t csd_block_outstanding(csd_device *dev);
uint64_t csd_device_clock(csd_device *dev);

#ifdef __cplusplus
}
#endif
#endif
