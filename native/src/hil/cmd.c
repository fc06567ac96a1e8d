/* The command context: failures with a status and a message, memory freed after packing, the
 * device time a command is charged. */
#include "hil/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int cmd_fail(cmd_ctx *c, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->status = status;
    return -1;
}

int cmd_fail_errno(cmd_ctx *c, int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    if (rc == -EDQUOT) {   /* strerror says "quota", which is seldom the reason */
        size_t n = strlen(c->msg);
        snprintf(c->msg + n, sizeof c->msg - n, " (the file system holding the image is full: free space on the "
                 "host disk and retry)");
    }
    c->status = csd_status_from_errno(rc);
    return -1;
}

void *cmd_alloc(cmd_ctx *c, size_t n) {
    if (c->n_allocs == c->cap_allocs) {
        size_t cap = c->cap_allocs ? c->cap_allocs * 2 : 16;
        void **a = realloc(c->allocs, cap * sizeof *a);
        if (!a) return NULL;
        c->allocs = a;
        c->cap_allocs = cap;
    }
    void *p = calloc(1, n ? n : 1);
    if (p) c->allocs[c->n_allocs++] = p;
    return p;
}

char *cmd_strdup(cmd_ctx *c, const char *s) {
    size_t n = strlen(s);
    char *p = cmd_alloc(c, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

void cmd_charge(csd_device *d, cmd_ctx *c, const csd_flash_batch *ops, uint64_t to_dev, uint64_t to_host) {
    static const csd_flash_batch none = { 0 };
    c->device_ns += csd_engine_host_io(d->eng, ops ? ops : &none, to_dev, to_host);
    c->charged = 1;
    /* Host I/O also advances tasklet requests in the same simulation. */
    vobj_poll_runs(d);
}

void cmd_charge_io(csd_device *d, cmd_ctx *c, const csd_flash_batch *ops, uint64_t to_dev, uint64_t to_host) {
    uint64_t before = c->device_ns;
    cmd_charge(d, c, ops, to_dev, to_host);
    d->counters.io_commands++;
    d->counters.io_ns += c->device_ns - before;
}

int cmd_reply_id(cmd_ctx *c, uint64_t id) {
    Smartssd__V1__CreateObjectReply *rep = cmd_alloc(c, sizeof *rep);
    if (!rep) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__create_object_reply__init(rep);
    rep->object_id = id;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_CREATE_OBJECT;
    c->resp->create_object = rep;
    return 0;
}
