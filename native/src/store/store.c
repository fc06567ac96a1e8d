/* The image file: positioned reads and writes of areas, erase by hole punching, sync points. */
#include "store/store.h"
#include "store/oobmap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/falloc.h>
#endif

/* Read-ahead for csd_store_data_view. Measured on a 2-core VM with a file in the page cache: one
 * pread of 64 KiB into a buffer that stays in cache, then the CRC and the tasklet reading it there,
 * runs at about twice the speed of reading the pages through a shared mapping (page faults, page
 * table teardown, the CRC reading cold memory) and 1.5x that of one pread per page (less on an image
 * just written, whose page cache holds small folios: docs/perf-journal.md). Runs live in a
 * set-associative table keyed by flash block, so the interleaved streams of a striped object (one
 * per unit) each keep their own. */
#define RUN_SETS 128u
#define RUN_WAYS 2
#define RUN_MAX_PAGES 8u

struct csd_store_run {
    uint64_t base;       /* first ppn */
    uint32_t n;          /* pages held (0 = empty) */
    uint32_t next_len;   /* pages the next run of this stream reads (doubles while sequential) */
    uint64_t used;       /* run_clock at the last use */
    uint8_t *buf;        /* RUN_MAX_PAGES pages */
};

static int pread_full(int fd, void *buf, size_t len, uint64_t off) {
    uint8_t *p = buf;
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (n == 0) return -EIO;   /* the file is shorter than its superblock says */
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int pwrite_full(int fd, const void *buf, size_t len, uint64_t off) {
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            /* The image is sparse: its holes take host disk only when written. The host file system
             * running out is not the device running out (-ENOSPC), so it gets its own code. */
            if (errno == ENOSPC || errno == EDQUOT) return -EDQUOT;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* One writer per image: a second device (or a format) on an image in use would corrupt it. The
 * lock goes away with the process, so a crash never leaves it behind. */
static int lock_image(int fd, const char *path, char *err, size_t errlen) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
    int rc = -errno;
    if (rc == -EWOULDBLOCK) {
        snprintf(err, errlen, "%s: image is in use by another device (locked)", path);
        return -EBUSY;
    }
    snprintf(err, errlen, "%s: cannot lock image: %s", path, strerror(-rc));
    return rc;
}

int csd_store_create(csd_store **out, const char *path, const csd_layout *l, const csd_params *p,
                     char *err, size_t errlen) {
    *out = NULL;
    uint8_t *sb = calloc(1, CSD_SB_BYTES);
    csd_store *s = calloc(1, sizeof *s);
    if (!sb || !s) {
        free(sb);
        free(s);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = csd_sb_encode(sb, l, p, err, errlen);
    if (rc) goto fail;
    s->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        goto fail;
    }
    rc = lock_image(s->fd, path, err, errlen);   /* never truncate an image a device has open */
    if (rc) goto fail_fd;
    /* ftruncate keeps every area a hole until it is written: the image is sparse. */
    if (ftruncate(s->fd, 0) < 0 || ftruncate(s->fd, (off_t)l->file_bytes) < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: cannot size image to %" PRIu64 " bytes: %s", path, l->file_bytes, strerror(-rc));
        goto fail_fd;
    }
    rc = pwrite_full(s->fd, sb, CSD_SB_BYTES, 0);
    if (rc) {
        snprintf(err, errlen, "%s: writing superblock: %s", path, strerror(-rc));
        goto fail_fd;
    }
    s->writable = 1;
    s->punch = 1;
    s->sync_writes = p->sync_writes != 0;
    s->discard = p->discard_data != 0;
    s->l = *l;
    free(sb);
    *out = s;
    return 0;
fail_fd:
    close(s->fd);
fail:
    free(sb);
    free(s);
    return rc;
}

int csd_store_open(csd_store **out, const char *path, int writable, csd_params *p, char *err, size_t errlen) {
    *out = NULL;
    uint8_t *sb = calloc(1, CSD_SB_BYTES);
    csd_store *s = calloc(1, sizeof *s);
    if (!sb || !s) {
        free(sb);
        free(s);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc;
    s->fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (s->fd < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        goto fail;
    }
    if (writable && (rc = lock_image(s->fd, path, err, errlen)) != 0) goto fail_fd;
    struct stat st;
    if (fstat(s->fd, &st) < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        goto fail_fd;
    }
    if ((uint64_t)st.st_size < CSD_SB_BYTES) {
        rc = -EBADMSG;
        snprintf(err, errlen, "%s: not a smartssd image (only %" PRIu64 " bytes)", path, (uint64_t)st.st_size);
        goto fail_fd;
    }
    rc = pread_full(s->fd, sb, CSD_SB_BYTES, 0);
    if (rc) {
        snprintf(err, errlen, "%s: reading superblock: %s", path, strerror(-rc));
        goto fail_fd;
    }
    char e2[256];
    rc = csd_sb_decode(sb, &s->l, p, e2, sizeof e2);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, e2);
        goto fail_fd;
    }
    /* the wear record after the data area: absent in older images, possibly torn by a crash while it
     * was first written (it then reads as zero counts) */
    s->wear_present = (uint64_t)st.st_size > s->l.file_bytes;
    if ((uint64_t)st.st_size < s->l.file_bytes || (uint64_t)st.st_size > s->l.file_bytes + csd_wear_bytes(&s->l)) {
        rc = -EBADMSG;
        snprintf(err, errlen, "%s: image is %" PRIu64 " bytes, its superblock says %" PRIu64 " (truncated?)", path,
                 (uint64_t)st.st_size, s->l.file_bytes);
        goto fail_fd;
    }
    s->writable = writable;
    s->punch = 1;
    s->reserve = 1;
    s->sync_writes = p->sync_writes != 0;
    s->discard = p->discard_data != 0;
    csd_store_oobmap_open(s);
    free(sb);
    *out = s;
    return 0;
fail_fd:
    close(s->fd);
fail:
    free(sb);
    free(s);
    return rc;
}

