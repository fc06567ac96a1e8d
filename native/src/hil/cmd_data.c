/* Data object commands: the object-based file system's view of the device (paper IV-B). */
#include "hil/cmd.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

/* A new name (create, rename target) against the device's naming rule (ftl/names.c). The name is
 * quoted in the message with control and non-UTF-8 bytes escaped and long names cut. */
static int valid_name(cmd_ctx *c, const char *name, const char *what) {
    size_t n = name ? strlen(name) : 0;
    if (n == 0) return cmd_fail(c, CSD_INVALID_ARGUMENT, "%s: a name is required", what);
    char why[512];
    int rc = csd_name_check(name, n, why, sizeof why);
    if (rc == -ENOMEM) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    if (rc) {
        char shown[300];
        csd_utf8_quote(shown, sizeof shown, name, n, 64);
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "%s: name '%s' refused: %s", what, shown, why);
    }
    if (cmd_block_reserved(name))
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "%s: names under '%s' are reserved for the block namespace", what,
                        CSD_BLOCK_PREFIX);
    return 0;
}

static Smartssd__V1__ObjectInfo *info_msg(cmd_ctx *c, const csd_obj_info *in) {
    Smartssd__V1__ObjectInfo *m = cmd_alloc(c, sizeof *m);
    if (!m) return NULL;
    smartssd__v1__object_info__init(m);
    m->object_id = in->id;
    m->kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    m->name = cmd_strdup(c, in->name);
    m->size = in->size;
    m->pages = in->pages;
    m->created_seq = in->created_seq;
    m->mtime_ms = in->mtime_ms;
    m->atime_ms = in->atime_ms;
    m->ctime_ms = in->ctime_ms;
    return m->name ? m : NULL;
}

/* A data object by id, with a message naming the command when it is missing or not DATA. */
static int data_object(csd_device *d, cmd_ctx *c, uint64_t id, const char *what, csd_obj_info *info) {
    if (id == 0) return cmd_fail(c, CSD_INVALID_ARGUMENT, "%s: object_id is required", what);
    if (id >= CSD_VOLATILE_ID_BASE) {
        if (vobj_find(d, id))
            return cmd_fail(c, CSD_UNSUPPORTED, "%s: object %" PRIu64 " is not a data object", what, id);
        return cmd_fail(c, CSD_NOT_FOUND, "%s: no object %" PRIu64 "%s", what, id, vobj_gone(d, id));
    }
    if (csd_ftl_obj_stat(d->ftl, id, info))
        return cmd_fail(c, CSD_NOT_FOUND, "%s: no object %" PRIu64, what, id);
    if (cmd_block_reserved(info->name))
        return cmd_fail(c, CSD_NOT_FOUND, "%s: no object %" PRIu64 " (the block namespace is reached by the block "
                        "commands only)", what, id);
    return 0;
}

int cmd_create_data(csd_device *d, const Smartssd__V1__CreateObject *m, cmd_ctx *c) {
    if (valid_name(c, m->name, "create_object")) return -1;
    if (cmd_program_reserved(c, m->name, "create_object")) return -1;
    if (m->n_params || m->n_keywords || m->plan || m->max_outputs)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "create_object: a DATA object takes only a name");
    uint64_t id;
    int rc = csd_ftl_obj_create(d->ftl, m->name, &id);
    if (rc == -EEXIST) return cmd_fail(c, CSD_ALREADY_EXISTS, "create_object: '%s' already exists", m->name);
    if (rc == -ENOSPC) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "create_object: object table full (%u objects)",
                                       d->params.max_objects);
    if (rc == -EOVERFLOW) return cmd_fail(c, CSD_NO_SPACE, "create_object: the object table's metadata slot is full "
                                          "(its names are long: it is sized for %u objects of 1024-byte names in "
                                          "the first table format); delete objects or use shorter names",
                                          d->params.max_objects);
    if (rc) return cmd_fail_errno(c, rc, "create_object: '%s': %s", m->name, strerror(-rc));
    return cmd_reply_id(c, id);
}

