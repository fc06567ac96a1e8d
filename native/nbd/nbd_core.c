/* The NBD export's request handling (nbd_core.h): checks, then block commands on the device. */
#include "nbd_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smartssd/block.h"
#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"

#define BUSY_GIVE_UP_NS 10000000000ull   /* csd_nbd_export.busy_ns's default */

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fail(char *err, size_t errlen, int e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int e, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return e;
}

static const char *op_name(int op) {
    static const char *n[] = { "?", "read", "write", "trim", "zero", "flush" };
    return op >= CSD_NBD_READ && op <= CSD_NBD_FLUSH ? n[op] : "?";
}

/* A status's name as the protocol spells it (the device library's csd_status_name is not linked here). */
static const char *csd_status_text(int st) {
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(&smartssd__v1__status__descriptor, st);
    return v ? v->name : "UNKNOWN";
}

static uint8_t *pack(const Smartssd__V1__Request *r, size_t *len) {
    *len = smartssd__v1__request__get_packed_size(r);
    uint8_t *b = malloc(*len ? *len : 1);
    if (b) smartssd__v1__request__pack(r, b);
    return b;
}

/* Run n packed requests; each reply decoded into rs[i] (NULL when it does not decode). */
static int exchange(const csd_nbd_transport *t, uint8_t **req, const size_t *len, size_t n,
                    Smartssd__V1__Response **rs, char *err, size_t errlen) {
    uint8_t *resp[2] = { 0 };
    size_t rlen[2] = { 0 };
    int rc = t->call(t->arg, (const uint8_t *const *)req, len, n, resp, rlen);
    for (size_t i = 0; i < n; i++) free(req[i]);
    if (rc) return fail(err, errlen, EIO, "the device is unreachable: %s", strerror(rc < 0 ? -rc : rc));
    for (size_t i = 0; i < n; i++) {
        rs[i] = smartssd__v1__response__unpack(NULL, rlen[i], resp[i]);
        free(resp[i]);
    }
    return 0;
}

static void free_resps(Smartssd__V1__Response **rs, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (rs[i]) smartssd__v1__response__free_unpacked(rs[i], NULL);
}

int csd_nbd_info(const csd_nbd_transport *t, csd_nbd_export *x, char *err, size_t errlen) {
    Smartssd__V1__Request r = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockInfo bi = SMARTSSD__V1__BLOCK_INFO__INIT;
    r.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_INFO;
    r.block_info = &bi;
    size_t len;
    uint8_t *req = pack(&r, &len);
    if (!req) return fail(err, errlen, ENOMEM, "out of memory");
    Smartssd__V1__Response *rs = NULL;
    int rc = exchange(t, &req, &len, 1, &rs, err, errlen);
    if (rc) return rc;
    if (!rs || rs->result_case != SMARTSSD__V1__RESPONSE__RESULT_BLOCK_INFO || rs->status != SMARTSSD__V1__STATUS__OK) {
        rc = fail(err, errlen, EIO, "block_info: %s", rs && rs->message && *rs->message ? rs->message
                                                      : "the device's reply does not decode");
    } else {
        const Smartssd__V1__BlockInfoReply *b = rs->block_info;
        /* a page is a power of two from 512 bytes; the namespace fits an NBD size (int64) */
        if (b->lba_bytes < 512 || (b->lba_bytes & (b->lba_bytes - 1)) || b->lba_bytes > CSD_NBD_MAX_REQUEST ||
            b->lbas > (uint64_t)INT64_MAX / b->lba_bytes) {
            rc = fail(err, errlen, EIO, "block_info: a namespace of %" PRIu64 " LBAs of %u bytes cannot be exported",
                      b->lbas, b->lba_bytes);
        } else {
            x->lba_bytes = b->lba_bytes;
            x->lbas = b->lbas;
            x->size = b->lbas * b->lba_bytes;
        }
    }
    free_resps(&rs, 1);
    return rc;
}

static int status_errno(int st) {
    switch (st) {
    case CSD_OK: return 0;
    case CSD_NO_SPACE: return ENOSPC;
    case CSD_RESOURCE_EXHAUSTED: return ENOMEM;
    case CSD_INVALID_ARGUMENT: case CSD_OUT_OF_RANGE: return EINVAL;
    default: return EIO;
    }
}

static void log_cpl(csd_nbd_log *l, const Smartssd__V1__BlockCompletion *c, uint32_t lba_bytes, uint64_t wall) {
    static const char *ops[] = { "?", "read", "write", "trim", "flush" };
    pthread_mutex_lock(&l->mu);
    fprintf(l->f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%d,%" PRIu64 "\n",
            c->op <= 4 ? ops[c->op] : "?", c->lba * lba_bytes, (uint64_t)c->count * lba_bytes, c->arrival_ns,
            c->admit_ns, c->first_flash_ns, c->done_ns, c->flash_ops, (int)c->status, wall);
    pthread_mutex_unlock(&l->mu);
}

