/* Request schedulers in stage mode (docs/SCHEDULERS.md): REMUS equations 4, 5 and 12, the branches
 * of Algorithm 1, hand-checked two-request / two-core schedules for every policy (exact order of
 * stages and virtual completion times) under the shared-engine and the paper adaptation of the baselines
 * (baseline_adaptation), multi-plane sub-requests, the policy names, the ys9203 preset,
 * and the failure paths (stop, tasklet failure, cancel) with the invariants checked after every event.
 *
 * The model device of the hand schedules: 2 cores, 2 chips on 2 channels (chip k -> core k, eq. 5),
 * T_s = 1000 (isp_send_ns), T_f = 10000 (t_read_ns; no channel or firmware cost), 1 cycle = 1 ns,
 * no per-page overhead, 4 KiB pages, buffer 64 pages (32 per core). Page k of a request at LBA L is on
 * chip floor((L + k) / N_pl) % 2 (eq. 4). */
#include "check.h"
#include "flash/flash.h"
#include "engine/engine.h"
#include "sched_names.h"
#include "runtime/exec.h"
#include "hil/device.h"
#include "sched/adapt.h"
#include "sched/assign.h"
#include "lib/optimum.h"
#include "lib/synth.h"

#include <errno.h>

static csd_params model(const char *policy, uint32_t planes, uint32_t quota, uint32_t buf_pages) {
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    p.cores = 2;
    p.channels = 2;
    p.chips_per_channel = 1;
    p.planes_per_die = planes;
    p.blocks_per_plane = 16;
    p.t_read_ns = 10000;
    p.channel_bytes_per_s = 0;    /* not modelled: T_f is the whole read */
    p.fw_page_ns = 0;
    p.core_mhz = 1000;
    p.page_cycles = 0;
    p.dram_access_ns = 0;
    snprintf(p.issue_model, sizeof p.issue_model, "stage");
    p.isp_send_ns = 1000;
    p.isp_flash_quota = quota;
    p.isp_buffer_bytes = (uint64_t)buf_pages * 4096;
    snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", policy);
    return p;
}

/* ---- trace capture: "S1x2@0-2000 P1@11000-23000 f1@..." per core ---------------------------- */

typedef struct trace {
    char core[2][2048];
} trace;

static void on_slot(void *arg, uint32_t core, char stage, uint64_t id, uint64_t s, uint64_t e, uint64_t pages) {
    trace *t = arg;
    CHECK(core < 2);
    char one[96];
    if (stage == 'S')
        snprintf(one, sizeof one, "%sS%llux%llu@%llu-%llu", t->core[core][0] ? " " : "", (unsigned long long)id,
                 (unsigned long long)pages, (unsigned long long)s, (unsigned long long)e);
    else
        snprintf(one, sizeof one, "%s%c%llu@%llu-%llu", t->core[core][0] ? " " : "", stage, (unsigned long long)id,
                 (unsigned long long)s, (unsigned long long)e);
    CHECK(strlen(t->core[core]) + strlen(one) < sizeof t->core[core]);
    strcat(t->core[core], one);
}

/* ---- equations 4, 5 and the multi-plane rule ------------------------------------------------ */

static void test_assignment(void) {
    /* eq. 4 with N_pl = 2, 4 KiB pages, 16 chips: LBAs 0 and 4096 share chip 0 (two planes) */
    CHECK_EQ_INT(csd_assign_chip(0, 2, 4096, 16), 0);
    CHECK_EQ_INT(csd_assign_chip(4096, 2, 4096, 16), 0);
    CHECK_EQ_INT(csd_assign_chip(8192, 2, 4096, 16), 1);
    CHECK_EQ_INT(csd_assign_chip(16 * 8192 + 3 * 8192 + 4096, 2, 4096, 16), 3);   /* wraps after 16 */
    CHECK_EQ_INT(csd_assign_chip(5 * 4096, 1, 4096, 4), 1);
    /* eq. 5 */
    CHECK_EQ_INT(csd_assign_core(3, 2), 1);
    CHECK_EQ_INT(csd_assign_core(6, 4), 2);
    CHECK_EQ_INT(csd_assign_core(6, 0), 0);
    /* multi-plane when the start LBA is plane-aligned */
    CHECK_EQ_INT(csd_assign_subreq_pages(4, 2), 2);
    CHECK_EQ_INT(csd_assign_subreq_pages(5, 2), 1);
    CHECK_EQ_INT(csd_assign_subreq_pages(8, 4), 4);
    CHECK_EQ_INT(csd_assign_subreq_pages(8, 1), 1);
    /* the synthetic layout follows eq. 4: LBA page 6 with 2 planes on 2 chips -> chip 1, plane 0 */
    csd_params p = model("remus", 2, 0, 64);
    csd_addr a;
    csd_ppn_decode(&p, csd_synth_ppn(&p, 6), &a);
    CHECK_EQ_INT(a.chip_global, 1);
    CHECK_EQ_INT(a.plane, 0);
    csd_ppn_decode(&p, csd_synth_ppn(&p, 7), &a);
    CHECK_EQ_INT(a.chip_global, 1);
    CHECK_EQ_INT(a.plane, 1);
    csd_ppn_decode(&p, csd_synth_ppn(&p, 8), &a);
    CHECK_EQ_INT(a.chip_global, 0);
    CHECK_EQ_INT(a.page, 2);   /* LBAs 0-1, 4-5, 8-9 are rows 0, 1, 2 of chip 0 */
}

/* ---- REMUS: equation 12 and Algorithm 1 on hand-made views ---------------------------------- */

static csd_core_view view(csd_sreq *const *reqs, size_t n, uint64_t inflight) {
    return (csd_core_view){ .core = 0, .cores = 1, .planes = 2, .Q = 16, .inflight = inflight, .buf_pages = 1000,
                            .t_send_ns = 1000, .t_read_ns = 65000, .chips = 8, .n = n, .reqs = reqs };
}

