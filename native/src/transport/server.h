/* The device daemon's transport: one device served on a Unix domain socket. Frames are a 4-byte
 * little-endian length and a packed smartssd.v1.Request (or Response), the same bytes as in-process.
 * Each client has a thread and a device session (its tasklet and output objects are reclaimed once it
 * is gone: csd_session_begin); each command is atomic on the device; tasklet requests from all clients
 * meet in the device's request scheduler, not in socket arrival order.
 *
 * Who may connect: the daemon's own uid, root, and the uids of the allow-list, checked with
 * SO_PEERCRED on every connection; anyone else gets one PERMISSION_DENIED response and is hung up
 * on. The socket is mode 0600 unless the allow-list names another uid (then 0666: the list decides). */
#ifndef CSD_TRANSPORT_SERVER_H
#define CSD_TRANSPORT_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/csd.h"

typedef struct csd_server csd_server;

#define CSD_SERVER_MAX_ALLOW 64

typedef struct csd_server_opts {
    uint32_t allow_uids[CSD_SERVER_MAX_ALLOW]; /* uids served besides the daemon's own and root */
    size_t n_allow;
    uint32_t max_clients;            /* connections served at once; one more gets RESOURCE_EXHAUSTED
                                      * and is hung up on (0 = 1024) */
    uint32_t frame_timeout_ms;       /* ms a client may pause in the middle of a frame before it is
                                      * hung up on (0 = 30000); between frames it may wait forever */
} csd_server_opts;

/* Bind socket_path. An existing path is replaced only if it is a socket owned by this user that no
 * daemon serves; anything else is refused, and so is a directory that other users may write to
 * without the sticky bit (they could swap the socket). opts may be NULL (defaults). 0 or -errno with
 * err set. */
int csd_server_create_opts(csd_server **out, csd_device *dev, const char *socket_path, const csd_server_opts *opts,
                           char *err, size_t errlen);
int csd_server_create(csd_server **out, csd_device *dev, const char *socket_path, char *err, size_t errlen);
/* Accept and serve clients until csd_server_stop(). Returns 0. */
int csd_server_run(csd_server *s);
/* Ask run() to return; async-signal-safe. */
void csd_server_stop(csd_server *s);
/* Disconnect clients, join their threads, remove the socket. The device stays open. */
void csd_server_destroy(csd_server *s);
/* Serve one already-connected client on fd in the calling thread until it hangs up or breaks the
 * framing (the peer check included); fd stays open. For the framing fuzzer and tests. */
void csd_server_serve_fd(csd_server *s, int fd);

/* Client side of the same framing, for tools and tests (client.c). connect refuses a socket served by another
 * user than this one or root (a socket someone else planted). */
int csd_client_connect(const char *socket_path, char *err, size_t errlen);   /* fd or -errno */
int csd_client_call(int fd, const uint8_t *req, size_t len, uint8_t **resp, size_t *resp_len); /* 0 or -errno */
/* The two halves of csd_client_call, so a client may send several frames before it reads their
 * replies (the daemon answers a connection's frames in order). recv's *resp is malloc'd. */
int csd_client_send(int fd, const uint8_t *req, size_t len);
int csd_client_recv(int fd, uint8_t **resp, size_t *resp_len);

#endif
