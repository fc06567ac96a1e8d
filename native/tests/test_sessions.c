/* Dead clients (the orphan rule, docs/RELIABILITY.md): tasklet and output objects belong to the
 * session that last used them; once it has ended they are reclaimed after orphan_timeout_ms unused, a
 * client that comes back gets a NOT_FOUND that says why, and the volatile-object table comes back. A
 * running output that a live session leaves unread that long has its run cancelled with
 * RESOURCE_EXHAUSTED. Deterministic: no device thread, timeouts of 0 (at once) and one hour (never
 * within a test). */
#include <errno.h>

#include "devutil.h"
#include "hil/device.h"
#include "hil/vobj.h"

static csd_device *open_with(const char *dir, uint64_t timeout_ms, uint64_t out_buf) {
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/dev.img", dir);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    p.orphan_timeout_ms = timeout_ms;
    if (out_buf) p.output_buffer_bytes = out_buf;
    csd_open_opts o = { .override = &p, .background = 0 };
    csd_device *d;
    if (csd_device_open(&d, path, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        exit(1);
    }
    return d;
}

static Smartssd__V1__Response *call_as(csd_device *d, uint64_t s, Smartssd__V1__Request *req) {
    size_t n = smartssd__v1__request__get_packed_size(req);
    uint8_t *b = malloc(n ? n : 1), *out;
    smartssd__v1__request__pack(req, b);
    size_t out_len;
    CHECK(csd_device_command_as(d, s, b, n, NULL, &out, &out_len) == 0);
    free(b);
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, out_len, out);
    csd_free(out);
    CHECK(r);
    return r;
}

static uint64_t create_as(csd_device *d, uint64_t s, int kind, const char *tasklet, const char *pattern) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    Smartssd__V1__Param p = SMARTSSD__V1__PARAM__INIT, *pp[2] = { &p, NULL };
    Smartssd__V1__Param m = SMARTSSD__V1__PARAM__INIT;
    co.kind = kind;
    if (tasklet) {
        co.name = (char *)tasklet;
        p.key = "pattern";
        p.value = (char *)pattern;
        m.key = "mode";
        m.value = "lines";
        pp[1] = &m;
        co.params = pp;
        co.n_params = 2;
    }
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    Smartssd__V1__Response *r = call_as(d, s, &req);
    if (r->status) {
        int st = (int)r->status;
        smartssd__v1__response__free_unpacked(r, NULL);
        return (uint64_t)st;   /* a status: below CSD_VOLATILE_ID_BASE like every failure */
    }
    uint64_t id = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    return id;
}

static Smartssd__V1__Response *read_as(csd_device *d, uint64_t s, uint64_t id, uint64_t len) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
    ro.object_id = id;
    ro.length = len;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
    req.read_object = &ro;
    return call_as(d, s, &req);
}

static Smartssd__V1__Response *exec_as(csd_device *d, uint64_t s, uint64_t t, uint64_t o, uint64_t obj) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ExecuteObject ex = SMARTSSD__V1__EXECUTE_OBJECT__INIT;
    Smartssd__V1__Extent x = SMARTSSD__V1__EXTENT__INIT;
    x.object_id = obj;
    x.whole = 1;
    ex.tasklet_id = t;
    ex.output_id = o;
    ex.input = &x;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_EXECUTE_OBJECT;
    req.execute_object = &ex;
    return call_as(d, s, &req);
}

static uint64_t counter(csd_device *d, const char *name) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Stats st = SMARTSSD__V1__STATS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STATS;
    req.stats = &st;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    uint64_t v = UINT64_MAX;
    for (size_t i = 0; i < r->stats->n_counters; i++)
        if (!strcmp(r->stats->counters[i]->key, name)) v = strtoull(r->stats->counters[i]->value, NULL, 10);
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(v != UINT64_MAX);
    return v;
}

/* What the reads of an output brought so far, and its run's progress at the last one. */
typedef struct polled {
    uint64_t got, rows;
    int status, done;
    char msg[600];
} polled;

/* One read of output o (len bytes, 0 = the default chunk) as session s. */
static void poll_once(csd_device *d, uint64_t s, uint64_t o, uint64_t len, polled *p) {
    Smartssd__V1__Response *r = read_as(d, s, o, len);
    CHECK(r->status == 0);
    p->got += r->read_object->data.len;
    p->done = r->read_object->progress->done;
    p->status = r->read_object->progress->status;
    p->rows = r->read_object->progress->rows;
    snprintf(p->msg, sizeof p->msg, "%s", r->read_object->progress->message);
    smartssd__v1__response__free_unpacked(r, NULL);
}

/* Until the device thread holds a run back: an output with half its buffer unread. */
static void wait_backlogged(csd_device *d) {
    for (int i = 0, waiting = 0; !waiting; i++) {
        CHECK(i < 30000);
        pthread_mutex_lock(&d->mu);
        waiting = vobj_backlogged(d);
        pthread_mutex_unlock(&d->mu);
        if (!waiting) usleep(1000);
    }
}

