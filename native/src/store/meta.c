/* Metadata slots A and B: the object table (ids, names, creation seq), the next id, a floor for the
 * write sequence counter and the rolled-back sequence ranges. Every change rewrites the whole table
 * into the slot that does not hold the newest valid copy, so a torn write leaves the other intact. */
#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Version 2 adds each object's times; version-1 slots (older images) are still read. */
static const uint8_t META_MAGIC[8] = { 'C', 'S', 'D', 'M', 'E', 'T', 'A', '2' };
static const uint8_t META_MAGIC_V1[8] = { 'C', 'S', 'D', 'M', 'E', 'T', 'A', '1' };

void csd_buf_put(csd_buf *b, const void *data, size_t len) {
    if (b->oom) return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + len) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (len) memcpy(b->p + b->n, data, len);
    b->n += len;
}

void csd_buf_u16(csd_buf *b, uint16_t v) {
    uint8_t t[2];
    csd_put16(t, v);
    csd_buf_put(b, t, 2);
}
void csd_buf_u32(csd_buf *b, uint32_t v) {
    uint8_t t[4];
    csd_put32(t, v);
    csd_buf_put(b, t, 4);
}
void csd_buf_u64(csd_buf *b, uint64_t v) {
    uint8_t t[8];
    csd_put64(t, v);
    csd_buf_put(b, t, 8);
}
void csd_buf_free(csd_buf *b) {
    free(b->p);
    *b = (csd_buf){ 0 };
}

void csd_meta_begin(csd_buf *b, uint64_t next_id, uint64_t next_seq, const csd_void_range *voids,
                    uint32_t n_void, uint32_t n_obj) {
    static const uint8_t hdr[CSD_META_HDR_BYTES];
    b->n = 0;
    b->oom = 0;
    csd_buf_put(b, hdr, sizeof hdr);
    csd_buf_u64(b, next_id);
    csd_buf_u64(b, next_seq);
    csd_buf_u32(b, n_void);
    for (uint32_t i = 0; i < n_void; i++) {
        csd_buf_u64(b, voids[i].from);
        csd_buf_u64(b, voids[i].to);
    }
    csd_buf_u32(b, n_obj);
}

void csd_meta_add(csd_buf *b, const csd_meta_obj *o) {
    csd_buf_u64(b, o->id);
    csd_buf_u64(b, o->created_seq);
    csd_buf_u64(b, o->ctime_ms);
    csd_buf_u64(b, o->mtime_ms);
    csd_buf_u64(b, o->atime_ms);
    csd_buf_u16(b, o->name_len);
    csd_buf_put(b, o->name, o->name_len);
}

int csd_meta_write(csd_store *s, int slot, uint64_t seq, csd_buf *b) {
    if (b->oom) return -ENOMEM;
    if (b->n < CSD_META_HDR_BYTES || slot < 0 || slot > 1) return -EINVAL;
    if (b->n > s->l.meta_slot_bytes) return -ENOSPC;
    uint8_t *h = b->p;
    size_t len = b->n - CSD_META_HDR_BYTES;
    /* a slot past the counter bound would be refused as damage on the next open: out of counters,
     * not written (the payload opens with next id and next seq) */
    if (seq > CSD_COUNTER_MAX ||
        (len >= 16 && (csd_get64(h + CSD_META_HDR_BYTES) > CSD_COUNTER_MAX ||
                       csd_get64(h + CSD_META_HDR_BYTES + 8) > CSD_COUNTER_MAX)))
        return -EOVERFLOW;
    memcpy(h, META_MAGIC, 8);
    csd_put64(h + 8, seq);
    csd_put64(h + 16, len);
    csd_put32(h + 24, csd_crc32(0, h + CSD_META_HDR_BYTES, len));
    csd_put32(h + 28, csd_crc32(0, h, 28));
    return csd_store_pwrite(s, s->l.meta_off[slot], b->p, b->n);
}

void csd_meta_free(csd_meta *m) {
    free(m->objs);
    free(m->payload);
    m->objs = NULL;
    m->payload = NULL;
    m->n_obj = 0;
}

typedef struct rd { const uint8_t *p; size_t n, at; int bad; } rd;

static const uint8_t *take(rd *r, size_t len) {
    if (r->bad || len > r->n - r->at) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->at;
    r->at += len;
    return p;
}
static uint64_t take64(rd *r) {
    const uint8_t *p = take(r, 8);
    return p ? csd_get64(p) : 0;
}
static uint32_t take32(rd *r) {
    const uint8_t *p = take(r, 4);
    return p ? csd_get32(p) : 0;
}
static uint16_t take16(rd *r) {
    const uint8_t *p = take(r, 2);
    return p ? csd_get16(p) : 0;
}

