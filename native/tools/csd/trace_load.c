/* Reading a whole trace into requests: the format from the first line that says (or forced), each
 * line through its parser, bad lines stopping the load with their line number or counted and
 * skipped, then what only the whole file tells: blkparse's Q or D events, BIOTracer's clock switches
 * and order. Times end up relative to the first arrival. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_fmt.h"

static int push(tf_req **a, size_t *n, size_t *cap, const tf_req *q) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4096;
        tf_req *x = realloc(*a, nc * sizeof *x);
        if (!x) return -1;
        *a = x;
        *cap = nc;
    }
    (*a)[(*n)++] = *q;
    return 0;
}

static int push_clock(tf_trace *tr, const tf_rec *r, uint32_t line) {
    if (tr->cn + r->ntimes > tr->ccap) {
        size_t nc = tr->ccap ? tr->ccap * 2 : 16384;
        uint64_t *c = realloc(tr->clk, nc * sizeof *c);
        if (!c) return -1;
        tr->clk = c;
        uint32_t *l = realloc(tr->clk_line, nc * sizeof *l);
        if (!l) return -1;
        tr->clk_line = l;
        tr->ccap = nc;
    }
    for (int i = 0; i < r->ntimes; i++) {
        tr->clk[tr->cn] = r->times[i];
        tr->clk_line[tr->cn++] = line;
    }
    return 0;
}

static int cmp_arrival(const void *a, const void *b) {
    const tf_req *x = a, *y = b;
    if (x->t_ns != y->t_ns) return x->t_ns < y->t_ns ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* One request line: checks that need the trace so far, then the caller's. 0 kept, 1 not kept (a
 * flush), -1 bad (why), -2 out of memory. */
static int take(tf_trace *tr, const tf_rec *rec, uint32_t lineno, tf_accept_fn accept, void *arg, char *why,
                size_t wl) {
    int ev = rec->event == 'D';
    if (ev && (tr->n || tr->flush_ev[0])) {   /* the trace has Q events: they are its requests */
        tr->other_events++;
        return 1;
    }
    if (rec->op == TF_FLUSH) {
        tr->flush_ev[ev]++;
        return 1;
    }
    if (rec->size == 0) {
        snprintf(why, wl, "size is 0");
        return -1;
    }
    if (rec->off + rec->size < rec->off) {
        snprintf(why, wl, "offset + size overflows");
        return -1;
    }
    /* BIOTracer's lines are in processing order: sorted by arrival at the end */
    if (tr->format != TF_BIOTRACER) {
        if (tr->have_last[ev] && rec->t_ns < tr->last_raw[ev]) {
            snprintf(why, wl, "time goes backwards (%" PRIu64 " ns after %" PRIu64 " ns)", rec->t_ns,
                     tr->last_raw[ev]);
            return -1;
        }
    }
    tf_req q = { .t_ns = rec->t_ns, .off = rec->off, .size = rec->size, .line = lineno, .op = rec->op };
    if (accept && accept(arg, &q, why, wl)) return -1;
    tr->have_last[ev] = 1;
    tr->last_raw[ev] = rec->t_ns;
    if (tr->format == TF_BIOTRACER && push_clock(tr, rec, lineno)) return -2;
    /* D events count until the first Q: a trace with Q events has its requests there */
    if (ev) return push(&tr->dq, &tr->dn, &tr->dcap, &q) ? -2 : 0;
    if (tr->dn) {
        tr->other_events += tr->dn;
        free(tr->dq);
        tr->dq = NULL;
        tr->dn = tr->dcap = 0;
    }
    return push(&tr->r, &tr->n, &tr->cap, &q) ? -2 : 0;
}

