/* User tasklet programs: download (install_tasklet), list and remove (Smart SSD paper III-C: "users
 * add or remove a tasklet"; IV-A: a tasklet is known by the id given at download time). A program is
 * stored in the image as the data object ".tasklets/NAME" holding the versioned record of
 * sandbox/program.h, so it persists, survives crashes like any object, and is written atomically
 * (a staging object renamed over the old one). A TASKLET object then names it like a built-in. */
#include "hil/cmd.h"
#include "sandbox/sandbox.h"
#include "query/row_filter.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STAGING_PREFIX CSD_PROGRAM_PREFIX ".staging-"

csd_sandbox *device_sandbox(csd_device *d) {
    if (!d->sandbox) {
        csd_sandbox_limits lim = {
            .memory_bytes = d->params.tasklet_memory_bytes,
            .fuel_per_call = d->params.tasklet_fuel_per_page,
            .cycles_per_kfuel = d->params.tasklet_cycles_per_kfuel,
            .stack_bytes = d->params.tasklet_stack_bytes,
            .trusted_dir = d->params.tasklet_trusted_dir,
            .output_buffer_bytes = d->params.output_buffer_bytes,
        };
        if (csd_sandbox_create(&d->sandbox, &lim)) d->sandbox = NULL;
    }
    return d->sandbox;
}

int cmd_program_reserved(cmd_ctx *c, const char *name, const char *what) {
    if (name && !strncmp(name, CSD_PROGRAM_PREFIX, strlen(CSD_PROGRAM_PREFIX)))
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "%s: '%s' holds a tasklet program; use install_tasklet and "
                        "remove_tasklet (csd tasklet add|rm)", what, name);
    return 0;
}

static void object_name(char *out, size_t cap, const char *name) { snprintf(out, cap, CSD_PROGRAM_PREFIX "%s", name); }

/* The stored record of object id (size bytes) read into a new buffer, flash reads charged to c. */
static int read_record(csd_device *d, cmd_ctx *c, uint64_t id, uint64_t size, uint8_t **out) {
    *out = NULL;
    if (size > csd_program_stored_len(CSD_PROGRAM_MAX_BYTES)) return -EBADMSG;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return -ENOMEM;
    csd_flash_batch ops = { 0 };
    int rc = size ? csd_ftl_read(d->ftl, id, 0, buf, size, &ops) : 0;
    cmd_charge(d, c, &ops, 0, 0);
    csd_flash_batch_free(&ops);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    return 0;
}

/* Load installed program name (cached in DRAM after the first time). 0, -ENOENT when none is
 * installed, or another negative errno with err (st: the status to report it with). */
static int program_load(csd_device *d, cmd_ctx *c, const char *name, csd_user_tasklet **out, int *st, char *err,
                        size_t errlen) {
    *out = NULL;
    char oname[CSD_OBJ_NAME_MAX + 1];
    object_name(oname, sizeof oname, name);
    uint64_t id;
    csd_obj_info info;
    if (!*name || strlen(name) > CSD_PROGRAM_NAME_MAX || csd_ftl_obj_find(d->ftl, oname, &id) ||
        csd_ftl_obj_stat(d->ftl, id, &info))
        return -ENOENT;
    csd_sandbox *sb = device_sandbox(d);
    *st = CSD_RESOURCE_EXHAUSTED;
    if (!sb) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    /* already in device DRAM, from this very object (an install makes a new one) */
    if ((*out = csd_sandbox_find(sb, name, id)) != NULL) return 0;
    uint8_t *rec;
    int rc = read_record(d, c, id, info.size, &rec);
    if (rc) {
        *st = csd_status_from_errno(rc);
        snprintf(err, errlen, "cannot read tasklet program '%s': %s", name, strerror(-rc));
        return rc;
    }
    csd_program prog;
    rc = csd_program_decode(rec, info.size, &prog, err, errlen);
    if (!rc) rc = csd_sandbox_load(sb, name, &prog, out, err, errlen);
    if (!rc) csd_sandbox_note_source(*out, id);
    free(rec);
    *st = rc == -ENOTSUP ? CSD_UNSUPPORTED : rc == -ENOMEM ? CSD_RESOURCE_EXHAUSTED : CSD_INVALID_ARGUMENT;
    return rc;
}

