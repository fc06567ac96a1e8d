/* A grep2 job's answer does not depend on the chip policy, also while a host writer shares the chips:
 * on a 2pm-preset device, a log (lines longer than a page, CRLF, planted matches, no final line break)
 * is read by grep2 (mode=lines) in uneven splits all started together, as a job's map tasks; a writer
 * overwrites another object between polls of the splits' outputs, so programs, garbage collection and
 * the two-stage reads meet in the chip queues. Under every chip policy the rows (offset, line) equal
 * fcfs's, and fcfs's equal a brute-force scan of the log. */
#include <stdlib.h>
#include <string.h>

#include "devutil.h"

enum { LOG_BYTES = 6 << 20, NSPLIT = 7, WRITE_BYTES = 16 << 10, WRITER_SPAN = 8 << 20 };

typedef struct hit { uint64_t off; uint32_t len; uint8_t *line; } hit;
typedef struct hits { hit *v; size_t n, cap; } hits;

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void add(hits *h, uint64_t off, const uint8_t *line, size_t len) {
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 256;
        h->v = realloc(h->v, h->cap * sizeof *h->v);
        CHECK(h->v);
    }
    hit *x = &h->v[h->n++];
    x->off = off;
    x->len = (uint32_t)len;
    x->line = malloc(len ? len : 1);
    CHECK(x->line);
    memcpy(x->line, line, len);
}

static int by_off(const void *a, const void *b) {
    const hit *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Words without 'u' (so "timeout" is only where planted); one line in 40 holds "ERROR ... timeout",
 * one in 40 "ERROR" alone, one in 30 is 5-9 KiB long, one in 4 ends in CRLF. */
static uint8_t *make_log(size_t n) {
    uint8_t *b = malloc(n);
    CHECK(b);
    uint64_t s = 0x2b3, pos = 0;
    while (pos < n) {
        uint64_t r = rng(&s) % 120;
        uint64_t len = r < 4 ? 5000 + rng(&s) % 4000 : 20 + rng(&s) % 140;
        uint64_t end = pos + len < n ? pos + len : n;
        const char *head = r % 40 == 1 ? "ERROR at timeout" : r % 40 == 2 ? "ERROR" : "";
        uint64_t q = pos;
        if (*head && end - pos > 30) {
            uint64_t lead = rng(&s) % 8;
            for (uint64_t i = 0; i < lead; i++) b[q++] = 'k';
            memcpy(b + q, head, strlen(head));
            q += strlen(head);
        }
        while (q + 2 < end) {
            uint8_t c = (uint8_t)('a' + rng(&s) % 26);
            b[q++] = c == 'u' ? ' ' : c;
        }
        if (q + 2 == end) b[q++] = rng(&s) % 4 == 0 ? '\r' : 'z';
        if (q < end) b[q++] = '\n';
        pos = end;
    }
    b[n - 1] = 'y'; /* no final line break */
    return b;
}

/* The lines holding ERROR and then timeout (grep2's start.*end), by the LINES rules. */
static void reference(const uint8_t *b, size_t n, hits *out) {
    size_t at = 0;
    while (at < n) {
        const uint8_t *nl = memchr(b + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - (b + at)) : n - at;
        size_t l = len && b[at + len - 1] == '\r' ? len - 1 : len;
        const uint8_t *e = memmem(b + at, l, "ERROR", 5);
        if (e && memmem(e + 5, l - (size_t)(e + 5 - (b + at)), "timeout", 7)) add(out, at, b + at, l);
        at += len + 1;
    }
}

/* Appends the rows of one read_object reply (varint length + Row each). */
static void parse_rows(const uint8_t *p, size_t n, hits *out) {
    size_t i = 0;
    while (i < n) {
        uint64_t len = 0;
        int shift = 0;
        while (i < n) {
            uint8_t c = p[i++];
            len |= (uint64_t)(c & 0x7f) << shift;
            shift += 7;
            if (!(c & 0x80)) break;
        }
        CHECK(i + len <= n);
        Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, len, p + i);
        CHECK(row && row->n_values == 2);
        add(out, (uint64_t)row->values[0]->i, row->values[1]->s.data, row->values[1]->s.len);
        smartssd__v1__row__free_unpacked(row, NULL);
        i += len;
    }
}

/* Reads what split's output holds now; 1 when the split is done. */
static int poll_split(csd_device *d, uint64_t output, hits *out) {
    Smartssd__V1__Response *r = dev_read(d, output, 0, 1 << 20);
    CHECK(r->status == 0 && r->read_object && r->read_object->progress);
    parse_rows(r->read_object->data.data, r->read_object->data.len, out);
    int done = r->read_object->progress->done;
    if (done) CHECK(r->read_object->progress->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    return done;
}

/* One write command; its device time (the command's own virtual time). */
static uint64_t write_cmd(csd_device *d, uint64_t id, uint64_t off, uint8_t *buf, size_t n) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.offset = off;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    csd_payload pl = { .in = buf, .in_len = n };
    Smartssd__V1__Response *r = dev_call(d, &req, &pl);
    CHECK(r->status == 0);
    uint64_t ns = r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    return ns;
}

