/* Test helpers for whole-device tests: build Requests, send them, check the Response. */
#ifndef CSD_TEST_DEVUTIL_H
#define CSD_TEST_DEVUTIL_H

#include "check.h"
#include "host/settings.h"
#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"

/* CSD_TEST_HOST_THREADS runs a whole-device test with that many host threads (ctest runs some both
 * ways: every device time and row must be the same). */
static inline void dev_test_threads(csd_params *p) {
    const char *ht = getenv("CSD_TEST_HOST_THREADS");
    if (ht && *ht) {
        CSD_HOST_THREADS(p) = (uint32_t)strtoul(ht, NULL, 10);
        CSD_HOST_AHEAD_MIN_NS(p) = 0;   /* every request runs ahead, however cheap its pages */
    }
}

static inline csd_device *dev_fresh(const char *dir, const char *preset, uint64_t capacity, int background) {
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/dev.img", dir);
    unlink(path);
    csd_params p;
    CHECK(csd_params_preset(&p, preset) == 0);
    dev_test_threads(&p);
    if (csd_format(path, capacity, &p, err, sizeof err)) {
        fprintf(stderr, "format: %s\n", err);
        exit(1);
    }
    csd_device *d;
    csd_open_opts o = { .background = background };
    if (csd_device_open(&d, path, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        exit(1);
    }
    return d;
}

/* Send raw bytes; returns the decoded Response (caller frees). */
static inline Smartssd__V1__Response *dev_raw(csd_device *d, const uint8_t *b, size_t n, const csd_payload *pl) {
    uint8_t *out;
    size_t out_len;
    CHECK(csd_device_command(d, b, n, pl, &out, &out_len) == 0);
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, out_len, out);
    csd_free(out);
    CHECK(r != NULL);
    return r;
}

static inline Smartssd__V1__Response *dev_call(csd_device *d, Smartssd__V1__Request *req, const csd_payload *pl) {
    size_t n = smartssd__v1__request__get_packed_size(req);
    uint8_t *b = malloc(n ? n : 1);
    smartssd__v1__request__pack(req, b);
    Smartssd__V1__Response *r = dev_raw(d, b, n, pl);
    free(b);
    return r;
}

#define EXPECT_STATUS(resp, st, needle) do { Smartssd__V1__Response *r_ = (resp); \
    if ((int)r_->status != (int)(st)) { fprintf(stderr, "%s:%d: status %s (%s), expected %s\n", __FILE__, __LINE__, \
        csd_status_name(r_->status), r_->message, csd_status_name(st)); exit(1); } \
    if ((needle) && *(const char *)(needle)) CHECK_CONTAINS(r_->message, (const char *)(needle)); \
    smartssd__v1__response__free_unpacked(r_, NULL); } while (0)

static inline uint64_t dev_create_data(csd_device *d, const char *name) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = (char *)name;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    if (r->status) fprintf(stderr, "create %s: %s\n", name, r->message);
    CHECK(r->status == 0);
    uint64_t id = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    return id;
}

static inline void dev_write(csd_device *d, uint64_t id, uint64_t off, const void *data, size_t n) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.offset = off;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    csd_payload pl = { .in = data, .in_len = n };
    Smartssd__V1__Response *r = dev_call(d, &req, &pl);
    if (r->status) fprintf(stderr, "write: %s\n", r->message);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
}

/* create_object TASKLET with k=v params ("k=v" strings, NULL-terminated), a plan and a pushed filter
 * (either may be NULL); returns the response. */
static inline Smartssd__V1__Response *dev_create_filtered(csd_device *d, const char *name, const char *const *kv,
                                                          Smartssd__V1__Plan *plan, Smartssd__V1__Expr *filter) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    Smartssd__V1__Param ps[16], *pp[16];
    char keys[16][64];
    size_t n = 0;
    for (; kv && kv[n] && n < 16; n++) {
        const char *eq = strchr(kv[n], '=');
        smartssd__v1__param__init(&ps[n]);
        snprintf(keys[n], sizeof keys[n], "%.*s", (int)(eq - kv[n]), kv[n]);
        ps[n].key = keys[n];
        ps[n].value = (char *)eq + 1;
        pp[n] = &ps[n];
    }
    co.kind = SMARTSSD__V1__OBJECT_KIND__TASKLET;
    co.name = (char *)name;
    co.n_params = n;
    co.params = pp;
    co.plan = plan;
    co.filter = filter;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    return dev_call(d, &req, NULL);
}

static inline Smartssd__V1__Response *dev_create_tasklet(csd_device *d, const char *name, const char *const *kv,
                                                         Smartssd__V1__Plan *plan) {
    return dev_create_filtered(d, name, kv, plan, NULL);
}

static inline void dev_delete(csd_device *d, uint64_t id) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__DeleteObject dl = SMARTSSD__V1__DELETE_OBJECT__INIT;
    dl.object_id = id;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
    req.delete_object = &dl;
    smartssd__v1__response__free_unpacked(dev_call(d, &req, NULL), NULL);
}

static inline uint64_t dev_create_output(csd_device *d, uint64_t max_outputs) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__OUTPUT;
    co.max_outputs = max_outputs;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    CHECK(r->status == 0);
    uint64_t id = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    return id;
}

static inline Smartssd__V1__Response *dev_execute(csd_device *d, uint64_t t, uint64_t o, uint64_t obj, uint64_t off,
                                                  uint64_t len, int whole) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ExecuteObject ex = SMARTSSD__V1__EXECUTE_OBJECT__INIT;
    Smartssd__V1__Extent x = SMARTSSD__V1__EXTENT__INIT;
    x.object_id = obj;
    x.offset = off;
    x.length = len;
    x.whole = whole;
    ex.tasklet_id = t;
    ex.output_id = o;
    ex.input = &x;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_EXECUTE_OBJECT;
    req.execute_object = &ex;
    return dev_call(d, &req, NULL);
}

static inline Smartssd__V1__Response *dev_read(csd_device *d, uint64_t id, uint64_t off, uint64_t len) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
    ro.object_id = id;
    ro.offset = off;
    ro.length = len;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
    req.read_object = &ro;
    return dev_call(d, &req, NULL);
}

/* A cheap command that must succeed: proves the device still serves after a bad one. */
/* set_times; a negative time is left out of the request (kept as it is) */
static inline Smartssd__V1__Response *dev_set_times(csd_device *d, uint64_t id, int64_t mtime, int64_t atime) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__SetTimes st = SMARTSSD__V1__SET_TIMES__INIT;
    st.object_id = id;
    st.set_mtime = mtime >= 0;
    st.mtime_ms = (uint64_t)mtime;
    st.set_atime = atime >= 0;
    st.atime_ms = (uint64_t)atime;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_SET_TIMES;
    req.set_times = &st;
    return dev_call(d, &req, NULL);
}

static inline void dev_still_serving(csd_device *d) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Identify id = SMARTSSD__V1__IDENTIFY__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY;
    req.identify = &id;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    CHECK(r->status == 0);
    CHECK(r->identify && r->identify->geometry);
    smartssd__v1__response__free_unpacked(r, NULL);
}

#endif
