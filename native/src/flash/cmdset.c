/* Command-set submission (cmdset.h). */
#include "flash/cmdset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct cset cset;

/* A tagged map command still in flight, and the sets waiting for it. */
typedef struct tagrec {
    uint64_t tag;
    cset *owner;
    size_t idx;              /* its position in the owner's commands */
    cset *waiters;
    struct tagrec *next;     /* hash chain */
} tagrec;

struct cset {
    csd_cmdset *cs;
    csd_hreq *r;
    csd_flash_req *reqs;     /* the set's commands in order (roles ascending, FTL order within) */
    csd_flash_op *ops;
    size_t n, cur;
    csd_req_info ri[3];
    uint64_t wait;
    uint8_t wait_kind;
    uint8_t started;
    cset *next_waiter;
    cset *next_in_req;
};

#define NBUCKETS 4096u

struct csd_cmdset {
    csd_flash *f;
    tagrec *bucket[NBUCKETS];
};

static tagrec *tag_find(csd_cmdset *cs, uint64_t tag) {
    for (tagrec *t = cs->bucket[tag % NBUCKETS]; t; t = t->next)
        if (t->tag == tag) return t;
    return NULL;
}

static void tag_remove(csd_cmdset *cs, tagrec *x) {
    for (tagrec **pp = &cs->bucket[x->tag % NBUCKETS]; *pp; pp = &(*pp)->next) {
        if (*pp == x) {
            *pp = x->next;
            return;
        }
    }
}

int csd_cmdset_create(csd_cmdset **out, csd_flash *f) {
    csd_cmdset *cs = calloc(1, sizeof *cs);
    if (!cs) return -ENOMEM;
    cs->f = f;
    *out = cs;
    return 0;
}

void csd_cmdset_destroy(csd_cmdset *cs) {
    if (!cs) return;
    for (uint32_t b = 0; b < NBUCKETS; b++) {
        while (cs->bucket[b]) {
            tagrec *t = cs->bucket[b];
            cs->bucket[b] = t->next;
            free(t);
        }
    }
    free(cs);
}

static void op_done(csd_flash_op *op, uint64_t t);

static void free_sets(csd_hreq *r) {
    for (cset *s = r->sets, *n; s; s = n) {
        n = s->next_in_req;
        free(s->reqs);
        free(s->ops);
        free(s);
    }
    r->sets = NULL;
}

static void req_op_done(csd_hreq *r, uint64_t t) {
    if (--r->left) return;
    r->done_ns = t;
    free_sets(r);
    if (r->done) r->done(r, t);
}

void csd_cmdset_forget(csd_cmdset *cs, csd_hreq *r) {
    (void)cs;
    free_sets(r);
}

static void submit_cur(cset *s) {
    csd_flash_req *q = &s->reqs[s->cur];
    csd_flash_op *op = &s->ops[s->cur];
    *op = (csd_flash_op){ .kind = q->kind, .src = q->role == CSD_ROLE_DATA ? CSD_SRC_HOST : CSD_SRC_MAP,
                          .ppn = q->ppn, .owner = s->r, .req_id = s->r->id, .role = q->role,
                          .req_type = s->r->type, .req_pages = s->r->pages, .done = op_done, .arg = s };
    memcpy(op->ri, s->ri, sizeof s->ri);
    csd_flash_submit(s->cs->f, op);
}

static void start(cset *s) {
    s->started = 1;
    if (s->n) submit_cur(s);
}

/* The set of a delayed request joins the delaying command's set (DRS V-C, equation 1): reqInfo[1]
 * takes CLF-delayed requests, reqInfo[2] every delayed one; a read wins over a write whatever its
 * FOT. */
static void join(cset *owner, const csd_req_info *mine, uint8_t kind) {
    int changed = 0;
    if (kind == CSD_DELAY_CLF && csd_req_info_better(mine, &owner->ri[1])) owner->ri[1] = *mine, changed = 1;
    if (csd_req_info_better(mine, &owner->ri[2])) owner->ri[2] = *mine, changed = 1;
    if (changed && owner->started && owner->cur < owner->n) {
        csd_flash_op *op = &owner->ops[owner->cur];
        memcpy(op->ri, owner->ri, sizeof owner->ri);
        csd_flash_requeue(owner->cs->f, op);
    }
}

static void op_done(csd_flash_op *op, uint64_t t) {
    cset *s = op->arg;
    csd_cmdset *cs = s->cs;
    csd_flash_req *q = &s->reqs[s->cur];
    if (s->r->op_done) s->r->op_done(s->r, op, t);
    /* Algorithm 2: past the batch update the DLE-delayed requests no longer depend on this set, past
     * the cache-line fetch nobody but its own request does */
    if (q->role == CSD_ROLE_DLE_MP) s->ri[2] = s->ri[1];
    else if (q->role == CSD_ROLE_CLF_MR) s->ri[2] = s->ri[1] = s->ri[0];
    cset *waiters = NULL;
    if (q->tag) {
        tagrec *tr = tag_find(cs, q->tag);
        if (tr) {
            waiters = tr->waiters;
            tag_remove(cs, tr);
            free(tr);
        }
    }
    s->cur++;
    csd_hreq *r = s->r;
    if (s->cur < s->n) submit_cur(s);
    else if (r->set_done) r->set_done(r, t);
    while (waiters) {
        cset *w = waiters;
        waiters = w->next_waiter;
        start(w);
    }
    req_op_done(r, t);   /* last: may free s */
}

