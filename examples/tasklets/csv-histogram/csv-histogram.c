/* csv-histogram: how often each value of one column of a delimited text file occurs.
 * Params: column (0-based, required), delimiter (one byte, default ','), skip_header (0/1).
 * Framing: lines. Fields are cut at every delimiter (no quoting); a line without that column counts
 * under the empty value. Rows at finish: (value STRING, count INT64) in byte order of the value;
 * counts are partial per extent (sum the rows of several extents). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <smartssd/tasklet.h>

typedef struct entry {
    char *value;
    size_t len;
    int64_t count;
    uint64_t hash;
} entry;

typedef struct hist {
    unsigned column;
    char delim;
    entry *slots;            /* open addressing, power-of-two size */
    size_t cap, used;
} hist;

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int grow(hist *h) {
    size_t cap = h->cap ? h->cap * 2 : 64;
    entry *s = calloc(cap, sizeof *s);
    if (!s) return -ENOMEM;
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->slots[i].value) continue;
        size_t j = h->slots[i].hash & (cap - 1);
        while (s[j].value) j = (j + 1) & (cap - 1);
        s[j] = h->slots[i];
    }
    free(h->slots);
    h->slots = s;
    h->cap = cap;
    return 0;
}

static int add(hist *h, const uint8_t *v, size_t n) {
    if ((h->used + 1) * 2 > h->cap && grow(h)) return -ENOMEM;
    uint64_t hv = hash_bytes(v, n);
    size_t j = hv & (h->cap - 1);
    while (h->slots[j].value) {
        entry *e = &h->slots[j];
        if (e->hash == hv && e->len == n && !memcmp(e->value, v, n)) {
            e->count++;
            return 0;
        }
        j = (j + 1) & (h->cap - 1);
    }
    char *copy = malloc(n + 1);
    if (!copy) return -ENOMEM;
    memcpy(copy, v, n);
    copy[n] = 0;
    h->slots[j] = (entry){ copy, n, 1, hv };
    h->used++;
    return 0;
}

static int h_init(void **out, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    const char *col = csd_args_get(a, "column"), *d = csd_args_get(a, "delimiter"),
               *sh = csd_args_get(a, "skip_header");
    char *end = NULL;
    unsigned long c = col ? strtoul(col, &end, 10) : 0;
    if (!col || !*col || *end || c > 65535) {
        snprintf(err, errlen, "param column: give the 0-based column to count (0..65535)");
        csd_args_reject(a, "column");
        return -EINVAL;
    }
    if (d && strlen(d) != 1) {
        snprintf(err, errlen, "param delimiter: '%s' is not one byte", d);
        csd_args_reject(a, "delimiter");
        return -EINVAL;
    }
    hist *h = calloc(1, sizeof *h);
    if (!h) return -ENOMEM;
    h->column = (unsigned)c;
    h->delim = d ? d[0] : ',';
    fr->kind = CSD_FRAMING_LINES;
    fr->skip_header = sh && (!strcmp(sh, "1") || !strcmp(sh, "true"));
    *out = h;
    return 0;
}

static int h_record(void *st, csd_tasklet_io *io, const uint8_t *line, size_t len, uint64_t off) {
    hist *h = st;
    size_t start = 0;
    unsigned f = 0;
    while (f < h->column) {
        const uint8_t *d = memchr(line + start, h->delim, len - start);
        if (!d) return add(h, line, 0) ? (csd_io_fail(io, "out of memory"), -ENOMEM) : 0;
        start = (size_t)(d - line) + 1;
        f++;
    }
    const uint8_t *d = memchr(line + start, h->delim, len - start);
    size_t n = d ? (size_t)(d - (line + start)) : len - start;
    if (add(h, line + start, n)) {
        csd_io_fail(io, "csv-histogram: out of memory with %zu distinct values", h->used);
        return -ENOMEM;
    }
    return 0;
}

static int by_value(const void *a, const void *b) {
    const entry *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->value, y->value, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int h_finish(void *st, csd_tasklet_io *io) {
    hist *h = st;
    size_t k = 0;
    for (size_t i = 0; i < h->cap; i++)
        if (h->slots[i].value) h->slots[k++] = h->slots[i];
    qsort(h->slots, k, sizeof *h->slots, by_value);
    h->cap = k;   /* slots [0, k) now hold the entries, sorted */
    for (size_t i = 0; i < k; i++) {
        csd_io_row_begin(io);
        csd_io_val_bytes(io, h->slots[i].value, h->slots[i].len);
        csd_io_val_int(io, h->slots[i].count);
        int rc = csd_io_row_end(io);
        if (rc < 0) return rc;
        if (rc == CSD_STOP) break;
    }
    return 0;
}

static void h_destroy(void *st) {
    hist *h = st;
    for (size_t i = 0; i < h->cap; i++) free(h->slots[i].value);
    free(h->slots);
    free(h);
}

static const csd_tasklet_ops ops = {
    .name = "csv-histogram",
    .summary = "how often each value of one CSV column occurs",
    .init = h_init,
    .record = h_record,
    .finish = h_finish,
    .destroy = h_destroy,
};
CSD_TASKLET(ops)
