/* Unsigned integers of 1..8 bytes at any alignment, in either byte order: fields of fixed-size
 * binary records. */
#ifndef CSD_UTIL_FIXED_H
#define CSD_UTIL_FIXED_H

#include <stdint.h>

static inline uint64_t csd_load_uint(const uint8_t *p, uint32_t width, int big_endian) {
    uint64_t v = 0;
    if (big_endian)
        for (uint32_t i = 0; i < width; i++) v = v << 8 | p[i];
    else
        for (uint32_t i = width; i-- > 0;) v = v << 8 | p[i];
    return v;
}

#endif
