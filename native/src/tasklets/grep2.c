/* grep2: two-stage pattern matching (2PM paper, section III-A). The lines of text holding a start key
 * and, optionally, an end key after it (start.*end within a line): their count (mode=count) or the
 * lines themselves as (offset, line) rows (mode=lines). The same answers as grep's in-order scan.
 *
 * First stage (page_scan), once per page as it lands, in any order: the lines wholly inside the page
 * are decided there (counted or emitted at once), and the page is classified for the chip scheduler:
 * matched (a line of its own matches), partially matched (a fragment of a line cut by a page boundary
 * holds a key or could hold one across the boundary) or mismatched. Only the fragments are kept: the
 * head (bytes before the first line break) and the tail (after the last one), or the whole page when
 * it has no line break. Second stage (finish), after every page: the lines cut by page boundaries are
 * put together from the fragments and tested, but only those with a partially matched fragment (the
 * others cannot match). The paper's pattern spans a request; here it spans a line, so "partially
 * matched" is about fragments.
 *
 * Lines follow the LINES framing rules (docs/TASKLETS.md): an extent owns the lines that start in it
 * (the last one may run past its end), one trailing '\r' is not part of a line, a final line without
 * '\n' counts. stages=1 runs the same pattern as a plain LINES tasklet, pages in order (the in-order
 * processing the paper compares against, Fig. 10). Rows come in the order pages were scanned (stage 1)
 * and then the cut lines in offset order (stage 2): sort by offset for file order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasklets/pm_match.h"
#include "tasklets/tasklets_int.h"

enum { MODE_COUNT, MODE_LINES };

/* What the first stage kept of one page. */
typedef struct page_info {
    uint8_t seen, has_nl;
    uint8_t head_part, tail_part;   /* the fragment may hold (part of) a match */
    uint32_t head_len, tail_len;    /* head: before the first '\n' (the whole page without one); tail: after the last */
    size_t head_at, tail_at;        /* in the arena */
} page_info;

typedef struct grep2 {
    int mode, stages;
    csd_pm *pm;
    uint64_t count;
    int stopped;                    /* max_outputs reached: no more rows */
    /* two-stage */
    csd_extent x;
    uint64_t first;                 /* first page of the extent */
    page_info *pages;
    size_t npages;
    uint8_t *arena;                 /* kept fragments, in the order pages were scanned */
    size_t alen, acap;
    uint8_t *line;                  /* a cut line put together */
    size_t lcap;
} grep2;

static int grep2_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err, size_t errlen) {
    static const char *const modes[] = { "count", "lines", NULL };
    static const char *const matchers[] = { "memmem", "hyperscan", NULL };
    int mode, matcher, rc;
    uint64_t stages;
    if ((rc = csd_tk_param_choice(args, "mode", modes, MODE_COUNT, &mode, err, errlen))) return rc;
    /* memmem by default: in the page scan it was as fast as Hyperscan on a frequent key and faster on a
     * rare one (bench_pm_scan, docs/2PM.md) */
    if ((rc = csd_tk_param_choice(args, "matcher", matchers, CSD_PM_MEMMEM, &matcher, err, errlen)))
        return rc;
    if ((rc = csd_tk_param_u64(args, "stages", 2, 1, 2, &stages, err, errlen))) return rc;
    /* runtime keywords (create_object(OUTPUT)) win over the static params: start, then end */
    const char *start = args->n_keywords && args->keywords ? args->keywords[0] : csd_args_get(args, "start");
    if (!start) start = csd_args_get(args, "pattern");
    const char *end = args->n_keywords > 1 && args->keywords ? args->keywords[1] : csd_args_get(args, "end");
    if (!start || !*start) {
        csd_args_reject(args, "start");
        snprintf(err, errlen, "grep2 needs a non-empty start key (static param 'start' or 'pattern', or a runtime keyword)");
        return -EINVAL;
    }
    grep2 *g = calloc(1, sizeof *g);
    if (!g) return -ENOMEM;
    char why[256];
    rc = csd_pm_create(&g->pm, (const uint8_t *)start, strlen(start), (const uint8_t *)(end ? end : ""),
                       end ? strlen(end) : 0, matcher, why, sizeof why);
    if (rc) {
        free(g);
        if (rc == -EINVAL) {
            csd_args_reject(args, strstr(why, "matcher") || strstr(why, "Hyperscan") ? "matcher" : "start");
            snprintf(err, errlen, "grep2: %s", why);
        } else {
            snprintf(err, errlen, "out of memory");
        }
        return rc;
    }
    g->mode = mode;
    g->stages = (int)stages;
    framing->kind = stages == 2 ? CSD_FRAMING_TWO_STAGE : CSD_FRAMING_LINES;
    framing->record_bytes = 0;
    framing->skip_header = 0;
    *state = g;
    return 0;
}

