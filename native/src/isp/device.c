/* Device lifecycle and the object command handler's dispatch (paper IV-C-2). One mutex makes each
 * command atomic; an optional worker thread advances tasklet requests between commands. */
#include "isp/device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/errmap.h"
#include "util/pb_depth.h"

/* Deep enough for any plan the interpreter accepts (it limits expressions to 64 levels). */
#define CSD_MAX_PACKET_DEPTH 200

int csd_format(const char *image, uint64_t capacity, const csd_params *p, char *err, size_t errlen) {
    csd_params def;
    if (!p) {
        csd_params_preset(&def, NULL);
        p = &def;
    }
    if (!image || !*image) {
        snprintf(err, errlen, "no image path");
        return -EINVAL;
    }
    int rc = csd_params_validate(p, err, errlen);
    if (rc) return rc;
    return csd_ftl_format(image, capacity, p, err, errlen);
}

int csd_check(const char *image, void (*report)(void *arg, const char *line), void *arg) {
    return csd_ftl_check(image, report, arg);
}

const csd_params *csd_device_params(const csd_device *dev) { return &dev->params; }

static uint64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Advances tasklet requests while any runs. In paced mode it sleeps whenever device time runs ahead
 * of wall time since the device became busy, so end-to-end timings see at least device time. */
