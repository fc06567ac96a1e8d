/* The daemon transport: socket mode and ownership rules, many concurrent clients, a client that drops
 * mid-frame, an oversized frame, clean stop. */
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>

#include "devutil.h"
#include "transport/server.h"

typedef struct ctx {
    csd_server *srv;
    const char *sock;
    int id;
    int failures;
} ctx;

static void *serve(void *arg) {
    csd_server_run(arg);
    return NULL;
}

static Smartssd__V1__Response *remote(int fd, Smartssd__V1__Request *req) {
    size_t n = smartssd__v1__request__get_packed_size(req);
    uint8_t *b = malloc(n ? n : 1), *out;
    smartssd__v1__request__pack(req, b);
    size_t out_len;
    int rc = csd_client_call(fd, b, n, &out, &out_len);
    free(b);
    if (rc) return NULL;
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, out_len, out);
    free(out);
    return r;
}

/* Each client creates its own object, writes and reads it back 50 times. */
static void *client(void *arg) {
    ctx *c = arg;
    char err[256], name[32];
    int fd = csd_client_connect(c->sock, err, sizeof err);
    if (fd < 0) {
        c->failures++;
        return NULL;
    }
    snprintf(name, sizeof name, "client-%d", c->id);
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = name;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    Smartssd__V1__Response *r = remote(fd, &req);
    if (!r || r->status) {
        c->failures++;
        close(fd);
        return NULL;
    }
    uint64_t id = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint8_t data[3000];
    for (int round = 0; round < 50; round++) {
        memset(data, c->id * 16 + round, sizeof data);
        Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
        w.object_id = id;
        w.data.data = data;
        w.data.len = sizeof data;
        req.tag = (uint64_t)round;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
        req.write_object = &w;
        r = remote(fd, &req);
        if (!r || r->status || r->tag != (uint64_t)round) c->failures++;
        if (r) smartssd__v1__response__free_unpacked(r, NULL);
        Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
        ro.object_id = id;
        ro.length = sizeof data;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
        req.read_object = &ro;
        r = remote(fd, &req);
        if (!r || r->status || r->read_object->data.len != sizeof data || memcmp(r->read_object->data.data, data, sizeof data))
            c->failures++;
        if (r) smartssd__v1__response__free_unpacked(r, NULL);
    }
    close(fd);
    return NULL;
}

int main(void) {
    const char *dir = csd_test_dir("server");
    csd_device *d = dev_fresh(dir, "tiny", 8u << 20, 1);
    char sock[4200], err[512];
    snprintf(sock, sizeof sock, "%s/dev.sock", dir);

    /* a path that is not a socket is refused and left alone */
    FILE *f = fopen(sock, "w");
    fputs("precious", f);
    fclose(f);
    csd_server *srv;
    CHECK(csd_server_create(&srv, d, sock, err, sizeof err) == -EEXIST);
    CHECK_CONTAINS(err, "not a socket");
    struct stat st;
    CHECK(stat(sock, &st) == 0 && st.st_size == 8);
    unlink(sock);

    CHECK(csd_server_create(&srv, d, sock, err, sizeof err) == 0);
    CHECK(stat(sock, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600);
    /* a second server on a live socket is refused */
    csd_server *again;
    CHECK(csd_server_create(&again, d, sock, err, sizeof err) == -EADDRINUSE);
    pthread_t th;
    pthread_create(&th, NULL, serve, srv);

    /* a client that sends half a frame and disappears */
    int fd = csd_client_connect(sock, err, sizeof err);
    CHECK(fd >= 0);
    uint8_t half[6] = { 100, 0, 0, 0, 0x08, 0x01 };
    CHECK(write(fd, half, sizeof half) == (ssize_t)sizeof half);
    close(fd);
    /* a client announcing an oversized frame gets BAD_PACKET and is disconnected */
    fd = csd_client_connect(sock, err, sizeof err);
    uint8_t hdr[4] = { 0xff, 0xff, 0xff, 0x7f }, rh[4];
    CHECK(write(fd, hdr, 4) == 4);
    CHECK(read(fd, rh, 4) == 4);
    uint32_t n = (uint32_t)rh[0] | (uint32_t)rh[1] << 8 | (uint32_t)rh[2] << 16 | (uint32_t)rh[3] << 24;
    uint8_t *body = malloc(n);
    CHECK(read(fd, body, n) == (ssize_t)n);
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, n, body);
    CHECK(r && (int)r->status == CSD_BAD_PACKET);
    smartssd__v1__response__free_unpacked(r, NULL);
    free(body);
    close(fd);

    enum { N = 16 };
    ctx cs[N];
    pthread_t ts[N];
    for (int i = 0; i < N; i++) {
        cs[i] = (ctx){ srv, sock, i, 0 };
        pthread_create(&ts[i], NULL, client, &cs[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(ts[i], NULL);
        CHECK_EQ_INT(cs[i].failures, 0);
    }
    /* a client still connected when the server stops is disconnected, not hung */
    fd = csd_client_connect(sock, err, sizeof err);
    CHECK(fd >= 0);
    csd_server_stop(srv);
    pthread_join(th, NULL);
    csd_server_destroy(srv);
    CHECK(access(sock, F_OK) != 0);
    char b;
    CHECK(read(fd, &b, 1) <= 0);
    close(fd);
    dev_still_serving(d);
    CHECK(csd_device_close(d) == 0);
    TEST_OK("test_server");
}
