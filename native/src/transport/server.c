#include "transport/server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

typedef struct client {
    int fd;
    pthread_t thread;
    int done;
    struct csd_server *srv;
    struct client *next;
} client;

struct csd_server {
    csd_device *dev;
    int listen_fd;
    int wake[2];             /* self-pipe: stop() writes, run() polls */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    pthread_mutex_t mu;
    client *clients;
};

static int read_full(int fd, void *buf, size_t n) {
    uint8_t *p = buf;
    while (n) {
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

static int write_frame(int fd, const uint8_t *p, size_t n) {
    uint8_t hdr[4] = { (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24) };
    int rc = write_full(fd, hdr, 4);
    return rc ? rc : write_full(fd, p, n);
}

static void *client_main(void *arg) {
    client *c = arg;
    for (;;) {
        uint8_t hdr[4];
        if (read_full(c->fd, hdr, 4)) break;
        uint32_t n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
        if (n > CSD_MAX_PACKET) {
            /* The stream can no longer be trusted: answer with the device's own BAD_PACKET and hang up. */
            uint8_t *resp;
            size_t resp_len;
            static const uint8_t junk[1] = { 0xff };
            if (!csd_device_command(c->srv->dev, junk, 1, NULL, &resp, &resp_len)) {
                write_frame(c->fd, resp, resp_len);
                csd_free(resp);
            }
            break;
        }
        uint8_t *req = malloc(n ? n : 1);
        if (!req || read_full(c->fd, req, n)) {
            free(req);
            break;
        }
        uint8_t *resp;
        size_t resp_len;
        int rc = csd_device_command(c->srv->dev, req, n, NULL, &resp, &resp_len);
        free(req);
        if (rc) break;
        rc = write_frame(c->fd, resp, resp_len);
        csd_free(resp);
        if (rc) break;   /* the client went away mid-command: the command itself completed */
    }
    pthread_mutex_lock(&c->srv->mu);
    c->done = 1;
    pthread_mutex_unlock(&c->srv->mu);
    return NULL;
}

static int prepare_path(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            snprintf(err, errlen, "%s exists and is not a socket; refusing to replace it", path);
            return -EEXIST;
        }
        if (st.st_uid != geteuid()) {
            snprintf(err, errlen, "%s is owned by uid %u, not by this user; refusing", path, (unsigned)st.st_uid);
            return -EPERM;
        }
        /* Is a daemon still listening there? */
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
        int live = probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof a) == 0;
        if (probe >= 0) close(probe);
        if (live) {
            snprintf(err, errlen, "%s: another daemon is serving this socket", path);
            return -EADDRINUSE;
        }
        unlink(path);
    }
    return 0;
}

int csd_server_create(csd_server **out, csd_device *dev, const char *path, char *err, size_t errlen) {
    *out = NULL;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (!path || !*path || strlen(path) >= sizeof a.sun_path) {
        snprintf(err, errlen, "socket path must be 1..%zu bytes", sizeof a.sun_path - 1);
        return -EINVAL;
    }
    int rc = prepare_path(path, err, errlen);
    if (rc) return rc;
    csd_server *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    s->dev = dev;
    s->wake[0] = s->wake[1] = -1;
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0 || pipe2(s->wake, O_CLOEXEC | O_NONBLOCK)) {
        rc = -errno;
        snprintf(err, errlen, "socket: %s", strerror(errno));
        goto fail;
    }
    /* Created 0600 from the start: no window in which another user could connect. */
    mode_t old = umask(0177);
    int b = bind(s->listen_fd, (struct sockaddr *)&a, sizeof a);
    int e = errno;
    umask(old);
    if (b || listen(s->listen_fd, 64)) {
        rc = -(b ? e : errno);
        snprintf(err, errlen, "bind %s: %s", path, strerror(-rc));
        goto fail;
    }
    pthread_mutex_init(&s->mu, NULL);
    *out = s;
    return 0;
fail:
    if (s->listen_fd >= 0) close(s->listen_fd);
    if (s->wake[0] >= 0) close(s->wake[0]);
    if (s->wake[1] >= 0) close(s->wake[1]);
    free(s);
    return rc;
}

static void reap(csd_server *s, int all) {
    pthread_mutex_lock(&s->mu);
    client **pp = &s->clients;
    while (*pp) {
        client *c = *pp;
        if (all && !c->done) shutdown(c->fd, SHUT_RDWR);
        if (all || c->done) {
            *pp = c->next;
            pthread_mutex_unlock(&s->mu);
            pthread_join(c->thread, NULL);
            close(c->fd);
            free(c);
            pthread_mutex_lock(&s->mu);
        } else {
            pp = &c->next;
        }
    }
    pthread_mutex_unlock(&s->mu);
}

int csd_server_run(csd_server *s) {
    for (;;) {
        struct pollfd p[2] = { { s->listen_fd, POLLIN, 0 }, { s->wake[0], POLLIN, 0 } };
        if (poll(p, 2, 1000) < 0 && errno != EINTR) break;
        if (p[1].revents) break;
        reap(s, 0);
        if (!(p[0].revents & POLLIN)) continue;
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        client *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->fd = fd;
        c->srv = s;
        pthread_mutex_lock(&s->mu);
        if (pthread_create(&c->thread, NULL, client_main, c)) {
            pthread_mutex_unlock(&s->mu);
            close(fd);
            free(c);
            continue;
        }
        c->next = s->clients;
        s->clients = c;
        pthread_mutex_unlock(&s->mu);
    }
    return 0;
}

void csd_server_stop(csd_server *s) {
    char b = 1;
    ssize_t k = write(s->wake[1], &b, 1);
    (void)k;
}

void csd_server_destroy(csd_server *s) {
    if (!s) return;
    close(s->listen_fd);
    reap(s, 1);
    unlink(s->path);
    close(s->wake[0]);
    close(s->wake[1]);
    pthread_mutex_destroy(&s->mu);
    free(s);
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
    return fd;
}

int csd_client_call(int fd, const uint8_t *req, size_t len, uint8_t **resp, size_t *resp_len) {
    int rc = write_frame(fd, req, len);
    if (rc) return rc;
    uint8_t hdr[4];
    if ((rc = read_full(fd, hdr, 4))) return rc;
    uint32_t n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
    if (n > CSD_MAX_PACKET) return -EPROTO;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return -ENOMEM;
    if ((rc = read_full(fd, b, n))) {
        free(b);
        return rc;
    }
    *resp = b;
    *resp_len = n;
    return 0;
}
