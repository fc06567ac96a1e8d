/* Stage issue of the ISP engine: the REMUS model (Huang et al., section II-C). Each request is split
 * into sub-requests per core (section III-B, eq. 4-5); an idle core runs stage S (send flash
 * requests, isp_send_ns each, at most Q pages in flight per core) or stage P (process one ready page)
 * as the policy decides; stage F is the flash model. Every sub-request holds B_i buffer pages from
 * admission until its last page there is processed. engine.h states the rules; docs/SCHEDULERS.md
 * works examples out by hand.
 *
 * baseline_adaptation (sched/adapt.h) can take the REMUS-like machinery away from the baselines, one
 * piece at a time: without CSD_ADAPT_SPLIT a request runs whole on the least loaded core, which sends
 * to every chip (with the same quota Q as under the split); without CSD_ADAPT_WHOLE_MP a send cuts
 * multi-plane groups where its page count ends; without CSD_ADAPT_CHIP_ORDER it sends in LBA order. */
#include "engine/engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash/flash.h"
#include "sched/assign.h"

/* ---- per-core setup ------------------------------------------------------------------------- */

static int stage_init(csd_engine *e) {
    const csd_params *p = &e->p;
    uint32_t cores = p->cores;
    e->chips = p->channels * p->chips_per_channel;
    uint64_t buf_pages = p->isp_buffer_bytes / p->page_bytes;
    e->quota_sum = 0;
    for (uint32_t k = 0; k < cores; k++) {
        core *c = &e->cores[k];
        /* eq. 5 gives core k the chips with chip % cores == k; without the split it reaches them all,
         * but its quota stays its share of the flash's parallelism (every core the same budget under
         * every adaptation; isp_flash_quota sets another) */
        uint32_t share = e->chips / cores + (k < e->chips % cores ? 1 : 0);
        c->chips = !(e->adapt & CSD_ADAPT_SPLIT) ? e->chips : share;
        uint32_t chips = share ? share : 1;
        c->Q = p->isp_flash_quota ? p->isp_flash_quota : (uint64_t)chips * p->dies_per_chip * p->planes_per_die;
        /* section III-A: the buffer is divided into equal parts, one per core */
        c->buf_pages = buf_pages / cores;   /* >= 1: csd_engine_create checks */
        e->quota_sum += c->Q;
    }
    e->chip_out = calloc(e->chips ? e->chips : 1, sizeof *e->chip_out);
    return e->chip_out ? 0 : -ENOMEM;
}

static void stage_free(csd_engine *e) {
    if (!e->cores) return;
    for (uint32_t k = 0; k < e->p.cores; k++) free(e->cores[k].adm);
    free(e->chip_out);
}

static void stage_req_free(csd_isp_req *r) {
    if (!r->subs) return;
    for (uint32_t k = 0; k < r->e->p.cores; k++) free(r->subs[k].list);
    free(r->subs);
    r->subs = NULL;
}

/* ---- checks --------------------------------------------------------------------------------- */

