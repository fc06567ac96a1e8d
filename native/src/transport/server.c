#include "transport/server.h"
#include "transport/frame.h"

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

#include "smartssd/v1/device.pb-c.h"

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
    uint32_t n_clients;      /* not yet reaped */
    uint32_t n_active;       /* still being served: what max_clients limits */
    csd_server_opts opts;
    uid_t self;
};

/* One Response frame with a status and a message, for a client the daemon will not serve. Written
 * without blocking: it is small, and a client that does not read it is hung up on regardless. */
static void refuse(int fd, int status, const char *msg) {
    Smartssd__V1__Response r = SMARTSSD__V1__RESPONSE__INIT;
    r.status = (Smartssd__V1__Status)status;
    r.message = (char *)msg;
    uint8_t buf[4 + 1024];
    size_t n = smartssd__v1__response__get_packed_size(&r);
    if (n > sizeof buf - 4) return;
    smartssd__v1__response__pack(&r, buf + 4);
    buf[0] = (uint8_t)n;
    buf[1] = (uint8_t)(n >> 8);
    buf[2] = buf[3] = 0;
    ssize_t k = send(fd, buf, n + 4, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)k;
}

static int uid_allowed(const csd_server *s, uid_t uid) {
    if (uid == s->self || uid == 0) return 1;
    for (size_t i = 0; i < s->opts.n_allow; i++)
        if (s->opts.allow_uids[i] == uid) return 1;
    return 0;
}

/* 0 when the peer may be served; otherwise it has been told why. */
static int check_peer(csd_server *s, int fd) {
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) || len != sizeof cr) {
        refuse(fd, CSD_PERMISSION_DENIED, "the daemon could not learn this client's uid (SO_PEERCRED); refused");
        return -EPERM;
    }
    if (uid_allowed(s, cr.uid)) return 0;
    char msg[512], list[256] = "";
    size_t o = 0;
    if (s->self) o += (size_t)snprintf(list, sizeof list, "%u (its own), 0 (root)", (unsigned)s->self);
    else o += (size_t)snprintf(list, sizeof list, "0 (its own: root)");
    for (size_t i = 0; i < s->opts.n_allow && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, ", %u", (unsigned)s->opts.allow_uids[i]);
    snprintf(msg, sizeof msg, "permission denied: the device daemon at %s serves uids %s; this client runs as uid "
             "%u (pid %d). Its owner can add it with csdd --allow", s->path, list, (unsigned)cr.uid, (int)cr.pid);
    refuse(fd, CSD_PERMISSION_DENIED, msg);
    return -EPERM;
}

/* One request frame into a buffer that grows with the bytes that really arrive, so announcing a
 * 64 MiB frame costs nothing until the bytes come. -EMSGSIZE: the length is over the limit. */
static int read_frame(csd_server *s, int fd, uint8_t **out, uint32_t *len) {
    uint8_t hdr[4];
    int tmo = (int)(s->opts.frame_timeout_ms ? s->opts.frame_timeout_ms : 30000);
    int rc = csd_frame_read(fd, hdr, 1, -1);   /* between frames a client may idle */
    if (!rc) rc = csd_frame_read(fd, hdr + 1, 3, tmo);
    if (rc) return rc;
    uint32_t n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
    if (n > CSD_MAX_PACKET) return -EMSGSIZE;
    size_t cap = n < (64u << 10) ? n : (64u << 10), have = 0;
    uint8_t *b = malloc(cap ? cap : 1);
    if (!b) return -ENOMEM;
    while (have < n) {
        if (have == cap) {
            size_t ncap = cap * 2 < n ? cap * 2 : n;
            uint8_t *nb = realloc(b, ncap);
            if (!nb) {
                free(b);
                return -ENOMEM;
            }
            b = nb;
            cap = ncap;
        }
        struct pollfd pf = { fd, POLLIN, 0 };
        int r = poll(&pf, 1, tmo);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            free(b);
            return r == 0 ? -ETIMEDOUT : -errno;
        }
        ssize_t k = read(fd, b + have, cap - have);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            free(b);
            return k == 0 ? -ECONNRESET : -errno;
        }
        have += (size_t)k;
    }
    *out = b;
    *len = n;
    return 0;
}

