/* keyword-extract: every match of a POSIX extended regular expression in each text line (the C
 * library's regcomp/regexec, running inside the sandbox).
 * Params: pattern (required; or the first runtime keyword), icase (0/1), max_per_line (default 16).
 * Framing: lines. Rows: (line_offset INT64, match STRING) for each non-empty match, left to right,
 * matches not overlapping, in input order. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <smartssd/tasklet.h>

typedef struct kx {
    regex_t re;
    int compiled;
    unsigned max_per_line;
    char *line;              /* NUL-terminated copy: regexec takes C strings */
    size_t cap;
} kx;

static int k_init(void **out, const csd_tasklet_args *a, csd_framing *fr, char *err, size_t errlen) {
    const char *pat = a->n_keywords ? a->keywords[0] : csd_args_get(a, "pattern");
    const char *ic = csd_args_get(a, "icase"), *mx = csd_args_get(a, "max_per_line");
    if (!pat || !*pat) {
        snprintf(err, errlen, "keyword-extract needs a non-empty pattern (param 'pattern' or a runtime keyword)");
        csd_args_reject(a, "pattern");
        return -EINVAL;
    }
    kx *k = calloc(1, sizeof *k);
    if (!k) return -ENOMEM;
    k->max_per_line = mx ? (unsigned)strtoul(mx, NULL, 10) : 16;
    if (k->max_per_line == 0) k->max_per_line = 16;
    int flags = REG_EXTENDED | ((ic && !strcmp(ic, "1")) ? REG_ICASE : 0);
    int rc = regcomp(&k->re, pat, flags);
    if (rc) {
        char why[128];
        regerror(rc, &k->re, why, sizeof why);
        snprintf(err, errlen, "param pattern: '%s' is not a POSIX extended regular expression: %s", pat, why);
        csd_args_reject(a, "pattern");
        free(k);
        return -EINVAL;
    }
    k->compiled = 1;
    fr->kind = CSD_FRAMING_LINES;
    *out = k;
    return 0;
}

static int k_record(void *st, csd_tasklet_io *io, const uint8_t *line, size_t len, uint64_t off) {
    kx *k = st;
    if (len + 1 > k->cap) {
        size_t cap = (len + 1) * 2;
        char *b = realloc(k->line, cap);
        if (!b) {
            csd_io_fail(io, "keyword-extract: no memory for a %zu-byte line", len);
            return -ENOMEM;
        }
        k->line = b;
        k->cap = cap;
    }
    memcpy(k->line, line, len);
    k->line[len] = 0;
    const char *s = k->line;
    regmatch_t m;
    int eflags = 0;
    for (unsigned n = 0; n < k->max_per_line && *s && regexec(&k->re, s, 1, &m, eflags) == 0; n++) {
        if (m.rm_eo == m.rm_so) {   /* an empty match: step over one byte */
            s += 1;
            eflags = REG_NOTBOL;
            continue;
        }
        csd_io_row_begin(io);
        csd_io_val_int(io, (int64_t)off);
        csd_io_val_bytes(io, s + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
        int rc = csd_io_row_end(io);
        if (rc) return rc;
        s += m.rm_eo;
        eflags = REG_NOTBOL;
    }
    return 0;
}

static void k_destroy(void *st) {
    kx *k = st;
    if (k->compiled) regfree(&k->re);
    free(k->line);
    free(k);
}

static const csd_tasklet_ops ops = {
    .name = "keyword-extract",
    .summary = "every match of a regular expression in each line",
    .init = k_init,
    .record = k_record,
    .destroy = k_destroy,
};
CSD_TASKLET(ops)
