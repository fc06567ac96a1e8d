/* Hostile users of the daemon: a socket path owned by another user, a socket directory other users
 * may write to, a client of another uid (SO_PEERCRED against the allow-list), a socket planted by
 * another user (the client refuses it), more clients than the daemon serves, a client that stalls in
 * the middle of a frame, one that announces a 64 MiB frame and sends nothing. Uid changes need root;
 * without it those cases say they were skipped. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "devutil.h"
#include "transport/server.h"

#define NOBODY 65534
#define FRIEND 4242

static void *serve(void *arg) {
    csd_server_run(arg);
    return NULL;
}

static Smartssd__V1__Response *read_response(int fd) {
    uint8_t h[4];
    size_t got = 0;
    while (got < 4) {
        ssize_t k = read(fd, h + got, 4 - got);
        if (k <= 0) return NULL;
        got += (size_t)k;
    }
    uint32_t n = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
    uint8_t *b = malloc(n ? n : 1);
    for (got = 0; got < n;) {
        ssize_t k = read(fd, b + got, n - got);
        if (k <= 0) {
            free(b);
            return NULL;
        }
        got += (size_t)k;
    }
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, n, b);
    free(b);
    return r;
}

static int identify(int fd) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Identify id = SMARTSSD__V1__IDENTIFY__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY;
    req.identify = &id;
    uint8_t b[64], *out;
    size_t n = smartssd__v1__request__pack(&req, b), out_len;
    if (csd_client_call(fd, b, n, &out, &out_len)) return -1;
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, out_len, out);
    free(out);
    int st = r ? (int)r->status : -1;
    if (r) smartssd__v1__response__free_unpacked(r, NULL);
    return st;
}

static int eof_within(int fd, int ms) {
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, ms) <= 0) return 0;
    char c;
    return read(fd, &c, 1) <= 0;   /* EOF, or a reset when our unread request was discarded */
}

/* In a child running as uid: connect to sock; exit code 0 = served, 10 = refused with
 * PERMISSION_DENIED naming the uid, 20 = connect() itself failed with EACCES, else a failure. */