void csd_server_serve_fd(csd_server *s, int fd) {
    if (check_peer(s, fd)) return;
    uint64_t session;
    if (csd_session_begin(s->dev, &session)) {
        refuse(fd, CSD_RESOURCE_EXHAUSTED, "the device daemon is out of memory");
        return;
    }
    for (;;) {
        uint8_t *req = NULL;
        uint32_t n = 0;
        int rc = read_frame(s, fd, &req, &n);
        if (rc == -EMSGSIZE) {
            /* The stream can no longer be trusted: answer with the device's own BAD_PACKET and hang up. */
            uint8_t *resp;
            size_t resp_len;
            static const uint8_t junk[1] = { 0xff };
            if (!csd_device_command_as(s->dev, session, junk, 1, NULL, &resp, &resp_len)) {
                csd_frame_write(fd, resp, resp_len);
                csd_free(resp);
            }
            break;
        }
        if (rc) break;   /* hung up, broke mid-frame, or paused mid-frame too long */
        uint8_t *resp;
        size_t resp_len;
        rc = csd_device_command_as(s->dev, session, req, n, NULL, &resp, &resp_len);
        free(req);
        if (rc) break;
        rc = csd_frame_write(fd, resp, resp_len);
        csd_free(resp);
        if (rc) break;   /* the client went away mid-command: the command itself completed */
    }
    csd_session_end(s->dev, session);
}

static void *client_main(void *arg) {
    client *c = arg;
    csd_server_serve_fd(c->srv, c->fd);
    pthread_mutex_lock(&c->srv->mu);
    c->done = 1;
    c->srv->n_active--;
    pthread_mutex_unlock(&c->srv->mu);
    return NULL;
}

static int prepare_path(const char *path, char *err, size_t errlen) {
    struct stat st;
    /* the directory: if others may write there without the sticky bit, they could swap the socket */
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    if (stat(dir, &st) == 0 && (st.st_mode & (S_IWOTH | S_IWGRP)) && !(st.st_mode & S_ISVTX)) {
        snprintf(err, errlen, "%s: other users may write to this directory (mode %03o, no sticky bit) and could "
                 "replace the socket; use a directory only you can write to", dir, (unsigned)(st.st_mode & 0777));
        return -EPERM;
    }
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
    return csd_server_create_opts(out, dev, path, NULL, err, errlen);
}

int csd_server_create_opts(csd_server **out, csd_device *dev, const char *path, const csd_server_opts *opts,
                           char *err, size_t errlen) {
    *out = NULL;
    if (opts && opts->n_allow > CSD_SERVER_MAX_ALLOW) {
        snprintf(err, errlen, "at most %d uids on the allow-list", CSD_SERVER_MAX_ALLOW);
        return -EINVAL;
    }
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
    if (opts) s->opts = *opts;
    if (!s->opts.max_clients) s->opts.max_clients = 1024;
    s->self = geteuid();
    int others = 0;
    for (size_t i = 0; i < s->opts.n_allow; i++) others |= s->opts.allow_uids[i] != s->self;
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
    /* another uid on the allow-list must be able to reach the socket; SO_PEERCRED then decides */
    if (!b && others && chmod(path, 0666)) b = -1, e = errno;
    if (b || listen(s->listen_fd, 128)) {
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
            s->n_clients--;
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
        if (s->n_active >= s->opts.max_clients) {
            pthread_mutex_unlock(&s->mu);
            char msg[200];
            snprintf(msg, sizeof msg, "the device daemon at %s serves at most %u clients at once; try again later",
                     s->path, (unsigned)s->opts.max_clients);
            refuse(fd, CSD_RESOURCE_EXHAUSTED, msg);
            close(fd);
            free(c);
            continue;
        }
        /* small stacks: a client thread only frames bytes; the device does the work */
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256u << 10);
        int prc = pthread_create(&c->thread, &attr, client_main, c);
        pthread_attr_destroy(&attr);
        if (prc) {
            pthread_mutex_unlock(&s->mu);
            refuse(fd, CSD_RESOURCE_EXHAUSTED, "the device daemon cannot start a thread for this client");
            close(fd);
            free(c);
            continue;
        }
        s->n_clients++;
        s->n_active++;
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
