/* User tasklets end to end, through protocol packets: install (download), list, remove, persistence;
 * the web-log Q1 written as a user tasklet against the built-in; and hostile programs, each stopped
 * with a message naming the tasklet and the limit while the device keeps serving and every object
 * reads back intact. The programs are built here with the SDK (native/sdk/tasklet_sdk.py). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devutil.h"
#include "test_tasklets_util.h"

static void tk_free(tk_text *t) { free(t->s); t->s = NULL; }

static const char *dir;
static char src_dir[4096];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...) {
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0) {
        fprintf(stderr, "command failed: %s\n", cmd);
        exit(1);
    }
}

/* Build a tasklet source with the SDK into dir/out. */
static void sdk_build(const char *src, const char *out, const char *flags) {
    sh("python3 %s/sdk/tasklet_sdk.py build -q %s %s -o %s/%s", src_dir, flags, src, dir, out);
}

static uint8_t *slurp(const char *name, size_t *len) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    uint64_t n;
    uint8_t *b = tk_read_file(path, &n);
    *len = (size_t)n;
    return b;
}

static csd_device *open_dev(const char *img, int fresh) {
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, img);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    if (fresh) {
        unlink(path);
        CHECK(csd_format(path, 4u << 20, &p, err, sizeof err) == 0);
    }
    /* session limits small enough for quick tests */
    char trusted[200];
    snprintf(trusted, sizeof trusted, "%s/trusted", dir);
    p.tasklet_fuel_per_page = 5000000;
    p.tasklet_memory_bytes = 16u << 20;
    p.output_buffer_bytes = 65536;
    snprintf(p.tasklet_trusted_dir, sizeof p.tasklet_trusted_dir, "%s", trusted);
    csd_device *d;
    csd_open_opts o = { .override = &p };
    if (csd_device_open(&d, path, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        exit(1);
    }
    return d;
}

static Smartssd__V1__Response *install(csd_device *d, const char *name, int native, const void *p, size_t n,
                                       int replace) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__InstallTasklet in = SMARTSSD__V1__INSTALL_TASKLET__INIT;
    in.name = (char *)name;
    in.format = native ? SMARTSSD__V1__PROGRAM_FORMAT__NATIVE : SMARTSSD__V1__PROGRAM_FORMAT__WASM;
    in.program.data = (uint8_t *)p;
    in.program.len = n;
    in.replace = replace;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_INSTALL_TASKLET;
    req.install_tasklet = &in;
    return dev_call(d, &req, NULL);
}

static void install_ok(csd_device *d, const char *name, int native, const void *p, size_t n) {
    Smartssd__V1__Response *r = install(d, name, native, p, n, 0);
    if (r->status) fprintf(stderr, "install %s: %s\n", name, r->message);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
}

typedef struct run_out {
    int status;
    char message[1024];
    tk_text rows;
    size_t nrows;
    uint64_t device_ns;
} run_out;

