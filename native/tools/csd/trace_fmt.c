/* Trace formats: names, detection from one line, the number and field helpers every parser shares,
 * and the DiskSim / MQSim ASCII parser (the smallest). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "trace_fmt.h"

static const struct {
    const char *name, *title;
} FORMATS[TF_COUNT] = {
    [TF_AUTO] = { "auto", "auto" },
    [TF_MSR] = { "msr", "SNIA / MSR-Cambridge CSV" },
    [TF_SYSTOR] = { "systor", "SNIA SYSTOR'17 CSV" },
    [TF_TENCENT] = { "tencent", "Tencent CBS CSV" },
    [TF_CSV] = { "csv", "timestamp,op,offset,size CSV" },
    [TF_DISKSIM] = { "disksim", "DiskSim / MQSim ASCII" },
    [TF_BLKPARSE] = { "blkparse", "blkparse text" },
    [TF_BIOTRACER] = { "biotracer", "BIOTracer, Nexus 5 eMMC" },
};

const char *tf_format_name(tf_format f) { return f < TF_COUNT ? FORMATS[f].name : "?"; }
const char *tf_format_title(tf_format f) { return f < TF_COUNT ? FORMATS[f].title : "?"; }

int tf_format_parse(const char *name) {
    for (int f = 0; f < TF_COUNT; f++)
        if (!strcmp(name, FORMATS[f].name)) return f;
    if (!strcmp(name, "mqsim")) return TF_DISKSIM;
    return -1;
}

uint64_t tf_time_unit(const char *name) {
    static const struct { const char *name; uint64_t ns; } U[] = {
        { "ns", 1 }, { "100ns", 100 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
    };
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++)
        if (!strcmp(name, U[i].name)) return U[i].ns;
    return 0;
}

size_t tf_split_ws(const char *line, tf_tok *t, size_t max) {
    size_t n = 0;
    const char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        const char *b = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        t[n++] = (tf_tok){ b, (size_t)(p - b) };
    }
    return n;
}

size_t tf_split_csv(const char *line, tf_tok *t, size_t max) {
    size_t n = 0;
    const char *b = line;
    for (const char *p = line;; p++) {
        if (*p == ',' || *p == 0) {
            if (n < max) {
                /* fields may be padded with blanks */
                const char *s = b, *e = p;
                while (s < e && (*s == ' ' || *s == '\t')) s++;
                while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
                t[n] = (tf_tok){ s, (size_t)(e - s) };
            }
            n++;
            if (!*p) break;
            b = p + 1;
        }
    }
    return n;
}

