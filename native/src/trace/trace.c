/* The timeline recorder (trace.h): a ring of fixed-size events, and the trace-event JSON writer. */
#include "trace/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct event {
    uint64_t start, end;      /* counters: end unused */
    uint64_t req, arg;
    int64_t value;            /* counters */
    const char *name;
    uint32_t index;
    uint8_t track;
} event;

struct csd_trace {
    event *ring;
    uint64_t cap, head, n, dropped;
    uint64_t from, to;
};

int csd_trace_create(csd_trace **out, uint64_t capacity, uint64_t from_ns, uint64_t to_ns) {
    *out = NULL;
    if (capacity == 0 || capacity > SIZE_MAX / sizeof(event) || (to_ns && to_ns <= from_ns)) return -EINVAL;
    csd_trace *t = calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    t->ring = malloc((size_t)capacity * sizeof *t->ring);
    if (!t->ring) {
        free(t);
        return -ENOMEM;
    }
    t->cap = capacity;
    t->from = from_ns;
    t->to = to_ns ? to_ns : UINT64_MAX;
    *out = t;
    return 0;
}

void csd_trace_destroy(csd_trace *t) {
    if (!t) return;
    free(t->ring);
    free(t);
}

static void push(csd_trace *t, const event *e) {
    uint64_t slot = (t->head + t->n) % t->cap;
    if (t->n == t->cap) {
        t->head = (t->head + 1) % t->cap;   /* the oldest goes */
        t->dropped++;
    } else {
        t->n++;
    }
    t->ring[slot] = *e;
}

void csd_trace_span(csd_trace *t, csd_track track, uint32_t index, const char *name, uint64_t req,
                    uint64_t start_ns, uint64_t end_ns, uint64_t arg) {
    if (!t || end_ns < t->from || start_ns >= t->to) return;
    event e = { .start = start_ns, .end = end_ns, .req = req, .arg = arg, .name = name, .index = index,
                .track = (uint8_t)track };
    push(t, &e);
}

void csd_trace_counter(csd_trace *t, const char *name, uint32_t index, uint64_t t_ns, int64_t value) {
    if (!t || t_ns < t->from || t_ns >= t->to) return;
    event e = { .start = t_ns, .end = t_ns, .value = value, .name = name, .index = index,
                .track = CSD_TRACK_COUNTER };
    push(t, &e);
}

uint64_t csd_trace_events(const csd_trace *t) { return t ? t->n : 0; }

void csd_trace_get(const csd_trace *t, uint64_t k, csd_trace_event *out) {
    const event *e = &t->ring[(t->head + k) % t->cap];
    *out = (csd_trace_event){ .track = (csd_track)e->track, .index = e->index, .name = e->name, .req = e->req,
                              .start_ns = e->start, .end_ns = e->end, .arg = e->arg, .value = e->value };
}
uint64_t csd_trace_dropped(const csd_trace *t) { return t ? t->dropped : 0; }

/* ---- writing -------------------------------------------------------------------------------- */

/* Thread ids: cores from 1, chips from 1001, channels from 2001, then the firmware and the link. */
static uint32_t tid_of(uint8_t track, uint32_t index) {
    switch (track) {
    case CSD_TRACK_CORE: return 1 + index;
    case CSD_TRACK_CHIP: return 1001 + index;
    case CSD_TRACK_CHANNEL: return 2001 + index;
    case CSD_TRACK_FIRMWARE: return 3001;
    default: return 3002;
    }
}

/* ns as microseconds with three decimals: trace-event times are in microseconds */
static void put_us(FILE *f, uint64_t ns) { fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000)); }

static void put_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void thread_name(FILE *f, uint32_t tid, const char *what, uint32_t index, int numbered, int *first) {
    char name[64];
    if (numbered) snprintf(name, sizeof name, "%s %u", what, index);
    else snprintf(name, sizeof name, "%s", what);
    fprintf(f, "%s\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":{\"name\":", *first ? "" : ",",
            tid);
    put_str(f, name);
    fprintf(f, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
            tid, tid);
    *first = 0;
}

int csd_trace_write(const csd_trace *t, const char *path, const char *device, uint32_t cores, uint32_t chips,
                    uint32_t channels, char *err, size_t errlen) {
    FILE *f = fopen(path, "w");
    if (!f) {
        int rc = -errno;
        snprintf(err, errlen, "trace %s: %s", path, strerror(-rc));
        return rc;
    }
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"device virtual time\",\"events\":%" PRIu64
            ",\"dropped\":%" PRIu64 "},\n\"traceEvents\":[", t->n, t->dropped);
    int first = 1;
    fprintf(f, "\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":");
    put_str(f, device && *device ? device : "smartssd device");
    fprintf(f, "}}");
    first = 0;
    for (uint32_t i = 0; i < cores; i++) thread_name(f, tid_of(CSD_TRACK_CORE, i), "core", i, 1, &first);
    for (uint32_t i = 0; i < chips; i++) thread_name(f, tid_of(CSD_TRACK_CHIP, i), "chip", i, 1, &first);
    for (uint32_t i = 0; i < channels; i++) thread_name(f, tid_of(CSD_TRACK_CHANNEL, i), "channel", i, 1, &first);
    thread_name(f, tid_of(CSD_TRACK_FIRMWARE, 0), "firmware", 0, 0, &first);
    thread_name(f, tid_of(CSD_TRACK_HOST, 0), "host link", 0, 0, &first);
    for (uint64_t k = 0; k < t->n; k++) {
        const event *e = &t->ring[(t->head + k) % t->cap];
        fputs(",\n", f);
        if (e->track == CSD_TRACK_COUNTER) {
            fputs("{\"name\":", f);
            char name[96];
            if (e->index != UINT32_MAX) snprintf(name, sizeof name, "%s %u", e->name, e->index);
            else snprintf(name, sizeof name, "%s", e->name);
            put_str(f, name);
            fputs(",\"ph\":\"C\",\"pid\":1,\"ts\":", f);
            put_us(f, e->start);
            fprintf(f, ",\"args\":{\"value\":%" PRId64 "}}", e->value);
            continue;
        }
        fputs("{\"name\":", f);
        put_str(f, e->name);
        fprintf(f, ",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":", tid_of(e->track, e->index));
        put_us(f, e->start);
        fputs(",\"dur\":", f);
        put_us(f, e->end - e->start);
        fprintf(f, ",\"args\":{\"req\":%" PRIu64 ",\"arg\":%" PRIu64 "}}", e->req, e->arg);
    }
    fputs("\n]}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "trace %s: write failed", path);
        return -EIO;
    }
    return 0;
}
