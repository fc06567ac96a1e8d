/* Workloads of the 2PM paper's evaluation (section V-A, Fig. 8) run on the real engine and flash model:
 * in-storage pattern-matching requests (the grep2 tasklet, two-stage, over generated text in which key
 * requests hold matching lines), host writes (programs) and background migration (page copies, then
 * an erase), all sharing the chips.
 *
 * A mix is a list of requests (kind, size, place, arrival time), generated from a workload's shares or
 * read from an MSR-Cambridge CSV trace (reads become tasklet requests, writes host writes), and the
 * knobs the paper leaves open that say what the requests hold: key share, matching lines per page,
 * decoys, migration per write. Tasklet requests and host writes reach the device by separate paths
 * (an SSD's submission queues; the paper's request queue "supports multiple streams", III-B), each
 * with its own depth, or, as an ablation, share one. Open loop: each request enters its path's queue
 * at its arrival time and the device takes it when its path has room; closed loop: a path's next
 * request enters when one of its own completes (with separate paths, each drains at its own pace). Latency runs from arrival (closed loop: entering the
 * device) to completion (a tasklet request: the end of its second stage). docs/2PM.md states how the
 * mixes are made. Used by bench_2pm and the tests. */
#ifndef CSD_BENCH_TWOPM_H
#define CSD_BENCH_TWOPM_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/params.h"

typedef struct twopm_mix {
    const char *name;
    uint32_t requests;          /* tasklet requests + host writes (generated mixes) */
    double write_frac;          /* of requests: host writes */
    double key_frac;            /* of tasklet requests: key requests (hold a matching line) */
    double key_density;         /* matching lines planted in a key request per page (at least one) */
    double decoy_frac;          /* of non-key tasklet requests: hold a start key without the end key */
    double migrations_per_write;/* background migration jobs per host write */
    uint32_t migrate_pages;     /* pages one migration job copies before its erase */
    uint32_t isp_pages[4];      /* a tasklet request's size in pages: one of these, equally likely */
    uint32_t write_pages[4];    /* a host write's size in pages: one of these, equally likely */
    uint64_t seed;
} twopm_mix;

/* The i-th of the 16 workloads (0..15): 0-4 write-intensive, 5-10 balanced, 11-15 read-intensive. */
void twopm_workload(int i, twopm_mix *m);

enum { TWOPM_ISP = 0, TWOPM_WRITE = 1 };
enum { TWOPM_HOST_FIFO = 0, TWOPM_HOST_RR = 1, TWOPM_HOST_CARS = 2 };

/* One request of a mix. */
typedef struct twopm_req {
    uint64_t arrive_ns;
    uint8_t kind;               /* TWOPM_ISP (a read in a trace) or TWOPM_WRITE */
    uint32_t pages;
    uint64_t lba;               /* first logical page */
} twopm_req;

typedef struct twopm_list {
    twopm_req *r;
    size_t n;
} twopm_list;

/* The offered load of l on p's chips: the chip time its requests (and their migration) need over the
 * chips' time between the first and the last arrival. */
double twopm_load(const csd_params *p, const twopm_mix *m, const twopm_list *l);
/* m's requests; load > 0: Poisson arrivals at that offered load, else all at 0. 0 or -ENOMEM. */
int twopm_generate(const csd_params *p, const twopm_mix *m, double load, twopm_list *out);
/* l as an MSR-Cambridge CSV (timestamp in 100 ns units, host, disk, Read|Write, byte offset, bytes,
 * response time 0). 0 or a negative errno with err set. */
int twopm_write_msr(const csd_params *p, const twopm_list *l, const char *path, char *err, size_t errlen);
/* Read an MSR-Cambridge CSV: a read is a tasklet request, a write a host write, both of the pages the
 * byte range covers (at most 256), offsets wrapped into the device; times relative to the first line.
 * load > 0: times rescaled to that offered load. 0, or a negative errno with err naming the line. */
int twopm_read_msr(const csd_params *p, const twopm_mix *m, const char *path, double load, twopm_list *out,
                   char *err, size_t errlen);
void twopm_list_free(twopm_list *l);

typedef struct twopm_opts {
    uint32_t isp_qd;            /* tasklet requests in the device at most (the paper's queue depth per group) */
    uint32_t write_qd;          /* host writes in the device at most; 0 = one depth, isp_qd, shared by both */
    int open_loop;              /* requests enter at their arrival times */
    int host_sched;             /* which waiting request the device takes next: TWOPM_HOST_FIFO (the oldest
                                 * of the paths' heads), TWOPM_HOST_RR (the paths in turn: the paper's
                                 * round-robin arbitration, III-B) or TWOPM_HOST_CARS (CARS's conflict-aware
                                 * turns) */
    int fig10;                  /* record when each page landed and was processed (twopm_result.fig10_*) */
} twopm_opts;

typedef struct twopm_req_result {
    uint8_t kind;               /* TWOPM_ISP or TWOPM_WRITE */
    uint8_t key;                /* tasklet request holding a matching line */
    uint32_t pages;
    uint64_t arrive_ns, dispatch_ns, finish_ns;
    uint64_t matched_ns;        /* when the first stage first found a matching page (0 = never) */
} twopm_req_result;

typedef struct twopm_result {
    twopm_req_result *req;      /* per request, in the list's order (malloc'd) */
    size_t n;
    uint64_t makespan_ns;
    uint64_t migrations, erases, flash_reads, flash_programs, suspends;
    uint64_t matched_lines;     /* the tasklets' counts, summed: equal to the lines planted */
    uint64_t planted_lines;
    uint64_t chip_busy_ns;      /* summed over the chips */
    /* fig10: per page of every tasklet request, how long it waited between landing in the device and
     * its first-stage processing: out of order (as run: its channel's unit) and in order (the same
     * landings, each page processed at the unit's rate after the page before it) */
    uint64_t *fig10_ooo_ns, *fig10_ino_ns;
    size_t fig10_n;
} twopm_result;

/* Run l with the contents m describes on params p (blocks_per_plane must be set). 0, or a negative
 * errno with err set (engine errors, a tasklet whose count differs from the lines planted, a request
 * that never finished). */
int twopm_run(const csd_params *p, const twopm_mix *m, const twopm_list *l, const twopm_opts *o,
              twopm_result *out, char *err, size_t errlen);
void twopm_result_free(twopm_result *r);

#endif