typedef struct chunk {
    uint64_t lba;
    uint32_t count;
    uint8_t *data;     /* a write's bytes, a read's destination */
    int state;         /* 0 = to submit, 1 = done */
    int status;
} chunk;

/* Submit the chunks not yet done in one BlockSubmit and poll them all back in the same exchange (this
 * thread's session has nothing else outstanding). Returns 0 when every submitted chunk completed,
 * ENOMEM when the device refused the submission as too busy (the caller retries), else an errno. */
static int round_trip(const csd_nbd_transport *t, const csd_nbd_export *x, uint8_t bop, chunk *ch, size_t n,
                      char *err, size_t errlen) {
    Smartssd__V1__BlockRequest *br = calloc(n, sizeof *br);
    Smartssd__V1__BlockRequest **bp = calloc(n, sizeof *bp);
    if (!br || !bp) {
        free(br);
        free(bp);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (ch[i].state) continue;
        smartssd__v1__block_request__init(&br[k]);
        br[k].id = i + 1;
        br[k].op = (Smartssd__V1__BlockOp)bop;
        br[k].lba = ch[i].lba;
        br[k].count = ch[i].count;
        if (bop == CSD_BLOCK_WRITE) {
            br[k].data.data = ch[i].data;
            br[k].data.len = (size_t)ch[i].count * x->lba_bytes;
        }
        br[k].return_data = bop == CSD_BLOCK_READ;
        bp[k] = &br[k];
        k++;
    }
    Smartssd__V1__Request sr = SMARTSSD__V1__REQUEST__INIT, pr = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__BlockSubmit bs = SMARTSSD__V1__BLOCK_SUBMIT__INIT;
    Smartssd__V1__BlockPoll bpoll = SMARTSSD__V1__BLOCK_POLL__INIT;
    bs.n_requests = k;
    bs.requests = bp;
    sr.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT;
    sr.block_submit = &bs;
    bpoll.min_completions = bpoll.max_completions = (uint32_t)k;
    pr.command_case = SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL;
    pr.block_poll = &bpoll;
    uint8_t *req[2];
    size_t len[2];
    req[0] = pack(&sr, &len[0]);
    req[1] = pack(&pr, &len[1]);
    free(br);
    free(bp);
    if (!req[0] || !req[1]) {
        free(req[0]);
        free(req[1]);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    Smartssd__V1__Response *rs[2] = { 0 };
    uint64_t t0 = mono_ns();
    int rc = exchange(t, req, len, 2, rs, err, errlen);
    uint64_t wall = mono_ns() - t0;
    if (rc) return rc;
    int sub_st = rs[0] ? (int)rs[0]->status : CSD_INTERNAL;
    if (!rs[0] || !rs[1] || (sub_st == CSD_OK && rs[0]->result_case != SMARTSSD__V1__RESPONSE__RESULT_BLOCK_SUBMIT) ||
        (rs[1]->status == SMARTSSD__V1__STATUS__OK && rs[1]->result_case != SMARTSSD__V1__RESPONSE__RESULT_BLOCK_POLL)) {
        rc = fail(err, errlen, EIO, "block_submit: the device's reply does not decode");
        goto out;
    }
    if (rs[1]->status != SMARTSSD__V1__STATUS__OK) {
        rc = fail(err, errlen, EIO, "block_poll: %s: %s", csd_status_text(rs[1]->status), rs[1]->message);
        goto out;
    }
    const Smartssd__V1__BlockPollReply *pl = rs[1]->block_poll;
    for (size_t j = 0; j < pl->n_completions; j++) {
        const Smartssd__V1__BlockCompletion *c = pl->completions[j];
        size_t i = (size_t)c->id - 1;
        if (c->id == 0 || c->id > n || ch[i].state || c->lba != ch[i].lba || c->count != ch[i].count) {
            rc = fail(err, errlen, EIO, "block_poll: a completion (id %" PRIu64 ") of a request not outstanding",
                      c->id);
            goto out;
        }
        if (bop == CSD_BLOCK_READ && c->status == SMARTSSD__V1__STATUS__OK) {
            if (c->data.len != (size_t)ch[i].count * x->lba_bytes) {
                rc = fail(err, errlen, EIO, "block_poll: a read of %u LBAs returned %zu bytes", ch[i].count,
                          c->data.len);
                goto out;
            }
            memcpy(ch[i].data, c->data.data, c->data.len);
        }
        ch[i].state = 1;
        ch[i].status = (int)c->status;
        if (x->log) log_cpl(x->log, c, x->lba_bytes, wall);
    }
    if (sub_st != CSD_OK) {
        /* the device took none of it (or, out of memory, a prefix: polled back above) */
        rc = fail(err, errlen, status_errno(sub_st), "block_submit: %s: %s", csd_status_text(sub_st),
                  rs[0]->message ? rs[0]->message : "");
        goto out;
    }
    if (pl->n_completions != k)
        rc = fail(err, errlen, EIO, "block_poll: %zu of %zu requests completed", pl->n_completions, k);
out:
    free_resps(rs, 2);
    return rc;
}

int csd_nbd_request(const csd_nbd_transport *t, const csd_nbd_export *x, int op, void *buf, uint32_t count,
                    uint64_t offset, uint32_t flags, char *err, size_t errlen) {
    const uint32_t lb = x->lba_bytes;
    uint8_t bop;
    void *zeros = NULL;
    if (op == CSD_NBD_FLUSH) {
        if (count || offset) return fail(err, errlen, EINVAL, "flush: covers no bytes (got %u at %" PRIu64 ")", count, offset);
        bop = CSD_BLOCK_FLUSH;
    } else {
        if (op < CSD_NBD_READ || op > CSD_NBD_ZERO) return fail(err, errlen, EINVAL, "unknown request %d", op);
        if (count == 0) return fail(err, errlen, EINVAL, "%s: zero-length request", op_name(op));
        if (count > CSD_NBD_MAX_REQUEST)
            return fail(err, errlen, EINVAL, "%s: %u bytes exceed the export's maximum request (%u bytes)", op_name(op),
                        count, CSD_NBD_MAX_REQUEST);
        if (offset % lb || count % lb)
            return fail(err, errlen, EINVAL, "%s: %u bytes at %" PRIu64 " are not aligned to the export's %u-byte "
                        "blocks", op_name(op), count, offset, lb);
        if (offset > x->size || count > x->size - offset)
            return fail(err, errlen, op == CSD_NBD_READ ? EINVAL : ENOSPC, "%s: %u bytes at %" PRIu64 " are past "
                        "the end of the export (%" PRIu64 " bytes)", op_name(op), count, offset, x->size);
        bop = op == CSD_NBD_READ ? CSD_BLOCK_READ : op == CSD_NBD_WRITE ? CSD_BLOCK_WRITE : CSD_BLOCK_TRIM;
        if (op == CSD_NBD_ZERO && !(flags & CSD_NBD_MAY_TRIM)) {
            /* the client wants the zeros stored, not a hole: that is a write, never fast */
            if (flags & CSD_NBD_FAST_ZERO) return fail(err, errlen, ENOTSUP, "zero: without a trim it is a write");
            zeros = calloc(1, count);
            if (!zeros) return fail(err, errlen, ENOMEM, "out of memory");
            buf = zeros;
            bop = CSD_BLOCK_WRITE;
        }
    }
    /* requests of at most CSD_BLOCK_MAX_LBAS LBAs, all in one submission */
    uint64_t lbas = count / lb, lba0 = offset / lb;
    size_t n = bop == CSD_BLOCK_FLUSH ? 1 : (size_t)((lbas + CSD_BLOCK_MAX_LBAS - 1) / CSD_BLOCK_MAX_LBAS);
    chunk *ch = calloc(n, sizeof *ch);
    if (!ch) {
        free(zeros);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n && bop != CSD_BLOCK_FLUSH; i++) {
        uint64_t a = (uint64_t)i * CSD_BLOCK_MAX_LBAS;
        ch[i].lba = lba0 + a;
        ch[i].count = (uint32_t)(lbas - a < CSD_BLOCK_MAX_LBAS ? lbas - a : CSD_BLOCK_MAX_LBAS);
        ch[i].data = buf ? (uint8_t *)buf + a * lb : NULL;
    }
    int rc;
    uint64_t start = mono_ns(), nap = 100000;
    for (;;) {
        rc = round_trip(t, x, bop, ch, n, err, errlen);
        if (rc != ENOMEM || mono_ns() - start > (x->busy_ns ? x->busy_ns : BUSY_GIVE_UP_NS)) break;
        /* the device is too busy for now (other clients' requests and read data): back off */
        struct timespec ts = { 0, (long)nap };
        nanosleep(&ts, NULL);
        if (nap < 20000000) nap *= 2;
    }
    for (size_t i = 0; !rc && i < n; i++)
        if (ch[i].status != CSD_OK)
            rc = fail(err, errlen, status_errno(ch[i].status) == ENOSPC ? ENOSPC : EIO, "%s: %s at LBA %" PRIu64
                      " (+%u)", op_name(op), ch[i].status == CSD_NO_SPACE ? "the device is full" : "the device failed",
                      ch[i].lba, ch[i].count);
    free(ch);
    free(zeros);
    return rc;
}

int csd_nbd_log_open(csd_nbd_log *l, const char *path, char *err, size_t errlen) {
    l->f = fopen(path, "w");
    if (!l->f) return fail(err, errlen, errno, "%s: %s", path, strerror(errno));
    setvbuf(l->f, NULL, _IOFBF, 1u << 20);
    pthread_mutex_init(&l->mu, NULL);
    fprintf(l->f, "op,offset,bytes,arrival_ns,admit_ns,first_flash_ns,done_ns,flash_ops,status,wall_ns\n");
    return 0;
}

void csd_nbd_log_close(csd_nbd_log *l) {
    if (!l->f) return;
    fclose(l->f);
    l->f = NULL;
    pthread_mutex_destroy(&l->mu);
}
