/* Host block I/O (smartssd/block.h, docs/BLOCK-IO.md): the block namespace, its requests validated and
 * applied to the FTL in submission order (the data moves now), then handed to the engine, which
 * replays their flash operations in virtual time with a queue depth; BlockPoll runs the device and
 * returns completions. The namespace is one reserved data object, CSD_BLOCK_NS_NAME, grown to the
 * logical capacity with csd_ftl_extend (its pages are holes until written): the FTL's crash safety,
 * GC and mapping policy apply to it as to any object, and object commands never see it. */
#include "hil/cmd.h"
#include "hil/pace.h"
#include "hil/timeline.h"
#include "smartssd/block.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_block_reserved(const char *name) {
    return name && !strncmp(name, CSD_BLOCK_PREFIX, strlen(CSD_BLOCK_PREFIX));
}

/* The namespace object, made on first use. -1 after cmd_fail. */
static int blk_ns(csd_device *d, cmd_ctx *c) {
    if (d->blk_ns) return 0;
    const uint64_t pb = d->params.page_bytes, lbas = csd_ftl_capacity(d->ftl) / pb;
    uint64_t id;
    int rc = csd_ftl_obj_find(d->ftl, CSD_BLOCK_NS_NAME, &id);
    if (rc == -ENOENT) {
        rc = csd_ftl_obj_create(d->ftl, CSD_BLOCK_NS_NAME, &id);
        if (rc == -ENOSPC) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "block: the object table is full; no room "
                                           "for the block namespace");
        if (rc) return cmd_fail_errno(c, rc, "block: cannot create the namespace: %s", strerror(-rc));
    } else if (rc) {
        return cmd_fail_errno(c, rc, "block: %s", strerror(-rc));
    }
    csd_obj_info info;
    if (csd_ftl_obj_stat(d->ftl, id, &info)) return cmd_fail(c, CSD_INTERNAL, "block: the namespace vanished");
    if (info.size < lbas * pb) {
        /* one tombstone record on the last LBA: charged like any host command */
        csd_flash_batch ops = { 0 };
        rc = csd_ftl_extend(d->ftl, id, lbas * pb, &ops);
        if (!rc) csd_engine_host_io(d->eng, &ops, 0, 0);
        csd_flash_batch_free(&ops);
        if (rc == -ENOSPC) return cmd_fail(c, CSD_NO_SPACE, "block: the device is full; no room for the namespace");
        if (rc) return cmd_fail_errno(c, rc, "block: cannot size the namespace: %s", strerror(-rc));
    }
    d->blk_ns = id;
    d->blk_lbas = lbas;
    return 0;
}

static const char *op_name(uint8_t op) {
    return op == CSD_BLOCK_READ ? "READ" : op == CSD_BLOCK_WRITE ? "WRITE" : op == CSD_BLOCK_TRIM ? "TRIM"
         : op == CSD_BLOCK_FLUSH ? "FLUSH" : "?";
}

/* Every field of every request before any is applied. data_len[i] is request i's data bytes (for
 * packets, where a write's data may be empty = fill), want[i] a read that returns data. */
