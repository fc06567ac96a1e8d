/* The store's reader thread (host/reader.c) against a reference: every view of a page returns the
 * bytes the image holds at that moment, and a CRC equal to csd_crc32 of them, under random writes,
 * block fills (reserve), erases and punches made while the reader is reading the same pages, posts
 * never viewed (a tasklet that stopped), views of pages never posted, and a full post queue. The
 * reference is a plain byte array updated with every write, plus the serial path
 * (csd_store_read_data) read back beside each view. */
#include "check.h"
#include "host/settings.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct model {
    csd_store *s;
    uint64_t pages, pb;
    uint8_t *ref;     /* what every data page holds */
    uint8_t *page;
} model;

static void write_page(model *m, uint64_t ppn) {
    for (uint64_t i = 0; i < m->pb; i += 8) {
        uint64_t v = next_rand();
        memcpy(m->page + i, &v, 8);
    }
    CHECK(csd_store_write_data(m->s, ppn, m->page) == 0);
    memcpy(m->ref + ppn * m->pb, m->page, m->pb);
}

/* One view, checked against the reference and the serial read. */
static int check_view(model *m, uint64_t ppn, uint8_t *serial) {
    uint32_t crc = 0;
    const uint8_t *v = csd_store_reader_view(m->s, ppn, &crc);
    if (!v) return 0;
    if (memcmp(v, m->ref + ppn * m->pb, m->pb)) {
        CHECK(csd_store_read_data(m->s, ppn, 0, serial, m->pb) == 0);
        fprintf(stderr, "ppn %" PRIu64 ": serial read %s the reference\n", ppn,
                memcmp(serial, m->ref + ppn * m->pb, m->pb) ? "differs from" : "equals");
    }
    CHECK(memcmp(v, m->ref + ppn * m->pb, m->pb) == 0);
    CHECK_EQ_U64(crc, csd_crc32(0, m->ref + ppn * m->pb, m->pb));
    CHECK(csd_store_read_data(m->s, ppn, 0, serial, m->pb) == 0);
    CHECK(memcmp(v, serial, m->pb) == 0);
    return 1;
}