static void test_remus_rules(void) {
    const csd_req_stage_ops *r = csd_req_stage_find("remus");
    CHECK(r && !strcmp(r->name, "remus"));
    csd_params p = model("remus", 2, 0, 64);
    p.cores = 1;
    void *st = NULL;
    CHECK_EQ_INT(r->init(&st, &p), 0);
    /* eq. 12: B_i = Q + ceil(c_i / 1 us) pages */
    csd_sreq a = { .id = 1, .ci_ns = 2500, .total = 100 }, b = { .id = 2, .ci_ns = 1000, .total = 100 };
    csd_sreq *two[] = { &a, &b };
    csd_core_view v = view(two, 2, 0);
    CHECK_EQ_U64(r->buffer(st, &v, &a), 19);
    CHECK_EQ_U64(r->buffer(st, &v, &b), 17);
    csd_sreq z = { .ci_ns = 0 };
    CHECK_EQ_U64(r->buffer(st, &v, &z), 16);

    /* lines 2, 6, 7: Q_cur 16 >= Q_thres 2, available 16 + 18 >= 16: the largest remaining buffer
     * (b: 18 > a: 16) sends min(Q_cur, b_ri) = 16 */
    a = (csd_sreq){ .id = 1, .B = 20, .S = 4, .F = 4, .P = 0, .total = 100 };
    b = (csd_sreq){ .id = 2, .B = 18, .total = 100 };
    csd_stage_choice c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_S);
    CHECK_EQ_INT(c.idx, 1);
    CHECK_EQ_U64(c.pages, 16);
    v = view(two, 2, 14);                         /* Q_cur 2: send 2 */
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_S);
    CHECK_EQ_U64(c.pages, 2);

    /* lines 3, 4, 11, 12: available 8 + 4 < Q_cur 16: Q_thres rises to 4 and the smallest remaining
     * buffer with data (b: 4) is processed */
    a = (csd_sreq){ .id = 1, .B = 20, .S = 12, .F = 12, .P = 0, .total = 100 };
    b = (csd_sreq){ .id = 2, .B = 18, .S = 16, .F = 16, .P = 2, .total = 100 };
    v = view(two, 2, 0);
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_P);
    CHECK_EQ_INT(c.idx, 1);
    /* Q_cur 3 < Q_thres 4 now (with the initial 2 it would send): stage P again */
    v = view(two, 2, 13);
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_P);
    CHECK_EQ_INT(c.idx, 1);

    /* line 15 then the algorithm again: nothing ready, Q_cur 3 < 4: Q_thres = max(3, N_pl) = 3, and
     * on the second pass Q_cur >= Q_thres with 8 >= 3 available: send 3 for a */
    a = (csd_sreq){ .id = 1, .B = 20, .S = 12, .F = 0, .P = 0, .total = 100 };
    csd_sreq *one[] = { &a };
    v = view(one, 1, 13);
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_S);
    CHECK_EQ_INT(c.idx, 0);
    CHECK_EQ_U64(c.pages, 3);
    /* line 14: no quota left and nothing ready: wait (Q_thres back to N_pl = 2) */
    v = view(one, 1, 16);
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_WAIT);
    /* ... so 2 pages of quota are enough to send again */
    v = view(one, 1, 14);
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_S);
    CHECK_EQ_U64(c.pages, 2);
    /* the end game: 1 page left to send < Q_cur 16 (line 3 always holds), nothing ready, nothing in
     * flight: line 14 would wait for ever; it sends the page */
    a = (csd_sreq){ .id = 1, .B = 20, .S = 99, .F = 99, .P = 99, .total = 100 };
    v = view(one, 1, 0);
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_S);
    CHECK_EQ_U64(c.pages, 1);
    /* ... but with a page in flight it waits for it */
    a = (csd_sreq){ .id = 1, .B = 20, .S = 99, .F = 98, .P = 98, .total = 100 };
    v = view(one, 1, 1);
    c = r->decide(st, &v);
    CHECK_EQ_INT(c.stage, CSD_STAGE_WAIT);
    r->destroy(st);
}

/* ---- hand-checked schedules: A (c = 12 us) and B (c = 1 us), 4 pages each ------------------- */

/* A at LBA 0, B at LBA 64: pages 0 and 2 of each on chip 0 (core 0), 1 and 3 on chip 1 (core 1);
 * Q = 2 pages per core, N_pl = 1. Both cores run the same schedule (chip reads are symmetric);
 * finish() costs nothing and runs on core 1, whose last page ends the same instant as core 0's but
 * is handled after it. docs/SCHEDULERS.md derives each schedule line by line. */
