/* Page-mapping FTL over an image file: geometry derivation and striping worked out by hand, random
 * operations checked against an in-memory reference (one byte array per object), object table rules
 * and error codes, trim, garbage collection under full-device overwrites, reopen. */
#include "check.h"
#include "flash/flash.h"
#include "ftl/ftl.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>

static const char *DIR_;

static const char *path_of(const char *name) {
    static char buf[4][4096];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", DIR_, name);
    return buf[k];
}

static csd_params preset(const char *name) {
    csd_params p;
    CHECK(csd_params_preset(&p, name) == 0);
    return p;
}

static uint64_t rng_state;
static uint64_t rnd(void) {   /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }
static void rnd_fill(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
}

static csd_ftl *open_ok(const char *path, csd_params *p) {
    csd_ftl *f = NULL;
    char err[512] = "";
    int rc = csd_ftl_open(&f, path, p, err, sizeof err);
    if (rc) fprintf(stderr, "open %s: %d %s\n", path, rc, err);
    CHECK(rc == 0 && f);
    return f;
}

static void format_ok(const char *path, uint64_t cap, const csd_params *p) {
    char err[512] = "";
    int rc = csd_ftl_format(path, cap, p, err, sizeof err);
    if (rc) fprintf(stderr, "format %s: %d %s\n", path, rc, err);
    CHECK(rc == 0);
}

static void keep_line(void *arg, const char *line) {
    char *log = arg;
    size_t n = strlen(log);
    snprintf(log + n, 8192 - n, "  %s\n", line);
}

/* csd_ftl_check finds no problem; its report is printed only when it does. */
static void check_clean(const char *path) {
    char log[8192] = "";
    int rc = csd_ftl_check(path, keep_line, log);
    if (rc) fprintf(stderr, "check %s:\n%s", path, log);
    CHECK_EQ_INT(rc, 0);
}

/* ---------------------------------------------------------------- reference model */

typedef struct ref_obj {
    uint64_t id;
    char name[64];
    uint8_t *data;
    uint64_t size, cap;
    int live;
} ref_obj;

static void ref_write(ref_obj *r, uint64_t off, const uint8_t *d, uint64_t len) {
    if (off + len > r->cap) {
        uint64_t cap = r->cap ? r->cap : 4096;
        while (cap < off + len) cap *= 2;
        r->data = realloc(r->data, cap);
        CHECK(r->data);
        memset(r->data + r->cap, 0, cap - r->cap);
        r->cap = cap;
    }
    memcpy(r->data + off, d, len);
    if (off + len > r->size) r->size = off + len;
}

/* The FTL's trim rule: whole pages inside the range; a range reaching the end covers the last page. */
static void ref_trim(ref_obj *r, uint64_t off, uint64_t len, uint32_t pb) {
    uint64_t np = (r->size + pb - 1) / pb;
    uint64_t end = off + len >= r->size ? np * pb : off + len;
    for (uint64_t i = (off + pb - 1) / pb; i < end / pb; i++) {
        uint64_t a = i * pb, b = a + pb < r->size ? a + pb : r->size;
        memset(r->data + a, 0, b - a);
    }
}

static void ref_verify(csd_ftl *f, const ref_obj *r) {
    csd_obj_info info;
    CHECK_EQ_INT(csd_ftl_obj_stat(f, r->id, &info), 0);
    CHECK_EQ_U64(info.size, r->size);
    CHECK_STR(info.name, r->name);
    uint8_t *buf = malloc(r->size + 1);
    CHECK(buf);
    CHECK_EQ_INT(csd_ftl_read(f, r->id, 0, buf, r->size, NULL), 0);
    if (r->size && memcmp(buf, r->data, r->size)) {
        for (uint64_t i = 0; i < r->size; i++)
            if (buf[i] != r->data[i]) {
                fprintf(stderr, "object %s differs at byte %" PRIu64 " (page %" PRIu64 "): %u vs %u\n", r->name, i,
                        i / csd_ftl_params(f)->page_bytes, buf[i], r->data[i]);
                break;
            }
        CHECK(0);
    }
    free(buf);
}

/* Every mapped page of r through csd_ftl_view_ppn (the store's read-ahead buffers) holds the
 * reference's bytes: the buffers never serve a page that a write, trim or garbage collection has
 * replaced since they were filled. */
static void ref_verify_views(csd_ftl *f, const ref_obj *r) {
    const uint32_t pb = csd_ftl_params(f)->page_bytes;
    for (uint64_t i = 0; i * pb < r->size; i++) {
        uint64_t ppn = csd_ftl_lookup(f, r->id, i);
        if (ppn == CSD_PPN_NONE) continue;
        int rc = -1;
        const uint8_t *v = csd_ftl_view_ppn(f, ppn, &rc);
        CHECK_EQ_INT(rc, 0);
        CHECK(v);
        uint64_t n = r->size - i * pb < pb ? r->size - i * pb : pb;
        CHECK(!memcmp(v, r->data + i * pb, n));
    }
}

/* ---------------------------------------------------------------- tests */