static int blk_check(csd_device *d, cmd_ctx *c, const csd_block_req *q, size_t n, const size_t *data_len,
                     const uint8_t *want, uint64_t *arrivals) {
    if (n == 0) return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: no requests");
    uint64_t out = csd_engine_blk_outstanding_all(d->eng);
    if (n > CSD_BLOCK_MAX_OUTSTANDING - out)
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "block_submit: %zu requests with %" PRIu64 " outstanding would "
                        "exceed %u; poll completions first", n, out, CSD_BLOCK_MAX_OUTSTANDING);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += q[i].count;
    if (total > CSD_BLOCK_MAX_SUBMIT_LBAS)
        return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "block_submit: the submission covers %" PRIu64 " LBAs, more than "
                        "%u; split it", total, CSD_BLOCK_MAX_SUBMIT_LBAS);
    const uint64_t pb = d->params.page_bytes, now = csd_engine_now(d->eng);
    uint64_t prev = d->blk_last_arrival > now ? d->blk_last_arrival : now, held = csd_engine_blk_data_bytes(d->eng);
    for (size_t i = 0; i < n; i++) {
        const csd_block_req *r = &q[i];
        if (r->op < CSD_BLOCK_READ || r->op > CSD_BLOCK_FLUSH)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): op must be READ, "
                            "WRITE, TRIM or FLUSH (got %u)", i, r->id, (unsigned)r->op);
        if (r->op == CSD_BLOCK_FLUSH && (r->lba || r->count))
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): a FLUSH covers no "
                            "LBAs (lba and count 0; got %" PRIu64 " +%u)", i, r->id, r->lba, r->count);
        if (r->count == 0 && r->op != CSD_BLOCK_FLUSH)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): count is 0", i, r->id);
        if (r->count > CSD_BLOCK_MAX_LBAS)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): count %u exceeds "
                            "%u LBAs", i, r->id, r->count, CSD_BLOCK_MAX_LBAS);
        if (r->op != CSD_BLOCK_FLUSH && (r->lba >= d->blk_lbas || r->count > d->blk_lbas - r->lba))
            return cmd_fail(c, CSD_OUT_OF_RANGE, "block_submit: request %zu (id %" PRIu64 "): LBAs [%" PRIu64 ", +%u) "
                            "are past the end of the namespace (%" PRIu64 " LBAs)", i, r->id, r->lba, r->count,
                            d->blk_lbas);
        uint64_t bytes = (uint64_t)r->count * pb;
        if (r->op == CSD_BLOCK_WRITE) {
            if (data_len[i] && data_len[i] != bytes)
                return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): %zu data bytes "
                                "for %u LBAs of %" PRIu64 " bytes", i, r->id, data_len[i], r->count, pb);
        } else if (data_len[i]) {
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): a %s carries no "
                            "data", i, r->id, op_name(r->op));
        }
        if (r->fill && data_len[i])
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): give data or "
                            "fill, not both", i, r->id);
        if (r->hint && r->op != CSD_BLOCK_WRITE)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): hint is for "
                            "writes", i, r->id);
        if (r->hint > CSD_FTL_HINT_MAX)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): hint %u is out of "
                            "range (0..%u: 0 = none, else a lifetime class such as an LSM level + 1)", i, r->id,
                            r->hint, CSD_FTL_HINT_MAX);
        if (r->zeroes && (r->op != CSD_BLOCK_WRITE || data_len[i] || r->fill))
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): zeroes is for "
                            "writes without data or fill", i, r->id);
        if (r->bytes && r->op == CSD_BLOCK_TRIM)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): bytes is for "
                            "reads and writes", i, r->id);
        /* a sub-page range touches every LBA of the request: the inner ones whole, the two ends in part */
        uint64_t least = r->count > 2 ? bytes - 2 * pb : 0;
        if (r->bytes && (r->bytes > bytes || r->bytes <= least))
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): bytes %" PRIu64
                            " does not fit %u LBAs of %" PRIu64 " bytes (more than %" PRIu64 ", at most %" PRIu64 ")",
                            i, r->id, r->bytes, r->count, pb, least, bytes);
        if (r->fill && r->op != CSD_BLOCK_WRITE)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): fill is for "
                            "writes", i, r->id);
        if (want && want[i]) {
            if (r->op != CSD_BLOCK_READ)
                return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): return_data "
                                "is for reads", i, r->id);
            held += bytes;
            if (held > CSD_BLOCK_MAX_DATA_BYTES)
                return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "block_submit: request %zu (id %" PRIu64 "): read data "
                                "held for polls would exceed %u bytes; poll completions first", i, r->id,
                                CSD_BLOCK_MAX_DATA_BYTES);
        }
        if (r->arrival_ns > CSD_BLOCK_MAX_TIME_NS)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): arrival_ns %" PRIu64
                            " is past %llu", i, r->id, r->arrival_ns, CSD_BLOCK_MAX_TIME_NS);
        uint64_t a = r->arrival_ns ? r->arrival_ns : prev;
        if (a < now)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): arrival_ns %" PRIu64
                            " is before the device clock %" PRIu64, i, r->id, a, now);
        if (a < prev)
            return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_submit: request %zu (id %" PRIu64 "): arrival times go "
                            "backwards (%" PRIu64 " after %" PRIu64 ")", i, r->id, a, prev);
        arrivals[i] = prev = a;
    }
    return 0;
}

