#ifndef CSD_UTIL_PB_DEPTH_H
#define CSD_UTIL_PB_DEPTH_H
#include <stddef.h>
#include <stdint.h>
/* Reject a message nested deeper than max_depth before protobuf-c (which recurses without a limit)
 * decodes it. Returns 1 if the bytes are within the limit (or malformed: the decoder then fails). */
int csd_pb_depth_ok(const uint8_t *p, size_t n, const void *descriptor, int max_depth);
#endif
