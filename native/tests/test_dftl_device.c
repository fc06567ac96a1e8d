/* The map-cached FTL on a whole device (ftl = dftl, flash_scheduler = drs): exact virtual times of a
 * host read with a cold and a warm map cache, and a tasklet scan (grep) whose page reads go through
 * the map cache: the same rows as on ftl = page; slower with a cold cache (its map reads), exactly as
 * fast once every line it needs is cached. */
#include "devutil.h"

/* tiny preset: cmd_overhead 5000 ns; host link and channel 4096 B in 10000 ns; t_read 10000;
 * firmware 1000 ns per page. */
static csd_device *open_dev(const char *dir, const char *name, const char *ftl, const char *sched, int fresh) {
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s.img", dir, name);
    if (fresh) {
        unlink(path);
        csd_params p;
        CHECK(csd_params_preset(&p, "tiny") == 0);
        dev_test_threads(&p);
        snprintf(p.ftl, sizeof p.ftl, "%s", ftl);
        snprintf(p.flash_scheduler, sizeof p.flash_scheduler, "%s", sched);
        p.map_cache_bytes = 64u << 10;   /* 1024 lines of 8: a whole scan's lines fit */
        CHECK(csd_format(path, 8u << 20, &p, err, sizeof err) == 0);
    }
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    if (csd_device_open(&d, path, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        exit(1);
    }
    return d;
}

static uint64_t read_ns(csd_device *d, uint64_t id, const uint8_t *want, size_t n) {
    Smartssd__V1__Response *r = dev_read(d, id, 0, n);
    CHECK(r->status == 0);
    CHECK(r->read_object->data.len == n && !memcmp(r->read_object->data.data, want, n));
    uint64_t ns = r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    return ns;
}

static void host_read_times(const char *dir) {
    uint8_t page[4096];
    for (size_t i = 0; i < sizeof page; i++) page[i] = (uint8_t)(i * 13);
    csd_device *d = open_dev(dir, "one", "dftl", "drs", 1);
    uint64_t id = dev_create_data(d, "p");
    dev_write(d, id, 0, page, sizeof page);
    CHECK(csd_device_close(d) == 0);   /* the dirty line goes to its map page */
    d = open_dev(dir, "one", "dftl", "drs", 0);
    /* cold cache: the map read (10000 array + 10000 channel + 1000 firmware) before the data read
     * (the same), then the link: 5000 + 21000 + 21000 + 10000 */
    CHECK_EQ_U64(read_ns(d, id, page, sizeof page), 5000 + 21000 + 21000 + 10000);
    /* warm: a hit, the plain read of test_device's exact_times */
    CHECK_EQ_U64(read_ns(d, id, page, sizeof page), 5000 + 10000 + 10000 + 1000 + 10000);
    CHECK(csd_device_close(d) == 0);
}

typedef struct scan { uint64_t ns; size_t len; uint8_t *rows; } scan;

static scan grep(csd_device *d, uint64_t id) {
    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", (const char *const[]){ "pattern=q7", "mode=lines", NULL }, NULL);
    CHECK(r->status == 0);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t out = dev_create_output(d, 0);
    r = dev_execute(d, t, out, id, 0, 0, 1);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    scan s = { 0, 0, NULL };
    for (int polls = 0;; polls++) {
        CHECK(polls < 100000);
        r = dev_read(d, out, 0, 0);
        CHECK(r->status == 0);
        size_t n = r->read_object->data.len;
        s.rows = realloc(s.rows, s.len + n + 1);
        memcpy(s.rows + s.len, r->read_object->data.data, n);
        s.len += n;
        int done = r->read_object->progress->done;
        s.ns = r->read_object->progress->device_ns;
        CHECK(r->read_object->progress->status == 0);
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    dev_delete(d, out);
    dev_delete(d, t);
    return s;
}

static void scans(const char *dir) {
    size_t n = 600u * 1024;
    char *text = malloc(n);
    uint64_t x = 99;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        text[i] = (i % 50 == 49) ? '\n' : (char)('a' + (x >> 59) % 26);
    }
    for (size_t i = 0; i + 1 < n; i += 977) text[i] = 'q', text[i + 1] = '7';
    scan res[2][2];
    const char *ftl[2] = { "page", "dftl" };
    for (int k = 0; k < 2; k++) {
        csd_device *d = open_dev(dir, ftl[k], ftl[k], k ? "drs" : "fifo", 1);
        uint64_t id = dev_create_data(d, "text");
        dev_write(d, id, 0, text, n);
        CHECK(csd_device_close(d) == 0);   /* cold cache for the first scan */
        d = open_dev(dir, ftl[k], ftl[k], k ? "drs" : "fifo", 0);
        res[k][0] = grep(d, id);
        res[k][1] = grep(d, id);
        CHECK(csd_device_close(d) == 0);
    }
    for (int i = 0; i < 2; i++) {
        CHECK(res[0][i].len > 1000);
        CHECK(res[1][i].len == res[0][i].len && !memcmp(res[1][i].rows, res[0][i].rows, res[0][i].len));
    }
    fprintf(stderr, "grep device ns: page %llu %llu, dftl %llu %llu\n", (unsigned long long)res[0][0].ns,
            (unsigned long long)res[0][1].ns, (unsigned long long)res[1][0].ns, (unsigned long long)res[1][1].ns);
    CHECK_EQ_U64(res[0][0].ns, res[0][1].ns);     /* page: nothing changes between scans */
    /* cold map cache: 150 pages, 19 lines of 8 entries, each fetched (MR) before its first data read.
     * The scan is core-bound (a page's work outlasts its flash reads), so only the first page's MR
     * delays it: one map read, 10000 + 10000 + 1000 ns; the others hide behind core work */
    CHECK_EQ_U64(res[1][0].ns, res[0][0].ns + 21000);
    CHECK_EQ_U64(res[1][1].ns, res[0][1].ns);    /* warm: every translation hits */
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) free(res[k][i].rows);
    free(text);
}

int main(void) {
    const char *dir = csd_test_dir("test_dftl_device");
    host_read_times(dir);
    scans(dir);
    TEST_OK("test_dftl_device");
}
