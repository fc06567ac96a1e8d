/* protobuf-c unpacks nested messages recursively with no depth limit, so a hostile message of a few
 * hundred kilobytes could exhaust the stack. This walks the wire format first, descending only into
 * fields the descriptor says are messages, and refuses anything nested deeper than max_depth.
 * Malformed bytes are left for protobuf-c to reject. */
#include <protobuf-c/protobuf-c.h>

#include "util/pb_depth.h"
#include "util/varint.h"

static int walk(const uint8_t *p, size_t n, const ProtobufCMessageDescriptor *d, int depth, int max) {
    if (depth > max) return 0;
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
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
                !walk(p + pos, (size_t)len, f->descriptor, depth + 1, max))
                return 0;
            pos += (size_t)len;
            break;
        }
        default: return 1;   /* groups / invalid: protobuf-c will refuse */
        }
    }
    return 1;
}

int csd_pb_depth_ok(const uint8_t *p, size_t n, const void *descriptor, int max_depth) {
    return walk(p, n, descriptor, 0, max_depth);
}