static void run_pair(const char *policy, const char *core0, const char *core1, uint64_t fin_a, uint64_t fin_b) {
    csd_params p = model(policy, 1, 2, 64);
    csd_synth_req reqs[2] = { { 12000, 4, 0, 0 }, { 1000, 4, 64, 0 } };
    trace t;
    memset(&t, 0, sizeof t);
    csd_synth_result res;
    char err[256] = "";
    int rc = csd_synth_run(&p, reqs, 2, 1, on_slot, &t, &res, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", policy, err);
    CHECK_EQ_INT(rc, 0);
    if (strcmp(t.core[0], core0) || strcmp(t.core[1], core1))
        fprintf(stderr, "%s:\n core 0: %s\n core 1: %s\n", policy, t.core[0], t.core[1]);
    CHECK_STR(t.core[0], core0);
    CHECK_STR(t.core[1], core1);
    CHECK_EQ_U64(res.finish_ns[0], fin_a);
    CHECK_EQ_U64(res.finish_ns[1], fin_b);
    CHECK(res.checks > 0);
    CHECK_EQ_U64(res.forced, 0);
    csd_synth_result_free(&res);
}

static void test_pair_schedules(void) {
    /* FCFS: A (older) sends both its pages, then processes them as they land (11000, 21000); B is
     * served only when A has nothing to do, at 35000. */
    const char *fcfs = "S1x2@0-2000 P1@11000-23000 P1@23000-35000 S2x2@35000-37000 P2@46000-47000 P2@56000-57000";
    run_pair("fcfs", fcfs,
             "S1x2@0-2000 P1@11000-23000 P1@23000-35000 f1@35000-35000 S2x2@35000-37000 P2@46000-47000 "
             "P2@56000-57000 f2@57000-57000",
             35000, 57000);
    /* CFS: equal vruntime, A first (admission order); its 3 ms slice (6 ms / 2 runnable) outlasts
     * everything, so A keeps the core while it can run: the same schedule as FCFS. */
    run_pair("cfs", fcfs,
             "S1x2@0-2000 P1@11000-23000 P1@23000-35000 f1@35000-35000 S2x2@35000-37000 P2@46000-47000 "
             "P2@56000-57000 f2@57000-57000",
             35000, 57000);
    /* HORAE: CP(A) = 2*1000 + 2*10000 + 2*12000 = 46000 > CP(B) = 24000: A sends. At 11000 A
     * (CP 24000, data ready) ties B (24000, can send): A, the first, processes. At 23000 A's CP is
     * 12000 < B's 24000: B sends both pages (reads 24000-34000, 34000-44000); then A's last page. */
    run_pair("horae", "S1x2@0-2000 P1@11000-23000 S2x2@23000-25000 P1@25000-37000 P2@37000-38000 P2@44000-45000",
             "S1x2@0-2000 P1@11000-23000 S2x2@23000-25000 P1@25000-37000 f1@37000-37000 P2@37000-38000 "
             "P2@44000-45000 f2@45000-45000",
             37000, 45000);
    /* SERICO: halves of ceil(Q/2) = 1 page; d_S(A) = D - 34000 < d_S(B) = D - 12000 < d_P(A) =
     * D - 24000... A's sends go first, one half (page) at a time; then P(A) (D - 24000) beats S(B)
     * (D - 12000) while A has data; B is served at 35000. Deadlines stay those of time 0 (period 1 ms). */
    run_pair("serico",
             "S1x1@0-1000 S1x1@1000-2000 P1@11000-23000 P1@23000-35000 S2x1@35000-36000 S2x1@36000-37000 "
             "P2@46000-47000 P2@56000-57000",
             "S1x1@0-1000 S1x1@1000-2000 P1@11000-23000 P1@23000-35000 f1@35000-35000 S2x1@35000-36000 "
             "S2x1@36000-37000 P2@46000-47000 P2@56000-57000 f2@57000-57000",
             35000, 57000);
    /* REMUS: B_A = 2 + 12 = 14, B_B = 2 + 1 = 3. 0: A has the larger remaining buffer: sends 2.
     * 11000 (A's page 0 landed, Q_cur 1 >= Q_thres 1... N_pl = 1): B sends 1 (remaining buffer 3 > 0
     * sendable for A). 12000: Q_cur 0: process A. 24000: Q_cur 1: B sends its second page. 25000:
     * A's second page. 37000: available buffer 0 < Q_cur: Q_thres 2, process B (landed 31000);
     * 41000: B's last page. B no longer waits behind A's processing. */
    run_pair("remus", "S1x2@0-2000 S2x1@11000-12000 P1@12000-24000 S2x1@24000-25000 P1@25000-37000 P2@37000-38000 "
             "P2@41000-42000",
             "S1x2@0-2000 S2x1@11000-12000 P1@12000-24000 S2x1@24000-25000 P1@25000-37000 f1@37000-37000 "
             "P2@37000-38000 P2@41000-42000 f2@42000-42000",
             37000, 42000);
}

/* ---- multi-plane sub-requests --------------------------------------------------------------- */

static void test_multiplane(void) {
    /* one request, 8 pages, c = 1 us, N_pl = 2: pages (0,1) and (4,5) on chip 0 planes 0-1, (2,3)
     * and (6,7) on chip 1. Q = 1 chip x 2 planes = 2, B = 2 + 1 = 3, Q_thres starts at 2.
     * 0: one multi-plane read of 2 pages (T_s once), lands 11000. 11000: available 1 < Q_cur 2:
     * Q_thres + 2 (capped at Q = 2), process page 0. 12000: Q_cur 2 >= 2, available
     * min(2 left, 3 - 1) = 2: send the next pair (read 13000-23000). 13000: process page 1.
     * 23000, 24000: process 4, 5. 4 reads. */
    csd_params p = model("remus", 2, 0, 64);
    csd_synth_req req = { 1000, 8, 0, 0 };
    trace t;
    memset(&t, 0, sizeof t);
    csd_synth_result res;
    char err[256] = "";
    CHECK_EQ_INT(csd_synth_run(&p, &req, 1, 1, on_slot, &t, &res, err, sizeof err), 0);
    CHECK_STR(t.core[0], "S1x2@0-1000 P1@11000-12000 S1x2@12000-13000 P1@13000-14000 P1@23000-24000 P1@24000-25000");
    CHECK_EQ_U64(res.finish_ns[0], 25000);
    CHECK_EQ_U64(res.flash_reads, 4);
    csd_synth_result_free(&res);
    /* misaligned start (LBA 1): core 0 holds pages 0 (LBA 1, plane 1: alone), 3-4 (LBA 4-5, a pair)
     * and 7 (LBA 8, the last: alone). 0: send min(Q_cur 2, 3) = 2 pages: page 0, then with one page
     * of the limit left the pair is not split: page 7 (reads 1000-11000, 11000-21000). 11000:
     * process page 0. 21000: Q_cur 2, available min(2, 3 - 1) = 2: send the pair as one read
     * (22000-32000); 22000: page 7; 32000, 33000: pages 3, 4. Core 1 as in the aligned case. */
    req.lba_page = 1;
    memset(&t, 0, sizeof t);
    CHECK_EQ_INT(csd_synth_run(&p, &req, 1, 1, on_slot, &t, &res, err, sizeof err), 0);
    CHECK_STR(t.core[0], "S1x2@0-2000 P1@11000-12000 S1x2@21000-22000 P1@22000-23000 P1@32000-33000 P1@33000-34000 "
                         "f1@34000-34000");
    CHECK_STR(t.core[1], "S1x2@0-1000 P1@11000-12000 S1x2@12000-13000 P1@13000-14000 P1@23000-24000 P1@24000-25000");
    CHECK_EQ_U64(res.finish_ns[0], 34000);
    CHECK_EQ_U64(res.flash_reads, 5);
    csd_synth_result_free(&res);
}

/* Two plane-aligned requests under every policy: every read is a whole multi-plane read (the
 * baselines send as soon as one page of room frees; a part of a group would cost a T_s per page). */
static void test_whole_groups(void) {
    const char *const *names = sched_names();
    for (int k = 0; names[k]; k++) {
        csd_params p = model(names[k], 2, 0, 64);
        csd_synth_req reqs[2] = { { 3000, 16, 0, 0 }, { 500, 16, 64, 0 } };
        csd_synth_result res;
        char err[256] = "";
        CHECK_EQ_INT(csd_synth_run(&p, reqs, 2, 1, NULL, NULL, &res, err, sizeof err), 0);
        if (res.flash_reads != 16) fprintf(stderr, "%s: %llu reads\n", names[k], (unsigned long long)res.flash_reads);
        CHECK_EQ_U64(res.flash_reads, 16);
        CHECK_EQ_U64(res.core_busy_ns, 16 * 3000 + 16 * 500 + 16 * 1000);
        csd_synth_result_free(&res);
    }
}

/* ---- the paper adaptation of the baselines (sched/adapt.h) ---------------------------------- */

/* Runs reqs under policy and adaptation (and param = value, when param is not NULL) on the model
 * device (N_pl planes, quota, 64 pages of buffer) and checks both cores' slots, the finish times and
 * the flash reads. */
static void run_adapted_set(const char *policy, const char *adapt, const char *param, const char *value,
                            uint32_t planes, uint32_t quota, const csd_synth_req *reqs, size_t n, const char *core0,
                            const char *core1, const uint64_t *fin, uint64_t reads) {
    csd_params p = model(policy, planes, quota, 64);
    snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "%s", adapt);
    char err[256] = "";
    if (param) CHECK_EQ_INT(csd_params_set(&p, param, value, err, sizeof err), 0);
    trace t;
    memset(&t, 0, sizeof t);
    csd_synth_result res;
    int rc = csd_synth_run(&p, reqs, n, 1, on_slot, &t, &res, err, sizeof err);
    if (rc) fprintf(stderr, "%s %s: %s\n", policy, adapt, err);
    CHECK_EQ_INT(rc, 0);
    if (strcmp(t.core[0], core0) || strcmp(t.core[1], core1))
        fprintf(stderr, "%s %s:\n core 0: %s\n core 1: %s\n", policy, adapt, t.core[0], t.core[1]);
    CHECK_STR(t.core[0], core0);
    CHECK_STR(t.core[1], core1);
    for (size_t i = 0; i < n; i++) CHECK_EQ_U64(res.finish_ns[i], fin[i]);
    CHECK_EQ_U64(res.flash_reads, reads);
    CHECK_EQ_U64(res.forced, 0);
    csd_synth_result_free(&res);
}

