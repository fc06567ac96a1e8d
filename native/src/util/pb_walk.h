/* The protobuf wire format walked before protobuf-c decodes it, for what protobuf-c does not check:
 * one walker (csd_pb_walk) and the two checks made with it. Malformed bytes are left for protobuf-c
 * to refuse. */
#ifndef CSD_UTIL_PB_WALK_H
#define CSD_UTIL_PB_WALK_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

/* A length-delimited field the message's descriptor names (string, bytes or message), as the walker
 * meets it. */
typedef struct csd_pb_field {
    const ProtobufCFieldDescriptor *desc;
    const ProtobufCMessageDescriptor *msg;   /* the message it belongs to */
    const uint8_t *data;                     /* its bytes */
    size_t len;
    int depth;                               /* of that message: 0 for the fields of the top one */
    size_t mark;                             /* the visitor's, kept from its enter() to its leave() */
} csd_pb_field;

enum { CSD_PB_SKIP, CSD_PB_DESCEND, CSD_PB_STOP };

typedef struct csd_pb_visitor {
    /* A field: CSD_PB_SKIP, CSD_PB_DESCEND (a message field: walk its fields, then leave()) or
     * CSD_PB_STOP (the walk ends and returns 0). */
    int (*enter)(void *arg, csd_pb_field *f);
    void (*leave)(void *arg, const csd_pb_field *f);   /* optional */
} csd_pb_visitor;

/* Walk the fields of message (descriptor) in p[0, n), in wire order. 0 when the visitor stopped it,
 * 1 when it went to the end or met malformed bytes. Recursive: bound the depth first. */
int csd_pb_walk(const uint8_t *p, size_t n, const ProtobufCMessageDescriptor *descriptor, const csd_pb_visitor *v,
                void *arg);

/* protobuf-c unpacks nested messages recursively with no depth limit, so a hostile message of a few
 * hundred kilobytes could exhaust the stack: 1 when no message field is nested deeper than max_depth
 * (or the bytes are malformed: the decoder then fails), 0 otherwise. */
int csd_pb_depth_ok(const uint8_t *p, size_t n, const void *descriptor, int max_depth);

/* protobuf-c hands a `string` field to C as a NUL-terminated char *, so bytes after an embedded NUL
 * would vanish without a word ("a\0b" would name the object "a"): 1 if no string field of the message
 * holds a NUL byte, except fields of the message type `exempt` (NULL: none), where a lone NUL means
 * "none" by convention. 0 otherwise, with where = the field's path ("create_object.name") and
 * *offset = the NUL's offset inside the field. Run it after csd_pb_depth_ok. */
int csd_pb_strings_nul_free(const uint8_t *p, size_t n, const void *descriptor, const void *exempt, char *where,
                            size_t wherelen, size_t *offset);

#endif
