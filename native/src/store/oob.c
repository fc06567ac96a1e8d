/* Out-of-band record: 64 bytes per physical page, the only place the logical owner of a page is
 * written down. Recovery rebuilds the whole mapping from these. Layout in docs/IMAGE-FORMAT.md. */
#include "store/store.h"

#include <string.h>

#define OOB_MAGIC 0x31424f4fu   /* bytes "OOB1" */
#define OOB_CRC_OFF 60u

void csd_oob_encode(uint8_t out[CSD_OOB_BYTES], const csd_oob *r) {
    memset(out, 0, CSD_OOB_BYTES);
    csd_put32(out + 0, OOB_MAGIC);
    out[4] = r->kind;
    out[5] = r->hint;   /* a byte version 1 left zero, so older records read as "no hint" */
    /* the write time fills bytes version 1 left zero: ms within the second, then seconds */
    csd_put16(out + 6, (uint16_t)(r->time_ms % 1000));
    csd_put32(out + 56, (uint32_t)(r->time_ms / 1000));
    csd_put32(out + 8, r->copies);
    csd_put32(out + 12, r->valid_bytes);
    csd_put64(out + 16, r->obj);
    csd_put64(out + 24, r->page);
    csd_put64(out + 32, r->seq);
    csd_put64(out + 40, r->op_first);
    csd_put32(out + 48, r->op_pages);
    csd_put32(out + 52, r->data_crc);
    csd_put32(out + OOB_CRC_OFF, csd_crc32(0, out, OOB_CRC_OFF));
}

int csd_oob_decode(const uint8_t in[CSD_OOB_BYTES], uint32_t page_bytes, csd_oob *r) {
    memset(r, 0, sizeof *r);
    /* a record is written magic last and erased magic first (oobmap.c): without its magic it is one
     * a crash cut short, which counts as never written (or as erased) */
    uint32_t magic = csd_get32(in);
    if (magic == 0) return CSD_OOB_EMPTY;
    if (magic != OOB_MAGIC) return CSD_OOB_BAD_MAGIC;
    if (csd_crc32(0, in, OOB_CRC_OFF) != csd_get32(in + OOB_CRC_OFF)) return CSD_OOB_BAD_CRC;
    csd_oob_fields(in, r);
    /* A record with a good CRC but impossible fields was written by a buggy or foreign writer. */
    if ((r->kind != CSD_OOB_DATA && r->kind != CSD_OOB_TOMBSTONE) || r->valid_bytes == 0 ||
        r->valid_bytes > page_bytes || r->obj == 0 || r->seq == 0 || r->op_pages == 0 ||
        r->seq > CSD_COUNTER_MAX ||
        r->seq < r->op_first || r->seq - r->op_first >= r->op_pages || csd_get16(in + 6) > 999)
        return CSD_OOB_BAD_FIELD;
    return CSD_OOB_OK;
}

void csd_oob_fields(const uint8_t in[CSD_OOB_BYTES], csd_oob *r) {
    r->kind = in[4];
    r->hint = in[5];
    r->copies = csd_get32(in + 8);
    r->valid_bytes = csd_get32(in + 12);
    r->obj = csd_get64(in + 16);
    r->page = csd_get64(in + 24);
    r->seq = csd_get64(in + 32);
    r->op_first = csd_get64(in + 40);
    r->op_pages = csd_get32(in + 48);
    r->data_crc = csd_get32(in + 52);
    r->time_ms = (uint64_t)csd_get32(in + 56) * 1000 + csd_get16(in + 6);
}

const char *csd_oob_status_name(int status) {
    switch (status) {
    case CSD_OOB_EMPTY: return "empty";
    case CSD_OOB_OK: return "ok";
    case CSD_OOB_BAD_MAGIC: return "bad magic";
    case CSD_OOB_BAD_CRC: return "record checksum mismatch";
    case CSD_OOB_BAD_FIELD: return "impossible field values";
    }
    return "unknown";
}