/* create TASKLET name(params) + OUTPUT, execute over the whole object, read until done. */
static run_out run(csd_device *d, const char *name, const char *const *kv, uint64_t input) {
    run_out o = { 0 };
    Smartssd__V1__Response *r = dev_create_tasklet(d, name, kv, NULL);
    if (r->status) {
        o.status = r->status;
        snprintf(o.message, sizeof o.message, "%s", r->message);
        smartssd__v1__response__free_unpacked(r, NULL);
        return o;
    }
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t out = dev_create_output(d, 0);
    r = dev_execute(d, t, out, input, 0, 0, 1);
    if (r->status) {
        o.status = r->status;
        snprintf(o.message, sizeof o.message, "%s", r->message);
    }
    smartssd__v1__response__free_unpacked(r, NULL);
    for (int polls = 0; !o.status && polls < 100000; polls++) {
        r = dev_read(d, out, 0, 0);
        CHECK(r->status == 0);
        Smartssd__V1__ReadObjectReply *rr = r->read_object;
        o.nrows += tk_format_rows(&o.rows, rr->data.data, rr->data.len, TK_BYTES_RAW);
        int done = rr->progress->done;
        if (rr->progress->finished) {
            o.status = rr->progress->status;
            snprintf(o.message, sizeof o.message, "%s", rr->progress->message);
            o.device_ns = rr->progress->device_ns;
        }
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__DeleteObject del = SMARTSSD__V1__DELETE_OBJECT__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
    req.delete_object = &del;
    del.object_id = out;
    smartssd__v1__response__free_unpacked(dev_call(d, &req, NULL), NULL);
    del.object_id = t;
    smartssd__v1__response__free_unpacked(dev_call(d, &req, NULL), NULL);
    return o;
}

static const char *rows_text(run_out *o) { return o->rows.s ? o->rows.s : ""; }

/* WorldCup98-like records of 32 bytes: the server byte (19) carries the region in bits 7-5. */
static uint8_t *make_log(size_t records, size_t *len) {
    uint8_t *b = calloc(records, 32);
    uint32_t x = 12345;
    for (size_t i = 0; i < records; i++) {
        x = x * 1103515245u + 12345u;
        b[i * 32 + 3] = (uint8_t)i;
        b[i * 32 + 18] = (uint8_t)(x >> 8);
        b[i * 32 + 19] = (uint8_t)(x >> 16);
    }
    *len = records * 32;
    return b;
}

static uint64_t put(csd_device *d, const char *name, const void *p, size_t n) {
    uint64_t id = dev_create_data(d, name);
    dev_write(d, id, 0, p, n);
    return id;
}

static void expect_intact(csd_device *d, uint64_t id, const uint8_t *want, size_t n) {
    Smartssd__V1__Response *r = dev_read(d, id, 0, n + 1);
    CHECK(r->status == 0);
    CHECK(r->read_object->data.len == n && !memcmp(r->read_object->data.data, want, n));
    smartssd__v1__response__free_unpacked(r, NULL);
}

/* The Q1 user tasklet answers as the built-in does, on a device time consistent with it. */
static void user_q1_equals_builtin(csd_device *d, uint64_t log_id) {
    const char *kv[] = { "entry_bytes=32", NULL };
    run_out b = run(d, "weblog-q1", kv, log_id);
    run_out u = run(d, "q1-user", kv, log_id);
    CHECK_EQ_INT(b.status, 0);
    if (u.status) fprintf(stderr, "q1-user: %s\n", u.message);
    CHECK_EQ_INT(u.status, 0);
    CHECK(b.nrows >= 4);
    CHECK_STR(rows_text(&u), rows_text(&b));
    /* same flash reads; core time from fuel instead of hand-set constants: within 2x */
    CHECK(u.device_ns >= b.device_ns && u.device_ns <= 2 * b.device_ns);
    /* and deterministic: the same run gives the same nanoseconds */
    run_out u2 = run(d, "q1-user", kv, log_id);
    CHECK_EQ_U64(u2.device_ns, u.device_ns);
    CHECK_STR(rows_text(&u2), rows_text(&u));
    tk_free(&b.rows);
    tk_free(&u.rows);
    tk_free(&u2.rows);
}

static void hostile(csd_device *d, uint64_t log_id, const char *attack, int status, const char *needle1,
                    const char *needle2) {
    char kv0[64];
    snprintf(kv0, sizeof kv0, "attack=%s", attack);
    const char *kv[] = { kv0, NULL };
    char name[64];
    snprintf(name, sizeof name, "hostile-%s", attack);
    run_out o = run(d, name, kv, log_id);
    if (o.status != status || !strstr(o.message, name) || !strstr(o.message, needle1) ||
        (needle2 && !strstr(o.message, needle2))) {
        fprintf(stderr, "attack %s: status %d (%s), expected %d with '%s' and '%s'\n", attack, o.status, o.message,
                status, needle1, needle2 ? needle2 : "");
        exit(1);
    }
    if (!strcmp(attack, "peek")) CHECK_STR(rows_text(&o), "0\n");   /* it found no other object's bytes */
    tk_free(&o.rows);
}

static void no_report(void *arg, const char *line) { fprintf(stderr, "check: %s\n", line); }

int main(void) {
    dir = csd_test_dir("user_tasklets");
    snprintf(src_dir, sizeof src_dir, "%s", getenv("CSD_SRC") ? getenv("CSD_SRC") : ".");
    char path[8192];
    snprintf(path, sizeof path, "%s/trusted", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/outside", dir);
    mkdir(path, 0700);

    /* the programs */
    char q1src[4200], hsrc[4200], msrc[4200], osrc[4200], nsrc[4200];
    snprintf(q1src, sizeof q1src, "%s/../examples/tasklets/weblog-q1/weblog-q1.c", src_dir);
    snprintf(hsrc, sizeof hsrc, "%s/tests/tasklets/hostile.c", src_dir);
    snprintf(msrc, sizeof msrc, "%s/tests/tasklets/malformed_import.c", src_dir);
    snprintf(osrc, sizeof osrc, "%s/tests/tasklets/old_abi.c", src_dir);
    snprintf(nsrc, sizeof nsrc, "%s/tests/tasklets/newer_abi.c", src_dir);
    sdk_build(q1src, "q1.wasm", "");
    sdk_build(hsrc, "hostile.wasm", "");
    sdk_build(msrc, "malformed.wasm", "");
    sdk_build(q1src, "trusted/q1.so", "--native");
    sdk_build(q1src, "outside/q1.so", "--native");
    sdk_build(osrc, "trusted/old.so", "--native");
    sdk_build(nsrc, "trusted/newer.so", "--native");
    sh("ln -sf %s/outside/q1.so %s/trusted/escape.so", dir, dir);
    size_t q1_len, h_len, m_len;
    uint8_t *q1 = slurp("q1.wasm", &q1_len), *hw = slurp("hostile.wasm", &h_len), *mw = slurp("malformed.wasm", &m_len);

    csd_device *d = open_dev("dev.img", 1);
    size_t log_len;
    uint8_t *log = make_log(4000, &log_len);   /* 128000 bytes: 32 pages of 4 KiB */
    uint64_t log_id = put(d, "log", log, log_len);
    static const char secret[] = "TOPSECRET: another user's object";
    uint64_t secret_id = put(d, "secret", secret, sizeof secret);

    /* download: installed, then the same bytes again change nothing */
    Smartssd__V1__Response *r = install(d, "q1-user", 0, q1, q1_len, 0);
    CHECK(r->status == 0 && !r->install_tasklet->unchanged);
    char hash[64];
    snprintf(hash, sizeof hash, "%s", r->install_tasklet->hash);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = install(d, "q1-user", 0, q1, q1_len, 0);
    CHECK(r->status == 0 && r->install_tasklet->unchanged);
    CHECK_STR(r->install_tasklet->hash, hash);
    smartssd__v1__response__free_unpacked(r, NULL);
    /* other bytes under the same name need replace */
    EXPECT_STATUS(install(d, "q1-user", 0, hw, h_len, 0), SMARTSSD__V1__STATUS__ALREADY_EXISTS, "installed with other bytes");
    EXPECT_STATUS(install(d, "weblog-q1", 0, q1, q1_len, 0), SMARTSSD__V1__STATUS__ALREADY_EXISTS, "built-in");
    EXPECT_STATUS(install(d, "a/../x", 0, q1, q1_len, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT, "character outside");

    user_q1_equals_builtin(d, log_id);

    /* malformed programs are refused at download, nothing written */
    EXPECT_STATUS(install(d, "garbage", 0, "not wasm at all", 15, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "tasklet program 'garbage' is not a WebAssembly module");
    EXPECT_STATUS(install(d, "truncated", 0, q1, q1_len / 2, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "tasklet program 'truncated' is not a valid WebAssembly module");
    EXPECT_STATUS(install(d, "imports", 0, mw, m_len, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "imports 'env.open_device_memory', which the device does not provide");
    EXPECT_STATUS(install(d, "empty", 0, "", 0, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT, "empty");

    /* native: only from the trusted directory, whatever the path says */
    char outside_so[4200];
    snprintf(outside_so, sizeof outside_so, "%s/outside/q1.so", dir);
    EXPECT_STATUS(install(d, "native-out", 1, outside_so, strlen(outside_so), 0),
                  SMARTSSD__V1__STATUS__INVALID_ARGUMENT, "outside the trusted directory");
    EXPECT_STATUS(install(d, "native-dots", 1, "../outside/q1.so", 16, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "outside the trusted directory");
    EXPECT_STATUS(install(d, "native-link", 1, "escape.so", 9, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "outside the trusted directory");
    /* built against the ABI before the ops' tag: refused by name, not read past its end */
    EXPECT_STATUS(install(d, "native-old", 1, "old.so", 6, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "tasklet program 'native-old' (");
    EXPECT_STATUS(install(d, "native-old", 1, "old.so", 6, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                  "/trusted/old.so) was built against an older tasklet ABI than this device's (its ops: no ABI tag;");
    char newer_msg[200];
    snprintf(newer_msg, sizeof newer_msg,
             "a newer tasklet ABI than this device's (its ops: %zu bytes; this device reads %zu bytes)",
             sizeof(csd_tasklet_ops) + sizeof(void *), sizeof(csd_tasklet_ops));
    const char *want_newer = newer_msg;
    EXPECT_STATUS(install(d, "native-newer", 1, "newer.so", 8, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT, want_newer);
    install_ok(d, "q1-native", 1, "q1.so", 5);
    {
        const char *kv[] = { "entry_bytes=32", NULL };
        run_out b = run(d, "weblog-q1", kv, log_id), n = run(d, "q1-native", kv, log_id);
        CHECK_EQ_INT(n.status, 0);
        CHECK_STR(rows_text(&n), rows_text(&b));
        tk_free(&b.rows);
        tk_free(&n.rows);
    }

    /* hostile programs: each stopped, named, with its limit */
    static const char *const attacks[] = { "loop", "oob-read", "oob-write", "alloc", "stack", "deep", "peek",
                                           "bigrow", "grow" };
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "hostile-%s", attacks[i]);
        install_ok(d, name, 0, hw, h_len);
    }
    const int TE = SMARTSSD__V1__STATUS__TASKLET_ERROR;
    hostile(d, log_id, "loop", TE, "exceeded its instruction budget", "more than 5000000 instructions");
    hostile(d, log_id, "oob-read", TE, "accessed memory outside its own", "16 MiB limit, tasklet_memory_bytes");
    hostile(d, log_id, "oob-write", TE, "accessed memory outside its own", "16 MiB limit, tasklet_memory_bytes");
    hostile(d, log_id, "alloc", TE, "accessed memory outside its own", "an allocation past the limit returns NULL");
    hostile(d, log_id, "grow", TE, "accessed memory outside its own", "16 MiB limit");
    hostile(d, log_id, "stack", TE, "overflowed its C stack", "--stack-bytes");
    hostile(d, log_id, "deep", TE, "overflowed its stack", "tasklet_stack_bytes = 512 KiB");
    hostile(d, log_id, "peek", TE, "accessed memory outside its own", "tasklet_memory_bytes");
    hostile(d, log_id, "bigrow", TE, "larger than its whole output buffer", "output_buffer_bytes = 65536");

    /* the device kept serving, and nothing was touched */
    user_q1_equals_builtin(d, log_id);
    expect_intact(d, log_id, log, log_len);
    expect_intact(d, secret_id, (const uint8_t *)secret, sizeof secret);

    /* the programs' namespace is not writable as data */
    uint64_t pid;
    {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__StatObject st = SMARTSSD__V1__STAT_OBJECT__INIT;
        st.name = ".tasklets/q1-user";
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
        req.stat = &st;
        r = dev_call(d, &req, NULL);
        CHECK(r->status == 0);
        pid = r->stat->info->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
        w.object_id = pid;
        w.data.data = (uint8_t *)"x";
        w.data.len = 1;
        Smartssd__V1__Request wq = SMARTSSD__V1__REQUEST__INIT;
        wq.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
        wq.write_object = &w;
        EXPECT_STATUS(dev_call(d, &wq, NULL), SMARTSSD__V1__STATUS__INVALID_ARGUMENT, "holds a tasklet program");
        Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
        co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
        co.name = ".tasklets/sneaky";
        Smartssd__V1__Request cq = SMARTSSD__V1__REQUEST__INIT;
        cq.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
        cq.create_object = &co;
        EXPECT_STATUS(dev_call(d, &cq, NULL), SMARTSSD__V1__STATUS__INVALID_ARGUMENT, "holds a tasklet program");
    }

    /* list, remove; programs persist across a reopen */
    {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__ListTasklets lt = SMARTSSD__V1__LIST_TASKLETS__INIT;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST_TASKLETS;
        req.list_tasklets = &lt;
        r = dev_call(d, &req, NULL);
        CHECK(r->status == 0);
        CHECK_EQ_U64(r->list_tasklets->n_tasklets, 11);   /* q1-user, q1-native, 9 hostile */
        int seen = 0;
        for (size_t i = 0; i < r->list_tasklets->n_tasklets; i++) {
            Smartssd__V1__TaskletInfo *t = r->list_tasklets->tasklets[i];
            if (!strcmp(t->name, "q1-user")) {
                seen = 1;
                CHECK_EQ_U64(t->size, q1_len);
                CHECK_STR(t->hash, hash);
                CHECK(t->format == SMARTSSD__V1__PROGRAM_FORMAT__WASM);
            }
        }
        CHECK(seen);
        smartssd__v1__response__free_unpacked(r, NULL);
        Smartssd__V1__RemoveTasklet rt = SMARTSSD__V1__REMOVE_TASKLET__INIT;
        rt.name = "hostile-loop";
        Smartssd__V1__Request rq = SMARTSSD__V1__REQUEST__INIT;
        rq.command_case = SMARTSSD__V1__REQUEST__COMMAND_REMOVE_TASKLET;
        rq.remove_tasklet = &rt;
        EXPECT_STATUS(dev_call(d, &rq, NULL), SMARTSSD__V1__STATUS__OK, "");
        EXPECT_STATUS(dev_call(d, &rq, NULL), SMARTSSD__V1__STATUS__NOT_FOUND, "no tasklet program 'hostile-loop'");
        EXPECT_STATUS(dev_create_tasklet(d, "hostile-loop", NULL, NULL), SMARTSSD__V1__STATUS__NOT_FOUND,
                      "unknown tasklet 'hostile-loop'");
    }
    CHECK(csd_device_close(d) == 0);
    char img[4200];
    snprintf(img, sizeof img, "%s/dev.img", dir);
    CHECK(csd_check(img, no_report, NULL) == 0);
    d = open_dev("dev.img", 0);
    user_q1_equals_builtin(d, log_id);
    expect_intact(d, log_id, log, log_len);
    CHECK(csd_device_close(d) == 0);

    /* without a trusted directory no native program loads, even one installed before */
    {
        char err[512];
        csd_params p;
        CHECK(csd_params_preset(&p, "tiny") == 0);
        csd_open_opts o = { .override = &p };
        CHECK(csd_device_open(&d, img, &o, err, sizeof err) == 0);
        EXPECT_STATUS(dev_create_tasklet(d, "q1-native", NULL, NULL), SMARTSSD__V1__STATUS__INVALID_ARGUMENT,
                      "names no trusted directory for native tasklets (tasklet_trusted_dir)");
        EXPECT_STATUS(install(d, "n2", 1, "q1.so", 5, 0), SMARTSSD__V1__STATUS__INVALID_ARGUMENT, "tasklet_trusted_dir");
        CHECK(csd_device_close(d) == 0);
    }
    free(q1);
    free(hw);
    free(mw);
    free(log);
    printf("test_user_tasklets: ok\n");
    return 0;
}