static int core_check(const csd_engine *e, const core *c, char *err, size_t errlen) {
    uint64_t sS = 0, sF = 0, sP = 0, sB = 0;
    for (size_t i = 0; i < c->nadm; i++) {
        const csd_sreq *v = c->adm[i];
        if (!(v->P <= v->F && v->F <= v->S && v->S <= v->total)) {
            snprintf(err, errlen, "core %u request %llu: counters P %llu <= F %llu <= S %llu <= total %llu broken",
                     c->index, (unsigned long long)v->id, (unsigned long long)v->P, (unsigned long long)v->F,
                     (unsigned long long)v->S, (unsigned long long)v->total);
            return -1;
        }
        if (v->S - v->P > v->B) {
            snprintf(err, errlen, "core %u request %llu: %llu pages in its buffer > B_i %llu", c->index,
                     (unsigned long long)v->id, (unsigned long long)(v->S - v->P), (unsigned long long)v->B);
            return -1;
        }
        sS += v->S; sF += v->F; sP += v->P; sB += v->B;
    }
    /* (1): sum S - sum F <= Q; the core's in-flight count also covers cancelled requests' reads */
    if (sS - sF > c->inflight || c->inflight > c->Q) {
        snprintf(err, errlen, "core %u: constraint (1) broken: sum S - sum F = %llu, %llu pages in flight, Q %llu",
                 c->index, (unsigned long long)(sS - sF), (unsigned long long)c->inflight,
                 (unsigned long long)c->Q);
        return -1;
    }
    if (sF - sP > sB) {
        snprintf(err, errlen, "core %u: constraint (2) broken: sum F - sum P = %llu > sum B = %llu", c->index,
                 (unsigned long long)(sF - sP), (unsigned long long)sB);
        return -1;
    }
    if (sF < sP) {
        snprintf(err, errlen, "core %u: constraint (3) broken: sum F %llu < sum P %llu", c->index,
                 (unsigned long long)sF, (unsigned long long)sP);
        return -1;
    }
    if (sB > c->alloc || c->alloc > c->buf_pages) {
        snprintf(err, errlen, "core %u: buffer over-committed: admitted B %llu, held %llu, share %llu",
                 c->index, (unsigned long long)sB, (unsigned long long)c->alloc, (unsigned long long)c->buf_pages);
        return -1;
    }
    return 0;
}

/* The constraints per core, then every page state recounted against the counters. */
static int stage_check(const csd_engine *e, char *err, size_t errlen) {
    for (uint32_t k = 0; k < e->p.cores; k++)
        if (core_check(e, &e->cores[k], err, errlen)) return -1;
    if (e->buf_used > e->p.isp_buffer_bytes) {
        snprintf(err, errlen, "ISP buffer over-committed: %llu bytes used > %llu", (unsigned long long)e->buf_used,
                 (unsigned long long)e->p.isp_buffer_bytes);
        return -1;
    }
    uint64_t held = 0;
    uint64_t *alloc = calloc(e->p.cores, sizeof *alloc), *infl = calloc(e->p.cores, sizeof *infl);
    if (!alloc || !infl) {
        free(alloc);
        free(infl);
        return 0;   /* no memory to check with: nothing found */
    }
    int rc = 0;
    for (const csd_isp_req *r = e->head; r && !rc; r = r->next) {
        if (!r->subs) continue;
        for (uint32_t k = 0; k < e->p.cores && !rc; k++) {
            const sub *s = &r->subs[k];
            held += s->v.S - s->v.P;
            infl[k] += s->v.S - s->v.F;
            if (s->adm == SUB_ADMITTED || s->adm == SUB_DRAINING) alloc[k] += s->v.B;
            if (r->dead) continue;
            uint64_t fl = 0, rdy = 0;
            for (uint64_t i = 0; i < s->sent_hi; i++) {
                uint8_t st = r->state[s->list[i]];
                if (st == PG_INFLIGHT) fl++;
                if (st == PG_READY || st == PG_BUSY) rdy++;
            }
            if (fl != s->v.S - s->v.F || rdy != s->v.F - s->v.P) {
                snprintf(err, errlen, "core %u request %llu: %llu pages in flight and %llu in DRAM, counters say "
                         "%llu and %llu", k, (unsigned long long)s->v.id, (unsigned long long)fl,
                         (unsigned long long)rdy, (unsigned long long)(s->v.S - s->v.F),
                         (unsigned long long)(s->v.F - s->v.P));
                rc = -1;
            }
        }
    }
    for (uint32_t k = 0; k < e->p.cores && !rc; k++) {
        if (alloc[k] != e->cores[k].alloc || infl[k] != e->cores[k].inflight) {
            snprintf(err, errlen, "core %u: allocation %llu / in flight %llu, sub-requests say %llu / %llu", k,
                     (unsigned long long)e->cores[k].alloc, (unsigned long long)e->cores[k].inflight,
                     (unsigned long long)alloc[k], (unsigned long long)infl[k]);
            rc = -1;
        }
    }
    if (!rc && held * e->p.page_bytes != e->buf_used) {
        snprintf(err, errlen, "ISP buffer: %llu bytes used, sub-requests hold %llu pages",
                 (unsigned long long)e->buf_used, (unsigned long long)held);
        rc = -1;
    }
    free(alloc);
    free(infl);
    return rc;
}

