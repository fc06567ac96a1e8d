/* Synthetic workloads of the 2PM paper's evaluation (section V-A, Fig. 8) run on the real engine and
 * flash model: in-storage pattern-matching requests (the grep2 tasklet, two-stage, over generated text
 * in which key requests hold a matching line), host writes (programs) and background migration (page
 * copies, then an erase), all sharing the chips. The requests are replayed in order with queue_depth of
 * them (tasklet requests and writes) in the device at all times: one enters when one completes. A
 * write's completion starts a migration job with probability migrations_per_write. Latency runs from
 * entering the device to completion (for a tasklet request, the end of its second stage). docs/2PM.md
 * states how the mixes are generated. Used by bench_2pm and the tests. */
#ifndef CSD_BENCH_TWOPM_H
#define CSD_BENCH_TWOPM_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/params.h"

typedef struct twopm_mix {
    const char *name;
    uint32_t requests;          /* tasklet requests + host writes */
    double write_frac;          /* of requests: host writes */
    double key_frac;            /* of tasklet requests: key requests (hold a matching line) */
    double key_density;         /* matching lines planted in a key request per page (at least one) */
    double decoy_frac;          /* of non-key tasklet requests: hold a start key without the end key */
    double migrations_per_write;/* background migration jobs per host write */
    uint32_t migrate_pages;     /* pages one migration job copies before its erase */
    uint32_t isp_pages[4];      /* a tasklet request's size in pages: one of these, equally likely */
    uint64_t seed;
} twopm_mix;

/* The i-th of the 16 workloads (0..15): 0-4 write-intensive, 5-10 balanced, 11-15 read-intensive. */
void twopm_workload(int i, twopm_mix *m);

enum { TWOPM_ISP = 0, TWOPM_WRITE = 1 };

typedef struct twopm_req_result {
    uint8_t kind;               /* TWOPM_ISP or TWOPM_WRITE */
    uint8_t key;                /* tasklet request holding a matching line */
    uint32_t pages;
    uint64_t dispatch_ns, finish_ns;
    uint64_t matched_ns;        /* when the first stage first found a matching page (0 = never) */
} twopm_req_result;

typedef struct twopm_result {
    twopm_req_result *req;      /* per request, in arrival order (malloc'd) */
    size_t n;
    uint64_t makespan_ns;
    uint64_t migrations, erases, flash_reads, flash_programs;
    uint64_t matched_lines;     /* the tasklets' counts, summed: equal to the lines planted */
    uint64_t planted_lines;
} twopm_result;

/* Run mix on params p (blocks_per_plane must be set), queue_depth requests at most in the device.
 * 0, or a negative errno with err set (engine errors, a tasklet whose count differs from the lines
 * planted, a request that never finished). */
int twopm_run(const csd_params *p, const twopm_mix *m, uint32_t queue_depth, twopm_result *out, char *err,
              size_t errlen);
void twopm_result_free(twopm_result *r);

#endif