static void run_adapted(const char *policy, const char *adapt, uint32_t planes, uint32_t quota,
                        const csd_synth_req *reqs, size_t n, const char *core0, const char *core1,
                        const uint64_t *fin, uint64_t reads) {
    run_adapted_set(policy, adapt, NULL, NULL, planes, quota, reqs, n, core0, core1, fin, reads);
}

/* Three requests under paper, Q = 2, N_pl = 1: X (c = 50 us, 2 pages at LBA 200), A (c = 12 us) and B
 * (c = 1 us) as in the pair above. Each runs whole on the least loaded core at submission (work left
 * = pages x c_i): X on core 0 (both idle: the lower index), A on core 1 (0 < 100000), B on core 1
 * (48000 < 100000). Every core sends to both chips, so X's and A's first reads share the chips:
 * chip 0 reads X0 1000-11000 then A0 11000-21000, chip 1 X1 2000-12000 then A1 12000-22000. Core 0
 * is the same under every policy but SERICO: P(X) 11000-61000, 61000-111000.
 * A read that ends at the instant a core frees is seen after the core has chosen (the flash completes
 * it through zero-time steps: array, channel, firmware). */
static void test_paper_schedules(void) {
    const csd_synth_req reqs[3] = { { 50000, 2, 200, 0 }, { 12000, 4, 0, 0 }, { 1000, 4, 64, 0 } };
    const char *x = "S1x2@0-2000 P1@11000-61000 P1@61000-111000 f1@111000-111000";
    /* FCFS, coupled loop (Fig. 2): the oldest request on core 1 (A) holds it until done; it sends a
     * batch of Q = 2, waits for it (2000-21000: B may not send), processes it, sends the next (45000,
     * reads 46000-56000 and 47000-57000), processes it: A done at 80000. Then B the same way: reads
     * 81000-91000 and 82000-92000, P 91000 and 92000, reads 94000-104000 and 95000-105000. */
    const char *fcfs1 = "S2x2@0-2000 P2@21000-33000 P2@33000-45000 S2x2@45000-47000 P2@56000-68000 P2@68000-80000 "
                        "f2@80000-80000 S3x2@80000-82000 P3@91000-92000 P3@92000-93000 S3x2@93000-95000 "
                        "P3@104000-105000 P3@105000-106000 f3@106000-106000";
    const uint64_t fin_fcfs[3] = { 111000, 80000, 106000 };
    run_adapted("fcfs", "paper", 1, 2, reqs, 3, x, fcfs1, fin_fcfs, 10);
    /* CFS: A and B start at the same vruntime, A first; its slice (3 ms) outlasts the example and the
     * slice's holder keeps the core while it waits for its batch: the schedule of FCFS. */
    run_adapted("cfs", "paper", 1, 2, reqs, 3, x, fcfs1, fin_fcfs, 10);
    /* HORAE, critical path = the work still to do (horae_critical_path = remaining): S's T_s and F's
     * T_f / 2 chips per unsent page plus c_i per unprocessed page: 72000 for A against 28000 for B at
     * 0, so A runs, P first when it has data, until its path falls under B's: at 56000 (A's third page
     * landed, two pages of 12 us left: 24000 < 28000) B sends the one page the quota allows (read
     * 57000-67000); at 57000 B's path is 22000, so A processes (57000-69000); at 69000 A's last page
     * (12000) against B's 21000: B processes its page and at 70000 sends two more (reads 71000-81000,
     * 72000-82000); at 72000 B's path is 9000: A finishes (72000-84000), then B (its fourth page read
     * 87000-97000). A done at 84000, B at 98000, where the predecessor reading below needs 80000 and
     * 106000. */
    const uint64_t fin_horae[3] = { 111000, 84000, 98000 };
    run_adapted("horae", "paper", 1, 2, reqs, 3, x,
                "S2x2@0-2000 P2@21000-33000 P2@33000-45000 S2x2@45000-47000 S3x1@56000-57000 P2@57000-69000 "
                "P3@69000-70000 S3x2@70000-72000 P2@72000-84000 f2@84000-84000 P3@84000-85000 P3@85000-86000 "
                "S3x1@86000-87000 P3@97000-98000 f3@98000-98000",
                fin_horae, 10);
    /* HORAE, critical path = predecessor stages' time (horae_critical_path = predecessor: core time +
     * T_f per read returned): A and B tie at 0 (A first) and from then on A's path is the longer one,
     * so A is served whenever it can run, its stage P first: B's sends wait behind A's processing
     * (II-B) until A is done at 80000. At 92000 B's second page lands just after the core chose: B
     * sends its third page alone (read 93000-103000), processes its second (93000), sends its fourth
     * (read 95000-105000). */
    run_adapted_set("horae", "paper", "horae_critical_path", "predecessor", 1, 2, reqs, 3, x,
                    "S2x2@0-2000 P2@21000-33000 P2@33000-45000 S2x2@45000-47000 P2@56000-68000 P2@68000-80000 "
                    "f2@80000-80000 S3x2@80000-82000 P3@91000-92000 S3x1@92000-93000 P3@93000-94000 S3x1@94000-95000 "
                    "P3@103000-104000 P3@105000-106000 f3@106000-106000",
                    fin_fcfs, 10);
    /* SERICO, halves of Q = 2 pages (B = 2Q, the others' buffer), a half processed once it has landed
     * and to its end: core 0 processes X from 12000. Core 1, deadlines of time 0 (d_S(A) = D - 58000
     * < d_P(A) = D - 48000 < d_S(B) = D - 14000): A's first half 0-2000; at 22000 (its half landed)
     * S(A) precedes P(A): second half 22000-24000 (reads 23000-33000, 24000-34000), then A's halves
     * 24000-48000 and 48000-72000. B: half 72000-74000 (reads 73000-83000, 74000-84000); at 84000
     * S(B) (D - 14000) precedes P(B) (D - 4000): 84000-86000 (reads 85000-95000, 86000-96000). */
    const uint64_t fin_serico[3] = { 112000, 72000, 98000 };
    run_adapted("serico", "paper", 1, 2, reqs, 3, "S1x2@0-2000 P1@12000-62000 P1@62000-112000 f1@112000-112000",
                "S2x2@0-2000 S2x2@22000-24000 P2@24000-36000 P2@36000-48000 P2@48000-60000 P2@60000-72000 "
                "f2@72000-72000 S3x2@72000-74000 S3x2@84000-86000 P3@86000-87000 P3@87000-88000 P3@96000-97000 "
                "P3@97000-98000 f3@98000-98000",
                fin_serico, 10);
}