static void test_crc32(void) {
    CHECK_EQ_U64(csd_crc32(0, "123456789", 9), 0xCBF43926u);   /* the standard check value */
    CHECK_EQ_U64(csd_crc32(csd_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
    CHECK_EQ_U64(csd_crc32(0, "", 0), 0);
}

static void test_layout(void) {
    csd_params p = preset("tiny"), got;
    /* tiny: 4 units (2 channels x 2 chips), 16 pages/block, 4 KiB pages, 25% OP, gc_free_blocks_min 2.
     * 1 MiB = 256 pages. Over-provisioning rule: 256 * 125 / 100 = 320 pages / 64 per block row = 5.
     * GC rule: ceil((256 + 2*4) / 4) + 1 = 67 pages per unit -> ceil(67 / 16) + 1 = 6 blocks. */
    const char *a = path_of("layout.img");
    format_ok(a, 1 << 20, &p);
    csd_ftl *f = open_ok(a, &got);
    CHECK_EQ_U64(got.blocks_per_plane, 6);
    CHECK_EQ_U64(csd_ftl_physical_pages(f), 6 * 4 * 16);
    CHECK_EQ_U64(csd_ftl_capacity(f), 1 << 20);
    CHECK_STR(got.preset, "tiny");
    CHECK_EQ_U64(got.channels, 2);
    CHECK_EQ_U64(csd_ftl_group_pages(f), (4 * (5 * 16 - 1) - 256) / 2);   /* headroom 60 / 2 */
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.total_blocks, 24);
    CHECK_EQ_U64(c.free_blocks, 24);
    CHECK_EQ_U64(c.logical_pages_capacity, 256);
    CHECK_EQ_U64(c.logical_pages_used, 0);
    /* one device per image at a time: a second open or a format of an open image is refused */
    csd_ftl *twice = NULL;
    char lerr[512] = "";
    CHECK_EQ_INT(csd_ftl_open(&twice, a, NULL, lerr, sizeof lerr), -EBUSY);
    CHECK_CONTAINS(lerr, "in use");
    CHECK_EQ_INT(csd_ftl_format(a, 1 << 20, &p, lerr, sizeof lerr), -EBUSY);
    CHECK_EQ_INT(csd_ftl_check(a, NULL, NULL), 0);   /* reading is fine */
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    /* sparse: almost nothing allocated although the file spans the data area */
    struct stat st;
    CHECK(stat(a, &st) == 0);
    CHECK((uint64_t)st.st_size > 384 * 4096);
    CHECK((uint64_t)st.st_blocks * 512 < (uint64_t)st.st_size / 4);

    /* Paper preset, 1 GiB = 131072 pages of 8 KiB: 131072 * 107 / 100 = 140247.04 -> 140248 pages /
     * (64 units * 128) = 17.1 -> 18 blocks; the GC rule gives ceil(131200 / 64) + 1 = 2051 pages ->
     * 17 + 1 = 18 as well. */
    csd_params pp = preset("smartssd-paper");
    const char *b = path_of("paper.img");
    format_ok(b, 1ull << 30, &pp);
    f = open_ok(b, &got);
    CHECK_EQ_U64(got.blocks_per_plane, 18);
    CHECK_EQ_U64(csd_ftl_physical_pages(f), 18ull * 64 * 128);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(b);
    unlink(b);

    /* explicit blocks_per_plane is kept, but must leave room for GC */
    p.blocks_per_plane = 10;
    format_ok(a, 1 << 20, &p);
    f = open_ok(a, &got);
    CHECK_EQ_U64(got.blocks_per_plane, 10);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    char err[512] = "";
    p.blocks_per_plane = 5;
    CHECK_EQ_INT(csd_ftl_format(a, 1 << 20, &p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "blocks_per_plane");
    p.blocks_per_plane = 0;
    CHECK_EQ_INT(csd_ftl_format(a, 100, &p, err, sizeof err), -EINVAL);   /* below one page */
    CHECK_CONTAINS(err, "smaller than one page");
    p.page_bytes = 1000;
    CHECK_EQ_INT(csd_ftl_format(a, 1 << 20, &p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "page_bytes");

    /* open failures */
    csd_ftl *g = NULL;
    CHECK_EQ_INT(csd_ftl_open(&g, path_of("missing.img"), NULL, err, sizeof err), -ENOENT);
    CHECK(g == NULL);
    const char *junk = path_of("junk.img");
    FILE *fp = fopen(junk, "w");
    CHECK(fp);
    for (int i = 0; i < 20000; i++) fputc('x', fp);
    fclose(fp);
    CHECK_EQ_INT(csd_ftl_open(&g, junk, NULL, err, sizeof err), -EBADMSG);
    CHECK_CONTAINS(err, "not a smartssd image");
    unlink(junk);
    unlink(a);
}

/* Stripe order: channel fastest, then chip (tiny: units 0..3 = (ch0,chip0) (ch0,chip1) (ch1,chip0)
 * (ch1,chip1)), so stripe positions 0,1,2,3 are units 0,2,1,3. Page k of the first object goes to
 * unit order[k mod 4], page k / 4 of that unit's first block (block 0), ppn = (unit*6 + 0)*16 + k/4. */
static void test_striping(void) {
    rng_state = 5;
    csd_params p = preset("tiny"), got;
    const char *a = path_of("stripe.img");
    format_ok(a, 1 << 20, &p);
    csd_ftl *f = open_ok(a, &got);
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "obj", &id), 0);
    CHECK_EQ_U64(id, 1);
    uint8_t data[3 * 4096];
    rnd_fill(data, sizeof data);
    csd_flash_batch ops = { 0 };
    CHECK_EQ_INT(csd_ftl_write(f, id, 0, data, sizeof data, &ops), 0);
    CHECK_EQ_U64(ops.n, 3);
    static const uint64_t want[3] = { 0, 2 * 6 * 16, 1 * 6 * 16 };
    static const uint32_t want_ch[3] = { 0, 1, 0 }, want_chip[3] = { 0, 0, 1 };
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(ops.ops[k].kind, CSD_FLASH_PROGRAM);
        CHECK_EQ_INT(ops.ops[k].gc, 0);
        CHECK_EQ_U64(ops.ops[k].ppn, want[k]);
        CHECK_EQ_U64(csd_ftl_lookup(f, id, (uint64_t)k), want[k]);
        csd_addr ad;
        csd_ppn_decode(&got, ops.ops[k].ppn, &ad);
        CHECK_EQ_U64(ad.channel, want_ch[k]);
        CHECK_EQ_U64(ad.chip, want_chip[k]);
        CHECK_EQ_U64(ad.block, 0);
        CHECK_EQ_U64(ad.page, 0);
    }
    /* five more pages: positions 3..7 -> unit 3 page 0, then units 0,2,1,3 page 1 */
    uint8_t more[5 * 4096];
    rnd_fill(more, sizeof more);
    csd_flash_batch_clear(&ops);
    CHECK_EQ_INT(csd_ftl_write(f, id, sizeof data, more, sizeof more, &ops), 0);
    static const uint64_t want2[5] = { 3 * 96 + 0, 0 * 96 + 1, 2 * 96 + 1, 1 * 96 + 1, 3 * 96 + 1 };
    CHECK_EQ_U64(ops.n, 5);
    for (int k = 0; k < 5; k++) CHECK_EQ_U64(ops.ops[k].ppn, want2[k]);
    CHECK_EQ_U64(csd_ftl_lookup(f, id, 8), CSD_PPN_NONE);
    CHECK_EQ_U64(csd_ftl_lookup(f, 99, 0), CSD_PPN_NONE);

    /* a raw page read returns the bytes the write put there */
    uint8_t page[4096];
    CHECK_EQ_INT(csd_ftl_read_ppn(f, want[1], page), 0);
    CHECK(!memcmp(page, data + 4096, 4096));
    CHECK_EQ_INT(csd_ftl_read_ppn(f, csd_ftl_physical_pages(f), page), -EINVAL);

    /* reading two pages reports two READs at their ppns, in order */
    csd_flash_batch_clear(&ops);
    uint8_t two[4096 + 10];
    CHECK_EQ_INT(csd_ftl_read(f, id, 4096 - 5, two, sizeof two, &ops), 0);
    CHECK(!memcmp(two, data + 4096 - 5, sizeof two));
    CHECK_EQ_U64(ops.n, 3);   /* bytes span pages 0, 1 and 2 */
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(ops.ops[k].kind, CSD_FLASH_READ);
        CHECK_EQ_U64(ops.ops[k].ppn, want[k]);
    }

    /* partial page: a new object's first 100 bytes need no read; the next 100 bytes read-modify-write
     * the page (READ old ppn, PROGRAM the next stripe position: 8 pages were written, so unit 0, page 2) */
    uint64_t id2;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "small", &id2), 0);
    csd_flash_batch_clear(&ops);
    CHECK_EQ_INT(csd_ftl_write(f, id2, 0, data, 100, &ops), 0);
    CHECK_EQ_U64(ops.n, 1);
    CHECK_EQ_U64(ops.ops[0].ppn, 0 * 96 + 2);
    csd_flash_batch_clear(&ops);
    CHECK_EQ_INT(csd_ftl_write(f, id2, 100, data + 100, 100, &ops), 0);
    CHECK_EQ_U64(ops.n, 2);
    CHECK_EQ_INT(ops.ops[0].kind, CSD_FLASH_READ);
    CHECK_EQ_U64(ops.ops[0].ppn, 0 * 96 + 2);
    CHECK_EQ_INT(ops.ops[1].kind, CSD_FLASH_PROGRAM);
    CHECK_EQ_U64(ops.ops[1].ppn, 2 * 96 + 2);
    uint8_t back[200];
    CHECK_EQ_INT(csd_ftl_read(f, id2, 0, back, 200, NULL), 0);
    CHECK(!memcmp(back, data, 200));

    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.host_pages_written, 10);
    CHECK_EQ_U64(c.flash_programs, 10);
    CHECK_EQ_U64(c.flash_reads, 3 + 1 + 1);   /* the 3-page read, the RMW, the 1-page read back */
    CHECK_EQ_U64(c.host_pages_read, 4);
    CHECK_EQ_U64(c.logical_pages_used, 9);
    csd_flash_batch_free(&ops);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);
    unlink(a);
}