int tf_u64(const tf_tok *t, uint64_t *out) {
    if (t->len == 0 || t->len > 20) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < t->len; i++) {
        if (t->s[i] < '0' || t->s[i] > '9') return -1;
        uint64_t d = (uint64_t)(t->s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}


int tf_time(const tf_tok *t, uint64_t unit_ns, uint64_t *out) {
    const char *dot = memchr(t->s, '.', t->len);
    size_t il = dot ? (size_t)(dot - t->s) : t->len;
    uint64_t whole = 0;
    if (il) {
        tf_tok w = { t->s, il };
        if (tf_u64(&w, &whole)) return -1;
    } else if (!dot) {
        return -1;
    }
    unsigned __int128 ns = (unsigned __int128)whole * unit_ns;
    if (dot) {
        size_t fl = t->len - il - 1;
        if (fl == 0 && il == 0) return -1;
        /* the fraction exactly, to 18 digits (more cannot change a time of at most 1 s units by 1 ns) */
        unsigned __int128 frac = 0, scale = 1;
        for (size_t i = 0; i < fl; i++) {
            char ch = dot[1 + i];
            if (ch < '0' || ch > '9') return -1;
            if (i < 18) {
                frac = frac * 10 + (unsigned)(ch - '0');
                scale *= 10;
            }
        }
        ns += (frac * unit_ns + scale / 2) / scale;
    }
    if (ns > UINT64_MAX) return -1;
    *out = (uint64_t)ns;
    return 0;
}

int tf_tok_is(const tf_tok *t, const char *word) {
    return strlen(word) == t->len && !strncasecmp(t->s, word, t->len);
}

void tf_why_tok(char *why, size_t wl, const char *what, const tf_tok *t, const char *is_not) {
    snprintf(why, wl, "%s '%.*s' is not %s", what, (int)(t->len > 40 ? 40 : t->len), t->s, is_not);
}

int tf_is_devno(const tf_tok *t) {
    const char *c = memchr(t->s, ',', t->len);
    if (!c) return 0;
    tf_tok a = { t->s, (size_t)(c - t->s) }, b = { c + 1, t->len - (size_t)(c - t->s) - 1 };
    uint64_t x;
    return !tf_u64(&a, &x) && !tf_u64(&b, &x);
}

static int is_number(const tf_tok *t) {
    uint64_t v;
    return !tf_time(t, 1, &v);
}

tf_format tf_detect(const char *line) {
    tf_tok t[9];
    size_t n = tf_split_ws(line, t, 9);
    if (n == 0) return TF_AUTO;
    /* blkparse: every event line starts with the device, MAJOR,MINOR (a remap's names two) */
    if (tf_is_devno(&t[0]) && n >= 6) return TF_BLKPARSE;
    if (strchr(line, ',')) {
        tf_tok f[8];
        switch (tf_split_csv(line, f, 8)) {
        case 7: return TF_MSR;       /* timestamp,host,disk,type,offset,size,response */
        case 6: return TF_SYSTOR;    /* Timestamp,Response,IOType,LUN,Offset,Size */
        case 5: return TF_TENCENT;   /* Timestamp,Offset,Size,IOType,VolumeID */
        case 4: return TF_CSV;       /* timestamp,op,offset,size */
        default: return TF_AUTO;
        }
    }
    /* BIOTracer: four integers, then four times in seconds.nanoseconds */
    if (n == 8) {
        uint64_t v;
        int ok = 1;
        for (int i = 0; i < 4; i++) ok &= !tf_u64(&t[i], &v);
        for (int i = 4; i < 8; i++) ok &= memchr(t[i].s, '.', t[i].len) && is_number(&t[i]);
        if (ok) return TF_BIOTRACER;
    }
    /* DiskSim / MQSim: time dev lba sectors type, all numbers */
    if (n == 5) {
        int ok = 1;
        for (int i = 0; i < 5; i++) ok &= is_number(&t[i]);
        if (ok) return TF_DISKSIM;
    }
    return TF_AUTO;
}

int tf_parse_line(tf_format f, const tf_opts *o, const char *line, uint32_t lineno, tf_rec *out, char *why,
                  size_t wl) {
    memset(out, 0, sizeof *out);
    switch (f) {
    case TF_MSR: return tf_parse_msr(o, line, lineno, out, why, wl);
    case TF_SYSTOR: return tf_parse_systor(o, line, lineno, out, why, wl);
    case TF_TENCENT: return tf_parse_tencent(o, line, lineno, out, why, wl);
    case TF_CSV: return tf_parse_csv(o, line, lineno, out, why, wl);
    case TF_DISKSIM: return tf_parse_disksim(o, line, lineno, out, why, wl);
    case TF_BLKPARSE: return tf_parse_blkparse(o, line, lineno, out, why, wl);
    case TF_BIOTRACER: return tf_parse_biotracer(o, line, lineno, out, why, wl);
    default: snprintf(why, wl, "no format"); return TF_BAD;
    }
}

/* DiskSim's ASCII input and MQSim's ASCII traces: "time device lba sectors type", blanks between;
 * lba and sectors in 512-byte sectors; type bit 0 set = a read (DiskSim's request flags), else a
 * write. The time unit is the trace's (DiskSim: ms, MQSim: ns): --time-unit, default ns. */
int tf_parse_disksim(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl) {
    (void)lineno;
    tf_tok t[6];
    size_t n = tf_split_ws(line, t, 6);
    if (n != 5) {
        snprintf(why, wl, "expected 5 fields (time device lba sectors type), got %zu", n);
        return TF_BAD;
    }
    uint64_t unit = o->time_unit_ns ? o->time_unit_ns : 1, dev, lba, cnt, type;
    if (tf_time(&t[0], unit, &r->t_ns)) return tf_why_tok(why, wl, "time", &t[0], "a number"), TF_BAD;
    if (tf_u64(&t[1], &dev)) return tf_why_tok(why, wl, "device", &t[1], "an integer"), TF_BAD;
    if (tf_u64(&t[2], &lba) || lba > UINT64_MAX / 512)
        return tf_why_tok(why, wl, "lba", &t[2], "a sector number"), TF_BAD;
    if (tf_u64(&t[3], &cnt) || cnt > UINT32_MAX) return tf_why_tok(why, wl, "sectors", &t[3], "a count"), TF_BAD;
    if (tf_u64(&t[4], &type)) return tf_why_tok(why, wl, "type", &t[4], "an integer"), TF_BAD;
    r->op = (type & 1) ? TF_READ : TF_WRITE;
    r->off = lba * 512;
    r->size = cnt * 512;
    return TF_REQ;
}