static int grow_buf(csd_device *d, size_t need) {
    if (need <= d->blk_buf_cap) return 0;
    uint8_t *b = realloc(d->blk_buf, need);
    if (!b) return -ENOMEM;
    d->blk_buf = b;
    d->blk_buf_cap = need;
    return 0;
}

static void fill_pattern(uint8_t *buf, uint64_t lba, uint32_t count, uint64_t pb, uint64_t fill) {
    for (uint32_t k = 0; k < count; k++) {
        uint64_t w = htole64(fill ^ (lba + k));
        uint8_t *p = buf + k * pb;
        /* 64 bytes of the word, then copied in 64-byte pieces (vector stores; pb is a multiple of 64) */
        for (uint64_t o = 0; o < 64 && o < pb; o += 8) memcpy(p + o, &w, 8);
        for (uint64_t o = 64; o + 64 <= pb; o += 64) memcpy(p + o, p, 64);
    }
}

/* Apply one request to the FTL (its data moves now) and hand its flash operations to the engine.
 * own: buf is malloc'd and goes with the completion. 0, or -errno when the engine cannot take it. */
static int blk_apply(csd_device *d, const csd_block_req *r, uint64_t arrival, int own) {
    const uint64_t pb = d->params.page_bytes, off = r->lba * pb, bytes = (uint64_t)r->count * pb;
    /* the host link carries what the host asked for; the flash moves whole pages */
    const uint64_t link = r->bytes ? r->bytes : bytes;
    csd_flash_batch *ops = &d->blk_ops;
    csd_flash_batch_clear(ops);
    uint64_t to_dev = 0, to_host = 0;
    int rc = 0;
    switch (r->op) {
    case CSD_BLOCK_WRITE: {
        to_dev = link;
        if (r->zeroes) {
            rc = csd_ftl_write_zeroes(d->ftl, d->blk_ns, off, bytes, r->hint, ops);
            break;
        }
        const void *src = r->data;
        if (!src) {
            rc = grow_buf(d, bytes);
            if (rc) break;
            fill_pattern(d->blk_buf, r->lba, r->count, pb, r->fill);
            src = d->blk_buf;
        }
        rc = csd_ftl_write_hint(d->ftl, d->blk_ns, off, src, bytes, r->hint, ops);
        break;
    }
    case CSD_BLOCK_READ:
        to_host = link;
        if (r->buf) {
            rc = csd_ftl_read(d->ftl, d->blk_ns, off, r->buf, bytes, ops);
        } else {
            /* the bytes are not wanted: translations and page reads only (no copy, no checksum) */
            for (uint32_t k = 0; !rc && k < r->count; k++) {
                uint64_t ppn;
                size_t before = ops->n;
                rc = csd_ftl_translate(d->ftl, d->blk_ns, r->lba + k, ops, &ppn);
                /* a map-cached FTL appended the data read after the map commands it needed; a hit
                 * is a set of the data read alone */
                if (rc || ppn == CSD_PPN_NONE || ops->n > before) continue;
                csd_flash_req dr = { .kind = CSD_FLASH_READ, .ppn = ppn };
                if (csd_ftl_map_cached(d->ftl)) dr.role = CSD_ROLE_DATA, dr.set = r->lba + k + 1;
                rc = csd_flash_batch_add_req(ops, &dr);
            }
        }
        break;
    case CSD_BLOCK_TRIM:
        rc = csd_ftl_trim(d->ftl, d->blk_ns, off, bytes, ops);
        break;
    default:
        /* FLUSH: the data of every request before it is in the image already (it moved at submission);
         * make it durable there. No flash operation: the device has no volatile write cache. */
        rc = csd_ftl_sync(d->ftl);
        break;
    }
    csd_blk_tag tag = { .id = r->id, .lba = r->lba, .count = r->count, .op = r->op,
                        .status = rc ? (rc == -ENOSPC ? CSD_NO_SPACE : csd_status_from_errno(rc)) : CSD_OK,
                        .data = own ? r->buf : NULL, .data_len = own && r->buf ? bytes : 0,
                        .session = d->cur_session };
    /* a failed request still replays what the FTL did before it failed */
    int erc = csd_engine_blk_submit(d->eng, arrival, ops, to_dev, to_host, &tag);
    if (erc) return erc;
    d->counters.blk_by_op[r->op]++;
    if (rc) d->counters.blk_failed++;
    d->blk_last_arrival = arrival;
    return 0;
}

