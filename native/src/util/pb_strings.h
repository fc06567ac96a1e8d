/* protobuf-c hands a `string` field to C as a NUL-terminated char *, so bytes after an embedded NUL
 * would vanish without a word ("a\0b" would name the object "a"). This walks the wire format before
 * decoding and finds the first string field that holds a NUL byte. */
#ifndef CSD_UTIL_PB_STRINGS_H
#define CSD_UTIL_PB_STRINGS_H
#include <stddef.h>
#include <stdint.h>
/* 1 if no string field of the message (descriptor) holds a NUL byte, except fields of the message
 * type `exempt` (NULL: none), where a lone NUL means "none" by convention; malformed bytes are left
 * for protobuf-c to refuse. 0 otherwise, with where = the field's path ("create_object.name") and
 * *offset = the NUL's offset inside the field. */
int csd_pb_strings_nul_free(const uint8_t *p, size_t n, const void *descriptor, const void *exempt, char *where,
                            size_t wherelen, size_t *offset);
#endif
