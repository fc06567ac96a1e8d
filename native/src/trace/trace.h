/* A timeline of what the device did, in virtual nanoseconds, written in the Chrome trace-event JSON
 * format that Perfetto (ui.perfetto.dev) and chrome://tracing open: spans on tracks (one per core,
 * chip, channel, the firmware and the host link) and counters (ISP buffer occupancy, chip queue
 * depths). docs/TRACING.md describes the file.
 *
 * Bounded: a ring of `capacity` events keeps the newest ones (csd_trace_dropped() counts the rest),
 * and only events that overlap the window [from_ns, to_ns) are kept. Recording never allocates. */
#ifndef CSD_TRACE_TRACE_H
#define CSD_TRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>

typedef enum csd_track {
    CSD_TRACK_CORE = 0,       /* index: core */
    CSD_TRACK_CHIP = 1,       /* index: chip (global) */
    CSD_TRACK_CHANNEL = 2,    /* index: channel */
    CSD_TRACK_FIRMWARE = 3,   /* index 0 */
    CSD_TRACK_HOST = 4,       /* index 0: the host link (commands) */
    CSD_TRACK_COUNTER = 5,    /* counters; index unused */
} csd_track;

typedef struct csd_trace csd_trace;

/* capacity: events kept (>= 1); window [from_ns, to_ns), to_ns = 0 meaning no end. 0 or -errno. */
int csd_trace_create(csd_trace **out, uint64_t capacity, uint64_t from_ns, uint64_t to_ns);
void csd_trace_destroy(csd_trace *t);

/* A span on a track. name is a static string (the stage or operation); req is the request it
 * served (0: none), arg one number for the event's details (pages, ppn...). */
void csd_trace_span(csd_trace *t, csd_track track, uint32_t index, const char *name, uint64_t req,
                    uint64_t start_ns, uint64_t end_ns, uint64_t arg);
/* A counter's new value at t_ns. name is a static string; index tells instances apart (a chip). */
void csd_trace_counter(csd_trace *t, const char *name, uint32_t index, uint64_t t_ns, int64_t value);

uint64_t csd_trace_events(const csd_trace *t);    /* kept now */
/* The k-th kept event, oldest first (k < csd_trace_events). */
typedef struct csd_trace_event {
    csd_track track;
    uint32_t index;
    const char *name;
    uint64_t req, start_ns, end_ns, arg;
    int64_t value;            /* counters */
} csd_trace_event;
void csd_trace_get(const csd_trace *t, uint64_t k, csd_trace_event *out);
uint64_t csd_trace_dropped(const csd_trace *t);   /* recorded but pushed out of the ring */

/* Write the kept events as trace-event JSON (times in microseconds, with ns precision). device
 * names the process (e.g. the image); cores, chips and channels name the tracks. 0 or -errno. */
int csd_trace_write(const csd_trace *t, const char *path, const char *device, uint32_t cores, uint32_t chips,
                    uint32_t channels, char *err, size_t errlen);

#endif