static void test_objects(void) {
    rng_state = 9;
    csd_params p = preset("tiny");
    CHECK(csd_params_set(&p, "max_objects", "4", NULL, 0) == 0);
    const char *a = path_of("objects.img");
    format_ok(a, 1 << 20, &p);
    csd_ftl *f = open_ok(a, NULL);
    uint64_t id_b, id_a, id_c, id;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "b", &id_b), 0);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "a", &id_a), 0);
    CHECK_EQ_U64(id_b, 1);
    CHECK_EQ_U64(id_a, 2);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "a", &id), -EEXIST);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "", &id), -EINVAL);
    CHECK_EQ_INT(csd_ftl_obj_create(f, NULL, &id), -EINVAL);
    char longname[1026];
    memset(longname, 'n', 1025);
    longname[1025] = 0;
    CHECK_EQ_INT(csd_ftl_obj_create(f, longname, &id), -EINVAL);
    longname[1024] = 0;   /* exactly the limit */
    CHECK_EQ_INT(csd_ftl_obj_create(f, longname, &id_c), 0);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "dir/x", &id), 0);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "dir/y", &id), -ENOSPC);   /* max_objects = 4 */

    csd_obj_info info;
    CHECK_EQ_INT(csd_ftl_obj_stat(f, id_c, &info), 0);
    CHECK_EQ_U64(strlen(info.name), 1024);
    CHECK_EQ_U64(info.size, 0);
    CHECK_EQ_INT(csd_ftl_obj_stat(f, 77, &info), -ENOENT);
    CHECK_EQ_INT(csd_ftl_obj_find(f, "a", &id), 0);
    CHECK_EQ_U64(id, id_a);
    CHECK_EQ_INT(csd_ftl_obj_find(f, "zz", &id), -ENOENT);

    /* data rules */
    uint8_t d[5000];
    rnd_fill(d, sizeof d);
    CHECK_EQ_INT(csd_ftl_write(f, id_a, 1, d, 10, NULL), -ERANGE);   /* would leave a hole */
    CHECK_EQ_INT(csd_ftl_write(f, id_a, 0, d, sizeof d, NULL), 0);
    CHECK_EQ_INT(csd_ftl_write(f, id_a, 5001, d, 1, NULL), -ERANGE);
    CHECK_EQ_INT(csd_ftl_write(f, id_a, 5000, d, 1, NULL), 0);        /* appending at the end is fine */
    CHECK_EQ_INT(csd_ftl_write(f, 99, 0, d, 1, NULL), -ENOENT);
    CHECK_EQ_INT(csd_ftl_write(f, id_a, 0, d, 0, NULL), 0);
    uint8_t r[5001];
    CHECK_EQ_INT(csd_ftl_read(f, id_a, 0, r, 5002, NULL), -ERANGE);
    CHECK_EQ_INT(csd_ftl_read(f, id_a, 5002, r, 0, NULL), -ERANGE);
    CHECK_EQ_INT(csd_ftl_read(f, id_a, 5001, r, 0, NULL), 0);
    CHECK_EQ_INT(csd_ftl_read(f, id_a, 0, r, 5001, NULL), 0);
    CHECK(!memcmp(r, d, 5000) && r[5000] == d[0]);
    CHECK_EQ_INT(csd_ftl_read(f, 99, 0, r, 1, NULL), -ENOENT);
    CHECK_EQ_INT(csd_ftl_trim(f, id_a, 5002, 1, NULL), -ERANGE);

    /* list: byte order, prefix, start_after, limit */
    csd_obj_info *l;
    int more;
    int n = csd_ftl_obj_list(f, "", "", 0, &l, &more);
    CHECK_EQ_INT(n, 4);
    CHECK_STR(l[0].name, "a");
    CHECK_STR(l[1].name, "b");
    CHECK_STR(l[2].name, "dir/x");
    CHECK_EQ_U64(strlen(l[3].name), 1024);
    CHECK_EQ_U64(l[0].size, 5001);
    CHECK_EQ_U64(l[0].pages, 2);
    CHECK_EQ_INT(more, 0);
    free(l);
    n = csd_ftl_obj_list(f, "", "a", 2, &l, &more);
    CHECK_EQ_INT(n, 2);
    CHECK_STR(l[0].name, "b");
    CHECK_STR(l[1].name, "dir/x");
    CHECK_EQ_INT(more, 1);
    free(l);
    n = csd_ftl_obj_list(f, "dir/", NULL, 0, &l, &more);
    CHECK_EQ_INT(n, 1);
    CHECK_STR(l[0].name, "dir/x");
    free(l);
    n = csd_ftl_obj_list(f, "q", NULL, 0, &l, &more);
    CHECK_EQ_INT(n, 0);
    free(l);

    /* rename */
    CHECK_EQ_INT(csd_ftl_obj_rename(f, id_a, "b", 0), -EEXIST);
    CHECK_EQ_INT(csd_ftl_obj_rename(f, 99, "q", 0), -ENOENT);
    CHECK_EQ_INT(csd_ftl_obj_rename(f, id_a, "", 0), -EINVAL);
    CHECK_EQ_INT(csd_ftl_obj_rename(f, id_a, "a", 0), 0);             /* to itself: nothing to do */
    CHECK_EQ_INT(csd_ftl_obj_rename(f, id_a, "b", 1), 0);             /* replaces (deletes) old "b" */
    CHECK_EQ_INT(csd_ftl_obj_stat(f, id_b, &info), -ENOENT);
    CHECK_EQ_INT(csd_ftl_obj_find(f, "a", &id), -ENOENT);
    CHECK_EQ_INT(csd_ftl_obj_find(f, "b", &id), 0);
    CHECK_EQ_U64(id, id_a);
    CHECK_EQ_INT(csd_ftl_obj_rename(f, id_a, "c", 0), 0);

    /* delete frees the logical pages and the table entry; ids are never reused */
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.logical_pages_used, 2);
    CHECK_EQ_INT(csd_ftl_obj_delete(f, id_a), 0);
    CHECK_EQ_INT(csd_ftl_obj_delete(f, id_a), -ENOENT);
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.logical_pages_used, 0);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "new", &id), 0);
    CHECK_EQ_U64(id, 5);
    CHECK_EQ_INT(csd_ftl_close(f), 0);

    f = open_ok(a, NULL);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "newer", &id), 0);
    CHECK_EQ_U64(id, 6);   /* next id survived the reopen */
    n = csd_ftl_obj_list(f, "", "", 0, &l, &more);
    CHECK_EQ_INT(n, 4);
    CHECK_STR(l[0].name, "dir/x");
    CHECK_STR(l[1].name, "new");
    CHECK_STR(l[2].name, "newer");
    free(l);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);
    unlink(a);
}

