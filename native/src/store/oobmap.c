/* OOB records written through a shared writable mapping of the OOB area. A write group's records are
 * rarely at consecutive pages (its pages stripe over the units), so by pwrite they took one system
 * call each, about a fifth of a block-trace replay's CPU time; through the mapping each is a 64-byte
 * copy into the page cache. The kernel holds a record the moment it is stored, exactly as after a
 * pwrite, so the crash guarantees (docs/IMAGE-FORMAT.md section 9) are unchanged, and fdatasync flushes
 * the mapped pages with the rest of the file.
 *
 * Two things a pwrite gave for free are kept by hand:
 *  - a torn record. A pwrite of one record is never cut by kill -9; a copy into the mapping can be,
 *    between its stores. So a record's first 8 bytes (its magic) are stored last, in one store, and an
 *    erase clears them first: a record cut anywhere has magic 0, which reads as an erased record
 *    (section 5), as if the crash came before the write or after the erase.
 *  - a full host disk. Storing into a hole of the file allocates at the page fault, and a full disk
 *    there is SIGBUS, not an error. So the bytes of each block's records are allocated (fallocate) once
 *    per open before the first store into them; a full disk is -EDQUOT from that, as from a pwrite.
 *    Where the file system cannot allocate ahead, or the area cannot be mapped, records go by pwrite. */
#include "store/oobmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/falloc.h>
#endif

/* The library's own: nothing. A crash test links its own definition (the library is linked into it
 * statically) and dies before, in the middle of, or after the write it picks. */
__attribute__((weak)) void csd_store_record_tap(int fd, uint64_t off, const void *buf, size_t len) {
    (void)fd, (void)off, (void)buf, (void)len;
}

void csd_store_oobmap_open(csd_store *s) {
#if defined(FALLOC_FL_KEEP_SIZE)
    uint64_t off = s->l.oob_off, bytes = s->l.physical_pages * CSD_OOB_BYTES;
    long pg = sysconf(_SC_PAGESIZE);
    struct stat st;
    if (!s->writable || !bytes || pg <= 0 || off % CSD_OOB_BYTES || fstat(s->fd, &st) < 0 ||
        (uint64_t)st.st_size < off + bytes)
        return;
    uint64_t blocks = (s->l.physical_pages + s->l.pages_per_block - 1) / s->l.pages_per_block;
    uint64_t lead = off % (uint64_t)pg;
    s->oob_held = calloc(blocks, 1);
    void *m = s->oob_held ? mmap(NULL, (size_t)(lead + bytes), PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
                                 (off_t)(off - lead))
                          : MAP_FAILED;
    if (m == MAP_FAILED) {
        free(s->oob_held);
        s->oob_held = NULL;
        return;
    }
    /* a record's first store into a page faults it in; read-around would zero a run of the
     * neighbours' pages (most of them holes) with it */
    (void)madvise(m, (size_t)(lead + bytes), MADV_RANDOM);
    s->oob_map_base = m;
    s->oob_map_len = (size_t)(lead + bytes);
    s->oob_map = (uint8_t *)m + lead;
#else
    (void)s;
#endif
}

void csd_store_oobmap_close(csd_store *s) {
    if (s->oob_map_base) munmap(s->oob_map_base, s->oob_map_len);
    free(s->oob_held);
    s->oob_map = NULL;
    s->oob_map_base = NULL;
    s->oob_held = NULL;
}

/* The records' bytes of every block in [ppn, ppn+n) on the host's disk. 0, -EDQUOT, -errno, or 1
 * when this file system cannot allocate ahead (the mapping is then given up: records go by pwrite). */
static int hold(csd_store *s, uint64_t ppn, uint64_t n) {
#if defined(FALLOC_FL_KEEP_SIZE)
    const uint64_t ppb = s->l.pages_per_block;
    for (uint64_t b = ppn / ppb; b <= (ppn + n - 1) / ppb; b++) {
        if (s->oob_held[b]) continue;
        uint64_t pages = ppb;
        if (b * ppb + pages > s->l.physical_pages) pages = s->l.physical_pages - b * ppb;
        if (fallocate(s->fd, FALLOC_FL_KEEP_SIZE, (off_t)(s->l.oob_off + b * ppb * CSD_OOB_BYTES),
                      (off_t)(pages * CSD_OOB_BYTES)) < 0) {
            if (errno == ENOSPC || errno == EDQUOT) return -EDQUOT;
            if (errno != EOPNOTSUPP && errno != ENOSYS) return -errno;
            csd_store_oobmap_close(s);
            return 1;
        }
        s->oob_held[b] = 1;
    }
    return 0;
#else
    (void)s, (void)ppn, (void)n;
    return 1;
#endif
}

static uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

int csd_store_oobmap_put(csd_store *s, uint64_t ppn, uint64_t n, const uint8_t *raw) {
    int rc = hold(s, ppn, n);
    if (rc) return rc;
    csd_store_record_tap(s->fd, s->l.oob_off + ppn * CSD_OOB_BYTES, raw, (size_t)(n * CSD_OOB_BYTES));
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *d = s->oob_map + (ppn + i) * CSD_OOB_BYTES;
        const uint8_t *r = raw + i * CSD_OOB_BYTES;
        memcpy(d + 8, r + 8, CSD_OOB_BYTES - 8);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);   /* the magic after the rest, in program order */
        __atomic_store_n((uint64_t *)(void *)d, load64(r), __ATOMIC_RELAXED);
    }
    return 0;
}

int csd_store_oobmap_zero(csd_store *s, uint64_t ppn, uint64_t n) {
    enum { CHUNK = 16384 };   /* records: one tap per erase of any block */
    static const uint8_t zero[CHUNK * CSD_OOB_BYTES];
    int rc = hold(s, ppn, n);
    if (rc) return rc;
    for (uint64_t at = 0; at < n; at += CHUNK)
        csd_store_record_tap(s->fd, s->l.oob_off + (ppn + at) * CSD_OOB_BYTES, zero,
                             (size_t)((n - at < CHUNK ? n - at : CHUNK) * CSD_OOB_BYTES));
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *d = s->oob_map + (ppn + i) * CSD_OOB_BYTES;
        if (!memcmp(d, zero, CSD_OOB_BYTES)) continue;   /* erased already: not dirtied again */
        __atomic_store_n((uint64_t *)(void *)d, 0, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);   /* the magic before the rest, in program order */
        memset(d + 8, 0, CSD_OOB_BYTES - 8);
    }
    return 0;
}

void csd_store_oobmap_read(const csd_store *s, uint64_t ppn, uint64_t n, void *buf) {
    memcpy(buf, s->oob_map + ppn * CSD_OOB_BYTES, (size_t)(n * CSD_OOB_BYTES));
}
