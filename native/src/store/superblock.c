/* Superblock: a binary header (magic, version, geometry, area offsets, CRC) followed by the device
 * params as "key = value" text lines, so a newer build that adds params can still read old images and
 * nobody depends on the in-memory layout of csd_params. */
#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const uint8_t SB_MAGIC[8] = { 'C', 'S', 'D', 'I', 'M', 'A', 'G', 'E' };
#define SB_CRC_OFF 100u
#define SB_TEXT_MAX (CSD_SB_BYTES - CSD_SB_HEADER_BYTES)

typedef struct text_out { char *buf; size_t n, cap; int overflow; } text_out;

static void visit_line(void *arg, const char *key, const char *value, const char *unit) {
    (void)unit;
    text_out *t = arg;
    int w = snprintf(t->buf + t->n, t->cap - t->n, "%s = %s\n", key, value);
    if (w < 0 || (size_t)w >= t->cap - t->n) {
        t->overflow = 1;
        return;
    }
    t->n += (size_t)w;
}

int csd_sb_encode(uint8_t *buf, const csd_layout *l, const csd_params *p, char *err, size_t errlen) {
    memset(buf, 0, CSD_SB_BYTES);
    text_out t = { (char *)buf + CSD_SB_HEADER_BYTES, 0, SB_TEXT_MAX, 0 };
    csd_params_visit(p, visit_line, &t);
    if (t.overflow) {
        snprintf(err, errlen, "device params do not fit in the superblock (%u bytes)", SB_TEXT_MAX);
        return -EINVAL;
    }
    memcpy(buf, SB_MAGIC, 8);
    csd_put32(buf + 8, CSD_IMAGE_VERSION);
    csd_put32(buf + 12, CSD_SB_HEADER_BYTES);
    csd_put64(buf + 16, l->capacity);
    csd_put32(buf + 24, l->page_bytes);
    csd_put32(buf + 28, l->pages_per_block);
    csd_put32(buf + 32, l->blocks_per_plane);
    csd_put32(buf + 36, l->units);
    csd_put64(buf + 40, l->physical_pages);
    csd_put64(buf + 48, l->meta_slot_bytes);
    csd_put64(buf + 56, l->meta_off[0]);
    csd_put64(buf + 64, l->meta_off[1]);
    csd_put64(buf + 72, l->oob_off);
    csd_put64(buf + 80, l->data_off);
    csd_put64(buf + 88, l->file_bytes);
    csd_put32(buf + 96, (uint32_t)t.n);
    uint32_t crc = csd_crc32(0, buf, SB_CRC_OFF);
    crc = csd_crc32(crc, buf + CSD_SB_HEADER_BYTES, t.n);
    csd_put32(buf + SB_CRC_OFF, crc);
    return 0;
}

/* Params text -> struct: start from the named preset (so keys missing from an older image get that
 * preset's defaults), then apply every line. Unknown keys (from a newer build) are skipped. */
static int params_parse(const char *text, size_t len, csd_params *p, char *err, size_t errlen) {
    char line[512];
    int based = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t i = 0;
        while (i < len) {
            size_t j = i;
            while (j < len && text[j] != '\n') j++;
            size_t n = j - i;
            if (n >= sizeof line) {
                snprintf(err, errlen, "superblock params: line too long");
                return -EBADMSG;
            }
            memcpy(line, text + i, n);
            line[n] = 0;
            i = j + 1;
            char *eq = strstr(line, " = ");
            if (!eq) {
                snprintf(err, errlen, "superblock params: bad line '%s'", line);
                return -EBADMSG;
            }
            *eq = 0;
            const char *key = line, *val = eq + 3;
            if (pass == 0) {
                if (!strcmp(key, "preset") && csd_params_preset(p, val) == 0) based = 1;
                continue;
            }
            char e2[256];
            int rc = csd_params_set(p, key, val, e2, sizeof e2);
            if (rc == -ENOENT) continue;
            if (rc) {
                snprintf(err, errlen, "superblock params: %s", e2);
                return -EBADMSG;
            }
        }
        if (pass == 0 && !based) csd_params_preset(p, NULL);
    }
    return 0;
}

int csd_sb_decode(const uint8_t *buf, csd_layout *l, csd_params *p, char *err, size_t errlen) {
    if (memcmp(buf, SB_MAGIC, 8)) {
        snprintf(err, errlen, "not a smartssd image (bad superblock magic)");
        return -EBADMSG;
    }
    uint32_t version = csd_get32(buf + 8);
    if (version != CSD_IMAGE_VERSION) {
        snprintf(err, errlen, "image format version %u is not supported (this build reads %u)", version,
                 CSD_IMAGE_VERSION);
        return -EPROTONOSUPPORT;
    }
    uint32_t tlen = csd_get32(buf + 96);
    if (csd_get32(buf + 12) != CSD_SB_HEADER_BYTES || tlen > SB_TEXT_MAX) {
        snprintf(err, errlen, "superblock header is corrupt");
        return -EBADMSG;
    }
    uint32_t crc = csd_crc32(0, buf, SB_CRC_OFF);
    crc = csd_crc32(crc, buf + CSD_SB_HEADER_BYTES, tlen);
    if (crc != csd_get32(buf + SB_CRC_OFF)) {
        snprintf(err, errlen, "superblock checksum mismatch");
        return -EBADMSG;
    }
    int rc = params_parse((const char *)buf + CSD_SB_HEADER_BYTES, tlen, p, err, errlen);
    if (rc) return rc;
    *l = (csd_layout){ 0 };
    l->capacity = csd_get64(buf + 16);
    l->page_bytes = csd_get32(buf + 24);
    l->pages_per_block = csd_get32(buf + 28);
    l->blocks_per_plane = csd_get32(buf + 32);
    l->units = csd_get32(buf + 36);
    l->physical_pages = csd_get64(buf + 40);
    l->meta_slot_bytes = csd_get64(buf + 48);
    l->meta_off[0] = csd_get64(buf + 56);
    l->meta_off[1] = csd_get64(buf + 64);
    l->oob_off = csd_get64(buf + 72);
    l->data_off = csd_get64(buf + 80);
    l->file_bytes = csd_get64(buf + 88);
    /* The layout is a pure function of (capacity, params): recompute it, so a header that disagrees
     * with its own params (or with this build's arithmetic) is caught before any offset is used. */
    csd_layout want;
    char e2[256];
    if (p->blocks_per_plane != l->blocks_per_plane || csd_layout_compute(&want, l->capacity, p, e2, sizeof e2) ||
        !csd_layout_equal(&want, l)) {
        snprintf(err, errlen, "superblock geometry is inconsistent with its params");
        return -EBADMSG;
    }
    *l = want;   /* equal, plus the derived hybrid fields the header does not carry */
    return 0;
}
