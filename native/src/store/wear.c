/* Wear record: every block's P/E count and the placement policy's saved state, after the data area
 * (docs/IMAGE-FORMAT.md, "Wear record"). Images made before it have none and open with zero counts;
 * the file grows by the record the first time it is written. */
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t WEAR_MAGIC[8] = { 'C', 'S', 'D', 'W', 'E', 'A', 'R', '1' };

static uint64_t blocks_of(const csd_layout *l) { return (uint64_t)l->units * l->blocks_per_plane; }

int csd_store_read_wear(csd_store *s, uint32_t *counts, uint8_t *extra, size_t *extra_len) {
    uint64_t nb = blocks_of(&s->l), len = csd_wear_bytes(&s->l);
    memset(counts, 0, (size_t)nb * sizeof *counts);
    *extra_len = 0;
    if (!s->wear_present) return 0;
    uint8_t *b = malloc((size_t)len);
    if (!b) return -ENOMEM;
    int rc = csd_store_pread(s, s->l.file_bytes, b, (size_t)len);
    uint64_t at = 16 + 4 * nb, n = rc ? 0 : csd_get32(b + at);
    /* a torn or foreign record counts as none: wear is reported, never needed for the data */
    if (!rc && !memcmp(b, WEAR_MAGIC, 8) && csd_get64(b + 8) == nb && n <= CSD_WEAR_EXTRA_MAX &&
        csd_crc32(0, b, (size_t)(at + 4 + n)) == csd_get32(b + at + 4 + n)) {
        for (uint64_t i = 0; i < nb; i++) counts[i] = csd_get32(b + 16 + 4 * i);
        memcpy(extra, b + at + 4, (size_t)n);
        *extra_len = (size_t)n;
    } else {
        rc = -EBADMSG;   /* short (torn) or damaged */
    }
    free(b);
    return rc;
}

int csd_store_write_wear(csd_store *s, const uint32_t *counts, const uint8_t *extra, size_t extra_len) {
    if (extra_len > CSD_WEAR_EXTRA_MAX) return -EINVAL;
    uint64_t nb = blocks_of(&s->l), at = 16 + 4 * nb;
    uint8_t *b = calloc(1, (size_t)csd_wear_bytes(&s->l));   /* padded, so the file size tells */
    if (!b) return -ENOMEM;
    memcpy(b, WEAR_MAGIC, 8);
    csd_put64(b + 8, nb);
    for (uint64_t i = 0; i < nb; i++) csd_put32(b + 16 + 4 * i, counts[i]);
    csd_put32(b + at, (uint32_t)extra_len);
    if (extra_len) memcpy(b + at + 4, extra, extra_len);
    csd_put32(b + at + 4 + extra_len, csd_crc32(0, b, (size_t)(at + 4 + extra_len)));
    int rc = csd_store_pwrite(s, s->l.file_bytes, b, (size_t)csd_wear_bytes(&s->l));
    free(b);
    if (!rc) s->wear_present = 1;
    return rc;
}