/* Random writes (appends, overwrites, partial pages), reads and trims on three objects, checked
 * against the reference after every operation and across reopens. */
static void test_random(uint64_t seed, int sync_writes) {
    rng_state = seed;
    csd_params p = preset("tiny");
    p.sync_writes = (uint32_t)sync_writes;
    const char *a = path_of("random.img");
    format_ok(a, 1 << 20, &p);
    csd_params got;
    csd_ftl *f = open_ok(a, &got);
    CHECK_EQ_INT(got.sync_writes, sync_writes);   /* stored in the image */
    csd_ftl_set_sync_writes(f, !sync_writes);      /* a session may override it */
    CHECK_EQ_INT(csd_ftl_params(f)->sync_writes, !sync_writes);
    csd_ftl_set_sync_writes(f, sync_writes);
    const uint32_t pb = 4096;
    ref_obj objs[3] = { 0 };
    for (int i = 0; i < 3; i++) {
        snprintf(objs[i].name, sizeof objs[i].name, "obj-%d", i);
        CHECK_EQ_INT(csd_ftl_obj_create(f, objs[i].name, &objs[i].id), 0);
    }
    uint8_t *buf = malloc(64 * 1024), *rb = malloc(64 * 1024);
    CHECK(buf && rb);
    const uint64_t max_size = 200 * 1024;   /* 3 x 50 pages stays well under the 256-page capacity */
    int ops = sync_writes ? 150 : 1500;
    for (int op = 0; op < ops; op++) {
        ref_obj *r = &objs[rnd_below(3)];
        int kind = (int)rnd_below(10);
        if (kind < 6) {
            uint64_t off = rnd_below(r->size + 1), len;
            switch (rnd_below(4)) {
            case 0: len = 1 + rnd_below(100); break;
            case 1: len = pb; off -= off % pb; break;
            case 2: len = 1 + rnd_below(3 * pb); break;
            default: len = 1 + rnd_below(16 * pb); break;
            }
            if (off + len > max_size) continue;
            rnd_fill(buf, len);
            CHECK_EQ_INT(csd_ftl_write(f, r->id, off, buf, len, NULL), 0);
            ref_write(r, off, buf, len);
        } else if (kind < 9) {
            uint64_t off = rnd_below(r->size + 1), len = rnd_below(r->size - off + 1);
            if (len > 64 * 1024) len = 64 * 1024;
            CHECK_EQ_INT(csd_ftl_read(f, r->id, off, rb, len, NULL), 0);
            CHECK(len == 0 || !memcmp(rb, r->data + off, len));
            ref_verify_views(f, r);
        } else {
            uint64_t off = rnd_below(r->size + 1), len = rnd_below(8 * pb);
            CHECK_EQ_INT(csd_ftl_trim(f, r->id, off, len, NULL), 0);
            ref_trim(r, off, len, pb);
        }
        if (op % 250 == 249) {
            for (int i = 0; i < 3; i++) ref_verify(f, &objs[i]);
            CHECK_EQ_INT(csd_ftl_close(f), 0);
            check_clean(a);
            f = open_ok(a, NULL);
        }
    }
    for (int i = 0; i < 3; i++) ref_verify(f, &objs[i]);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    f = open_ok(a, NULL);
    for (int i = 0; i < 3; i++) ref_verify(f, &objs[i]);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);
    for (int i = 0; i < 3; i++) free(objs[i].data);
    free(buf);
    free(rb);
    unlink(a);
}

