/* csd_ftl_check on images damaged on purpose: each kind of damage must be reported (as a problem, or
 * as a note when it is a state a crash can leave and open repairs), and a clean image reports 0. */
#include "check.h"
#include "ftl/ftl.h"
#include "smartssd/csd.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>

static char LOG[65536];

static void keep_line(void *arg, const char *line) {
    (void)arg;
    size_t n = strlen(LOG);
    snprintf(LOG + n, sizeof LOG - n, "%s\n", line);
}

static int run_check(const char *path) {
    LOG[0] = 0;
    return csd_ftl_check(path, keep_line, NULL);
}

static void copy_file(const char *from, const char *to) {
    int a = open(from, O_RDONLY), b = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(a >= 0 && b >= 0);
    static char buf[1 << 16];
    ssize_t n;
    while ((n = read(a, buf, sizeof buf)) > 0) CHECK(write(b, buf, (size_t)n) == n);
    close(a);
    close(b);
}

static void poke(const char *path, uint64_t off, const void *data, size_t len) {
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, data, len, (off_t)off) == (ssize_t)len);
    close(fd);
}

static void peek(const char *path, uint64_t off, void *data, size_t len) {
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    CHECK(pread(fd, data, len, (off_t)off) == (ssize_t)len);
    close(fd);
}

static void flip(const char *path, uint64_t off) {
    uint8_t b;
    peek(path, off, &b, 1);
    b ^= 0x5a;
    poke(path, off, &b, 1);
}

static csd_layout layout_of(const char *path) {
    csd_store *s;
    csd_params p;
    char err[256];
    CHECK(csd_store_open(&s, path, 0, &p, err, sizeof err) == 0);
    csd_layout l = s->l;
    csd_store_close(s);
    return l;
}

static int newest_slot(const char *path) {
    csd_store *s;
    csd_params p;
    char err[256];
    CHECK(csd_store_open(&s, path, 0, &p, err, sizeof err) == 0);
    csd_meta m[2];
    char why[128];
    CHECK(csd_meta_read(s, 0, &m[0], why, sizeof why) == 0);
    CHECK(csd_meta_read(s, 1, &m[1], why, sizeof why) == 0);
    int newest = m[1].seq > m[0].seq;
    csd_meta_free(&m[0]);
    csd_meta_free(&m[1]);
    csd_store_close(s);
    return newest;
}

