/* Full and exhausted devices: writes until the device is full (NO_SPACE, nothing of the refused write
 * stored), more objects than the table holds, a table whose long names fill its metadata slot, and the
 * host file system under the (sparse) image running out. Each time: a clear error, everything already
 * acknowledged intact, the image clean, and the room back once something is deleted. */
#include <errno.h>
#include <sys/mount.h>

#include "devutil.h"

static int problems;
static void keep_line(void *arg, const char *line) {
    (void)arg;
    if (!strncmp(line, "problem", 7)) {
        fprintf(stderr, "check: %s\n", line);
        problems++;
    }
}

static void fill(uint8_t *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

static Smartssd__V1__Response *write_at(csd_device *d, uint64_t id, uint64_t off, const void *data, size_t n) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.offset = off;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    csd_payload pl = { .in = data, .in_len = n };
    return dev_call(d, &req, &pl);
}

static Smartssd__V1__Response *create(csd_device *d, const char *name) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = (char *)name;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    return dev_call(d, &req, NULL);
}

static void delete(csd_device *d, uint64_t id) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__DeleteObject del = SMARTSSD__V1__DELETE_OBJECT__INIT;
    del.object_id = id;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_DELETE_OBJECT;
    req.delete_object = &del;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_OK, "");
}

static void expect_bytes(csd_device *d, uint64_t id, const uint8_t *want, size_t n) {
    Smartssd__V1__Response *r = dev_read(d, id, 0, n + 1);
    CHECK(r->status == 0);
    CHECK_EQ_U64(r->read_object->data.len, n);
    CHECK(!memcmp(r->read_object->data.data, want, n));
    smartssd__v1__response__free_unpacked(r, NULL);
}

static csd_device *reopen(const char *img) {
    char err[512];
    csd_device *d;
    csd_open_opts o = { .background = 0 };
    if (csd_device_open(&d, img, &o, err, sizeof err)) {
        fprintf(stderr, "open %s: %s\n", img, err);
        exit(1);
    }
    return d;
}

static void check_clean(const char *img) {
    problems = 0;
    CHECK(csd_check(img, keep_line, NULL) == 0);
    CHECK_EQ_INT(problems, 0);
}

/* ---- the device's own capacity */
static void device_full(const char *dir) {
    csd_device *d = dev_fresh(dir, "tiny", 1u << 20, 0);   /* 256 pages of 4 KiB */
    char img[4200];
    snprintf(img, sizeof img, "%s/dev.img", dir);
    static uint8_t a[300 << 10], b[1 << 20];
    fill(a, sizeof a, 1);
    fill(b, sizeof b, 2);
    uint64_t ida = dev_create_data(d, "a");
    dev_write(d, ida, 0, a, sizeof a);
    uint64_t idb = dev_create_data(d, "b");
    size_t acked = 0, chunk = 100 << 10;
    for (;;) {
        Smartssd__V1__Response *r = write_at(d, idb, acked, b + acked, chunk);
        if (r->status) {
            CHECK_EQ_INT(r->status, CSD_NO_SPACE);
            CHECK_CONTAINS(r->message, "write_object: device full (capacity 1048576 bytes); nothing of this write was stored");
            smartssd__v1__response__free_unpacked(r, NULL);
            break;
        }
        CHECK_EQ_U64(r->write_object->size, acked + chunk);
        smartssd__v1__response__free_unpacked(r, NULL);
        acked += chunk;
    }
    CHECK_EQ_U64(acked, 700 << 10);   /* 300 KiB of a + 700 KiB of b; 100 KiB more would exceed 1 MiB */
    /* a write that fits in what is left still works, byte for byte up to the last page */
    size_t left = (1u << 20) - (300u << 10) - acked;
    Smartssd__V1__Response *r = write_at(d, idb, acked, b + acked, left);
    EXPECT_STATUS(r, CSD_OK, "");
    acked += left;
    r = write_at(d, idb, acked, b + acked, 1);
    EXPECT_STATUS(r, CSD_NO_SPACE, "device full");
    expect_bytes(d, ida, a, sizeof a);
    expect_bytes(d, idb, b, acked);
    CHECK(csd_device_close(d) == 0);
    check_clean(img);
    /* after a reopen the same; deleting gives the room back */
    d = reopen(img);
    expect_bytes(d, idb, b, acked);
    delete(d, ida);
    uint64_t idc = dev_create_data(d, "c");
    dev_write(d, idc, 0, a, sizeof a);
    expect_bytes(d, idc, a, sizeof a);
    expect_bytes(d, idb, b, acked);
    CHECK(csd_device_close(d) == 0);
    check_clean(img);
}