/* Trim: whole pages read as zeros, the size stays, and it all survives a reopen. */
static void test_trim(void) {
    rng_state = 11;
    csd_params p = preset("tiny");
    const char *a = path_of("trim.img");
    format_ok(a, 1 << 20, &p);
    csd_ftl *f = open_ok(a, NULL);
    const uint32_t pb = 4096;
    ref_obj r = { 0 };
    snprintf(r.name, sizeof r.name, "t");
    CHECK_EQ_INT(csd_ftl_obj_create(f, r.name, &r.id), 0);
    uint64_t size = 10 * pb + 100;   /* 11 pages, the last partial */
    uint8_t *d = malloc(size);
    rnd_fill(d, size);
    CHECK_EQ_INT(csd_ftl_write(f, r.id, 0, d, size, NULL), 0);
    ref_write(&r, 0, d, size);

    csd_flash_batch ops = { 0 };
    CHECK_EQ_INT(csd_ftl_trim(f, r.id, 100, 3 * pb - 100, &ops), 0);   /* whole pages 1 and 2 only */
    ref_trim(&r, 100, 3 * pb - 100, pb);
    CHECK_EQ_U64(ops.n, 2);   /* one tombstone slot each */
    CHECK_EQ_INT(ops.ops[0].kind, CSD_FLASH_PROGRAM);
    CHECK_EQ_U64(csd_ftl_lookup(f, r.id, 1), CSD_PPN_NONE);
    CHECK_EQ_U64(csd_ftl_lookup(f, r.id, 2), CSD_PPN_NONE);
    CHECK(csd_ftl_lookup(f, r.id, 3) != CSD_PPN_NONE);
    csd_flash_batch_clear(&ops);
    CHECK_EQ_INT(csd_ftl_trim(f, r.id, 100, 200, &ops), 0);   /* no whole page inside */
    CHECK_EQ_U64(ops.n, 0);
    CHECK_EQ_INT(csd_ftl_trim(f, r.id, pb, pb, &ops), 0);      /* already trimmed: nothing to do */
    CHECK_EQ_U64(ops.n, 0);
    CHECK_EQ_INT(csd_ftl_trim(f, r.id, 8 * pb, UINT64_MAX, NULL), 0);   /* to the end: pages 8, 9, 10 */
    ref_trim(&r, 8 * pb, UINT64_MAX - 8 * pb, pb);
    ref_verify(f, &r);
    csd_obj_info info;
    CHECK_EQ_INT(csd_ftl_obj_stat(f, r.id, &info), 0);
    CHECK_EQ_U64(info.size, size);
    CHECK_EQ_U64(info.pages, 11 - 5);
    /* reading a trimmed page does no flash read */
    csd_flash_batch_clear(&ops);
    uint8_t z[4096];
    CHECK_EQ_INT(csd_ftl_read(f, r.id, pb, z, pb, &ops), 0);
    CHECK_EQ_U64(ops.n, 0);
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.trimmed_pages, 5);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);

    f = open_ok(a, NULL);
    ref_verify(f, &r);   /* size 10 pages + 100 bytes is carried by the last page's tombstone */
    CHECK_EQ_INT(csd_ftl_obj_stat(f, r.id, &info), 0);
    CHECK_EQ_U64(info.pages, 6);
    /* write into a trimmed page brings data back; partial write into a trimmed page: rest zeros */
    CHECK_EQ_INT(csd_ftl_write(f, r.id, pb + 10, d, 20, NULL), 0);
    ref_write(&r, pb + 10, d, 20);
    ref_verify(f, &r);

    /* Churn another object so GC erases the blocks with the trimmed pages' old versions: then the
     * middle tombstones are no longer needed and are dropped (logical pages used falls to the data
     * pages plus the last page's tombstone, which carries the size). The churn object is large and
     * overwritten one page at a time, so blocks stay partly valid and greedy GC also picks the cold
     * blocks that hold the old versions. */
    uint64_t other;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "churn", &other), 0);
    uint8_t *big = malloc(200 * pb);
    rnd_fill(big, 200 * pb);
    CHECK_EQ_INT(csd_ftl_write(f, other, 0, big, 200 * pb, NULL), 0);
    for (int i = 0; i < 4000; i++) CHECK_EQ_INT(csd_ftl_write(f, other, rnd_below(200) * pb, big, pb, NULL), 0);
    csd_ftl_counters_get(f, &c);
    CHECK(c.gc_runs > 0);
    CHECK_EQ_INT(csd_ftl_obj_stat(f, r.id, &info), 0);
    CHECK_EQ_U64(info.pages, 7);
    CHECK_EQ_U64(c.logical_pages_used, 200 + 7 + 1);
    ref_verify(f, &r);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);
    f = open_ok(a, NULL);
    ref_verify(f, &r);
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.logical_pages_used, 200 + 7 + 1);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    csd_flash_batch_free(&ops);
    free(big);
    free(d);
    free(r.data);
    unlink(a);
}