/* Validated requests in order; -1 after cmd_fail (a prefix may be accepted then: the message says). */
static int blk_submit(csd_device *d, cmd_ctx *c, const csd_block_req *q, size_t n, const size_t *data_len,
                      const uint8_t *want, int own, size_t *accepted) {
    *accepted = 0;
    if (blk_ns(d, c)) return -1;
    uint64_t *arr = malloc((n ? n : 1) * sizeof *arr);
    if (!arr) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    int rc = blk_check(d, c, q, n, data_len, want, arr);
    for (size_t i = 0; !rc && i < n; i++) {
        int e = blk_apply(d, &q[i], arr[i], own);
        if (e) rc = cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "block_submit: out of memory at request %zu; the %zu "
                             "before it were accepted", i, i);
        else (*accepted)++;
    }
    free(arr);
    return rc;
}

/* Run until min of the session's completions are ready (or none of its requests is outstanding),
 * then to until_ns. */
static void blk_run(csd_device *d, uint64_t session, size_t min, uint64_t until_ns) {
    csd_engine *e = d->eng;
    csd_engine_blk_run(e, session, min);
    if (until_ns > csd_engine_now(e)) csd_engine_run_until(e, until_ns);
}

static void to_cpl(const csd_blk_done *x, csd_block_cpl *o) {
    *o = (csd_block_cpl){ .id = x->tag.id, .lba = x->tag.lba, .count = x->tag.count, .op = x->tag.op,
                          .status = x->tag.status, .arrival_ns = x->arrival_ns, .admit_ns = x->admit_ns,
                          .first_flash_ns = x->first_flash_ns, .done_ns = x->done_ns, .flash_ops = x->flash_ops,
                          .submit_ns = x->submit_ns, .flash_done_ns = x->flash_done_ns,
                          .flash_busy_ns = x->flash_busy_ns, .clf_delayed = x->clf_delayed,
                          .dle_delayed = x->dle_delayed };
}

/* ---- protocol ------------------------------------------------------------------------------- */

int cmd_block_info(csd_device *d, const Smartssd__V1__BlockInfo *m, cmd_ctx *c) {
    (void)m;
    if (blk_ns(d, c)) return -1;
    Smartssd__V1__BlockInfoReply *rep = cmd_alloc(c, sizeof *rep);
    if (!rep) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__block_info_reply__init(rep);
    rep->lba_bytes = d->params.page_bytes;
    rep->lbas = d->blk_lbas;
    rep->queue_depth = d->params.block_queue_depth;
    rep->flash_queue_depth = d->params.flash_queue_depth;
    rep->max_outstanding = CSD_BLOCK_MAX_OUTSTANDING;
    rep->namespace_object = d->blk_ns;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_BLOCK_INFO;
    c->resp->block_info = rep;
    return 0;
}