/* Debug builds check constraints (1)-(3) on a core after every change to it. */
static void core_assert(const csd_engine *e, const core *c) {
#ifndef NDEBUG
    char err[256] = "ISP buffer over-committed";
    if (core_check(e, c, err, sizeof err) || e->buf_used > e->p.isp_buffer_bytes) {
        fprintf(stderr, "smartssd engine (stage mode): %s\n", err);
        abort();
    }
#else
    (void)e; (void)c;
#endif
}

/* ---- views and admission -------------------------------------------------------------------- */

static uint64_t ci_estimate(const csd_engine *e, const csd_isp_req *r) {
    if (r->ci_hint_ns) return r->ci_hint_ns;
    if (r->fed_next) return r->fed_cost_ns / r->fed_next;
    return csd_eng_cost_ns(e, e->p.page_cycles, &(csd_cost){ 0, 0 });
}

static void sub_refresh(const csd_engine *e, sub *s) {
    uint64_t npl = e->p.planes_per_die;
    const core *c = &e->cores[s->core];
    s->v.unit = npl > 1 && (e->adapt & CSD_ADAPT_WHOLE_MP) && s->v.total - s->v.S >= npl && s->v.B >= npl &&
                c->Q >= npl ? npl : 1;
    s->v.ci_ns = ci_estimate(e, s->r);
    uint64_t pages = csd_eng_req_pages(s->r), done = s->r->view.pages_done;
    s->v.req_pages_left = pages > done ? pages - done : 0;
}

static void view_fill(csd_engine *e, core *c, csd_core_view *cv) {
    for (size_t i = 0; i < c->nadm; i++) sub_refresh(e, (sub *)c->adm[i]);
    *cv = (csd_core_view){
        .core = c->index, .cores = e->p.cores, .now = csd_sim_now(e->sim),
        .planes = e->p.planes_per_die, .Q = c->Q, .inflight = c->inflight, .buf_pages = c->buf_pages,
        .buf_alloc = c->alloc, .waiting = c->nwait, .t_send_ns = e->p.isp_send_ns,
        .t_read_ns = e->p.t_read_ns, .chips = c->chips, .adapt = e->adapt, .n = c->nadm, .reqs = c->adm,
    };
}

static void adm_remove(core *c, sub *s) {
    for (size_t i = 0; i < c->nadm; i++) {
        if (c->adm[i] == &s->v) {
            memmove(&c->adm[i], &c->adm[i + 1], (c->nadm - i - 1) * sizeof *c->adm);
            c->nadm--;
            return;
        }
    }
}

static void wait_remove(core *c, sub *s) {
    sub **pp = &c->wait_head;
    sub *prev = NULL;
    while (*pp && *pp != s) {
        prev = *pp;
        pp = &(*pp)->wnext;
    }
    if (!*pp) return;
    *pp = s->wnext;
    if (c->wait_tail == s) c->wait_tail = prev;
    s->wnext = NULL;
    c->nwait--;
}

/* Admit waiting sub-requests in order while their buffer fits the core's share (FIFO, so a large
 * B_i is not passed over for ever). */
static void admit(csd_engine *e, core *c) {
    int any = 0;
    while (c->wait_head) {
        sub *s = c->wait_head;
        if (c->nadm == c->capadm) {
            size_t cap = c->capadm ? c->capadm * 2 : 16;
            csd_sreq **a = realloc(c->adm, cap * sizeof *a);
            if (!a) break;   /* retried at the next change; the request only waits longer */
            c->adm = a;
            c->capadm = cap;
        }
        csd_core_view cv;
        sub_refresh(e, s);
        view_fill(e, c, &cv);
        uint64_t B = e->rst->buffer(e->rs_state, &cv, &s->v);
        if (B < 1) B = 1;
        if (B > c->buf_pages) B = c->buf_pages;
        if (c->alloc + B > c->buf_pages) break;
        c->wait_head = s->wnext;
        if (!c->wait_head) c->wait_tail = NULL;
        s->wnext = NULL;
        c->nwait--;
        s->v.B = B;
        s->v.admit_ns = cv.now;
        memset(s->v.pol, 0, sizeof s->v.pol);
        c->alloc += B;
        s->adm = SUB_ADMITTED;
        c->adm[c->nadm++] = &s->v;
        any = 1;
    }
    if (any) csd_eng_kick(e);
    core_assert(e, c);
}