void csd_store_close(csd_store *s) {
    if (!s) return;
    csd_store_reader_stop(s);
    csd_store_oobmap_close(s);
    free(s->bzero);
    if (s->runs)
        for (size_t i = 0; i < RUN_SETS * RUN_WAYS; i++) free(s->runs[i].buf);
    free(s->runs);
    close(s->fd);
    free(s);
}

static int write_zeros(int fd, uint64_t off, uint64_t len);

static int ppn_ok(const csd_store *s, uint64_t ppn, uint64_t n) {
    return ppn < s->l.physical_pages && n <= s->l.physical_pages - ppn;
}

int csd_store_read_data(csd_store *s, uint64_t ppn, uint32_t off, void *buf, size_t len) {
    if (!ppn_ok(s, ppn, 1) || off > s->l.page_bytes || len > s->l.page_bytes - off) return -EINVAL;
    if (s->discard) {
        memset(buf, 0, len);
        return 0;
    }
    return pread_full(s->fd, buf, len, s->l.data_off + ppn * s->l.page_bytes + off);
}

static uint64_t run_block(const csd_store *s, uint64_t ppn) { return ppn / s->l.pages_per_block; }

static struct csd_store_run *run_set(csd_store *s, uint64_t ppn) {
    uint64_t h = run_block(s, ppn) * 0x9e3779b97f4a7c15ull;
    return &s->runs[(h >> 40) % RUN_SETS * RUN_WAYS];
}

/* A write or erase of [first, first+n) drops the runs holding any of those pages. A run never leaves
 * the block of its first page and sits in that block's set, so only the sets of the blocks touched
 * are looked at. */
static void runs_invalidate(csd_store *s, uint64_t first, uint64_t n) {
    if (!s->runs || !n) return;
    const uint64_t ppb = s->l.pages_per_block;
    for (uint64_t b = first / ppb; b <= (first + n - 1) / ppb; b++) {
        struct csd_store_run *set = run_set(s, b * ppb);
        for (int w = 0; w < RUN_WAYS; w++)
            if (set[w].n && set[w].base < first + n && first < set[w].base + set[w].n) set[w].n = 0;
    }
}

