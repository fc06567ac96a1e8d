/* The stage issue model's request schedulers (every one there is) as a NULL-terminated list, for loops
 * over every policy. */
#ifndef CSD_TEST_SCHED_NAMES_H
#define CSD_TEST_SCHED_NAMES_H

#include <stdio.h>

#include "check.h"
#include "sched/sched.h"

static inline const char *const *sched_names(void) {
    static const char *names[32];
    size_t n = 0;
    for (const csd_req_stage_ops *o; n + 1 < sizeof names / sizeof names[0] && (o = csd_req_stage_at(n)); n++)
        names[n] = o->name;
    names[n] = NULL;
    return names;
}

/* splitmix64, for the random request mixes (test_sched_random, test_seams) */
static inline uint64_t sched_rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t sched_pick(uint64_t *s, uint64_t lo, uint64_t hi) { return lo + sched_rng(s) % (hi - lo + 1); }

/* A random small device for request mixes: 1-3 cores, 1-3 x 1-2 chips of 1-3 planes, reads of 1-20 us
 * and no channel, firmware or page costs, 1 ns a cycle; under stage issue (stage) a send cost and a
 * flash quota; a buffer of a page per core to 40 pages. */
static inline void sched_random_device(csd_params *p, uint64_t *seed, int stage) {
    CHECK_EQ_INT(csd_params_preset(p, "tiny"), 0);
    p->cores = (uint32_t)sched_pick(seed, 1, 3);
    p->channels = (uint32_t)sched_pick(seed, 1, 3);
    p->chips_per_channel = (uint32_t)sched_pick(seed, 1, 2);
    p->planes_per_die = (uint32_t)sched_pick(seed, 1, 3);
    p->pages_per_block = 16;
    p->blocks_per_plane = 64;
    p->t_read_ns = sched_pick(seed, 1000, 20000);
    p->channel_bytes_per_s = 0;
    p->fw_page_ns = 0;
    p->core_mhz = 1000;
    p->page_cycles = 0;
    p->dram_access_ns = 0;
    if (stage) {
        static const uint64_t TS[] = { 0, 300, 1000 };
        p->isp_send_ns = TS[sched_rng(seed) % 3];
        p->isp_flash_quota = sched_rng(seed) % 2 ? 0 : (uint32_t)sched_pick(seed, 1, 6);
    }
    p->isp_buffer_bytes = sched_pick(seed, p->cores, 40) * p->page_bytes;
    snprintf(p->issue_model, sizeof p->issue_model, "%s", stage ? "stage" : "batch");
}

/* Name policy the request scheduler of p, under batch issue when batch has it, else stage issue (the
 * one model a stage-only policy has). */
static inline void sched_set(csd_params *p, const char *policy) {
    snprintf(p->request_scheduler, sizeof p->request_scheduler, "%s", policy);
    snprintf(p->issue_model, sizeof p->issue_model, "%s", csd_req_batch_find(policy) ? "batch" : "stage");
}

#endif