static int as_uid(uid_t uid, const char *sock) {
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(uid) || setuid(uid)) _exit(90);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        snprintf(a.sun_path, sizeof a.sun_path, "%.100s", sock);
        if (connect(fd, (struct sockaddr *)&a, sizeof a)) _exit(errno == EACCES ? 20 : 91);
        /* ask; a served client gets the answer, a refused one the refusal (sent before it asked) */
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__Identify id = SMARTSSD__V1__IDENTIFY__INIT;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY;
        req.identify = &id;
        uint8_t b[64];
        size_t n = smartssd__v1__request__pack(&req, b + 4);
        b[0] = (uint8_t)n;
        b[1] = b[2] = b[3] = 0;
        if (send(fd, b, n + 4, MSG_NOSIGNAL) != (ssize_t)(n + 4) && errno != EPIPE) _exit(94);
        Smartssd__V1__Response *r = read_response(fd);
        if (!r) _exit(95);
        if (r->status == 0 && r->identify) _exit(0);
        char want[64];
        snprintf(want, sizeof want, "this client runs as uid %u", (unsigned)uid);
        int ok = (int)r->status == CSD_PERMISSION_DENIED && strstr(r->message, want) &&
                 strstr(r->message, "csdd --allow") && eof_within(fd, 5000);
        if (!ok) fprintf(stderr, "child uid %u: status %d: %s\n", (unsigned)uid, (int)r->status, r->message);
        _exit(ok ? 10 : 93);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void) {
    const char *dir = csd_test_dir("peers");
    csd_device *d = dev_fresh(dir, "tiny", 4u << 20, 1);
    int root = geteuid() == 0;
    char sock[4300], err[512], sub[4200];
    csd_server *srv;

    /* a socket directory others may write to (no sticky bit) is refused */
    snprintf(sub, sizeof sub, "%s/open", dir);
    mkdir(sub, 0777);
    chmod(sub, 0777);
    snprintf(sock, sizeof sock, "%s/dev.sock", sub);
    CHECK(csd_server_create(&srv, d, sock, err, sizeof err) == -EPERM);
    CHECK_CONTAINS(err, "other users may write to this directory");
    chmod(sub, 01777);   /* sticky, like /tmp: fine */
    CHECK(csd_server_create(&srv, d, sock, err, sizeof err) == 0);
    csd_server_destroy(srv);

    /* the sockets below live in a directory every uid can pass through (the test directory's
     * parents may not be) */
    snprintf(sub, sizeof sub, "/tmp/csd-peers.XXXXXX");
    CHECK(mkdtemp(sub) != NULL);
    chmod(sub, 0755);
    snprintf(sock, sizeof sock, "%s/dev.sock", sub);

    if (root) {
        /* a stale socket owned by another user is not replaced */
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        snprintf(a.sun_path, sizeof a.sun_path, "%.100s", sock);
        CHECK(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
        close(s);
        CHECK(chown(sock, NOBODY, NOBODY) == 0);
        CHECK(csd_server_create(&srv, d, sock, err, sizeof err) == -EPERM);
        CHECK_CONTAINS(err, "is owned by uid 65534, not by this user");
        unlink(sock);
    }

    /* default: mode 0600, so another uid cannot even connect */
    CHECK(csd_server_create(&srv, d, sock, err, sizeof err) == 0);
    pthread_t th;
    pthread_create(&th, NULL, serve, srv);
    if (root) CHECK_EQ_INT(as_uid(NOBODY, sock), 20);
    int fd = csd_client_connect(sock, err, sizeof err);
    CHECK(fd >= 0 && identify(fd) == 0);
    close(fd);
    csd_server_stop(srv);
    pthread_join(th, NULL);
    csd_server_destroy(srv);

    /* an allow-list with another uid: the socket is 0666 and SO_PEERCRED decides */
    csd_server_opts so = { .allow_uids = { FRIEND }, .n_allow = 1, .max_clients = 2, .frame_timeout_ms = 200 };
    CHECK(csd_server_create_opts(&srv, d, sock, &so, err, sizeof err) == 0);
    struct stat st;
    CHECK(stat(sock, &st) == 0 && (st.st_mode & 0777) == 0666);
    pthread_create(&th, NULL, serve, srv);
    if (root) {
        CHECK_EQ_INT(as_uid(NOBODY, sock), 10);   /* refused, told why, hung up on */
        CHECK_EQ_INT(as_uid(FRIEND, sock), 0);    /* on the list: served */
    } else {
        printf("test_peers: other uids: skipped (needs root to change uid)\n");
    }

    /* at most 2 clients at once: the third is told and hung up on; the first two are unaffected */
    int c1 = -1, c2 = -1;
    for (int i = 0; i < 100; i++) {   /* the clients above may take a moment to be let go */
        c1 = csd_client_connect(sock, err, sizeof err);
        c2 = csd_client_connect(sock, err, sizeof err);
        if (c1 >= 0 && c2 >= 0 && identify(c1) == 0 && identify(c2) == 0) break;
        if (c1 >= 0) close(c1);
        if (c2 >= 0) close(c2);
        c1 = c2 = -1;
        usleep(50000);
    }
    CHECK(c1 >= 0 && c2 >= 0);
    int c3 = csd_client_connect(sock, err, sizeof err);
    CHECK(c3 >= 0);
    Smartssd__V1__Response *r = read_response(c3);
    CHECK(r && (int)r->status == CSD_RESOURCE_EXHAUSTED);
    CHECK_CONTAINS(r->message, "serves at most 2 clients at once");
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(eof_within(c3, 5000));
    close(c3);
    CHECK(identify(c1) == 0);
    /* a client that stops in the middle of a frame is hung up on after frame_timeout_ms; one that
     * announces 64 MiB and sends nothing likewise, without the daemon holding 64 MiB for it */
    uint8_t half[6] = { 100, 0, 0, 0, 0x08, 0x01 };
    CHECK(write(c1, half, sizeof half) == (ssize_t)sizeof half);
    CHECK(eof_within(c1, 10000));
    close(c1);
    uint8_t huge[4] = { 0x00, 0x00, 0x00, 0x04 };   /* 64 MiB exactly: the limit */
    CHECK(write(c2, huge, 4) == 4);
    CHECK(eof_within(c2, 10000));
    close(c2);
    /* slots come back: two new clients are served (the server reaps the old ones within a second) */
    int served = 0;
    for (int i = 0; i < 100 && served < 2; i++) {
        served = 0;
        int n1 = csd_client_connect(sock, err, sizeof err), n2 = csd_client_connect(sock, err, sizeof err);
        served = (n1 >= 0 && identify(n1) == 0) + (n2 >= 0 && identify(n2) == 0);
        if (n1 >= 0) close(n1);
        if (n2 >= 0) close(n2);
        if (served < 2) usleep(50000);
    }
    CHECK_EQ_INT(served, 2);
    csd_server_stop(srv);
    pthread_join(th, NULL);
    csd_server_destroy(srv);

    /* a socket planted by another user: csd_client_connect refuses to talk to it */
    if (root) {
        int pfd[2];
        CHECK(pipe(pfd) == 0);
        char planted[4300];
        snprintf(planted, sizeof planted, "%s/planted.sock", sub);
        chmod(sub, 01777);
        pid_t pid = fork();
        if (pid == 0) {
            if (setgid(NOBODY) || setuid(NOBODY)) _exit(1);
            int s = socket(AF_UNIX, SOCK_STREAM, 0);
            struct sockaddr_un a = { .sun_family = AF_UNIX };
            snprintf(a.sun_path, sizeof a.sun_path, "%.100s", planted);
            umask(0);
            if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 4)) _exit(2);
            char go = 1;
            if (write(pfd[1], &go, 1) != 1) _exit(3);
            int c = accept(s, NULL, NULL);
            char x;
            if (read(pfd[0], &x, 1) < 0) _exit(4);   /* until the parent is done */
            close(c);
            _exit(0);
        }
        char go;
        CHECK(read(pfd[0], &go, 1) == 1);
        CHECK(csd_client_connect(planted, err, sizeof err) == -EPERM);
        CHECK_CONTAINS(err, "is served by uid 65534");
        CHECK_CONTAINS(err, "refusing to send it commands");
        close(pfd[1]);
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        close(pfd[0]);
        unlink(planted);
    }
    unlink(sock);
    rmdir(sub);
    dev_still_serving(d);
    CHECK(csd_device_close(d) == 0);
    TEST_OK("test_peers");
}