int device_program_load(csd_device *d, cmd_ctx *c, const char *name, csd_user_tasklet **out) {
    char err[512] = "";
    int st = 0, rc = program_load(d, c, name, out, &st, err, sizeof err);
    if (rc == -ENOENT || !rc) return rc == -ENOENT ? -ENOENT : 0;
    return cmd_fail(c, st, "create_object: %s", err);
}

static Smartssd__V1__ProgramFormat pb_format(uint32_t f) {
    return f == CSD_PROGRAM_WASM ? SMARTSSD__V1__PROGRAM_FORMAT__WASM
         : f == CSD_PROGRAM_NATIVE ? SMARTSSD__V1__PROGRAM_FORMAT__NATIVE : SMARTSSD__V1__PROGRAM_FORMAT__PROGRAM_FORMAT_UNSPECIFIED;
}

static int reply_install(cmd_ctx *c, uint64_t id, const char *hash, int unchanged) {
    Smartssd__V1__InstallTaskletReply *rep = cmd_alloc(c, sizeof *rep);
    if (!rep) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__install_tasklet_reply__init(rep);
    rep->program_id = id;
    rep->hash = cmd_strdup(c, hash);
    rep->unchanged = unchanged;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_INSTALL_TASKLET;
    c->resp->install_tasklet = rep;
    return rep->hash ? 0 : cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
}

int cmd_install_tasklet(csd_device *d, const Smartssd__V1__InstallTasklet *m, cmd_ctx *c) {
    const char *name = m->name ? m->name : "";
    char err[512];
    if (csd_program_name_check(name, err, sizeof err)) return cmd_fail(c, CSD_INVALID_ARGUMENT, "install_tasklet: %s", err);
    if (csd_tasklet_find(name))
        return cmd_fail(c, CSD_ALREADY_EXISTS, "install_tasklet: '%s' is a built-in tasklet's name", name);
    uint32_t format = m->format == SMARTSSD__V1__PROGRAM_FORMAT__WASM ? CSD_PROGRAM_WASM
                    : m->format == SMARTSSD__V1__PROGRAM_FORMAT__NATIVE ? CSD_PROGRAM_NATIVE : 0;
    if (!format) return cmd_fail(c, CSD_INVALID_ARGUMENT, "install_tasklet: format must be WASM or NATIVE (got %d)", m->format);
    const uint8_t *p = m->program.data;
    size_t len = m->program.len;
    if (!len && c->payload && c->payload->in) {
        p = c->payload->in;
        len = c->payload->in_len;
    }
    if (!len) return cmd_fail(c, CSD_INVALID_ARGUMENT, "install_tasklet: the program is empty");
    if (len > CSD_PROGRAM_MAX_BYTES)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "install_tasklet: a program of %zu bytes exceeds %u", len, CSD_PROGRAM_MAX_BYTES);
    char hash[CSD_PROGRAM_HASH_MAX];
    csd_program_hash(p, len, hash);
    char oname[CSD_OBJ_NAME_MAX + 1];
    object_name(oname, sizeof oname, name);
    uint64_t old_id = 0;
    csd_obj_info info;
    if (!csd_ftl_obj_find(d->ftl, oname, &old_id) && !csd_ftl_obj_stat(d->ftl, old_id, &info)) {
        uint8_t *rec;
        csd_program prev;
        int same = 0, rc = read_record(d, c, old_id, info.size, &rec);
        if (rc) return cmd_fail_errno(c, rc, "install_tasklet: cannot read the installed '%s': %s", name, strerror(-rc));
        if (!csd_program_decode(rec, info.size, &prev, err, sizeof err))
            same = prev.format == format && prev.len == len && !memcmp(prev.bytes, p, len);
        char prev_hash[CSD_PROGRAM_HASH_MAX];
        snprintf(prev_hash, sizeof prev_hash, "%s", prev.hash);
        free(rec);
        /* a re-download of the same bytes is a no-op (content-addressed) */
        if (same) return reply_install(c, old_id, hash, 1);
        if (!m->replace)
            return cmd_fail(c, CSD_ALREADY_EXISTS, "install_tasklet: '%s' is installed with other bytes (%s); "
                            "remove it first or install with replace", name, prev_hash[0] ? prev_hash : "unreadable");
    }
    csd_sandbox *sb = device_sandbox(d);
    if (!sb) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    /* a malformed program, or one whose declared schema does not parse, is refused at download,
     * before anything is written */
    csd_user_tasklet *u = NULL;
    int rc = csd_sandbox_open(sb, name, format, p, len, &u, err, sizeof err);
    if (rc) {
        int st = rc == -ENOTSUP ? CSD_UNSUPPORTED : rc == -ENOMEM ? CSD_RESOURCE_EXHAUSTED : CSD_INVALID_ARGUMENT;
        return cmd_fail(c, st, "install_tasklet: %s", err);
    }
    csd_decl *decl = malloc(sizeof *decl);
    rc = decl ? csd_decl_parse(csd_user_tasklet_ops(u)->schema, decl, err, sizeof err) : -ENOMEM;
    free(decl);
    csd_user_tasklet_put(u);
    if (rc == -ENOMEM) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    if (rc) return cmd_fail(c, CSD_INVALID_ARGUMENT, "install_tasklet: tasklet program '%s' declares a bad %s", name, err);
    size_t slen = csd_program_stored_len(len);
    uint8_t *rec = malloc(slen);
    if (!rec) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    csd_program_encode(format, p, len, rec);
    char staging[CSD_OBJ_NAME_MAX + 1];
    snprintf(staging, sizeof staging, STAGING_PREFIX "%s", name);
    uint64_t sid;
    if (!csd_ftl_obj_find(d->ftl, staging, &sid)) csd_ftl_obj_delete(d->ftl, sid);   /* left by a crash */
    rc = csd_ftl_obj_create(d->ftl, staging, &sid);
    if (rc) {
        free(rec);
        if (rc == -ENOSPC) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "install_tasklet: object table full");
        return cmd_fail_errno(c, rc, "install_tasklet: %s", strerror(-rc));
    }
    csd_flash_batch ops = { 0 };
    rc = csd_ftl_write(d->ftl, sid, 0, rec, slen, &ops);
    cmd_charge(d, c, &ops, len, 0);
    csd_flash_batch_free(&ops);
    free(rec);
    if (!rc) rc = csd_ftl_obj_rename(d->ftl, sid, oname, 1);
    if (rc) {
        csd_ftl_obj_delete(d->ftl, sid);
        if (rc == -ENOSPC) return cmd_fail(c, CSD_NO_SPACE, "install_tasklet: device full");
        return cmd_fail_errno(c, rc, "install_tasklet: %s", strerror(-rc));
    }
    csd_sandbox_forget(sb, name);   /* executions already running keep the old version */
    return reply_install(c, sid, hash, 0);
}

