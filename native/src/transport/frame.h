/* The daemon's framing, shared by its server and its clients: a 4-byte little-endian length, then
 * that many bytes (a packed smartssd.v1.Request or Response). */
#ifndef CSD_TRANSPORT_FRAME_H
#define CSD_TRANSPORT_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* Read n bytes. timeout_ms < 0: wait as long as it takes; else at most that long for each piece.
 * 0, -ETIMEDOUT, -ECONNRESET (end of stream) or -errno. */
int csd_frame_read(int fd, void *buf, size_t n, int timeout_ms);
/* Write one frame: the length, then the bytes. 0 or -errno (never SIGPIPE). */
int csd_frame_write(int fd, const uint8_t *p, size_t n);

#endif