size_t csd_cmdset_count(const csd_flash_batch *b) {
    size_t n = b ? b->n : 0, sets = 0, cap = 16;
    while (cap < 2 * n) cap <<= 1;
    uint64_t *h = n ? calloc(cap, sizeof *h) : NULL;
    for (size_t i = 0; i < n; i++) {
        const csd_flash_req *q = &b->ops[i];
        if (q->gc || !q->set) continue;
        if (!h) {   /* out of memory: a set per labelled command, an upper bound */
            sets++;
            continue;
        }
        size_t j = (size_t)(q->set * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
        while (h[j] && h[j] != q->set) j = (j + 1) & (cap - 1);
        if (!h[j]) sets++;
        h[j] = q->set;
    }
    free(h);
    return sets;
}

static uint64_t kind_ns(csd_cmdset *cs, const csd_flash_req *q) { return csd_flash_op_ns(cs->f, q->kind); }

static void gc_done(csd_flash_op *op, uint64_t t) {
    csd_hreq *r = op->owner;
    if (r->op_done) r->op_done(r, op, t);
    free(op);
    req_op_done(r, t);
}

int csd_cmdset_submit(csd_cmdset *cs, csd_hreq *r, const csd_flash_batch *b) {
    r->submit_ns = csd_flash_now(cs->f);
    r->sets = NULL;
    r->fot_ns = 0;
    memset(r->delayed, 0, sizeof r->delayed);
    r->left = 1;   /* held until every set is placed */
    cset *last = NULL;
    size_t n = b ? b->n : 0;
    /* group into sets by their page, in order of first appearance; GC commands stand alone. A
     * table from set to its commands keeps this linear in the batch (a put of a large object is one
     * batch). */
    size_t hcap = 16;
    while (hcap < 2 * n) hcap <<= 1;
    struct slot { uint64_t key; size_t cnt; cset *s; } *h = calloc(hcap, sizeof *h);
    if (!h) return -ENOMEM;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const csd_flash_req *q = &b->ops[i];
            if (q->gc || !q->set) continue;
            size_t j = (size_t)(q->set * 0x9e3779b97f4a7c15ull >> 17) & (hcap - 1);
            while (h[j].key && h[j].key != q->set) j = (j + 1) & (hcap - 1);
            h[j].key = q->set;
            if (pass == 0) {
                h[j].cnt++;
                continue;
            }
            cset *st = h[j].s;
            if (!st) {
                st = calloc(1, sizeof *st);
                if (st) st->reqs = calloc(h[j].cnt, sizeof *st->reqs);
                if (st) st->ops = calloc(h[j].cnt, sizeof *st->ops);
                if (!st || !st->reqs || !st->ops) {
                    if (st) {
                        free(st->reqs);
                        free(st->ops);
                        free(st);
                    }
                    free(h);
                    return -ENOMEM;   /* nothing submitted yet; the sets so far stay on r->sets */
                }
                st->cs = cs;
                st->r = r;
                if (last) last->next_in_req = st; else r->sets = st;
                last = st;
                h[j].s = st;
            }
            /* insertion by role, stable: map commands before the data command */
            size_t k = st->n++;
            while (k > 0 && st->reqs[k - 1].role > q->role) {
                st->reqs[k] = st->reqs[k - 1];
                k--;
            }
            st->reqs[k] = *q;
            if (q->wait && !st->wait) {
                st->wait = q->wait;
                st->wait_kind = q->wait_kind;
            }
        }
    }
    free(h);
    /* FOT (V-B-2): own commands, plus the delaying commands still ahead of each set's wait */
    for (cset *s = r->sets; s; s = s->next_in_req) {
        for (size_t i = 0; i < s->n; i++) r->fot_ns += kind_ns(cs, &s->reqs[i]);
        tagrec *tr = s->wait ? tag_find(cs, s->wait) : NULL;
        if (tr && tr->owner->r != r) {
            cset *o = tr->owner;
            for (size_t i = o->cur; i <= tr->idx && i < o->n; i++) r->fot_ns += kind_ns(cs, &o->reqs[i]);
        }
    }
    csd_req_info mine = { r->type, r->fot_ns };
    for (cset *s = r->sets; s; s = s->next_in_req) {
        s->ri[0] = s->ri[1] = s->ri[2] = mine;
        r->left += s->n;
        for (size_t i = 0; i < s->n; i++) {
            if (!s->reqs[i].tag) continue;
            tagrec *tr = calloc(1, sizeof *tr);
            if (!tr) return -ENOMEM;
            *tr = (tagrec){ .tag = s->reqs[i].tag, .owner = s, .idx = i, .next = cs->bucket[s->reqs[i].tag % NBUCKETS] };
            cs->bucket[tr->tag % NBUCKETS] = tr;
        }
    }
    /* place: a set whose delaying command is still in flight waits for it and joins its set */
    for (cset *s = r->sets; s; s = s->next_in_req) {
        tagrec *tr = s->wait ? tag_find(cs, s->wait) : NULL;
        if (tr && tr->owner != s) {
            if (tr->owner->r != r && s->wait_kind <= CSD_DELAY_DLE) r->delayed[s->wait_kind]++;
            s->next_waiter = tr->waiters;
            tr->waiters = s;
            join(tr->owner, &mine, s->wait_kind);
        } else {
            start(s);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const csd_flash_req *q = &b->ops[i];
        if (!q->gc && q->set) continue;
        csd_flash_op *op = calloc(1, sizeof *op);
        if (!op) return -ENOMEM;
        *op = (csd_flash_op){ .kind = q->kind, .src = q->gc ? CSD_SRC_GC : CSD_SRC_HOST, .ppn = q->ppn, .owner = r,
                              .req_id = r->id, .done = gc_done, .arg = r };
        r->left++;
        csd_flash_submit(cs->f, op);
    }
    if (--r->left == 0) {
        r->done_ns = r->submit_ns;
        if (r->done) r->done(r, r->submit_ns);
    }
    return 0;
}