/* Fill the logical capacity, then overwrite at random for many device-fulls: GC must keep up,
 * data must stay equal to the reference, and the counters must add up. */
static void test_gc_full(void) {
    rng_state = 42;
    csd_params p = preset("tiny");
    const char *a = path_of("gc.img");
    const uint32_t pb = 4096;
    format_ok(a, 512 * 1024, &p);   /* 128 logical pages; 4 blocks per plane = 256 physical */
    csd_params got;
    csd_ftl *f = open_ok(a, &got);
    CHECK_EQ_U64(got.blocks_per_plane, 4);
    ref_obj r[2] = { 0 };
    snprintf(r[0].name, sizeof r[0].name, "big");
    snprintf(r[1].name, sizeof r[1].name, "small");
    CHECK_EQ_INT(csd_ftl_obj_create(f, r[0].name, &r[0].id), 0);
    CHECK_EQ_INT(csd_ftl_obj_create(f, r[1].name, &r[1].id), 0);
    uint8_t *buf = malloc(128 * pb);
    rnd_fill(buf, 128 * pb);
    CHECK_EQ_INT(csd_ftl_write(f, r[0].id, 0, buf, 100 * pb, NULL), 0);
    ref_write(&r[0], 0, buf, 100 * pb);
    CHECK_EQ_INT(csd_ftl_write(f, r[1].id, 0, buf, 28 * pb, NULL), 0);
    ref_write(&r[1], 0, buf, 28 * pb);
    /* the device is logically full */
    CHECK_EQ_INT(csd_ftl_write(f, r[1].id, 28 * pb, buf, 1, NULL), -ENOSPC);
    uint64_t id3;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "more", &id3), 0);
    CHECK_EQ_INT(csd_ftl_write(f, id3, 0, buf, 1, NULL), -ENOSPC);

    csd_flash_batch ops = { 0 };
    int saw_gc_program = 0, saw_gc_erase = 0;
    for (int i = 0; i < 3000; i++) {
        ref_obj *o = &r[rnd_below(8) == 0];
        uint64_t np = o->size / pb, len = (1 + rnd_below(8)) * pb, off = rnd_below(np) * pb;
        if (off + len > o->size) len = o->size - off;
        rnd_fill(buf, len);
        csd_flash_batch_clear(&ops);
        CHECK_EQ_INT(csd_ftl_write(f, o->id, off, buf, len, &ops), 0);
        ref_write(o, off, buf, len);
        /* host PROGRAMs = pages written, in order after any GC work the allocation triggered */
        size_t host = 0;
        for (size_t k = 0; k < ops.n; k++) {
            if (ops.ops[k].gc) {
                saw_gc_program |= ops.ops[k].kind == CSD_FLASH_PROGRAM;
                saw_gc_erase |= ops.ops[k].kind == CSD_FLASH_ERASE;
                CHECK(ops.ops[k].kind != CSD_FLASH_ERASE || ops.ops[k].ppn % 16 == 0);
            } else {
                CHECK_EQ_INT(ops.ops[k].kind, CSD_FLASH_PROGRAM);
                CHECK_EQ_U64(csd_ftl_lookup(f, o->id, off / pb + host), ops.ops[k].ppn);
                host++;
            }
        }
        CHECK_EQ_U64(host, len / pb);
        if (i % 500 == 0) {
            ref_verify(f, &r[0]);
            ref_verify(f, &r[1]);
        }
    }
    CHECK(saw_gc_program && saw_gc_erase);
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK(c.gc_runs > 100);
    CHECK(c.gc_pages_moved > 0);
    CHECK_EQ_U64(c.flash_erases, c.gc_runs);   /* each GC pass erases its victim */
    CHECK_EQ_U64(c.flash_programs, c.host_pages_written + c.gc_pages_moved);
    CHECK_EQ_U64(c.logical_pages_used, 128);
    CHECK(c.free_blocks >= 4);   /* every unit keeps its GC block */
    fprintf(stderr, "gc: %" PRIu64 " host pages, %" PRIu64 " GC runs, %" PRIu64 " pages moved (WA %.2f)\n",
            c.host_pages_written, c.gc_runs, c.gc_pages_moved,
            (double)(c.host_pages_written + c.gc_pages_moved) / (double)c.host_pages_written);
    ref_verify(f, &r[0]);
    ref_verify(f, &r[1]);
    /* deleting frees space for the other object */
    CHECK_EQ_INT(csd_ftl_obj_delete(f, r[1].id), 0);
    CHECK_EQ_INT(csd_ftl_write(f, id3, 0, buf, 28 * pb, NULL), 0);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);
    f = open_ok(a, NULL);
    ref_verify(f, &r[0]);
    uint8_t back[4096];
    CHECK_EQ_INT(csd_ftl_read(f, id3, 27 * pb, back, pb, NULL), 0);
    CHECK(!memcmp(back, buf + 27 * pb, pb));
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    csd_flash_batch_free(&ops);
    free(buf);
    free(r[0].data);
    free(r[1].data);
    unlink(a);
}