static void enqueue(csd_engine *e, sub *s) {
    core *c = &e->cores[s->core];
    s->adm = SUB_WAITING;
    s->wnext = NULL;
    if (c->wait_tail) c->wait_tail->wnext = s; else c->wait_head = s;
    c->wait_tail = s;
    c->nwait++;
}

static void release_alloc(csd_engine *e, sub *s) {
    core *c = &e->cores[s->core];
    c->alloc -= s->v.B;
    s->adm = SUB_NONE;
    admit(e, c);
}

/* A sub-request whose pages are all processed (or dropped) gives its buffer back. */
static void sub_settle(csd_engine *e, sub *s) {
    if (s->adm == SUB_ADMITTED && s->v.S == s->v.total && s->v.P == s->v.total) {
        adm_remove(&e->cores[s->core], s);
        release_alloc(e, s);
    } else if (s->adm == SUB_DRAINING && s->v.P == s->v.S) {
        release_alloc(e, s);
    }
}

/* ---- requests ------------------------------------------------------------------------------- */

static uint32_t core_of_page(const csd_engine *e, const csd_isp_req *r, uint64_t rel, uint64_t ppn) {
    if (!(e->adapt & CSD_ADAPT_SPLIT)) return r->home;
    uint32_t chip;
    if (ppn != CSD_PPN_NONE) {
        csd_addr a;
        csd_ppn_decode(&e->p, ppn, &a);
        chip = a.chip_global % (e->chips ? e->chips : 1);   /* the device knows the chip exactly */
    } else {
        /* unmapped (reads as zeros): eq. 4 on the page's LBA */
        chip = csd_assign_chip((r->first + rel) * (uint64_t)e->p.page_bytes, e->p.planes_per_die,
                               e->p.page_bytes, e->chips);
    }
    return csd_assign_core(chip, e->p.cores);   /* eq. 5 */
}

static int sub_append(sub *s, uint64_t rel) {
    if (s->n == s->cap) {
        uint64_t cap = s->cap ? s->cap * 2 : 16;
        uint64_t *l = realloc(s->list, cap * sizeof *l);
        if (!l) return -ENOMEM;
        s->list = l;
        s->cap = cap;
    }
    s->list[s->n++] = rel;
    s->send_lim = s->n;
    return 0;
}

static int add_pages(csd_engine *e, csd_isp_req *r, uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; i++) {
        uint64_t ppn = r->src.ppn(r->src.arg, r->first + i);
        r->ppn[i] = ppn;
        uint32_t k = core_of_page(e, r, i, ppn);
        r->core_of[i] = (uint8_t)k;
        sub *s = &r->subs[k];
        if (sub_append(s, i) < 0) return -ENOMEM;
        s->v.total++;
    }
    if (to > r->issue_next) r->issue_next = to;
    if (e->post && !r->ah && to > from) e->post(e->post_arg, r->ppn + from, to - from);   /* as issue_batch.c */
    csd_eng_ahead_load(e, r);
    return 0;
}

/* Without the per-chip split a request runs whole on one core: the one with the least processing
 * work left (pages not processed x c_i over its sub-requests, admitted or waiting); ties go to the
 * lower index. */
static uint32_t least_loaded(const csd_engine *e) {
    uint32_t best = 0;
    uint64_t best_load = UINT64_MAX;
    for (uint32_t k = 0; k < e->p.cores; k++) {
        const core *c = &e->cores[k];
        uint64_t load = 0;
        for (size_t i = 0; i < c->nadm; i++) {
            const sub *s = (const sub *)c->adm[i];
            load += (s->v.total - s->v.P) * ci_estimate(e, s->r);
        }
        for (const sub *s = c->wait_head; s; s = s->wnext) load += (s->v.total - s->v.P) * ci_estimate(e, s->r);
        if (load < best_load) {
            best = k;
            best_load = load;
        }
    }
    return best;
}

