/* The client side of the daemon's framing (server.h declares it): connect with a check of who serves
 * the socket, send a Request frame, receive a Response frame. Needs nothing of the device, so a tool
 * that only talks to csdd (the NBD plugin) builds it alone. */
#include "transport/frame.h"
#include "transport/server.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int csd_frame_read(int fd, void *buf, size_t n, int timeout_ms) {
    uint8_t *p = buf;
    while (n) {
        if (timeout_ms >= 0) {
            struct pollfd pf = { fd, POLLIN, 0 };
            int r = poll(&pf, 1, timeout_ms);
            if (r < 0 && errno == EINTR) continue;
            if (r == 0) return -ETIMEDOUT;
            if (r < 0) return -errno;
        }
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k == 0 ? -ECONNRESET : -errno;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n) {
    const uint8_t *p = buf;
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -errno;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int csd_frame_write(int fd, const uint8_t *p, size_t n) {
    uint8_t hdr[4] = { (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24) };
    int rc = write_full(fd, hdr, 4);
    return rc ? rc : write_full(fd, p, n);
}

int csd_client_connect(const char *path, char *err, size_t errlen) {
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (!path || strlen(path) >= sizeof a.sun_path) {
        snprintf(err, errlen, "bad socket path");
        return -EINVAL;
    }
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
        int e = errno;
        snprintf(err, errlen, "connect %s: %s", path, strerror(e));
        close(fd);
        return -e;
    }
    struct ucred cr;
    socklen_t crlen = sizeof cr;
    if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) && cr.uid != geteuid() && cr.uid != 0) {
        snprintf(err, errlen, "%s is served by uid %u (pid %d), not by this user or root; refusing to send it "
                 "commands", path, (unsigned)cr.uid, (int)cr.pid);
        close(fd);
        return -EPERM;
    }
    return fd;
}

int csd_client_send(int fd, const uint8_t *req, size_t len) { return csd_frame_write(fd, req, len); }

int csd_client_recv(int fd, uint8_t **resp, size_t *resp_len) {
    uint8_t hdr[4];
    int rc = csd_frame_read(fd, hdr, 4, -1);
    if (rc) return rc;
    uint32_t n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
    if (n > CSD_MAX_PACKET) return -EPROTO;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return -ENOMEM;
    if ((rc = csd_frame_read(fd, b, n, -1))) {
        free(b);
        return rc;
    }
    *resp = b;
    *resp_len = n;
    return 0;
}

int csd_client_call(int fd, const uint8_t *req, size_t len, uint8_t **resp, size_t *resp_len) {
    int rc = csd_client_send(fd, req, len);
    return rc ? rc : csd_client_recv(fd, resp, resp_len);
}