const uint8_t *csd_store_data_view(csd_store *s, uint64_t ppn, int *rc) {
    *rc = 0;
    if (ppn >= s->l.physical_pages) return NULL;
    const uint64_t pb = s->l.page_bytes;
    if (!s->runs && !(s->runs = calloc(RUN_SETS * RUN_WAYS, sizeof *s->runs))) {
        *rc = -ENOMEM;
        return NULL;
    }
    struct csd_store_run *set = run_set(s, ppn), *victim = NULL, *prev = NULL;
    s->run_clock++;
    for (int w = 0; w < RUN_WAYS; w++) {
        struct csd_store_run *r = &set[w];
        if (r->n && ppn - r->base < r->n) {
            r->used = s->run_clock;
            return r->buf + (ppn - r->base) * pb;
        }
        if (r->n && ppn == r->base + r->n) prev = r;   /* the stream goes on past this run */
        if (!victim || r->used < victim->used) victim = r;
    }
    struct csd_store_run *r = prev ? prev : victim;
    uint32_t len = prev ? prev->next_len : 1;
    /* never past the block (the stream ends there) or the device */
    uint64_t block_end = (run_block(s, ppn) + 1) * s->l.pages_per_block;
    if (block_end > s->l.physical_pages) block_end = s->l.physical_pages;
    if (len > block_end - ppn) len = (uint32_t)(block_end - ppn);
    if (!r->buf && !(r->buf = malloc(RUN_MAX_PAGES * pb))) {
        *rc = -ENOMEM;
        return NULL;
    }
    r->n = 0;
    int e = 0;
    if (s->discard)
        memset(r->buf, 0, len * pb);
    else
        e = pread_full(s->fd, r->buf, len * pb, s->l.data_off + ppn * pb);
    if (e) {
        *rc = e;
        return NULL;
    }
    r->base = ppn;
    r->n = len;
    r->next_len = len * 2 < RUN_MAX_PAGES ? len * 2 : RUN_MAX_PAGES;
    r->used = s->run_clock;
    return r->buf;
}

/* The reader thread's runs are dropped after a write, not before: a run it read while the write was
 * under way, or between the drop and the write, would otherwise stay. */
static int reader_drop(csd_store *s, uint64_t first, uint64_t n, int rc) {
    csd_reader_invalidate(s->rd, first, n);
    return rc;
}

int csd_store_reader_start(csd_store *s) {
    if (s->rd) return 0;
    csd_reader_file f = { s->fd, s->l.data_off, s->l.page_bytes, s->l.pages_per_block, s->l.physical_pages, csd_crc32 };
    return csd_reader_start(&s->rd, &f);
}

void csd_store_reader_stop(csd_store *s) {
    csd_reader_stop(s->rd);
    s->rd = NULL;
}

void csd_store_reader_post(csd_store *s, const uint64_t *ppns, size_t n) { csd_reader_post(s->rd, ppns, n); }

const uint8_t *csd_store_reader_view(csd_store *s, uint64_t ppn, uint32_t *crc) { return csd_reader_view(s->rd, ppn, crc); }

void csd_store_reader_stats_get(csd_store *s, csd_store_reader_stats *out) { csd_reader_stats_get(s->rd, out); }

static int fill_block(csd_store *s, uint64_t off, uint64_t len);

static int reserve(csd_store *s, uint64_t first, uint64_t npages);

/* A block reserved as a hole is allocated and filled with zeros before its first data write (see
 * csd_store_reserve). */
static int fill_deferred(csd_store *s, uint64_t first, uint64_t n) {
    if (!s->bzero || !n) return 0;
    const uint64_t ppb = s->l.pages_per_block;
    for (uint64_t b = first / ppb; b <= (first + n - 1) / ppb; b++) {
        if (s->bzero[b] != 1) continue;
        uint64_t len = ppb;
        if (b * ppb + len > s->l.physical_pages) len = s->l.physical_pages - b * ppb;
        int rc = reserve(s, b * ppb, len);
        if (rc) return rc;
        s->bzero[b] = 2;
    }
    return 0;
}