int main(void) {
    const char *dir = csd_test_dir("test_check");
    char clean[4200], img[4200];
    snprintf(clean, sizeof clean, "%s/clean.img", dir);
    snprintf(img, sizeof img, "%s/work.img", dir);

    /* a clean image: two objects, an overwrite, a trim, a delete */
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    char err[512];
    CHECK(csd_ftl_format(clean, 1 << 20, &p, err, sizeof err) == 0);
    csd_ftl *f;
    CHECK(csd_ftl_open(&f, clean, NULL, err, sizeof err) == 0);
    uint64_t a, b, gone;
    CHECK(csd_ftl_obj_create(f, "alpha", &a) == 0);
    CHECK(csd_ftl_obj_create(f, "beta", &b) == 0);
    CHECK(csd_ftl_obj_create(f, "gone", &gone) == 0);
    uint8_t data[6 * 4096];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + 3);
    CHECK(csd_ftl_write(f, a, 0, data, sizeof data, NULL) == 0);
    CHECK(csd_ftl_write(f, b, 0, data, 5000, NULL) == 0);
    CHECK(csd_ftl_write(f, gone, 0, data, 3 * 4096, NULL) == 0);
    CHECK(csd_ftl_obj_delete(f, gone) == 0);
    CHECK(csd_ftl_trim(f, a, 4096, 4096, NULL) == 0);
    uint8_t newer[3 * 4096];
    memset(newer, 0xEE, sizeof newer);
    CHECK(csd_ftl_write(f, a, 2 * 4096, newer, sizeof newer, NULL) == 0);   /* the last group: pages 2..4 */
    uint64_t ppn_a0 = csd_ftl_lookup(f, a, 0), ppn_a3 = csd_ftl_lookup(f, a, 3);
    uint64_t ppn_b1 = csd_ftl_lookup(f, b, 1);
    CHECK(ppn_a0 != CSD_PPN_NONE && ppn_a3 != CSD_PPN_NONE && ppn_b1 != CSD_PPN_NONE);
    CHECK(csd_ftl_close(f) == 0);
    CHECK_EQ_INT(run_check(clean), 0);
    CHECK_CONTAINS(LOG, "note: 2 objects, 8 live pages (1 tombstones)");
    CHECK(!strstr(LOG, "problem"));
    csd_layout l = layout_of(clean);

    /* a flipped byte in a live data page: check names the object and page; reads fail with EIO */
    copy_file(clean, img);
    flip(img, l.data_off + ppn_a0 * l.page_bytes + 100);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "problem: object 'alpha' page 0: data checksum mismatch");
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    uint8_t buf[4096];
    CHECK_EQ_INT(csd_ftl_read(f, a, 0, buf, 10, NULL), -EIO);
    CHECK_EQ_INT(csd_ftl_read_ppn(f, ppn_a0, buf), -EIO);
    CHECK_EQ_INT(csd_ftl_read(f, a, 4096 * 5, buf, 10, NULL), 0);   /* other pages are fine */
    CHECK_EQ_INT(csd_ftl_write(f, a, 10, data, 10, NULL), -EIO);    /* read-modify-write of it too */
    CHECK(csd_ftl_close(f) == 0);

    /* one metadata slot torn: a note (open falls back to the other slot); both broken: a problem */
    for (int slot = 0; slot < 2; slot++) {
        copy_file(clean, img);
        flip(img, l.meta_off[slot] + CSD_META_HDR_BYTES + 5);
        CHECK_EQ_INT(run_check(img), 0);
        CHECK_CONTAINS(LOG, "note: metadata slot");
        CHECK_CONTAINS(LOG, "payload checksum mismatch");
        CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
        CHECK(csd_ftl_close(f) == 0);
    }
    /* the slot written last is torn: the previous table (before deleting "gone") comes back, and
     * "gone"'s pages are still there for it */
    copy_file(clean, img);
    int newest = newest_slot(img);
    flip(img, l.meta_off[newest] + 9);
    CHECK_EQ_INT(run_check(img), 0);
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_find(f, "gone", &id), 0);
    CHECK_EQ_INT(csd_ftl_read(f, id, 0, buf, 4096, NULL), 0);
    CHECK(!memcmp(buf, data, 4096));
    CHECK(csd_ftl_close(f) == 0);
    copy_file(clean, img);
    flip(img, l.meta_off[0] + 3);
    flip(img, l.meta_off[1] + CSD_META_HDR_BYTES + 1);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "problem: metadata: both slots are unusable");
    CHECK_EQ_INT(csd_ftl_open(&f, img, NULL, err, sizeof err), -EBADMSG);
    CHECK_CONTAINS(err, "both metadata slots are unreadable");

    /* superblock damage and truncation */
    copy_file(clean, img);
    flip(img, 30);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "problem: superblock");
    CHECK_EQ_INT(csd_ftl_open(&f, img, NULL, err, sizeof err), -EBADMSG);
    CHECK_CONTAINS(err, "checksum");
    copy_file(clean, img);
    CHECK(truncate(img, (off_t)(l.file_bytes - 4096)) == 0);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "truncated");
    CHECK_EQ_INT(csd_ftl_check("/nonexistent/x.img", keep_line, NULL), -ENOENT);

    /* a well-sealed superblock naming a policy this build lacks: open refuses it, so check must not
     * call it clean (found by fuzz_image) */
    copy_file(clean, img);
    {
        uint8_t sb[CSD_SB_BYTES];
        peek(img, 0, sb, sizeof sb);
        uint32_t tn = csd_get32(sb + 96);
        char *ftl = memmem(sb + CSD_SB_HEADER_BYTES, tn, "ftl = page", 10);
        CHECK(ftl != NULL);
        ftl[9] = 'X';
        csd_put32(sb + 100, csd_crc32(csd_crc32(0, sb, 100), sb + CSD_SB_HEADER_BYTES, tn));
        poke(img, 0, sb, sizeof sb);
    }
    LOG[0] = 0;
    CHECK_EQ_INT(csd_check(img, keep_line, NULL), 1);
    CHECK_CONTAINS(LOG, "problem: superblock params: ftl 'pagX' is unknown");
    CHECK_EQ_INT(csd_ftl_open(&f, img, NULL, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "unknown ftl 'pagX'");

    /* a damaged OOB record */
    copy_file(clean, img);
    flip(img, l.oob_off + ppn_b1 * CSD_OOB_BYTES + 20);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "OOB record: record checksum mismatch");
    copy_file(clean, img);
    uint8_t junk[CSD_OOB_BYTES];
    memset(junk, 0x77, sizeof junk);
    poke(img, l.oob_off + (l.physical_pages - 1) * CSD_OOB_BYTES, junk, sizeof junk);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "OOB record: bad magic");

    /* well-formed records that cannot be: an id that was never handed out, and a second copy of a
     * live version (same seq) whose data differs */
    uint8_t raw[CSD_OOB_BYTES];
    csd_oob r;
    peek(clean, l.oob_off + ppn_a3 * CSD_OOB_BYTES, raw, sizeof raw);
    CHECK_EQ_INT(csd_oob_decode(raw, l.page_bytes, &r), CSD_OOB_OK);
    CHECK_EQ_U64(r.obj, a);
    CHECK_EQ_U64(r.page, 3);
    copy_file(clean, img);
    csd_oob forged = r;
    forged.obj = 999;
    uint8_t enc[CSD_OOB_BYTES];
    csd_oob_encode(enc, &forged);
    uint64_t spare = l.physical_pages - 1;   /* never written on this small image */
    poke(img, l.oob_off + spare * CSD_OOB_BYTES, enc, sizeof enc);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "object id 999, which was never created");
    copy_file(clean, img);
    uint8_t other[4096];
    memset(other, 0x11, sizeof other);
    forged = r;
    forged.data_crc = csd_crc32(0, other, sizeof other);
    csd_oob_encode(enc, &forged);
    poke(img, l.data_off + spare * l.page_bytes, other, sizeof other);
    poke(img, l.oob_off + spare * CSD_OOB_BYTES, enc, sizeof enc);
    CHECK_EQ_INT(run_check(img), 1);
    CHECK_CONTAINS(LOG, "hold the same version");
    /* ... while an identical copy (what a crash inside GC leaves) is fine */
    copy_file(clean, img);
    uint8_t same[4096];
    peek(clean, l.data_off + ppn_a3 * l.page_bytes, same, sizeof same);
    poke(img, l.data_off + spare * l.page_bytes, same, sizeof same);
    poke(img, l.oob_off + spare * CSD_OOB_BYTES, raw, sizeof raw);
    CHECK_EQ_INT(run_check(img), 0);

    /* The newest write group (pages 2..4 of alpha) lost one record, as a crash between its records
     * leaves it: a note; open rolls the whole group back, so alpha pages 2..4 hold the old data. */
    copy_file(clean, img);
    uint8_t zero[CSD_OOB_BYTES] = { 0 };
    poke(img, l.oob_off + ppn_a3 * CSD_OOB_BYTES, zero, sizeof zero);
    CHECK_EQ_INT(run_check(img), 0);
    CHECK_CONTAINS(LOG, "note: the newest write group");
    CHECK_CONTAINS(LOG, "(2 of 3 pages): open rolls it back");
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    uint8_t back[3 * 4096];
    CHECK_EQ_INT(csd_ftl_read(f, a, 2 * 4096, back, sizeof back, NULL), 0);
    CHECK(!memcmp(back, data + 2 * 4096, sizeof back));
    /* a new write after the rollback takes newer sequence numbers; the rolled-back records stay
     * ignored across another reopen */
    CHECK_EQ_INT(csd_ftl_write(f, b, 0, newer, 100, NULL), 0);
    CHECK(csd_ftl_close(f) == 0);
    CHECK_EQ_INT(run_check(img), 0);
    CHECK_CONTAINS(LOG, "2 rolled-back records");
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    CHECK_EQ_INT(csd_ftl_read(f, a, 2 * 4096, back, sizeof back, NULL), 0);
    CHECK(!memcmp(back, data + 2 * 4096, sizeof back));
    CHECK_EQ_INT(csd_ftl_read(f, b, 0, back, 100, NULL), 0);
    CHECK(!memcmp(back, newer, 100));
    CHECK(csd_ftl_close(f) == 0);

    unlink(clean);
    unlink(img);
    rmdir(dir);
    TEST_OK("test_check");
}