int cmd_list_tasklets(csd_device *d, const Smartssd__V1__ListTasklets *m, cmd_ctx *c) {
    csd_obj_info *objs = NULL;
    int more = 0;
    int n = csd_ftl_obj_list(d->ftl, CSD_PROGRAM_PREFIX, "", 0, &objs, &more);
    if (n < 0) return cmd_fail_errno(c, n, "list_tasklets: %s", strerror(-n));
    Smartssd__V1__ListTaskletsReply *rep = cmd_alloc(c, sizeof *rep);
    Smartssd__V1__TaskletInfo **arr = cmd_alloc(c, ((size_t)n + 1) * sizeof *arr);
    if (!rep || !arr) {
        free(objs);
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    }
    smartssd__v1__list_tasklets_reply__init(rep);
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        const char *name = objs[i].name + strlen(CSD_PROGRAM_PREFIX);
        if (!strncmp(objs[i].name, STAGING_PREFIX, strlen(STAGING_PREFIX))) continue;
        uint8_t *rec;
        csd_program prog;
        char err[256];
        if (read_record(d, c, objs[i].id, objs[i].size, &rec)) continue;
        int ok = !csd_program_decode(rec, objs[i].size, &prog, err, sizeof err);
        free(rec);
        Smartssd__V1__TaskletInfo *t = cmd_alloc(c, sizeof *t);
        if (!t) break;
        smartssd__v1__tasklet_info__init(t);
        t->name = cmd_strdup(c, name);
        t->program_id = objs[i].id;
        t->format = ok ? pb_format(prog.format) : SMARTSSD__V1__PROGRAM_FORMAT__PROGRAM_FORMAT_UNSPECIFIED;
        t->size = ok ? prog.len : 0;
        t->hash = cmd_strdup(c, ok ? prog.hash : "unreadable");
        /* what the program declares, from loading it (cached after the first time); one that cannot
         * load here (no trusted directory, no sandbox) lists with empty declarations */
        csd_user_tasklet *u = NULL;
        int st = 0;
        const char *summary = ok ? "" : err, *schema = "";
        if (ok && !program_load(d, c, name, &u, &st, err, sizeof err) && u) {
            summary = csd_user_tasklet_summary(u);
            schema = csd_user_tasklet_ops(u)->schema ? csd_user_tasklet_ops(u)->schema : "";
        }
        t->summary = cmd_strdup(c, summary);
        t->schema = cmd_strdup(c, schema);
        int cols_ok = cmd_decl_columns(c, schema, &t->columns, &t->n_columns);
        if (u) csd_user_tasklet_put(u);
        if (!t->name || !t->hash || !t->summary || !t->schema || cols_ok) break;
        arr[k++] = t;
    }
    free(objs);
    rep->n_tasklets = k;
    rep->tasklets = arr;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_LIST_TASKLETS;
    c->resp->list_tasklets = rep;
    return 0;
}

