/* nbdkit plugin "smartssd": the device's block namespace as an NBD export, for fio, nbdcopy, nbdinfo,
 * qemu-img and the kernel's nbd client (docs/BLOCK-IO.md, "The device as a network block device").
 * nbdkit speaks NBD; this plugin turns each request into block commands on the device through the
 * csdd daemon's socket (nbd_core.c, nbd_sock.c), so objects and blocks share one device and every
 * request is timed by the device's model. `csd nbd` starts nbdkit with it.
 *
 *   nbdkit nbdkit-smartssd-plugin.so socket=/path/csdd.sock [log=FILE] [retry=SECONDS] [refill_us=US]
 */
#define NBDKIT_API_VERSION 2
#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL
#include <nbdkit-plugin.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "nbd_core.h"
#include "nbd_sock.h"

static char *sock_path;
static char *log_path;
static double retry_s = 30, refill_us = 2000;
static csd_nbd_export ex;
static csd_nbd_log lg;
static csd_nbd_sock sk;
static csd_nbd_transport tr = { csd_nbd_sock_call, csd_nbd_sock_generation, &sk };

static void note(const char *msg) { nbdkit_debug("%s", msg); }

static int smartssd_config(const char *key, const char *value) {
    if (!strcmp(key, "socket")) {
        free(sock_path);
        sock_path = nbdkit_absolute_path(value);
        return sock_path ? 0 : -1;
    }
    if (!strcmp(key, "log")) {
        free(log_path);
        log_path = nbdkit_absolute_path(value);
        return log_path ? 0 : -1;
    }
    if (!strcmp(key, "retry")) {
        char *end;
        retry_s = strtod(value, &end);
        if (!*value || *end || !(retry_s >= 0 && retry_s <= 86400)) {
            nbdkit_error("retry=%s: seconds from 0 to 86400", value);
            return -1;
        }
        return 0;
    }
    if (!strcmp(key, "refill_us")) {
        char *end;
        refill_us = strtod(value, &end);
        if (!*value || *end || !(refill_us >= 0 && refill_us <= 1e6)) {
            nbdkit_error("refill_us=%s: microseconds from 0 to 1000000", value);
            return -1;
        }
        return 0;
    }
    nbdkit_error("unknown parameter '%s' (socket, log, retry, refill_us)", key);
    return -1;
}

static int smartssd_config_complete(void) {
    if (!sock_path) {
        nbdkit_error("socket=PATH is required: the csdd daemon's socket (csd serve IMAGE --socket PATH)");
        return -1;
    }
    sk = (csd_nbd_sock){ .path = sock_path, .retry_ns = (uint64_t)(retry_s * 1e9), .expect = NULL, .note = note };
    return 0;
}

/* Before serving: the daemon must answer, and its namespace fixes the export's size. */
static int smartssd_get_ready(void) {
    char err[512];
    uint64_t retry = sk.retry_ns;
    sk.retry_ns = 0;   /* at start, a daemon that is not there is an error, not a wait */
    int rc = csd_nbd_info(&tr, &ex, err, sizeof err);
    sk.retry_ns = retry;
    csd_nbd_sock_drop();
    if (rc) {
        nbdkit_error("%s: %s", sock_path, err);
        return -1;
    }
    sk.expect = &ex;
    ex.refill_ns = refill_us > 0 ? (uint64_t)(refill_us * 1e3) : UINT64_MAX;
    if (log_path) {
        if (csd_nbd_log_open(&lg, log_path, err, sizeof err)) {
            nbdkit_error("log: %s", err);
            return -1;
        }
        ex.log = &lg;
    }
    return 0;
}

static void smartssd_unload(void) {
    csd_nbd_log_close(&lg);
    free(sock_path);
    free(log_path);
}

/* Each client connection: its own queue, session and dispatcher thread (nbd_core.h). */
static void *smartssd_open(int readonly) {
    csd_nbd_queue *q;
    int rc = csd_nbd_queue_start(&q, &tr, &ex);
    if (rc) {
        nbdkit_error("cannot start the connection's queue: %s", strerror(rc));
        return NULL;
    }
    return q;
}

