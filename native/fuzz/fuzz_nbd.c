/* libFuzzer target: the NBD export's request handling (native/nbd/: the checks and a connection's
 * queue), what the nbdkit plugin runs for every NBD request. The input is a mode byte (bit 0: hostile;
 * bit 1: the queue's dispatcher thread, as in the plugin, else inline, faster) and a list of NBD
 * requests (operation, flags, offset, length), any of them unaligned, empty, oversized or past the end
 * of the export.
 *
 * Honest mode: the requests go to a real device (tiny preset, 1 MiB namespace) through its own entry
 * point in a client session, beside a shadow copy of the export: each answer must be the errno worked
 * out here independently (EINVAL, ENOSPC, ENOTSUP or 0), every read must return the shadow's bytes,
 * and a request refused must change nothing. Hostile mode: the device's replies are bytes of the
 * input instead (a daemon gone mad): the handler must not crash, read out of bounds or leak, and may
 * only answer with an errno an NBD server sends. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nbd_core.h"
#include "smartssd/csd.h"

#define NS_BYTES (1u << 20)
#define LB 4096u

static csd_device *dev;
static uint64_t session;
static csd_nbd_queue *honest_q, *honest_inline_q, *hostile_q;
static uint8_t shadow[NS_BYTES];

/* honest: the device's entry point as the session */
static int dev_call(void *arg, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                    size_t *resp_len) {
    for (size_t i = 0; i < n; i++) {
        uint8_t *out;
        size_t out_len;
        if (csd_device_command_as(dev, session, req[i], len[i], NULL, &out, &out_len)) abort();
        resp[i] = malloc(out_len ? out_len : 1);
        memcpy(resp[i], out, out_len);
        resp_len[i] = out_len;
        csd_free(out);
    }
    return 0;
}

/* hostile: each reply is the next length-prefixed piece of the input */
typedef struct feed {
    const uint8_t *p;
    size_t n;
} feed;

static feed g_feed;   /* the hostile queue's replies: this input's */

static int feed_call(void *arg, const uint8_t *const *req, const size_t *len, size_t n, uint8_t **resp,
                     size_t *resp_len) {
    feed *f = arg;
    for (size_t i = 0; i < n; i++) {
        if (f->n < 2) {
            for (size_t k = 0; k < i; k++) {
                free(resp[k]);
                resp[k] = NULL;
            }
            return -ECONNRESET;
        }
        size_t m = (size_t)f->p[0] | (size_t)f->p[1] << 8;
        f->p += 2;
        f->n -= 2;
        if (m > f->n) m = f->n;
        resp[i] = malloc(m ? m : 1);
        memcpy(resp[i], f->p, m);
        resp_len[i] = m;
        f->p += m;
        f->n -= m;
    }
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char path[256], err[512];
    snprintf(path, sizeof path, "/tmp/csd-fuzz-nbd.%d.img", (int)getpid());
    csd_params p;
    csd_params_preset(&p, "tiny");
    if (csd_format(path, NS_BYTES, &p, err, sizeof err)) abort();
    csd_open_opts o = { .override = NULL, .background = 0 };
    if (csd_device_open(&dev, path, &o, err, sizeof err)) abort();
    unlink(path);
    if (csd_session_begin(dev, &session)) abort();
    static const csd_nbd_transport t = { dev_call, NULL, NULL };
    static const csd_nbd_export x = { .lba_bytes = LB, .lbas = NS_BYTES / LB, .size = NS_BYTES, .busy_ns = 1 };
    static const csd_nbd_transport h = { feed_call, NULL, &g_feed };
    /* honest: with its dispatcher thread as in the plugin (mode bit 1), or inline (faster); hostile: inline */
    if (csd_nbd_queue_start(&honest_q, &t, &x) || csd_nbd_queue_start_mode(&honest_inline_q, &t, &x, 1) ||
        csd_nbd_queue_start_mode(&hostile_q, &h, &x, 1))
        abort();
    return 0;
}