int cmd_decl_columns(cmd_ctx *c, const char *schema, Smartssd__V1__DeclaredColumn ***out, size_t *n) {
    *out = NULL;
    *n = 0;
    csd_decl *d = malloc(sizeof *d);
    char err[256];
    if (!d) return -ENOMEM;
    if (csd_decl_parse(schema, d, err, sizeof err) || !d->n) {   /* install refused bad ones */
        free(d);
        return 0;
    }
    Smartssd__V1__DeclaredColumn **arr = cmd_alloc(c, d->n * sizeof *arr);
    for (uint32_t i = 0; arr && i < d->n; i++) {
        Smartssd__V1__DeclaredColumn *dc = cmd_alloc(c, sizeof *dc);
        Smartssd__V1__FilterOp *ops = cmd_alloc(c, 32 * sizeof *ops);
        if (!dc || !ops) {
            free(d);
            return -ENOMEM;
        }
        smartssd__v1__declared_column__init(dc);
        dc->name = cmd_strdup(c, d->cols[i].name);
        if (!dc->name) break;
        dc->type = (Smartssd__V1__ColumnType)d->cols[i].type;   /* PT_* numbers are ColumnType's */
        dc->filters = ops;
        for (int op = 1; op <= 31; op++)
            if (d->cols[i].ops & CSD_FOP_BIT(op)) ops[dc->n_filters++] = (Smartssd__V1__FilterOp)op;
        arr[(*n)++] = dc;
    }
    free(d);
    *out = arr;
    return arr ? 0 : -ENOMEM;
}

int cmd_remove_tasklet(csd_device *d, const Smartssd__V1__RemoveTasklet *m, cmd_ctx *c) {
    const char *name = m->name ? m->name : "";
    char err[256], oname[CSD_OBJ_NAME_MAX + 1];
    if (csd_program_name_check(name, err, sizeof err)) return cmd_fail(c, CSD_INVALID_ARGUMENT, "remove_tasklet: %s", err);
    object_name(oname, sizeof oname, name);
    uint64_t id;
    if (csd_ftl_obj_find(d->ftl, oname, &id))
        return cmd_fail(c, CSD_NOT_FOUND, "remove_tasklet: no tasklet program '%s' is installed", name);
    int rc = csd_ftl_obj_delete(d->ftl, id);
    if (rc) return cmd_fail_errno(c, rc, "remove_tasklet: %s", strerror(-rc));
    if (d->sandbox) csd_sandbox_forget(d->sandbox, name);   /* running executions keep theirs */
    return 0;
}

/* Names of installed programs, for identify (cmd-owned memory). Returns the count. */
size_t device_program_names(csd_device *d, cmd_ctx *c, char ***out) {
    *out = NULL;
    csd_obj_info *objs = NULL;
    int more = 0;
    int n = csd_ftl_obj_list(d->ftl, CSD_PROGRAM_PREFIX, "", 0, &objs, &more);
    if (n <= 0) {
        free(objs);   /* the list is allocated even when empty */
        return 0;
    }
    char **names = cmd_alloc(c, (size_t)n * sizeof *names);
    size_t k = 0;
    for (int i = 0; names && i < n; i++) {
        if (!strncmp(objs[i].name, STAGING_PREFIX, strlen(STAGING_PREFIX))) continue;
        names[k] = cmd_strdup(c, objs[i].name + strlen(CSD_PROGRAM_PREFIX));
        if (names[k]) k++;
    }
    free(objs);
    *out = names;
    return k;
}
