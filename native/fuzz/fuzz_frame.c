/* libFuzzer target: the daemon's framing. The input is the byte stream one client sends on its
 * socket (length-prefixed Requests, or anything else: oversized, truncated, zero-length frames); the
 * daemon's connection handler (csd_server_serve_fd: the peer check, the device session, frame reads,
 * commands, replies) serves it over a socketpair until the client hangs up. Every byte the daemon
 * sends back must be whole frames of Responses that decode, at most one per request frame, and the
 * session's tasklet and output objects must be gone once it ends (orphan_timeout_ms = 0). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"
#include "transport/server.h"

static csd_device *dev;
static csd_server *srv;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char path[256], sock[256], err[512];
    snprintf(path, sizeof path, "/tmp/csd-fuzz-frame.%d.img", (int)getpid());
    snprintf(sock, sizeof sock, "/tmp/csd-fuzz-frame.%d.sock", (int)getpid());
    csd_params p;
    csd_params_preset(&p, "tiny");
    if (csd_format(path, 8u << 20, &p, err, sizeof err)) abort();
    p.orphan_timeout_ms = 0;
    csd_open_opts o = { .override = &p, .background = 0 };
    if (csd_device_open(&dev, path, &o, err, sizeof err)) abort();
    unlink(path);
    /* the server object only: its socket is never served, each input gets a socketpair */
    csd_server_opts so = { .frame_timeout_ms = 50 };
    if (csd_server_create_opts(&srv, dev, sock, &so, err, sizeof err)) {
        fprintf(stderr, "server: %s\n", err);
        abort();
    }
    unlink(sock);
    static const uint8_t text[] = "alpha\nbeta\ngamma\n";
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = "a";
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    uint8_t buf[256], *out;
    size_t n = smartssd__v1__request__pack(&req, buf), out_len;
    csd_device_command(dev, buf, n, NULL, &out, &out_len);
    csd_free(out);
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = 1;
    w.data.data = (uint8_t *)text;
    w.data.len = sizeof text - 1;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    n = smartssd__v1__request__pack(&req, buf);
    csd_device_command(dev, buf, n, NULL, &out, &out_len);
    csd_free(out);
    return 0;
}

typedef struct reader {
    int fd;
    size_t frames;
    int bad;
} reader;

/* The client's side: read everything the daemon sends until it hangs up; every frame must decode. */
static void *read_all(void *arg) {
    reader *r = arg;
    size_t cap = 1 << 16, len = 0;
    uint8_t *b = malloc(cap);
    for (;;) {
        if (len == cap) b = realloc(b, cap *= 2);
        ssize_t k = read(r->fd, b + len, cap - len);
        if (k <= 0) break;
        len += (size_t)k;
    }
    size_t pos = 0;
    while (pos + 4 <= len) {
        uint32_t n = (uint32_t)b[pos] | (uint32_t)b[pos + 1] << 8 | (uint32_t)b[pos + 2] << 16 |
                     (uint32_t)b[pos + 3] << 24;
        if (n > len - pos - 4) {
            r->bad = 1;   /* a cut reply frame */
            break;
        }
        Smartssd__V1__Response *resp = smartssd__v1__response__unpack(NULL, n, b + pos + 4);
        if (!resp) r->bad = 2;
        else smartssd__v1__response__free_unpacked(resp, NULL);
        pos += 4 + n;
        r->frames++;
    }
    if (pos != len) r->bad = 3;
    free(b);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (128u << 10)) size = 128u << 10;   /* fits the socket buffer: written before serving */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) abort();
    int big = 1 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    for (size_t w = 0; w < size;) {
        ssize_t k = write(sv[0], data + w, size - w);
        if (k <= 0) abort();
        w += (size_t)k;
    }
    shutdown(sv[0], SHUT_WR);   /* the client has said everything and hangs up its side */
    reader r = { .fd = sv[0] };
    pthread_t th;
    if (pthread_create(&th, NULL, read_all, &r)) abort();
    csd_server_serve_fd(srv, sv[1]);
    close(sv[1]);
    pthread_join(th, NULL);
    close(sv[0]);
    if (r.bad) abort();
    /* at most one reply per request frame (plus one for an oversized announcement) */
    size_t frames = 0, pos = 0;
    while (pos + 4 <= size) {
        uint32_t n = (uint32_t)data[pos] | (uint32_t)data[pos + 1] << 8 | (uint32_t)data[pos + 2] << 16 |
                     (uint32_t)data[pos + 3] << 24;
        frames++;
        if (n > size - pos - 4) break;
        pos += 4 + n;
    }
    if (r.frames > frames) abort();
    return 0;
}