static int stage_submit(csd_engine *e, csd_isp_req *r) {
    uint32_t cores = e->p.cores;
    r->home = e->adapt & CSD_ADAPT_SPLIT ? 0 : least_loaded(e);
    r->subs = calloc(cores, sizeof *r->subs);
    if (!r->subs) return -ENOMEM;
    for (uint32_t k = 0; k < cores; k++) {
        sub *s = &r->subs[k];
        s->r = r;
        s->core = k;
        s->v.id = r->view.id;
        s->v.submit_ns = r->view.submit_ns;
    }
    if (add_pages(e, r, 0, csd_eng_req_pages(r)) < 0) return -ENOMEM;   /* the caller frees r */
    for (uint32_t k = 0; k < cores; k++)
        if (r->subs[k].v.total) enqueue(e, &r->subs[k]);
    for (uint32_t k = 0; k < cores; k++) admit(e, &e->cores[k]);
    return 0;
}

static void stage_remove(csd_engine *e, csd_isp_req *r) {
    if (!r->subs) return;
    for (uint32_t k = 0; k < e->p.cores; k++) {
        sub *s = &r->subs[k];
        core *c = &e->cores[k];
        if (s->adm == SUB_WAITING) {
            wait_remove(c, s);
            s->adm = SUB_NONE;
        } else if (s->adm == SUB_ADMITTED) {
            adm_remove(c, s);
            /* pages in flight or on a core still hold its buffer until they land or are done */
            s->adm = SUB_DRAINING;
            sub_settle(e, s);
        }
        admit(e, c);
    }
}

static int stage_resize(csd_engine *e, csd_isp_req *r, uint64_t old_pages) {
    uint64_t pages = csd_eng_req_pages(r);
    if (pages > old_pages) {
        /* text grew past the planned extent: the new page joins its core's sub-request */
        if (add_pages(e, r, old_pages, pages) < 0) return -ENOMEM;
        for (uint32_t k = 0; k < e->p.cores; k++) {
            sub *s = &r->subs[k];
            if (s->adm == SUB_NONE && s->v.total > s->v.S) {
                enqueue(e, s);
                admit(e, &e->cores[k]);
            }
        }
        csd_eng_kick(e);
        return 0;
    }
    /* the tasklet stopped: pages past the new end are never sent; those sent are dropped */
    for (uint32_t k = 0; k < e->p.cores; k++) {
        sub *s = &r->subs[k];
        uint64_t n = s->send_lim, unsent = 0;
        while (n && s->list[n - 1] >= pages) n--;
        for (uint64_t i = s->send_pos; i < n; i++) unsent += r->state[s->list[i]] == PG_NONE;
        s->send_lim = n;
        s->v.total = s->v.S + unsent;
        sub_settle(e, s);
    }
    return 0;
}

static void stage_dropped(csd_engine *e, csd_isp_req *r, uint64_t rel) {
    sub *s = &r->subs[r->core_of[rel]];
    s->v.P++;
    sub_settle(e, s);
    core_assert(e, &e->cores[s->core]);
}

/* ---- stage F: a (multi-plane) flash request lands ------------------------------------------ */

static void unit_arrived(csd_flash_op *op, uint64_t t) {
    (void)t;
    page_op *po = op->arg;
    csd_isp_req *r = po->r;
    csd_engine *e = r->e;
    sub *s = po->sub;
    core *c = &e->cores[s->core];
    po->free_next = r->pool_free;
    r->pool_free = po;
    c->inflight -= po->npages;
    e->chip_out[po->chip]--;
    s->v.F += po->npages;
    s->v.reads_done++;
    r->flash_bytes += (uint64_t)po->npages * e->p.page_bytes;
    for (uint32_t j = 0; j < po->npages; j++) {
        uint64_t rel = s->list[po->pos + j];
        if (r->dead || rel >= csd_eng_req_pages(r)) {
            r->state[rel] = PG_DROPPED;   /* nobody needs it any more */
            csd_eng_buf_give(e);
            s->v.P++;
        } else {
            r->state[rel] = PG_READY;
            r->view.pages_ready++;
        }
    }
    csd_eng_kick(e);
    sub_settle(e, s);
    core_assert(e, c);
    csd_eng_req_unref(e, r);
}