/* A matching line: count it or emit it. 0, or < 0 when the output failed. */
static int hit(grep2 *g, csd_tasklet_io *io, uint64_t off, const uint8_t *line, size_t len) {
    if (g->mode == MODE_COUNT) {
        g->count++;
        return 0;
    }
    if (g->stopped) return 0;
    csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
    csd_io_row_begin(io);
    csd_io_val_int(io, (int64_t)off);
    csd_io_val_bytes(io, line, len);
    int rc = csd_io_row_end(io);
    if (rc == CSD_STOP) g->stopped = 1;
    return rc < 0 ? rc : 0;
}

static size_t strip_cr(const uint8_t *line, size_t len) { return len && line[len - 1] == '\r' ? len - 1 : len; }

/* ---- in order (stages=1): one line at a time, like grep -------------------------------------- */

static int grep2_record(void *state, csd_tasklet_io *io, const uint8_t *line, size_t len, uint64_t off) {
    grep2 *g = state;
    uint64_t words = (len + 3) / 4;
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD + words * CSD_TK_CYCLES_PER_COMPARE, words);
    if (!csd_pm_line_matches(g->pm, line, len)) return 0;
    int rc = hit(g, io, off, line, len);
    return rc < 0 ? rc : g->stopped ? CSD_STOP : 0;
}

/* ---- first stage ----------------------------------------------------------------------------- */

static int keep(grep2 *g, const uint8_t *p, size_t n, size_t *at) {
    *at = g->alen;
    if (!n) return 0;
    if (g->alen + n > g->acap) {
        size_t cap = g->acap ? g->acap : 4096;
        while (cap < g->alen + n) cap *= 2;
        uint8_t *a = realloc(g->arena, cap);
        if (!a) return -ENOMEM;
        g->arena = a;
        g->acap = cap;
    }
    memcpy(g->arena + g->alen, p, n);
    *at = g->alen;
    g->alen += n;
    return 0;
}

static page_info *info_of(grep2 *g, uint64_t page_index) {
    size_t rel = (size_t)(page_index - g->first);
    if (rel >= g->npages) {
        size_t n = g->npages ? g->npages : 16;
        while (n <= rel) n *= 2;
        page_info *p = realloc(g->pages, n * sizeof *p);
        if (!p) return NULL;
        memset(p + g->npages, 0, (n - g->npages) * sizeof *p);
        g->pages = p;
        g->npages = n;
    }
    return &g->pages[rel];
}

typedef struct scan_ctx {
    grep2 *g;
    csd_tasklet_io *io;
    const uint8_t *text;            /* the page's whole lines */
    uint64_t base;                  /* their object offset */
    int matched, rc;
} scan_ctx;

static int on_candidate(void *arg, size_t start, size_t len) {
    scan_ctx *s = arg;
    grep2 *g = s->g;
    uint64_t off = s->base + start;
    if (off < g->x.offset || off >= g->x.end) return 0;       /* not this extent's line */
    const uint8_t *line = s->text + start;
    len = strip_cr(line, len);
    if (!csd_pm_line_matches(g->pm, line, len)) return 0;
    s->matched = 1;
    s->rc = hit(g, s->io, off, line, len);
    return s->rc < 0;
}

static int grep2_page_scan(void *state, csd_tasklet_io *io, const csd_extent *x, uint64_t page_index,
                           const uint8_t *data, size_t len, int *cls, int *need_next) {
    grep2 *g = state;
    if (!g->x.page_bytes) {
        g->x = *x;
        g->first = (x->offset ? x->offset - 1 : 0) / x->page_bytes;
    }
    page_info *pi = info_of(g, page_index);
    if (!pi) return -ENOMEM;
    uint64_t base = page_index * x->page_bytes;
    uint64_t words = (len + 3) / 4;
    csd_io_charge(io, words * CSD_TK_CYCLES_PER_COMPARE, words);   /* one pass over the page */
    pi->seen = 1;
    const uint8_t *fnl = memchr(data, '\n', len);
    int matched = 0;
    if (!fnl) {
        pi->has_nl = 0;
        pi->head_len = (uint32_t)len;
        pi->head_part = (uint8_t)csd_pm_fragment_partial(g->pm, data, len, 1, 1);
        if (keep(g, data, len, &pi->head_at)) return -ENOMEM;
    } else {
        const uint8_t *lnl = memrchr(data, '\n', len);
        size_t h = (size_t)(fnl - data), t0 = (size_t)(lnl - data) + 1;
        pi->has_nl = 1;
        pi->head_len = (uint32_t)h;
        pi->tail_len = (uint32_t)(len - t0);
        pi->head_part = (uint8_t)csd_pm_fragment_partial(g->pm, data, h, 1, 0);
        pi->tail_part = (uint8_t)csd_pm_fragment_partial(g->pm, data + t0, len - t0, 0, 1);
        if (keep(g, data, h, &pi->head_at) || keep(g, data + t0, len - t0, &pi->tail_at)) return -ENOMEM;
        /* the lines wholly inside the page: [h + 1, t0) */
        scan_ctx s = { g, io, data + h + 1, base + h + 1, 0, 0 };
        csd_pm_candidates(g->pm, data + h + 1, t0 - (h + 1), on_candidate, &s);
        if (s.rc < 0) return s.rc;
        matched = s.matched;
    }
    *cls = matched ? CSD_PAGE_MATCHED : pi->head_part || pi->tail_part ? CSD_PAGE_PARTIAL : CSD_PAGE_MISMATCHED;
    /* the extent's last line (the one holding byte end - 1) goes on past this page? */
    uint64_t last = x->end - 1;
    if (base + len > last) {
        size_t from = last > base ? (size_t)(last - base) : 0;
        *need_next = memchr(data + from, '\n', len - from) == NULL;
    }
    return 0;
}

