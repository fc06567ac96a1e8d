/* Status names and the errno -> status map. */
#include "smartssd/csd.h"

#include <errno.h>
#include <stdlib.h>

static const char *const NAMES[] = {
    "OK", "INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS", "NO_SPACE", "BAD_PACKET", "UNSUPPORTED",
    "TASKLET_ERROR", "BUSY", "IO_ERROR", "OUT_OF_RANGE", "RESOURCE_EXHAUSTED", "INTERNAL",
};

const char *csd_status_name(int status) {
    if (status == CSD_PERMISSION_DENIED) return "PERMISSION_DENIED";
    if (status < 0 || status >= (int)(sizeof NAMES / sizeof NAMES[0])) return "UNKNOWN";
    return NAMES[status];
}

const char *csd_version(void) { return "0.1.0"; }

void csd_free(void *p) { free(p); }

int csd_status_from_errno(int rc) {
    switch (rc) {
    case 0: return CSD_OK;
    case -ENOENT: return CSD_NOT_FOUND;
    case -EEXIST: return CSD_ALREADY_EXISTS;
    case -ENOSPC: case -EDQUOT: return CSD_NO_SPACE;   /* EDQUOT: the host disk under the image */
    case -ERANGE: return CSD_OUT_OF_RANGE;
    case -EINVAL: return CSD_INVALID_ARGUMENT;
    case -EIO: case -EBADMSG: case -EACCES: case -EPERM: case -EROFS: case -ENOTDIR: case -EISDIR:
    case -ENXIO: case -EFBIG: return CSD_IO_ERROR;
    case -ENOMEM: return CSD_RESOURCE_EXHAUSTED;
    case -EBUSY: case -EAGAIN: return CSD_BUSY;
    case -ENOTSUP: return CSD_UNSUPPORTED;
    default: return CSD_INTERNAL;
    }
}
