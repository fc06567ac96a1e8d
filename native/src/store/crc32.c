/* CRC-32 of the image's checksums: zlib's (IEEE 802.3), not a copy of it. */
#include "store/store.h"

#include <zlib.h>

uint32_t csd_crc32(uint32_t crc, const void *buf, size_t len) {
    /* zlib takes uInt lengths; feed large buffers in pieces. */
    const unsigned char *p = buf;
    while (len) {
        uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
        crc = (uint32_t)crc32((uLong)crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
}
