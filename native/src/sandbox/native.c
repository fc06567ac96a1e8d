/* Native user tasklets: the Smart SSD paper's own model (III-D, IV-A), a shared object run at full
 * speed in the device's address space, so with no protection at all. Only objects inside the
 * directory the device configuration names as trusted (tasklet_trusted_dir) load: the program's
 * bytes are a file name there, resolved with realpath so neither "..", symbolic links nor an
 * absolute path lead outside it. The object exports `const csd_tasklet_ops *csd_tasklet_entry(void)`
 * (the SDK's CSD_TASKLET macro), whose ops carry the ABI tag of the header it was built against
 * (CSD_TASKLET_ABI: an object built against another layout is refused, not read past its end), and
 * charges its own cost, as built-ins do.
 *
 * Every call into the program runs on a tasklet stack of tasklet_stack_bytes with an unmapped guard
 * below it (native_stack.c): an overflow, however large its frame, stops the tasklet with "overflowed
 * its stack" instead of writing past the stack, and the device keeps serving. */
#include "sandbox/sandbox_int.h"
#include "sandbox/native_stack.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ calls on the tasklet stack */

typedef struct nat {
    csd_user_tasklet *u;
    void *st;          /* the program's state */
    size_t rec;        /* its record size (RECORDS framing) */
    int dead;          /* it overflowed its stack: never called again */
} nat;

/* One switch to the tasklet stack per call; records and lines: per run of items of one page, the
 * program's record() called for each of them there (a switch per record would cost more than many
 * records do). */
enum { OP_INIT, OP_PAGE, OP_RECORD, OP_FINISH, OP_DESTROY, OP_PAGE_SCAN, OP_NEED_PAGE, OP_RECORDS, OP_LINES };

typedef struct ncall {
    int op, rc;
    nat *n;
    const csd_tasklet_ops *ops;   /* the program's own */
    csd_tasklet_io *io;
    const csd_tasklet_args *args;
    csd_framing *fr;
    char *err;
    size_t errlen;
    const uint8_t *p;
    size_t len;
    uint64_t off, page;
    uint32_t page_bytes;
    const csd_extent *x;
    int *cls, *need_next;
} ncall;

static void trampoline(void *arg) {
    ncall *c = arg;
    const csd_tasklet_ops *o = c->ops;
    switch (c->op) {
    case OP_INIT: c->rc = o->init(&c->n->st, c->args, c->fr, c->err, c->errlen); break;
    case OP_PAGE: c->rc = o->page(c->n->st, c->io, c->page); break;
    case OP_RECORD: c->rc = o->record(c->n->st, c->io, c->p, c->len, c->off); break;
    case OP_FINISH: c->rc = o->finish(c->n->st, c->io); break;
    case OP_DESTROY: o->destroy(c->n->st); break;
    case OP_PAGE_SCAN: c->rc = o->page_scan(c->n->st, c->io, c->x, c->page, c->p, c->len, c->cls, c->need_next); break;
    case OP_NEED_PAGE: c->rc = o->need_page(c->n->st, c->page, c->page_bytes); break;
    case OP_RECORDS: {
        /* n whole records back to back, as n record() calls: the first answer that is not 0 ends the run */
        size_t R = c->n->rec;
        c->rc = 0;
        for (size_t k = 0; k < c->len && !c->rc; k++) c->rc = o->record(c->n->st, c->io, c->p + k * R, R, c->off + k * R);
        break;
    }
    case OP_LINES: {
        /* whole lines, each ending in '\n', handed over as record() gets them: without the '\n' and
         * one '\r' before it */
        const uint8_t *p = c->p, *end = c->p + c->len;
        uint64_t off = c->off;
        c->rc = 0;
        while (p < end && !c->rc) {
            const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = (size_t)((nl ? nl : end) - p), l = len;
            if (l && p[l - 1] == '\r') l--;
            c->rc = o->record(c->n->st, c->io, p, l, off);
            off += len + 1;
            p += len + 1;
        }
        break;
    }
    }
}

static const char *const phase_name[] = { "init", "page", "record", "finish", "destroy", "page_scan", "need_page",
                                          "record", "record" };

