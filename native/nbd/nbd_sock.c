/* Per-thread daemon connections with reconnect (nbd_sock.h). */
#include "nbd_sock.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport/server.h"

typedef struct conn {
    int fd;            /* -1: not connected */
    int lost;          /* it had a connection that broke */
    uint64_t gen;      /* connections made */
} conn;

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void conn_free(void *p) {
    conn *c = p;
    if (c->fd >= 0) close(c->fd);
    free(c);
}

static void make_key(void) { pthread_key_create(&key, conn_free); }

static conn *this_conn(void) {
    pthread_once(&once, make_key);
    conn *c = pthread_getspecific(key);
    if (!c && (c = calloc(1, sizeof *c))) {
        c->fd = -1;
        if (pthread_setspecific(key, c)) {
            free(c);
            c = NULL;
        }
    }
    return c;
}

uint64_t csd_nbd_sock_generation(void *arg) {
    conn *c = this_conn();
    return c ? c->gen : 0;
}

void csd_nbd_sock_drop(void) {
    pthread_once(&once, make_key);
    conn *c = pthread_getspecific(key);
    if (c && c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* n frames out, then n replies in; no retry. */
static int exchange_fd(int fd, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                       size_t *resp_len) {
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) rc = csd_client_send(fd, req[i], len[i]);
    for (size_t i = 0; !rc && i < n; i++) rc = csd_client_recv(fd, &resp[i], &resp_len[i]);
    if (rc)
        for (size_t i = 0; i < n; i++) {
            free(resp[i]);
            resp[i] = NULL;
        }
    return rc;
}

static int fd_call(void *arg, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                   size_t *resp_len) {
    return exchange_fd(*(int *)arg, req, len, n, resp, resp_len);
}

static void note(const csd_nbd_sock *s, const char *fmt, const char *detail) {
    if (!s->note) return;
    char msg[1200];
    snprintf(msg, sizeof msg, fmt, s->path, detail);
    s->note(msg);
}

/* Connect and check the namespace. 0, -EAGAIN (try again later) or -ENODEV (another namespace). */
static int connect_checked(const csd_nbd_sock *s, conn *c) {
    char err[512];
    int fd = csd_client_connect(s->path, err, sizeof err);
    if (fd < 0) return -EAGAIN;
    if (s->expect) {
        csd_nbd_transport t = { fd_call, NULL, &fd };
        csd_nbd_export got = { 0 };
        if (csd_nbd_info(&t, &got, err, sizeof err)) {
            close(fd);
            return -EAGAIN;
        }
        if (got.lba_bytes != s->expect->lba_bytes || got.lbas != s->expect->lbas) {
            close(fd);
            snprintf(err, sizeof err, "%" PRIu64 " LBAs of %u bytes, not the exported %" PRIu64 " of %u", got.lbas,
                     got.lba_bytes, s->expect->lbas, s->expect->lba_bytes);
            note(s, "the device at %s now has %s; refusing it", err);
            return -ENODEV;
        }
    }
    if (c->lost) note(s, "the device at %s serves again%s", "");
    c->fd = fd;
    c->lost = 0;
    c->gen++;
    return 0;
}

int csd_nbd_sock_call(void *arg, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                      size_t *resp_len) {
    const csd_nbd_sock *s = arg;
    conn *c = this_conn();
    if (!c) return -ENOMEM;
    uint64_t deadline = 0;
    for (;;) {
        int rc = c->fd >= 0 ? 0 : connect_checked(s, c);
        if (rc == -ENODEV) return rc;
        if (!rc) {
            rc = exchange_fd(c->fd, req, len, n, resp, resp_len);
            if (!rc) return 0;
            close(c->fd);
            c->fd = -1;
            if (!c->lost) note(s, "lost the device at %s (%s); reconnecting", strerror(-rc));
            c->lost = 1;
        }
        /* gone: wait for it to come back, then send everything again */
        uint64_t now = mono_ns();
        if (!deadline) deadline = now + s->retry_ns;
        if (now >= deadline) return rc == -EAGAIN || !rc ? -ECONNREFUSED : rc;
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
    }
}