int cmd_block_submit(csd_device *d, const Smartssd__V1__BlockSubmit *m, cmd_ctx *c) {
    /* submission takes no device time, refused or not: each request's own times say what it cost */
    c->charged = 1;
    c->device_ns = 0;
    size_t n = m->n_requests;
    csd_block_req *q = cmd_alloc(c, (n ? n : 1) * sizeof *q);
    size_t *len = cmd_alloc(c, (n ? n : 1) * sizeof *len);
    uint8_t *want = cmd_alloc(c, n ? n : 1);
    if (!q || !len || !want) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const Smartssd__V1__BlockRequest *r = m->requests[i];
        q[i] = (csd_block_req){ .id = r->id, .op = r->op > 255 ? 255 : (uint8_t)r->op, .lba = r->lba, .count = r->count,
                                .arrival_ns = r->arrival_ns, .data = r->data.len ? r->data.data : NULL,
                                .fill = r->fill, .hint = r->hint, .bytes = r->bytes, .zeroes = r->zeroes };
        len[i] = r->data.len;
        want[i] = r->return_data;
    }
    /* buffers for returned reads once everything is valid: blk_submit checks before it applies, so
     * check here first (the same checks run again, cheaply) */
    if (blk_ns(d, c)) return -1;
    uint64_t *arr = cmd_alloc(c, (n ? n : 1) * sizeof *arr);
    if (!arr) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    if (blk_check(d, c, q, n, len, want, arr)) return -1;
    for (size_t i = 0; i < n; i++) {
        if (!want[i]) continue;
        q[i].buf = malloc((size_t)q[i].count * d->params.page_bytes);
        if (!q[i].buf) {
            for (size_t k = 0; k < i; k++) free(q[k].buf);
            return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
        }
    }
    size_t accepted;
    int rc = blk_submit(d, c, q, n, len, want, 1, &accepted);
    for (size_t i = accepted; i < n; i++) free(q[i].buf);   /* the engine owns the accepted ones' */
    Smartssd__V1__BlockSubmitReply *rep = cmd_alloc(c, sizeof *rep);
    if (!rep) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    if (rc) return -1;
    smartssd__v1__block_submit_reply__init(rep);
    rep->accepted = (uint32_t)accepted;
    rep->outstanding = csd_engine_blk_outstanding(d->eng, d->cur_session);
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_BLOCK_SUBMIT;
    c->resp->block_submit = rep;
    return 0;
}

/* Completions per reply: far below the packet limit (a completion without data is under 80 bytes). */
#define POLL_MAX 262144u

static const char *status_msg(int st) {
    switch (st) {
    case CSD_OK: return "";
    case CSD_NO_SPACE: return "device full: the write was not (wholly) stored";
    case CSD_IO_ERROR: return "the image failed";
    default: return "failed";
    }
}

