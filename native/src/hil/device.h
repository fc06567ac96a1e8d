/* The device: everything one emulated Smart SSD has hangs off this struct, so several devices live in
 * one process. The host interface layer (hil/) owns it: it takes commands, validates them and drives
 * the layers below (runtime, engine, FTL). */
#ifndef CSD_HIL_DEVICE_H
#define CSD_HIL_DEVICE_H

#include <pthread.h>
#include <stdint.h>

#include "smartssd/csd.h"
#include "engine/engine.h"
#include "ftl/ftl.h"
#include "flash/flash.h"
#include "hil/vobj.h"

/* Request command field numbers 10..73 (object commands 10-29, user tasklets 40-42, block I/O 43-49,
 * observability 50-59, hardening 60-69) each have a counter. */
#define CSD_CMD_KINDS 64

typedef struct csd_cmd_counters {
    uint64_t by_kind[CSD_CMD_KINDS]; /* indexed by Request command field number - 10 */
    uint64_t errors, bad_packets;
    uint64_t vobjs_reclaimed, runs_cancelled;   /* the orphan rule's work (vobj_reclaim) */
    uint64_t io_commands, io_ns;     /* write_object and read_object of data: count, device ns */
    uint64_t blk_by_op[5];                      /* block requests accepted, by csd_block_op */
    uint64_t blk_failed;                        /* of them, failed in the FTL (NO_SPACE, IO_ERROR) */
} csd_cmd_counters;

struct csd_device {
    pthread_mutex_t mu;
    pthread_cond_t work_cv;          /* the worker has something to run */
    pthread_cond_t progress_cv;      /* a request advanced or finished */
    pthread_t worker;
    int worker_started, stop, background;
    csd_params params;
    csd_ftl *ftl;
    csd_engine *eng;
    vobj *vobjs;
    struct csd_sandbox *sandbox;     /* user tasklet programs: made on first use */
    uint64_t next_vid, vseq;
    int running;                     /* outputs in RUN_RUNNING */
    csd_cmd_counters counters;
    struct csd_trace *trace;         /* the session's timeline, NULL when off */
    char trace_path[CSD_PATH_MAX];
    char name[CSD_PATH_MAX];         /* the image path: names the device in its timeline */
    /* paced mode: wall time follows device time */
    uint64_t paced_slices, paced_behind, paced_behind_max_ns, paced_sleep_ns;
    uint64_t pace_wall0, pace_dev0;  /* the commands' current stretch */
    /* client sessions (daemon connections) and the orphan rule (vobj.c) */
    uint64_t cur_session;            /* the session of the command being run; 0 = this process */
    uint64_t next_session;
    uint64_t *sessions;              /* open sessions */
    size_t n_sessions, cap_sessions;
    uint64_t reclaim_at_ns;          /* wall ns of the next vobj_reclaim pass worth making */
    vobj_gone_rec gone[CSD_VOBJ_GONE_KEEP];
    size_t gone_next;
    char gone_msg[200];
    /* host block I/O (cmd_block.c) */
    uint64_t blk_ns, blk_lbas;       /* the namespace object (0 = not opened yet) and its LBAs */
    uint64_t blk_last_arrival;       /* the newest accepted request's arrival: arrivals never go back */
    uint8_t *blk_buf;                /* fill-pattern writes */
    size_t blk_buf_cap;
    csd_flash_batch blk_ops;
    struct csd_bufpool *pool;        /* large buffers of tasklet requests, reused (host/bufpool.h) */
};

/* The block namespace's object: object commands neither list nor touch names under the prefix. */
#define CSD_BLOCK_PREFIX ".block/"
#define CSD_BLOCK_NS_NAME CSD_BLOCK_PREFIX "namespace"

/* Every policy name in p against its layer's registry; err names the key and the known names.
 * 0 or -EINVAL. */
int csd_policies_check(const csd_params *p, char *err, size_t errlen);
/* Visit each pluggable layer's key and its known policy names, comma-separated. */
void csd_policies_visit(void (*fn)(void *arg, const char *key, const char *names), void *arg);

#endif
