/* bench_trace_sched: one small mix of tasklet requests run on the stage model under each request
 * scheduler named, each run's core schedule written as a trace-event timeline (OUTDIR/POLICY.json),
 * so two schedulers' Gantt charts can be compared (bench trace draws them). Prints
 * policy,makespan_ns,slots per run.
 *
 *   bench_trace_sched OUTDIR POLICY...
 *
 * The mix: two requests of 24 pages each on 2 cores, one light (c_i = 2 us per page) and one heavy
 * (c_i = 20 us), both at time 0, on a device small enough to read the schedule off the chart:
 * 2 channels x 1 chip x 2 planes, T_f = 10 us, T_s = 1 us, a 128-page buffer. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/synth.h"
#include "trace/trace.h"

static const char *stage_name(char stage) {
    switch (stage) {
    case 'S': return "S";
    case 'P': return "P";
    case 'f': return "finish";
    default: return "fail";
    }
}

typedef struct rec { csd_trace *t; uint64_t slots; } rec;

static void on_slot(void *arg, uint32_t core, char stage, uint64_t req, uint64_t start, uint64_t end, uint64_t pages) {
    rec *r = arg;
    csd_trace_span(r->t, CSD_TRACK_CORE, core, stage_name(stage), req, start, end, pages);
    r->slots++;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_trace_sched OUTDIR POLICY...\n");
        return 2;
    }
    printf("policy,makespan_ns,slots\n");
    for (int i = 2; i < argc; i++) {
        csd_params p;
        csd_params_preset(&p, "tiny");
        p.cores = 2;
        p.channels = 2;
        p.chips_per_channel = 1;
        p.planes_per_die = 2;
        p.blocks_per_plane = 16;
        p.t_read_ns = 10000;
        p.channel_bytes_per_s = 0;     /* T_f is the whole read */
        p.fw_page_ns = 0;
        p.core_mhz = 1000;
        p.page_cycles = 0;
        p.dram_access_ns = 0;
        snprintf(p.issue_model, sizeof p.issue_model, "stage");
        p.isp_send_ns = 1000;
        p.isp_buffer_bytes = 128 * 4096;
        snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", argv[i]);
        csd_synth_req reqs[2] = { { .ci_ns = 2000, .pages = 24, .lba_page = 0 },
                                  { .ci_ns = 20000, .pages = 24, .lba_page = 64 } };
        rec r = { 0 };
        if (csd_trace_create(&r.t, 100000, 0, 0)) return 1;
        csd_synth_result res;
        char err[256];
        if (csd_synth_run(&p, reqs, 2, 1, on_slot, &r, &res, err, sizeof err)) {
            fprintf(stderr, "bench_trace_sched: %s: %s\n", argv[i], err);
            return 1;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.json", argv[1], argv[i]);
        char dev[64];
        snprintf(dev, sizeof dev, "request scheduler %s", argv[i]);
        if (csd_trace_write(r.t, path, dev, p.cores, 0, 0, err, sizeof err)) {
            fprintf(stderr, "bench_trace_sched: %s\n", err);
            return 1;
        }
        printf("%s,%" PRIu64 ",%" PRIu64 "\n", argv[i], res.makespan_ns, r.slots);
        csd_synth_result_free(&res);
        csd_trace_destroy(r.t);
    }
    return 0;
}
