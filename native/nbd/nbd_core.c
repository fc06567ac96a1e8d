/* The NBD export's checks, the namespace's geometry and the latency log (nbd_core.h). */
#include "nbd_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "smartssd/block.h"
#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"


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
const char *csd_nbd_status_text(int st) {
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
    if (rc) return rc;
    /* paced? (a device that does not say is taken as unpaced) */
    Smartssd__V1__Identify id = SMARTSSD__V1__IDENTIFY__INIT;
    r.command_case = SMARTSSD__V1__REQUEST__COMMAND_IDENTIFY;
    r.identify = &id;
    if (!(req = pack(&r, &len))) return fail(err, errlen, ENOMEM, "out of memory");
    rs = NULL;
    if ((rc = exchange(t, &req, &len, 1, &rs, err, errlen))) return rc;
    x->paced = 0;
    if (rs && rs->result_case == SMARTSSD__V1__RESPONSE__RESULT_IDENTIFY)
        for (size_t i = 0; i < rs->identify->n_params; i++)
            if (!strcmp(rs->identify->params[i]->key, "paced")) x->paced = strcmp(rs->identify->params[i]->value, "0") != 0;
    free_resps(&rs, 1);
    return 0;
}

int csd_nbd_status_errno(int st) {
    switch (st) {
    case CSD_OK: return 0;
    case CSD_NO_SPACE: return ENOSPC;
    case CSD_RESOURCE_EXHAUSTED: return ENOMEM;
    case CSD_INVALID_ARGUMENT: case CSD_OUT_OF_RANGE: return EINVAL;
    default: return EIO;
    }
}

int csd_nbd_check(const csd_nbd_export *x, int op, uint32_t count, uint64_t offset, uint32_t flags, uint8_t *bop,
                  int *zero_write, char *err, size_t errlen) {
    const uint32_t lb = x->lba_bytes;
    *zero_write = 0;
    if (op == CSD_NBD_FLUSH) {
        if (count || offset) return fail(err, errlen, EINVAL, "flush: covers no bytes (got %u at %" PRIu64 ")", count, offset);
        *bop = CSD_BLOCK_FLUSH;
        return 0;
    }
    if (op < CSD_NBD_READ || op > CSD_NBD_ZERO) return fail(err, errlen, EINVAL, "unknown request %d", op);
    if (count == 0) return fail(err, errlen, EINVAL, "%s: zero-length request", op_name(op));
    if (count > CSD_NBD_MAX_REQUEST)
        return fail(err, errlen, EINVAL, "%s: %u bytes exceed the export's maximum request (%u bytes)", op_name(op),
                    count, CSD_NBD_MAX_REQUEST);
    if (offset % lb || count % lb)
        return fail(err, errlen, EINVAL, "%s: %u bytes at %" PRIu64 " are not aligned to the export's %u-byte blocks",
                    op_name(op), count, offset, lb);
    if (offset > x->size || count > x->size - offset)
        return fail(err, errlen, op == CSD_NBD_READ ? EINVAL : ENOSPC, "%s: %u bytes at %" PRIu64 " are past the end "
                    "of the export (%" PRIu64 " bytes)", op_name(op), count, offset, x->size);
    *bop = op == CSD_NBD_READ ? CSD_BLOCK_READ : op == CSD_NBD_WRITE ? CSD_BLOCK_WRITE : CSD_BLOCK_TRIM;
    if (op == CSD_NBD_ZERO && !(flags & CSD_NBD_MAY_TRIM)) {
        /* the client wants the zeros stored, not a hole: that is a write, never fast */
        if (flags & CSD_NBD_FAST_ZERO) return fail(err, errlen, ENOTSUP, "zero: without a trim it is a write");
        *bop = CSD_BLOCK_WRITE;
        *zero_write = 1;
    }
    return 0;
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