/* Bytes the file holds on the host's disk (allocated blocks, written or not). */
static uint64_t on_disk(const char *path) {
    struct stat st;
    CHECK(stat(path, &st) == 0);
    return (uint64_t)st.st_blocks * 512;
}

/* The image's host-disk footprint (docs/IMAGE-FORMAT.md, section 1): a block's pages are allocated in
 * one step when the block is opened, an erase leaves them allocated (the next program rewrites them in
 * place), and a clean close punches every free block back into a hole. */
static void test_host_space(void) {
    rng_state = 5;
    csd_params p = preset("tiny");
    const char *a = path_of("space.img");
    const uint32_t pb = 4096;
    format_ok(a, 512 * 1024, &p);
    csd_params got;
    csd_ftl *f = open_ok(a, &got);
    csd_layout l;
    char e2[256];
    CHECK(csd_layout_compute(&l, 512 * 1024, &got, e2, sizeof e2) == 0);
    const uint64_t block_bytes = (uint64_t)l.pages_per_block * pb;
    CHECK_EQ_U64(block_bytes, 16 * 4096);
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "o", &id), 0);
    /* what the other areas may add: the OOB area, the wear record, a page of rounding */
    const uint64_t base = on_disk(a), slack = (l.data_off - l.oob_off) + csd_wear_bytes(&l) + 4096;
    uint8_t *buf = malloc(128 * pb);
    rnd_fill(buf, 128 * pb);
    /* one page: its whole block is allocated (page by page it would be one page) */
    CHECK_EQ_INT(csd_ftl_write(f, id, 0, buf, pb, NULL), 0);
    uint64_t d = on_disk(a) - base;
    CHECK(d >= block_bytes && d <= block_bytes + slack);
    /* fill the device and overwrite it until GC has erased and reused blocks */
    CHECK_EQ_INT(csd_ftl_write(f, id, 0, buf, 128 * pb, NULL), 0);
    for (int i = 0; i < 400; i++) {
        uint64_t off = rnd_below(120) * pb;
        rnd_fill(buf, 8 * pb);
        CHECK_EQ_INT(csd_ftl_write(f, id, off, buf, 8 * pb, NULL), 0);
    }
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK(c.gc_runs > 20);
    CHECK(c.free_blocks >= 4);
    /* every block has been programmed, and erasing kept them all on disk */
    CHECK(on_disk(a) >= base + c.total_blocks * block_bytes);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    /* closed: the free blocks are holes again, every other block stays */
    d = on_disk(a) - base;
    CHECK(d >= (c.total_blocks - c.free_blocks) * block_bytes);
    CHECK(d <= (c.total_blocks - c.free_blocks) * block_bytes + slack);
    check_clean(a);
    f = open_ok(a, NULL);
    csd_ftl_counters c2;
    csd_ftl_counters_get(f, &c2);
    CHECK_EQ_U64(c2.free_blocks, c.free_blocks);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    free(buf);
    unlink(a);
}

/* A write larger than one atomic group is split into groups, transparently. */
static void test_large_write(void) {
    rng_state = 7;
    csd_params p = preset("tiny");
    const char *a = path_of("large.img");
    format_ok(a, 1 << 20, &p);
    csd_ftl *f = open_ok(a, NULL);
    CHECK_EQ_U64(csd_ftl_group_pages(f), 30);
    ref_obj r = { 0 };
    snprintf(r.name, sizeof r.name, "L");
    CHECK_EQ_INT(csd_ftl_obj_create(f, r.name, &r.id), 0);
    uint64_t len = 200 * 4096 + 5;
    uint8_t *d = malloc(len);
    rnd_fill(d, len);
    CHECK_EQ_INT(csd_ftl_write(f, r.id, 0, d, len, NULL), 0);
    ref_write(&r, 0, d, len);
    rnd_fill(d, len);
    CHECK_EQ_INT(csd_ftl_write(f, r.id, 3, d, len - 3, NULL), 0);   /* overwrite of 201 pages, 7 groups */
    ref_write(&r, 3, d, len - 3);
    ref_verify(f, &r);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);
    f = open_ok(a, NULL);
    ref_verify(f, &r);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    free(d);
    free(r.data);
    unlink(a);
}

static uint64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static csd_obj_info stat_of(csd_ftl *f, uint64_t id) {
    csd_obj_info i;
    CHECK_EQ_INT(csd_ftl_obj_stat(f, id, &i), 0);
    return i;
}

/* Version-1 metadata slot (before object times), encoded here from docs/IMAGE-FORMAT.md's table, not
 * by the store's encoder: one object (id 1, created_seq 1, name), next id 2. */
