/* Wear record: every block's P/E count, after the data area (docs/IMAGE-FORMAT.md, "Wear record").
 * Images made before it have none and open with zero counts; the file grows by the record the first
 * time it is written. */
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t WEAR_MAGIC[8] = { 'C', 'S', 'D', 'W', 'E', 'A', 'R', '1' };

static uint64_t blocks_of(const csd_layout *l) { return (uint64_t)l->units * l->blocks_per_plane; }


int csd_store_read_wear(csd_store *s, uint32_t *counts) {
    uint64_t nb = blocks_of(&s->l), len = 16 + 4 * nb + 4;
    memset(counts, 0, (size_t)nb * sizeof *counts);
    if (!s->wear_present) return 0;
    uint8_t *b = malloc((size_t)len);
    if (!b) return -ENOMEM;
    int rc = csd_store_pread(s, s->l.file_bytes, b, (size_t)len);
    /* a torn or foreign record counts as none: wear is reported, never needed for the data */
    if (!rc && !memcmp(b, WEAR_MAGIC, 8) && csd_get64(b + 8) == nb &&
        csd_crc32(0, b, (size_t)(len - 4)) == csd_get32(b + len - 4)) {
        for (uint64_t i = 0; i < nb; i++) counts[i] = csd_get32(b + 16 + 4 * i);
    } else {
        rc = -EBADMSG;   /* short (torn) or damaged */
    }
    free(b);
    return rc;
}

int csd_store_write_wear(csd_store *s, const uint32_t *counts) {
    uint64_t nb = blocks_of(&s->l), len = 16 + 4 * nb + 4;
    uint8_t *b = calloc(1, (size_t)csd_wear_bytes(&s->l));   /* padded, so the file size tells */
    if (!b) return -ENOMEM;
    memcpy(b, WEAR_MAGIC, 8);
    csd_put64(b + 8, nb);
    for (uint64_t i = 0; i < nb; i++) csd_put32(b + 16 + 4 * i, counts[i]);
    csd_put32(b + len - 4, csd_crc32(0, b, (size_t)(len - 4)));
    int rc = csd_store_pwrite(s, s->l.file_bytes, b, (size_t)csd_wear_bytes(&s->l));
    free(b);
    if (!rc) s->wear_present = 1;
    return rc;
}