/* ---- second stage ---------------------------------------------------------------------------- */

typedef struct cut_line {
    uint64_t start;                 /* object offset */
    int open, partial;
    size_t len;                     /* bytes put together so far */
} cut_line;

static int line_add(grep2 *g, cut_line *c, size_t at, size_t n) {
    if (!n) return 0;
    if (c->len + n > g->lcap) {
        size_t cap = g->lcap ? g->lcap : 256;
        while (cap < c->len + n) cap *= 2;
        uint8_t *l = realloc(g->line, cap);
        if (!l) return -ENOMEM;
        g->line = l;
        g->lcap = cap;
    }
    memcpy(g->line + c->len, g->arena + at, n);
    c->len += n;
    return 0;
}

/* Test a cut line that is complete; only one holding a partially matched fragment can match. */
static int line_close(grep2 *g, csd_tasklet_io *io, cut_line *c) {
    int rc = 0;
    if (c->open && c->partial && c->start >= g->x.offset && c->start < g->x.end) {
        uint64_t words = (c->len + 3) / 4;
        csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD + words * CSD_TK_CYCLES_PER_COMPARE, words);
        size_t n = strip_cr(g->line, c->len);
        if (csd_pm_line_matches(g->pm, g->line, n)) rc = hit(g, io, c->start, g->line, n);
    }
    c->open = 0;
    c->partial = 0;
    c->len = 0;
    return rc;
}

static int second_stage(grep2 *g, csd_tasklet_io *io) {
    if (!g->x.page_bytes) return 0;                     /* an empty extent */
    uint64_t P = g->x.page_bytes;
    /* The line running into the first page began at object offset 0 (then it is owned when offset is 0)
     * or before the page, so before the extent: never owned. */
    cut_line c = { .start = 0, .open = g->first == 0 && g->x.offset == 0 };
    uint64_t pg = g->first;
    for (size_t rel = 0; rel < g->npages && g->pages[rel].seen; rel++, pg++) {
        page_info *pi = &g->pages[rel];
        int rc = 0;
        if (c.open) {
            c.partial |= pi->head_part;
            rc = line_add(g, &c, pi->head_at, pi->head_len);
        }
        if (rc) return rc;
        if (!pi->has_nl) continue;                     /* the whole page is inside one line */
        if ((rc = line_close(g, io, &c))) return rc;
        /* the line the tail begins (it may be empty: then it begins on the next page) */
        uint64_t page_len = g->x.object_size - pg * P < P ? g->x.object_size - pg * P : P;
        c.open = 1;
        c.start = pg * P + page_len - pi->tail_len;
        c.partial = pi->tail_part;
        if ((rc = line_add(g, &c, pi->tail_at, pi->tail_len))) return rc;
    }
    /* a final line without '\n' counts when the object ends here */
    if (c.open && c.len && pg * P >= g->x.object_size) return line_close(g, io, &c);
    return 0;
}

static int grep2_finish(void *state, csd_tasklet_io *io) {
    grep2 *g = state;
    if (g->stages == 2) {
        int rc = second_stage(g, io);
        if (rc < 0) {
            if (rc == -ENOMEM) csd_io_fail(io, "out of memory putting cut lines together");
            return rc;
        }
    }
    if (g->mode != MODE_COUNT) return 0;
    csd_io_charge(io, CSD_TK_CYCLES_PER_ROW, 0);
    csd_io_row_begin(io);
    csd_io_val_int(io, (int64_t)g->count);
    int rc = csd_io_row_end(io);
    return rc < 0 ? rc : 0;
}

static void grep2_destroy(void *state) {
    grep2 *g = state;
    csd_pm_destroy(g->pm);
    free(g->pages);
    free(g->arena);
    free(g->line);
    free(g);
}

static const csd_tasklet_ops csd_tasklet_grep2 = {
    .name = "grep2",
    .summary = "two-stage pattern matching (2PM): lines holding start[...end], counted or listed; pages "
               "scanned as they land, cut lines combined at the end (params: start, end, mode, stages, "
               "matcher; runtime keywords override start, end)",
    .init = grep2_init,
    .record = grep2_record,
    .finish = grep2_finish,
    .destroy = grep2_destroy,
    .page_scan = grep2_page_scan,
};

const csd_builtin csd_builtin_grep2 = { &csd_tasklet_grep2, NULL };
