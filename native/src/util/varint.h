/* Protobuf base-128 varints, for the few places that read or write the wire format by hand (the depth
 * check before decoding, length-delimited rows). */
#ifndef CSD_UTIL_VARINT_H
#define CSD_UTIL_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Decode the varint at p (at most n bytes). Returns its byte count, 0 when truncated or too long. */
static inline size_t csd_varint_get(const uint8_t *p, size_t n, uint64_t *v) {
    uint64_t r = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = r;
            return i + 1;
        }
    }
    return 0;
}

/* Encode v at p (room for 10 bytes); returns the byte count. */
static inline size_t csd_varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

#endif