int cmd_block_poll(csd_device *d, const Smartssd__V1__BlockPoll *m, cmd_ctx *c) {
    uint64_t t0 = csd_engine_now(d->eng);
    c->charged = 1;   /* the clock moves by what the poll runs, nothing more */
    c->device_ns = 0;
    if (m->until_ns && m->until_ns < t0)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_poll: until_ns %" PRIu64 " is before the device clock %" PRIu64,
                        m->until_ns, t0);
    if (m->until_ns > CSD_BLOCK_MAX_TIME_NS)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_poll: until_ns %" PRIu64 " is past %llu", m->until_ns,
                        CSD_BLOCK_MAX_TIME_NS);
    if (m->max_completions && m->min_completions > m->max_completions)
        return cmd_fail(c, CSD_INVALID_ARGUMENT, "block_poll: min_completions %u exceeds max_completions %u",
                        m->min_completions, m->max_completions);
    blk_run(d, d->cur_session, m->min_completions, m->until_ns);
    c->charged = 1;
    c->device_ns = csd_engine_now(d->eng) - t0;
    size_t max = m->max_completions && m->max_completions < POLL_MAX ? m->max_completions : POLL_MAX;
    size_t ready = csd_engine_blk_ready(d->eng, d->cur_session);
    if (max > ready) max = ready;
    Smartssd__V1__BlockPollReply *rep = cmd_alloc(c, sizeof *rep);
    csd_blk_done *done = cmd_alloc(c, (max ? max : 1) * sizeof *done);
    Smartssd__V1__BlockCompletion *cm = cmd_alloc(c, (max ? max : 1) * sizeof *cm);
    Smartssd__V1__BlockCompletion **arr = cmd_alloc(c, (max ? max : 1) * sizeof *arr);
    if (!rep || !done || !cm || !arr) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__block_poll_reply__init(rep);
    size_t got = csd_engine_blk_reap(d->eng, d->cur_session, done, max);
    for (size_t i = 0; i < got; i++) {
        const csd_blk_done *x = &done[i];
        smartssd__v1__block_completion__init(&cm[i]);
        cm[i].id = x->tag.id;
        cm[i].op = (Smartssd__V1__BlockOp)x->tag.op;
        cm[i].status = (Smartssd__V1__Status)x->tag.status;
        cm[i].message = (char *)status_msg(x->tag.status);
        cm[i].arrival_ns = x->arrival_ns;
        cm[i].admit_ns = x->admit_ns;
        cm[i].first_flash_ns = x->first_flash_ns;
        cm[i].done_ns = x->done_ns;
        cm[i].flash_ops = x->flash_ops;
        cm[i].submit_ns = x->submit_ns;
        cm[i].flash_done_ns = x->flash_done_ns;
        cm[i].flash_busy_ns = x->flash_busy_ns;
        cm[i].clf_delayed = x->clf_delayed;
        cm[i].dle_delayed = x->dle_delayed;
        cm[i].lba = x->tag.lba;
        cm[i].count = x->tag.count;
        if (x->tag.data) {
            size_t bytes = (size_t)x->tag.count * d->params.page_bytes;
            uint8_t *b = cmd_alloc(c, bytes);
            if (b) memcpy(b, x->tag.data, bytes);
            free(x->tag.data);
            if (!b) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory (completions were lost)");
            cm[i].data.data = b;
            cm[i].data.len = bytes;
        }
        arr[i] = &cm[i];
    }
    rep->n_completions = got;
    rep->completions = arr;
    rep->outstanding = csd_engine_blk_outstanding(d->eng, d->cur_session);
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_BLOCK_POLL;
    c->resp->block_poll = rep;
    return 0;
}

/* ---- C API ---------------------------------------------------------------------------------- */

static int api_fail(const cmd_ctx *c, char *err, size_t errlen) {
    if (err && errlen) snprintf(err, errlen, "%s", c->msg);
    return c->status;
}

/* Around a submit or poll (under the device's lock): what the BlockSubmit / BlockPoll packet does
 * besides the packing, so a caller of these functions (csd replay on an image) sees the same device:
 * the command's count in csd stats, its span on the timeline, paced mode's wall time. */
static uint64_t api_begin(csd_device *d, int command_case) {
    pace_command_begin(d);
    d->counters.by_kind[command_case - 10]++;
    return csd_engine_now(d->eng);
}

/* Returns the wall time to sleep, after unlocking, in paced mode. */
static uint64_t api_end(csd_device *d, const char *what, uint64_t t0, const cmd_ctx *c) {
    timeline_command(d, what, t0, csd_engine_now(d->eng));
    if (c->status) d->counters.errors++;
    return pace_command_end(d);
}

