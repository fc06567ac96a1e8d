/* The one protobuf wire walker (pb_walk.h) and the checks made with it. */
#include "util/pb_walk.h"

#include <stdio.h>
#include <string.h>

#include "util/varint.h"

static int walk(const uint8_t *p, size_t n, const ProtobufCMessageDescriptor *d, int depth, const csd_pb_visitor *v,
                void *arg) {
    size_t pos = 0;
    while (pos < n) {
        uint64_t key, len;
        size_t k = csd_varint_get(p + pos, n - pos, &key);
        if (!k) return 1;
        pos += k;
        switch (key & 7) {
        case 0:
            k = csd_varint_get(p + pos, n - pos, &len);
            if (!k) return 1;
            pos += k;
            break;
        case 1: pos += 8; break;
        case 5: pos += 4; break;
        case 2: {
            k = csd_varint_get(p + pos, n - pos, &len);
            if (!k || len > n - pos - k) return 1;
            pos += k;
            const ProtobufCFieldDescriptor *f =
                key >> 3 <= 0xffffffffu ? protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3)) : NULL;
            if (f) {
                csd_pb_field fld = { f, d, p + pos, (size_t)len, depth, 0 };
                int what = v->enter(arg, &fld);
                if (what == CSD_PB_STOP) return 0;
                if (what == CSD_PB_DESCEND && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                    if (!walk(fld.data, fld.len, f->descriptor, depth + 1, v, arg)) return 0;
                    if (v->leave) v->leave(arg, &fld);
                }
            }
            pos += (size_t)len;
            break;
        }
        default: return 1;   /* groups / invalid: protobuf-c will refuse */
        }
    }
    return 1;
}

int csd_pb_walk(const uint8_t *p, size_t n, const ProtobufCMessageDescriptor *descriptor, const csd_pb_visitor *v,
                void *arg) {
    return walk(p, n, descriptor, 0, v, arg);
}

/* ---- depth: descend into message fields only, refuse one nested past the bound */

static int depth_enter(void *arg, csd_pb_field *f) {
    if (f->desc->type != PROTOBUF_C_TYPE_MESSAGE) return CSD_PB_SKIP;
    return f->depth + 1 > *(const int *)arg ? CSD_PB_STOP : CSD_PB_DESCEND;
}

int csd_pb_depth_ok(const uint8_t *p, size_t n, const void *descriptor, int max_depth) {
    static const csd_pb_visitor v = { depth_enter, NULL };
    return max_depth < 0 ? 0 : csd_pb_walk(p, n, descriptor, &v, &max_depth);
}

/* ---- strings: the path of fields is kept in where while descending */

typedef struct nul_walk {
    const void *exempt;
    char *where;
    size_t wherelen;
    size_t *offset;
} nul_walk;

/* Append f's name to the path, keeping in f->mark the length to go back to. */
static void path_push(nul_walk *w, csd_pb_field *f) {
    size_t wl = strlen(w->where);
    f->mark = wl;
    if ((size_t)f->depth < w->wherelen) snprintf(w->where + wl, w->wherelen - wl, "%s%s", wl ? "." : "", f->desc->name);
}

static void path_pop(void *arg, const csd_pb_field *f) { ((nul_walk *)arg)->where[f->mark] = 0; }

static int nul_enter(void *arg, csd_pb_field *f) {
    nul_walk *w = arg;
    if (f->desc->type == PROTOBUF_C_TYPE_MESSAGE) {
        path_push(w, f);
        return CSD_PB_DESCEND;
    }
    if (f->desc->type != PROTOBUF_C_TYPE_STRING) return CSD_PB_SKIP;
    const uint8_t *z = f->len ? memchr(f->data, 0, f->len) : NULL;
    if (z && (const void *)f->msg != w->exempt) {
        path_push(w, f);
        *w->offset = (size_t)(z - f->data);
        return CSD_PB_STOP;
    }
    return CSD_PB_SKIP;
}

int csd_pb_strings_nul_free(const uint8_t *p, size_t n, const void *descriptor, const void *exempt, char *where,
                            size_t wherelen, size_t *offset) {
    if (!wherelen) return 1;
    where[0] = 0;
    *offset = 0;
    static const csd_pb_visitor v = { nul_enter, path_pop };
    nul_walk w = { exempt, where, wherelen, offset };
    return csd_pb_walk(p, n, descriptor, &v, &w);
}
