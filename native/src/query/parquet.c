/* Parquet decoding (format spec: parquet-format's parquet.thrift and Encodings.md). The footer is
 * Thrift compact protocol; a reader skips the fields it does not know, so newer writers' additions
 * pass. Limits (depth, counts, sizes) keep a corrupt file from costing more than its own size. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>
#include <zstd.h>

#include "host/bufpool.h"

#include "query/parquet.h"

#define PQ_MAX_DEPTH 32
#define PQ_MAX_LEAVES 4096
#define PQ_MAX_PAGE_BYTES ((size_t)1 << 30)
/* threads one chunk's data pages may decode on (csd_pq_read_threads) */
#define PQ_MAX_PAGE_THREADS 4

/* ------------------------------------------------------------------ Thrift compact protocol */

enum { T_STOP = 0, T_TRUE = 1, T_FALSE = 2, T_BYTE = 3, T_I16 = 4, T_I32 = 5, T_I64 = 6, T_DOUBLE = 7,
       T_BINARY = 8, T_LIST = 9, T_SET = 10, T_MAP = 11, T_STRUCT = 12 };

typedef struct thr {
    const uint8_t *p, *end;
    int bad;
    int depth;
} thr;

static uint64_t t_varint(thr *t) {
    uint64_t v = 0;
    for (int s = 0; s < 64; s += 7) {
        if (t->p >= t->end) { t->bad = 1; return 0; }
        uint8_t b = *t->p++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) return v;
    }
    t->bad = 1;
    return 0;
}

