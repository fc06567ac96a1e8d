/* The NBD export's request handling, apart from nbdkit so that a fuzzer and tests drive it too: an
 * NBD read, write, trim, zero or flush of the export becomes block commands on the device
 * (BlockSubmit, then BlockPoll for its completions; docs/BLOCK-IO.md), sent through a transport that
 * carries packed Requests and Responses (the daemon's socket in the plugin, the device's own entry
 * point in the fuzzer). Every request is checked against the export (its size, the LBA alignment it
 * advertises) before anything is sent; failures are errno values an NBD server sends back. */
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
 * the caller frees each with free()). 0 or -errno (the daemon is gone: the export answers EIO). */
typedef struct csd_nbd_transport {
    int (*call)(void *arg, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                size_t *resp_len);
    void *arg;
} csd_nbd_transport;

/* One line per block request completed, for latency reports: the device's virtual times beside the
 * wall time the plugin waited for them. */
typedef struct csd_nbd_log {
    FILE *f;
    pthread_mutex_t mu;
} csd_nbd_log;

typedef struct csd_nbd_export {
    uint32_t lba_bytes;
    uint64_t lbas;
    uint64_t size;              /* lbas * lba_bytes */
    uint64_t busy_ns;           /* how long a device too busy to take a request (RESOURCE_EXHAUSTED: too
                                 * many requests, or read data, held for other clients) is asked again,
                                 * backing off, before the client gets ENOMEM; 0 = 10 s */
    csd_nbd_log *log;           /* NULL = none */
} csd_nbd_export;

/* The namespace's geometry (BlockInfo). 0, or an errno with err set. */
int csd_nbd_info(const csd_nbd_transport *t, csd_nbd_export *x, char *err, size_t errlen);

/* One NBD request: 0, or the errno the client gets (EINVAL: not aligned to lba_bytes, empty or too
 * large; EINVAL / ENOSPC: past the end, for reads / writes; ENOSPC: the device is full; ENOTSUP: a
 * fast zero that would write; EIO: the device failed or is gone; ENOMEM: it stayed too busy) with
 * err set. buf: READ fills count bytes, WRITE sends them; unused otherwise. FLUSH takes count 0. */
int csd_nbd_request(const csd_nbd_transport *t, const csd_nbd_export *x, int op, void *buf, uint32_t count,
                    uint64_t offset, uint32_t flags, char *err, size_t errlen);

int csd_nbd_log_open(csd_nbd_log *l, const char *path, char *err, size_t errlen);
void csd_nbd_log_close(csd_nbd_log *l);

#endif