/* Multi-plane reads under paper: one request of 8 pages (c = 1 us), N_pl = 2, CFS; it runs on core 0
 * and sends in LBA order to both chips (pages 0-1 and 4-5 on chip 0 planes 0-1, 2-3 and 6-7 on chip 1). */
static void test_paper_multiplane(void) {
    const csd_synth_req one = { 1000, 8, 0, 0 };
    /* Q = 3: a batch of 3 pages is the pair (0,1) and page 2 alone (the pair (2,3) does not fit: cut);
     * then page 3 alone and the pair (4,5); then (6,7): 5 reads where 4 would do. */
    uint64_t fin = 41000;
    run_adapted("cfs", "paper", 2, 3, &one, 1,
                "S1x3@0-2000 P1@11000-12000 P1@12000-13000 P1@13000-14000 S1x3@14000-16000 P1@25000-26000 "
                "P1@26000-27000 P1@27000-28000 S1x2@28000-29000 P1@39000-40000 P1@40000-41000 f1@41000-41000",
                "", &fin, 5);
    /* +mp (whole groups): a batch is one pair (the second does not fit in Q = 3 and is not cut), so the
     * coupled loop runs 4 rounds of one read: 4 reads, later. */
    fin = 52000;
    run_adapted("cfs", "paper+mp", 2, 3, &one, 1,
                "S1x2@0-1000 P1@11000-12000 P1@12000-13000 S1x2@13000-14000 P1@24000-25000 P1@25000-26000 "
                "S1x2@26000-27000 P1@37000-38000 P1@38000-39000 S1x2@39000-40000 P1@50000-51000 P1@51000-52000 "
                "f1@52000-52000",
                "", &fin, 4);
    /* +split (eq. 5): core 0 has chip 0's pages, core 1 chip 1's, Q = 3 each: the pair and the next
     * pair's first page (cut; read 11000-21000 behind the pair), then the last page alone. */
    fin = 34000;
    run_adapted("cfs", "paper+split", 2, 3, &one, 1,
                "S1x3@0-2000 P1@11000-12000 P1@12000-13000 P1@21000-22000 S1x1@22000-23000 P1@33000-34000",
                "S1x3@0-2000 P1@11000-12000 P1@12000-13000 P1@21000-22000 S1x1@22000-23000 P1@33000-34000 "
                "f1@34000-34000",
                &fin, 6);
    /* the default Q = 2 (the core's eq. 5 share: 1 chip x 2 planes, though it sends to both chips),
     * start at LBA 1: every batch of 2 is a plane-1 page and the next pair's plane-0 page, so all 8
     * reads are single (whole groups need 5: LBA 1, (2,3), (4,5), (6,7), 8): LBA 1 and 2 read
     * 1000-11000 and 2000-12000, LBA 3 and 4 14000-24000 and 15000-25000, and so on. */
    const csd_synth_req off = { 1000, 8, 1, 0 };
    fin = 52000;
    run_adapted("cfs", "paper", 2, 0, &off, 1,
                "S1x2@0-2000 P1@11000-12000 P1@12000-13000 S1x2@13000-15000 P1@24000-25000 P1@25000-26000 "
                "S1x2@26000-28000 P1@37000-38000 P1@38000-39000 S1x2@39000-41000 P1@50000-51000 P1@51000-52000 "
                "f1@52000-52000",
                "", &fin, 8);
}

static void on_param(void *arg, const char *key, const char *value, const char *unit) {
    (void)unit;
    if (!strcmp(key, "baseline_adaptation") && !strcmp(value, "paper+split")) ++*(int *)arg;
}
static void on_policy(void *arg, const char *key, const char *names) {
    if (!strcmp(key, "baseline_adaptation") && strstr(names, "shared-engine, paper")) ++*(int *)arg;
}

/* The adaptation's parts: with every engine advantage switched on, FCFS and CFS under paper are
 * shared-engine exactly (the pair schedules above), and so are HORAE and SERICO once their own
 * shared-engine versions are asked for too (+pol); REMUS is the same under every adaptation; names
 * are checked and reported. */
