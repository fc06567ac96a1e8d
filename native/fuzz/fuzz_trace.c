/* libFuzzer target: every block-trace parser csd replay has. Input = [1 byte: format (0 = auto, else
 * one forced) and time unit | 1 byte: options | the trace file]. Each line goes through every
 * format's parser and the format detector; then the whole file through the loader (auto or forced,
 * stopping at the first bad line and skipping bad lines, with and without a namespace mapping) and
 * the summary. Whatever the bytes, nothing may crash, leak or read out of bounds, and what the loader
 * returns must hold: arrivals sorted from 0, sizes positive and in range, byte ranges that do not
 * wrap, counts that add up. Seeds: corpus/fuzz_trace (make_corpus.py). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_fmt.h"

static int map_small(void *arg, tf_req *q, char *why, size_t wl) {
    (void)arg;
    /* a 1 MiB namespace of 4 KiB LBAs, folded as --wrap does */
    uint64_t first = q->off / 4096, last = (q->off + q->size - 1) / 4096, count = last - first + 1;
    if (count > 256) {
        snprintf(why, wl, "too wide");
        return -1;
    }
    q->lba = first % 256;
    if (q->lba + count > 256) q->lba = 256 - count;
    q->count = (uint32_t)count;
    return 0;
}

static void check(const tf_trace *tr) {
    uint64_t prev = 0;
    for (size_t i = 0; i < tr->n; i++) {
        const tf_req *q = &tr->r[i];
        if (q->op < TF_READ || q->op > TF_TRIM) abort();
        if (q->size == 0 || q->off + q->size < q->off) abort();
        if (q->t_ns < prev || (i == 0 && q->t_ns != 0) || q->t_ns >= TF_MAX_SPAN_NS) abort();
        if (q->line == 0 || q->line > tr->lines) abort();
        prev = q->t_ns;
    }
    if (tr->n > tr->lines || tr->nsw > sizeof tr->sw / sizeof tr->sw[0] || tr->nsw > tr->switches) abort();
    if (tr->format == TF_BLKPARSE && tr->event != 'Q' && tr->event != 'D') abort();
    tf_stats s;
    tf_summarize(tr, &s);
    if (s.reads + s.writes + s.trims != s.requests || s.requests != tr->n) abort();
    if (s.span_ns != (tr->n ? tr->r[tr->n - 1].t_ns : 0)) abort();
}

static void load(const uint8_t *data, size_t size, const tf_opts *o, int mapped) {
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f) return;
    tf_trace tr;
    char err[400];
    if (tf_load(f, o, mapped ? map_small : NULL, NULL, &tr, err, sizeof err) == 0) check(&tr);
    else if (!err[0] || strlen(err) >= sizeof err) abort();
    tf_free(&tr);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    static const uint64_t UNITS[4] = { 0, 1, 1000000, 1000000000 };
    tf_opts o = { .format = (tf_format)(data[0] % TF_COUNT), .time_unit_ns = UNITS[(data[0] >> 4) & 3],
                  .limit = data[1] & 0x80 ? (data[1] & 0x0f) + 1 : 0 };
    int mapped = data[1] & 1;
    data += 2;
    size -= 2;

    /* every line through every parser and the detector */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char why[300];
    uint32_t lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        lineno++;
        (void)tf_detect(line);
        for (int f = 1; f < TF_COUNT; f++) {
            tf_rec r;
            why[0] = 0;
            int k = tf_parse_line((tf_format)f, &o, line, lineno, &r, why, sizeof why);
            if (k == TF_BAD && !why[0]) abort();
            if (k == TF_REQ && (r.op < TF_READ || r.op > TF_FLUSH || r.ntimes > 4)) abort();
        }
    }
    free(text);

    /* the whole file: stopping at the first bad line, and skipping bad lines */
    o.skip_bad = 0;
    load(data, size, &o, mapped);
    o.skip_bad = 1;
    load(data, size, &o, mapped);
    return 0;
}
