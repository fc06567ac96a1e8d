/* grep: lines of text containing a literal pattern. mode=count gives one row with the number of
 * matching lines (partial: extents' counts add up); mode=lines gives (offset, line) per match. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasklets/tasklets_int.h"

enum { MODE_COUNT, MODE_LINES };

typedef struct grep {
    int mode;
    size_t plen;
    uint64_t count;
    char pattern[];
} grep;

static int grep_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err,
                     size_t errlen) {
    static const char *const modes[] = {"count", "lines", NULL};
    int mode, rc;
    if ((rc = csd_tk_param_choice(args, "mode", modes, MODE_COUNT, &mode, err, errlen))) return rc;
    /* runtime keywords (create_object(OUTPUT)) win over the static pattern */
    const char *pat = args->n_keywords && args->keywords ? args->keywords[0] : csd_args_get(args, "pattern");
    if (!pat || !*pat) {
        csd_args_reject(args, "pattern");
        snprintf(err, errlen, "grep needs a non-empty pattern (static param 'pattern' or a runtime keyword)");
        return -EINVAL;
    }
    size_t n = strlen(pat);
    grep *g = calloc(1, sizeof *g + n + 1);
    if (!g) return -ENOMEM;
    memcpy(g->pattern, pat, n + 1);
    g->plen = n;
    g->mode = mode;
    framing->kind = CSD_FRAMING_LINES;
    framing->record_bytes = 0;
    framing->skip_header = 0;
    *state = g;
    return 0;
}

static int grep_record(void *state, csd_tasklet_io *io, const uint8_t *line, size_t len, uint64_t off) {
    grep *g = state;
    /* the scan reads the line a 4-byte word at a time: one access and one compare per word */
    uint64_t words = (len + 3) / 4;
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD + words * CSD_TK_CYCLES_PER_COMPARE, words);
    if (!memmem(line, len, g->pattern, g->plen)) return 0;
    if (g->mode == MODE_COUNT) {
        g->count++;
        return 0;
    }
    csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
    csd_io_row_begin(io);
    csd_io_val_int(io, (int64_t)off);
    csd_io_val_bytes(io, line, len);
    return csd_io_row_end(io);
}

/* A page's whole lines in one call (the runtime's lines hook). Counting, with a pattern that holds
 * no line end, is the whole block searched at once: each match counts its line, and the search goes
 * on after that line (a match never spans lines, so it is the line-by-line answer); each line is still
 * charged as record() charges it. Otherwise line by line. */
static int grep_lines(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t off) {
    grep *g = state;
    const uint8_t *end = p + n;
    if (g->mode != MODE_COUNT || memchr(g->pattern, '\n', g->plen) || memchr(g->pattern, '\r', g->plen)) {
        while (p < end) {
            const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = (size_t)(nl - p);
            int rc = grep_record(state, io, p, len && p[len - 1] == '\r' ? len - 1 : len, off);
            if (rc) return rc;
            off += len + 1;
            p = nl + 1;
        }
        return 0;
    }
    uint64_t lines = 0, words = 0;
    for (const uint8_t *q = p; q < end;) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(end - q));
        size_t len = (size_t)(nl - q);
        if (len && q[len - 1] == '\r') len--;
        lines++;
        words += (len + 3) / 4;
        q = nl + 1;
    }
    csd_io_charge(io, lines * CSD_TK_CYCLES_PER_RECORD + words * CSD_TK_CYCLES_PER_COMPARE, words);
    for (const uint8_t *q = p; q < end;) {
        const uint8_t *m = memmem(q, (size_t)(end - q), g->pattern, g->plen);
        if (!m) break;
        g->count++;
        q = (const uint8_t *)memchr(m + g->plen, '\n', (size_t)(end - m - g->plen)) + 1;
    }
    return 0;
}

static const csd_exec_hooks csd_tasklet_grep_hooks = { .lines = grep_lines };

static int grep_finish(void *state, csd_tasklet_io *io) {
    grep *g = state;
    if (g->mode != MODE_COUNT) return 0;
    csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
    csd_io_row_begin(io);
    csd_io_val_int(io, (int64_t)g->count);
    int rc = csd_io_row_end(io);
    return rc < 0 ? rc : 0;
}

static void grep_destroy(void *state) { free(state); }

static const csd_tasklet_ops csd_tasklet_grep = {
    .name = "grep",
    .summary = "lines containing a literal pattern: their count or the lines (params: pattern, mode; "
               "runtime keyword overrides pattern)",
    .init = grep_init,
    .record = grep_record,
    .finish = grep_finish,
    .destroy = grep_destroy,
};

const csd_builtin csd_builtin_grep = { &csd_tasklet_grep, &csd_tasklet_grep_hooks };
