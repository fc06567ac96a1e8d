/* csd_open_opts.edit: a session's params edited inside the one open (the CLI's --set, the JNI's
 * key/value pairs), instead of an open to read the image's params and a second open with the result.
 * The hook sees the params stored in the image (or the override's), is called once, geometry comes
 * back from the image, a failing hook or invalid result fails the open with its errno and message,
 * and a device opened this way runs exactly as one opened with the same params as an override. */
#include <errno.h>

#include "devutil.h"
#include "host/settings.h"

typedef struct {
    int calls;
    csd_params seen;
    uint64_t t_read_ns;
    uint32_t host_threads;   /* what the hook sets */
    int fail;                       /* the hook's errno, 0 = none */
    int bad_page_bytes;             /* also tries to change the geometry */
} edit_ctx;

static int edit(void *arg, csd_params *p, char *err, size_t errlen) {
    edit_ctx *x = arg;
    x->calls++;
    x->seen = *p;
    if (x->fail) {
        snprintf(err, errlen, "refused by the hook");
        return -x->fail;
    }
    if (x->t_read_ns) p->t_read_ns = x->t_read_ns;
    if (x->host_threads != UINT32_MAX) CSD_HOST_THREADS(p) = x->host_threads;
    if (x->bad_page_bytes) p->page_bytes *= 2;
    return 0;
}

static csd_device *open_edit(const char *path, const csd_params *override, edit_ctx *x, int *rc, char *err) {
    csd_open_opts o = { .override = override, .edit = x ? edit : NULL, .edit_arg = x };
    csd_device *d = NULL;
    *rc = csd_device_open(&d, path, &o, err, 512);
    return d;
}

/* device time of a count grep over the 256 KiB object: depends on the flash's read time */
static uint64_t grep_ns(csd_device *d, uint64_t obj) {
    const char *kv[] = { "pattern=hit", "mode=count", NULL };
    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", kv, NULL);
    CHECK(r->status == 0);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t o = dev_create_output(d, 0);
    r = dev_execute(d, t, o, obj, 0, 0, 1);
    CHECK_EQ_INT(r->status, CSD_OK);
    uint64_t ns = 0, rows = 0;
    smartssd__v1__response__free_unpacked(r, NULL);
    /* no device thread: the request advances inside these reads, the same way every time */
    for (int polls = 0;; polls++) {
        CHECK(polls < 100000);
        r = dev_read(d, o, 0, 0);
        CHECK_EQ_INT(r->status, CSD_OK);
        ns = r->read_object->progress->device_ns;
        rows = r->read_object->progress->rows;
        int done = r->read_object->progress->done;
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    CHECK_EQ_U64(rows, 1);   /* count mode: one row, the count */
    dev_delete(d, t);
    dev_delete(d, o);
    return ns;
}

int main(void) {
    const char *dir = csd_test_dir("open_edit");
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/dev.img", dir);
    csd_device *d = dev_fresh(dir, "tiny", 4u << 20, 0);
    uint64_t obj = dev_create_data(d, "lines.txt");
    static char buf[256 << 10];
    for (size_t i = 0; i < sizeof buf; i += 8) memcpy(buf + i, i % 24 ? "mis 123\n" : "hit 123\n", 8);
    dev_write(d, obj, 0, buf, sizeof buf);
    const csd_params stored = *csd_device_params(d);
    const uint64_t stored_ns = grep_ns(d, obj);
    CHECK(csd_device_close(d) == 0);

    /* the hook sees the stored params, once; its edits hold, the geometry stays the image's */
    const uint64_t slow = stored.t_read_ns * 2, slower = stored.t_read_ns * 3;
    edit_ctx x = { .t_read_ns = slow, .host_threads = UINT32_MAX, .bad_page_bytes = 1 };
    int rc;
    d = open_edit(path, NULL, &x, &rc, err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(x.calls, 1);
    CHECK_EQ_U64(x.seen.t_read_ns, stored.t_read_ns);
    CHECK_EQ_U64(x.seen.page_bytes, stored.page_bytes);
    CHECK_EQ_U64(CSD_HOST_THREADS(&x.seen), CSD_HOST_THREADS(&stored));
    CHECK_STR(x.seen.request_scheduler, stored.request_scheduler);
    CHECK_EQ_U64(csd_device_params(d)->t_read_ns, slow);
    CHECK_EQ_U64(csd_device_params(d)->page_bytes, stored.page_bytes);
    const uint64_t edited_ns = grep_ns(d, obj);
    CHECK(csd_device_close(d) == 0);
    CHECK(edited_ns != stored_ns);   /* slower reads than the image's: the edit took effect */

    /* the same params given as an override run the same, to the nanosecond */
    csd_params p = stored;
    p.t_read_ns = slow;
    d = open_edit(path, &p, NULL, &rc, err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_U64(grep_ns(d, obj), edited_ns);
    CHECK(csd_device_close(d) == 0);

    /* with an override too, the hook edits the override's params */
    p = stored;
    p.t_read_ns = slower;
    x = (edit_ctx){ .host_threads = 2 };
    d = open_edit(path, &p, &x, &rc, err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(x.calls, 1);
    CHECK_EQ_U64(x.seen.t_read_ns, slower);
    CHECK_EQ_U64(csd_device_params(d)->t_read_ns, slower);
    CHECK_EQ_U64(CSD_HOST_THREADS(csd_device_params(d)), 2);
    /* two host threads, the same device time as the override alone (one thread) */
    const uint64_t three_ns = grep_ns(d, obj);
    CHECK(csd_device_close(d) == 0);
    d = open_edit(path, &p, NULL, &rc, err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_U64(grep_ns(d, obj), three_ns);
    CHECK(csd_device_close(d) == 0);

    /* a failing hook fails the open with its errno and message; the image opens again afterwards */
    x = (edit_ctx){ .host_threads = UINT32_MAX, .fail = EINVAL };
    d = open_edit(path, NULL, &x, &rc, err);
    CHECK(d == NULL);
    CHECK_EQ_INT(rc, -EINVAL);
    CHECK_STR(err, "refused by the hook");
    /* params the hook leaves invalid are refused as an override's are */
    x = (edit_ctx){ .host_threads = 0 };
    d = open_edit(path, NULL, &x, &rc, err);
    CHECK(d == NULL);
    CHECK(rc < 0);
    CHECK_CONTAINS(err, "host_threads must be 1..64");
    d = open_edit(path, NULL, NULL, &rc, err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_U64(csd_device_params(d)->t_read_ns, stored.t_read_ns);   /* nothing of a session is kept */
    CHECK_EQ_U64(grep_ns(d, obj), stored_ns);
    dev_still_serving(d);
    CHECK(csd_device_close(d) == 0);
    printf("test_open_edit: ok\n");
    return 0;
}
