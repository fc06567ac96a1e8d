/* libFuzzer target for the plan tasklet: input = [2-byte big-endian plan length | packed Plan | data].
 * The data is run through an execution in two extents over small pages (so records and lines straddle
 * pages), and every output row must decode as a smartssd.v1.Row. Whatever the bytes, nothing may
 * crash, leak or read out of bounds. Seeds: tests/test_plan.c with CSD_WRITE_FUZZ_SEEDS=DIR. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exec.h"
#include "smartssd/tasklet.h"
#include "smartssd/v1/device.pb-c.h"

static void check_rows(const uint8_t *p, size_t n) {
    size_t pos = 0;
    while (pos < n) {
        uint64_t len = 0;
        int shift = 0;
        for (;;) {
            if (pos >= n || shift > 63) abort();
            uint8_t b = p[pos++];
            len |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80)) break;
        }
        if (len > n - pos) abort();
        Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, (size_t)len, p + pos);
        if (!row) abort();
        smartssd__v1__row__free_unpacked(row, NULL);
        pos += (size_t)len;
    }
}

static void run_extent(const csd_tasklet_ops *ops, const csd_tasklet_args *args, const uint8_t *obj,
                       uint64_t size, uint64_t off, uint64_t len, uint32_t P) {
    char err[512];
    csd_outbuf ob;
    csd_outbuf_init(&ob, 1 << 20, 1000);
    csd_exec *t;
    if (csd_exec_create(&t, ops, args, &ob, err, sizeof err)) {
        if (!err[0]) abort();   /* every refusal carries a message */
        csd_outbuf_free(&ob);
        return;
    }
    uint64_t fp, lp;
    if (csd_exec_begin(t, size, off, len, P, &fp, &lp, err, sizeof err) == 0) {
        int more = lp >= fp, rc = 0;
        uint64_t max_page = size ? (size - 1) / P : 0;
        for (uint64_t pg = fp; lp >= fp && (more || pg <= lp) && pg <= max_page && !rc; pg++) {
            size_t n = (size_t)(size - pg * P < P ? size - pg * P : P);
            csd_cost c;
            rc = csd_exec_feed(t, pg, obj + pg * P, n, &c, &more);
            const uint8_t *p;
            size_t got = csd_outbuf_take(&ob, SIZE_MAX, &p);
            check_rows(p, got);
        }
        if (!rc) rc = csd_exec_finish(t, NULL);
        if (rc && !csd_exec_error(t)[0]) abort();
        const uint8_t *p;
        size_t got = csd_outbuf_take(&ob, SIZE_MAX, &p);
        check_rows(p, got);
    }
    csd_exec_destroy(t);
    csd_outbuf_free(&ob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t plen = (size_t)data[0] << 8 | data[1];
    if (plen > size - 2) plen = size - 2;
    /* copies, so reads past either part are caught by ASan */
    uint8_t *plan = malloc(plen ? plen : 1);
    size_t osize = size - 2 - plen;
    uint8_t *obj = malloc(osize ? osize : 1);
    if (!plan || !obj) abort();
    memcpy(plan, data + 2, plen);
    memcpy(obj, data + 2 + plen, osize);
    csd_tasklet_args args;
    memset(&args, 0, sizeof args);
    args.plan = plan;
    args.plan_len = plen;
    args.page_bytes = 64;
    const csd_tasklet_ops *ops = csd_tasklet_find("plan");
    uint64_t cut = osize ? (plen * 7919u) % (osize + 1) : 0;
    run_extent(ops, &args, obj, osize, 0, cut, 64);
    run_extent(ops, &args, obj, osize, cut, osize - cut, 64);
    free(plan);
    free(obj);
    return 0;
}