static void test_adaptation_parts(void) {
    static const struct { const char *policy, *adapt; } same[] = {
        { "fcfs", "paper+split+mp+order+loop" }, { "cfs", "paper+split+mp+order+loop" },
        { "fcfs", "paper+split+mp+order+loop+pol" }, { "cfs", "paper+split+mp+order+loop+pol" },
        { "horae", "paper+split+mp+order+loop+pol" }, { "serico", "paper+loop+order+mp+split+pol" },
        { "remus", "paper" },
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        csd_synth_req reqs[2] = { { 12000, 4, 0, 0 }, { 1000, 4, 64, 0 } };
        trace a, b;
        const char *adapts[2] = { "shared-engine", same[k].adapt };
        trace *tr[2] = { &a, &b };
        uint64_t fin[2][2];
        for (int i = 0; i < 2; i++) {
            csd_params p = model(same[k].policy, 1, 2, 64);
            snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "%s", adapts[i]);
            memset(tr[i], 0, sizeof *tr[i]);
            csd_synth_result res;
            char err[256] = "";
            CHECK_EQ_INT(csd_synth_run(&p, reqs, 2, 1, on_slot, tr[i], &res, err, sizeof err), 0);
            fin[i][0] = res.finish_ns[0];
            fin[i][1] = res.finish_ns[1];
            csd_synth_result_free(&res);
        }
        CHECK_STR(a.core[0], b.core[0]);
        CHECK_STR(a.core[1], b.core[1]);
        CHECK_EQ_U64(fin[0][0], fin[1][0]);
        CHECK_EQ_U64(fin[0][1], fin[1][1]);
    }
    /* HORAE and SERICO have paper versions of their own: the full set of advantages is not enough */
    csd_synth_req reqs[2] = { { 12000, 4, 0, 0 }, { 1000, 4, 64, 0 } };
    csd_params p = model("serico", 1, 2, 64);
    snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "paper+split+mp+order+loop");
    csd_synth_result res;
    char err[256] = "";
    CHECK_EQ_INT(csd_synth_run(&p, reqs, 2, 1, NULL, NULL, &res, err, sizeof err), 0);
    CHECK(res.finish_ns[0] != 35000 || res.finish_ns[1] != 57000);   /* shared-engine SERICO: 35000, 57000 */
    csd_synth_result_free(&res);

    /* values: the bases, modifiers, and what is refused */
    uint32_t bits = 0;
    CHECK_EQ_INT(csd_adapt_parse("", &bits, err, sizeof err), 0);
    CHECK_EQ_U64(bits, CSD_ADAPT_ENGINE);
    CHECK_EQ_INT(csd_adapt_parse("paper", &bits, err, sizeof err), 0);
    CHECK_EQ_U64(bits, CSD_ADAPT_PAPER_POLICY);
    CHECK_EQ_INT(csd_adapt_parse("paper+split+eq12", &bits, err, sizeof err), 0);
    CHECK_EQ_U64(bits, CSD_ADAPT_PAPER_POLICY | CSD_ADAPT_SPLIT | CSD_ADAPT_EQ12);
    CHECK_EQ_INT(csd_adapt_parse("shared-engine+eq12", &bits, err, sizeof err), 0);
    CHECK_EQ_U64(bits, CSD_ADAPT_ENGINE | CSD_ADAPT_EQ12);
    CHECK_EQ_INT(csd_adapt_parse("papers", &bits, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "baseline_adaptation 'papers' is unknown (known: shared-engine, paper");
    CHECK_EQ_INT(csd_adapt_parse("paper+fast", &bits, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "modifier '+fast' is unknown");
    CHECK_EQ_INT(csd_adapt_parse("shared-engine+split", &bits, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "'+split' is always on under shared-engine");
    CHECK_EQ_INT(csd_adapt_parse("paper+mp+mp", &bits, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "'+mp' is given twice");
    CHECK_EQ_INT(csd_adapt_parse("paper+pol", &bits, err, sizeof err), 0);
    CHECK_EQ_U64(bits, 0);
    CHECK_EQ_INT(csd_adapt_parse("paper+split+mp+order+loop+pol", &bits, err, sizeof err), 0);
    CHECK_EQ_U64(bits, CSD_ADAPT_ENGINE);
    CHECK_EQ_INT(csd_adapt_parse("paper+pol+pol", &bits, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "'+pol' is given twice");
    CHECK_EQ_INT(csd_adapt_parse("shared-engine+pol", &bits, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "'+pol' is always on under shared-engine");
    /* through the params: the default, validation, and the engine */
    CHECK_EQ_INT(csd_params_preset(&p, "tiny"), 0);
    CHECK_STR(p.baseline_adaptation, "shared-engine");
    CHECK_EQ_U64(p.remus_qthres_cap, 1);
    CHECK_EQ_INT(csd_params_set(&p, "baseline_adaptation", "paper+order", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_set(&p, "baseline_adaptation", "paper+order+x", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "modifier '+x' is unknown");
    CHECK_EQ_INT(csd_params_set(&p, "remus_qthres_cap", "2", err, sizeof err), 0);
    snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "paper");
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "remus_qthres_cap is 0 or 1");
    /* identify reports it among the params and its values among the policies */
    snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "paper+split");
    struct seen { int param, policy; } seen = { 0, 0 };
    csd_params_visit(&p, on_param, &seen.param);
    csd_policies_visit(on_policy, &seen.policy);
    CHECK_EQ_INT(seen.param, 1);
    CHECK_EQ_INT(seen.policy, 1);
    p = model("cfs", 1, 2, 64);
    snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "fair");
    csd_engine *e = NULL;
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), -EINVAL);
    CHECK(e == NULL);
    CHECK_CONTAINS(err, "engine: baseline_adaptation 'fair' is unknown");
}

/* remus_qthres_cap = 0: Algorithm 1 as written, Q_thres unbounded. The multi-plane case above (Q = 2,
 * N_pl = 2, B = 3), core 0: at 11000 available min(2 left, 3 - 2) = 1 < Q_cur 2: line 4 raises Q_thres
 * to 4 (capped: 2) and processes page 0. 12000: Q_cur 2 < 4: process page 1 (capped: Q_cur 2 >= 2,
 * send the next pair). 13000: nothing ready: line 15, Q_thres = max(Q_cur, N_pl) = 2, and the pair
 * goes (read 14000-24000): a whole page later than capped (25000). */
/* SERICO's readings (serico_half_pages, serico_edf, serico_period_ns; docs/SCHEDULERS.md, 7.9) on the
 * three requests of test_paper_schedules with Q = 8: X on core 0, A (c = 12 us) and B (c = 1 us) on
 * core 1. Over stages, B sends while A waits for its pages; over requests, A holds the core (its
 * deadline is the earlier: more work left) and B's first stage comes after A is done. Halves of one
 * page: every send is one page. */
static trace serico_run(const char *param, const char *value, uint64_t *reads) {
    const csd_synth_req reqs[3] = { { 50000, 2, 200, 0 }, { 12000, 4, 0, 0 }, { 1000, 4, 64, 0 } };
    csd_params p = model("serico", 1, 8, 64);
    snprintf(p.baseline_adaptation, sizeof p.baseline_adaptation, "paper");
    char err[256] = "";
    if (param) CHECK_EQ_INT(csd_params_set(&p, param, value, err, sizeof err), 0);
    trace t;
    memset(&t, 0, sizeof t);
    csd_synth_result res;
    CHECK_EQ_INT(csd_synth_run(&p, reqs, 3, 1, on_slot, &t, &res, err, sizeof err), 0);
    CHECK_EQ_U64(res.forced, 0);
    *reads = res.flash_reads;
    csd_synth_result_free(&res);
    return t;
}

static void test_serico_readings(void) {
    uint64_t reads;
    trace t = serico_run(NULL, NULL, &reads);
    CHECK(strstr(t.core[1], "S3x") && strstr(t.core[1], "S3x") < strstr(t.core[1], "f2@"));
    CHECK_EQ_U64(reads, 10);
    t = serico_run("serico_edf", "request", &reads);
    CHECK(strstr(t.core[1], "S3x") > strstr(t.core[1], "f2@"));
    CHECK(strstr(t.core[1], "P3@") > strstr(t.core[1], "f2@"));
    CHECK_EQ_U64(reads, 10);
    t = serico_run("serico_half_pages", "1", &reads);
    for (int k = 0; k < 2; k++)
        for (const char *q = t.core[k]; (q = strstr(q, "x")) != NULL; q++) CHECK(q[1] == '1' && q[2] == '@');
    CHECK_EQ_U64(reads, 10);
    t = serico_run(NULL, NULL, &reads);
    CHECK(strstr(t.core[1], "x4@") != NULL);   /* the default half (Q pages) sends A's four at once */
    /* the values refused (on a preset that validates otherwise) */
    csd_params p;
    char err[256] = "";
    CHECK_EQ_INT(csd_params_preset(&p, "ys9203"), 0);
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_set(&p, "serico_edf", "job", err, sizeof err), 0);
    CHECK(csd_params_validate(&p, err, sizeof err) != 0);
    CHECK_CONTAINS(err, "serico_edf is stage or request");
    CHECK_EQ_INT(csd_params_preset(&p, "ys9203"), 0);
    CHECK_EQ_INT(csd_params_set(&p, "horae_critical_path", "total", err, sizeof err), 0);
    CHECK(csd_params_validate(&p, err, sizeof err) != 0);
    CHECK_CONTAINS(err, "horae_critical_path is remaining or predecessor");
    CHECK_EQ_INT(csd_params_preset(&p, "ys9203"), 0);
    CHECK_EQ_INT(csd_params_set(&p, "serico_period_ns", "999", err, sizeof err), 0);
    CHECK(csd_params_validate(&p, err, sizeof err) != 0);
    CHECK_CONTAINS(err, "serico_period_ns must be 1000..");
}