static void run_job(const char *image, const csd_params *base, const char *policy, uint64_t log_id,
                    uint64_t sink, hits *out) {
    csd_params ov = *base;
    snprintf(ov.chip_scheduler, sizeof ov.chip_scheduler, "%s", policy);
    char err[512];
    csd_device *d;
    csd_open_opts o = { .override = &ov, .background = 0 };
    CHECK(csd_device_open(&d, image, &o, err, sizeof err) == 0);
    const char *kv[] = { "start=ERROR", "end=timeout", "mode=lines", NULL };
    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep2", kv, NULL);
    CHECK(r->status == 0);
    uint64_t tasklet = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    /* uneven splits, cutting pages and lines */
    static const uint64_t cut[NSPLIT + 1] = { 0, 100001, 1048576, 1400000, 2097153, 3800003, 5000000, LOG_BYTES };
    uint64_t outputs[NSPLIT];
    int done[NSPLIT] = { 0 };
    for (int i = 0; i < NSPLIT; i++) { /* a job's map tasks start together */
        outputs[i] = dev_create_output(d, 0);
        r = dev_execute(d, tasklet, outputs[i], log_id, cut[i], cut[i + 1] - cut[i], 0);
        CHECK(r->status == 0);
        smartssd__v1__response__free_unpacked(r, NULL);
    }
    uint8_t *wbuf = calloc(1, WRITE_BYTES);
    CHECK(wbuf);
    uint64_t woff = 0, first_write_ns = 0;
    for (int k = 0, left = NSPLIT; left > 0; k++) {
        if (k < LOG_BYTES / WRITE_BYTES) { /* the writer: one command, then a map task polls */
            wbuf[0] = (uint8_t)k;
            uint64_t ns = write_cmd(d, sink, woff, wbuf, WRITE_BYTES);
            if (!k) first_write_ns = ns;
            woff = (woff + WRITE_BYTES) % WRITER_SPAN;
        }
        int i = k % NSPLIT;
        if (!done[i] && poll_split(d, outputs[i], out)) {
            done[i] = 1;
            left--;
        }
    }
    /* the splits ran beside the writer: its first command shared the chip queues with their reads, so it
     * took longer than one on an idle device */
    uint64_t lone_ns = write_cmd(d, sink, woff, wbuf, WRITE_BYTES);
    if (first_write_ns < 2 * lone_ns) {
        fprintf(stderr, "%s: first write %llu ns, alone %llu ns: the splits did not meet the writer\n", policy,
                (unsigned long long)first_write_ns, (unsigned long long)lone_ns);
        exit(1);
    }
    free(wbuf);
    CHECK(csd_device_close(d) == 0);
    qsort(out->v, out->n, sizeof *out->v, by_off);
}

static void check_same(const hits *a, const hits *b, const char *what) {
    if (a->n != b->n) {
        fprintf(stderr, "%s: %zu rows, expected %zu\n", what, a->n, b->n);
        exit(1);
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->v[i].off != b->v[i].off || a->v[i].len != b->v[i].len || memcmp(a->v[i].line, b->v[i].line, a->v[i].len)) {
            fprintf(stderr, "%s: row %zu at offset %llu differs\n", what, i, (unsigned long long)a->v[i].off);
            exit(1);
        }
    }
}

static void free_hits(hits *h) {
    for (size_t i = 0; i < h->n; i++) free(h->v[i].line);
    free(h->v);
    *h = (hits){ 0 };
}

int main(void) {
    const char *tmp = getenv("CSD_TEST_TMP");
    char dir[4096], image[4200], err[512];
    snprintf(dir, sizeof dir, "%s", tmp ? tmp : "/tmp");
    mkdir(dir, 0700);   /* a fresh build tree's scratch directory may not exist yet */
    snprintf(image, sizeof image, "%s/grep2-jobs-%d.img", dir, (int)getpid());
    csd_params p;
    CHECK(csd_params_preset(&p, "2pm") == 0);
    dev_test_threads(&p);
    unlink(image);
    CHECK(csd_format(image, 128u << 20, &p, err, sizeof err) == 0);
    uint8_t *log = make_log(LOG_BYTES);
    uint64_t log_id, sink;
    {
        csd_device *d;
        csd_open_opts o = { .background = 0 };
        CHECK(csd_device_open(&d, image, &o, err, sizeof err) == 0);
        log_id = dev_create_data(d, "log");
        sink = dev_create_data(d, "writer");
        for (uint64_t off = 0; off < LOG_BYTES; off += 1u << 20) dev_write(d, log_id, off, log + off, 1u << 20);
        CHECK(csd_device_close(d) == 0);
    }
    hits ref = { 0 }, base = { 0 };
    reference(log, LOG_BYTES, &ref);
    CHECK(ref.n > 100);
    run_job(image, &p, "fcfs", log_id, sink, &base);
    check_same(&base, &ref, "fcfs against the log");
    static const char *const policies[] = { "paq", "readfirst", "2pm", "2pm+", "slacker", "cars", "flin", "flin-src" };
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
        hits h = { 0 };
        run_job(image, &p, policies[i], log_id, sink, &h);
        check_same(&h, &base, policies[i]);
        free_hits(&h);
    }
    free_hits(&ref);
    free_hits(&base);
    free(log);
    unlink(image);
    TEST_OK("test_grep2_jobs");
}