static void *worker_main(void *arg) {
    csd_device *d = arg;
    pthread_mutex_lock(&d->mu);
    uint64_t wall0 = 0, dev0 = 0;
    int busy = 0;
    while (!d->stop) {
        if (!d->running || device_output_backlogged(d)) {
            /* Idle, or an output holds half its buffer unread: like a real device with a full
             * result buffer, stop until the host reads (a read signals work_cv). */
            busy = 0;
            pthread_cond_wait(&d->work_cv, &d->mu);
            continue;
        }
        if (!busy) {
            busy = 1;
            wall0 = wall_ns();
            dev0 = csd_engine_now(d->eng);
        }
        int stepped = 0;
        for (int i = 0; i < 256 && csd_engine_step(d->eng); i++) stepped++;
        device_poll_runs(d);
        pthread_cond_broadcast(&d->progress_cv);
        if (!stepped && d->running) {
            /* Nothing left to simulate yet a run is open: cannot happen unless a request is lost;
             * wait instead of spinning. */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000000;
            if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
            pthread_cond_timedwait(&d->work_cv, &d->mu, &ts);
            continue;
        }
        if (d->params.paced) {
            uint64_t dev_el = csd_engine_now(d->eng) - dev0, wall_el = wall_ns() - wall0;
            if (dev_el > wall_el) {
                uint64_t ns = dev_el - wall_el;
                struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
                pthread_mutex_unlock(&d->mu);
                nanosleep(&ts, NULL);
                pthread_mutex_lock(&d->mu);
                continue;
            }
        }
        /* Let waiting commands in between slices. */
        pthread_mutex_unlock(&d->mu);
        sched_yield();
        pthread_mutex_lock(&d->mu);
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

int csd_device_open(csd_device **out, const char *image, const csd_open_opts *opts, char *err, size_t errlen) {
    *out = NULL;
    csd_device *d = calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    csd_params stored;
    int rc = csd_ftl_open(&d->ftl, image, &stored, err, errlen);
    if (rc) {
        free(d);
        return rc;
    }
    d->params = stored;
    if (opts && opts->override) {
        /* Geometry is fixed by the image; the rest may change per session. */
        csd_params o = *opts->override;
        o.channels = stored.channels;
        o.chips_per_channel = stored.chips_per_channel;
        o.dies_per_chip = stored.dies_per_chip;
        o.planes_per_die = stored.planes_per_die;
        o.pages_per_block = stored.pages_per_block;
        o.page_bytes = stored.page_bytes;
        o.blocks_per_plane = stored.blocks_per_plane;
        o.overprovision_pct = stored.overprovision_pct;
        o.max_objects = stored.max_objects;
        rc = csd_params_validate(&o, err, errlen);
        if (rc) goto fail;
        d->params = o;
        csd_ftl_set_sync_writes(d->ftl, o.sync_writes);
    }
    d->background = opts ? opts->background : 1;
    rc = csd_engine_create(&d->eng, &d->params, err, errlen);
    if (rc) goto fail;
    d->scratch = malloc(d->params.page_bytes);
    if (!d->scratch) { rc = -ENOMEM; goto fail; }
    d->next_vid = CSD_VOLATILE_ID_BASE;
    pthread_mutex_init(&d->mu, NULL);
    pthread_cond_init(&d->work_cv, NULL);
    pthread_cond_init(&d->progress_cv, NULL);
    if (d->background) {
        if (pthread_create(&d->worker, NULL, worker_main, d)) {
            snprintf(err, errlen, "cannot start the device thread");
            rc = -EAGAIN;
            goto fail_sync;
        }
        d->worker_started = 1;
    }
    *out = d;
    return 0;
fail_sync:
    pthread_cond_destroy(&d->progress_cv);
    pthread_cond_destroy(&d->work_cv);
    pthread_mutex_destroy(&d->mu);
fail:
    free(d->scratch);
    if (d->eng) csd_engine_destroy(d->eng);
    csd_ftl_close(d->ftl);
    free(d);
    return rc;
}

int csd_device_close(csd_device *d) {
    if (!d) return -EINVAL;
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_broadcast(&d->work_cv);
    pthread_cond_broadcast(&d->progress_cv);
    pthread_mutex_unlock(&d->mu);
    if (d->worker_started) pthread_join(d->worker, NULL);
    while (d->vobjs) vobj_free(d, d->vobjs);
    csd_engine_destroy(d->eng);
    int rc = csd_ftl_close(d->ftl);
    free(d->scratch);
    pthread_cond_destroy(&d->progress_cv);
    pthread_cond_destroy(&d->work_cv);
    pthread_mutex_destroy(&d->mu);
    free(d);
    return rc;
}

/* ---------------------------------------------------------------- command context */

int cmd_fail(cmd_ctx *c, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->status = status;
    return -1;
}

int cmd_fail_errno(cmd_ctx *c, int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->status = csd_status_from_errno(rc);
    return -1;
}

void *cmd_alloc(cmd_ctx *c, size_t n) {
    if (c->n_allocs == c->cap_allocs) {
        size_t cap = c->cap_allocs ? c->cap_allocs * 2 : 16;
        void **a = realloc(c->allocs, cap * sizeof *a);
        if (!a) return NULL;
        c->allocs = a;
        c->cap_allocs = cap;
    }
    void *p = calloc(1, n ? n : 1);
    if (p) c->allocs[c->n_allocs++] = p;
    return p;
}

char *cmd_strdup(cmd_ctx *c, const char *s) {
    size_t n = strlen(s);
    char *p = cmd_alloc(c, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

void cmd_charge(csd_device *d, cmd_ctx *c, const csd_flash_batch *ops, uint64_t to_dev, uint64_t to_host) {
    static const csd_flash_batch none = { 0 };
    c->device_ns += csd_engine_host_io(d->eng, ops ? ops : &none, to_dev, to_host);
    c->charged = 1;
    /* Host I/O also advances tasklet requests in the same simulation. */
    device_poll_runs(d);
}

/* ---------------------------------------------------------------- dispatch */

static int dispatch(csd_device *d, const Smartssd__V1__Request *r, cmd_ctx *c) {
    switch (r->command_case) {
    case SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT: return cmd_create(d, r->create_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_EXECUTE_OBJECT: return cmd_execute(d, r->execute_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT: return cmd_read(d, r->read_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT: return cmd_write(d, r->write_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT: return cmd_delete(d, r->delete_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_LIST: return cmd_list(d, r->list, c);
    case SMARTSSD__V1__REQUEST__COMMAND_STAT: return cmd_stat(d, r->stat, c);
    case SMARTSSD__V1__REQUEST__COMMAND_TRIM: return cmd_trim(d, r->trim, c);
    case SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY: return cmd_identify(d, r->identify, c);
    case SMARTSSD__V1__REQUEST__COMMAND_STATS: return cmd_stats(d, r->stats, c);
    case SMARTSSD__V1__REQUEST__COMMAND_RENAME: return cmd_rename(d, r->rename, c);
    default:
        return cmd_fail(c, CSD_UNSUPPORTED, "unknown or missing command in request (protocol version %d)",
                        CSD_PROTOCOL_VERSION);
    }
}

static int pack_response(Smartssd__V1__Response *resp, uint8_t **out, size_t *out_len) {
    size_t n = smartssd__v1__response__get_packed_size(resp);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) return -ENOMEM;
    smartssd__v1__response__pack(resp, buf);
    *out = buf;
    *out_len = n;
    return 0;
}

int csd_device_command(csd_device *d, const uint8_t *req, size_t req_len, const csd_payload *payload,
                       uint8_t **out, size_t *out_len) {
    if (!d || !out || !out_len || (!req && req_len)) return -EINVAL;
    *out = NULL;
    *out_len = 0;
    Smartssd__V1__Response resp = SMARTSSD__V1__RESPONSE__INIT;
    cmd_ctx c = { .resp = &resp, .payload = payload };
    Smartssd__V1__Request *r = NULL;

    pthread_mutex_lock(&d->mu);
    uint64_t tag = 0;
    if (req_len > CSD_MAX_PACKET) {
        d->counters.bad_packets++;
        cmd_fail(&c, CSD_BAD_PACKET, "request of %zu bytes exceeds the %u-byte packet limit", req_len,
                 CSD_MAX_PACKET);
    } else if (!csd_pb_depth_ok(req, req_len, &smartssd__v1__request__descriptor, CSD_MAX_PACKET_DEPTH)) {
        d->counters.bad_packets++;
        cmd_fail(&c, CSD_BAD_PACKET, "request nests messages deeper than %d levels", CSD_MAX_PACKET_DEPTH);
    } else if (!(r = smartssd__v1__request__unpack(NULL, req_len, req))) {
        d->counters.bad_packets++;
        cmd_fail(&c, CSD_BAD_PACKET, "request of %zu bytes does not decode as smartssd.v1.Request", req_len);
    } else {
        tag = r->tag;
        unsigned k = (unsigned)r->command_case - 10u;
        if (k < 32) d->counters.by_kind[k]++;
        dispatch(d, r, &c);
    }
    if (!c.charged) cmd_charge(d, &c, NULL, 0, 0);
    if (c.status) d->counters.errors++;
    resp.tag = tag;
    resp.status = (Smartssd__V1__Status)c.status;
    resp.message = c.msg;
    resp.param = c.diag.param;
    resp.device_ns = c.device_ns;
    resp.device_clock_ns = csd_engine_now(d->eng);
    if (c.status) resp.result_case = SMARTSSD__V1__RESPONSE__RESULT__NOT_SET;
    int rc = pack_response(&resp, out, out_len);
    if (d->running) pthread_cond_signal(&d->work_cv);
    pthread_mutex_unlock(&d->mu);

    if (r) smartssd__v1__request__free_unpacked(r, NULL);
    for (size_t i = 0; i < c.n_allocs; i++) free(c.allocs[i]);
    free(c.allocs);
    return rc;
}