static void smartssd_close(void *h) { csd_nbd_queue_stop(h); }

static int64_t smartssd_get_size(void *h) { return (int64_t)ex.size; }

static int smartssd_block_size(void *h, uint32_t *minimum, uint32_t *preferred, uint32_t *maximum) {
    *minimum = *preferred = ex.lba_bytes;
    *maximum = CSD_NBD_MAX_REQUEST;
    return 0;
}

static int yes(void *h) { return 1; }
static int no(void *h) { return 0; }
/* FUA: nbdkit follows the write with a flush */
static int smartssd_can_fua(void *h) { return NBDKIT_FUA_EMULATE; }

static const char *smartssd_export_description(void *h) {
    return nbdkit_printf_intern("smartssd block namespace: %" PRIu64 " LBAs of %u bytes (device daemon %s)", ex.lbas,
                                ex.lba_bytes, sock_path);
}

static int request(void *h, int op, void *buf, uint32_t count, uint64_t offset, uint32_t flags) {
    char err[512];
    uint32_t f = (flags & NBDKIT_FLAG_MAY_TRIM ? CSD_NBD_MAY_TRIM : 0) | (flags & NBDKIT_FLAG_FAST_ZERO ? CSD_NBD_FAST_ZERO : 0);
    int e = csd_nbd_request(h, op, buf, count, offset, f, err, sizeof err);
    if (!e) return 0;
    /* ENOTSUP on a fast zero is the protocol's answer, not a failure worth a message */
    if (e != ENOTSUP) nbdkit_error("%s", err);
    nbdkit_set_error(e);
    return -1;
}

static int smartssd_pread(void *h, void *buf, uint32_t count, uint64_t offset, uint32_t flags) {
    return request(h, CSD_NBD_READ, buf, count, offset, flags);
}

static int smartssd_pwrite(void *h, const void *buf, uint32_t count, uint64_t offset, uint32_t flags) {
    return request(h, CSD_NBD_WRITE, (void *)buf, count, offset, flags);
}

static int smartssd_trim(void *h, uint32_t count, uint64_t offset, uint32_t flags) {
    return request(h, CSD_NBD_TRIM, NULL, count, offset, flags);
}

static int smartssd_zero(void *h, uint32_t count, uint64_t offset, uint32_t flags) {
    return request(h, CSD_NBD_ZERO, NULL, count, offset, flags);
}

static int smartssd_flush(void *h, uint32_t flags) { return request(h, CSD_NBD_FLUSH, NULL, 0, 0, flags); }

static struct nbdkit_plugin plugin = {
    .name = "smartssd",
    .longname = "smartssd: the emulated device's block namespace",
    .description = "The smartssd device's block namespace as an NBD export, reached through the csdd daemon",
    .magic_config_key = "socket",
    .config = smartssd_config,
    .config_complete = smartssd_config_complete,
    .config_help = "socket=PATH      the csdd daemon's socket (required)\n"
                   "log=FILE         one CSV line per block request: the device's virtual times\n"
                   "retry=SECONDS    how long a request waits for a daemon that went away (default 30)\n"
                   "refill_us=US     after completions, how long the device waits for the client's next\n"
                   "                 requests before its clock moves on (default 2000; 0 = never)",
    .get_ready = smartssd_get_ready,
    .unload = smartssd_unload,
    .open = smartssd_open,
    .close = smartssd_close,
    .get_size = smartssd_get_size,
    .block_size = smartssd_block_size,
    .can_write = yes,
    .can_flush = yes,
    .can_trim = yes,
    .can_zero = yes,
    .can_fast_zero = yes,
    .can_fua = smartssd_can_fua,
    .can_multi_conn = yes,
    .is_rotational = no,
    .can_extents = no,
    .can_cache = no,
    .export_description = smartssd_export_description,
    .pread = smartssd_pread,
    .pwrite = smartssd_pwrite,
    .trim = smartssd_trim,
    .zero = smartssd_zero,
    .flush = smartssd_flush,
    .errno_is_preserved = 0,
};

NBDKIT_REGISTER_PLUGIN(plugin)
