/* Randomized stage-mode runs: thousands of request mixes on random small devices under every policy.
 * After every event: constraints (1)-(3) per core, sub-request buffers within B_i and the core's
 * share, the ISP buffer never over-committed, counters equal to the page states (csd_engine_check).
 * At the end: every request finished (none starved or stuck), the core time equals the work given
 * (sum of pages x c_i plus T_s per flash request, computed independently of the engine), the buffer
 * peak within isp_buffer_bytes, and each page read once (a multi-plane read brings N_pl pages).
 * Then an open-arrival case: a long request is not starved by a stream of short ones. Both again
 * under the paper adaptation of the baselines and random mixes of its modifiers (sched/adapt.h). */
#include "check.h"
#include "engine/engine.h"
#include "sched_names.h"
#include "lib/synth.h"


static const char *const ADAPTS[] = {
    "shared-engine", "paper", "paper+split", "paper+mp", "paper+order", "paper+loop", "paper+split+mp+order",
    "paper+mp+order+loop", "paper+split+order+loop+eq12", "shared-engine+eq12",
};

static void random_mixes(int mixes, int adapted) {
    const char *const *names = sched_names();
    uint64_t seed = adapted ? 11 : 7;
    uint64_t forced = 0, decisions = 0, events = 0;
    for (int m = 0; m < mixes; m++) {
        csd_params p;
        sched_random_device(&p, &seed, 1);
        snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", names[m % 5]);
        if (adapted)
            snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "%s",
                     ADAPTS[(size_t)(m / 5) % (sizeof ADAPTS / sizeof ADAPTS[0])]);
        csd_synth_req reqs[6];
        size_t n = (size_t)sched_pick(&seed, 1, 6);
        uint64_t work = 0, pages = 0;
        for (size_t i = 0; i < n; i++) {
            reqs[i] = (csd_synth_req){ .ci_ns = sched_pick(&seed, 0, 6000), .pages = sched_pick(&seed, 1, 24),
                                       .lba_page = sched_pick(&seed, 0, 200),
                                       .arrive_ns = sched_rng(&seed) % 3 ? 0 : sched_pick(&seed, 0, 40000) };
            work += reqs[i].pages * reqs[i].ci_ns;
            pages += reqs[i].pages;
        }
        csd_synth_result res;
        char err[256] = "";
        int rc = csd_synth_run(&p, reqs, n, 1, NULL, NULL, &res, err, sizeof err);
        if (rc) {
            fprintf(stderr, "mix %d (%s %s, %u cores, %u x %u chips, %u planes, quota %u, buffer %llu pages, T_s %llu): "
                    "%s\n", m, p.request_scheduler, p.baseline_adaptation, p.cores, p.channels, p.chips_per_channel, p.planes_per_die,
                    p.isp_flash_quota, (unsigned long long)(p.isp_buffer_bytes / p.page_bytes),
                    (unsigned long long)p.isp_send_ns, err);
        }
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_U64(res.core_busy_ns, work + res.flash_reads * p.isp_send_ns);
        CHECK(res.buffer_peak_bytes <= p.isp_buffer_bytes);
        CHECK(res.flash_reads <= pages);
        CHECK(res.flash_reads * p.planes_per_die >= pages);
        for (size_t i = 0; i < n; i++) CHECK(res.finish_ns[i] > reqs[i].arrive_ns || reqs[i].ci_ns == 0);
        /* every policy keeps its cores live by itself; the engine's safety net is never needed */
        if (res.forced)
            fprintf(stderr, "mix %d (%s %s, %u cores, %u x %u chips, %u planes, quota %u, buffer %llu pages): forced\n",
                    m, p.request_scheduler, p.baseline_adaptation, p.cores, p.channels, p.chips_per_channel, p.planes_per_die,
                    p.isp_flash_quota, (unsigned long long)(p.isp_buffer_bytes / p.page_bytes));
        CHECK_EQ_U64(res.forced, 0);
        forced += res.forced;
        decisions += res.decisions;
        events += res.checks;
        csd_synth_result_free(&res);
    }
    printf("%d mixes (%s), %llu events checked, %llu decisions, %llu forced by the engine\n", mixes,
           adapted ? "adaptations mixed" : "shared-engine", (unsigned long long)events, (unsigned long long)decisions, (unsigned long long)forced);
}

/* A long request (c = 5 us, 400 pages) at 0, then a short one (c = 0.5 us, 8 pages) every 10 us for
 * 4 ms: 400 short ones, more work in all than the device can do in that time. No policy may leave
 * the long request for after the stream: under shared-engine it must finish before the last short
 * request arrives; under paper, where a core runs whole requests that contend for every chip, before
 * half the backlog left at the last arrival is cleared (HORAE's remaining-work path serves the
 * freshest short requests first among the shorts, so more of them hold quota while the long one runs;
 * a policy that left it for after the stream would finish it with the backlog). */
static void no_starvation(const char *adapt) {
    const char *const *names = sched_names();
    for (int k = 0; names[k]; k++) {
        csd_params p;
        CHECK_EQ_INT(csd_params_preset(&p, "ys9203"), 0);
        p.planes_per_die = 2;
        p.blocks_per_plane = 64;
        p.channel_bytes_per_s = 0;
        p.isp_buffer_bytes = 8u << 20;
        snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", names[k]);
        snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "%s", adapt);
        enum { N = 401 };
        static csd_synth_req reqs[N];
        reqs[0] = (csd_synth_req){ 5000, 400, 0, 0 };
        for (int i = 1; i < N; i++) reqs[i] = (csd_synth_req){ 500, 8, 400 + 8 * (uint64_t)i, 10000 * (uint64_t)i };
        csd_synth_result res;
        char err[256] = "";
        int rc = csd_synth_run(&p, reqs, N, 0, NULL, NULL, &res, err, sizeof err);
        if (rc) fprintf(stderr, "%s: %s\n", names[k], err);
        CHECK_EQ_INT(rc, 0);
        printf("%s (%s): long request done at %llu ns, last arrival %llu ns, all done %llu ns\n", names[k], adapt,
               (unsigned long long)res.finish_ns[0], (unsigned long long)reqs[N - 1].arrive_ns,
               (unsigned long long)res.makespan_ns);
        uint64_t last = reqs[N - 1].arrive_ns;
        CHECK(res.finish_ns[0] < (strcmp(adapt, "paper") ? last : last + (res.makespan_ns - last) / 2));
        csd_synth_result_free(&res);
    }
}

int main(int argc, char **argv) {
    random_mixes(argc > 1 ? atoi(argv[1]) : 5000, 0);
    no_starvation("shared-engine");
    random_mixes(argc > 1 ? atoi(argv[1]) : 5000, 1);
    no_starvation("paper");
    TEST_OK("test_sched_random");
}
