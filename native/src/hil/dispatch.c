/* The command entry point (paper IV-C-2): decode a Request, route it to its handler, pack the
 * Response. One mutex makes each command atomic with respect to the others and the device thread. */
#include "hil/cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "hil/pace.h"
#include "hil/timeline.h"
#include "util/pb_depth.h"

/* Deep enough for any plan the interpreter accepts (it limits expressions to 64 levels). */
#define CSD_MAX_PACKET_DEPTH 200

static int create(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c) {
    switch (m->kind) {
    case SMARTSSD__V1__OBJECT_KIND__TASKLET: return cmd_create_tasklet(d, m, c);
    case SMARTSSD__V1__OBJECT_KIND__OUTPUT: return cmd_create_output(d, m, c);
    case SMARTSSD__V1__OBJECT_KIND__DATA: return cmd_create_data(d, m, c);
    default:
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: kind must be DATA, TASKLET or OUTPUT (got %d)",
                        (int)m->kind);
    }
}

/* Tasklet and output objects have ids above CSD_VOLATILE_ID_BASE; the rest are data objects. */
static int read(csd_device *d, const Smartssd__V1__ReadObject *m, cmd_ctx *c) {
    if (m->object_id < CSD_VOLATILE_ID_BASE) return cmd_read_data(d, m, c);
    vobj *o = vobj_find(d, m->object_id);
    if (!o) return cmd_fail(c, CSD_NOT_FOUND, "read_object: no object %" PRIu64, m->object_id);
    if (o->kind != SMARTSSD__V1__OBJECT_KIND__OUTPUT)
        return cmd_fail(c, CSD_UNSUPPORTED, "read_object: object %" PRIu64 " is a tasklet; read its output object",
                        m->object_id);
    return cmd_read_output(d, o, m, c);
}

static int delete(csd_device *d, const Smartssd__V1__DeleteObject *m, cmd_ctx *c) {
    if (m->object_id < CSD_VOLATILE_ID_BASE) return cmd_delete_data(d, m, c);
    vobj *o = vobj_find(d, m->object_id);
    if (!o) return cmd_fail(c, CSD_NOT_FOUND, "delete_object: no object %" PRIu64, m->object_id);
    return cmd_delete_vobj(d, o, c);
}

static int dispatch(csd_device *d, const Smartssd__V1__Request *r, cmd_ctx *c) {
    switch (r->command_case) {
    case SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT: return create(d, r->create_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_EXECUTE_OBJECT: return cmd_execute(d, r->execute_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT: return read(d, r->read_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT: return cmd_write(d, r->write_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT: return delete(d, r->delete_object, c);
    case SMARTSSD__V1__REQUEST__COMMAND_LIST: return cmd_list(d, r->list, c);
    case SMARTSSD__V1__REQUEST__COMMAND_STAT: return cmd_stat(d, r->stat, c);
    case SMARTSSD__V1__REQUEST__COMMAND_TRIM: return cmd_trim(d, r->trim, c);
    case SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY: return cmd_identify(d, r->identify, c);
    case SMARTSSD__V1__REQUEST__COMMAND_STATS: return cmd_stats(d, r->stats, c);
    case SMARTSSD__V1__REQUEST__COMMAND_RENAME: return cmd_rename(d, r->rename, c);
    case SMARTSSD__V1__REQUEST__COMMAND_SET_TIMES: return cmd_set_times(d, r->set_times, c);
    case SMARTSSD__V1__REQUEST__COMMAND_INSTALL_TASKLET: return cmd_install_tasklet(d, r->install_tasklet, c);
    case SMARTSSD__V1__REQUEST__COMMAND_LIST_TASKLETS: return cmd_list_tasklets(d, r->list_tasklets, c);
    case SMARTSSD__V1__REQUEST__COMMAND_REMOVE_TASKLET: return cmd_remove_tasklet(d, r->remove_tasklet, c);
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
    uint64_t tag = 0, t0 = csd_engine_now(d->eng);
    const char *what = "bad packet";
    pace_command_begin(d);
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
        const ProtobufCFieldDescriptor *fd =
            protobuf_c_message_descriptor_get_field(&smartssd__v1__request__descriptor, (unsigned)r->command_case);
        what = fd ? fd->name : "unknown command";
        dispatch(d, r, &c);
    }
    if (!c.charged) cmd_charge(d, &c, NULL, 0, 0);
    timeline_command(d, what, t0, csd_engine_now(d->eng));
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
    uint64_t wait = pace_command_end(d);
    pthread_mutex_unlock(&d->mu);
    if (wait) pace_sleep(wait);

    if (r) smartssd__v1__request__free_unpacked(r, NULL);
    for (size_t i = 0; i < c.n_allocs; i++) free(c.allocs[i]);
    free(c.allocs);
    return rc;
}