int cmd_write(csd_device *d, const Smartssd__V1__WriteObject *m, cmd_ctx *c) {
    csd_obj_info info;
    if (data_object(d, c, m->object_id, "write_object", &info)) return -1;
    if (cmd_program_reserved(c, info.name, "write_object")) return -1;
    const void *data = m->data.data;
    size_t len = m->data.len;
    if (len && c->payload && c->payload->in_len)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "write_object: data given both in the packet and as payload");
    if (!len && c->payload && c->payload->in) {
        data = c->payload->in;
        len = c->payload->in_len;
    }
    if (m->offset > info.size)
        return cmd_fail(c, CSD_OUT_OF_RANGE, "write_object: offset %" PRIu64 " is past the end of '%s' (%" PRIu64
                        " bytes); objects have no holes", m->offset, info.name, info.size);
    if (len > UINT64_MAX - m->offset)
        return cmd_fail(c, CSD_OUT_OF_RANGE, "write_object: offset + length overflows");
    if (vobj_reads_object(d, m->object_id))
        return cmd_fail(c, CSD_BUSY, "write_object: '%s' is being read by a running tasklet", info.name);
    if (m->hint > CSD_FTL_HINT_MAX)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "write_object: hint %u is out of range (0..%u: 0 = none, else a "
                        "lifetime class such as an LSM level + 1)", m->hint, CSD_FTL_HINT_MAX);
    csd_flash_batch ops = { 0 };
    int rc = len ? csd_ftl_write_hint(d->ftl, m->object_id, m->offset, data, len, m->hint, &ops) : 0;
    cmd_charge_io(d, c, &ops, len, 0);
    csd_flash_batch_free(&ops);
    if (rc == -ENOSPC)
        return cmd_fail(c, CSD_NO_SPACE, "write_object: device full (capacity %" PRIu64 " bytes); nothing of this "
                        "write was stored", csd_ftl_capacity(d->ftl));
    if (rc) {
        /* a write of more than one atomic group may have stored a prefix: say what is there now */
        csd_obj_info now;
        uint64_t size = csd_ftl_obj_stat(d->ftl, m->object_id, &now) ? 0 : now.size;
        return cmd_fail_errno(c, rc, "write_object: %s; '%s' now holds %" PRIu64 " bytes (it held %" PRIu64 ")",
                              rc == -EDQUOT ? "the image could not grow" : strerror(-rc), info.name, size, info.size);
    }
    Smartssd__V1__WriteObjectReply *rep = cmd_alloc(c, sizeof *rep);
    if (!rep) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__write_object_reply__init(rep);
    csd_ftl_obj_stat(d->ftl, m->object_id, &info);
    rep->size = info.size;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_WRITE_OBJECT;
    c->resp->write_object = rep;
    return 0;
}

int cmd_read_data(csd_device *d, const Smartssd__V1__ReadObject *m, cmd_ctx *c) {
    csd_obj_info info;
    if (data_object(d, c, m->object_id, "read_object", &info)) return -1;
    if (m->offset > info.size)
        return cmd_fail(c, CSD_OUT_OF_RANGE, "read_object: offset %" PRIu64 " is past the end of '%s' (%" PRIu64 " bytes)",
                        m->offset, info.name, info.size);
    uint64_t len = m->length;
    if (len > info.size - m->offset) len = info.size - m->offset;
    int to_payload = c->payload && c->payload->out;
    if (to_payload && m->length > c->payload->out_cap)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "read_object: length %" PRIu64 " exceeds the %zu-byte payload buffer",
                        m->length, c->payload->out_cap);
    if (!to_payload && m->length > CSD_MAX_PACKET - 4096)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "read_object: length %" PRIu64 " exceeds the packet limit; "
                        "use a payload buffer or read in chunks", m->length);
    Smartssd__V1__ReadObjectReply *rep = cmd_alloc(c, sizeof *rep);
    uint8_t *buf = to_payload ? c->payload->out : cmd_alloc(c, len);
    if (!rep || !buf) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__read_object_reply__init(rep);
    csd_flash_batch ops = { 0 };
    int rc = len ? csd_ftl_read(d->ftl, m->object_id, m->offset, buf, len, &ops) : 0;
    cmd_charge_io(d, c, &ops, 0, len);
    csd_flash_batch_free(&ops);
    if (rc) return cmd_fail_errno(c, rc, "read_object: %s", strerror(-rc));
    if (to_payload) {
        rep->payload_length = len;
    } else {
        rep->data.data = buf;
        rep->data.len = len;
    }
    rep->eof = m->offset + len >= info.size;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_READ_OBJECT;
    c->resp->read_object = rep;
    return 0;
}

