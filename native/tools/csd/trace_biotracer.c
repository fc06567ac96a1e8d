/* BIOTracer's eMMC traces (Zhou et al., "I/O Characteristics of Smartphone Applications and Their
 * Implications for eMMC Design", IISWC 2015; the Nexus 5 workloads of the DRS paper's Table 1).
 *
 * One request a line, eight fields separated by tabs: start sector, sectors, bytes, type bits (bit 0:
 * a write; bit 2: the queue was empty when it arrived), then the times the request was generated,
 * began processing, was issued to the hardware and finished, in seconds.nanoseconds. The byte size
 * is authoritative (the driver may count a sector more). A request arrives when it was generated.
 *
 * Lines are in the order the driver processed them, so generation times are not sorted: the loader
 * sorts the requests by arrival. And some traces change clock part way (Booting starts on the
 * boot-time clock, then continues on wall-clock time, with requests generated on the old clock
 * processed on the new): every time of the file is looked at, a step of more than a day between two
 * consecutive times (sorted) starts a new clock, and each later clock is moved back to continue where
 * the one before it stopped (the smallest gap that keeps every request's four times in order). */
#include <stdlib.h>
#include <string.h>

#include "trace_fmt.h"

#define CLOCK_GAP_NS (86400ull * 1000000000ull)

int tf_parse_biotracer(const tf_opts *o, const char *line, uint32_t lineno, tf_rec *r, char *why, size_t wl) {
    (void)lineno;
    tf_tok t[9];
    size_t n = tf_split_ws(line, t, 9);
    if (n != 8) {
        snprintf(why, wl, "expected 8 fields (sector sectors bytes type generated processed issued finished), "
                 "got %zu", n);
        return TF_BAD;
    }
    uint64_t sec, cnt, bytes, type, unit = o->time_unit_ns ? o->time_unit_ns : 1000000000ull;
    if (tf_u64(&t[0], &sec) || sec > UINT64_MAX / 512) return tf_why_tok(why, wl, "sector", &t[0], "an integer"), TF_BAD;
    if (tf_u64(&t[1], &cnt)) return tf_why_tok(why, wl, "sectors", &t[1], "an integer"), TF_BAD;
    if (tf_u64(&t[2], &bytes)) return tf_why_tok(why, wl, "bytes", &t[2], "an integer"), TF_BAD;
    if (tf_u64(&t[3], &type)) return tf_why_tok(why, wl, "type", &t[3], "an integer"), TF_BAD;
    static const char *const NAMES[4] = { "generated", "processed", "issued", "finished" };
    for (int i = 0; i < 4; i++)
        if (tf_time(&t[4 + i], unit, &r->times[i]))
            return tf_why_tok(why, wl, NAMES[i], &t[4 + i], "a time in seconds"), TF_BAD;
    r->ntimes = 4;
    r->t_ns = r->times[0];
    r->op = (type & 1) ? TF_WRITE : TF_READ;
    r->off = sec * 512;
    r->size = bytes;
    return TF_REQ;
}

typedef struct clk_pt { uint64_t t; uint32_t line; } clk_pt;

static int cmp_pt(const void *a, const void *b) {
    const clk_pt *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : (x->line > y->line) - (x->line < y->line);
}

void tf_biotracer_rebase(tf_trace *tr) {
    size_t m = tr->cn;
    if (m == 0) return;
    clk_pt *p = malloc(m * sizeof *p);
    /* epochs: [lo, hi] of each clock, and where it starts after rebasing */
    uint64_t *lo = malloc(m * sizeof *lo), *hi = malloc(m * sizeof *hi), *base = malloc(m * sizeof *base);
    if (!p || !lo || !hi || !base) goto out;   /* no memory: left unrebased (the times stay ordered) */
    for (size_t i = 0; i < m; i++) p[i] = (clk_pt){ tr->clk[i], tr->clk_line[i] };
    qsort(p, m, sizeof *p, cmp_pt);
    size_t ne = 0;
    lo[0] = hi[0] = p[0].t;
    uint32_t first_line = p[0].line;
    for (size_t i = 1; i <= m; i++) {
        if (i < m && p[i].t - p[i - 1].t <= CLOCK_GAP_NS) {
            hi[ne] = p[i].t;
            if (p[i].line < first_line) first_line = p[i].line;
            continue;
        }
        if (ne > 0) {
            if (tr->nsw < sizeof tr->sw / sizeof tr->sw[0])
                tr->sw[tr->nsw++] = (tf_clock_switch){ first_line, hi[ne - 1], lo[ne] };
            tr->switches++;
        }
        ne++;
        if (i < m) {
            lo[ne] = hi[ne] = p[i].t;
            first_line = p[i].line;
        }
    }
    base[0] = lo[0];
    for (size_t e = 1; e < ne; e++) base[e] = base[e - 1] + (hi[e - 1] - lo[e - 1]);
    if (ne > 1) {
        for (size_t i = 0; i < tr->n; i++) {
            uint64_t v = tr->r[i].t_ns;
            size_t a = 0, b = ne;   /* the last epoch with lo <= v */
            while (b - a > 1) {
                size_t mid = (a + b) / 2;
                if (lo[mid] <= v) a = mid;
                else b = mid;
            }
            tr->r[i].t_ns = v - lo[a] + base[a];
        }
    }
out:
    free(p);
    free(lo);
    free(hi);
    free(base);
}
