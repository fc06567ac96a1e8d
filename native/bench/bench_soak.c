/* bench_soak: many clients on one csdd daemon, mixing writes, reads, tasklets, listings and deletes,
 * then a serial replay of every client's commands on a fresh in-process device that must give the
 * same results, command by command. Meanwhile the daemon's RSS and open descriptors are sampled
 * (/proc/PID), and every command's wall latency is kept for percentiles.
 *
 * Clients work on objects of their own ("cNN/...") plus one shared read-only object, so a client's
 * results depend only on its own commands: a serial replay is the reference. Capacity is sized so no
 * client can run the device out of space (that would make results depend on the others).
 *
 *   bench_soak --csdd PATH --dir DIR [--clients 64] [--seconds S | --ops N] [--rounds R] [--seed S]
 *              [--series CSV] [--latency CSV] [--json FILE] [--check]
 * --check: exit 1 unless the replay matches, descriptors return to their baseline after every round,
 * and anonymous RSS (heap and stacks; the image's mapped pages that tasklets read are file-backed and
 * left out) grows by at most --max-rss-growth-mib (default 16) from the end of round 1 to the end. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"
#include "transport/server.h"

enum { OP_CREATE, OP_WRITE, OP_READ, OP_TASKLET_OWN, OP_TASKLET_SHARED, OP_LIST, OP_STAT, OP_DELETE, OP_KINDS };
static const char *const OP_NAMES[OP_KINDS] = { "create", "write", "read", "tasklet_own", "tasklet_shared", "list",
                                                "stat", "delete" };

#define MAX_OBJS 6
#define MAX_OBJ_BYTES (384u << 10)
#define SHARED_BYTES (1u << 20)

typedef struct obj {
    char name[32];
    uint64_t size;
    int live;
} obj;

/* How a client's commands reach a device: a socket (the soak) or the device in this process (the
 * replay). */
typedef struct conn {
    int fd;                          /* >= 0: the daemon */
    csd_device *dev;                 /* else: in-process */
} conn;

typedef struct client {
    int id;
    uint64_t rng;
    obj objs[MAX_OBJS];
    uint64_t seq;                    /* commands so far (all rounds) */
    /* results: one digest per command, and latencies (ns) per kind */
    uint64_t *digest;
    size_t n_digest, cap_digest;
    uint32_t *lat[OP_KINDS];
    size_t n_lat[OP_KINDS], cap_lat[OP_KINDS];
    uint64_t errors;                 /* commands that failed unexpectedly (transport) */
    char why[256];
} client;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s) {   /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static Smartssd__V1__Response *call(conn *c, Smartssd__V1__Request *req) {
    size_t n = smartssd__v1__request__get_packed_size(req);
    uint8_t *b = malloc(n ? n : 1), *out = NULL;
    smartssd__v1__request__pack(req, b);
    size_t out_len = 0;
    int rc = c->fd >= 0 ? csd_client_call(c->fd, b, n, &out, &out_len)
                        : csd_device_command(c->dev, b, n, NULL, &out, &out_len);
    free(b);
    if (rc) return NULL;
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, out_len, out);
    free(out);
    return r;
}

static void keep(client *cl, uint64_t d) {
    if (cl->n_digest == cl->cap_digest) {
        cl->cap_digest = cl->cap_digest ? cl->cap_digest * 2 : 1024;
        cl->digest = realloc(cl->digest, cl->cap_digest * sizeof *cl->digest);
    }
    cl->digest[cl->n_digest++] = d;
}