static void send_ev(csd_sim *sim, void *arg) {
    (void)sim;
    page_op *po = arg;
    csd_flash_submit(po->r->e->flash, &po->op);
}

/* ---- stage S and stage P on a core ---------------------------------------------------------- */

/* Pages of the flash request starting at list position pos: N_pl when the pages there are the
 * request's consecutive pages on planes 0..N_pl-1 of one chip (same die, block and page) and fit in
 * limit (section III-B: a multi-plane read), else 1. */
static uint32_t unit_pages(const csd_engine *e, const sub *s, uint64_t pos, uint64_t limit) {
    uint32_t npl = e->p.planes_per_die;
    const csd_isp_req *r = s->r;
    if (npl <= 1 || limit < npl || pos + npl > s->send_lim) return 1;
    uint64_t rel0 = s->list[pos];
    if (r->ppn[rel0] == CSD_PPN_NONE) return 1;
    csd_addr a0;
    csd_ppn_decode(&e->p, r->ppn[rel0], &a0);
    if (a0.plane != 0) return 1;
    for (uint32_t j = 1; j < npl; j++) {
        uint64_t rel = s->list[pos + j];
        if (rel != rel0 + j || r->state[rel] != PG_NONE || r->ppn[rel] == CSD_PPN_NONE) return 1;
        csd_addr a;
        csd_ppn_decode(&e->p, r->ppn[rel], &a);
        if (a.chip_global != a0.chip_global || a.die != a0.die || a.plane != j || a.block != a0.block ||
            a.page != a0.page)
            return 1;
    }
    return npl;
}

static uint32_t chip_of(const csd_engine *e, uint64_t ppn) {
    csd_addr a;
    csd_ppn_decode(&e->p, ppn, &a);
    return e->chips ? a.chip_global % e->chips : 0;
}

/* The next flash request of s to send: among the unsent ones in the next two stripes of the core's
 * chips, the first whose chip has the fewest reads outstanding (a flash controller dispatches to
 * idle chips first; in LBA order only, a request chosen by its buffer would mostly find its next
 * chip busy while another idles). Without CSD_ADAPT_CHIP_ORDER: the first unsent one (LBA order).
 * A multi-plane group larger than limit is skipped (in LBA order: ends the send), or sent as its
 * first page alone when split is set. *n gets its page count. Returns its list position, send_lim
 * when there is none. */
static uint64_t next_unit(const csd_engine *e, const core *c, sub *s, uint64_t limit, int split, uint32_t *n) {
    const csd_isp_req *r = s->r;
    while (s->send_pos < s->send_lim && r->state[s->list[s->send_pos]] != PG_NONE) s->send_pos++;
    uint64_t window = 2ull * (c->chips ? c->chips : 1) * (e->p.planes_per_die ? e->p.planes_per_die : 1);
    uint64_t best = s->send_lim, seen = 0;
    uint32_t best_n = 1, best_out = UINT32_MAX;
    int lba_order = !(e->adapt & CSD_ADAPT_CHIP_ORDER);
    for (uint64_t pos = s->send_pos; pos < s->send_lim && seen < window;) {
        uint64_t rel = s->list[pos];
        if (r->state[rel] != PG_NONE) {
            pos++;
            continue;
        }
        uint32_t whole = unit_pages(e, s, pos, UINT64_MAX), un = whole <= limit ? whole : 1;
        if (un < whole && !split) {      /* a multi-plane group that does not fit: keep it whole */
            if (lba_order) break;
            seen += whole;
            pos += whole;
            continue;
        }
        if (lba_order) {
            best = pos;
            best_n = un;
            break;
        }
        uint32_t out = r->ppn[rel] == CSD_PPN_NONE ? 0 : e->chip_out[chip_of(e, r->ppn[rel])];
        if (out < best_out) {
            best = pos;
            best_n = un;
            best_out = out;
            if (out == 0) break;
        }
        seen += un;
        pos += un;
    }
    *n = best_n;
    return best;
}

