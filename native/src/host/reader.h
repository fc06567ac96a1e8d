/* The reader thread: pages of a file read and checksummed ahead of the thread that will view them, on
 * another host thread (wall time only: a view returns exactly what a read at that moment would). The
 * store starts one over its data area (store/store.h, csd_store_reader_*); host/reader.c says how. */
#ifndef CSD_HOST_READER_H
#define CSD_HOST_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct csd_reader csd_reader;

/* What the reader reads: pages of page_bytes at data_off of fd, pages in all, pages_per_block to a
 * block (a run of pages read at once never crosses one), each with its checksum crc(0, page, len). */
typedef struct csd_reader_file {
    int fd;
    uint64_t data_off;                   /* bytes */
    uint32_t page_bytes;
    uint32_t pages_per_block;
    uint64_t pages;
    uint32_t (*crc)(uint32_t crc, const void *data, size_t len);
} csd_reader_file;

typedef struct csd_reader_stats {
    uint64_t posts, posts_dropped;   /* ppns posted, and those the full queue dropped */
    uint64_t posts_skipped;          /* posts the reader left to the engine (no free run) */
    uint64_t runs_reader, runs_engine, runs_dropped;   /* runs read by each thread; dropped (stale) */
    uint64_t views_ready, views_serial, waits;   /* views served from runs, not; engine waits */
    uint64_t sleeps;                 /* times the reader found no post and slept */
    uint64_t runs_ahead;             /* runs read as a stream's next before their posts (counted in
                                      * runs_reader or runs_engine too) */
    uint64_t runs_ahead_unviewed;    /* of those, reused with no page viewed (read for nothing) */
    uint64_t pages_read;             /* pages in the runs published, by either thread */
} csd_reader_stats;

/* Start the thread. 0, -ENOMEM or -EAGAIN (no thread to be had). */
int csd_reader_start(csd_reader **out, const csd_reader_file *f);
void csd_reader_stop(csd_reader *rd);   /* NULL: nothing */
/* The pages the caller will view, in the order it will view them (pages past the file are left out;
 * posts past a full queue are dropped). */
void csd_reader_post(csd_reader *rd, const uint64_t *ppns, size_t n);
/* A posted page's bytes and CRC (valid until the next call on rd), read on the caller's thread when
 * the reader has not; NULL when the page was not posted or its run was given up: read it yourself. */
const uint8_t *csd_reader_view(csd_reader *rd, uint64_t ppn, uint32_t *crc);
/* Pages [first, first + n) of the file changed: drop the runs holding them. Call it after the write. */
void csd_reader_invalidate(csd_reader *rd, uint64_t first, uint64_t n);
void csd_reader_stats_get(csd_reader *rd, csd_reader_stats *out);   /* zeros when rd is NULL */

#endif