int csd_block_info_get(csd_device *d, csd_block_info *out, char *err, size_t errlen) {
    cmd_ctx c = { 0 };
    pthread_mutex_lock(&d->mu);
    int rc = blk_ns(d, &c);
    if (!rc) *out = (csd_block_info){ .lba_bytes = d->params.page_bytes, .lbas = d->blk_lbas,
                                      .queue_depth = d->params.block_queue_depth,
                                      .max_outstanding = CSD_BLOCK_MAX_OUTSTANDING, .namespace_object = d->blk_ns,
                                      .flash_queue_depth = d->params.flash_queue_depth };
    pthread_mutex_unlock(&d->mu);
    return rc ? api_fail(&c, err, errlen) : 0;
}

int csd_block_submit(csd_device *d, const csd_block_req *reqs, size_t n, char *err, size_t errlen) {
    cmd_ctx c = { 0 };
    size_t *len = calloc(n ? n : 1, sizeof *len);
    if (!len) {
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return CSD_RESOURCE_EXHAUSTED;
    }
    const uint64_t pb = d->params.page_bytes;
    for (size_t i = 0; i < n; i++) len[i] = reqs[i].data ? (size_t)reqs[i].count * pb : 0;
    pthread_mutex_lock(&d->mu);
    uint64_t t0 = api_begin(d, SMARTSSD__V1__REQUEST__COMMAND_BLOCK_SUBMIT);
    size_t accepted;
    int rc = blk_submit(d, &c, reqs, n, len, NULL, 0, &accepted);
    uint64_t wait = api_end(d, "block_submit", t0, &c);
    if (d->running) pthread_cond_signal(&d->work_cv);
    pthread_mutex_unlock(&d->mu);
    if (wait) pace_sleep(wait);
    free(len);
    return rc ? api_fail(&c, err, errlen) : 0;
}

int csd_block_poll(csd_device *d, size_t min_completions, uint64_t until_ns, csd_block_cpl *out, size_t max,
                   size_t *got, char *err, size_t errlen) {
    *got = 0;
    cmd_ctx c = { 0 };
    csd_blk_done buf[256];
    pthread_mutex_lock(&d->mu);
    uint64_t now = api_begin(d, SMARTSSD__V1__REQUEST__COMMAND_BLOCK_POLL);
    if (until_ns && until_ns < now) {
        cmd_fail(&c, CSD_INVALID_ARGUMENT, "block_poll: until_ns %" PRIu64 " is before the device clock %" PRIu64,
                 until_ns, now);
    } else if (until_ns > CSD_BLOCK_MAX_TIME_NS) {
        cmd_fail(&c, CSD_INVALID_ARGUMENT, "block_poll: until_ns %" PRIu64 " is past %llu", until_ns,
                 CSD_BLOCK_MAX_TIME_NS);
    } else if (min_completions > max) {
        cmd_fail(&c, CSD_INVALID_ARGUMENT, "block_poll: min_completions %zu exceeds the room for %zu", min_completions,
                 max);
    } else {
        blk_run(d, 0, min_completions, until_ns);
        while (*got < max) {
            size_t want = max - *got < 256 ? max - *got : 256;
            size_t k = csd_engine_blk_reap(d->eng, 0, buf, want);
            for (size_t i = 0; i < k; i++) to_cpl(&buf[i], &out[*got + i]);
            *got += k;
            if (k < want) break;
        }
    }
    uint64_t wait = api_end(d, "block_poll", now, &c);
    if (d->running) pthread_cond_signal(&d->work_cv);
    pthread_mutex_unlock(&d->mu);
    if (wait) pace_sleep(wait);
    return c.status ? api_fail(&c, err, errlen) : 0;
}

uint64_t csd_block_outstanding(csd_device *d) {
    pthread_mutex_lock(&d->mu);
    uint64_t n = csd_engine_blk_outstanding(d->eng, 0);
    pthread_mutex_unlock(&d->mu);
    return n;
}

uint64_t csd_device_clock(csd_device *d) {
    pthread_mutex_lock(&d->mu);
    uint64_t t = csd_engine_now(d->eng);
    pthread_mutex_unlock(&d->mu);
    return t;
}