static int on_stack(ncall *c) {
    nat *n = c->n;
    if (n->dead) return -EFAULT;
    c->ops = (const csd_tasklet_ops *)n->u->dl_ops;
    int rc = csd_native_stack_run(n->u->sb->lim.stack_bytes, trampoline, c);
    if (!rc) return c->rc;
    char msg[300], kib[32];
    uint64_t b = n->u->sb->lim.stack_bytes;
    if (b % (1u << 20) == 0) snprintf(kib, sizeof kib, "%llu MiB", (unsigned long long)(b >> 20));
    else snprintf(kib, sizeof kib, "%llu KiB", (unsigned long long)(b >> 10));
    if (rc == -EFAULT) {
        n->dead = 1;
        snprintf(msg, sizeof msg, "tasklet '%s' overflowed its stack in %s (tasklet_stack_bytes = %s)", n->u->name,
                 phase_name[c->op], kib);
    } else {
        snprintf(msg, sizeof msg, "tasklet '%s' cannot run: no tasklet stack of %s (%s)", n->u->name, kib,
                 strerror(-rc));
    }
    if (c->err) snprintf(c->err, c->errlen, "%s", msg);
    else if (c->io) csd_io_fail(c->io, "%s", msg);
    return rc;
}

static int n_init(void **state, const csd_tasklet_args *args, csd_framing *fr, char *err, size_t errlen) {
    csd_user_tasklet *u = *state;   /* the hooks' ctx */
    *state = NULL;
    if (!u) {
        snprintf(err, errlen, "a native tasklet runs only with its program (csd_user_tasklet_hooks)");
        return -EINVAL;
    }
    nat *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    n->u = u;
    ncall c = { .op = OP_INIT, .n = n, .args = args, .fr = fr, .err = err, .errlen = errlen };
    int rc = on_stack(&c);
    if (rc < 0) {
        if (!n->dead && n->st && u->dl_ops->destroy) {
            ncall d = { .op = OP_DESTROY, .n = n };
            on_stack(&d);
        }
        free(n);
        return rc;
    }
    n->rec = fr->record_bytes;
    *state = n;
    return rc;
}

static int n_page(void *st, csd_tasklet_io *io, uint64_t page_index) {
    ncall c = { .op = OP_PAGE, .n = st, .io = io, .page = page_index };
    return on_stack(&c);
}

static int n_record(void *st, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t offset) {
    ncall c = { .op = OP_RECORD, .n = st, .io = io, .p = rec, .len = len, .off = offset };
    return on_stack(&c);
}

static int n_records(void *st, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t offset) {
    ncall c = { .op = OP_RECORDS, .n = st, .io = io, .p = p, .len = n, .off = offset };
    return on_stack(&c);
}

static int n_lines(void *st, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t offset) {
    ncall c = { .op = OP_LINES, .n = st, .io = io, .p = p, .len = n, .off = offset };
    return on_stack(&c);
}

static int n_finish(void *st, csd_tasklet_io *io) {
    ncall c = { .op = OP_FINISH, .n = st, .io = io };
    return on_stack(&c);
}

static void n_destroy(void *st) {
    nat *n = st;
    if (!n) return;
    /* after an overflow its state is whatever the abandoned call left: not touched again (leaked) */
    if (!n->dead && n->u->dl_ops->destroy) {
        ncall c = { .op = OP_DESTROY, .n = n };
        on_stack(&c);
    }
    free(n);
}

static int n_page_scan(void *st, csd_tasklet_io *io, const csd_extent *x, uint64_t page_index, const uint8_t *data,
                       size_t len, int *cls, int *need_next) {
    ncall c = { .op = OP_PAGE_SCAN, .n = st, .io = io, .x = x, .page = page_index, .p = data, .len = len, .cls = cls,
                .need_next = need_next };
    return on_stack(&c);
}

static int n_need_page(void *st, uint64_t page_index, uint32_t page_bytes) {
    ncall c = { .op = OP_NEED_PAGE, .n = st, .page = page_index, .page_bytes = page_bytes };
    int rc = on_stack(&c);
    return rc < 0 ? 1 : rc;   /* a tasklet that failed here is stopped at its next call */
}

