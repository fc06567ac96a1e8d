/* The volatile-object table: tasklet and output objects live in device DRAM only (paper IV-C), with
 * ids from CSD_VOLATILE_ID_BASE up; each output holds at most one run of a tasklet request. */
#include "hil/vobj.h"
#include "sandbox/sandbox.h"
#include "query/row_filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hil/device.h"
#include "hil/pace.h"
#include "smartssd/v1/device.pb-c.h"

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
    free(o->filter);
    free(o->decl);
    csd_row_filter_destroy(o->rfilter);
    free(o);
}

vobj *vobj_use(csd_device *d, uint64_t id) {
    vobj *o = vobj_find(d, id);
    if (o) {
        o->session = d->cur_session;
        o->used_ns = pace_wall_ns();
    }
    return o;
}

vobj *vobj_new(csd_device *d, int kind) {
    vobj *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->session = d->cur_session;
    o->used_ns = pace_wall_ns();
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

/* ---------------------------------------------------------------- dead clients (docs/RELIABILITY.md) */

static int session_open(const csd_device *d, uint64_t s) {
    for (size_t i = 0; i < d->n_sessions; i++)
        if (d->sessions[i] == s) return 1;
    return 0;
}

const char *vobj_gone(csd_device *d, uint64_t id) {
    for (size_t i = 0; i < CSD_VOBJ_GONE_KEEP; i++) {
        const vobj_gone_rec *g = &d->gone[i];
        if (g->id == id && id) {
            snprintf(d->gone_msg, sizeof d->gone_msg,
                     "; it was reclaimed after its client disconnected and it went unused for %llu ms"
                     " (orphan_timeout_ms = %llu)", (unsigned long long)g->idle_ms,
                     (unsigned long long)d->params.orphan_timeout_ms);
            return d->gone_msg;
        }
    }
    return "";
}

void vobj_session_ended(csd_device *d, uint64_t session, uint64_t now_ns) {
    for (vobj *o = d->vobjs; o; o = o->next)
        if (o->session == session) o->used_ns = now_ns;
    uint64_t due = now_ns + d->params.orphan_timeout_ms * 1000000ull;
    if (due < d->reclaim_at_ns) d->reclaim_at_ns = due;
}

static void cancel_unread(csd_device *d, vobj *o, uint64_t idle_ms) {
    size_t unread = o->out.len - o->out.read_pos;
    if (o->req) csd_engine_release(d->eng, o->req);
    o->req = NULL;
    if (o->run) csd_exec_destroy(o->run);
    o->run = NULL;
    o->state = RUN_FINISHED;
    d->running--;
    vobj *t = vobj_find(d, o->tasklet_id);
    if (t) t->users--;
    o->status = CSD_RESOURCE_EXHAUSTED;
    snprintf(o->message, sizeof o->message,
             "run cancelled: its output buffer held %zu unread bytes and nobody read it for %llu ms"
             " (orphan_timeout_ms = %llu); the results read so far are complete up to that point",
             unread, (unsigned long long)idle_ms, (unsigned long long)d->params.orphan_timeout_ms);
}

size_t vobj_reclaim(csd_device *d, uint64_t now_ns) {
    uint64_t t_ns = d->params.orphan_timeout_ms * 1000000ull, next = now_ns + (t_ns ? t_ns : 1000000000ull);
    size_t freed = 0, owned = 0;
    /* outputs first, so a tasklet whose outputs go in the same pass is no longer in use */
    for (int pass = 0; pass < 2; pass++) {
        for (vobj **pp = &d->vobjs; *pp;) {
            vobj *o = *pp;
            int want = pass == 0 ? o->kind == SMARTSSD__V1__OBJECT_KIND__OUTPUT : o->kind != SMARTSSD__V1__OBJECT_KIND__OUTPUT;
            if (!o->session || !want) {
                pp = &o->next;
                continue;
            }
            owned++;
            uint64_t idle = now_ns > o->used_ns ? now_ns - o->used_ns : 0;
            int live = session_open(d, o->session);
            if (idle < t_ns) {
                if (!live || o->state == RUN_RUNNING) {
                    uint64_t due = o->used_ns + t_ns;
                    if (due < next) next = due;
                }
                pp = &o->next;
                continue;
            }
            if (live) {
                if (o->state == RUN_RUNNING && o->out.len - o->out.read_pos >= o->out.limit_bytes / 2) {
                    cancel_unread(d, o, idle / 1000000u);
                    d->counters.runs_cancelled++;
                }
                pp = &o->next;
                continue;
            }
            if (o->users) {   /* a tasklet still used by a live session's running output */
                pp = &o->next;
                continue;
            }
            vobj_gone_rec *g = &d->gone[d->gone_next++ % CSD_VOBJ_GONE_KEEP];
            g->id = o->id;
            g->idle_ms = idle / 1000000u;
            d->counters.vobjs_reclaimed++;
            vobj_free(d, o);   /* unlinks *pp: the loop goes on from the same link */
            freed++;
        }
    }
    /* with no session left and nothing of one, nothing can become due until a session begins */
    d->reclaim_at_ns = (!d->n_sessions && owned == freed) ? UINT64_MAX : next;
    return freed;
}