int csd_store_fresh_zero(const csd_store *s, uint64_t ppn) {
    return s->bzero && ppn < s->l.physical_pages && s->bzero[ppn / s->l.pages_per_block] != 0;
}

int csd_store_write_data(csd_store *s, uint64_t ppn, const void *page) {
    if (!ppn_ok(s, ppn, 1)) return -EINVAL;
    runs_invalidate(s, ppn, 1);
    if (s->discard) return reader_drop(s, ppn, 1, 0);
    int rc = fill_deferred(s, ppn, 1);
    if (rc) return reader_drop(s, ppn, 1, rc);
    return reader_drop(s, ppn, 1, pwrite_full(s->fd, page, s->l.page_bytes, s->l.data_off + ppn * s->l.page_bytes));
}

int csd_store_write_data_run(csd_store *s, uint64_t ppn, uint64_t n, const void *pages) {
    if (!ppn_ok(s, ppn, n)) return -EINVAL;
    runs_invalidate(s, ppn, n);
    if (s->discard) return reader_drop(s, ppn, n, 0);
    int rc = fill_deferred(s, ppn, n);
    if (rc) return reader_drop(s, ppn, n, rc);
    return reader_drop(s, ppn, n,
                       pwrite_full(s->fd, pages, (size_t)(n * s->l.page_bytes), s->l.data_off + ppn * s->l.page_bytes));
}

int csd_store_read_oob(csd_store *s, uint64_t ppn, uint64_t n, void *buf) {
    if (!ppn_ok(s, ppn, n)) return -EINVAL;
    if (s->oob_map) {
        csd_store_oobmap_read(s, ppn, n, buf);
        return 0;
    }
    return pread_full(s->fd, buf, (size_t)(n * CSD_OOB_BYTES), s->l.oob_off + ppn * CSD_OOB_BYTES);
}

/* The ranges of [off, off+len) of the file that hold data (SEEK_DATA / SEEK_HOLE), in records from
 * off; all of it where the file system cannot say. 0 or -ENOMEM. */
static int data_runs(int fd, uint64_t off, uint64_t len, csd_oob_area *a) {
    size_t cap = 0;
    uint64_t at = off, end = off + len;
    while (at < end) {
        uint64_t d = at, h = end;
#ifdef SEEK_DATA
        off_t x = lseek(fd, (off_t)at, SEEK_DATA);
        if (x < 0 && errno == ENXIO) break;   /* no data from here on */
        if (x >= 0) {
            d = (uint64_t)x;
            off_t y = d < end ? lseek(fd, (off_t)d, SEEK_HOLE) : -1;
            h = y >= 0 && (uint64_t)y < end ? (uint64_t)y : end;
        }
#endif
        if (d >= end) break;
        if (a->nruns == cap) {
            cap = cap ? cap * 2 : 16;
            uint64_t (*r)[2] = realloc(a->runs, cap * sizeof *r);
            if (!r) return -ENOMEM;
            a->runs = r;
        }
        /* in whole records: a record a boundary cuts is scanned */
        a->runs[a->nruns][0] = (d - off) / CSD_OOB_BYTES;
        a->runs[a->nruns][1] = (h - off + CSD_OOB_BYTES - 1) / CSD_OOB_BYTES;
        a->nruns++;
        at = h;
    }
    return 0;
}

int csd_store_oob_area(csd_store *s, csd_oob_area *a) {
    memset(a, 0, sizeof *a);
    uint64_t off = s->l.oob_off, bytes = s->l.physical_pages * CSD_OOB_BYTES;
    if (!bytes) return 0;
    if (data_runs(s->fd, off, bytes, a)) {
        csd_store_oob_area_free(a);
        return -ENOMEM;
    }
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t lead = pg > 0 ? off % (uint64_t)pg : 0;
    struct stat st;
    /* a file shorter than its superblock says is read (and refused with -EIO) rather than mapped:
     * touching a mapping past the end of the file would be SIGBUS */
    if (pg > 0 && fstat(s->fd, &st) == 0 && (uint64_t)st.st_size >= off + bytes) {
        void *m = mmap(NULL, (size_t)(lead + bytes), PROT_READ, MAP_SHARED, s->fd, (off_t)(off - lead));
        if (m != MAP_FAILED) {
            a->base = m;
            a->len = (size_t)(lead + bytes);
            a->recs = (const uint8_t *)m + lead;
            a->mapped = 1;
            return 0;
        }
    }
    uint8_t *b = malloc((size_t)bytes);
    if (!b) {
        csd_store_oob_area_free(a);
        return -ENOMEM;
    }
    int rc = pread_full(s->fd, b, (size_t)bytes, off);
    if (rc) {
        free(b);
        csd_store_oob_area_free(a);
        return rc;
    }
    a->base = b;
    a->len = (size_t)bytes;
    a->recs = b;
    return 0;
}

