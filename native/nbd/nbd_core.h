/* The NBD export's request handling, apart from nbdkit so that a fuzzer and tests drive it too: an
 * NBD read, write, trim, zero or flush of the export becomes a block command on the device
 * (docs/BLOCK-IO.md), sent through a transport that carries packed Requests and Responses (the
 * daemon's socket in the plugin, the device's own entry point in the fuzzer). Every request is checked
 * against the export (its size, the LBA alignment it advertises) before anything is sent; failures are
 * errno values an NBD server sends back.
 *
 * One client connection is one queue (nbd_queue.c): one device session, and one dispatcher thread
 * that submits every request waiting at that moment in one BlockSubmit (arriving at the device clock)
 * and polls for the next completion, as a host driver feeds an NVMe queue pair. So the device sees the
 * client's queue depth in its own time: fio at iodepth 32 keeps 32 requests outstanding on the
 * device's clock, whatever the host's threads do meanwhile. */
#ifndef CSD_NBD_CORE_H
#define CSD_NBD_CORE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* NBD-side operations (the nbdkit callbacks). */
enum { CSD_NBD_READ = 1, CSD_NBD_WRITE, CSD_NBD_TRIM, CSD_NBD_ZERO, CSD_NBD_FLUSH };
/* Flags (the nbdkit ones the export honours). */
#define CSD_NBD_MAY_TRIM 1u   /* ZERO may leave a hole: a trimmed LBA reads as zeros */
#define CSD_NBD_FAST_ZERO 2u  /* ZERO must be quick or fail with ENOTSUP */

/* Largest request the export accepts (advertised as its maximum block size), bytes. */
#define CSD_NBD_MAX_REQUEST (4u << 20)

/* Carries n packed Requests to the device in order and returns their n packed Responses (malloc'd,
 * the caller frees each with free()). 0, or -errno with nothing returned (the daemon is gone: the
 * export answers EIO).
 * generation (may be NULL: never changes) counts the device sessions the transport has used: when it
 * moved during a call, the session changed (a daemon restarted) and requests outstanding in the old
 * one are gone; the queue submits them again (every block command is idempotent). */
typedef struct csd_nbd_transport {
    int (*call)(void *arg, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                size_t *resp_len);
    uint64_t (*generation)(void *arg);
    void *arg;
} csd_nbd_transport;

/* One line per block request completed, for latency reports: the device's virtual times beside the
 * wall time from its submission to its completion reaching the plugin. */
typedef struct csd_nbd_log {
    FILE *f;
    pthread_mutex_t mu;
} csd_nbd_log;

typedef struct csd_nbd_export {
    uint32_t lba_bytes;
    uint64_t lbas;
    uint64_t size;              /* lbas * lba_bytes */
    uint64_t busy_ns;           /* how long a device too busy to take a request (RESOURCE_EXHAUSTED) is
                                 * asked again, backing off, before the client gets ENOMEM; 0 = 10 s */
    int paced;                  /* the device runs paced (params.paced): its clock follows wall time on its
                                 * own, so the dispatcher never waits for refills */
    uint64_t refill_ns;         /* after completions, how long the dispatcher waits for the client to send as
                                 * many new requests before it runs the device on (a host answers a
                                 * completion with its next request at once: on the device's clock the new
                                 * request then arrives when the old one completed, and the client's queue
                                 * depth holds); 0 = 2 ms, UINT64_MAX = never wait (fastest in wall time;
                                 * the device may run ahead of a slow client, below its queue depth) */
    csd_nbd_log *log;           /* NULL = none */
} csd_nbd_export;

/* The namespace's geometry (BlockInfo) and whether the device is paced (Identify). 0, or an errno
 * with err set. */
int csd_nbd_info(const csd_nbd_transport *t, csd_nbd_export *x, char *err, size_t errlen);

/* Checks an NBD request against the export. 0 with *bop (the block command), or the errno the client
 * gets (EINVAL: not aligned to lba_bytes, empty or too large; EINVAL / ENOSPC: past the end, for
 * reads / the rest; ENOTSUP: a fast zero that would write). *zero_write: a ZERO stored as a write of
 * zeros (not allowed to leave a hole). */
int csd_nbd_check(const csd_nbd_export *x, int op, uint32_t count, uint64_t offset, uint32_t flags, uint8_t *bop,
                  int *zero_write, char *err, size_t errlen);

typedef struct csd_nbd_queue csd_nbd_queue;

/* A queue over transport t (used by its dispatcher thread only) for export x. 0 or an errno. */
int csd_nbd_queue_start(csd_nbd_queue **out, const csd_nbd_transport *t, const csd_nbd_export *x);
/* The same with inline_mode 1: no dispatcher thread, each csd_nbd_request runs the exchanges it needs
 * in its caller's thread (one caller at a time: a single-threaded client, the fuzzer). */
int csd_nbd_queue_start_mode(csd_nbd_queue **out, const csd_nbd_transport *t, const csd_nbd_export *x, int inline_mode);
/* Stop the dispatcher once nothing is waiting; requests still outstanding on the device are left to it. */
void csd_nbd_queue_stop(csd_nbd_queue *q);

/* One NBD request through queue q, from any thread: 0, or the errno the client gets (csd_nbd_check's,
 * ENOSPC: the device is full; EIO: the device failed or is gone; ENOMEM: it stayed too busy) with err
 * set. buf: READ fills count bytes, WRITE sends them; unused otherwise. FLUSH takes count 0. */
int csd_nbd_request(csd_nbd_queue *q, int op, void *buf, uint32_t count, uint64_t offset, uint32_t flags, char *err,
                    size_t errlen);

int csd_nbd_log_open(csd_nbd_log *l, const char *path, char *err, size_t errlen);
void csd_nbd_log_close(csd_nbd_log *l);

/* Internal to nbd/: packing and the status names, shared by nbd_core.c and nbd_queue.c. */
const char *csd_nbd_status_text(int st);
int csd_nbd_status_errno(int st);

#endif