static void keep_lat(client *cl, int kind, uint64_t ns) {
    if (cl->n_lat[kind] == cl->cap_lat[kind]) {
        cl->cap_lat[kind] = cl->cap_lat[kind] ? cl->cap_lat[kind] * 2 : 256;
        cl->lat[kind] = realloc(cl->lat[kind], cl->cap_lat[kind] * sizeof *cl->lat[kind]);
    }
    cl->lat[kind][cl->n_lat[kind]++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

/* Deterministic bytes for a client's write: text lines, some holding "ab", so grep finds things. */
static void make_data(uint8_t *p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint8_t v = (uint8_t)(seed >> 59);
        p[i] = v == 0 ? '\n' : v < 4 ? 'a' + (v & 1) : (uint8_t)('c' + v % 20);
    }
}

static int fail(client *cl, const char *what, Smartssd__V1__Response *r) {
    if (!cl->errors)
        snprintf(cl->why, sizeof cl->why, "client %d command %" PRIu64 " (%s): %s", cl->id, cl->seq, what,
                 r ? r->message : "the connection failed");
    cl->errors++;
    if (r) smartssd__v1__response__free_unpacked(r, NULL);
    return -1;
}

/* The tasklet sequence of the paper's Fig. 5 (create tasklet and output, execute, read until done,
 * delete both); the digest covers the result rows and the run's status. */
static int run_grep(client *cl, conn *c, const char *object, const char *pattern, uint64_t *h) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
    so.name = (char *)object;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
    req.stat = &so;
    Smartssd__V1__Response *r = call(c, &req);
    if (!r) return fail(cl, "stat", r);
    if (r->status) {
        *h = fnv(*h, &r->status, sizeof r->status);
        smartssd__v1__response__free_unpacked(r, NULL);
        return 0;
    }
    uint64_t oid = r->stat->info->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    Smartssd__V1__Param p1 = SMARTSSD__V1__PARAM__INIT, p2 = SMARTSSD__V1__PARAM__INIT, *pp[2] = { &p1, &p2 };
    p1.key = "pattern";
    p1.value = (char *)pattern;
    p2.key = "mode";
    p2.value = "count";
    co.kind = SMARTSSD__V1__OBJECT_KIND__TASKLET;
    co.name = "grep";
    co.params = pp;
    co.n_params = 2;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    r = call(c, &req);
    if (!r || r->status) return fail(cl, "create tasklet", r);
    uint64_t tid = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    Smartssd__V1__CreateObject co2 = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co2.kind = SMARTSSD__V1__OBJECT_KIND__OUTPUT;
    req.create_object = &co2;
    r = call(c, &req);
    if (!r || r->status) return fail(cl, "create output", r);
    uint64_t outid = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    Smartssd__V1__ExecuteObject ex = SMARTSSD__V1__EXECUTE_OBJECT__INIT;
    Smartssd__V1__Extent x = SMARTSSD__V1__EXTENT__INIT;
    x.object_id = oid;
    x.whole = 1;
    ex.tasklet_id = tid;
    ex.output_id = outid;
    ex.input = &x;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_EXECUTE_OBJECT;
    req.execute_object = &ex;
    r = call(c, &req);
    if (!r) return fail(cl, "execute", r);
    int ok = r->status == 0;
    *h = fnv(*h, &r->status, sizeof r->status);
    smartssd__v1__response__free_unpacked(r, NULL);
    for (int done = !ok, polls = 0; !done; polls++) {
        Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
        ro.object_id = outid;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
        req.read_object = &ro;
        r = call(c, &req);
        if (!r || r->status) return fail(cl, "read output", r);
        *h = fnv(*h, r->read_object->data.data, r->read_object->data.len);
        done = r->read_object->progress->done;
        if (done) *h = fnv(*h, &r->read_object->progress->status, sizeof r->read_object->progress->status);
        smartssd__v1__response__free_unpacked(r, NULL);
        if (!done && c->fd >= 0 && polls > 2) usleep(200);   /* the device thread runs it meanwhile */
    }
    for (int k = 0; k < 2; k++) {
        Smartssd__V1__DeleteObject del = SMARTSSD__V1__DELETE_OBJECT__INIT;
        del.object_id = k ? tid : outid;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
        req.delete_object = &del;
        r = call(c, &req);
        if (!r || r->status) return fail(cl, "delete volatile", r);
        smartssd__v1__response__free_unpacked(r, NULL);
    }
    return 0;
}