static void write_v1_slot(const char *path, const csd_layout *l, int slot, uint64_t seq, uint64_t next_seq,
                          const char *name) {
    uint8_t buf[4096] = { 0 };
    size_t n = 32, nl = strlen(name);
    csd_put64(buf + n, 2); n += 8;             /* next id */
    csd_put64(buf + n, next_seq); n += 8;
    csd_put32(buf + n, 0); n += 4;             /* no rolled-back ranges */
    csd_put32(buf + n, 1); n += 4;             /* one object */
    csd_put64(buf + n, 1); n += 8;
    csd_put64(buf + n, 1); n += 8;
    csd_put16(buf + n, (uint16_t)nl); n += 2;
    memcpy(buf + n, name, nl); n += nl;
    memcpy(buf, "CSDMETA1", 8);
    csd_put64(buf + 8, seq);
    csd_put64(buf + 16, n - 32);
    csd_put32(buf + 24, csd_crc32(0, buf + 32, n - 32));
    csd_put32(buf + 28, csd_crc32(0, buf, 28));
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, buf, n, (off_t)l->meta_off[slot]) == (ssize_t)n);
    close(fd);
}

/* Object times: creation and each write set them from the wall clock, set_times sets them exactly,
 * and they survive a reopen whether they were last saved in the object table (set_times) or only in
 * the newest page's record (a write). Images from before object times open with times unknown. */
static void test_times(void) {
    csd_params p = preset("tiny");
    const char *a = path_of("times.img");
    format_ok(a, 1 << 20, &p);
    csd_ftl *f = open_ok(a, NULL);
    uint64_t t0 = wall_ms(), id;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "t", &id), 0);
    csd_obj_info i = stat_of(f, id);
    CHECK(i.ctime_ms >= t0 && i.ctime_ms <= wall_ms());
    CHECK_EQ_U64(i.mtime_ms, i.ctime_ms);
    CHECK_EQ_U64(i.atime_ms, i.mtime_ms);        /* no access time set: reads as mtime */
    struct timespec pause = { 0, 5 * 1000000 };
    nanosleep(&pause, NULL);
    uint8_t page[4096];
    memset(page, 7, sizeof page);
    uint64_t t1 = wall_ms();
    CHECK_EQ_INT(csd_ftl_write(f, id, 0, page, sizeof page, NULL), 0);
    uint64_t written = stat_of(f, id).mtime_ms;
    CHECK(written >= t1 && written > i.ctime_ms);
    CHECK_EQ_U64(stat_of(f, id).ctime_ms, i.ctime_ms);
    /* set_times: exact values, one at a time */
    CHECK_EQ_INT(csd_ftl_obj_set_times(f, id, 1234567890123ull, CSD_TIME_KEEP), 0);
    CHECK_EQ_U64(stat_of(f, id).mtime_ms, 1234567890123ull);
    CHECK_EQ_U64(stat_of(f, id).atime_ms, 1234567890123ull);
    CHECK_EQ_INT(csd_ftl_obj_set_times(f, id, CSD_TIME_KEEP, 42), 0);
    CHECK_EQ_U64(stat_of(f, id).mtime_ms, 1234567890123ull);
    CHECK_EQ_U64(stat_of(f, id).atime_ms, 42);
    CHECK_EQ_INT(csd_ftl_obj_set_times(f, 999, 1, 1), -ENOENT);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    f = open_ok(a, NULL);                         /* from the object table */
    CHECK_EQ_U64(stat_of(f, id).mtime_ms, 1234567890123ull);
    CHECK_EQ_U64(stat_of(f, id).atime_ms, 42);
    CHECK_EQ_U64(stat_of(f, id).ctime_ms, i.ctime_ms);
    uint64_t t2 = wall_ms();
    CHECK_EQ_INT(csd_ftl_write(f, id, 4096, page, 100, NULL), 0);   /* no table write for this */
    uint64_t w2 = stat_of(f, id).mtime_ms;
    CHECK(w2 >= t2);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    f = open_ok(a, NULL);                         /* from the newest record */
    CHECK_EQ_U64(stat_of(f, id).mtime_ms, w2);
    CHECK_EQ_U64(stat_of(f, id).atime_ms, 42);
    CHECK_EQ_INT(csd_ftl_close(f), 0);

    /* an image whose object table is version 1 */
    const char *b = path_of("times-v1.img");
    format_ok(b, 1 << 20, &p);
    f = open_ok(b, NULL);
    CHECK_EQ_INT(csd_ftl_obj_create(f, "old", &id), 0);
    CHECK_EQ_INT(csd_ftl_write(f, id, 0, page, sizeof page, NULL), 0);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    csd_layout l;
    CHECK_EQ_INT(csd_layout_compute(&l, 1 << 20, &p, NULL, 0), 0);
    write_v1_slot(b, &l, 0, 100, 1000000, "old");   /* newer than every record: times from it alone */
    write_v1_slot(b, &l, 1, 99, 1000000, "old");
    f = open_ok(b, NULL);
    CHECK_EQ_INT(csd_ftl_obj_find(f, "old", &id), 0);
    i = stat_of(f, id);
    CHECK_EQ_U64(i.size, 4096);
    CHECK_EQ_U64(i.ctime_ms, 0);
    CHECK_EQ_U64(i.mtime_ms, 0);
    uint8_t back[4096];
    CHECK_EQ_INT(csd_ftl_read(f, id, 0, back, sizeof back, NULL), 0);
    CHECK(!memcmp(back, page, sizeof back));
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_clean(a);
    check_clean(b);
    unlink(a);
    unlink(b);
}

int main(void) {
    DIR_ = csd_test_dir("test_ftl");
    test_crc32();
    test_layout();
    test_striping();
    test_objects();
    test_random(1, 0);
    test_random(2, 0);
    test_random(3, 1);
    test_trim();
    test_gc_full();
    test_large_write();
    test_host_space();
    test_times();
    rmdir(DIR_);
    TEST_OK("test_ftl");
}