static int64_t t_zz(thr *t) {
    uint64_t v = t_varint(t);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int t_byte(thr *t) {
    if (t->p >= t->end) { t->bad = 1; return 0; }
    return *t->p++;
}

/* binary/string: a pointer into the buffer and its length */
static const uint8_t *t_bin(thr *t, uint32_t *len) {
    uint64_t n = t_varint(t);
    if (t->bad || n > (uint64_t)(t->end - t->p)) { t->bad = 1; *len = 0; return NULL; }
    const uint8_t *p = t->p;
    t->p += n;
    *len = (uint32_t)n;
    return p;
}

static void t_skip(thr *t, int type);

static void t_skip_struct(thr *t) {
    if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
    for (;;) {
        int h = t_byte(t);
        if (t->bad || h == T_STOP) break;
        if (!(h >> 4)) t_zz(t);
        t_skip(t, h & 15);
        if (t->bad) break;
    }
    t->depth--;
}

/* list/set header: element type and count */
static uint64_t t_list(thr *t, int *etype) {
    int h = t_byte(t);
    uint64_t n = (uint64_t)h >> 4;
    if (n == 15) n = t_varint(t);
    *etype = h & 15;
    /* every element takes at least one byte (bools in a list are one byte each) */
    if (n > (uint64_t)(t->end - t->p)) t->bad = 1;
    return t->bad ? 0 : n;
}

static void t_skip(thr *t, int type) {
    uint32_t len;
    switch (type) {
    case T_TRUE: case T_FALSE: return;
    case T_BYTE: t_byte(t); return;
    case T_I16: case T_I32: case T_I64: t_varint(t); return;
    case T_DOUBLE:
        if (t->end - t->p < 8) t->bad = 1; else t->p += 8;
        return;
    case T_BINARY: t_bin(t, &len); return;
    case T_LIST: case T_SET: {
        int et;
        uint64_t n = t_list(t, &et);
        if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
        for (uint64_t i = 0; i < n && !t->bad; i++) {
            if (et == T_TRUE || et == T_FALSE) t_byte(t);
            else t_skip(t, et);
        }
        t->depth--;
        return;
    }
    case T_MAP: {
        uint64_t n = t_varint(t);
        if (n == 0) return;
        int kv = t_byte(t);
        if (n > (uint64_t)(t->end - t->p)) { t->bad = 1; return; }
        if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
        for (uint64_t i = 0; i < n && !t->bad; i++) {
            int kt = kv >> 4, vt = kv & 15;
            if (kt == T_TRUE || kt == T_FALSE) t_byte(t); else t_skip(t, kt);
            if (vt == T_TRUE || vt == T_FALSE) t_byte(t); else t_skip(t, vt);
        }
        t->depth--;
        return;
    }
    case T_STRUCT: t_skip_struct(t); return;
    default: t->bad = 1; return;
    }
}

/* Iterates a struct's fields: returns the field id (0 at STOP or on error) and sets *type. */
static int t_field(thr *t, int *last, int *type) {
    int h = t_byte(t);
    if (t->bad || h == T_STOP) return 0;
    int delta = h >> 4;
    int id = delta ? *last + delta : (int)t_zz(t);
    *last = id;
    *type = h & 15;
    if (t->bad || id <= 0) { t->bad = 1; return 0; }
    return id;
}

static int64_t t_int(thr *t, int type) {
    if (type == T_I16 || type == T_I32 || type == T_I64 || type == T_BYTE) return type == T_BYTE ? (int8_t)t_byte(t) : t_zz(t);
    t_skip(t, type);
    t->bad = 1;
    return 0;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

const char *csd_pq_type_name(int t) {
    static const char *const n[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
                                    "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t <= 7 ? n[t] : "?";
}

/* ------------------------------------------------------------------ footer */

typedef struct selem {
    int type, rep, n_children;
    const uint8_t *name;
    uint32_t name_len;
} selem;

static void read_selem(thr *t, selem *s) {
    int last = 0, ty, id;
    s->type = -1;
    s->rep = 0;
    s->n_children = 0;
    s->name = NULL;
    s->name_len = 0;
    if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
    while ((id = t_field(t, &last, &ty))) {
        if (id == 1) s->type = (int)t_int(t, ty);
        else if (id == 3) s->rep = (int)t_int(t, ty);
        else if (id == 4 && ty == T_BINARY) s->name = t_bin(t, &s->name_len);
        else if (id == 5) s->n_children = (int)t_int(t, ty);
        else t_skip(t, ty);
    }
    t->depth--;
}

static void read_stats(thr *t, csd_pq_chunk *c) {
    int last = 0, ty, id;
    const uint8_t *omin = NULL, *omax = NULL;
    uint32_t ominl = 0, omaxl = 0;
    int has_new_min = 0, has_new_max = 0;
    if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
    while ((id = t_field(t, &last, &ty))) {
        if (id == 1 && ty == T_BINARY) omax = t_bin(t, &omaxl);
        else if (id == 2 && ty == T_BINARY) omin = t_bin(t, &ominl);
        else if (id == 3) c->has_nulls = t_int(t, ty) != 0;
        else if (id == 5 && ty == T_BINARY) { c->max = t_bin(t, &c->max_len); has_new_max = 1; }
        else if (id == 6 && ty == T_BINARY) { c->min = t_bin(t, &c->min_len); has_new_min = 1; }
        else t_skip(t, ty);
    }
    t->depth--;
    /* The deprecated min/max (fields 1, 2) compared byte arrays as signed bytes: only numbers may use them. */
    if (!has_new_min && omin && c->ptype != PQ_BYTE_ARRAY) { c->min = omin; c->min_len = ominl; has_new_min = 1; }
    if (!has_new_max && omax && c->ptype != PQ_BYTE_ARRAY) { c->max = omax; c->max_len = omaxl; has_new_max = 1; }
    c->has_min = has_new_min;
    c->has_max = has_new_max;
}

static void read_colmeta(thr *t, csd_pq_chunk *c) {
    int last = 0, ty, id;
    int64_t data_off = -1, dict_off = -1, comp = -1;
    if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
    while ((id = t_field(t, &last, &ty))) {
        switch (id) {
        case 1: c->ptype = (int)t_int(t, ty); break;
        case 4: c->codec = (int)t_int(t, ty); break;
        case 5: c->num_values = (uint64_t)t_int(t, ty); break;
        case 7: comp = t_int(t, ty); break;
        case 9: data_off = t_int(t, ty); break;
        case 11: dict_off = t_int(t, ty); break;
        case 12:
            if (ty == T_STRUCT) read_stats(t, c);
            else t->bad = 1;
            break;
        default: t_skip(t, ty); break;
        }
    }
    t->depth--;
    int64_t start = data_off;
    /* some writers set dictionary_page_offset 0 when there is none */
    if (dict_off > 0 && dict_off < data_off) start = dict_off;
    if (start < 0 || comp < 0) { t->bad = 1; return; }
    c->start = (uint64_t)start;
    c->size = (uint64_t)comp;
}

static void read_chunk(thr *t, csd_pq_chunk *c) {
    int last = 0, ty, id, have = 0;
    if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
    while ((id = t_field(t, &last, &ty))) {
        if (id == 3 && ty == T_STRUCT) { read_colmeta(t, c); have = 1; }
        else if (id == 1 && ty == T_BINARY) { t->bad = 1; return; }   /* data in another file */
        else t_skip(t, ty);
    }
    t->depth--;
    if (!have) t->bad = 1;
}

static void read_rg(thr *t, csd_pq_rg *g, uint32_t n_leaves) {
    int last = 0, ty, id, have = 0;
    if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
    while ((id = t_field(t, &last, &ty))) {
        if (id == 1 && ty == T_LIST) {
            int et;
            uint64_t n = t_list(t, &et);
            if (t->bad || et != T_STRUCT || n != n_leaves || have) { t->bad = 1; return; }
            for (uint64_t i = 0; i < n && !t->bad; i++) {
                g->chunks[i].has_nulls = 1;
                read_chunk(t, &g->chunks[i]);
            }
            have = 1;
        } else if (id == 3) {
            g->num_rows = (uint64_t)t_int(t, ty);
        } else {
            t_skip(t, ty);
        }
    }
    t->depth--;
    if (!have && n_leaves) t->bad = 1;
}

void csd_pq_close(csd_pq_file *f) {
    if (!f) return;
    for (uint32_t i = 0; i < f->n_leaves; i++) free(f->leaves[i].name);
    free(f->leaves);
    for (uint32_t i = 0; i < f->n_rgs; i++) free(f->rgs[i].chunks);
    free(f->rgs);
    free(f->footer);
    memset(f, 0, sizeof *f);
}

int csd_pq_open(csd_pq_file *f, const uint8_t *file, size_t len, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    if (len < 12 || memcmp(file, "PAR1", 4) || memcmp(file + len - 4, "PAR1", 4))
        return fail(err, errlen, "not a Parquet file (%zu bytes, no PAR1 magic at both ends)", len);
    uint32_t flen = (uint32_t)file[len - 8] | (uint32_t)file[len - 7] << 8 | (uint32_t)file[len - 6] << 16 |
                    (uint32_t)file[len - 5] << 24;
    if (flen > len - 12) return fail(err, errlen, "Parquet footer length %u exceeds the %zu-byte file", flen, len);
    return csd_pq_open_footer(f, file + len - 8 - flen, flen, len, err, errlen);
}

int csd_pq_open_footer(csd_pq_file *f, const uint8_t *footer, size_t flen_in, uint64_t len, char *err,
                       size_t errlen) {
    memset(f, 0, sizeof *f);
    if (flen_in > UINT32_MAX || flen_in > len) return fail(err, errlen, "Parquet footer of %zu bytes is too large", flen_in);
    uint32_t flen = (uint32_t)flen_in;
    f->footer = malloc(flen ? flen : 1);
    if (!f->footer) return fail(err, errlen, "out of memory reading the Parquet footer");
    if (flen) memcpy(f->footer, footer, flen);
    thr t = { f->footer, f->footer + flen, 0, 0 };
    int last = 0, ty, id, have_schema = 0, have_rgs = 0;
    selem *sch = NULL;
    uint64_t n_sch = 0;
    int rc = 0;
    while ((id = t_field(&t, &last, &ty))) {
        if (id == 2 && ty == T_LIST && !have_schema) {
            int et;
            n_sch = t_list(&t, &et);
            if (t.bad || et != T_STRUCT || n_sch < 1 || n_sch > PQ_MAX_LEAVES + 1) { t.bad = 1; break; }
            sch = calloc(n_sch, sizeof *sch);
            if (!sch) { rc = fail(err, errlen, "out of memory reading the Parquet schema"); goto out; }
            for (uint64_t i = 0; i < n_sch && !t.bad; i++) read_selem(&t, &sch[i]);
            if (t.bad) break;
            have_schema = 1;
            /* flat: the root's children are all primitive (no children, not repeated) */
            if ((uint64_t)sch[0].n_children != n_sch - 1) {
                rc = fail(err, errlen, "Parquet schema is nested (a group column): only flat schemas of "
                          "primitive columns are supported");
                goto out;
            }
            f->leaves = calloc(n_sch, sizeof *f->leaves);
            if (!f->leaves) { rc = fail(err, errlen, "out of memory reading the Parquet schema"); goto out; }
            for (uint64_t i = 1; i < n_sch; i++) {
                selem *s = &sch[i];
                csd_pq_leaf *l = &f->leaves[f->n_leaves];
                l->name = strndup(s->name ? (const char *)s->name : "", s->name_len);
                if (!l->name) { rc = fail(err, errlen, "out of memory reading the Parquet schema"); goto out; }
                f->n_leaves++;
                if (s->n_children > 0 || s->type < 0) {
                    rc = fail(err, errlen, "Parquet column '%s' is a group (nested type): only flat schemas of "
                              "primitive columns are supported", l->name);
                    goto out;
                }
                if (s->rep == 2) {
                    rc = fail(err, errlen, "Parquet column '%s' is REPEATED: only flat schemas (required or "
                              "optional columns) are supported", l->name);
                    goto out;
                }
                l->ptype = s->type;
                l->optional = s->rep == 1;
            }
        } else if (id == 3) {
            f->num_rows = (uint64_t)t_int(&t, ty);
        } else if (id == 4 && ty == T_LIST && have_schema && !have_rgs) {
            int et;
            uint64_t n = t_list(&t, &et);
            if (t.bad || et != T_STRUCT || n > UINT32_MAX) { t.bad = 1; break; }
            f->rgs = calloc(n ? n : 1, sizeof *f->rgs);
            if (!f->rgs) { rc = fail(err, errlen, "out of memory reading the Parquet row groups"); goto out; }
            for (uint64_t i = 0; i < n && !t.bad; i++) {
                f->rgs[i].chunks = calloc(f->n_leaves ? f->n_leaves : 1, sizeof *f->rgs[i].chunks);
                if (!f->rgs[i].chunks) { rc = fail(err, errlen, "out of memory reading the Parquet row groups"); goto out; }
                f->n_rgs++;
                read_rg(&t, &f->rgs[i], f->n_leaves);
            }
            have_rgs = 1;
        } else {
            t_skip(&t, ty);
        }
        if (t.bad) break;
    }
    if (t.bad || !have_schema || !have_rgs) {
        rc = fail(err, errlen, "corrupt Parquet footer (%u bytes): %s", flen,
                  t.bad ? "malformed Thrift metadata" : !have_schema ? "no schema" : "no row groups");
        goto out;
    }
    for (uint32_t g = 0; g < f->n_rgs; g++) {
        /* a page holds at most some thousands of rows (Spark: 20000) in at least a few bytes: a row
         * count far beyond the file's size is corrupt, refused before anyone allocates for it */
        if (f->rgs[g].num_rows > 65536 && (f->rgs[g].num_rows - 65536) / 4096 > len) {
            rc = fail(err, errlen, "corrupt Parquet footer: row group %u claims %llu rows in a %llu-byte file", g,
                      (unsigned long long)f->rgs[g].num_rows, (unsigned long long)len);
            goto out;
        }
        for (uint32_t c = 0; c < f->n_leaves; c++) {
            const csd_pq_chunk *k = &f->rgs[g].chunks[c];
            if (k->start > len || k->size > len - k->start) {
                rc = fail(err, errlen, "Parquet row group %u column '%s': chunk [%llu, +%llu) lies past the "
                          "%llu-byte file", g, f->leaves[c].name, (unsigned long long)k->start,
                          (unsigned long long)k->size, (unsigned long long)len);
                goto out;
            }
            if (k->ptype != f->leaves[c].ptype) {
                rc = fail(err, errlen, "Parquet row group %u column '%s': chunk type %s differs from the schema's %s",
                          g, f->leaves[c].name, csd_pq_type_name(k->ptype), csd_pq_type_name(f->leaves[c].ptype));
                goto out;
            }
        }
    }
out:
    free(sch);
    if (rc) csd_pq_close(f);
    return rc;
}

/* ------------------------------------------------------------------ pages */

/* Arrays of a whole row group's rows (16 MB for a 2 M-row INT64 column) and whole objects: anonymous
 * memory advised onto transparent huge pages, so a first touch faults once per 2 MiB instead of once
 * per 4 KiB (the faults were a third of a finish's wall time); from the device's pool when there is
 * one, so a request reuses an earlier one's pages instead of having the kernel zero fresh ones.
 * Zeroed, as calloc. */
void *csd_pq_big_alloc(struct csd_bufpool *pool, size_t n, int huge) { return csd_bufpool_get(pool, n, huge, 1); }

void csd_pq_big_free(struct csd_bufpool *pool, void *p, size_t n, int huge) { csd_bufpool_put(pool, p, n, huge); }

void csd_pq_values_free(csd_pq_values *v) {
    if (!v) return;
    struct csd_bufpool *pool = v->pool;
    size_t m = v->cap;
    int h = v->huge;
    csd_pq_big_free(pool, v->valid, m, h);
    csd_pq_big_free(pool, v->i, m * sizeof *v->i, h);
    csd_pq_big_free(pool, v->ix, m, h);
    free(v->dict_i);
    csd_pq_big_free(pool, v->d, m * sizeof *v->d, h);
    csd_pq_big_free(pool, v->sp, m * sizeof *v->sp, h);
    csd_pq_big_free(pool, v->sn, m * sizeof *v->sn, h);
    for (size_t k = 0; k < v->n_bufs; k++) free(v->bufs[k]);
    free(v->bufs);
    free(v->pstat);
    memset(v, 0, sizeof *v);
    v->pool = pool;
}

static int keep_buf(csd_pq_values *v, uint8_t *b) {
    if (v->n_bufs == v->cap_bufs) {
        size_t cap = v->cap_bufs ? v->cap_bufs * 2 : 8;
        uint8_t **n = realloc(v->bufs, cap * sizeof *n);
        if (!n) return -ENOMEM;
        v->bufs = n;
        v->cap_bufs = cap;
    }
    v->bufs[v->n_bufs++] = b;
    return 0;
}

/* A decompressed page: strings point into it (kept with the values); other types are copied out of
 * the scratch buffer, which the next page reuses. */
static int hold(csd_pq_values *v, int ptype, uint8_t *b) {
    if (ptype == PQ_BYTE_ARRAY) return keep_buf(v, b);
    return 0;
}

/* Decompress src into exactly ulen bytes: a new buffer for strings (their values point into it and
 * it is kept with them), else the reused scratch buffer (values are copied out of it before the next
 * page: no allocation and first-touch faults per page). */
static int decompress(int codec, const uint8_t *src, size_t clen, size_t ulen, uint8_t **out, char *err,
                      size_t errlen, uint8_t **scratch, size_t *scap) {
    *out = NULL;
    if (ulen > PQ_MAX_PAGE_BYTES) return fail(err, errlen, "Parquet page of %zu bytes exceeds the 1 GiB limit", ulen);
    uint8_t *b;
    if (scratch) {
        if (ulen > *scap || !*scratch) {
            free(*scratch);
            *scap = 0;
            *scratch = malloc(ulen ? ulen : 1);
            if (!*scratch) return fail(err, errlen, "out of memory for a %zu-byte Parquet page", ulen);
            *scap = ulen;
        }
        b = *scratch;
    } else {
        b = malloc(ulen ? ulen : 1);
    }
    if (!b) return fail(err, errlen, "out of memory for a %zu-byte Parquet page", ulen);
    int ok = 0;
    switch (codec) {
    case 0:
        ok = clen == ulen;
        if (ok) memcpy(b, src, ulen);
        break;
    case 1: {
        size_t n = ulen;
        ok = snappy_uncompress((const char *)src, clen, (char *)b, &n) == SNAPPY_OK && n == ulen;
        break;
    }
    case 2: {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 15 + 32) != Z_OK) break;   /* gzip or zlib header */
        z.next_in = (Bytef *)(uintptr_t)src;
        z.avail_in = (uInt)clen;
        z.next_out = b;
        z.avail_out = (uInt)ulen;
        int r = inflate(&z, Z_FINISH);
        ok = r == Z_STREAM_END && z.total_out == ulen;
        inflateEnd(&z);
        break;
    }
    case 6: {
        size_t n = ZSTD_decompress(b, ulen, src, clen);
        ok = !ZSTD_isError(n) && n == ulen;
        break;
    }
    default:
        if (!scratch) free(b);
        return fail(err, errlen, "Parquet compression codec %d is not supported (uncompressed, snappy, gzip, zstd)",
                    codec);
    }
    if (!ok) {
        if (!scratch) free(b);
        return fail(err, errlen, "corrupt Parquet page: %zu compressed bytes do not decompress to %zu (codec %d)",
                    clen, ulen, codec);
    }
    *out = b;
    return 0;
}

/* 8 bit-packed values of width w (1..32) from the group at src (w bytes; avail bytes readable from
 * src): each value is one unaligned 64-bit load, a shift and a mask (little-endian hosts: the
 * values' bit order). The last group of a buffer goes through a zero-padded copy. */
static inline void unpack8(const uint8_t *src, size_t avail, int w, uint32_t *out) {
    uint8_t pad[40];
    if (avail < (size_t)w + 8) {
        memset(pad, 0, sizeof pad);
        memcpy(pad, src, (size_t)w);
        src = pad;
    }
    uint64_t mask = ((uint64_t)1 << w) - 1;
    for (int k = 0; k < 8; k++) {
        uint64_t bit = (uint64_t)k * (uint64_t)w, x;
        memcpy(&x, src + (bit >> 3), 8);
        out[k] = (uint32_t)((x >> (bit & 7)) & mask);
    }
}

/* One run of the RLE/bit-packed hybrid (Encodings.md): `groups` bit-packed groups of 8 values (width
 * bytes each) at `data`, or `count` copies of `value`. */
typedef struct hyb_run {
    int packed;
    uint64_t groups, count;
    const uint8_t *data;
    uint32_t value;
} hyb_run;

/* The next run, bounds checked and stepped over (the decoders below share it). 0, or -1 when corrupt:
 * a cut header or value, an empty run, groups past the end. */
static inline int hyb_next(thr *t, int width, hyb_run *r) {
    uint64_t h = t_varint(t);
    if (t->bad) return -1;
    size_t left = (size_t)(t->end - t->p);
    r->packed = (int)(h & 1);
    if (r->packed) {
        r->groups = h >> 1;
        if (r->groups == 0 || r->groups > left || r->groups * (uint64_t)width > left) return -1;
        r->data = t->p;
        t->p += r->groups * (uint64_t)width;
        return 0;
    }
    r->count = h >> 1;
    size_t vbytes = ((size_t)width + 7) / 8;
    if (vbytes > left || r->count == 0) return -1;
    r->value = 0;
    for (size_t b = 0; b < vbytes; b++) r->value |= (uint32_t)t->p[b] << (8 * b);
    t->p += vbytes;
    return 0;
}

/* RLE/bit-packed hybrid (Encodings.md): n values of width bits into out. */
int csd_pq_rle_decode(const uint8_t *p, const uint8_t *end, int width, uint32_t *out, uint64_t n) {
    if (width < 0 || width > 32) return -1;
    uint64_t got = 0;
    thr t = { p, end, 0, 0 };
    while (got < n) {
        hyb_run r;
        if (hyb_next(&t, width, &r)) return -1;
        if (r.packed) {
            if (width == 0) {
                uint64_t take = r.groups * 8 < n - got ? r.groups * 8 : n - got;
                memset(out + got, 0, take * sizeof *out);
                got += take;
                continue;
            }
            const uint8_t *src = r.data;
            size_t avail = (size_t)(t.end - r.data);
            for (uint64_t g = 0; g < r.groups && got < n; g++, src += width, avail -= (size_t)width) {
                if (n - got >= 8) {
                    unpack8(src, avail, width, out + got);
                    got += 8;
                } else {
                    uint32_t tmp[8];
                    unpack8(src, avail, width, tmp);
                    memcpy(out + got, tmp, (size_t)(n - got) * sizeof *out);
                    got = n;
                }
            }
        } else {
            uint64_t take = r.count < n - got ? r.count : n - got;
            for (uint64_t k = 0; k < take; k++) out[got + k] = r.value;
            got += take;
        }
    }
    return 0;
}

/* The hybrid at width 0..8 straight into bytes: a bit-packed group of 8 values is one load of its w
 * bytes and one 64-bit store, runs are memset (no 32-bit array between the page and the rows). */
int csd_pq_rle_decode8(const uint8_t *p, const uint8_t *end, int width, uint8_t *out, uint64_t n) {
    if (width < 0 || width > 8) return -1;
    uint64_t got = 0;
    uint64_t mask = ((uint64_t)1 << width) - 1;
    thr t = { p, end, 0, 0 };
    while (got < n) {
        hyb_run r;
        if (hyb_next(&t, width, &r)) return -1;
        if (r.packed) {
            const uint8_t *src = r.data;
            size_t avail = (size_t)(t.end - r.data);
            for (uint64_t g = 0; g < r.groups && got < n; g++, src += width, avail -= (size_t)width) {
                uint64_t x = 0, o = 0;
                memcpy(&x, src, avail >= 8 ? 8 : (size_t)width);   /* bits past the group are masked off */
                for (int k = 0; k < 8; k++) o |= ((x >> (k * width)) & mask) << (8 * k);
                if (n - got >= 8) {
                    memcpy(out + got, &o, 8);
                    got += 8;
                } else {
                    memcpy(out + got, &o, (size_t)(n - got));
                    got = n;
                }
            }
        } else {
            uint64_t take = r.count < n - got ? r.count : n - got;
            memset(out + got, (int)r.value, (size_t)take);
            got += take;
        }
    }
    return 0;
}

/* Definition levels of a flat optional column (the hybrid at width 1) straight into valid[0..n):
 * runs as memset, bit-packed groups a byte (8 levels) at a time. The number of 1s, or -1 when corrupt
 * (a run's level above 1, or too few levels). */
int64_t csd_pq_rle_levels(const uint8_t *p, const uint8_t *end, uint8_t *valid, uint64_t n) {
    uint64_t got = 0, present = 0;
    thr t = { p, end, 0, 0 };
    while (got < n) {
        hyb_run r;
        if (hyb_next(&t, 1, &r)) return -1;
        if (r.packed) {
            for (uint64_t g = 0; g < r.groups && got < n; g++) {
                uint8_t b = r.data[g];
                uint64_t take = n - got < 8 ? n - got : 8;
                for (uint64_t k = 0; k < take; k++) valid[got + k] = (b >> k) & 1;
                present += (uint64_t)__builtin_popcount(take == 8 ? b : b & ((1u << take) - 1));
                got += take;
            }
        } else {
            if (r.value > 1) return -1;
            uint64_t take = r.count < n - got ? r.count : n - got;
            memset(valid + got, (int)r.value, take);
            present += r.value ? take : 0;
            got += take;
        }
    }
    return (int64_t)present;
}

typedef struct dict {
    uint64_t n;
    int64_t *i;
    double *d;
    const uint8_t **sp;
    uint32_t *sn;
} dict;

static void dict_free(dict *d) {
    free(d->i);
    free(d->d);
    free(d->sp);
    free(d->sn);
    memset(d, 0, sizeof *d);
}

/* PLAIN values: n of ptype from [p, end) into the slots idx[0..n) of dst arrays (i/d/sp+sn). */
static int plain_decode(int ptype, const uint8_t *p, const uint8_t *end, uint64_t n, int64_t *oi, double *od,
                        const uint8_t **osp, uint32_t *osn, const uint64_t *slot) {
    size_t avail = (size_t)(end - p);
    switch (ptype) {
    case PQ_BOOLEAN:
        if ((n + 7) / 8 > avail) return -1;
        for (uint64_t k = 0; k < n; k++) oi[slot[k]] = (p[k >> 3] >> (k & 7)) & 1;
        return 0;
    case PQ_INT32:
        if (n > avail / 4) return -1;
        for (uint64_t k = 0; k < n; k++) {
            int32_t v;
            memcpy(&v, p + 4 * k, 4);
            oi[slot[k]] = v;
        }
        return 0;
    case PQ_INT64:
        if (n > avail / 8) return -1;
        for (uint64_t k = 0; k < n; k++) memcpy(&oi[slot[k]], p + 8 * k, 8);
        return 0;
    case PQ_FLOAT:
        if (n > avail / 4) return -1;
        for (uint64_t k = 0; k < n; k++) {
            float v;
            memcpy(&v, p + 4 * k, 4);
            od[slot[k]] = v;
        }
        return 0;
    case PQ_DOUBLE:
        if (n > avail / 8) return -1;
        for (uint64_t k = 0; k < n; k++) memcpy(&od[slot[k]], p + 8 * k, 8);
        return 0;
    case PQ_BYTE_ARRAY:
        for (uint64_t k = 0; k < n; k++) {
            if (end - p < 4) return -1;
            uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            p += 4;
            if (l > (size_t)(end - p)) return -1;
            osp[slot[k]] = p;
            osn[slot[k]] = l;
            p += l;
        }
        return 0;
    default: return -1;
    }
}

/* DELTA_BINARY_PACKED (Encodings.md), INT32/INT64: n values into the slots of oi; the data pages v2
 * writer's default for integers. */
static int delta_decode(int ptype, const uint8_t *p, const uint8_t *end, uint64_t n, int64_t *oi,
                        const uint64_t *slot) {
    thr t = { p, end, 0, 0 };
    uint64_t block = t_varint(&t), minis = t_varint(&t), total = t_varint(&t);
    uint64_t cur = (uint64_t)t_zz(&t);
    if (t.bad || minis == 0 || block == 0 || block % minis || (block / minis) % 8 || block > (1u << 20) ||
        total < n)
        return -1;
    uint64_t per = block / minis, got = 0;
    if (n == 0) return 0;
    oi[slot[got++]] = ptype == PQ_INT32 ? (int32_t)cur : (int64_t)cur;
    while (got < n) {
        uint64_t min_delta = (uint64_t)t_zz(&t);
        if (t.bad || (uint64_t)(t.end - t.p) < minis) return -1;
        const uint8_t *widths = t.p;
        t.p += minis;
        for (uint64_t m = 0; m < minis && got < n; m++) {
            int w = widths[m];
            if (w > 64) return -1;
            uint64_t bytes = per * (uint64_t)w / 8;
            if (bytes > (uint64_t)(t.end - t.p)) return -1;
            uint64_t bit = 0;
            for (uint64_t k = 0; k < per && got < n; k++) {
                uint64_t v = 0;
                for (int b = 0; b < w; b++, bit++) v |= (uint64_t)((t.p[bit >> 3] >> (bit & 7)) & 1) << b;
                cur += min_delta + v;
                oi[slot[got++]] = ptype == PQ_INT32 ? (int32_t)cur : (int64_t)cur;
            }
            t.p += bytes;
        }
    }
    return 0;
}

static int alloc_dict(dict *d, int ptype, uint64_t n) {
    d->n = n;
    size_t m = n ? n : 1;
    if (ptype == PQ_FLOAT || ptype == PQ_DOUBLE) d->d = malloc(m * sizeof *d->d);
    else if (ptype == PQ_BYTE_ARRAY) { d->sp = malloc(m * sizeof *d->sp); d->sn = malloc(m * sizeof *d->sn); }
    else d->i = malloc(m * sizeof *d->i);
    return (d->d || d->i || (d->sp && d->sn)) ? 0 : -ENOMEM;
}

/* A page header (PageHeader); returns 0 or -1. */
typedef struct phdr {
    int type;
    int64_t usize, csize;
    int64_t num_values, num_nulls;
    int encoding, def_encoding;
    int64_t def_len, rep_len;
    int v2_compressed;
} phdr;

static void read_subheader(thr *t, phdr *h, int kind) {
    int last = 0, ty, id;
    if (++t->depth > PQ_MAX_DEPTH) { t->bad = 1; return; }
    while ((id = t_field(t, &last, &ty))) {
        if (kind == 1) {            /* DataPageHeader */
            if (id == 1) h->num_values = t_int(t, ty);
            else if (id == 2) h->encoding = (int)t_int(t, ty);
            else if (id == 3) h->def_encoding = (int)t_int(t, ty);
            else t_skip(t, ty);
        } else if (kind == 2) {     /* DictionaryPageHeader */
            if (id == 1) h->num_values = t_int(t, ty);
            else if (id == 2) h->encoding = (int)t_int(t, ty);
            else t_skip(t, ty);
        } else {                    /* DataPageHeaderV2 */
            if (id == 1) h->num_values = t_int(t, ty);
            else if (id == 2) h->num_nulls = t_int(t, ty);
            else if (id == 4) h->encoding = (int)t_int(t, ty);
            else if (id == 5) h->def_len = t_int(t, ty);
            else if (id == 6) h->rep_len = t_int(t, ty);
            else if (id == 7) h->v2_compressed = ty == T_TRUE ? 1 : ty == T_FALSE ? 0 : (t->bad = 1, 0);
            else t_skip(t, ty);
        }
    }
    t->depth--;
}

static int read_phdr(thr *t, phdr *h) {
    int last = 0, ty, id;
    memset(h, 0, sizeof *h);
    h->type = -1;
    h->usize = h->csize = -1;
    h->num_values = -1;
    h->v2_compressed = 1;
    while ((id = t_field(t, &last, &ty))) {
        if (id == 1) h->type = (int)t_int(t, ty);
        else if (id == 2) h->usize = t_int(t, ty);
        else if (id == 3) h->csize = t_int(t, ty);
        else if (id == 5 && ty == T_STRUCT) read_subheader(t, h, 1);
        else if (id == 7 && ty == T_STRUCT) read_subheader(t, h, 2);
        else if (id == 8 && ty == T_STRUCT) read_subheader(t, h, 3);
        else t_skip(t, ty);
    }
    if (t->bad || h->type < 0 || h->usize < 0 || h->csize < 0) return -1;
    return 0;
}

int csd_pq_read(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                csd_pq_values *v, char *err, size_t errlen) {
    return csd_pq_read_sel(f, file, len, rg, col, NULL, v, err, errlen);
}

/* In ix mode, from index bytes to 8-byte values: the rows [0, upto) decoded so far are looked up. */
static int ix_to_values(csd_pq_values *v, uint64_t upto) {
    v->i = csd_pq_big_alloc(v->pool, v->cap * sizeof *v->i, v->huge);
    if (!v->i) return -ENOMEM;
    if (v->ix && v->dict_i)
        for (uint64_t r = 0; r < upto; r++) v->i[r] = v->valid[r] ? v->dict_i[v->ix[r]] : 0;
    csd_pq_big_free(v->pool, v->ix, v->cap, v->huge);
    v->ix = NULL;
    return 0;
}

static int decode_chunk(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                      const uint8_t *sel, int ixm, struct csd_bufpool *pool, int threads, int want_stats,
                      csd_pq_values *v, char *err, size_t errlen);

int csd_pq_read_sel(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                    const uint8_t *sel, csd_pq_values *v, char *err, size_t errlen) {
    return decode_chunk(f, file, len, rg, col, sel, 0, NULL, 1, 0, v, err, errlen);
}

int csd_pq_read_ix(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                   const uint8_t *sel, csd_pq_values *v, char *err, size_t errlen) {
    return decode_chunk(f, file, len, rg, col, sel, 1, NULL, 1, 0, v, err, errlen);
}

int csd_pq_read_ix_pool(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                        const uint8_t *sel, struct csd_bufpool *pool, csd_pq_values *v, char *err, size_t errlen) {
    return decode_chunk(f, file, len, rg, col, sel, 1, pool, 1, 0, v, err, errlen);
}

int csd_pq_read_threads(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                        const uint8_t *sel, struct csd_bufpool *pool, int threads, int stats, csd_pq_values *v,
                        char *err, size_t errlen) {
    return decode_chunk(f, file, len, rg, col, sel, 1, pool, threads, stats, v, err, errlen);
}

/* One data page of a chunk to decode: its header, body and first row, as the walk over the chunk's
 * page headers found them. */
typedef struct pq_page {
    const uint8_t *body;
    phdr h;
    uint64_t got;            /* the page's first row */
    int have_dict;           /* a dictionary page came before it */
} pq_page;

/* What the threads decoding one chunk's data pages share. Pages are independent once the dictionary
 * is decoded: each writes only its own rows. */
typedef struct pq_pages {
    const csd_pq_chunk *c;
    const csd_pq_leaf *leaf;
    uint32_t rg;
    const dict *dc;
    csd_pq_values *v;
    pq_page *pg;
    uint8_t **held;          /* per page: its decompressed buffer, kept (strings) */
    csd_pq_pstat *pstat;     /* per page: its integers' least and greatest (NULL: not taken) */
    uint64_t n;
    uint64_t next;           /* the next page to claim (atomic) */
    uint64_t fail_at;        /* the first page seen to fail (atomic minimum), n when none */
} pq_pages;

/* One decoding thread's buffers and first failure. */
typedef struct pq_worker {
    pq_pages *x;
    uint32_t *lev;
    uint64_t *slot;
    uint64_t lev_cap;
    uint8_t *scratch;
    size_t scap;
    uint64_t fail_at;        /* its first failing page (its pages are claimed in increasing order) */
    int rc;
    char err[256];
} pq_worker;

/* A page step's answer besides 0 and a negative errno: the page's bytes do not hold what its header
 * says (reported as a corrupt data page). */
#define PAGE_CORRUPT 1

/* A data page's bytes once decompressed: its definition levels (defs = NULL: none) and values. */
typedef struct page_parts {
    const uint8_t *defs, *dend;
    const uint8_t *vals, *vend;
} page_parts;

/* w's level and slot arrays, for nv values. */
static int worker_room(pq_worker *w, uint64_t nv, const char *nm, char *err, size_t errlen) {
    if (nv <= w->lev_cap) return 0;
    uint64_t cap = nv > 2 * w->lev_cap ? nv : 2 * w->lev_cap;
    uint32_t *nl = realloc(w->lev, cap * sizeof *w->lev);
    if (nl) w->lev = nl;
    uint64_t *ns = nl ? realloc(w->slot, cap * sizeof *w->slot) : NULL;
    if (ns) w->slot = ns;
    if (!nl || !ns) return fail(err, errlen, "out of memory decoding Parquet column '%s'", nm);
    w->lev_cap = cap;
    return 0;
}

/* Page j decompressed into its parts: a data page v1 holds its levels (behind a 4-byte length) with
 * the values, compressed together; v2 holds them before the values, uncompressed. A page of strings
 * keeps its buffer (x->held), the others decompress into the worker's scratch. */
static int page_split(pq_worker *w, uint64_t j, page_parts *pp, char *err, size_t errlen) {
    pq_pages *x = w->x;
    const phdr *h = &x->pg[j].h;
    const uint8_t *body = x->pg[j].body;
    uint8_t **sbuf = x->leaf->ptype == PQ_BYTE_ARRAY ? NULL : &w->scratch;
    uint8_t *b = NULL;
    int rc;
    pp->defs = pp->dend = NULL;
    if (h->type == 0) {
        if ((rc = decompress(x->c->codec, body, (size_t)h->csize, (size_t)h->usize, &b, err, errlen, sbuf, &w->scap)))
            return rc;
        if (!sbuf) x->held[j] = b;
        pp->vals = b;
        pp->vend = b + h->usize;
        if (x->leaf->optional) {
            if (pp->vend - pp->vals < 4) return PAGE_CORRUPT;
            const uint8_t *q = pp->vals;
            uint32_t dl = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
            if (dl > (size_t)(pp->vend - pp->vals - 4)) return PAGE_CORRUPT;
            pp->defs = pp->vals + 4;
            pp->dend = pp->defs + dl;
            pp->vals = pp->dend;
        }
        return 0;
    }
    if (h->rep_len != 0 || h->def_len < 0 || h->def_len > h->csize || h->usize < h->def_len) return PAGE_CORRUPT;
    pp->defs = body;
    pp->dend = body + h->def_len;
    size_t clen = (size_t)(h->csize - h->def_len), ulen = (size_t)(h->usize - h->def_len);
    if ((rc = decompress(h->v2_compressed ? x->c->codec : 0, pp->dend, clen, ulen, &b, err, errlen, sbuf, &w->scap)))
        return rc;
    if (!sbuf) x->held[j] = b;
    pp->vals = b;
    pp->vend = b + ulen;
    if (!x->leaf->optional) pp->defs = NULL;
    return 0;
}

/* The page's rows' validity from its definition levels (1 = a value, 0 = NULL), and the NULL rows'
 * values zeroed: they are written nowhere else, and read as fresh memory would. *present: its values. */
static int page_validity(pq_worker *w, uint64_t j, const page_parts *pp, uint64_t *present) {
    csd_pq_values *v = w->x->v;
    const uint64_t got = w->x->pg[j].got, nv = (uint64_t)w->x->pg[j].h.num_values;
    *present = nv;
    if (pp->defs) {
        int64_t pr = csd_pq_rle_levels(pp->defs, pp->dend, v->valid + got, nv);
        if (pr < 0) return PAGE_CORRUPT;
        *present = (uint64_t)pr;
    } else {
        memset(v->valid + got, 1, nv);
    }
    if (*present < nv) {
        if (v->i) memset(v->i + got, 0, nv * sizeof *v->i);
        if (v->ix) memset(v->ix + got, 0, nv);
        if (v->d) memset(v->d + got, 0, nv * sizeof *v->d);
        if (v->sp) memset((void *)(v->sp + got), 0, nv * sizeof *v->sp);
        if (v->sn) memset(v->sn + got, 0, nv * sizeof *v->sn);
    }
    return 0;
}

/* PLAIN numbers without NULLs: copied to the rows [got, got + nv) in one pass. */
static int page_dense(pq_worker *w, uint64_t j, const page_parts *pp) {
    csd_pq_values *v = w->x->v;
    const int pt = w->x->leaf->ptype;
    const uint64_t got = w->x->pg[j].got, nv = (uint64_t)w->x->pg[j].h.num_values;
    const uint8_t *vals = pp->vals;
    size_t avail = (size_t)(pp->vend - vals), wb = pt == PQ_INT32 || pt == PQ_FLOAT ? 4 : 8;
    if (nv > avail / wb) return PAGE_CORRUPT;
    if (pt == PQ_INT64) memcpy(v->i + got, vals, nv * 8);
    else if (pt == PQ_DOUBLE) memcpy(v->d + got, vals, nv * 8);
    else if (pt == PQ_INT32) {
        for (uint64_t k = 0; k < nv; k++) {
            int32_t y;
            memcpy(&y, vals + 4 * k, 4);
            v->i[got + k] = y;
        }
    } else {
        for (uint64_t k = 0; k < nv; k++) {
            float y;
            memcpy(&y, vals + 4 * k, 4);
            v->d[got + k] = y;
        }
    }
    return 0;
}

/* A dictionary-encoded page (PLAIN_DICTIONARY, RLE_DICTIONARY): its present values' indices, kept as
 * the rows' index bytes (small dictionaries) or looked up into the rows' values; an index past the
 * dictionary is a corrupt page. slot[k]: the row of present value k (unused when nothing is NULL). */
static int page_dict(pq_worker *w, uint64_t j, const page_parts *pp, uint64_t present) {
    pq_pages *x = w->x;
    csd_pq_values *v = x->v;
    const dict *dc = x->dc;
    const uint64_t got = x->pg[j].got, nv = (uint64_t)x->pg[j].h.num_values;
    const uint8_t *vals = pp->vals, *vend = pp->vend;
    uint32_t *lev = w->lev;
    if (!present) return 0;
    if (vend - vals < 1) return PAGE_CORRUPT;
    int wd = vals[0];
    if (present == nv && v->ix && wd <= 8) {
        /* no NULLs, indices kept: straight into the rows' bytes */
        if (!dc->n || csd_pq_rle_decode8(vals + 1, vend, wd, v->ix + got, nv)) return PAGE_CORRUPT;
        const uint8_t *o = v->ix + got;
        uint32_t bad = 0;
        if (dc->n < ((uint64_t)1 << wd))
            for (uint64_t k = 0; k < nv; k++) bad |= o[k] >= dc->n;
        return bad ? PAGE_CORRUPT : 0;
    }
    if (wd > 32 || csd_pq_rle_decode(vals + 1, vend, wd, lev, present)) return PAGE_CORRUPT;
    if (present == nv && v->ix) {
        if (!dc->n) return PAGE_CORRUPT;
        uint8_t *o = v->ix + got;
        uint32_t bad = 0;
        for (uint64_t k = 0; k < nv; k++) {
            uint32_t ix = lev[k];
            bad |= ix >= dc->n;
            o[k] = (uint8_t)ix;
        }
        return bad ? PAGE_CORRUPT : 0;
    }
    if (present == nv && dc->i) {
        /* no NULLs in the page: the values are the rows [got, got + nv) */
        if (!dc->n) return PAGE_CORRUPT;
        int64_t *o = v->i + got;
        uint32_t bad = 0;
        for (uint64_t k = 0; k < nv; k++) {
            uint32_t ix = lev[k];
            bad |= ix >= dc->n;
            o[k] = dc->i[ix < dc->n ? ix : 0];
        }
        return bad ? PAGE_CORRUPT : 0;
    }
    for (uint64_t k = 0; k < present; k++) {
        uint32_t ix = lev[k];
        if (ix >= dc->n) return PAGE_CORRUPT;
        uint64_t s = w->slot[k];
        if (v->ix) v->ix[s] = (uint8_t)ix;
        else if (dc->i) v->i[s] = dc->i[ix];
        else if (dc->d) v->d[s] = dc->d[ix];
        else {
            v->sp[s] = dc->sp[ix];
            v->sn[s] = dc->sn[ix];
        }
    }
    return 0;
}

/* The page's present values by its encoding, into the rows slot[] names. */
static int page_values(pq_worker *w, uint64_t j, const page_parts *pp, uint64_t present, char *err, size_t errlen) {
    pq_pages *x = w->x;
    csd_pq_values *v = x->v;
    const phdr *h = &x->pg[j].h;
    const int pt = x->leaf->ptype;
    const uint8_t *vals = pp->vals, *vend = pp->vend;
    if (h->encoding == 0)
        return plain_decode(pt, vals, vend, present, v->i, v->d, v->sp, v->sn, w->slot) ? PAGE_CORRUPT : 0;
    if (h->encoding == 3 && pt == PQ_BOOLEAN) {
        /* RLE booleans (the data pages v2 default): a 4-byte length, then the hybrid at width 1 */
        if (vend - vals < 4) return PAGE_CORRUPT;
        uint32_t bl = (uint32_t)vals[0] | (uint32_t)vals[1] << 8 | (uint32_t)vals[2] << 16 | (uint32_t)vals[3] << 24;
        if (bl > (size_t)(vend - vals - 4) || csd_pq_rle_decode(vals + 4, vals + 4 + bl, 1, w->lev, present))
            return PAGE_CORRUPT;
        for (uint64_t k = 0; k < present; k++) v->i[w->slot[k]] = w->lev[k] != 0;
        return 0;
    }
    if (h->encoding == 5 && (pt == PQ_INT32 || pt == PQ_INT64))
        return delta_decode(pt, vals, vend, present, v->i, w->slot) ? PAGE_CORRUPT : 0;
    if (h->encoding == 2 || h->encoding == 8) {
        if (!x->pg[j].have_dict)
            return fail(err, errlen, "Parquet row group %u column '%s': a dictionary-encoded page without a "
                        "dictionary page", x->rg, x->leaf->name);
        return page_dict(w, j, pp, present);
    }
    return fail(err, errlen, "Parquet row group %u column '%s': value encoding %d is not supported (PLAIN, "
                "PLAIN_DICTIONARY, RLE_DICTIONARY, DELTA_BINARY_PACKED for integers, RLE for booleans)", x->rg,
                x->leaf->name, h->encoding);
}

/* Decode data page j into its rows of x->v: its parts, the rows' validity, then its values (PLAIN
 * numbers without NULLs in one copy). 0, or a failure with err. */
static int decode_page_body(pq_worker *w, uint64_t j, char *err, size_t errlen) {
    pq_pages *x = w->x;
    const pq_page *pg = &x->pg[j];
    const int pt = x->leaf->ptype;
    const uint64_t got = pg->got, nv = (uint64_t)pg->h.num_values;
    int rc = worker_room(w, nv, x->leaf->name, err, errlen);
    if (rc) return rc;
    page_parts pp;
    uint64_t present = nv;
    rc = page_split(w, j, &pp, err, errlen);
    if (!rc) rc = page_validity(w, j, &pp, &present);
    if (!rc) {
        /* the rows of the present values; a page of integers from a dictionary without NULLs needs none */
        int dict_rows = present == nv && (pg->h.encoding == 2 || pg->h.encoding == 8) && x->dc->i;
        if (present == nv && pg->h.encoding == 0 && pt != PQ_BYTE_ARRAY && pt != PQ_BOOLEAN) {
            rc = page_dense(w, j, &pp);
        } else {
            if (present < nv) {
                uint64_t k = 0;
                for (uint64_t r = 0; r < nv; r++) {
                    w->slot[k] = got + r;
                    k += x->v->valid[got + r];
                }
            } else if (!dict_rows) {
                for (uint64_t k = 0; k < nv; k++) w->slot[k] = got + k;
            }
            rc = page_values(w, j, &pp, present, err, errlen);
        }
    }
    if (rc == PAGE_CORRUPT)
        return fail(err, errlen, "corrupt Parquet data page in row group %u column '%s'", x->rg, x->leaf->name);
    return rc;
}

/* Page j decoded, with its integers' least and greatest taken while they are in cache (for a top-N,
 * which passes over pages none of whose rows can enter its heap). */
static int decode_page(pq_worker *w, uint64_t j, char *err, size_t errlen) {
    int rc = decode_page_body(w, j, err, errlen);
    pq_pages *x = w->x;
    if (rc || !x->pstat) return rc;
    const csd_pq_values *v = x->v;
    csd_pq_pstat *ps = &x->pstat[j];
    ps->first = x->pg[j].got;
    ps->n = (uint64_t)x->pg[j].h.num_values;
    ps->known = ps->all_null = 0;
    if (!v->i) return 0;   /* indices: not taken */
    const int64_t *a = v->i + ps->first;
    const uint8_t *ok = v->valid + ps->first;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t present = 0;
    for (uint64_t r = 0; r < ps->n; r++) {
        /* NULL rows hold 0: left out by the validity, branch-free */
        int64_t y = a[r];
        int64_t yl = ok[r] ? y : INT64_MAX, yh = ok[r] ? y : INT64_MIN;
        lo = yl < lo ? yl : lo;
        hi = yh > hi ? yh : hi;
        present += ok[r];
    }
    ps->min = lo;
    ps->max = hi;
    ps->known = present > 0;
    ps->all_null = present == 0;
    return 0;
}

/* Claim pages in order and decode them until none is left or a page before the next has failed. */
static void *page_worker(void *arg) {
    pq_worker *w = arg;
    pq_pages *x = w->x;
    for (;;) {
        uint64_t j = __atomic_fetch_add(&x->next, 1, __ATOMIC_RELAXED);
        if (j >= x->n || j > __atomic_load_n(&x->fail_at, __ATOMIC_RELAXED)) return NULL;
        int rc = decode_page(w, j, w->err, sizeof w->err);
        if (!rc) continue;
        w->rc = rc;
        w->fail_at = j;
        uint64_t cur = __atomic_load_n(&x->fail_at, __ATOMIC_RELAXED);
        while (j < cur && !__atomic_compare_exchange_n(&x->fail_at, &cur, j, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
        return NULL;   /* its later pages do not matter: the chunk fails at j or before */
    }
}

/* Data pages below which a chunk decodes on one thread (a thread per two pages at most). */
#define PQ_MT_MIN_PAGES 4

/* One chunk's decode (decode_chunk): the walk over its page headers finds the data pages and decodes
 * the dictionary page on the way; the data pages then decode on up to `threads` threads. */
typedef struct pq_chunk_run {
    const csd_pq_file *f;
    const uint8_t *file;
    uint32_t rg;
    const csd_pq_chunk *c;
    const csd_pq_leaf *leaf;
    const char *nm;
    int pt;
    const uint8_t *sel;      /* late materialization: pages none of whose rows is selected are skipped */
    int ixm;                 /* integers kept as dictionary indices while every page allows */
    csd_pq_values *v;
    uint64_t rows;
    size_t m;                /* array rows (rows, at least 1) */
    dict dc;
    int have_dict;
    uint8_t *dscratch;       /* the dictionary page, when its values are copied out */
    size_t dscap;
    pq_page *pg;             /* the data pages to decode */
    uint64_t npg, cap_pg;
    uint64_t walk_fail;      /* the walk failed at this data page (UINT64_MAX: it did not) */
    char walk_err[256];
} pq_chunk_run;

/* The chunk's column type and row count: what the device can read, and plausible. */
static int chunk_check(const pq_chunk_run *k, char *err, size_t errlen) {
    const int pt = k->pt;
    if (pt == PQ_INT96 || pt == PQ_FIXED_LEN_BYTE_ARRAY || pt < 0 || pt > PQ_FIXED_LEN_BYTE_ARRAY)
        return fail(err, errlen, "Parquet column '%s' has physical type %s, which the device cannot read "
                    "(BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY)", k->nm, csd_pq_type_name(pt));
    /* each row needs at least one bit of the chunk (flat columns: one value per row) */
    /* a page holds at most some thousands of rows (Spark: 20000) in at least a few bytes: a row count
     * far beyond that is a corrupt footer, refused before allocating for it */
    if (k->rows != k->c->num_values || k->rows > k->c->size * 4096 + 65536)
        return fail(err, errlen, "corrupt Parquet row group %u column '%s': %llu values for %llu rows in %llu bytes",
                    k->rg, k->nm, (unsigned long long)k->c->num_values, (unsigned long long)k->rows,
                    (unsigned long long)k->c->size);
    return 0;
}

/* The chunk's value arrays (from the pool when there is one). */
static int chunk_arrays(pq_chunk_run *k, struct csd_bufpool *pool, char *err, size_t errlen) {
    csd_pq_values *v = k->v;
    const int pt = k->pt;
    k->m = k->rows ? k->rows : 1;
    v->n = k->rows;
    v->cap = k->m;
    /* every row written: huge pages; only the selected pages (late materialization) without a pool:
     * fresh small pages, the rest of the arrays never touched. With a pool, late materialization
     * takes a reused region too: its skipped pages' rows are NULL (valid written), their values
     * never read */
    int h = v->huge = !k->sel || pool;
    if (!h) v->pool = NULL;
    k->ixm = k->ixm && (pt == PQ_INT32 || pt == PQ_INT64);
    /* a decode writes every row of the pages it decodes (their NULL rows zeroed, decode_page) and
     * the validity of those it skips: a pooled region is not zeroed first */
    v->valid = csd_bufpool_get(v->pool, k->m, h, 0);
    if (pt == PQ_FLOAT || pt == PQ_DOUBLE) v->d = csd_bufpool_get(v->pool, k->m * sizeof *v->d, h, 0);
    else if (pt == PQ_BYTE_ARRAY) {
        v->sp = csd_bufpool_get(v->pool, k->m * sizeof *v->sp, h, 0);
        v->sn = csd_bufpool_get(v->pool, k->m * sizeof *v->sn, h, 0);
    } else if (!k->ixm) v->i = csd_bufpool_get(v->pool, k->m * sizeof *v->i, h, 0);
    if (!v->valid || (!v->d && !v->i && !k->ixm && !(v->sp && v->sn)))
        return fail(err, errlen, "out of memory decoding Parquet column '%s'", k->nm);
    return 0;
}

/* The dictionary page (body, header hd) decoded into k->dc; a small dictionary of integers keeps the
 * rows as its indices. 0, or -1 with k->walk_err. */
static int chunk_dict(pq_chunk_run *k, const uint8_t *body, const phdr *hd) {
    csd_pq_values *v = k->v;
    const int pt = k->pt;
    uint8_t **sbuf = pt == PQ_BYTE_ARRAY ? NULL : &k->dscratch;
    char *we = k->walk_err;
    const size_t wl = sizeof k->walk_err;
    if (k->have_dict || hd->num_values < 0 || (hd->encoding != 0 && hd->encoding != 2)) {
        fail(we, wl, "corrupt Parquet dictionary page in row group %u column '%s'", k->rg, k->nm);
        return -1;
    }
    uint8_t *b;
    if (decompress(k->c->codec, body, (size_t)hd->csize, (size_t)hd->usize, &b, we, wl, sbuf, &k->dscap)) return -1;
    if (hold(v, pt, b)) {
        free(b);
        fail(we, wl, "out of memory");
        return -1;
    }
    v->bytes_out += (uint64_t)hd->usize;
    uint64_t dn = (uint64_t)hd->num_values;
    if (dn > (uint64_t)hd->usize + 1 || alloc_dict(&k->dc, pt, dn)) {
        fail(we, wl, "Parquet dictionary of %llu values in column '%s' is corrupt or too large", (unsigned long long)dn,
             k->nm);
        return -1;
    }
    uint64_t *ds = malloc((dn ? dn : 1) * sizeof *ds);
    if (!ds) {
        fail(we, wl, "out of memory");
        return -1;
    }
    for (uint64_t i = 0; i < dn; i++) ds[i] = i;
    int r = plain_decode(pt, b, b + hd->usize, dn, k->dc.i, k->dc.d, k->dc.sp, k->dc.sn, ds);
    free(ds);
    if (r) {
        fail(we, wl, "corrupt Parquet dictionary page in row group %u column '%s'", k->rg, k->nm);
        return -1;
    }
    k->have_dict = 1;
    v->pages++;
    /* a small dictionary: its indices, a byte a row (the values are looked up where read) */
    if (k->ixm && !v->ix && dn && dn <= 256 && !(v->ix = csd_bufpool_get(v->pool, k->m, v->huge, 0))) goto oom;
    if (k->ixm && !v->ix) {
        k->ixm = 0;
        if (ix_to_values(v, 0)) goto oom;
    }
    return 0;
oom:
    fail(we, wl, "out of memory decoding Parquet column '%s'", k->nm);
    return -1;
}

/* Late materialization: none of the rows [got, got + nv) of a data page is selected (8 rows a word). */
static int page_unselected(const uint8_t *sel, uint64_t got, uint64_t nv) {
    uint64_t i = 0;
    for (; i + 8 <= nv; i += 8) {
        uint64_t w;
        memcpy(&w, sel + got + i, 8);
        if (w) break;
    }
    while (i < nv && !sel[got + i]) i++;
    return i == nv;
}

/* The walk over the chunk's page headers: the dictionary page decoded, the data pages to decode
 * listed (those of no selected row skipped, their rows NULL). A failure stops it at walk_fail. */
static void chunk_walk(pq_chunk_run *k) {
    csd_pq_values *v = k->v;
    const uint8_t *p = k->file + k->c->start, *end = p + k->c->size;
    char *we = k->walk_err;
    const size_t wl = sizeof k->walk_err;
    uint64_t got = 0;
    while (got < k->rows) {
        thr t = { p, end, 0, 0 };
        phdr hd;
        if (read_phdr(&t, &hd) || hd.csize > end - t.p) {
            fail(we, wl, "corrupt Parquet page header in row group %u column '%s' at offset %llu", k->rg, k->nm,
                 (unsigned long long)(p - k->file));
            break;
        }
        const uint8_t *body = t.p;
        p = t.p + hd.csize;
        if (hd.type == 2) {          /* dictionary page */
            if (chunk_dict(k, body, &hd)) break;
            continue;
        }
        if (hd.type != 0 && hd.type != 3) continue;   /* index pages and unknown kinds carry no values */
        if (hd.num_values < 0 || (uint64_t)hd.num_values > k->rows - got) {
            fail(we, wl, "corrupt Parquet data page in row group %u column '%s': %lld values with %llu left", k->rg,
                 k->nm, (long long)hd.num_values, (unsigned long long)(k->rows - got));
            break;
        }
        uint64_t nv = (uint64_t)hd.num_values;
        if (k->sel && page_unselected(k->sel, got, nv)) {
            /* flat columns: a page's values are the rows [got, got + nv) */
            memset(v->valid + got, 0, nv);
            v->skipped_values += nv;
            v->skipped_bytes += (uint64_t)hd.usize;
            got += nv;
            continue;
        }
        if (k->ixm && !(v->ix && (hd.encoding == 2 || hd.encoding == 8))) {
            /* a page not from the dictionary (a writer's fallback to PLAIN): values from here on; no
             * page is decoded yet, so every page decodes into values (the rows the indices would have
             * held read the same) */
            if (ix_to_values(v, 0)) goto oom;
            k->ixm = 0;
        }
        if (k->npg == k->cap_pg) {
            uint64_t cp = k->cap_pg ? 2 * k->cap_pg : 64;
            pq_page *np = realloc(k->pg, cp * sizeof *k->pg);
            if (!np) goto oom;
            k->pg = np;
            k->cap_pg = cp;
        }
        k->pg[k->npg++] = (pq_page){ .body = body, .h = hd, .got = got, .have_dict = k->have_dict };
        v->bytes_out += (uint64_t)hd.usize;
        v->pages++;
        v->decoded += nv;
        got += nv;
    }
    if (got < k->rows) k->walk_fail = k->npg;
    return;
oom:
    fail(we, wl, "out of memory decoding Parquet column '%s'", k->nm);
    k->walk_fail = k->npg;
}

/* The data pages, on up to `threads` threads; the first failure in page order is the chunk's, as
 * decoding them one after another would report it. */
static int chunk_pages(pq_chunk_run *k, int threads, int want_stats, char *err, size_t errlen) {
    csd_pq_values *v = k->v;
    const uint64_t npg = k->npg;
    int rc = 0;
    pq_pages x = { .c = k->c, .leaf = k->leaf, .rg = k->rg, .dc = &k->dc, .v = v, .pg = k->pg, .n = npg, .next = 0,
                   .fail_at = npg };
    x.held = k->pt == PQ_BYTE_ARRAY ? calloc(npg ? npg : 1, sizeof *x.held) : NULL;
    /* the pages' least and greatest integers: for csd_pq_read_threads' callers (a top-N's first key) */
    if (want_stats && (k->pt == PQ_INT32 || k->pt == PQ_INT64) && npg)
        x.pstat = calloc(npg, sizeof *x.pstat);   /* none when out of memory: the caller goes row by row */
    if (k->pt == PQ_BYTE_ARRAY && !x.held) {
        free(x.pstat);
        return fail(err, errlen, "out of memory decoding Parquet column '%s'", k->nm);
    }
    int nw = threads < 1 ? 1 : threads > PQ_MAX_PAGE_THREADS ? PQ_MAX_PAGE_THREADS : threads;
    if (npg < PQ_MT_MIN_PAGES) nw = 1;
    if ((uint64_t)nw > npg / 2 && npg >= 2) nw = (int)(npg / 2);
    if (nw < 1) nw = 1;
    pq_worker wk[PQ_MAX_PAGE_THREADS];
    pthread_t th[PQ_MAX_PAGE_THREADS];
    int started = 0;
    for (int i = 0; i < nw; i++) wk[i] = (pq_worker){ .x = &x, .fail_at = UINT64_MAX };
    for (int i = 1; i < nw; i++)
        if (pthread_create(&th[started], NULL, page_worker, &wk[i]) == 0) started++;
    page_worker(&wk[0]);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    uint64_t first = UINT64_MAX;
    int fk = -1;
    for (int i = 0; i < nw; i++) {
        if (wk[i].rc && wk[i].fail_at < first) {
            first = wk[i].fail_at;
            fk = i;
        }
        free(wk[i].lev);
        free(wk[i].slot);
        free(wk[i].scratch);
    }
    /* strings point into their pages' buffers: kept with the values (freed with them on failure) */
    for (uint64_t j = 0; x.held && j < npg; j++)
        if (x.held[j] && keep_buf(v, x.held[j])) {
            free(x.held[j]);
            if (fk < 0 && k->walk_fail == UINT64_MAX) rc = fail(err, errlen, "out of memory");
        }
    free(x.held);
    if (fk >= 0) {
        rc = wk[fk].rc;
        snprintf(err, errlen, "%s", wk[fk].err);
    } else if (k->walk_fail != UINT64_MAX) {
        rc = -EINVAL;
        snprintf(err, errlen, "%s", k->walk_err);
    }
    if (x.pstat) {
        if (rc) free(x.pstat);
        else {
            v->pstat = x.pstat;
            v->n_pstat = npg;
        }
    }
    return rc;
}

static int decode_chunk(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                      const uint8_t *sel, int ixm, struct csd_bufpool *pool, int threads, int want_stats,
                      csd_pq_values *v, char *err, size_t errlen) {
    (void)len;
    memset(v, 0, sizeof *v);
    v->pool = pool;
    if (rg >= f->n_rgs || col >= f->n_leaves) return fail(err, errlen, "no Parquet row group %u column %u", rg, col);
    pq_chunk_run k = { .f = f, .file = file, .rg = rg, .c = &f->rgs[rg].chunks[col], .leaf = &f->leaves[col],
                       .nm = f->leaves[col].name, .pt = f->leaves[col].ptype, .sel = sel, .ixm = ixm, .v = v,
                       .rows = f->rgs[rg].num_rows, .walk_fail = UINT64_MAX };
    int rc = chunk_check(&k, err, errlen);
    if (rc) return rc;
    rc = chunk_arrays(&k, pool, err, errlen);
    if (!rc) {
        chunk_walk(&k);
        rc = chunk_pages(&k, threads, want_stats, err, errlen);
    }
    if (!rc && k.ixm) {
        if (v->ix) {
            v->dict_i = k.dc.i;   /* the values' dictionary goes with them */
            v->dict_n = k.dc.n;
            k.dc.i = NULL;
        } else if (ix_to_values(v, 0)) {   /* no page from a dictionary (none, or all skipped) */
            rc = fail(err, errlen, "out of memory decoding Parquet column '%s'", k.nm);
        }
    }
    free(k.pg);
    free(k.dscratch);
    dict_free(&k.dc);
    if (rc) csd_pq_values_free(v);
    return rc;
}
