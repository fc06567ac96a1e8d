/* Volatile objects: tasklet and output objects, in device DRAM only (Smart SSD paper IV-C). */
#ifndef CSD_HIL_VOBJ_H
#define CSD_HIL_VOBJ_H

#include <stddef.h>
#include <stdint.h>

#include "smartssd/tasklet.h"
#include "engine/engine.h"
#include "runtime/exec.h"
#include "ftl/ftl.h"

/* Their ids start here so they never collide with data object ids (persistent, counting up from 1). */
#define CSD_VOLATILE_ID_BASE (1ull << 40)
_Static_assert(CSD_VOLATILE_ID_BASE == CSD_DATA_ID_LIMIT, "data object ids end where volatile ids begin");
#define CSD_MAX_VOLATILE_OBJECTS 4096

typedef struct csd_device csd_device;

typedef enum { RUN_IDLE = 0, RUN_RUNNING = 1, RUN_FINISHED = 2 } run_state;

/* A run's input: pages of one data object, through the FTL. */
typedef struct page_src_ctx {
    csd_device *dev;
    uint64_t object_id;
    csd_exec *run;           /* asked which pages it needs (csd_exec_needs_page); NULL = all */
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
    struct csd_user_tasklet *user;   /* a user program (TASKLET, and the OUTPUT running it), or NULL */
    uint8_t *filter;                 /* pushed filter: a packed smartssd.v1.Expr (CreateObject.filter), or NULL */
    size_t filter_len;
    struct csd_decl *decl;           /* the tasklet's declared columns, when it has a filter */
    struct csd_row_filter *rfilter;  /* OUTPUT: the filter its run applies, or NULL */
    /* OUTPUT */
    csd_kv *rparams;
    size_t n_rparams;
    char **keywords;
    size_t n_keywords;
    uint64_t max_outputs;
    csd_outbuf out;
    csd_exec *run;
    csd_isp_req *req;
    run_state state;
    uint64_t tasklet_id, input_id;
    uint64_t bytes_to_host;
    int status;                      /* csd_status once finished */
    char message[512];
    page_src_ctx src_ctx;
    csd_page_source src;
    csd_isp_work work;
    csd_tasklet_args args;
    csd_tasklet_diag diag;
    /* the client that last used it (0: this process, never reclaimed) and when, wall ns */
    uint64_t session;
    uint64_t used_ns;
    struct vobj *next;
} vobj;

/* Why a volatile object went away on its own, kept for a while so the client that comes back gets a
 * clear error instead of a bare NOT_FOUND. */
typedef struct vobj_gone_rec {
    uint64_t id;
    uint64_t idle_ms;                /* unused this long when reclaimed */
} vobj_gone_rec;
#define CSD_VOBJ_GONE_KEEP 256

vobj *vobj_find(csd_device *d, uint64_t id);
/* vobj_find for a command: the object counts as used now, by the command's session. */
vobj *vobj_use(csd_device *d, uint64_t id);
/* "" or, for an id reclaimed lately, "; it was reclaimed: ..." to append to a NOT_FOUND message. */
const char *vobj_gone(csd_device *d, uint64_t id);
/* Reclaim what the orphan rule says is due at wall time now_ns (docs/RELIABILITY.md): objects of ended
 * sessions unused for orphan_timeout_ms are freed; a running output of a live session left unread (its
 * buffer backlogged) that long has its run cancelled with RESOURCE_EXHAUSTED. Returns objects freed. */
size_t vobj_reclaim(csd_device *d, uint64_t now_ns);
/* A session's objects start their orphan timeout now. */
void vobj_session_ended(csd_device *d, uint64_t session, uint64_t now_ns);
/* A new object of kind (ids and creation order assigned), linked into the table; NULL without memory. */
vobj *vobj_new(csd_device *d, int kind);
/* Unlink and free o, cancelling its run. */
void vobj_free(csd_device *d, vobj *o);
size_t vobj_count(csd_device *d);
void vobj_kv_free(csd_kv *kv, size_t n);
/* Bring finished requests' state into their outputs. */
void vobj_poll_runs(csd_device *d);
/* 1 if a running output has half or more of its result buffer unread (the device thread then waits). */
int vobj_backlogged(csd_device *d);
/* 1 if a running output reads data object id. */
int vobj_reads_object(csd_device *d, uint64_t id);

#endif
