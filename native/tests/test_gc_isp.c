/* A tasklet page's bytes are the bytes its flash read returned, even when garbage collection erases
 * the page's block (and the device reprograms it with another object's data) after the read and
 * before a core processes the page. A small device with a slow core: object A is written interleaved
 * with object B in the same blocks, B is deleted (A's blocks are then GC's best victims), a grep runs
 * over A while the host writes object C, cyclically, so GC moves A's pages, erases their blocks and
 * fills them with C. The answer must be A's (counted here from A's bytes) and the same with 1, 2 and 4
 * host threads, and GC must really have erased blocks holding issued pages of A not yet processed
 * (the engine counts the pages whose bytes it kept: isp_pages_saved). With 2 host threads it runs both
 * with the reader thread (host/reader.c, host_reader) and without: same bytes, times and rescues.
 * The reader reads only for requests fed on the engine's thread, so reader mode 2 makes every
 * request prove cheap and settle back there (host_ahead_min_ns huge), and the reader must have
 * served pages.
 * Last, a page whose bytes were damaged on the image fails the grep with the same status, message
 * and device time whichever thread read it. */
#include "devutil.h"
#include "host/settings.h"
#include "hil/device.h"
#include "sched_names.h"
#include "store/store.h"

#define PB 4096u
#define A_PAGES 32u
#define C_PAGES 200u
#define C_REWRITES 300u

typedef struct outcome {
    uint64_t rows, finish_ns, saved, gc_runs, pages_done, reader_views;
    int status;
    uint8_t *out;
    size_t out_len;
} outcome;

/* A's lines hold "needle" on every third line, each with its own number; C's every line, so a page
 * of C fed in A's place changes the count. */
static void fill_a(uint8_t *a, size_t n) {
    size_t pos = 0, line = 0;
    while (pos < n) {
        char buf[64];
        int k = snprintf(buf, sizeof buf, line % 3 ? "a-line %06zu hay\n" : "a-line %06zu needle\n", line);
        for (int i = 0; i < k && pos < n; i++) a[pos++] = (uint8_t)buf[i];
        line++;
    }
    a[n - 1] = '\n';
}

static void fill_other(uint8_t *p, size_t n, char tag) {
    for (size_t i = 0; i < n; i++) p[i] = (i % 16 == 15) ? '\n' : (i % 16 < 6 ? (uint8_t)"needle"[i % 16] : (uint8_t)tag);
}

/* Lines of a holding the pattern: the reference, line by line. */
static uint64_t count_lines(const uint8_t *a, size_t n, const char *pat) {
    uint64_t c = 0;
    size_t pl = strlen(pat);
    for (size_t s = 0; s < n;) {
        const uint8_t *nl = memchr(a + s, '\n', n - s);
        size_t e = nl ? (size_t)(nl - a) : n;
        if (e - s >= pl && memmem(a + s, e - s, pat, pl)) c++;
        s = e + 1;
    }
    return c;
}

/* reader modes: 0 off; 1 on, every request run ahead (so the reader is never told a page); 2 on,
 * every request cheap, back on the engine's thread after its probe pages, read by the reader */
static uint32_t ahead_min_ns(uint32_t reader) { return reader == 2 ? 4000000000u : 0; }