static void test_qthres_uncapped(void) {
    csd_params p = model("remus", 2, 0, 64);
    p.remus_qthres_cap = 0;
    csd_synth_req req = { 1000, 8, 0, 0 };
    trace t;
    memset(&t, 0, sizeof t);
    csd_synth_result res;
    char err[256] = "";
    CHECK_EQ_INT(csd_synth_run(&p, &req, 1, 1, on_slot, &t, &res, err, sizeof err), 0);
    CHECK_STR(t.core[0], "S1x2@0-1000 P1@11000-12000 P1@12000-13000 S1x2@13000-14000 P1@24000-25000 P1@25000-26000");
    CHECK_EQ_U64(res.finish_ns[0], 26000);
    csd_synth_result_free(&res);
}

/* ---- the offline optimum on a hand case ----------------------------------------------------- */

static void test_optimum(void) {
    /* The pair above (N_pl = 1, Q = 2), core 0: chip 0 holds A, A, B, B (sorted heaviest first).
     *  0: backlog 0 < 2 T_f: send A (read 1000-11000), backlog 12000.  1000: send A again (nothing
     *  ready; read 11000-21000), backlog 24000 >= 20000.  2000: quota full: idle until 11000.
     *  11000: the lightest (B) would wait for the chip (free 21000): process A 11000-23000.
     *  23000: backlog 12000: send B (read 24000-34000).  24000: chip busy: process A 24000-36000.
     *  36000: send B (read 37000-47000); 37000: process B -38000; 47000: B -48000.
     * Lower bound: max(core work 30000 + idle 9000, chip 40000 + T_s + 1000) = 42000, which REMUS
     * reaches on this case; the heuristic is made for the Fig. 4 scale (there it meets the bound). */
    csd_params p = model("remus", 1, 2, 64);
    csd_synth_req reqs[2] = { { 12000, 4, 0, 0 }, { 1000, 4, 64, 0 } };
    csd_optimum o;
    CHECK_EQ_INT(csd_optimum_schedule(&p, reqs, 2, &o), 0);
    CHECK_EQ_U64(o.sends, 8);
    CHECK_EQ_U64(o.pages, 8);
    CHECK_EQ_U64(o.makespan_ns, 48000);
    CHECK_EQ_U64(o.bound_ns, 42000);
    /* CPU-bound: one request, c = 50 us, 8 pages over 2 cores: per core 4 sends + 4 x 50000, the
     * core idles only until the first page lands: the heuristic meets the bound */
    csd_synth_req heavy = { 50000, 8, 0, 0 };
    CHECK_EQ_INT(csd_optimum_schedule(&p, &heavy, 1, &o), 0);
    CHECK_EQ_U64(o.bound_ns, 4 * 1000 + 4 * 50000 + 9000);
    CHECK_EQ_U64(o.makespan_ns, o.bound_ns);
    reqs[0].arrive_ns = 5;
    CHECK_EQ_INT(csd_optimum_schedule(&p, reqs, 2, &o), -EINVAL);   /* offline: all known at 0 */
}

/* ---- names, presets, validation ------------------------------------------------------------- */

static void test_names_and_params(void) {
    const char *const *names = sched_names();
    int n = 0;
    for (; names[n]; n++) {
        const csd_req_stage_ops *o = csd_req_stage_find(names[n]);
        CHECK(o && !strcmp(o->name, names[n]) && o->decide && o->buffer);
        csd_params p;
        CHECK_EQ_INT(csd_params_preset(&p, "tiny"), 0);
        snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", names[n]);
        snprintf(p.issue_model, sizeof p.issue_model, "stage");
        char err[256] = "";
        CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), 0);   /* params.c knows every one */
        /* batch issue has its own table: fcfs alone */
        snprintf(p.issue_model, sizeof p.issue_model, "batch");
        CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), strcmp(names[n], "fcfs") ? -EINVAL : 0);
        if (strcmp(names[n], "fcfs")) {
            char want[128];
            snprintf(want, sizeof want, "request_scheduler '%s' has no batch issue model: set issue_model = stage",
                     names[n]);
            CHECK_STR(err, want);
        }
    }
    CHECK_EQ_INT(n, 5);
    csd_params p;
    CHECK_EQ_INT(csd_params_preset(&p, "tiny"), 0);
    char err[256] = "";
    CHECK_STR(p.issue_model, "batch");
    CHECK_EQ_INT(csd_params_set(&p, "request_scheduler", "edf", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "request_scheduler 'edf' is unknown (known: fcfs, cfs, horae, serico, remus)");
    CHECK_EQ_INT(csd_params_set(&p, "request_scheduler", "fcfs", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_set(&p, "issue_model", "pipelined", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), -EINVAL);
    CHECK_STR(err, "issue_model 'pipelined' is unknown (known: batch, stage)");
    CHECK_EQ_INT(csd_params_set(&p, "issue_model", "batch", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_set(&p, "isp_send_ns", "1000", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_set(&p, "isp_flash_quota", "x", err, sizeof err), -EINVAL);
    CHECK_EQ_U64(p.isp_send_ns, 1000);
    /* the stage model's parameters do not pick the model: batch issue refuses them */
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), -EINVAL);
    CHECK_STR(err, "isp_send_ns and isp_flash_quota are the stage issue model's: set issue_model = stage, or leave "
                   "them 0");

    /* ys9203 (REMUS paper IV-A): 2 cores, 8 x 2 chips, 4 planes, 4 KiB pages, 400 MB buffer, stage issue */
    CHECK_EQ_INT(csd_params_preset(&p, "ys9203"), 0);
    CHECK_EQ_INT(p.cores, 2);
    CHECK_EQ_INT(p.channels * p.chips_per_channel, 16);
    CHECK_EQ_INT(p.planes_per_die, 4);
    CHECK_EQ_INT(p.page_bytes, 4096);
    CHECK_EQ_U64(p.isp_buffer_bytes, 400ull << 20);
    CHECK_EQ_U64(p.isp_send_ns, 1000);
    CHECK_EQ_U64(p.t_read_ns, 65000);
    CHECK_STR(p.issue_model, "stage");
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), 0);

    /* the engine runs the model issue_model names, whatever the request scheduler or its costs */
    CHECK_EQ_INT(csd_params_preset(&p, "tiny"), 0);
    p.blocks_per_plane = 16;
    csd_engine *e = NULL;
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);
    CHECK_EQ_INT(csd_engine_staged(e), 0);
    CHECK_STR(csd_engine_issue_model(e), "batch");
    CHECK_EQ_INT(csd_engine_check(e, err, sizeof err), 0);
    csd_engine_destroy(e);
    snprintf(p.issue_model, sizeof p.issue_model, "stage");
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);   /* fcfs, no send cost: still stage */
    CHECK_EQ_INT(csd_engine_staged(e), 1);
    CHECK_STR(csd_engine_issue_model(e), "stage");
    csd_engine_destroy(e);
    snprintf(p.request_scheduler, sizeof p.request_scheduler, "remus");
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);
    CHECK_EQ_INT(csd_engine_staged(e), 1);
    csd_engine_destroy(e);
    snprintf(p.issue_model, sizeof p.issue_model, "batch");
    e = NULL;
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), -EINVAL);
    CHECK(e == NULL);
    CHECK_STR(err, "engine: request_scheduler 'remus' has no batch issue model: set issue_model = stage");
    snprintf(p.issue_model, sizeof p.issue_model, "stage");
    p.isp_buffer_bytes = p.page_bytes;            /* one page cannot be shared by 2 cores */
    e = NULL;
    CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), -EINVAL);
    CHECK(e == NULL);
    CHECK_CONTAINS(err, "at least one page per core");
}