void csd_store_oob_area_free(csd_oob_area *a) {
    if (a->mapped) munmap(a->base, a->len);
    else free(a->base);
    free(a->runs);
    memset(a, 0, sizeof *a);
}

int csd_store_write_oob(csd_store *s, uint64_t ppn, const csd_oob *r) {
    uint8_t rec[CSD_OOB_BYTES];
    csd_oob_encode(rec, r);
    return csd_store_write_oob_run(s, ppn, 1, rec);
}

int csd_store_write_oob_run(csd_store *s, uint64_t ppn, uint64_t n, const void *raw) {
    if (!ppn_ok(s, ppn, n)) return -EINVAL;
    int rc = s->oob_map ? csd_store_oobmap_put(s, ppn, n, raw) : 1;
    if (rc <= 0) return rc;
    return pwrite_full(s->fd, raw, (size_t)(n * CSD_OOB_BYTES), s->l.oob_off + ppn * CSD_OOB_BYTES);
}

static int write_zeros(int fd, uint64_t off, uint64_t len) {
    static const uint8_t zero[1 << 20];
    while (len) {
        size_t n = len < sizeof zero ? (size_t)len : sizeof zero;
        int rc = pwrite_full(fd, zero, n, off);
        if (rc) return rc;
        off += n;
        len -= n;
    }
    return 0;
}

/* Zeroing the records is the erase: a page without a record does not exist for recovery, check or
 * any read. The data keeps its dead bytes, so the next program of the block rewrites page-cache
 * pages in place instead of re-allocating them after a punch (punching every erased block cost the
 * kernel more than the writes themselves); csd_store_punch gives free blocks back to the host's
 * disk in large runs at a clean close. */
static void bzero_forget(csd_store *s, uint64_t first, uint64_t npages) {
    if (!s->bzero || !npages) return;
    for (uint64_t b = first / s->l.pages_per_block; b <= (first + npages - 1) / s->l.pages_per_block; b++)
        s->bzero[b] = 0;
}

int csd_store_erase(csd_store *s, uint64_t first, uint64_t npages) {
    if (!ppn_ok(s, first, npages)) return -EINVAL;
    bzero_forget(s, first, npages);      /* the dead bytes stay */
    runs_invalidate(s, first, npages);   /* the block's pages are dead: drop read-ahead copies of them */
    int rc = s->oob_map ? csd_store_oobmap_zero(s, first, npages) : 1;
    if (rc <= 0) return reader_drop(s, first, npages, rc);
    return reader_drop(s, first, npages, write_zeros(s->fd, s->l.oob_off + first * CSD_OOB_BYTES, npages * CSD_OOB_BYTES));
}

/* The FTL stripes an object over the units, so a block's pages are programmed one 8 KiB write at a
 * time, and the page cache then holds the block in as many small folios: every later pread of a
 * read-ahead run walks and copies them one by one. Writing the whole block once when it is opened
 * (zeros: it holds no live page) makes the kernel cache it in large folios that the page writes then
 * fill in place. Measured on weblog-q1 over 1 GiB (paired runs, docs/perf-journal.md): 0.85 of the
 * CPU time of a scan, for about 1.2x the CPU time of the put. */
static int fill_block(csd_store *s, uint64_t off, uint64_t len) { return write_zeros(s->fd, off, len); }

