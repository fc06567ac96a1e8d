/* The device daemon's transport: one device served on a Unix domain socket. Frames are a 4-byte
 * little-endian length and a packed smartssd.v1.Request (or Response), the same bytes as in-process.
 * Each client has a thread; each command is atomic on the device; tasklet requests from all clients
 * meet in the device's request scheduler, not in socket arrival order. */
#ifndef CSD_TRANSPORT_SERVER_H
#define CSD_TRANSPORT_SERVER_H

#include <stddef.h>
#include "smartssd/csd.h"

typedef struct csd_server csd_server;

/* Bind socket_path (mode 0600). An existing path is replaced only if it is a socket owned by this
 * user; anything else is refused. 0 or -errno with err set. */
int csd_server_create(csd_server **out, csd_device *dev, const char *socket_path, char *err, size_t errlen);
/* Accept and serve clients until csd_server_stop(). Returns 0. */
int csd_server_run(csd_server *s);
/* Ask run() to return; async-signal-safe. */
void csd_server_stop(csd_server *s);
/* Disconnect clients, join their threads, remove the socket. The device stays open. */
void csd_server_destroy(csd_server *s);

/* Client side of the same framing, for tools and tests: connect, one round trip, close. */
int csd_client_connect(const char *socket_path, char *err, size_t errlen);   /* fd or -errno */
int csd_client_call(int fd, const uint8_t *req, size_t len, uint8_t **resp, size_t *resp_len); /* 0 or -errno */

#endif