/* ---- failure paths: stop, tasklet failure, cancel, with invariants after every event --------- */

typedef struct ctl_state { uint64_t n, stop_at, fail_at; } ctl_state;

static int ctl_init(void **state, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    (void)err; (void)errlen;
    ctl_state *s = calloc(1, sizeof *s);
    if (!s) return -ENOMEM;
    const char *v = csd_args_get(a, "stop_at");
    s->stop_at = v ? strtoull(v, NULL, 10) : 0;
    v = csd_args_get(a, "fail_at");
    s->fail_at = v ? strtoull(v, NULL, 10) : 0;
    fr->kind = CSD_FRAMING_RECORDS;
    fr->record_bytes = a->page_bytes;
    *state = s;
    return 0;
}

static int ctl_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    (void)rec; (void)len; (void)off;
    ctl_state *s = state;
    s->n++;
    csd_io_charge(io, 3000, 0);
    if (s->fail_at && s->n == s->fail_at) {
        csd_io_fail(io, "record %llu is bad", (unsigned long long)s->n);
        return -EIO;
    }
    return s->stop_at && s->n == s->stop_at ? CSD_STOP : 0;
}

static int ctl_finish(void *state, csd_tasklet_io *io) { (void)state; (void)io; return 0; }
static void ctl_destroy(void *state) { free(state); }

static const csd_tasklet_ops ctl_ops = {
    .name = "ctl", .summary = "stops or fails on cue", .init = ctl_init, .record = ctl_record,
    .finish = ctl_finish, .destroy = ctl_destroy,
};

typedef struct job {
    csd_params *p;
    uint64_t lba;
    csd_outbuf out;
    csd_exec *run;
    csd_page_source src;
    csd_isp_req *req;
    csd_kv kv;
} job;

static uint64_t job_ppn(void *arg, uint64_t page) {
    job *j = arg;
    return csd_synth_ppn(j->p, j->lba + page);
}
static int job_read(void *arg, uint64_t ppn, uint8_t *buf) { (void)arg; (void)ppn; (void)buf; return 0; }

static void job_start(csd_engine *e, job *j, csd_params *p, uint64_t lba, uint64_t pages, const char *key,
                      const char *val) {
    memset(j, 0, sizeof *j);
    j->p = p;
    j->lba = lba;
    csd_outbuf_init(&j->out, 4096, 0);
    j->kv = (csd_kv){ key, val };
    csd_tasklet_args a = { .static_params = &j->kv, .n_static = key ? 1 : 0, .page_bytes = p->page_bytes };
    char err[256] = "";
    CHECK_EQ_INT(csd_exec_create(&j->run, &ctl_ops, &a, &j->out, err, sizeof err), 0);
    uint64_t size = pages * p->page_bytes, first, last;
    CHECK_EQ_INT(csd_exec_begin(j->run, size, 0, size, p->page_bytes, &first, &last, err, sizeof err), 0);
    j->src = (csd_page_source){ j, job_ppn, job_read, NULL, NULL };
    csd_isp_work w = csd_exec_work(j->run);
    CHECK_EQ_INT(csd_engine_submit_ex(e, &j->req, &w, &j->src, first, last, pages - 1, p->page_bytes, 3000), 0);
}

static void job_end(csd_engine *e, job *j) {
    csd_engine_release(e, j->req);
    csd_exec_destroy(j->run);
    csd_outbuf_free(&j->out);
}

static void step_checked(csd_engine *e, uint64_t until) {
    char err[256] = "";
    uint64_t next;
    (void)next;
    while (csd_engine_now(e) <= until && csd_engine_step(e)) {
        if (csd_engine_check(e, err, sizeof err)) fprintf(stderr, "invariant: %s\n", err);
        CHECK_EQ_INT(csd_engine_check(e, err, sizeof err), 0);
    }
}

static void test_failure_paths(void) {
    const char *const *names = sched_names();
    for (int k = 0; names[k]; k++) {
        csd_params p = model(names[k], 2, 0, 24);
        csd_engine *e = NULL;
        char err[256] = "";
        CHECK_EQ_INT(csd_engine_create(&e, &p, err, sizeof err), 0);
        job stop, fail, cancel, ok;
        job_start(e, &stop, &p, 0, 20, "stop_at", "5");     /* stops at its 5th page */
        job_start(e, &fail, &p, 100, 20, "fail_at", "7");   /* fails at its 7th page */
        job_start(e, &cancel, &p, 200, 20, NULL, NULL);     /* released mid-way */
        job_start(e, &ok, &p, 300, 12, NULL, NULL);
        step_checked(e, 30000);
        csd_isp_progress pr;
        csd_engine_progress(e, cancel.req, &pr);
        CHECK(!pr.finished);
        job_end(e, &cancel);
        step_checked(e, UINT64_MAX);
        CHECK_EQ_INT(csd_engine_step(e), 0);
        csd_engine_progress(e, stop.req, &pr);
        CHECK(pr.finished && pr.status == 0);
        CHECK_EQ_U64(pr.pages_total, 5);
        CHECK_EQ_U64(pr.pages_done, 5);
        csd_engine_progress(e, fail.req, &pr);
        CHECK(pr.finished);
        CHECK_EQ_INT(pr.status, -EIO);
        csd_engine_progress(e, ok.req, &pr);
        CHECK(pr.finished && pr.status == 0);
        CHECK_EQ_U64(pr.pages_done, 12);
        /* everything handed back: no buffer held, nothing in flight */
        csd_engine_stats st;
        csd_engine_stats_get(e, &st, NULL);
        CHECK_EQ_U64(st.isp_buffer_used_bytes, 0);
        CHECK_EQ_INT(csd_engine_check(e, err, sizeof err), 0);
        job_end(e, &stop);
        job_end(e, &fail);
        job_end(e, &ok);
        csd_engine_destroy(e);
    }
}

int main(void) {
    test_assignment();
    test_remus_rules();
    test_pair_schedules();
    test_multiplane();
    test_whole_groups();
    test_paper_schedules();
    test_paper_multiplane();
    test_adaptation_parts();
    test_qthres_uncapped();
    test_serico_readings();
    test_optimum();
    test_names_and_params();
    test_failure_paths();
    TEST_OK("test_sched");
}
