/* The export's transport to a csdd daemon: one connection, so one device session, per thread that
 * calls it (each nbdkit worker thread waits for its own request, so sessions never mix completions).
 * A daemon that goes away (killed, restarted) is waited for up to retry_ns: the thread reconnects,
 * checks that the namespace is the one exported, and sends its requests again. Every block command
 * is idempotent (a read, a write of the same bytes, a trim, a flush), so a request the dead daemon
 * may or may not have applied is simply applied again. */
#ifndef CSD_NBD_SOCK_H
#define CSD_NBD_SOCK_H

#include <stddef.h>
#include <stdint.h>

#include "nbd_core.h"

typedef struct csd_nbd_sock {
    const char *path;                  /* the daemon's socket */
    uint64_t retry_ns;                 /* how long a request waits for a daemon that is gone */
    const csd_nbd_export *expect;      /* the namespace a new connection must find (NULL: any) */
    void (*note)(const char *msg);     /* told when a connection is lost or made again (may be NULL) */
} csd_nbd_sock;

/* csd_nbd_transport.call with arg = csd_nbd_sock *. */
int csd_nbd_sock_call(void *arg, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                      size_t *resp_len);
/* csd_nbd_transport.generation: connections the calling thread has made (each is a new session). */
uint64_t csd_nbd_sock_generation(void *arg);
/* Close the calling thread's connection (its session ends). */
void csd_nbd_sock_drop(void);

#endif
