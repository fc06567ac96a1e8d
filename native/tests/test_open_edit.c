/* csd_open_opts.edit: a session's params edited inside the one open (the CLI's --set, the JNI's
 * key/value pairs), instead of an open to read the image's params and a second open with the result.
 * The hook sees the params stored in the image (or the override's), is called once, geometry comes
 * back from the image, a failing hook or invalid result fails the open with its errno and message,
 * and a device opened this way runs exactly as one opened with the same params as an override. */
#include <errno.h>

#include "config/config.h"
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

/* Every parameter as (key, value text), in the table's order. */
typedef struct kv_list { char key[96][48], val[96][CSD_PATH_MAX]; size_t n; } kv_list;
static void kv_add(void *arg, const char *key, const char *value, const char *unit) {
    kv_list *l = arg;
    (void)unit;
    CHECK(l->n < 96);
    snprintf(l->key[l->n], sizeof l->key[0], "%s", key);
    snprintf(l->val[l->n], sizeof l->val[0], "%s", value);
    l->n++;
}

/* The parameter table's "fixed at format" flags, and the open keeping exactly those: a session given
 * another preset's params entire keeps the image's value of every fixed key and takes the override's
 * of every other. */
static void fixed_at_format(const char *path, const csd_params *stored) {
    static const char *const want[] = { "channels", "chips_per_channel", "dies_per_chip", "planes_per_die",
                                        "pages_per_block", "page_bytes", "blocks_per_plane", "overprovision_pct",
                                        "max_objects", "ftl", "placement" };
    static kv_list image, over, got;
    memset(&image, 0, sizeof image);
    memset(&over, 0, sizeof over);
    memset(&got, 0, sizeof got);
    csd_params_visit(stored, kv_add, &image);
    size_t nfixed = 0;
    for (size_t i = 0; i < image.n; i++) {
        int f = csd_params_fixed(image.key[i]), listed = 0;
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) listed |= !strcmp(want[k], image.key[i]);
        CHECK_EQ_INT(f, listed);
        nfixed += (size_t)f;
    }
    CHECK_EQ_U64(nfixed, sizeof want / sizeof want[0]);
    CHECK_EQ_INT(csd_params_fixed("no_such_key"), -ENOENT);
    /* docs/DEVICE-CONFIG.md marks the same ones "(fixed at format)", each in its row */
    char doc[4200];
    snprintf(doc, sizeof doc, "%s/../docs/DEVICE-CONFIG.md", getenv("CSD_SRC") ? getenv("CSD_SRC") : ".");
    FILE *f = fopen(doc, "r");
    CHECK(f != NULL);
    static char line[8192];
    size_t rows = 0, fixed_rows = 0;
    while (fgets(line, sizeof line, f)) {
        char key[64];
        if (sscanf(line, "| `%63[a-z0-9_]` |", key) != 1) continue;
        int fixed = csd_params_fixed(key);
        if (fixed < 0) continue;   /* a table of another page section */
        if ((strstr(line, "(fixed at format)") != NULL) != fixed) fprintf(stderr, "DEVICE-CONFIG.md: %s\n", key);
        CHECK_EQ_INT(strstr(line, "(fixed at format)") != NULL, fixed);
        rows++;
        fixed_rows += (size_t)fixed;
    }
    fclose(f);
    CHECK(rows > nfixed);
    CHECK_EQ_U64(fixed_rows, nfixed);
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "smartssd-paper"), 0);
    snprintf(p.ftl, sizeof p.ftl, "dftl");
    snprintf(p.placement, sizeof p.placement, "level");
    p.dies_per_chip = p.planes_per_die = 2;   /* the presets share these */
    csd_params_visit(&p, kv_add, &over);
    csd_open_opts o = { .override = &p, .background = 0 };
    csd_device *d = NULL;
    char err[512];
    CHECK_EQ_INT(csd_device_open(&d, path, &o, err, sizeof err), 0);
    csd_params_visit(csd_device_params(d), kv_add, &got);
    CHECK_EQ_U64(got.n, image.n);
    size_t differ = 0;
    for (size_t i = 0; i < got.n; i++) {
        CHECK_STR(got.key[i], image.key[i]);
        CHECK_STR(got.val[i], csd_params_fixed(got.key[i]) ? image.val[i] : over.val[i]);
        differ += csd_params_fixed(got.key[i]) && strcmp(image.val[i], over.val[i]);
    }
    CHECK_EQ_U64(differ, nfixed);   /* the override asked for another value of every fixed key */
    CHECK(csd_device_close(d) == 0);
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
    fixed_at_format(path, &stored);
    printf("test_open_edit: ok\n");
    return 0;
}