/* One command of client cl, chosen from its own random stream and its own objects. */
static int step(client *cl, conn *c) {
    uint64_t r0 = rnd(&cl->rng), h = 0xcbf29ce484222325ull;
    int nlive = 0, pick = -1, nfree = -1;
    for (int i = 0; i < MAX_OBJS; i++) {
        if (cl->objs[i].live) nlive++;
        else if (nfree < 0) nfree = i;
    }
    if (nlive) {
        int k = (int)(rnd(&cl->rng) % (uint64_t)nlive);
        for (int i = 0; i < MAX_OBJS; i++)
            if (cl->objs[i].live && k-- == 0) pick = i;
    }
    unsigned roll = (unsigned)(r0 % 100);
    int kind = roll < 10 ? OP_CREATE : roll < 38 ? OP_WRITE : roll < 58 ? OP_READ : roll < 66 ? OP_TASKLET_OWN
             : roll < 72 ? OP_TASKLET_SHARED : roll < 82 ? OP_LIST : roll < 92 ? OP_STAT : OP_DELETE;
    if (kind == OP_CREATE && nfree < 0) kind = OP_WRITE;
    if (kind != OP_CREATE && kind != OP_LIST && kind != OP_TASKLET_SHARED && pick < 0) kind = nfree >= 0 ? OP_CREATE : OP_LIST;
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    req.tag = cl->seq;
    Smartssd__V1__Response *r = NULL;
    uint64_t t0 = now_ns();
    obj *o = pick >= 0 ? &cl->objs[pick] : NULL;
    switch (kind) {
    case OP_CREATE: {
        o = &cl->objs[nfree];
        snprintf(o->name, sizeof o->name, "c%02d/o%" PRIu64, cl->id, cl->seq);
        Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
        co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
        co.name = o->name;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
        req.create_object = &co;
        r = call(c, &req);
        if (!r) return fail(cl, "create", r);
        h = fnv(h, &r->status, sizeof r->status);
        if (!r->status) {
            o->live = 1;
            o->size = 0;
        }
        break;
    }
    case OP_WRITE: {
        uint64_t off = rnd(&cl->rng) % (o->size + 1), len = 1 + rnd(&cl->rng) % 32768;
        if (off + len > MAX_OBJ_BYTES) {
            off = 0;
            len = len > MAX_OBJ_BYTES ? MAX_OBJ_BYTES : len;
        }
        uint8_t *data = malloc(len);
        make_data(data, len, (uint64_t)cl->id << 40 | cl->seq);
        Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
        so.name = o->name;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
        req.stat = &so;
        r = call(c, &req);   /* names to ids: ids differ between the soak and the replay */
        if (!r || r->status) {
            free(data);
            return fail(cl, "stat before write", r);
        }
        Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
        w.object_id = r->stat->info->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        w.offset = off;
        w.data.data = data;
        w.data.len = len;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
        req.write_object = &w;
        r = call(c, &req);
        free(data);
        if (!r) return fail(cl, "write", r);
        h = fnv(h, &r->status, sizeof r->status);
        if (!r->status) {
            o->size = r->write_object->size;
            h = fnv(h, &o->size, sizeof o->size);
        }
        break;
    }
    case OP_READ: case OP_STAT: {
        Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
        so.name = o->name;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
        req.stat = &so;
        r = call(c, &req);
        if (!r || r->status) return fail(cl, "stat", r);
        h = fnv(h, &r->stat->info->size, sizeof r->stat->info->size);
        if (kind == OP_STAT) break;
        Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
        ro.object_id = r->stat->info->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        ro.offset = rnd(&cl->rng) % (o->size + 1);
        ro.length = 1 + rnd(&cl->rng) % 65536;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
        req.read_object = &ro;
        r = call(c, &req);
        if (!r) return fail(cl, "read", r);
        h = fnv(h, &r->status, sizeof r->status);
        if (!r->status) h = fnv(h, r->read_object->data.data, r->read_object->data.len);
        break;
    }
    case OP_TASKLET_OWN:
        if (run_grep(cl, c, o->name, "ab", &h)) return -1;
        break;
    case OP_TASKLET_SHARED:
        if (run_grep(cl, c, "shared/lines.txt", "needle", &h)) return -1;
        break;
    case OP_LIST: {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "c%02d/", cl->id);
        Smartssd__V1__ListObjects lo = SMARTSSD__V1__LIST_OBJECTS__INIT;
        lo.prefix = prefix;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST;
        req.list = &lo;
        r = call(c, &req);
        if (!r || r->status) return fail(cl, "list", r);
        for (size_t i = 0; i < r->list->n_objects; i++) {
            h = fnv(h, r->list->objects[i]->name, strlen(r->list->objects[i]->name));
            h = fnv(h, &r->list->objects[i]->size, sizeof r->list->objects[i]->size);
        }
        break;
    }
    case OP_DELETE: {
        Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
        so.name = o->name;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
        req.stat = &so;
        r = call(c, &req);
        if (!r || r->status) return fail(cl, "stat before delete", r);
        Smartssd__V1__DeleteObject del = SMARTSSD__V1__DELETE_OBJECT__INIT;
        del.object_id = r->stat->info->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
        req.delete_object = &del;
        r = call(c, &req);
        if (!r) return fail(cl, "delete", r);
        h = fnv(h, &r->status, sizeof r->status);
        if (!r->status) o->live = 0;
        break;
    }
    }
    uint64_t dt = now_ns() - t0;
    if (r) smartssd__v1__response__free_unpacked(r, NULL);
    h = fnv(h, &kind, sizeof kind);
    keep(cl, h);
    if (c->fd >= 0) keep_lat(cl, kind, dt);
    cl->seq++;
    return 0;
}