int cmd_delete_data(csd_device *d, const Smartssd__V1__DeleteObject *m, cmd_ctx *c) {
    csd_obj_info info;
    if (data_object(d, c, m->object_id, "delete_object", &info)) return -1;
    if (vobj_reads_object(d, m->object_id))
        return cmd_fail(c, CSD_BUSY, "delete_object: '%s' is being read by a running tasklet", info.name);
    int rc = csd_ftl_obj_delete(d->ftl, m->object_id);
    if (rc) return cmd_fail_errno(c, rc, "delete_object: %s", strerror(-rc));
    /* deleting a program's object removes the program (remove_tasklet does the same) */
    if (d->sandbox && !strncmp(info.name, CSD_PROGRAM_PREFIX, strlen(CSD_PROGRAM_PREFIX)))
        csd_sandbox_forget(d->sandbox, info.name + strlen(CSD_PROGRAM_PREFIX));
    return 0;
}

int cmd_rename(csd_device *d, const Smartssd__V1__RenameObject *m, cmd_ctx *c) {
    csd_obj_info info;
    if (data_object(d, c, m->object_id, "rename", &info)) return -1;
    if (valid_name(c, m->new_name, "rename")) return -1;
    if (cmd_program_reserved(c, info.name, "rename") || cmd_program_reserved(c, m->new_name, "rename")) return -1;
    uint64_t other;
    if (!csd_ftl_obj_find(d->ftl, m->new_name, &other) && other != m->object_id && vobj_reads_object(d, other))
        return cmd_fail(c, CSD_BUSY, "rename: '%s' is being read by a running tasklet", m->new_name);
    int rc = csd_ftl_obj_rename(d->ftl, m->object_id, m->new_name, m->replace);
    if (rc == -EEXIST) return cmd_fail(c, CSD_ALREADY_EXISTS, "rename: '%s' already exists", m->new_name);
    if (rc == -EOVERFLOW) return cmd_fail(c, CSD_NO_SPACE, "rename: the object table's metadata slot is full; "
                                          "use a shorter name or delete objects");
    if (rc) return cmd_fail_errno(c, rc, "rename: %s", strerror(-rc));
    return 0;
}

int cmd_list(csd_device *d, const Smartssd__V1__ListObjects *m, cmd_ctx *c) {
    csd_obj_info *objs = NULL;
    int more = 0;
    int n = csd_ftl_obj_list(d->ftl, m->prefix ? m->prefix : "", m->start_after ? m->start_after : "", m->limit,
                             &objs, &more);
    if (n < 0) return cmd_fail_errno(c, n, "list: %s", strerror(-n));
    Smartssd__V1__ListObjectsReply *rep = cmd_alloc(c, sizeof *rep);
    Smartssd__V1__ObjectInfo **arr = cmd_alloc(c, (size_t)n * sizeof *arr);
    if (!rep || !arr) {
        free(objs);
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    }
    smartssd__v1__list_objects_reply__init(rep);
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        if (cmd_block_reserved(objs[i].name)) continue;   /* the block namespace is not an object */
        arr[k] = info_msg(c, &objs[i]);
        if (!arr[k++]) {
            free(objs);
            return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
        }
    }
    free(objs);
    rep->n_objects = k;
    rep->objects = arr;
    rep->more = more;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_LIST;
    c->resp->list = rep;
    return 0;
}

