/* Native user tasklets: the Smart SSD paper's own model (III-D, IV-A), a shared object run at full
 * speed in the device's address space, so with no protection at all. Only objects inside the
 * directory the device configuration names as trusted (tasklet_trusted_dir) load: the program's
 * bytes are a file name there, resolved with realpath so neither "..", symbolic links nor an
 * absolute path lead outside it. The object exports `const csd_tasklet_ops *csd_tasklet_entry(void)`
 * (the SDK's CSD_TASKLET macro), whose ops carry the ABI tag of the header it was built against
 * (CSD_TASKLET_ABI: an object built against another layout is refused, not read past its end), and
 * charges its own cost, as built-ins do. */
#include "sandbox/sandbox_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    u->ops = *ops;
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