int main(void) {
    const char *dir = csd_test_dir("reader");
    char path[4200], err[256];
    snprintf(path, sizeof path, "%s/r.img", dir);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    csd_layout l;
    CHECK(csd_layout_compute(&l, 4u << 20, &p, err, sizeof err) == 0);
    p.blocks_per_plane = l.blocks_per_plane;   /* as csd_format stores it */
    model m = { 0 };
    CHECK(csd_store_create(&m.s, path, &l, &p, err, sizeof err) == 0);
    m.pages = l.physical_pages;
    m.pb = l.page_bytes;
    m.ref = calloc(m.pages, m.pb);
    m.page = malloc(m.pb);
    uint8_t *serial = malloc(m.pb);
    for (uint64_t q = 0; q < m.pages; q++) write_page(&m, q);

    /* without the thread: nothing is served from it, posts are ignored */
    csd_store_reader_post(m.s, (uint64_t[]){ 0, 1 }, 2);
    uint32_t crc;
    CHECK(csd_store_reader_view(m.s, 0, &crc) == NULL);

    CHECK(csd_store_reader_start(m.s) == 0);
    CHECK(csd_store_reader_start(m.s) == 0);   /* once */
    const uint64_t ppb = l.pages_per_block, units = l.units;
    uint64_t served = 0, tries = 0, writes = 0, posted = 0;
    uint64_t *post = malloc(8192 * sizeof *post);
    for (int round = 0; round < 400; round++) {
        /* a striped object's pages: page k on unit k % units, consecutive in each unit's block */
        uint64_t n = 1 + next_rand() % 512, start = next_rand() % (l.units * l.blocks_per_plane);
        for (uint64_t k = 0; k < n; k++) {
            uint64_t unit = k % units, blkno = (start + k / units / ppb) % l.blocks_per_plane;
            post[k] = unit * l.unit_pages + blkno * ppb + (k / units) % ppb;
            if (post[k] >= m.pages) post[k] = m.pages - 1;
        }
        if (round % 50 == 7) {
            /* more than the queue holds: the rest are read serially */
            for (int rep = 0; rep < 9; rep++) csd_store_reader_post(m.s, post, n);
            posted += 9 * n;
        } else {
            csd_store_reader_post(m.s, post, n);
            posted += n;
        }
        int stop = next_rand() % 4 == 0;   /* a tasklet that stops: later posts never viewed */
        uint64_t upto = stop ? next_rand() % n : n;
        for (uint64_t k = 0; k < upto; k++) {
            uint64_t x = next_rand() % 64;
            if (x < 6) {
                /* a write, likely into a run the reader holds or is reading */
                uint64_t w = post[(k + next_rand() % 16) % n];
                write_page(&m, w);
                writes++;
            } else if (x == 6) {
                uint64_t b = post[(k + next_rand() % 64) % n] / ppb * ppb;
                CHECK(csd_store_erase(m.s, b, ppb) == 0);   /* records only: the bytes stay */
            } else if (x == 7) {
                uint64_t b = post[(k + next_rand() % 64) % n] / ppb * ppb;
                CHECK(csd_store_reserve(m.s, b, ppb) == 0);   /* the block's bytes become zeros */
                memset(m.ref + b * m.pb, 0, ppb * m.pb);
            } else if (x == 8) {
                uint64_t b = post[(k + next_rand() % 64) % n] / ppb * ppb;
                CHECK(csd_store_punch(m.s, b, ppb) == 0);   /* a hole reads as zeros */
                memset(m.ref + b * m.pb, 0, ppb * m.pb);
            } else if (x == 9) {
                tries++;
                served += (uint64_t)check_view(&m, next_rand() % m.pages, serial);   /* not posted */
            }
            tries++;
            served += (uint64_t)check_view(&m, post[k], serial);
        }
    }
    csd_store_reader_stats st;
    csd_store_reader_stats_get(m.s, &st);
    fprintf(stderr, "views %" PRIu64 ", served by runs %" PRIu64 ", writes %" PRIu64 "; posts %" PRIu64 " (dropped %" PRIu64
            "), runs read by the reader %" PRIu64 ", by the engine %" PRIu64 ", dropped as stale %" PRIu64 ", waits %" PRIu64 "\n",
            tries, served, writes, st.posts, st.posts_dropped, st.runs_reader, st.runs_engine, st.runs_dropped, st.waits);
    /* the runs really served views, and both threads read */
    CHECK(served * 4 > tries);
    CHECK(st.runs_reader > 0 && st.runs_engine > 0);
    CHECK_EQ_U64(st.posts + st.posts_dropped, posted);
    CHECK_EQ_U64(st.views_ready, served);
    csd_store_close(m.s);   /* stops the thread */

    /* reopened: a read-only store with the reader serves the same bytes; a plain striped scan, posted
     * a batch ahead as the engine does, is served from runs throughout */
    if (csd_store_open(&m.s, path, 0, &p, err, sizeof err)) fprintf(stderr, "open: %s\n", err);
    CHECK(m.s != NULL);
    CHECK(csd_store_reader_start(m.s) == 0);
    uint64_t per_unit = l.unit_pages, total = per_unit * units, k = 0;
    served = 0;
    for (uint64_t b0 = 0; b0 < total; b0 += 128) {
        uint64_t n = total - b0 < 128 ? total - b0 : 128;
        for (uint64_t j = 0; j < n; j++) post[j] = ((b0 + j) % units) * per_unit + (b0 + j) / units;
        csd_store_reader_post(m.s, post, n);
        for (uint64_t j = 0; j < n; j++, k++) served += (uint64_t)check_view(&m, post[j], serial);
    }
    csd_store_reader_stats_get(m.s, &st);
    fprintf(stderr, "scan: %" PRIu64 " of %" PRIu64 " views served; runs read by the reader %" PRIu64 ", by the engine %" PRIu64 "\n",
            served, k, st.runs_reader, st.runs_engine);
    CHECK_EQ_U64(served, k);
    /* every page read exactly once, whichever thread read it, and no run read ahead for nothing
     * (each block is scanned to its end, where a stream's next run stops) */
    CHECK_EQ_U64(st.pages_read, total);
    CHECK_EQ_U64(st.views_ready, total);
    CHECK_EQ_U64(st.runs_ahead_unviewed, 0);
    csd_store_close(m.s);

    /* a stream's next run is read ahead of its post: view the first runs of a block's stream, let
     * the reader read the next run, then view that run's pages, never posted: served from the run,
     * each page read once. One of them damaged on the image beforehand (bytes changed behind the
     * store, as a bad sector would) comes with its damaged bytes and their CRC, as a serial read's
     * would: the caller's check against the page's record fails the same way. A write after the run
     * was read drops it: that page is read by the caller. */
    if (csd_store_open(&m.s, path, 1, &p, err, sizeof err)) fprintf(stderr, "open: %s\n", err);
    CHECK(m.s != NULL);
    const uint64_t b1 = 3 * ppb;   /* a block's first page */
    {
        int fd = open(path, O_WRONLY);
        CHECK(fd >= 0);
        uint8_t bad[8] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };
        uint64_t off = (b1 + 6) * m.pb + 100;
        CHECK(pwrite(fd, bad, sizeof bad, (off_t)(l.data_off + off)) == (ssize_t)sizeof bad);
        memcpy(m.ref + off, bad, sizeof bad);
        close(fd);
    }
    CHECK(csd_store_reader_start(m.s) == 0);
    /* before any post (a run-ahead request's pages are never posted) a view needs no run: it returns
     * none at once, counted serial, and the reader reads nothing */
    CHECK(check_view(&m, 5 * ppb + 1, serial) == 0);
    csd_store_reader_stats_get(m.s, &st);
    CHECK_EQ_U64(st.views_serial, 1);
    CHECK_EQ_U64(st.views_ready, 0);
    CHECK_EQ_U64(st.pages_read, 0);
    csd_store_reader_post(m.s, (uint64_t[]){ b1, b1 + 1, b1 + 2 }, 3);
    CHECK(check_view(&m, b1, serial));       /* run [b1, b1+1): its next run [b1+1, b1+3) is queued */
    CHECK(check_view(&m, b1 + 1, serial));   /* run [b1+1, b1+3): its next [b1+3, b1+7) is queued */
    CHECK(check_view(&m, b1 + 2, serial));
    csd_store_reader_post(m.s, (uint64_t[]){ b1 + 2 }, 1);   /* a post in a run read: wakes the reader */
    for (int spin = 0; spin < 5000; spin++) {   /* the reader reads it when it gets a core */
        csd_store_reader_stats_get(m.s, &st);
        if (st.runs_ahead) break;
        usleep(1000);
    }
    CHECK_EQ_U64(st.runs_ahead, 1);
    CHECK_EQ_U64(st.pages_read, 7);
    CHECK(check_view(&m, b1 + 3, serial));
    CHECK(check_view(&m, b1 + 6, serial));   /* the damaged page */
    CHECK(memcmp(m.ref + (b1 + 6) * m.pb + 100, "\xde\xad\xbe\xef", 4) == 0);
    CHECK(check_view(&m, b1 + 4, serial));
    write_page(&m, b1 + 5);                    /* a write after the read: the run is dropped */
    CHECK(check_view(&m, b1 + 5, serial) == 0);   /* not posted, no run: the caller reads it */
    csd_store_reader_stats_get(m.s, &st);
    CHECK_EQ_U64(st.views_ready, 6);
    CHECK_EQ_U64(st.views_serial, 2);
    CHECK_EQ_U64(st.pages_read, 7);
    CHECK_EQ_U64(st.runs_ahead_unviewed, 0);
    CHECK_EQ_U64(st.posts, 4);
    csd_store_close(m.s);
    free(post);
    free(serial);
    free(m.page);
    free(m.ref);

    /* the param: on by default, 0 or 1 only */
    csd_params q;
    CHECK_EQ_INT(csd_params_preset(&q, "tiny"), 0);
    CHECK_EQ_U64(CSD_HOST_READER(&q), 1);
    CHECK_EQ_INT(csd_params_set(&q, "host_reader", "2", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_validate(&q, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "host_reader is 0 or 1");
    TEST_OK("test_reader");
}