static csd_device *small_device(const char *dir, uint32_t threads, const char *sched, uint32_t reader) {
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/gc.img", dir);
    unlink(path);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    p.blocks_per_plane = 6;
    p.gc_free_blocks_min = 3;      /* GC from the fourth block of a unit on */
    p.core_mhz = 1;                /* a page costs the core ~3 ms: reads run far ahead */
    CSD_HOST_THREADS(&p) = threads;
    sched_set(&p, sched);
    CSD_HOST_AHEAD_MIN_NS(&p) = ahead_min_ns(reader);
    CSD_HOST_READER(&p) = reader ? 1 : 0;
    if (csd_format(path, 256u * PB, &p, err, sizeof err)) {
        fprintf(stderr, "format: %s\n", err);
        exit(1);
    }
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    if (csd_device_open(&d, path, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        exit(1);
    }
    return d;
}

static outcome run(const char *dir, uint32_t threads, const char *sched, const uint8_t *a, uint32_t reader) {
    csd_device *d = small_device(dir, threads, sched, reader);
    uint64_t ida = dev_create_data(d, "a"), idb = dev_create_data(d, "b"), idc = dev_create_data(d, "c");
    uint8_t other[PB];
    fill_other(other, PB, 'b');
    /* page by page; the stripe sends write w to unit w % 4, and each unit gets A and B in turn, so
     * every unit's first block holds half A, half B */
    for (uint32_t w = 0, ka = 0, kb = 0; w < 2 * A_PAGES; w++) {
        if ((w % 4 + w / 4) % 2 == 0) {
            dev_write(d, ida, (uint64_t)ka * PB, a + (size_t)ka * PB, PB);
            ka++;
        } else {
            dev_write(d, idb, (uint64_t)kb++ * PB, other, PB);
        }
    }
    dev_delete(d, idb);
    csd_ftl_counters fc0;
    csd_ftl_counters_get(d->ftl, &fc0);

    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", (const char *const[]){ "pattern=needle", "mode=lines", NULL }, NULL);
    CHECK(r->status == 0);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t out = dev_create_output(d, 0);
    r = dev_execute(d, t, out, ida, 0, 0, 1);
    CHECK(r->status == 0);
    CHECK_EQ_U64(r->execute_object->pages_total, A_PAGES);
    smartssd__v1__response__free_unpacked(r, NULL);

    outcome o = { 0 };
    fill_other(other, PB, 'c');
    /* C grows one page per command (each advances the device clock by its own time, the grep running
     * beside it) until the units run short of free blocks: GC's victims are then the blocks of A and
     * B (half stale; C's are all valid), whose A pages it moves before it erases them and C fills
     * them. Polling the output would run the device to the grep's end, so it is read after. */
    for (uint64_t k = 0; k < C_PAGES; k++) dev_write(d, idc, k * PB, other, PB);
    /* then C is overwritten from its start: GC goes on, and the erased blocks of A are programmed
     * with C while pages of A read from them wait for the core */
    for (uint64_t k = 0; k < C_REWRITES; k++) dev_write(d, idc, (k % C_PAGES) * PB, other, PB);
    for (uint64_t k = 0;; k++) {
        CHECK(k < 100000);
        r = dev_read(d, out, 0, 0);
        CHECK(r->status == 0);
        if (r->read_object->data.len) {
            o.out = realloc(o.out, o.out_len + r->read_object->data.len);
            memcpy(o.out + o.out_len, r->read_object->data.data, r->read_object->data.len);
            o.out_len += r->read_object->data.len;
        }
        Smartssd__V1__Progress *p = r->read_object->progress;
        int done = p->done;
        if (done) {
            o.rows = p->rows;
            o.status = (int)p->status;
            o.pages_done = p->pages_done;
            o.finish_ns = p->device_ns;
        }
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    csd_ftl_counters fc;
    csd_ftl_counters_get(d->ftl, &fc);
    o.gc_runs = fc.gc_runs - fc0.gc_runs;
    csd_engine_stats st;
    csd_engine_stats_get(d->eng, &st, NULL);
    o.saved = st.isp_pages_saved;
    csd_store_reader_stats rs;
    csd_ftl_reader_stats(d->ftl, &rs);
    o.reader_views = rs.views_ready;
    dev_still_serving(d);
    CHECK(csd_device_close(d) == 0);
    return o;
}

/* A grep over A whose page 5 was damaged on the image (one byte flipped while the device was closed):
 * the read's CRC check fails it. Status, message, rows and device time are the same on the engine's
 * thread and with the reader thread; and the device keeps serving. */
static void corrupt_page(const char *dir, const uint8_t *a) {
    char path[4200], err[512], ref_msg[512] = "";
    snprintf(path, sizeof path, "%s/gc.img", dir);
    const uint32_t threads[] = { 1, 2, 2, 4, 2 }, readers[] = { 1, 1, 0, 1, 2 };
    uint64_t ref_ns = 0, ref_rows = 0;
    for (size_t i = 0; i < 5; i++) {
        csd_device *d = small_device(dir, threads[i], "fcfs", readers[i]);
        uint64_t ida = dev_create_data(d, "a");
        dev_write(d, ida, 0, a, (size_t)A_PAGES * PB);
        uint64_t ppn = csd_ftl_lookup(d->ftl, ida, 5);
        CHECK(ppn != CSD_PPN_NONE);
        CHECK(csd_device_close(d) == 0);
        csd_params sp;
        csd_store *st;
        CHECK(csd_store_open(&st, path, 0, &sp, err, sizeof err) == 0);
        uint64_t off = st->l.data_off + ppn * st->l.page_bytes + 100;
        csd_store_close(st);
        FILE *f = fopen(path, "r+b");
        CHECK(f && fseek(f, (long)off, SEEK_SET) == 0);
        int c = fgetc(f);
        CHECK(c != EOF && fseek(f, (long)off, SEEK_SET) == 0 && fputc(c ^ 0x20, f) != EOF && fclose(f) == 0);
        csd_params p;
        CHECK(csd_params_preset(&p, "tiny") == 0);
        CSD_HOST_THREADS(&p) = threads[i];
        CSD_HOST_READER(&p) = readers[i] ? 1 : 0;
        CSD_HOST_AHEAD_MIN_NS(&p) = ahead_min_ns(readers[i]);
        csd_open_opts o = { .background = 0, .override = &p };
        CHECK(csd_device_open(&d, path, &o, err, sizeof err) == 0);
        Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", (const char *const[]){ "pattern=needle", "mode=count", NULL }, NULL);
        CHECK(r->status == 0);
        uint64_t t = r->create_object->object_id;
        smartssd__v1__response__free_unpacked(r, NULL);
        uint64_t out = dev_create_output(d, 0);
        r = dev_execute(d, t, out, ida, 0, 0, 1);
        CHECK(r->status == 0);
        smartssd__v1__response__free_unpacked(r, NULL);
        for (int k = 0;; k++) {
            CHECK(k < 100000);
            r = dev_read(d, out, 0, 0);
            CHECK(r->status == 0);
            Smartssd__V1__Progress *pg = r->read_object->progress;
            if (pg->done) {
                fprintf(stderr, "damaged page, host_threads %u, host_reader %u: status %d \"%s\", rows %" PRIu64
                        ", device_ns %" PRIu64 "\n", threads[i], readers[i], (int)pg->status, pg->message, pg->rows,
                        pg->device_ns);
                CHECK_EQ_INT(pg->status, CSD_IO_ERROR);
                if (!i) {
                    snprintf(ref_msg, sizeof ref_msg, "%s", pg->message);
                    ref_ns = pg->device_ns;
                    ref_rows = pg->rows;
                } else {
                    CHECK_STR(pg->message, ref_msg);
                    CHECK_EQ_U64(pg->device_ns, ref_ns);
                    CHECK_EQ_U64(pg->rows, ref_rows);
                }
                smartssd__v1__response__free_unpacked(r, NULL);
                break;
            }
            smartssd__v1__response__free_unpacked(r, NULL);
        }
        dev_still_serving(d);
        CHECK(csd_device_close(d) == 0);
    }
}

int main(void) {
    const char *dir = csd_test_dir("gc_isp");
    size_t n = (size_t)A_PAGES * PB;
    uint8_t *a = malloc(n);
    fill_a(a, n);
    uint64_t want = count_lines(a, n, "needle");
    /* batch issue (fcfs) resolves a batch's pages when it issues it; stage mode (remus) a request's
     * pages at its start */
    const char *const scheds[] = { "fcfs", "remus" };
    for (size_t si = 0; si < 2; si++) {
        const char *sched = scheds[si];
        outcome ref = { 0 };
        const uint32_t threads[] = { 1, 2, 4, 2, 2 }, readers[] = { 1, 1, 1, 0, 2 };
        for (size_t i = 0; i < 5; i++) {
            outcome o = run(dir, threads[i], sched, a, readers[i]);
            fprintf(stderr, "%s, host_threads %u, host_reader %u: status %d rows %" PRIu64 " (want %" PRIu64 "), pages %" PRIu64
                    ", device_ns %" PRIu64 ", GC runs %" PRIu64 ", pages saved from erase %" PRIu64 ", pages from the reader %" PRIu64 "\n",
                    sched, threads[i], readers[i], o.status, o.rows, want, o.pages_done, o.finish_ns, o.gc_runs, o.saved,
                    o.reader_views);
            /* the reader is told only the engine's own pages: none when every request runs ahead */
            if (readers[i] == 1 && threads[i] > 1) CHECK_EQ_U64(o.reader_views, 0);
            /* (stage issue, remus, resolves a request's pages at its start, still run ahead then) */
            if (readers[i] == 2 && !strcmp(sched, "fcfs")) CHECK(o.reader_views > 0);
            CHECK(o.status == 0);
            CHECK(o.gc_runs > 0);
            CHECK_EQ_U64(o.rows, want);
            /* no line of another object reached the tasklet */
            CHECK(!memmem(o.out, o.out_len, "needlecccc", 10) && !memmem(o.out, o.out_len, "needlebbbb", 10));
            /* every matching line of A is in the output */
            for (uint64_t line = 0; line * 3 < 100000; line++) {
                char want_line[64];
                snprintf(want_line, sizeof want_line, "a-line %06" PRIu64 " needle", line * 3);
                if (!memmem(a, n, want_line, strlen(want_line))) break;
                CHECK(memmem(o.out, o.out_len, want_line, strlen(want_line)) != NULL);
            }
            /* the scenario happened: GC erased blocks under issued, unprocessed pages of A */
            CHECK(o.saved > 0);
            if (!i) {
                ref = o;
                continue;
            }
            /* host threads are wall time only: same bytes, same device times, same rescues */
            CHECK_EQ_U64(o.finish_ns, ref.finish_ns);
            CHECK_EQ_U64(o.saved, ref.saved);
            CHECK_EQ_U64(o.gc_runs, ref.gc_runs);
            CHECK(o.out_len == ref.out_len && !memcmp(o.out, ref.out, o.out_len));
            free(o.out);
        }
        free(ref.out);
    }
    corrupt_page(dir, a);
    free(a);
    TEST_OK("test_gc_isp");
}
