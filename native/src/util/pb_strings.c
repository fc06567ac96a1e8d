#include "util/pb_strings.h"

#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <string.h>

#include "util/varint.h"

/* Depth is bounded by the caller's depth check, which runs first. */
static int walk(const uint8_t *p, size_t n, const ProtobufCMessageDescriptor *d, const void *exempt, char *where,
                size_t wherelen, size_t at, size_t *offset) {
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
            if (f && (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE)) {
                size_t wl = strlen(where);
                if (at < wherelen) snprintf(where + wl, wherelen - wl, "%s%s", wl ? "." : "", f->name);
                if (f->type == PROTOBUF_C_TYPE_STRING) {
                    const uint8_t *z = len ? memchr(p + pos, 0, (size_t)len) : NULL;
                    if (z && (const void *)d != exempt) {
                        *offset = (size_t)(z - (p + pos));
                        return 0;
                    }
                } else if (!walk(p + pos, (size_t)len, f->descriptor, exempt, where, wherelen, at + 1, offset)) {
                    return 0;
                }
                where[wl] = 0;
            }
            pos += (size_t)len;
            break;
        }
        default: return 1;
        }
    }
    return 1;
}

int csd_pb_strings_nul_free(const uint8_t *p, size_t n, const void *descriptor, const void *exempt, char *where,
                            size_t wherelen, size_t *offset) {
    if (!wherelen) return 1;
    where[0] = 0;
    *offset = 0;
    return walk(p, n, descriptor, exempt, where, wherelen, 0, offset);
}