/* 64 KiB of short lines, every one matching: one page of lines-mode grep output is ~4 KiB of rows */
static uint64_t make_input(csd_device *d) {
    uint64_t id = dev_create_data(d, "lines.txt");
    static char buf[64 << 10];
    for (size_t i = 0; i < sizeof buf; i += 8) memcpy(buf + i, "hit 123\n", 8);
    dev_write(d, id, 0, buf, sizeof buf);
    return id;
}

int main(void) {
    const char *dir = csd_test_dir("sessions");
    csd_device *d = dev_fresh(dir, "tiny", 4u << 20, 0);
    uint64_t input = make_input(d);
    CHECK(csd_device_close(d) == 0);

    /* ---- timeout 0: a dead client's objects go at once, and say so */
    d = open_with(dir, 0, 0);
    uint64_t a, b;
    CHECK(csd_session_begin(d, &a) == 0 && csd_session_begin(d, &b) == 0 && a != b && a && b);
    CHECK_EQ_U64(counter(d, "sessions.open"), 2);
    uint64_t t = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__TASKLET, "grep", "hit");
    uint64_t o = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL);
    CHECK(t >= CSD_VOLATILE_ID_BASE && o >= CSD_VOLATILE_ID_BASE);
    Smartssd__V1__Response *r = exec_as(d, a, t, o, input);
    EXPECT_STATUS(r, CSD_OK, "");
    /* objects of this process (session 0) are never reclaimed */
    uint64_t mine = create_as(d, 0, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL);
    /* B uses A's tasklet: it is B's now, so A's end does not take it */
    uint64_t o2 = create_as(d, b, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL);
    uint64_t t_shared = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__TASKLET, "grep", "hit");
    r = exec_as(d, b, t_shared, o2, input);
    EXPECT_STATUS(r, CSD_OK, "");
    csd_session_end(d, a);   /* client A dies: its output (running, unread) and tasklet go */
    CHECK_EQ_U64(counter(d, "sessions.open"), 1);
    CHECK_EQ_U64(counter(d, "sessions.objects_reclaimed"), 2);
    r = read_as(d, b, o, 0);
    EXPECT_STATUS(r, CSD_NOT_FOUND, "it was reclaimed after its client disconnected");
    r = exec_as(d, b, t, o2, input);
    EXPECT_STATUS(r, CSD_NOT_FOUND, "no tasklet object");
    /* B's run over the shared tasklet is whole: every line of the input comes back */
    uint64_t rows = 0;
    for (int done = 0; !done;) {
        r = read_as(d, b, o2, 0);
        CHECK(r->status == 0);
        rows = r->read_object->progress->rows;
        done = r->read_object->progress->done;
        CHECK_EQ_INT(r->read_object->progress->status, 0);
        smartssd__v1__response__free_unpacked(r, NULL);
    }
    CHECK_EQ_U64(rows, (64u << 10) / 8);
    /* this process's object stays */
    r = read_as(d, 0, mine, 0);
    EXPECT_STATUS(r, CSD_INVALID_ARGUMENT, "has not been executed");
    csd_session_end(d, b);
    CHECK_EQ_U64(counter(d, "sessions.objects_reclaimed"), 4);

    /* ---- the volatile-object table: a dead client that filled it gives it back */
    uint64_t c, e;
    CHECK(csd_session_begin(d, &c) == 0 && csd_session_begin(d, &e) == 0);
    size_t made = 0;
    for (;;) {
        uint64_t id = create_as(d, c, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL);
        if (id < CSD_VOLATILE_ID_BASE) {
            CHECK_EQ_INT(id, CSD_RESOURCE_EXHAUSTED);
            break;
        }
        made++;
    }
    CHECK_EQ_U64(made, CSD_MAX_VOLATILE_OBJECTS - 1);   /* `mine` holds one */
    CHECK_EQ_INT(create_as(d, e, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL), CSD_RESOURCE_EXHAUSTED);
    csd_session_end(d, c);
    CHECK(create_as(d, e, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL) >= CSD_VOLATILE_ID_BASE);
    csd_session_end(d, e);
    CHECK(csd_device_close(d) == 0);

    /* ---- a live client that leaves a running output unread. With the device thread on, the run fills
     * half its buffer (tiny: 1 MiB) and waits for the host; with timeout 0 the wait is cut short at
     * once: the run is cancelled and says why. */
    d = dev_fresh(dir, "tiny", 8u << 20, 0);
    uint64_t big = dev_create_data(d, "big.txt");
    {
        static char buf[1 << 20];
        for (size_t i = 0; i < sizeof buf; i += 8) memcpy(buf + i, "hit 123\n", 8);
        dev_write(d, big, 0, buf, sizeof buf);
    }
    CHECK(csd_device_close(d) == 0);
    for (int variant = 0; variant < 2; variant++) {
        char path[4200], err[512];
        snprintf(path, sizeof path, "%s/dev.img", dir);
        csd_params p;
        CHECK(csd_params_preset(&p, "tiny") == 0);
        p.orphan_timeout_ms = variant == 0 ? 0 : 3600000;
        csd_open_opts oo = { .override = &p, .background = 1 };
        CHECK(csd_device_open(&d, path, &oo, err, sizeof err) == 0);
        CHECK(csd_session_begin(d, &a) == 0);
        t = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__TASKLET, "grep", "hit");
        o = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL);
        r = exec_as(d, a, t, o, big);
        EXPECT_STATUS(r, CSD_OK, "");
        int status = 0;
        char msg[600] = "";
        if (variant == 0) {
            /* wait without a command (a command's host I/O would advance the run too): under the
             * device's lock, until the device thread has cancelled it */
            for (int i = 0, finished = 0; !finished; i++) {
                CHECK(i < 30000);
                pthread_mutex_lock(&d->mu);
                finished = vobj_find(d, o)->state == RUN_FINISHED;
                pthread_mutex_unlock(&d->mu);
                if (!finished) usleep(1000);
            }
        } else {
            /* the run waits for the host with half its buffer full, as long as it takes */
            wait_backlogged(d);
            usleep(50000);
        }
        polled pl = { 0 };
        while (!pl.done) poll_once(d, a, o, 0, &pl);
        status = pl.status;
        rows = pl.rows;
        snprintf(msg, sizeof msg, "%s", pl.msg);
        if (variant == 0) {
            CHECK_EQ_INT(status, CSD_RESOURCE_EXHAUSTED);
            CHECK_CONTAINS(msg, "run cancelled: its output buffer held");
            CHECK_CONTAINS(msg, "orphan_timeout_ms = 0");
            CHECK(rows > 0 && rows < (1u << 20) / 8);   /* a prefix of the answer, not all of it */
            CHECK_EQ_U64(counter(d, "sessions.runs_cancelled"), 1);
        } else {
            CHECK_EQ_INT(status, 0);
            CHECK_EQ_U64(rows, (1u << 20) / 8);
            CHECK_EQ_U64(counter(d, "sessions.runs_cancelled"), 0);
            uint64_t o3 = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL);
            csd_session_end(d, a);
            r = read_as(d, 0, o3, 0);   /* still there: not unused for an hour */
            EXPECT_STATUS(r, CSD_INVALID_ARGUMENT, "has not been executed");
            CHECK_EQ_U64(counter(d, "sessions.objects_reclaimed"), 0);
        }
        if (variant == 0) csd_session_end(d, a);
        dev_still_serving(d);
        CHECK(csd_device_close(d) == 0);
    }

    /* ---- a client that polls a backlogged output in reads of a few bytes. Each read is a command
     * whose own host I/O advances the device's clock; the runs must not advance past the backlog
     * check then either, or every read would add pages of rows and take 16 bytes until the buffer
     * overran ("output buffer full", RELIABILITY.md finding 6). With and without the device thread. */
    for (int background = 0; background < 2; background++) {
        char path[4200], err[512];
        snprintf(path, sizeof path, "%s/dev.img", dir);
        csd_params p;
        CHECK(csd_params_preset(&p, "tiny") == 0);
        p.output_buffer_bytes = 64u << 10;
        csd_open_opts oo = { .override = &p, .background = background };
        CHECK(csd_device_open(&d, path, &oo, err, sizeof err) == 0);
        CHECK(csd_session_begin(d, &a) == 0);
        t = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__TASKLET, "grep", "hit");
        o = create_as(d, a, SMARTSSD__V1__OBJECT_KIND__OUTPUT, NULL, NULL);
        r = exec_as(d, a, t, o, big);
        EXPECT_STATUS(r, CSD_OK, "");
        if (background) wait_backlogged(d);
        uint64_t polls = 0, peak = 0;
        polled pl = { 0 };
        /* 2,000 small polls (before the fix the buffer overran within 100), then the rest in whole chunks */
        for (; !pl.done && !pl.status; polls++) {
            poll_once(d, a, o, polls < 2000 ? 16 : 0, &pl);
            pthread_mutex_lock(&d->mu);
            vobj *v = vobj_find(d, o);
            if (v->out.len - v->out.read_pos > peak) peak = v->out.len - v->out.read_pos;
            pthread_mutex_unlock(&d->mu);
        }
        if (pl.status) fprintf(stderr, "background %d: after %" PRIu64 " polls: %s\n", background, polls, pl.msg);
        CHECK_EQ_INT(pl.status, 0);
        CHECK_EQ_U64(pl.rows, (1u << 20) / 8);
        CHECK(peak <= p.output_buffer_bytes);
        csd_session_end(d, a);
        dev_still_serving(d);
        CHECK(csd_device_close(d) == 0);
    }
    TEST_OK("test_sessions");
}
