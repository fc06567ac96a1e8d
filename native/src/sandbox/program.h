/* A stored tasklet program: the bytes a user downloaded (Smart SSD paper III-C: users add and remove
 * tasklets; IV-A: a tasklet is known by the id given at download time), wrapped in a small versioned
 * header so an image stays readable when the format grows. docs/IMAGE-FORMAT.md ("Tasklet programs")
 * gives the layout. Pure bytes: no device, no sandbox. */
#ifndef CSD_SANDBOX_PROGRAM_H
#define CSD_SANDBOX_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#define CSD_PROGRAM_MAGIC "CSDPROG1"
#define CSD_PROGRAM_VERSION 1u
#define CSD_PROGRAM_HEADER_BYTES 32u
#define CSD_PROGRAM_NAME_MAX 64
#define CSD_PROGRAM_MAX_BYTES (64u << 20)   /* largest program accepted, bytes */
#define CSD_PROGRAM_HASH_MAX 32
/* Where programs live in the object namespace: ".tasklets/" + name (hidden from list). */
#define CSD_PROGRAM_PREFIX ".tasklets/"

enum { CSD_PROGRAM_WASM = 1, CSD_PROGRAM_NATIVE = 2 };

typedef struct csd_program {
    uint32_t version;          /* header version it was stored with */
    uint32_t format;           /* CSD_PROGRAM_WASM or CSD_PROGRAM_NATIVE */
    const uint8_t *bytes;      /* inside the buffer given to decode */
    size_t len;                /* bytes */
    char hash[CSD_PROGRAM_HASH_MAX];   /* content hash of bytes, text */
} csd_program;

/* 0 when name is 1..64 bytes of [A-Za-z0-9._-] not starting with '.'; else -EINVAL with err. */
int csd_program_name_check(const char *name, char *err, size_t errlen);
/* The content hash of a program's bytes as text ("crc32:<8 hex>:<length>"). */
void csd_program_hash(const uint8_t *p, size_t len, char out[CSD_PROGRAM_HASH_MAX]);
/* Bytes of the stored record for len program bytes. */
size_t csd_program_stored_len(size_t len);
/* Write the stored record (header + bytes) into out (csd_program_stored_len(len) bytes). */
void csd_program_encode(uint32_t format, const uint8_t *p, size_t len, uint8_t *out);
/* Parse a stored record; 0 or -EINVAL / -EBADMSG / -ENOTSUP (newer version) with err. */
int csd_program_decode(const uint8_t *rec, size_t n, csd_program *out, char *err, size_t errlen);
const char *csd_program_format_name(uint32_t format);

#endif
