/* The device: the command handler's view of one emulated Smart SSD (paper IV-A, IV-C). Everything a
 * device needs hangs off this struct, so several devices live in one process. */
#ifndef CSD_ISP_DEVICE_H
#define CSD_ISP_DEVICE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "smartssd/csd.h"
#include "smartssd/tasklet.h"
#include "smartssd/v1/device.pb-c.h"
#include "ftl/ftl.h"
#include "isp/engine.h"
#include "isp/taskrun.h"

/* Tasklet and output objects live in device DRAM only; their ids start here so they never collide
 * with data object ids (which are persistent and count up from 1). */
#define CSD_VOLATILE_ID_BASE (1ull << 40)
#define CSD_MAX_PARAMS 256
#define CSD_MAX_PARAM_BYTES 4096
#define CSD_DEFAULT_RESULT_CHUNK (1u << 20)

typedef enum { RUN_IDLE = 0, RUN_RUNNING = 1, RUN_FINISHED = 2 } run_state;

typedef struct csd_device csd_device;

typedef struct page_src_ctx {
    csd_device *dev;
    uint64_t object_id;
} page_src_ctx;

typedef struct vobj {
    uint64_t id;
    int kind;                        /* SMARTSSD__V1__OBJECT_KIND__TASKLET or __OUTPUT */
    uint64_t created_seq;
    /* TASKLET */
    const csd_tasklet_ops *ops;
    csd_kv *params;
    size_t n_params;
    uint8_t *plan;
    size_t plan_len;
    int users;                       /* running outputs using this tasklet */
    /* OUTPUT */
    csd_kv *rparams;
    size_t n_rparams;
    char **keywords;
    size_t n_keywords;
    uint64_t max_outputs;
    csd_outbuf out;
    csd_taskrun *run;
    csd_isp_req *req;
    run_state state;
    uint64_t tasklet_id, input_id;
    uint64_t bytes_to_host;
    int status;                      /* csd_status once finished */
    char message[512];
    page_src_ctx src_ctx;
    csd_page_source src;
    csd_tasklet_args args;
    csd_tasklet_diag diag;
    struct vobj *next;
} vobj;

typedef struct csd_cmd_counters {
    uint64_t by_kind[32];            /* indexed by Request command field number - 10 */
    uint64_t errors, bad_packets;
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
    uint64_t next_vid, vseq;
    int running;                     /* outputs in RUN_RUNNING */
    csd_cmd_counters counters;
    uint8_t *scratch;                /* page_bytes, for page reads by the command handler */
};

/* Per-command state: the response being built and memory to free after packing. */
typedef struct cmd_ctx {
    Smartssd__V1__Response *resp;
    const csd_payload *payload;
    int status;
    char msg[1024];
    csd_tasklet_diag diag;           /* a tasklet parameter the command was refused for */
    uint64_t device_ns;
    int charged;                     /* device_ns already set by an engine call */
    void **allocs;
    size_t n_allocs, cap_allocs;
} cmd_ctx;

/* Record a failure; returns -1 for `return cmd_fail(...)`. */
int cmd_fail(cmd_ctx *c, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fail with the status for a negative errno and a message. */
int cmd_fail_errno(cmd_ctx *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Memory freed after the response is packed. */
void *cmd_alloc(cmd_ctx *c, size_t n);
char *cmd_strdup(cmd_ctx *c, const char *s);
/* Charge the command's device time: cmd overhead + ops + host link bytes. */
void cmd_charge(csd_device *d, cmd_ctx *c, const csd_flash_batch *ops, uint64_t to_dev, uint64_t to_host);

/* Reply to create_object with the new object's id. */
int cmd_reply_id(cmd_ctx *c, uint64_t id);

vobj *vobj_find(csd_device *d, uint64_t id);
void vobj_free(csd_device *d, vobj *o);
/* Bring finished requests' state into their outputs. */
void device_poll_runs(csd_device *d);

/* Command handlers (cmd_data.c, cmd_tasklet.c, cmd_info.c). Return 0 or -1 after cmd_fail. */
int cmd_create(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c);
int cmd_execute(csd_device *d, const Smartssd__V1__ExecuteObject *m, cmd_ctx *c);
int cmd_read(csd_device *d, const Smartssd__V1__ReadObject *m, cmd_ctx *c);
int cmd_write(csd_device *d, const Smartssd__V1__WriteObject *m, cmd_ctx *c);
int cmd_delete(csd_device *d, const Smartssd__V1__DeleteObject *m, cmd_ctx *c);
int cmd_rename(csd_device *d, const Smartssd__V1__RenameObject *m, cmd_ctx *c);
int cmd_list(csd_device *d, const Smartssd__V1__ListObjects *m, cmd_ctx *c);
int cmd_stat(csd_device *d, const Smartssd__V1__StatObject *m, cmd_ctx *c);
int cmd_trim(csd_device *d, const Smartssd__V1__TrimObject *m, cmd_ctx *c);
int cmd_identify(csd_device *d, const Smartssd__V1__Identify *m, cmd_ctx *c);
int cmd_stats(csd_device *d, const Smartssd__V1__Stats *m, cmd_ctx *c);
/* Tasklet-side handlers used by cmd_create / cmd_read / cmd_delete. */
int cmd_create_tasklet(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c);
int cmd_create_output(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c);
int cmd_read_output(csd_device *d, vobj *o, const Smartssd__V1__ReadObject *m, cmd_ctx *c);
int cmd_delete_vobj(csd_device *d, vobj *o, cmd_ctx *c);
/* 1 if a running output has half or more of its result buffer unread (the device thread then waits). */
int device_output_backlogged(csd_device *d);
/* 1 if a running output reads data object id. */
int device_object_in_use(csd_device *d, uint64_t id);

#endif
