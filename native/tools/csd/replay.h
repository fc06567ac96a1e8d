/* csd replay's pieces shared between its files. */
#ifndef CSD_REPLAY_H
#define CSD_REPLAY_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "smartssd/block.h"
#include "trace_fmt.h"

/* One trace request's times on the device clock (a request wider than the device takes is split in
 * pieces: the earliest start and the latest end of its pieces). */
typedef struct rres {
    uint64_t arrival;     /* the trace's arrival */
    uint64_t submit;      /* when it reached the device: later than arrival if it waited on the host */
    uint64_t admit, first, done;
    uint32_t flash_ops;
    uint32_t pieces, seen;
    int status;
    /* the device's Fig. 10 times (docs/BLOCK-IO.md); of a request in pieces: the earliest submission
     * to the flash, the latest last flash command, the pieces' own flash times summed */
    uint64_t fsubmit, flash_done, flash_busy;
    uint32_t clf_delayed, dle_delayed;   /* its sets that waited on another request's map command */
} rres;

/* The way to the device (replay_link.c): the block C API on an image, packets to a daemon's socket. */
typedef void (*rlink_take_fn)(void *arg, const csd_block_cpl *c);
typedef struct rlink {
    cli *c;
    uint64_t outstanding;           /* after the last submit or poll */
    uint64_t now;                   /* the device clock after the last poll */
    csd_block_cpl *cpl;             /* C API: completions of one call */
    Smartssd__V1__BlockRequest *br, **bp;   /* packets: one submission's requests */
} rlink;
int rlink_init(rlink *l, cli *c, size_t max_submit);   /* 0, or -1 when out of memory */
void rlink_free(rlink *l);
/* Submit k requests (all or none); 0, or -1 after the error was printed. */
int rlink_submit(rlink *l, const csd_block_req *q, size_t k);
/* Run the device until min completions are ready, then on to until (if later), and hand every ready
 * completion to take (a BlockPoll); 0, or -1 after the error was printed. */
int rlink_poll(rlink *l, uint32_t min, uint64_t until, rlink_take_fn take, void *arg);

/* The DRS paper's Fig. 10 parts of a request's latency, adding up to it: the host-side queue (before
 * the device had room), the I/O request queue, the flash command queue (the rest), its own flash
 * operation time, and the host link (command and data in before its flash commands, the data out
 * after them). */
typedef struct rparts { uint64_t host_queue, io_queue, flash_queue, flash, link; } rparts;
rparts replay_parts(const rres *x);

/* The summary printed before a replay and by --stats-only. */
void replay_print_trace(FILE *out, const char *path, const tf_trace *tr, const tf_stats *s);
json_object *replay_trace_json(const char *path, const tf_trace *tr, const tf_stats *s);

/* What the replay measured (replay_out.c). */
typedef struct replay_result {
    const char *path;
    const tf_trace *tr;
    const rres *res;
    uint32_t queue_depth, flash_queue_depth;
    int afap, prefill;
    const char *prefill_mode;
    int64_t prefilled;
    uint64_t nflash, split;
    uint64_t zero_pages_unstored;   /* pages of zeros the device did not store (the image held them) */
    double parse_wall_s, prefill_wall_s, replay_wall_s;
} replay_result;

int replay_write_csv(const char *path, const tf_trace *tr, const rres *res);   /* 0 or -errno */
int replay_plot(const char *csv, const char *png, const char *title);           /* 0 or -errno */
/* The latency table (text) or the JSON object (with the trace's summary under "trace"). */
void replay_report(const replay_result *r, int json, json_object *trace_json);

#endif