static void do_send(csd_engine *e, core *c, sub *s, uint64_t pages) {
    csd_isp_req *r = s->r;
    uint64_t now = csd_sim_now(e->sim), sent = 0, ops = 0;
    int any_ready = 0;
    while (sent < pages) {
        uint32_t n;
        /* Whole multi-plane groups only (a split one costs a T_s per leftover page later), unless
         * nothing else can go and this send would otherwise send nothing; without CSD_ADAPT_WHOLE_MP
         * a group the send's page count cuts is split. */
        uint64_t pos = next_unit(e, c, s, pages - sent, !(e->adapt & CSD_ADAPT_WHOLE_MP), &n);
        if (pos >= s->send_lim && sent == 0) pos = next_unit(e, c, s, pages - sent, 1, &n);
        if (pos >= s->send_lim) break;
        uint64_t rel0 = s->list[pos];
        for (uint32_t j = 0; j < n; j++) csd_eng_buf_take(e);
        if (r->ppn[rel0] == CSD_PPN_NONE) {
            r->state[rel0] = PG_READY;    /* unmapped: zeros, no flash request */
            r->view.pages_ready++;
            s->v.F++;
            any_ready = 1;
        } else {
            page_op *po = r->pool_free;
            r->pool_free = po->free_next;
            po->r = r;
            po->sub = s;
            po->pos = pos;
            po->npages = n;
            po->page = rel0;
            po->chip = chip_of(e, r->ppn[rel0]);
            po->op = (csd_flash_op){ .kind = CSD_FLASH_READ, .src = CSD_SRC_ISP, .ppn = r->ppn[rel0], .owner = r,
                                     .req_id = r->view.id,
                                     .done = unit_arrived, .arg = po };
            for (uint32_t j = 0; j < n; j++) r->state[s->list[pos + j]] = PG_INFLIGHT;
            e->chip_out[po->chip]++;
            c->inflight += n;
            r->refs++;
            ops++;
            /* each flash request reaches the flash controller when its T_s of sending ends */
            if (e->p.isp_send_ns) csd_eng_sched(e, now + ops * e->p.isp_send_ns, send_ev, po);
            else csd_flash_submit(e->flash, &po->op);
        }
        if (pos + n > s->sent_hi) s->sent_hi = pos + n;
        s->v.S += n;
        sent += n;
    }
    core_assert(e, c);
    if (ops && e->p.isp_send_ns) {
        c->slot_sub = s;
        csd_eng_core_start(c, SLOT_SEND, r, sent, ops * e->p.isp_send_ns, 0);
    } else {
        csd_eng_kick(e);   /* sending took no core time: the core chooses again */
    }
    if (any_ready) csd_eng_kick(e);
}

/* 1 with *rel = the lowest-index ready page of s */
static int sub_lowest_ready(sub *s, uint64_t *rel) {
    const uint8_t *st = s->r->state;
    while (s->ready_pos < s->sent_hi && st[s->list[s->ready_pos]] >= PG_BUSY) s->ready_pos++;
    for (uint64_t i = s->ready_pos; i < s->sent_hi; i++) {
        if (st[s->list[i]] == PG_READY) {
            *rel = s->list[i];
            return 1;
        }
    }
    return 0;
}