/* ---------------------------------------------------------------- the soak */

typedef struct soak {
    const char *sock;
    client *clients;
    int n;
    uint64_t ops;                    /* per client per round (0: until the deadline) */
    uint64_t deadline;
    atomic_uint_fast64_t done;
} soak;

typedef struct targ { soak *s; client *cl; } targ;

static void *client_main(void *arg) {
    targ *t = arg;
    char err[256];
    int fd = csd_client_connect(t->s->sock, err, sizeof err);
    if (fd < 0) {
        snprintf(t->cl->why, sizeof t->cl->why, "client %d: %.200s", t->cl->id, err);
        t->cl->errors++;
        return NULL;
    }
    conn c = { .fd = fd };
    for (uint64_t i = 0; t->s->ops ? i < t->s->ops : now_ns() < t->s->deadline; i++) {
        if (step(t->cl, &c)) break;
        atomic_fetch_add(&t->s->done, 1);
    }
    close(fd);
    return NULL;
}

/* field is "VmRSS:" (all resident memory, with the image's mapped data pages the tasklets read) or
 * "RssAnon:" (the daemon's own heap and stacks: where a leak would show) */
static long proc_status_kib(pid_t pid, const char *field) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field))) v = strtol(line + strlen(field), NULL, 10);
    if (f) fclose(f);
    return v;
}