int tf_load(FILE *in, const tf_opts *o, tf_accept_fn accept, void *arg, tf_trace *tr, char *err, size_t el) {
    memset(tr, 0, sizeof *tr);
    tr->format = o->format;
    char *line = NULL, why[300];
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, in)) >= 0) {
        uint32_t lineno = ++tr->lines;
        if (o->limit && (tr->n >= o->limit || (tr->n == 0 && tr->dn >= o->limit))) break;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if ((size_t)len != strlen(line)) {
            snprintf(why, sizeof why, "a NUL byte in the line");
            goto bad;
        }
        const char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        if (tr->format == TF_AUTO && (tr->format = tf_detect(line)) == TF_AUTO) {
            snprintf(err, el, "%u: cannot tell the trace format (msr, systor, tencent, csv, disksim, blkparse or "
                     "biotracer); give --format", lineno);
            rc = -1;
            break;
        }
        tf_rec rec;
        int k = tf_parse_line(tr->format, o, line, lineno, &rec, why, sizeof why);
        if (k == TF_END) break;
        if (k == TF_NONE) {
            if (tr->format == TF_BLKPARSE) tr->other_events++;
            continue;
        }
        if (k == TF_REMAP) {
            tr->remaps++;
            continue;
        }
        if (k == TF_REQ) {
            k = take(tr, &rec, lineno, accept, arg, why, sizeof why);
            if (k == -2) {
                snprintf(err, el, "%u: out of memory", lineno);
                rc = -1;
                break;
            }
            if (k >= 0) continue;
        }
    bad:
        if (!o->skip_bad) {
            snprintf(err, el, "%u: %s", lineno, why);
            rc = -1;
            break;
        }
        tr->skipped++;
        if (tr->nmsgs < sizeof tr->msgs / sizeof tr->msgs[0])
            snprintf(tr->msgs[tr->nmsgs++], sizeof tr->msgs[0], "%u: %.280s", lineno, why);
    }
    free(line);
    if (rc == 0 && ferror(in)) {
        snprintf(err, el, "read error");
        rc = -1;
    }
    if (rc) return rc;
    if (tr->format == TF_BLKPARSE) {
        /* no Q events: the D (issue) events are the requests, as `blktrace -a issue` records */
        int d = tr->n == 0 && tr->flush_ev[0] == 0 && (tr->dn || tr->flush_ev[1]);
        tr->event = d ? 'D' : 'Q';
        tr->flushes = tr->flush_ev[d];
        tr->other_events += tr->flush_ev[!d];
        if (d) {
            free(tr->r);
            tr->r = tr->dq;
            tr->n = tr->dn;
            tr->cap = tr->dcap;
            tr->dq = NULL;
            tr->dn = tr->dcap = 0;
        }
    } else {
        tr->flushes = tr->flush_ev[0];
    }
    if (tr->format == TF_BIOTRACER) {
        tf_biotracer_rebase(tr);
        uint64_t hi = 0;
        for (size_t i = 0; i < tr->n; i++) {
            if (i && tr->r[i].t_ns < hi) tr->reordered++;
            if (tr->r[i].t_ns > hi) hi = tr->r[i].t_ns;
        }
        if (tr->n > 1) qsort(tr->r, tr->n, sizeof *tr->r, cmp_arrival);
    }
    uint64_t t0 = tr->n ? tr->r[0].t_ns : 0;
    if (tr->n && tr->r[tr->n - 1].t_ns - t0 >= TF_MAX_SPAN_NS) {
        snprintf(err, el, "%u: the trace spans more than 2^62 ns (146 years) from its first request", tr->r[tr->n - 1].line);
        return -1;
    }
    for (size_t i = 0; i < tr->n; i++) tr->r[i].t_ns -= t0;
    return 0;
}

void tf_free(tf_trace *tr) {
    free(tr->r);
    free(tr->dq);
    free(tr->clk);
    free(tr->clk_line);
    memset(tr, 0, sizeof *tr);
}

void tf_summarize(const tf_trace *tr, tf_stats *s) {
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < tr->n; i++) {
        const tf_req *q = &tr->r[i];
        if (q->op == TF_READ) s->reads++, s->read_bytes += q->size;
        else if (q->op == TF_WRITE) s->writes++, s->write_bytes += q->size;
        else s->trims++, s->trim_bytes += q->size;
    }
    s->requests = tr->n;
    s->flushes = tr->flushes;
    s->span_ns = tr->n ? tr->r[tr->n - 1].t_ns - tr->r[0].t_ns : 0;
    s->rate_per_s = s->span_ns ? (double)s->requests / ((double)s->span_ns / 1e9) : 0;
    s->read_mean_bytes = s->reads ? (double)s->read_bytes / (double)s->reads : 0;
    s->write_mean_bytes = s->writes ? (double)s->write_bytes / (double)s->writes : 0;
    s->write_pct = s->requests ? 100.0 * (double)s->writes / (double)s->requests : 0;
}