int cmd_stat(csd_device *d, const Smartssd__V1__StatObject *m, cmd_ctx *c) {
    int by_name = m->name && *m->name;
    if (by_name == (m->object_id != 0))
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "stat: give exactly one of object_id and name");
    Smartssd__V1__StatObjectReply *rep = cmd_alloc(c, sizeof *rep);
    if (!rep) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__stat_object_reply__init(rep);
    if (!by_name && m->object_id >= CSD_VOLATILE_ID_BASE) {
        vobj *o = vobj_use(d, m->object_id);
        if (!o) return cmd_fail(c, CSD_NOT_FOUND, "stat: no object %" PRIu64 "%s", m->object_id,
                                vobj_gone(d, m->object_id));
        Smartssd__V1__ObjectInfo *mi = cmd_alloc(c, sizeof *mi);
        if (!mi) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
        smartssd__v1__object_info__init(mi);
        mi->object_id = o->id;
        mi->kind = (Smartssd__V1__ObjectKind)o->kind;
        mi->name = (char *)(o->ops ? o->ops->name : "");
        mi->size = o->kind == SMARTSSD__V1__OBJECT_KIND__OUTPUT ? o->out.len - o->out.read_pos : 0;
        mi->created_seq = o->created_seq;
        rep->info = mi;
    } else {
        uint64_t id = m->object_id;
        if (by_name && csd_ftl_obj_find(d->ftl, m->name, &id))
            return cmd_fail(c, CSD_NOT_FOUND, "stat: no object named '%s'", m->name);
        csd_obj_info info;
        if (data_object(d, c, id, "stat", &info)) return -1;
        rep->info = info_msg(c, &info);
        if (!rep->info) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    }
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_STAT;
    c->resp->stat = rep;
    return 0;
}

int cmd_trim(csd_device *d, const Smartssd__V1__TrimObject *m, cmd_ctx *c) {
    csd_obj_info info;
    if (data_object(d, c, m->object_id, "trim", &info)) return -1;
    if (cmd_program_reserved(c, info.name, "trim")) return -1;
    if (m->offset > info.size || m->length > info.size - m->offset)
        return cmd_fail(c, CSD_OUT_OF_RANGE, "trim: [%" PRIu64 ", +%" PRIu64 ") is outside '%s' (%" PRIu64 " bytes)",
                        m->offset, m->length, info.name, info.size);
    if (vobj_reads_object(d, m->object_id))
        return cmd_fail(c, CSD_BUSY, "trim: '%s' is being read by a running tasklet", info.name);
    csd_flash_batch ops = { 0 };
    int rc = csd_ftl_trim(d->ftl, m->object_id, m->offset, m->length, &ops);
    cmd_charge(d, c, &ops, 0, 0);   /* not in io.*: the hybrid paper's latency is that of reads and writes */
    csd_flash_batch_free(&ops);
    if (rc) return cmd_fail_errno(c, rc, "trim: %s", strerror(-rc));
    return 0;
}

int cmd_set_times(csd_device *d, const Smartssd__V1__SetTimes *m, cmd_ctx *c) {
    csd_obj_info info;
    if (data_object(d, c, m->object_id, "set_times", &info)) return -1;
    /* CSD_TIME_KEEP is the "keep" marker, so it cannot be a time */
    if ((m->set_mtime && m->mtime_ms == CSD_TIME_KEEP) || (m->set_atime && m->atime_ms == CSD_TIME_KEEP))
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "set_times: %" PRIu64 " is not a time", CSD_TIME_KEEP);
    if (!m->set_mtime && !m->set_atime) return cmd_fail(c, CSD_INVALID_ARGUMENT, "set_times: no time to set");
    int rc = csd_ftl_obj_set_times(d->ftl, m->object_id, m->set_mtime ? m->mtime_ms : CSD_TIME_KEEP,
                                   m->set_atime ? m->atime_ms : CSD_TIME_KEEP);
    if (rc) return cmd_fail_errno(c, rc, "set_times: %s", strerror(-rc));
    return 0;
}