/* The errno an NBD request must get from an export of NS_BYTES in LB-byte blocks. */
static int expected(int op, uint32_t count, uint64_t off, uint32_t flags) {
    if (op == CSD_NBD_FLUSH) return count || off ? EINVAL : 0;
    if (op < CSD_NBD_READ || op > CSD_NBD_ZERO) return EINVAL;
    if (count == 0 || count > CSD_NBD_MAX_REQUEST || off % LB || count % LB) return EINVAL;
    if (off + count > NS_BYTES) return op == CSD_NBD_READ ? EINVAL : ENOSPC;
    if (op == CSD_NBD_ZERO && !(flags & CSD_NBD_MAY_TRIM) && (flags & CSD_NBD_FAST_ZERO)) return ENOTSUP;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static uint8_t buf[CSD_NBD_MAX_REQUEST];
    char err[512];
    const int hostile = data[0] & 1;
    csd_nbd_queue *q = data[0] & 2 ? honest_q : honest_inline_q;
    data++;
    size--;
    csd_nbd_export x = { .lba_bytes = LB, .lbas = NS_BYTES / LB, .size = NS_BYTES, .busy_ns = 1 };
    size_t nreq = size / 8;
    if (hostile) {
        /* a count, the requests, then the replies */
        if (size < 1) return 0;
        nreq = data[0] % 8;
        if (nreq * 8 + 1 > size) nreq = 0;
        g_feed = (feed){ data + 1 + nreq * 8, size - 1 - nreq * 8 };
        data++;
        csd_nbd_transport t = { feed_call, NULL, &g_feed };
        csd_nbd_info(&t, &x, err, sizeof err);   /* whatever it says, the export stays within bounds */
        q = hostile_q;
    } else {
        /* start from an empty namespace, as the shadow */
        if (csd_nbd_request(q, CSD_NBD_TRIM, NULL, NS_BYTES / 4, 0, 0, err, sizeof err) ||
            csd_nbd_request(q, CSD_NBD_TRIM, NULL, NS_BYTES - NS_BYTES / 4, NS_BYTES / 4, 0, err, sizeof err)) {
            fprintf(stderr, "trim: %s\n", err);
            abort();
        }
        memset(shadow, 0, sizeof shadow);
    }
    for (size_t i = 0; i < nreq && i < 64; i++) {
        const uint8_t *r = data + i * 8;
        int op = r[0] % 6;
        uint32_t flags = r[1] & 3;
        uint64_t off = (uint64_t)(r[2] | r[3] << 8) * 512;
        uint32_t count = (uint32_t)(r[4] | r[5] << 8) * 512;
        if (r[6] & 0x80) count = (uint32_t)(r[4] | r[5] << 8 | (r[6] & 0x7f) << 16) * 512;   /* up to 4 GiB */
        if (op == CSD_NBD_FLUSH && !(r[7] & 1)) off = count = 0;
        int want = expected(op, count, off, flags);
        uint32_t n = count <= sizeof buf ? count : sizeof buf;
        /* the buffer's bytes matter only for a request that is served (a refused one must not touch them) */
        if (want == 0 && op == CSD_NBD_WRITE)
            for (uint32_t k = 0; k < n; k++) buf[k] = (uint8_t)(r[7] + k * 131 + (k >> 12));
        else if (want == 0)
            memset(buf, 0xEE, n);
        int got = csd_nbd_request(q, op, n == count ? buf : NULL, count, off, flags, err, sizeof err);
        if (hostile) {
            if (got != 0 && got != EINVAL && got != ENOSPC && got != ENOTSUP && got != EIO && got != ENOMEM) {
                fprintf(stderr, "hostile reply: errno %d (%s)\n", got, err);
                abort();
            }
            continue;
        }
        if (got != want) {
            fprintf(stderr, "request %zu: op %d, %u bytes at %llu, flags %u: errno %d, want %d (%s)\n", i, op, count,
                    (unsigned long long)off, flags, got, want, err);
            abort();
        }
        if (got) continue;
        if (op == CSD_NBD_WRITE) memcpy(shadow + off, buf, count);
        if (op == CSD_NBD_TRIM || op == CSD_NBD_ZERO) memset(shadow + off, 0, count);
        if (op == CSD_NBD_READ && memcmp(buf, shadow + off, count)) {
            fprintf(stderr, "request %zu: read of %u bytes at %llu differs from what was written\n", i, count,
                    (unsigned long long)off);
            abort();
        }
    }
    return 0;
}