#define WHY(...) do { snprintf(why, whylen, __VA_ARGS__); } while (0)

int csd_meta_read(csd_store *s, int slot, csd_meta *m, char *why, size_t whylen) {
    memset(m, 0, sizeof *m);
    uint8_t h[CSD_META_HDR_BYTES];
    int rc = csd_store_pread(s, s->l.meta_off[slot], h, sizeof h);
    if (rc) {
        WHY("read error: %s", strerror(-rc));
        return rc;
    }
    static const uint8_t zero[CSD_META_HDR_BYTES];
    if (!memcmp(h, zero, sizeof h)) {
        WHY("empty (never written)");
        return -EBADMSG;
    }
    int v1 = !memcmp(h, META_MAGIC_V1, 8);
    if ((!v1 && memcmp(h, META_MAGIC, 8)) || csd_crc32(0, h, 28) != csd_get32(h + 28)) {
        WHY("header is torn or corrupt");
        return -EBADMSG;
    }
    uint64_t len = csd_get64(h + 16);
    if (len > s->l.meta_slot_bytes - CSD_META_HDR_BYTES) {
        WHY("payload length %" PRIu64 " exceeds the slot", len);
        return -EBADMSG;
    }
    m->payload = malloc(len ? (size_t)len : 1);
    if (!m->payload) {
        WHY("out of memory");
        return -ENOMEM;
    }
    rc = csd_store_pread(s, s->l.meta_off[slot] + CSD_META_HDR_BYTES, m->payload, (size_t)len);
    if (rc) {
        WHY("read error: %s", strerror(-rc));
        goto fail;
    }
    if (csd_crc32(0, m->payload, (size_t)len) != csd_get32(h + 24)) {
        WHY("payload checksum mismatch (torn write)");
        rc = -EBADMSG;
        goto fail;
    }
    m->seq = csd_get64(h + 8);
    rd r = { m->payload, (size_t)len, 0, 0 };
    m->next_id = take64(&r);
    m->next_seq = take64(&r);
    m->n_void = take32(&r);
    /* Counters that high cannot be reached by use (a table write or a page write a microsecond for
     * thousands of years) and would wrap on the next increment, making an older slot or record look
     * newer: a slot holding one is damaged. */
    if (m->seq > CSD_COUNTER_MAX || m->next_seq > CSD_COUNTER_MAX || m->next_id > CSD_COUNTER_MAX) {
        WHY("implausible counters (slot seq %llu, next seq %llu, next id %llu)", (unsigned long long)m->seq,
            (unsigned long long)m->next_seq, (unsigned long long)m->next_id);
        rc = -EBADMSG;
        goto fail;
    }
    if (m->n_void > CSD_META_VOID_MAX) {
        WHY("%u rolled-back ranges (at most %u)", m->n_void, CSD_META_VOID_MAX);
        rc = -EBADMSG;
        goto fail;
    }
    for (uint32_t i = 0; i < m->n_void; i++) {
        m->voids[i].from = take64(&r);
        m->voids[i].to = take64(&r);
    }
    m->n_obj = take32(&r);
    /* Each entry takes at least 19 (version 2: 43) bytes: a count larger than the payload can hold is
     * corrupt. */
    if (r.bad || m->n_obj > (len - r.at) / (CSD_META_ENTRY_FIXED + (v1 ? 0 : CSD_META_ENTRY_TIMES) + 1)) {
        WHY("object count does not fit the payload");
        rc = -EBADMSG;
        goto fail;
    }
    m->objs = calloc(m->n_obj ? m->n_obj : 1, sizeof *m->objs);
    if (!m->objs) {
        WHY("out of memory");
        rc = -ENOMEM;
        goto fail;
    }
    for (uint32_t i = 0; i < m->n_obj; i++) {
        csd_meta_obj *o = &m->objs[i];
        o->id = take64(&r);
        o->created_seq = take64(&r);
        if (!v1) {
            o->ctime_ms = take64(&r);
            o->mtime_ms = take64(&r);
            o->atime_ms = take64(&r);
        }
        o->name_len = take16(&r);
        o->name = (const char *)take(&r, o->name_len);
        if (r.bad) break;
        if (o->name_len == 0 || o->name_len > 1024 || memchr(o->name, 0, o->name_len)) {
            WHY("object %" PRIu64 " has an invalid name", o->id);
            rc = -EBADMSG;
            goto fail;
        }
    }
    if (r.bad || r.at != len) {
        WHY("payload is malformed");
        rc = -EBADMSG;
        goto fail;
    }
    return 0;
fail:
    csd_meta_free(m);
    return rc;
}
