/* OOB records through a writable mapping of the OOB area (oobmap.c); store.c uses them when
 * s->oob_map is set and falls back to pwrite otherwise. */
#ifndef CSD_STORE_OOBMAP_H
#define CSD_STORE_OOBMAP_H

#include "store/store.h"

/* Map the OOB area of a writable store (nothing when it cannot be: records then go by pwrite). */
void csd_store_oobmap_open(csd_store *s);
void csd_store_oobmap_close(csd_store *s);
/* n encoded records from ppn / n records zeroed (an erase). 0, -EDQUOT (host disk full), -errno, or
 * 1 when the mapping was given up (write them by pwrite). */
int csd_store_oobmap_put(csd_store *s, uint64_t ppn, uint64_t n, const uint8_t *raw);
int csd_store_oobmap_zero(csd_store *s, uint64_t ppn, uint64_t n);
void csd_store_oobmap_read(const csd_store *s, uint64_t ppn, uint64_t n, void *buf);

/* Called with every write of records through the mapping, before it: the bytes the write puts at
 * file offset off (for an erase, zeros). The library's is a no-op; a crash test defines its own. */
void csd_store_record_tap(int fd, uint64_t off, const void *buf, size_t len);

#endif