/* ---- more objects than the table holds, and a table of long names that fills its slot */
static void table_full(const char *dir) {
    char img[4200], err[512];
    snprintf(img, sizeof img, "%s/tab.img", dir);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    dev_test_threads(&p);
    p.max_objects = 8;
    CHECK(csd_format(img, 1u << 20, &p, err, sizeof err) == 0);
    csd_device *d = reopen(img);
    uint64_t ids[8];
    char name[32];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "o%d", i);
        ids[i] = dev_create_data(d, name);
        dev_write(d, ids[i], 0, name, strlen(name));
    }
    Smartssd__V1__Response *r = create(d, "one-too-many");
    EXPECT_STATUS(r, CSD_RESOURCE_EXHAUSTED, "create_object: object table full (8 objects)");
    delete(d, ids[3]);
    ids[3] = dev_create_data(d, "one-too-many");
    for (int i = 0; i < 8; i++) {
        if (i == 3) continue;
        snprintf(name, sizeof name, "o%d", i);
        expect_bytes(d, ids[i], (const uint8_t *)name, strlen(name));
    }
    CHECK(csd_device_close(d) == 0);
    check_clean(img);

    /* 1024-byte names: the slot is sized for the first table format (18 + 1024 bytes an entry, plus
     * room for 256 rolled-back ranges), entries now take 42 + 1024, so with max_objects = 1024 (tiny)
     * the slot of roundup4096(56 + 4096 + 1024 * 1042) = 1073152 bytes holds (1073152 - 56) / 1066 =
     * 1006 of them; the 1007th is refused */
    char img2[4300];
    snprintf(img2, sizeof img2, "%s/names.img", dir);
    CHECK(csd_params_preset(&p, "tiny") == 0);
    dev_test_threads(&p);
    CHECK(csd_format(img2, 1u << 20, &p, err, sizeof err) == 0);
    d = reopen(img2);
    char longname[1025];
    int made = 0;
    for (int i = 0; i < 1024; i++) {
        memset(longname, 'a', 1024);
        snprintf(longname, sizeof longname, "%04d", i);
        longname[4] = 'a';
        longname[1024] = 0;   /* snprintf's terminator was overwritten above */
        r = create(d, longname);
        if (r->status) {
            CHECK_EQ_INT(r->status, CSD_NO_SPACE);
            CHECK_CONTAINS(r->message, "create_object: the object table's metadata slot is full");
            smartssd__v1__response__free_unpacked(r, NULL);
            break;
        }
        smartssd__v1__response__free_unpacked(r, NULL);
        made++;
    }
    CHECK_EQ_INT(made, 1006);
    dev_still_serving(d);
    CHECK(csd_device_close(d) == 0);
    check_clean(img2);
    d = reopen(img2);
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ListObjects lo = SMARTSSD__V1__LIST_OBJECTS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_LIST;
    req.list = &lo;
    r = dev_call(d, &req, NULL);
    CHECK(r->status == 0);
    CHECK_EQ_U64(r->list->n_objects, 1006);
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(csd_device_close(d) == 0);
}

/* ---- the host file system under the image runs out (a 2 MiB tmpfs under an 8 MiB sparse image) */
static void host_full(const char *dir) {
    char mnt[4200], img[4300], err[512];
    snprintf(mnt, sizeof mnt, "%s/small-fs", dir);
    mkdir(mnt, 0700);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=2m")) {
        printf("test_full: host file system full: skipped (mounting a tmpfs needs root: %s)\n", strerror(errno));
        return;
    }
    snprintf(img, sizeof img, "%s/dev.img", mnt);
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    dev_test_threads(&p);
    CHECK(csd_format(img, 8u << 20, &p, err, sizeof err) == 0);
    csd_device *d = reopen(img);
    static uint8_t a[1 << 20], b[4 << 20];
    fill(a, sizeof a, 3);
    fill(b, sizeof b, 4);
    uint64_t ida = dev_create_data(d, "a");
    dev_write(d, ida, 0, a, sizeof a);
    uint64_t idb = dev_create_data(d, "b");
    size_t acked = 0, chunk = 64 << 10;
    Smartssd__V1__Response *r;
    for (;;) {
        r = write_at(d, idb, acked, b + acked, chunk);
        if (r->status) break;
        smartssd__v1__response__free_unpacked(r, NULL);
        acked += chunk;
        CHECK(acked < sizeof b);
    }
    CHECK_EQ_INT(r->status, CSD_NO_SPACE);
    CHECK_CONTAINS(r->message, "the file system holding the image is full");
    CHECK_CONTAINS(r->message, "now holds");
    smartssd__v1__response__free_unpacked(r, NULL);
    /* what was acknowledged is there; the refused write's own groups may have left a prefix */
    expect_bytes(d, ida, a, sizeof a);
    r = dev_read(d, idb, 0, acked);
    CHECK(r->status == 0 && r->read_object->data.len == acked && !memcmp(r->read_object->data.data, b, acked));
    smartssd__v1__response__free_unpacked(r, NULL);
    /* creating an object needs a table write: also full, also said so */
    dev_still_serving(d);
    /* room on the host disk (as the message says; a delete on the device frees host disk only once
     * garbage collection erases the blocks) and the same write goes through */
    CHECK(mount("tmpfs", mnt, "tmpfs", MS_REMOUNT, "size=16m") == 0);
    r = write_at(d, idb, acked, b + acked, chunk);
    EXPECT_STATUS(r, CSD_OK, "");
    acked += chunk;
    delete(d, ida);
    CHECK(csd_device_close(d) == 0);
    check_clean(img);
    d = reopen(img);
    r = dev_read(d, idb, 0, acked);
    CHECK(r->status == 0 && r->read_object->data.len == acked && !memcmp(r->read_object->data.data, b, acked));
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(csd_device_close(d) == 0);
    CHECK(umount(mnt) == 0);
}

int main(void) {
    const char *dir = csd_test_dir("full");
    device_full(dir);
    table_full(dir);
    host_full(dir);
    TEST_OK("test_full");
}