/* 1 when the file holds no data in [off, off+len): a hole, which reads as zeros. */
static int is_hole(int fd, uint64_t off, uint64_t len) {
#ifdef SEEK_DATA
    off_t d = lseek(fd, (off_t)off, SEEK_DATA);
    if (d < 0) return errno == ENXIO;   /* no data at or after off */
    return (uint64_t)d >= off + len;
#else
    (void)fd, (void)off, (void)len;
    return 0;
#endif
}

/* Writing into a hole makes the file system allocate (delayed allocation) page by page, which cost
 * the kernel about three times the write itself; one fallocate per block opened for programming
 * allocates the block's pages in one extent (a no-op when they are allocated already, as after an
 * erase), and a full host disk shows up here, before any page of the block is written. */
static int reserve(csd_store *s, uint64_t first, uint64_t npages) {
    if (s->discard) return 0;   /* the data area stays a hole: it reads as zeros */
    uint64_t off = s->l.data_off + first * s->l.page_bytes, len = npages * s->l.page_bytes;
#ifdef FALLOC_FL_KEEP_SIZE
    if (s->reserve) {
        if (fallocate(s->fd, FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0) return fill_block(s, off, len);
        if (errno == ENOSPC || errno == EDQUOT) return -EDQUOT;
        if (errno != EOPNOTSUPP && errno != ENOSYS) return -errno;
        s->reserve = 0;   /* this file system cannot: pages are allocated as they are written */
    }
#endif
    return fill_block(s, off, len);
}

/* A whole block that is a hole in the file (never written, or punched) already reads as zeros: it is
 * only marked, and allocated and filled at its first data write (fill_deferred), so pages of zeros
 * (csd_ftl_write_zeroes) there cost the host's disk nothing. Any other block is reserved now. */
int csd_store_reserve(csd_store *s, uint64_t first, uint64_t npages) {
    if (!ppn_ok(s, first, npages)) return -EINVAL;
    const uint64_t ppb = s->l.pages_per_block;
    if (!s->bzero && !(s->bzero = calloc(s->l.physical_pages / ppb + 1, 1))) return -ENOMEM;
    runs_invalidate(s, first, npages);   /* the block is filled with zeros */
    int whole = first % ppb == 0 && (npages == ppb || first + npages == s->l.physical_pages);
    if (whole && is_hole(s->fd, s->l.data_off + first * s->l.page_bytes, npages * s->l.page_bytes)) {
        s->bzero[first / ppb] = 1;
        return reader_drop(s, first, npages, 0);
    }
    int rc = reserve(s, first, npages);
    if (whole) s->bzero[first / ppb] = rc ? 0 : 2;
    return reader_drop(s, first, npages, rc);
}

static int punch(csd_store *s, uint64_t first, uint64_t npages) {
#ifdef FALLOC_FL_PUNCH_HOLE
    if (s->punch) {
        uint64_t off = s->l.data_off + first * s->l.page_bytes, len = npages * s->l.page_bytes;
        if (fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0) return 0;
        if (errno != EOPNOTSUPP && errno != ENOSYS) return -errno;
        s->punch = 0;   /* this file system cannot punch: the dead bytes just stay */
    }
#endif
    return 0;
}

int csd_store_punch(csd_store *s, uint64_t first, uint64_t npages) {
    if (!ppn_ok(s, first, npages)) return -EINVAL;
    bzero_forget(s, first, npages);
    runs_invalidate(s, first, npages);
    return reader_drop(s, first, npages, punch(s, first, npages));
}

int csd_store_barrier(csd_store *s) { return s->sync_writes ? csd_store_sync(s) : 0; }

int csd_store_sync(csd_store *s) { return fdatasync(s->fd) < 0 ? -errno : 0; }

/* ---------------------------------------------------------------- raw slot I/O (meta.c encodes) */

int csd_store_pread(csd_store *s, uint64_t off, void *buf, size_t len) { return pread_full(s->fd, buf, len, off); }
int csd_store_pwrite(csd_store *s, uint64_t off, const void *buf, size_t len) {
    return pwrite_full(s->fd, buf, len, off);
}