static long proc_fds(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

typedef struct sampler {
    pid_t pid;
    soak *s;
    FILE *out;
    uint64_t t0;
    volatile int stop;
    long rss_max;
} sampler;

static void *sampler_main(void *arg) {
    sampler *sp = arg;
    while (!sp->stop) {
        long rss = proc_status_kib(sp->pid, "VmRSS:"), anon = proc_status_kib(sp->pid, "RssAnon:"),
             fds = proc_fds(sp->pid);
        if (rss > sp->rss_max) sp->rss_max = rss;
        if (sp->out) {
            fprintf(sp->out, "%.1f,%ld,%ld,%ld,%" PRIu64 "\n", (double)(now_ns() - sp->t0) / 1e9, rss, anon, fds,
                    (uint64_t)atomic_load(&sp->s->done));
            fflush(sp->out);
        }
        for (int i = 0; i < 10 && !sp->stop; i++) usleep(100000);
    }
    return NULL;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(const uint32_t *v, size_t n, double p) {
    if (!n) return 0;
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return v[i] / 1000.0;
}

static void make_shared(csd_device *d) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = "shared/lines.txt";
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    conn c = { .fd = -1, .dev = d };
    Smartssd__V1__Response *r = call(&c, &req);
    if (!r || r->status) {
        fprintf(stderr, "bench_soak: creating the shared object failed\n");
        exit(2);
    }
    uint64_t id = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint8_t *buf = malloc(SHARED_BYTES);
    size_t n = 0;
    for (int i = 0; n + 64 < SHARED_BYTES; i++)
        n += (size_t)snprintf((char *)buf + n, 64, "line %06d %s\n", i, i % 7 == 3 ? "needle here" : "hay");
    csd_payload pl = { .in = buf, .in_len = n };
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    size_t len = smartssd__v1__request__get_packed_size(&req);
    uint8_t pk[64], *out;
    smartssd__v1__request__pack(&req, pk);
    size_t out_len;
    if (csd_device_command(d, pk, len, &pl, &out, &out_len)) exit(2);
    csd_free(out);
    free(buf);
}

static void format_image(const char *img) {
    char err[512];
    csd_params p;
    csd_params_preset(&p, "tiny");
    unlink(img);
    if (csd_format(img, 512ull << 20, &p, err, sizeof err)) {
        fprintf(stderr, "bench_soak: format: %s\n", err);
        exit(2);
    }
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    if (csd_device_open(&d, img, &o, err, sizeof err)) {
        fprintf(stderr, "bench_soak: open: %s\n", err);
        exit(2);
    }
    make_shared(d);
    csd_device_close(d);
}

static pid_t start_daemon(const char *csdd, const char *img, const char *sock, const char *log) {
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(log, "w", stderr);
        (void)f;
        execl(csdd, csdd, img, "--socket", sock, "--max-clients", "1024", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 2000; i++) {
        char err[256];
        int fd = csd_client_connect(sock, err, sizeof err);
        if (fd >= 0) {
            close(fd);
            return pid;
        }
        usleep(10000);
    }
    fprintf(stderr, "bench_soak: csdd did not come up (see %s)\n", log);
    kill(pid, SIGKILL);
    exit(2);
}

int main(int argc, char **argv) {
    const char *csdd = NULL, *dir = "/tmp", *series = NULL, *latency = NULL, *json = NULL;
    int nclients = 64, rounds = 1, check = 0;
    uint64_t seconds = 0, ops = 0, seed = 1;
    long max_growth_mib = 16;
    static const struct option opts[] = {
        { "csdd", required_argument, 0, 'c' }, { "dir", required_argument, 0, 'd' },
        { "clients", required_argument, 0, 'n' }, { "seconds", required_argument, 0, 's' },
        { "ops", required_argument, 0, 'o' }, { "rounds", required_argument, 0, 'r' },
        { "seed", required_argument, 0, 'S' }, { "series", required_argument, 0, 'T' },
        { "latency", required_argument, 0, 'L' }, { "json", required_argument, 0, 'j' },
        { "check", no_argument, 0, 'k' }, { "max-rss-growth-mib", required_argument, 0, 'g' },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    for (int ch; (ch = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        switch (ch) {
        case 'c': csdd = optarg; break;
        case 'd': dir = optarg; break;
        case 'n': nclients = atoi(optarg); break;
        case 's': seconds = strtoull(optarg, NULL, 10); break;
        case 'o': ops = strtoull(optarg, NULL, 10); break;
        case 'r': rounds = atoi(optarg); break;
        case 'S': seed = strtoull(optarg, NULL, 10); break;
        case 'T': series = optarg; break;
        case 'L': latency = optarg; break;
        case 'j': json = optarg; break;
        case 'k': check = 1; break;
        case 'g': max_growth_mib = atol(optarg); break;
        default:
            fprintf(stderr, "usage: bench_soak --csdd PATH [--dir DIR] [--clients N] [--seconds S | --ops N] "
                            "[--rounds R] [--seed S] [--series CSV] [--latency CSV] [--json FILE] [--check]\n");
            return ch == 'h' ? 0 : 2;
        }
    }
    if (!csdd || nclients < 1 || nclients > 99 || rounds < 1 || (!seconds && !ops)) {
        fprintf(stderr, "bench_soak: --csdd, 1..99 clients, and --seconds or --ops are required\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    char img[4096], sock[4096], log[4096];
    snprintf(img, sizeof img, "%s/soak.img", dir);
    snprintf(sock, sizeof sock, "%s/soak.sock", dir);
    snprintf(log, sizeof log, "%s/csdd.log", dir);
    format_image(img);
    pid_t pid = start_daemon(csdd, img, sock, log);

    client *cls = calloc((size_t)nclients, sizeof *cls);
    for (int i = 0; i < nclients; i++) {
        cls[i].id = i;
        cls[i].rng = seed * 1000003u + (uint64_t)i;
    }
    soak s = { .sock = sock, .clients = cls, .n = nclients, .ops = ops };
    sampler sp = { .pid = pid, .s = &s, .t0 = now_ns() };
    if (series) {
        sp.out = fopen(series, "w");
        fprintf(sp.out, "t_s,rss_kib,rss_anon_kib,fds,commands\n");
    }
    long fds0 = proc_fds(pid), rss_round1 = 0, rss_end = 0;
    int fd_leak = 0;
    pthread_t smp;
    pthread_create(&smp, NULL, sampler_main, &sp);
    uint64_t t_start = now_ns();
    for (int round = 0; round < rounds; round++) {
        s.deadline = now_ns() + seconds * 1000000000ull / (uint64_t)rounds;
        pthread_t *th = calloc((size_t)nclients, sizeof *th);
        targ *ta = calloc((size_t)nclients, sizeof *ta);
        for (int i = 0; i < nclients; i++) {
            ta[i] = (targ){ &s, &cls[i] };
            pthread_create(&th[i], NULL, client_main, &ta[i]);
        }
        for (int i = 0; i < nclients; i++) pthread_join(th[i], NULL);
        free(th);
        free(ta);
        /* every client hung up: the daemon's descriptors go back to where they were (or below: the
         * readiness probe's connection may still have been open when fds0 was counted) */
        long fds = -1;
        for (int i = 0; i < 100; i++) {
            fds = proc_fds(pid);
            if (fds <= fds0) break;
            usleep(50000);
        }
        if (fds > fds0) {
            fd_leak = 1;
            fprintf(stderr, "bench_soak: round %d: the daemon has %ld descriptors open, %ld before\n", round + 1, fds,
                    fds0);
        }
        long rss = proc_status_kib(pid, "RssAnon:");
        if (round == 0) rss_round1 = rss;
        rss_end = rss;
    }
    double wall = (double)(now_ns() - t_start) / 1e9;
    sp.stop = 1;
    pthread_join(smp, NULL);
    if (sp.out) fclose(sp.out);
    kill(pid, SIGTERM);
    int st;
    waitpid(pid, &st, 0);
    int daemon_ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;

    uint64_t total = 0, errors = 0;
    for (int i = 0; i < nclients; i++) {
        total += cls[i].seq;
        errors += cls[i].errors;
        if (cls[i].errors) fprintf(stderr, "bench_soak: %s\n", cls[i].why);
    }

    /* ---- serial replay on a fresh in-process device: same commands, client after client */
    format_image(img);
    char err[512];
    csd_device *d;
    csd_open_opts oo = { .background = 0 };
    if (csd_device_open(&d, img, &oo, err, sizeof err)) {
        fprintf(stderr, "bench_soak: open for replay: %s\n", err);
        return 2;
    }
    uint64_t mismatches = 0, replayed = 0;
    for (int i = 0; i < nclients; i++) {
        client rc = { .id = i, .rng = seed * 1000003u + (uint64_t)i };
        conn c = { .fd = -1, .dev = d };
        while (rc.seq < cls[i].seq && !rc.errors) step(&rc, &c);
        replayed += rc.seq;
        for (uint64_t k = 0; k < cls[i].seq && k < rc.n_digest; k++) {
            if (rc.digest[k] != cls[i].digest[k]) {
                if (!mismatches)
                    fprintf(stderr, "bench_soak: client %d command %" PRIu64 ": the replay differs\n", i, k);
                mismatches++;
                break;
            }
        }
        if (rc.errors) fprintf(stderr, "bench_soak: replay: %s\n", rc.why);
        if (rc.seq != cls[i].seq) mismatches++;
        free(rc.digest);
        for (int k = 0; k < OP_KINDS; k++) free(rc.lat[k]);
    }
    csd_device_close(d);

    /* ---- latency percentiles per command kind and overall */
    FILE *lf = latency ? fopen(latency, "w") : NULL;
    if (lf) fprintf(lf, "command,count,p50_us,p90_us,p99_us,p999_us,max_us\n");
    FILE *jf = json ? fopen(json, "w") : NULL;
    if (jf) fprintf(jf, "{\n  \"latency_us\": {");
    printf("%-15s %9s %9s %9s %9s %9s %9s\n", "command", "count", "p50_us", "p90_us", "p99_us", "p99.9_us", "max_us");
    size_t all_n = 0;
    for (int k = 0; k < OP_KINDS; k++)
        for (int i = 0; i < nclients; i++) all_n += cls[i].n_lat[k];
    uint32_t *all = malloc((all_n ? all_n : 1) * sizeof *all);
    size_t all_at = 0;
    for (int k = 0; k <= OP_KINDS; k++) {
        size_t n = 0;
        uint32_t *v;
        const char *name = k < OP_KINDS ? OP_NAMES[k] : "all";
        if (k < OP_KINDS) {
            for (int i = 0; i < nclients; i++) n += cls[i].n_lat[k];
            v = malloc((n ? n : 1) * sizeof *v);
            size_t at = 0;
            for (int i = 0; i < nclients; i++) {
                memcpy(v + at, cls[i].lat[k], cls[i].n_lat[k] * sizeof *v);
                at += cls[i].n_lat[k];
            }
            memcpy(all + all_at, v, n * sizeof *v);
            all_at += n;
        } else {
            v = all;
            n = all_at;
        }
        qsort(v, n, sizeof *v, cmp_u32);
        double p50 = pct(v, n, 50), p90 = pct(v, n, 90), p99 = pct(v, n, 99), p999 = pct(v, n, 99.9),
               mx = n ? v[n - 1] / 1000.0 : 0;
        printf("%-15s %9zu %9.1f %9.1f %9.1f %9.1f %9.1f\n", name, n, p50, p90, p99, p999, mx);
        if (lf) fprintf(lf, "%s,%zu,%.1f,%.1f,%.1f,%.1f,%.1f\n", name, n, p50, p90, p99, p999, mx);
        if (jf)
            fprintf(jf, "%s\n    \"%s\": {\"count\": %zu, \"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f, \"p999\": %.1f, "
                        "\"max\": %.1f}", k ? "," : "", name, n, p50, p90, p99, p999, mx);
        if (k < OP_KINDS) free(v);
    }
    free(all);
    if (lf) fclose(lf);
    long growth = rss_end - rss_round1;
    printf("clients %d, rounds %d, commands %" PRIu64 " in %.1f s (%.0f/s), replayed %" PRIu64 ", mismatches %" PRIu64
           ", client errors %" PRIu64 "\n", nclients, rounds, total, wall, (double)total / wall, replayed, mismatches,
           errors);
    printf("daemon: descriptors %ld before and after every round%s; anonymous RSS %ld KiB after round 1, %ld KiB "
           "at the end (%+ld KiB); peak RSS %ld KiB; stopped cleanly: %s\n", fds0, fd_leak ? " (NOT: a leak)" : "", rss_round1, rss_end,
           growth, sp.rss_max, daemon_ok ? "yes" : "no");
    if (jf) {
        fprintf(jf, "\n  },\n  \"clients\": %d, \"rounds\": %d, \"commands\": %" PRIu64 ", \"wall_s\": %.2f, "
                    "\"commands_per_s\": %.1f, \"replayed\": %" PRIu64 ", \"mismatches\": %" PRIu64 ", "
                    "\"client_errors\": %" PRIu64 ", \"fds_before\": %ld, \"fd_leak\": %s, \"rss_anon_round1_kib\": %ld, "
                    "\"rss_anon_end_kib\": %ld, \"rss_peak_kib\": %ld, \"daemon_stopped_cleanly\": %s\n}\n",
                nclients, rounds, total, wall, (double)total / wall, replayed, mismatches, errors, fds0,
                fd_leak ? "true" : "false", rss_round1, rss_end, sp.rss_max, daemon_ok ? "true" : "false");
        fclose(jf);
    }
    for (int i = 0; i < nclients; i++) {
        free(cls[i].digest);
        for (int k = 0; k < OP_KINDS; k++) free(cls[i].lat[k]);
    }
    free(cls);
    if (!check) return mismatches || errors ? 1 : 0;
    int bad = mismatches || errors || fd_leak || !daemon_ok || (rounds > 1 && growth > max_growth_mib * 1024);
    if (bad) fprintf(stderr, "bench_soak: FAILED\n");
    return bad;
}