int csd_native_open(csd_sandbox *s, const char *name, const uint8_t *p, size_t len, csd_user_tasklet *u, char *err,
                    size_t errlen) {
    if (!s->trusted_dir[0]) {
        snprintf(err, errlen, "is native code, and this device names no trusted directory for native tasklets "
                 "(tasklet_trusted_dir); install it as WebAssembly instead");
        return -EPERM;
    }
    char file[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
    if (len == 0 || len >= sizeof file || memchr(p, 0, len)) {
        snprintf(err, errlen, "is native, and its bytes must be a file name inside %s", s->trusted_dir);
        return -EINVAL;
    }
    memcpy(file, p, len);
    file[len] = 0;
    if (!realpath(s->trusted_dir, dir)) {
        snprintf(err, errlen, "cannot load: the trusted directory %s: %s", s->trusted_dir, strerror(errno));
        return -ENOENT;
    }
    char joined[2 * PATH_MAX + 2];
    if (file[0] == '/') snprintf(joined, sizeof joined, "%s", file);
    else snprintf(joined, sizeof joined, "%s/%s", dir, file);
    if (!realpath(joined, real)) {
        snprintf(err, errlen, "cannot load %s: %s", joined, strerror(errno));
        return -ENOENT;
    }
    size_t dl = strlen(dir);
    if (strncmp(real, dir, dl) || real[dl] != '/') {
        snprintf(err, errlen, "is %s, outside the trusted directory %s (tasklet_trusted_dir): native tasklets "
                 "load only from there", real, dir);
        return -EPERM;
    }
    /* The object calls csd_io_* by name: make the library that holds them (this one; the JNI library
     * is loaded RTLD_LOCAL) visible to it. */
    Dl_info self;
    if (dladdr((void *)csd_io_charge, &self) && self.dli_fname) {
        void *g = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
        if (g) dlclose(g);
    }
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "cannot be loaded: %s", dlerror());
        return -EINVAL;
    }
    const csd_tasklet_ops *(*entry)(void) = (const csd_tasklet_ops *(*)(void))dlsym(h, "csd_tasklet_entry");
    const csd_tasklet_ops *ops = entry ? entry() : NULL;
    /* The tag first: only a struct of this layout may be read whole. Its first word is read in any
     * case (every layout begins with at least a pointer); one before the tag holds the name pointer
     * there, never the tag (a user-space address has its top bits clear). */
    const uint64_t abi = ops ? ops->abi : 0;
    if (ops && (abi >> 32 != CSD_TASKLET_ABI_MAGIC || (uint32_t)abi != sizeof *ops)) {
        const int tagged = abi >> 32 == CSD_TASKLET_ABI_MAGIC;
        dlclose(h);
        char size[48];
        snprintf(size, sizeof size, "%u bytes", (unsigned)(uint32_t)abi);
        snprintf(err, errlen, "(%s) was built against %s tasklet ABI than this device's (its ops: %s; this device "
                 "reads %zu bytes): rebuild it with bin/smartssd tasklet build --native", real,
                 !tagged || (uint32_t)abi < sizeof *ops ? "an older" : "a newer", tagged ? size : "no ABI tag", sizeof *ops);
        return -EPROTO;
    }
    if (!ops || !ops->init || !ops->record) {
        dlclose(h);
        snprintf(err, errlen, "(%s) exports no csd_tasklet_entry giving init and record (use the SDK's CSD_TASKLET)", real);
        return -EINVAL;
    }
    u->dl = h;
    u->dl_ops = ops;
    /* the device calls the program through wrappers that run it on its tasklet stack; only the
     * optional calls the program has are set, so the runtime sees the same ops */
    u->ops = (csd_tasklet_ops){ .abi = ops->abi, .schema = ops->schema, .init = n_init, .record = n_record,
                                .page = ops->page ? n_page : NULL, .finish = ops->finish ? n_finish : NULL,
                                .destroy = n_destroy, .page_scan = ops->page_scan ? n_page_scan : NULL,
                                .need_page = ops->need_page ? n_need_page : NULL };
    u->hooks = (csd_exec_hooks){ .ctx = u, .records = n_records, .lines = n_lines };
    u->ops.name = u->name;            /* messages name the tasklet as installed */
    snprintf(u->summary, sizeof u->summary, "%s", ops->summary ? ops->summary : "");
    u->ops.summary = u->summary;
    if (ops->schema && strlen(ops->schema) >= sizeof u->schema) {
        dlclose(h);
        u->dl = NULL;
        snprintf(err, errlen, "declares a schema longer than %zu bytes", sizeof u->schema - 1);
        return -EINVAL;
    }
    /* a copy: the program's own string stays valid only while it is open */
    snprintf(u->schema, sizeof u->schema, "%s", ops->schema ? ops->schema : "");
    u->ops.schema = u->schema[0] ? u->schema : NULL;
    return 0;
}

void csd_native_close(csd_user_tasklet *u) {
    if (u->dl) dlclose(u->dl);
    u->dl = NULL;
}
