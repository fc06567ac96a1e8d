/* The volatile-object table: tasklet and output objects live in device DRAM only (paper IV-C), with
 * ids from CSD_VOLATILE_ID_BASE up; each output holds at most one run of a tasklet request. */
#include "hil/vobj.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hil/device.h"

vobj *vobj_find(csd_device *d, uint64_t id) {
    for (vobj *o = d->vobjs; o; o = o->next)
        if (o->id == id) return o;
    return NULL;
}

void vobj_kv_free(csd_kv *kv, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free((char *)kv[i].key);
        free((char *)kv[i].value);
    }
    free(kv);
}

void vobj_free(csd_device *d, vobj *o) {
    for (vobj **p = &d->vobjs; *p; p = &(*p)->next) {
        if (*p == o) {
            *p = o->next;
            break;
        }
    }
    if (o->req) csd_engine_release(d->eng, o->req);
    if (o->run) csd_exec_destroy(o->run);
    if (o->user) csd_user_tasklet_put(o->user);
    if (o->state == RUN_RUNNING) {
        d->running--;
        vobj *t = vobj_find(d, o->tasklet_id);
        if (t) t->users--;
    }
    csd_outbuf_free(&o->out);
    vobj_kv_free(o->params, o->n_params);
    vobj_kv_free(o->rparams, o->n_rparams);
    for (size_t i = 0; i < o->n_keywords; i++) free(o->keywords[i]);
    free(o->keywords);
    free(o->plan);
    free(o);
}

vobj *vobj_new(csd_device *d, int kind) {
    vobj *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->id = d->next_vid++;
    o->kind = kind;
    o->created_seq = ++d->vseq;
    o->next = d->vobjs;
    d->vobjs = o;
    return o;
}

size_t vobj_count(csd_device *d) {
    size_t n = 0;
    for (vobj *o = d->vobjs; o; o = o->next) n++;
    return n;
}

int vobj_backlogged(csd_device *d) {
    for (vobj *o = d->vobjs; o; o = o->next)
        if (o->state == RUN_RUNNING && o->out.len - o->out.read_pos >= o->out.limit_bytes / 2) return 1;
    return 0;
}

int vobj_reads_object(csd_device *d, uint64_t id) {
    for (vobj *o = d->vobjs; o; o = o->next)
        if (o->state == RUN_RUNNING && o->input_id == id) return 1;
    return 0;
}

static int status_of_run(int rc) {
    if (rc == -ENOSPC) return CSD_RESOURCE_EXHAUSTED;
    if (rc == -EIO) return CSD_IO_ERROR;
    return CSD_TASKLET_ERROR;
}

void vobj_poll_runs(csd_device *d) {
    for (vobj *o = d->vobjs; o; o = o->next) {
        if (o->state != RUN_RUNNING) continue;
        csd_isp_progress p;
        csd_engine_progress(d->eng, o->req, &p);
        if (!p.finished) continue;
        o->state = RUN_FINISHED;
        d->running--;
        vobj *t = vobj_find(d, o->tasklet_id);
        if (t) t->users--;
        if (p.status) {
            o->status = status_of_run(p.status);
            snprintf(o->message, sizeof o->message, "%s", csd_exec_error(o->run));
        }
    }
}