/* 1 when the core got a slot (or the request failed on it) */
static int do_process(csd_engine *e, core *c, sub *s) {
    csd_isp_req *r = s->r;
    uint64_t rel;
    if (!sub_lowest_ready(s, &rel)) return 0;
    uint64_t fail_ns = 0;
    int rc = csd_eng_feed_upto(e, r, rel, &fail_ns);
    if (rc < 0) {
        csd_eng_fail_on(e, c, r, fail_ns, rc);
        return 1;
    }
    if (rel >= csd_eng_req_pages(r)) return 0;   /* dropped by a stop: choose again */
    r->state[rel] = PG_BUSY;
    r->view.pages_ready--;
    c->slot_sub = s;
    csd_eng_core_start(c, SLOT_PAGE, r, rel, r->cost_ns[rel], 0);
    return 1;
}

static void stage_serve(csd_engine *e, core *c) {
    /* a stop while feeding can drop the chosen page; a few rounds settle it */
    for (int round = 0; round < 64; round++) {
        if (c->nadm == 0) return;
        csd_core_view cv;
        view_fill(e, c, &cv);
        csd_stage_choice ch = e->rst->decide(e->rs_state, &cv);
        e->st.stage_decisions++;
        uint64_t qleft = c->Q > c->inflight ? c->Q - c->inflight : 0;
        sub *s = ch.idx < c->nadm ? (sub *)c->adm[ch.idx] : NULL;
        if (ch.stage == CSD_STAGE_S && (!s || qleft < s->v.unit || !csd_sreq_sendable(&s->v)))
            ch.stage = CSD_STAGE_WAIT;
        if (ch.stage == CSD_STAGE_P && (!s || !csd_sreq_ready(&s->v))) ch.stage = CSD_STAGE_WAIT;
        if (ch.stage == CSD_STAGE_WAIT && c->inflight == 0) {
            /* nothing in flight would wake this core: do the first thing that can be done */
            for (size_t i = 0; i < c->nadm && ch.stage == CSD_STAGE_WAIT; i++) {
                const csd_sreq *v = c->adm[i];
                if (qleft >= v->unit && csd_sreq_sendable(v)) ch = (csd_stage_choice){ CSD_STAGE_S, i, qleft };
            }
            for (size_t i = 0; i < c->nadm && ch.stage == CSD_STAGE_WAIT; i++)
                if (csd_sreq_ready(c->adm[i])) ch = (csd_stage_choice){ CSD_STAGE_P, i, 0 };
            s = ch.stage != CSD_STAGE_WAIT ? (sub *)c->adm[ch.idx] : NULL;
            if (s) e->st.stage_forced++;
        }
        if (ch.stage == CSD_STAGE_S) {
            uint64_t can = csd_sreq_sendable(&s->v), n = ch.pages ? ch.pages : can;
            if (n > can) n = can;
            if (n > qleft) n = qleft;
            do_send(e, c, s, n);
            return;
        }
        if (ch.stage == CSD_STAGE_P) {
            if (do_process(e, c, s)) return;
            continue;
        }
        return;
    }
}

static void stage_send_done(csd_engine *e, core *c) {
    (void)e;
    if (c->slot_sub) c->slot_sub->v.core_ns += c->dur;
    c->slot_sub = NULL;
}

static void stage_page_done(csd_engine *e, core *c, csd_isp_req *r, uint64_t rel) {
    sub *s = &r->subs[r->core_of[rel]];
    c->slot_sub = NULL;
    s->v.P++;
    s->v.core_ns += c->dur;
    sub_settle(e, s);
    core_assert(e, &e->cores[s->core]);
}

/* ---- the model ------------------------------------------------------------------------------ */

/* a core has at most Q pages (so at most Q flash requests) out */
static uint64_t stage_pool(const csd_engine *e) { return e->quota_sum; }

static void stage_start(csd_engine *e, csd_isp_req *r) { csd_eng_kick(e); }

static void stage_room(csd_engine *e) {}   /* stage S issues, when a core decides to */

const csd_issue_model csd_issue_stage = {
    .name = "stage", .init = stage_init, .free = stage_free, .pool = stage_pool, .submit = stage_submit,
    .start = stage_start, .req_free = stage_req_free, .serve = stage_serve, .room = stage_room,
    .page_done = stage_page_done, .send_done = stage_send_done, .dropped = stage_dropped,
    .remove = stage_remove, .resize = stage_resize, .check = stage_check,
};
