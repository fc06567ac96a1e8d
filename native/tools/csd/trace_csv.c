/* The comma-separated trace formats: SNIA / MSR-Cambridge, SNIA SYSTOR'17, Tencent CBS and a plain
 * timestamp,op,offset,size. A header line (its first field a word such as "Timestamp") is skipped. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trace_fmt.h"

static int fields(const char *line, tf_tok *f, size_t want, const char *names, char *why, size_t wl) {
    size_t n = tf_split_csv(line, f, want);
    if (n == want) return 0;
    snprintf(why, wl, "expected %zu comma-separated fields (%s), got %zu", want, names, n);
    return -1;
}

static int is_header(const tf_tok *t) {
    return tf_tok_is(t, "timestamp") || tf_tok_is(t, "time") || tf_tok_is(t, "ts");
}

static int bytes_field(const tf_tok *t, const char *what, uint64_t scale, uint64_t *out, char *why, size_t wl) {
    uint64_t v;
    if (tf_u64(t, &v) || v > UINT64_MAX / scale) {
        tf_why_tok(why, wl, what, t, "an integer");
        return -1;
    }
    *out = v * scale;
    return 0;
}

static int when(const tf_tok *t, uint64_t unit, uint64_t *out, char *why, size_t wl, const char *is_not) {
    if (tf_time(t, unit, out)) {
        tf_why_tok(why, wl, "timestamp", t, is_not);
        return -1;
    }
    return 0;
}

/* timestamp,host,disk,type,offset,size,response: Windows filetime (100 ns units), Read or Write,
 * bytes. */
int tf_parse_msr(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl) {
    (void)lineno;
    tf_tok f[7];
    if (fields(line, f, 7, "timestamp,host,disk,type,offset,size,response", why, wl)) return TF_BAD;
    if (is_header(&f[0])) return TF_NONE;
    if (o->time_unit_ns) {
        if (when(&f[0], o->time_unit_ns, &r->t_ns, why, wl, "a number")) return TF_BAD;
    } else {
        uint64_t ts;
        if (tf_u64(&f[0], &ts)) return tf_why_tok(why, wl, "timestamp", &f[0], "an integer"), TF_BAD;
        if (ts > UINT64_MAX / 100) {
            snprintf(why, wl, "timestamp %" PRIu64 " is out of range", ts);
            return TF_BAD;
        }
        r->t_ns = ts * 100;
    }
    if (tf_tok_is(&f[3], "read")) r->op = TF_READ;
    else if (tf_tok_is(&f[3], "write")) r->op = TF_WRITE;
    else return tf_why_tok(why, wl, "type", &f[3], "Read or Write"), TF_BAD;
    if (bytes_field(&f[4], "offset", 1, &r->off, why, wl) || bytes_field(&f[5], "size", 1, &r->size, why, wl))
        return TF_BAD;
    return TF_REQ;
}

/* Timestamp,Response,IOType,LUN,Offset,Size: seconds (with a fraction), R or W, bytes. */
int tf_parse_systor(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl) {
    (void)lineno;
    tf_tok f[6];
    if (fields(line, f, 6, "Timestamp,Response,IOType,LUN,Offset,Size", why, wl)) return TF_BAD;
    if (is_header(&f[0])) return TF_NONE;
    if (when(&f[0], o->time_unit_ns ? o->time_unit_ns : 1000000000ull, &r->t_ns, why, wl, "a number of seconds"))
        return TF_BAD;
    if (tf_tok_is(&f[2], "r") || tf_tok_is(&f[2], "read")) r->op = TF_READ;
    else if (tf_tok_is(&f[2], "w") || tf_tok_is(&f[2], "write")) r->op = TF_WRITE;
    else return tf_why_tok(why, wl, "IOType", &f[2], "R or W"), TF_BAD;
    if (bytes_field(&f[4], "offset", 1, &r->off, why, wl) || bytes_field(&f[5], "size", 1, &r->size, why, wl))
        return TF_BAD;
    return TF_REQ;
}

/* Timestamp,Offset,Size,IOType,VolumeID: Unix seconds, 512-byte sectors, 0 = read, 1 = write. */
int tf_parse_tencent(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl) {
    (void)lineno;
    tf_tok f[5];
    if (fields(line, f, 5, "Timestamp,Offset,Size,IOType,VolumeID", why, wl)) return TF_BAD;
    if (is_header(&f[0])) return TF_NONE;
    if (when(&f[0], o->time_unit_ns ? o->time_unit_ns : 1000000000ull, &r->t_ns, why, wl, "a number of seconds"))
        return TF_BAD;
    if (tf_tok_is(&f[3], "0")) r->op = TF_READ;
    else if (tf_tok_is(&f[3], "1")) r->op = TF_WRITE;
    else return tf_why_tok(why, wl, "IOType", &f[3], "0 (read) or 1 (write)"), TF_BAD;
    if (bytes_field(&f[1], "offset", 512, &r->off, why, wl) || bytes_field(&f[2], "size", 512, &r->size, why, wl))
        return TF_BAD;
    return TF_REQ;
}

/* timestamp,op,offset,size: the time in --time-unit (default ns), op R/W/T/F or read, write, trim
 * (discard), flush, bytes. A flush has size 0. */
int tf_parse_csv(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl) {
    (void)lineno;
    tf_tok f[4];
    if (fields(line, f, 4, "timestamp,op,offset,size", why, wl)) return TF_BAD;
    if (is_header(&f[0])) return TF_NONE;
    if (when(&f[0], o->time_unit_ns ? o->time_unit_ns : 1, &r->t_ns, why, wl, "a number")) return TF_BAD;
    if (tf_tok_is(&f[1], "r") || tf_tok_is(&f[1], "read")) r->op = TF_READ;
    else if (tf_tok_is(&f[1], "w") || tf_tok_is(&f[1], "write")) r->op = TF_WRITE;
    else if (tf_tok_is(&f[1], "t") || tf_tok_is(&f[1], "trim") || tf_tok_is(&f[1], "d") || tf_tok_is(&f[1], "discard"))
        r->op = TF_TRIM;
    else if (tf_tok_is(&f[1], "f") || tf_tok_is(&f[1], "flush")) r->op = TF_FLUSH;
    else return tf_why_tok(why, wl, "op", &f[1], "R, W, T or F"), TF_BAD;
    if (bytes_field(&f[2], "offset", 1, &r->off, why, wl) || bytes_field(&f[3], "size", 1, &r->size, why, wl))
        return TF_BAD;
    return TF_REQ;
}
