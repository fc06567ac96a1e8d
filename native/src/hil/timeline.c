/* The session's timeline (params trace_file, trace_events, trace_from_ns, trace_to_ns): started at
 * open, fed by the engine, the flash model and the command entry point, written at close. */
#include "hil/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

/* trace_file with {image} (the image's file name) and {pid} replaced, so several devices, or
 * several processes, write one file each. */
static int expand(const char *tmpl, const char *image, char *out, size_t cap) {
    const char *base = strrchr(image, '/');
    base = base ? base + 1 : image;
    size_t n = 0;
    for (const char *p = tmpl; *p; ) {
        const char *sub = NULL;
        char pid[24];
        if (!strncmp(p, "{image}", 7)) {
            sub = base;
            p += 7;
        } else if (!strncmp(p, "{pid}", 5)) {
            snprintf(pid, sizeof pid, "%ld", (long)getpid());
            sub = pid;
            p += 5;
        }
        size_t len = sub ? strlen(sub) : 1;
        if (n + len >= cap) return -ENAMETOOLONG;
        memcpy(out + n, sub ? sub : p, len);
        n += len;
        if (!sub) p++;
    }
    out[n] = 0;
    return 0;
}

int timeline_open(csd_device *d, const char *image, char *err, size_t errlen) {
    const csd_params *p = &d->params;
    if (!p->trace_file[0]) return 0;
    int rc = expand(p->trace_file, image, d->trace_path, sizeof d->trace_path);
    if (rc) {
        snprintf(err, errlen, "trace_file '%s': the path is too long once expanded", p->trace_file);
        return rc;
    }
    FILE *probe = fopen(d->trace_path, "w");   /* fail now, not after the run, when it cannot be written */
    if (!probe) {
        rc = -errno;
        snprintf(err, errlen, "trace_file %s: %s", d->trace_path, strerror(-rc));
        return rc;
    }
    fclose(probe);
    rc = csd_trace_create(&d->trace, p->trace_events, p->trace_from_ns, p->trace_to_ns);
    if (rc) {
        snprintf(err, errlen, "trace: %s", strerror(-rc));
        return rc;
    }
    csd_engine_set_timeline(d->eng, d->trace);
    return 0;
}

void timeline_command(csd_device *d, const char *name, uint64_t start_ns, uint64_t end_ns) {
    if (d->trace) csd_trace_span(d->trace, CSD_TRACK_HOST, 0, name, 0, start_ns, end_ns, 0);
}

int timeline_close(csd_device *d, const char *device_name) {
    if (!d->trace) return 0;
    const csd_params *p = &d->params;
    char err[256];
    int rc = csd_trace_write(d->trace, d->trace_path, device_name, p->cores, p->channels * p->chips_per_channel,
                             p->channels, err, sizeof err);
    if (rc) fprintf(stderr, "smartssd: %s\n", err);
    csd_engine_set_timeline(d->eng, NULL);
    csd_trace_destroy(d->trace);
    d->trace = NULL;
    return rc;
}
