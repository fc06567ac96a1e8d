/* The stored form of a tasklet program: a 32-byte little-endian header, then the program bytes.
 *   0  8  magic "CSDPROG1"        16 8  program length, bytes
 *   8  4  header version (1)      24 4  CRC-32 of the program bytes
 *   12 4  format (1 wasm, 2 native)   28 4  CRC-32 of header bytes 0..27
 * A reader refuses versions above its own; fields are only ever added after byte 32 by raising the
 * version, so older records stay readable. */
#include "sandbox/program.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

static uint32_t crc(const uint8_t *p, size_t n) {
    uLong c = crc32(0L, Z_NULL, 0);
    while (n) {   /* zlib takes uInt lengths */
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}

static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint32_t get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

int csd_program_name_check(const char *name, char *err, size_t errlen) {
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > CSD_PROGRAM_NAME_MAX) {
        snprintf(err, errlen, "a tasklet name has 1..%d bytes (got %zu)", CSD_PROGRAM_NAME_MAX, n);
        return -EINVAL;
    }
    if (name[0] == '.') {
        snprintf(err, errlen, "tasklet name '%s' may not start with '.'", name);
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-')) {
            snprintf(err, errlen, "tasklet name '%.64s' has a character outside [A-Za-z0-9._-] at %zu", name, i);
            return -EINVAL;
        }
    }
    return 0;
}

void csd_program_hash(const uint8_t *p, size_t len, char out[CSD_PROGRAM_HASH_MAX]) {
    snprintf(out, CSD_PROGRAM_HASH_MAX, "crc32:%08" PRIx32 ":%zu", crc(p, len), len);
}

size_t csd_program_stored_len(size_t len) { return CSD_PROGRAM_HEADER_BYTES + len; }

void csd_program_encode(uint32_t format, const uint8_t *p, size_t len, uint8_t *out) {
    memcpy(out, CSD_PROGRAM_MAGIC, 8);
    put32(out + 8, CSD_PROGRAM_VERSION);
    put32(out + 12, format);
    put64(out + 16, len);
    put32(out + 24, crc(p, len));
    put32(out + 28, crc(out, 28));
    if (len) memcpy(out + CSD_PROGRAM_HEADER_BYTES, p, len);
}

const char *csd_program_format_name(uint32_t format) {
    return format == CSD_PROGRAM_WASM ? "wasm" : format == CSD_PROGRAM_NATIVE ? "native" : "unknown";
}

int csd_program_decode(const uint8_t *rec, size_t n, csd_program *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (n < CSD_PROGRAM_HEADER_BYTES || memcmp(rec, CSD_PROGRAM_MAGIC, 8)) {
        snprintf(err, errlen, "not a stored tasklet program (%zu bytes, no %s header)", n, CSD_PROGRAM_MAGIC);
        return -EINVAL;
    }
    if (get32(rec + 28) != crc(rec, 28)) {
        snprintf(err, errlen, "stored tasklet program header fails its checksum");
        return -EBADMSG;
    }
    uint32_t ver = get32(rec + 8), fmt = get32(rec + 12);
    uint64_t len = get64(rec + 16);
    if (ver == 0 || ver > CSD_PROGRAM_VERSION) {
        snprintf(err, errlen, "stored tasklet program has header version %" PRIu32 "; this device reads up to %u", ver,
                 CSD_PROGRAM_VERSION);
        return -ENOTSUP;
    }
    if (fmt != CSD_PROGRAM_WASM && fmt != CSD_PROGRAM_NATIVE) {
        snprintf(err, errlen, "stored tasklet program has unknown format %" PRIu32, fmt);
        return -EINVAL;
    }
    if (len > CSD_PROGRAM_MAX_BYTES || len != n - CSD_PROGRAM_HEADER_BYTES) {
        snprintf(err, errlen, "stored tasklet program says %" PRIu64 " bytes but holds %zu", len,
                 n - CSD_PROGRAM_HEADER_BYTES);
        return -EBADMSG;
    }
    const uint8_t *p = rec + CSD_PROGRAM_HEADER_BYTES;
    if (get32(rec + 24) != crc(p, (size_t)len)) {
        snprintf(err, errlen, "stored tasklet program bytes fail their checksum");
        return -EBADMSG;
    }
    out->version = ver;
    out->format = fmt;
    out->bytes = p;
    out->len = (size_t)len;
    csd_program_hash(p, (size_t)len, out->hash);
    return 0;
}
