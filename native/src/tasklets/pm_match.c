/* The two-stage tasklet's pattern (pm_match.h): candidate lines by Hyperscan or memmem, confirmed by
 * one exact test. */
#include "tasklets/pm_match.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CSD_HAVE_HYPERSCAN
#include <hs/hs.h>
#endif

struct csd_pm {
    int backend;
    uint8_t *start, *end;
    size_t slen, elen;
#ifdef CSD_HAVE_HYPERSCAN
    hs_database_t *db;       /* the start key, as a literal, block mode */
    hs_scratch_t *scratch;   /* this pattern's own: one execution scans at a time */
#endif
};

int csd_pm_have_hyperscan(void) {
#ifdef CSD_HAVE_HYPERSCAN
    return hs_valid_platform() == HS_SUCCESS;
#else
    return 0;
#endif
}

void csd_pm_destroy(csd_pm *pm) {
    if (!pm) return;
#ifdef CSD_HAVE_HYPERSCAN
    if (pm->scratch) hs_free_scratch(pm->scratch);
    if (pm->db) hs_free_database(pm->db);
#endif
    free(pm->start);
    free(pm->end);
    free(pm);
}

int csd_pm_create(csd_pm **out, const uint8_t *start, size_t slen, const uint8_t *end, size_t elen, int backend,
                  char *err, size_t errlen) {
    *out = NULL;
    if (!slen || slen > CSD_PM_KEY_MAX || elen > CSD_PM_KEY_MAX) {
        snprintf(err, errlen, "keys must be 1..%d bytes (the end key may be absent)", CSD_PM_KEY_MAX);
        return -EINVAL;
    }
    if (memchr(start, '\n', slen) || (elen && memchr(end, '\n', elen))) {
        snprintf(err, errlen, "a key may not hold a line break: the pattern matches within one line");
        return -EINVAL;
    }
    if (backend == CSD_PM_HYPERSCAN && !csd_pm_have_hyperscan()) {
        snprintf(err, errlen, "this device was built without Hyperscan (or the CPU lacks SSSE3): use matcher=memmem");
        return -EINVAL;
    }
    csd_pm *pm = calloc(1, sizeof *pm);
    if (!pm) return -ENOMEM;
    pm->backend = backend;
    pm->slen = slen;
    pm->elen = elen;
    pm->start = malloc(slen);
    pm->end = malloc(elen ? elen : 1);
    if (!pm->start || !pm->end) {
        csd_pm_destroy(pm);
        return -ENOMEM;
    }
    memcpy(pm->start, start, slen);
    if (elen) memcpy(pm->end, end, elen);
#ifdef CSD_HAVE_HYPERSCAN
    if (backend == CSD_PM_HYPERSCAN) {
        hs_compile_error_t *ce = NULL;
        if (hs_compile_lit((const char *)start, 0, slen, HS_MODE_BLOCK, NULL, &pm->db, &ce) != HS_SUCCESS) {
            snprintf(err, errlen, "hyperscan: %s", ce && ce->message ? ce->message : "cannot compile the start key");
            hs_free_compile_error(ce);
            csd_pm_destroy(pm);
            return -EINVAL;
        }
        if (hs_alloc_scratch(pm->db, &pm->scratch) != HS_SUCCESS) {
            csd_pm_destroy(pm);
            return -ENOMEM;
        }
    }
#endif
    *out = pm;
    return 0;
}

int csd_pm_line_matches(const csd_pm *pm, const uint8_t *line, size_t len) {
    const uint8_t *a = memmem(line, len, pm->start, pm->slen);
    if (!a) return 0;
    if (!pm->elen) return 1;
    size_t after = (size_t)(a - line) + pm->slen;
    return memmem(line + after, len - after, pm->end, pm->elen) != NULL;
}

/* The line of text around byte at, not before `from` (a line start). */
static void line_around(const uint8_t *text, size_t len, size_t from, size_t at, size_t *s, size_t *e) {
    const uint8_t *ls = at > from ? memrchr(text + from, '\n', at - from) : NULL;
    const uint8_t *le = memchr(text + at, '\n', len - at);
    *s = ls ? (size_t)(ls - text) + 1 : from;
    *e = le ? (size_t)(le - text) : len;
}

#ifdef CSD_HAVE_HYPERSCAN
typedef struct hs_ctx {
    const uint8_t *text;
    size_t len, slen;
    size_t next;             /* lines before this offset were reported */
    csd_pm_line_fn fn;
    void *arg;
    int ret;
} hs_ctx;

static int on_hs_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int flags, void *c) {
    (void)id; (void)from; (void)flags;
    hs_ctx *x = c;
    size_t at = (size_t)to - x->slen;
    if (at < x->next) return 0;                 /* another occurrence in a line already reported */
    size_t s, e;
    line_around(x->text, x->len, x->next, at, &s, &e);
    x->next = e + 1;
    x->ret = x->fn(x->arg, s, e - s);
    return x->ret != 0;                         /* non-zero stops the scan */
}
#endif

int csd_pm_candidates(csd_pm *pm, const uint8_t *text, size_t len, csd_pm_line_fn fn, void *arg) {
#ifdef CSD_HAVE_HYPERSCAN
    if (pm->backend == CSD_PM_HYPERSCAN) {
        hs_ctx x = { text, len, pm->slen, 0, fn, arg, 0 };
        /* a block larger than hs's unsigned length goes in pieces cut after a line break */
        size_t done = 0;
        while (done < len && !x.ret) {
            size_t n = len - done;
            if (n > (1u << 30)) {
                const uint8_t *nl = memrchr(text + done, '\n', 1u << 30);
                n = nl ? (size_t)(nl - (text + done)) + 1 : n;
            }
            x.text = text + done;
            x.len = n;
            x.next = 0;
            hs_ctx *px = &x;
            hs_scan(pm->db, (const char *)text + done, (unsigned int)n, 0, pm->scratch, on_hs_match, px);
            if (x.ret) return x.ret;
            done += n;
        }
        return 0;
    }
#endif
    size_t pos = 0;
    while (pos < len) {
        const uint8_t *h = memmem(text + pos, len - pos, pm->start, pm->slen);
        if (!h) break;
        size_t s, e;
        line_around(text, len, pos, (size_t)(h - text), &s, &e);
        int r = fn(arg, s, e - s);
        if (r) return r;
        pos = e + 1;
    }
    return 0;
}

static int key_partial(const uint8_t *frag, size_t len, const uint8_t *key, size_t klen, int at_start, int at_end) {
    if (!klen || !len) return 0;
    if (memmem(frag, len, key, klen)) return 1;
    /* A key cut by an edge: its first k bytes end the fragment, or its last k bytes begin it. The first
     * test alone flags every cut line that can match (the piece where a cut key begins always ends at a
     * page boundary, so at_end holds there, however many pages the key spans); the second makes the
     * page after a cut partially matched too, as the paper classifies a page holding either key. */
    for (size_t k = 1; k < klen && k <= len; k++) {
        if (at_start && !memcmp(frag, key + klen - k, k)) return 1;   /* a key's last k bytes begin it */
        if (at_end && !memcmp(frag + len - k, key, k)) return 1;      /* a key's first k bytes end it */
    }
    return 0;
}

int csd_pm_fragment_partial(const csd_pm *pm, const uint8_t *frag, size_t len, int at_start, int at_end) {
    return key_partial(frag, len, pm->start, pm->slen, at_start, at_end) ||
           key_partial(frag, len, pm->end, pm->elen, at_start, at_end);
}
