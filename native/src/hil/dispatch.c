/* The command entry point (paper IV-C-2): decode a Request, route it to its handler, pack the
 * Response. One mutex makes each command atomic with respect to the others and the device thread. */
#include "hil/cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hil/pace.h"
#include "hil/timeline.h"
#include "util/pb_walk.h"
#include "util/utf8.h"

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
    vobj *o = vobj_use(d, m->object_id);
    if (!o) return cmd_fail(c, CSD_NOT_FOUND, "read_object: no object %" PRIu64 "%s", m->object_id,
                            vobj_gone(d, m->object_id));
    if (o->kind != SMARTSSD__V1__OBJECT_KIND__OUTPUT)
        return cmd_fail(c, CSD_UNSUPPORTED, "read_object: object %" PRIu64 " is a tasklet; read its output object",
                        m->object_id);
    return cmd_read_output(d, o, m, c);
}

static int delete(csd_device *d, const Smartssd__V1__DeleteObject *m, cmd_ctx *c) {
    if (m->object_id < CSD_VOLATILE_ID_BASE) return cmd_delete_data(d, m, c);
    vobj *o = vobj_use(d, m->object_id);
    if (!o) return cmd_fail(c, CSD_NOT_FOUND, "delete_object: no object %" PRIu64 "%s", m->object_id,
                            vobj_gone(d, m->object_id));
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
    case SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT: return cmd_block_submit(d, r->block_submit, c);
    case SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL: return cmd_block_poll(d, r->block_poll, c);
    case SMARTSSD__V1__REQUEST__COMMAND_BLOCK_INFO: return cmd_block_info(d, r->block_info, c);
    default:
        return cmd_fail(c, CSD_UNSUPPORTED, "unknown or missing command in request (protocol version %d)",
                        CSD_PROTOCOL_VERSION);
    }
}

/* Every string of a Response must be UTF-8 or a Java client cannot decode the reply at all. Names are
 * checked when they are made, but messages quote tasklet errors and parameters, a message cut at its
 * buffer's end can split a character, and an image from before the naming rule may hold any name. */
static void scrub_strings(ProtobufCMessage *m) {
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            uint32_t q = *(const uint32_t *)((const char *)m + f->quantifier_offset);
            if (q != f->id) continue;
        }
        void *at = (char *)m + f->offset;
        size_t n = 1;
        void **items = at;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            n = *(const size_t *)((const char *)m + f->quantifier_offset);
            items = *(void ***)at;
        }
        for (size_t k = 0; k < n; k++) {
            void *v = items[k];
            if (!v) continue;
            if (f->type == PROTOBUF_C_TYPE_STRING) {
                if (!csd_utf8_valid(v, strlen(v), NULL)) csd_utf8_scrub(v);
            } else {
                scrub_strings(v);
            }
        }
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
    return csd_device_command_as(d, 0, req, req_len, payload, out, out_len);
}

int csd_device_command_as(csd_device *d, uint64_t session, const uint8_t *req, size_t req_len,
                          const csd_payload *payload, uint8_t **out, size_t *out_len) {
    if (!d || !out || !out_len || (!req && req_len)) return -EINVAL;
    *out = NULL;
    *out_len = 0;
    Smartssd__V1__Response resp = SMARTSSD__V1__RESPONSE__INIT;
    cmd_ctx c = { .resp = &resp, .payload = payload };
    Smartssd__V1__Request *r = NULL;

    pthread_mutex_lock(&d->mu);
    d->cur_session = session;
    if (d->n_sessions || d->reclaim_at_ns != UINT64_MAX) {
        uint64_t now = pace_wall_ns();
        if (now >= d->reclaim_at_ns) vobj_reclaim(d, now);
    }
    uint64_t tag = 0, t0 = csd_engine_now(d->eng);
    const char *what = "bad packet";
    char where[256];
    size_t nul_at;
    pace_command_begin(d);
    if (req_len > CSD_MAX_PACKET) {
        d->counters.bad_packets++;
        cmd_fail(&c, CSD_BAD_PACKET, "request of %zu bytes exceeds the %u-byte packet limit", req_len,
                 CSD_MAX_PACKET);
    } else if (!csd_pb_depth_ok(req, req_len, &smartssd__v1__request__descriptor, CSD_MAX_PACKET_DEPTH)) {
        d->counters.bad_packets++;
        cmd_fail(&c, CSD_BAD_PACKET, "request nests messages deeper than %d levels", CSD_MAX_PACKET_DEPTH);
    } else if (!csd_pb_strings_nul_free(req, req_len, &smartssd__v1__request__descriptor,
                                        &smartssd__v1__delimited_text__descriptor, where, sizeof where, &nul_at)) {
        /* protobuf-c would cut the string at the NUL without a word; DelimitedText keeps its
         * convention (a lone NUL quote or escape = none, as Spark's "\u0000") */
        cmd_fail(&c, CSD_INVALID_ARGUMENT, "%s: a NUL byte at offset %zu; device strings cannot hold NUL", where,
                 nul_at);
    } else if (!(r = smartssd__v1__request__unpack(NULL, req_len, req))) {
        d->counters.bad_packets++;
        cmd_fail(&c, CSD_BAD_PACKET, "request of %zu bytes does not decode as smartssd.v1.Request", req_len);
    } else {
        tag = r->tag;
        unsigned k = (unsigned)r->command_case - 10u;
        if (k < CSD_CMD_KINDS) d->counters.by_kind[k]++;
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
    scrub_strings(&resp.base);
    int rc = pack_response(&resp, out, out_len);
    if (d->running) pthread_cond_signal(&d->work_cv);
    d->cur_session = 0;
    uint64_t wait = pace_command_end(d);
    pthread_mutex_unlock(&d->mu);
    if (wait) pace_sleep(wait);

    if (r) smartssd__v1__request__free_unpacked(r, NULL);
    for (size_t i = 0; i < c.n_allocs; i++) free(c.allocs[i]);
    free(c.allocs);
    return rc;
}
