/* Whole-device tests through command packets: exact virtual times of small commands derived by hand
 * from the tiny preset, several devices in one process, restart persistence, background mode. */
#include "devutil.h"

/* tiny preset: cmd_overhead 5000 ns; host link and channel 4096 B in 10000 ns; t_read 10000;
 * t_prog 100000; firmware 1000 ns per page. */
static void exact_times(const char *dir) {
    csd_device *d = dev_fresh(dir, "tiny", 4u << 20, 0);
    uint64_t id = dev_create_data(d, "one-page");
    uint8_t page[4096];
    for (size_t i = 0; i < sizeof page; i++) page[i] = (uint8_t)(i * 7);

    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.data.data = page;
    w.data.len = sizeof page;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    CHECK(r->status == 0);
    /* overhead 5000 + link in 10000 + firmware 1000 + channel in 10000 + program 100000 */
    CHECK_EQ_U64(r->device_ns, 5000 + 10000 + 1000 + 10000 + 100000);
    smartssd__v1__response__free_unpacked(r, NULL);

    r = dev_read(d, id, 0, sizeof page);
    CHECK(r->status == 0);
    CHECK(r->read_object->data.len == sizeof page && !memcmp(r->read_object->data.data, page, sizeof page));
    /* overhead 5000 + read 10000 + channel out 10000 + firmware 1000 + link out 10000 */
    CHECK_EQ_U64(r->device_ns, 5000 + 10000 + 10000 + 1000 + 10000);
    uint64_t clock = r->device_clock_ns;
    smartssd__v1__response__free_unpacked(r, NULL);

    /* A command with no flash work costs the overhead alone, and the clock moves by exactly that. */
    Smartssd__V1__Identify idn = SMARTSSD__V1__IDENTIFY__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY;
    req.identify = &idn;
    r = dev_call(d, &req, NULL);
    CHECK_EQ_U64(r->device_ns, 5000);
    CHECK_EQ_U64(r->device_clock_ns, clock + 5000);
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(csd_device_close(d) == 0);
}

/* Two devices in one process do not share anything. */
static void two_devices(const char *dir) {
    char d1[4200], d2[4200];
    snprintf(d1, sizeof d1, "%s/one", dir);
    snprintf(d2, sizeof d2, "%s/two", dir);
    mkdir(d1, 0700);
    mkdir(d2, 0700);
    csd_device *a = dev_fresh(d1, "tiny", 4u << 20, 1);
    csd_device *b = dev_fresh(d2, "smartssd-paper", 16u << 20, 1);
    uint64_t ia = dev_create_data(a, "same-name");
    uint64_t ib = dev_create_data(b, "same-name");
    dev_write(a, ia, 0, "AAAA", 4);
    dev_write(b, ib, 0, "BBBBBBBB", 8);
    Smartssd__V1__Response *r = dev_read(a, ia, 0, 100);
    CHECK(r->read_object->data.len == 4 && !memcmp(r->read_object->data.data, "AAAA", 4));
    smartssd__v1__response__free_unpacked(r, NULL);
    r = dev_read(b, ib, 0, 100);
    CHECK(r->read_object->data.len == 8 && !memcmp(r->read_object->data.data, "BBBBBBBB", 8));
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(csd_device_params(a)->page_bytes == 4096 && csd_device_params(b)->page_bytes == 8192);
    CHECK(csd_device_close(a) == 0);
    CHECK(csd_device_close(b) == 0);
}

/* Data survives a clean close and reopen; volatile tasklet objects do not. */
static void restart(const char *dir) {
    csd_device *d = dev_fresh(dir, "tiny", 4u << 20, 0);
    uint64_t id = dev_create_data(d, "persist");
    char buf[10000];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)('a' + i % 26);
    dev_write(d, id, 0, buf, sizeof buf);
    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", (const char *const[]){ "pattern=abc", NULL }, NULL);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK(csd_device_close(d) == 0);

    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/dev.img", dir);
    csd_open_opts o = { .background = 0 };
    CHECK(csd_device_open(&d, path, &o, err, sizeof err) == 0);
    r = dev_read(d, id, 0, sizeof buf);
    CHECK(r->status == 0 && r->read_object->data.len == sizeof buf && !memcmp(r->read_object->data.data, buf, sizeof buf));
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(dev_read(d, t, 0, 0), CSD_NOT_FOUND, "no object");
    CHECK(csd_device_close(d) == 0);
}

/* With the device thread, a run advances without being polled, and polling sees monotone progress. */
static void background_run(const char *dir) {
    csd_device *d = dev_fresh(dir, "tiny", 8u << 20, 1);
    uint64_t id = dev_create_data(d, "text");
    size_t n = 2u << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++) text[i] = (i % 64 == 63) ? '\n' : (char)('a' + i % 23);
    dev_write(d, id, 0, text, n);
    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", (const char *const[]){ "pattern=abc", NULL }, NULL);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t out = dev_create_output(d, 0);
    r = dev_execute(d, t, out, id, 0, 0, 1);
    CHECK(r->status == 0);
    uint64_t total = r->execute_object->pages_total;
    CHECK_EQ_U64(total, n / 4096);
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t last = 0, count = 0;
    for (int polls = 0;; polls++) {
        CHECK(polls < 100000);
        r = dev_read(d, out, 0, 0);
        CHECK(r->status == 0);
        Smartssd__V1__Progress *p = r->read_object->progress;
        CHECK(p->pages_done >= last);
        last = p->pages_done;
        if (r->read_object->data.len) count++;
        int done = p->done;
        if (done) CHECK_EQ_U64(p->pages_done, total);
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
        usleep(200);
    }
    CHECK(count == 1);
    free(text);
    CHECK(csd_device_close(d) == 0);
}

/* The device thread pauses when an output's buffer is half full and resumes when the host reads, so
 * results larger than the buffer (tiny: 1 MiB) arrive whole. */
static void background_backpressure(const char *dir) {
    csd_device *d = dev_fresh(dir, "tiny", 8u << 20, 1);
    uint64_t id = dev_create_data(d, "lines");
    size_t n = 4u << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++) text[i] = (i % 32 == 31) ? '\n' : 'x';
    dev_write(d, id, 0, text, n);
    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", (const char *const[]){ "pattern=x", "mode=lines", NULL }, NULL);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t out = dev_create_output(d, 0);
    r = dev_execute(d, t, out, id, 0, 0, 1);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    usleep(100000);   /* let the device thread run into the full buffer */
    uint64_t bytes = 0;
    for (int polls = 0;; polls++) {
        CHECK(polls < 1000000);
        r = dev_read(d, out, 0, 0);
        CHECK(r->status == 0);
        bytes += r->read_object->data.len;
        Smartssd__V1__Progress *p = r->read_object->progress;
        CHECK(!p->finished || p->status == 0);
        int done = p->done;
        if (done) CHECK_EQ_U64(p->rows, n / 32);
        smartssd__v1__response__free_unpacked(r, NULL);
        if (done) break;
    }
    CHECK(bytes > (2u << 20));
    free(text);
    CHECK(csd_device_close(d) == 0);
}

int main(void) {
    const char *dir = csd_test_dir("device");
    exact_times(dir);
    two_devices(dir);
    restart(dir);
    background_run(dir);
    background_backpressure(dir);
    TEST_OK("test_device");
}
