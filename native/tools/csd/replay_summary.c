/* The trace summary csd replay prints first (and alone with --stats-only): the format, the counts of
 * each kind of request, the span and rate, the mean sizes and write share, which is what a paper's
 * workload table gives (the DRS paper's Table 1 columns), so a trace can be checked against one. */
#include <inttypes.h>
#include <math.h>

#include "replay.h"

/* The DRS paper's Table 1 prints mean sizes in kB of 1024 bytes, rounded down to half a kB (its Movie
 * and Booting rows are the BIOTracer traces' means rounded so: 27.86 -> 27.5, 17.06 -> 17). */
static double half_kib_floor(double bytes) { return floor(bytes / 512.0) / 2.0; }

static void kb(char *b, size_t n, double v) { snprintf(b, n, v == floor(v) ? "%.0f kB" : "%.1f kB", v); }

static const char *events_note(const tf_trace *tr) {
    if (tr->format != TF_BLKPARSE) return "";
    return tr->event == 'D' ? " from D (issue) events: the trace has no Q events" : " from Q (queue) events";
}

void replay_print_trace(FILE *out, const char *path, const tf_trace *tr, const tf_stats *s) {
    fprintf(out, "trace %s: %s (%s), %u lines\n", path, tf_format_name(tr->format), tf_format_title(tr->format),
            tr->lines);
    fprintf(out, "%" PRIu64 " requests%s: %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " trims; %" PRIu64
            " flushes (counted, not replayed)\n", s->requests, events_note(tr), s->reads, s->writes, s->trims,
            s->flushes);
    fprintf(out, "span %.6f s, %.2f requests/s; mean read %.2f KiB, mean write %.2f KiB; %.2f %% writes\n",
            (double)s->span_ns / 1e9, s->rate_per_s, s->read_mean_bytes / 1024.0, s->write_mean_bytes / 1024.0,
            s->write_pct);
    char r[32], w[32];
    kb(r, sizeof r, half_kib_floor(s->read_mean_bytes));
    kb(w, sizeof w, half_kib_floor(s->write_mean_bytes));
    fprintf(out, "as the DRS paper's Table 1 prints it (kB = 1024 bytes, rounded down to 0.5): avg read %s, avg "
            "write %s, write req. %.2f %%, req. arrival rate %.2f\n", r, w, s->write_pct, s->rate_per_s);
    for (size_t i = 0; i < tr->nsw; i++)
        fprintf(out, "clock switch at line %u: %" PRIu64 ".%09" PRIu64 " s then %" PRIu64 ".%09" PRIu64
                " s; the new clock is taken to continue where the old one stopped\n", tr->sw[i].line,
                tr->sw[i].from_ns / 1000000000u, tr->sw[i].from_ns % 1000000000u, tr->sw[i].to_ns / 1000000000u,
                tr->sw[i].to_ns % 1000000000u);
    if (tr->switches > tr->nsw) fprintf(out, "%" PRIu64 " more clock switches\n", tr->switches - tr->nsw);
    if (tr->reordered)
        fprintf(out, "%" PRIu64 " requests arrived before a line above them (the file is in processing order): "
                "sorted by arrival\n", tr->reordered);
    if (tr->remaps) fprintf(out, "%" PRIu64 " remap (A) lines skipped\n", tr->remaps);
    if (tr->skipped) fprintf(out, "%" PRIu64 " bad lines skipped\n", tr->skipped);
}

json_object *replay_trace_json(const char *path, const tf_trace *tr, const tf_stats *s) {
    json_object *j = json_object_new_object();
    json_object_object_add(j, "path", json_object_new_string(path));
    json_object_object_add(j, "format", json_object_new_string(tf_format_name(tr->format)));
    json_object_object_add(j, "lines", json_object_new_int64(tr->lines));
    if (tr->format == TF_BLKPARSE) {
        char ev[2] = { tr->event, 0 };
        json_object_object_add(j, "events", json_object_new_string(ev));
    }
    json_object_object_add(j, "requests", json_object_new_int64((int64_t)s->requests));
    json_object_object_add(j, "reads", json_object_new_int64((int64_t)s->reads));
    json_object_object_add(j, "writes", json_object_new_int64((int64_t)s->writes));
    json_object_object_add(j, "trims", json_object_new_int64((int64_t)s->trims));
    json_object_object_add(j, "flushes", json_object_new_int64((int64_t)s->flushes));
    json_object_object_add(j, "read_bytes", json_object_new_int64((int64_t)s->read_bytes));
    json_object_object_add(j, "write_bytes", json_object_new_int64((int64_t)s->write_bytes));
    json_object_object_add(j, "trim_bytes", json_object_new_int64((int64_t)s->trim_bytes));
    json_object_object_add(j, "span_s", json_object_new_double((double)s->span_ns / 1e9));
    json_object_object_add(j, "rate_per_s", json_object_new_double(s->rate_per_s));
    json_object_object_add(j, "read_mean_kib", json_object_new_double(s->read_mean_bytes / 1024.0));
    json_object_object_add(j, "write_mean_kib", json_object_new_double(s->write_mean_bytes / 1024.0));
    json_object_object_add(j, "write_pct", json_object_new_double(s->write_pct));
    json_object *t1 = json_object_new_object();
    json_object_object_add(t1, "read_kb", json_object_new_double(half_kib_floor(s->read_mean_bytes)));
    json_object_object_add(t1, "write_kb", json_object_new_double(half_kib_floor(s->write_mean_bytes)));
    json_object_object_add(t1, "write_pct", json_object_new_double(round(s->write_pct * 100) / 100));
    json_object_object_add(t1, "rate_per_s", json_object_new_double(round(s->rate_per_s * 100) / 100));
    json_object_object_add(j, "table1", t1);
    json_object *sw = json_object_new_array();
    for (size_t i = 0; i < tr->nsw; i++) {
        json_object *x = json_object_new_object();
        json_object_object_add(x, "line", json_object_new_int64(tr->sw[i].line));
        json_object_object_add(x, "from_s", json_object_new_double((double)tr->sw[i].from_ns / 1e9));
        json_object_object_add(x, "to_s", json_object_new_double((double)tr->sw[i].to_ns / 1e9));
        json_object_array_add(sw, x);
    }
    json_object_object_add(j, "clock_switches", sw);
    json_object_object_add(j, "reordered", json_object_new_int64((int64_t)tr->reordered));
    json_object_object_add(j, "remaps", json_object_new_int64((int64_t)tr->remaps));
    json_object_object_add(j, "other_events", json_object_new_int64((int64_t)tr->other_events));
    json_object_object_add(j, "skipped_lines", json_object_new_int64((int64_t)tr->skipped));
    return j;
}
