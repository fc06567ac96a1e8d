#include "host/bufpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct region {
    uint8_t *p;
    size_t m;                  /* mapped bytes (a multiple of min) */
    int huge;
} region;

struct csd_bufpool {
    pthread_mutex_t mu;
    region *r;                 /* kept regions */
    size_t n, cap;
    region *t;                 /* regions taken from r: their real size (larger than asked) */
    size_t nt, capt;
    size_t keep, min, kept, mapped;
    uint64_t hits, misses;
};

static size_t min_of(const csd_bufpool *bp) { return bp ? bp->min : CSD_BUFPOOL_MIN; }

static size_t round_up(size_t n, size_t min) { return (n + min - 1) / min * min; }

/* m bytes, with huge aligned to 2 MiB (the slack of the over-sized mapping given back); zeros */
static uint8_t *map_region(size_t m, int huge) {
    if (!huge) {
        uint8_t *p = mmap(NULL, m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    uint8_t *p = mmap(NULL, m + CSD_BUFPOOL_MIN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    uint8_t *a = (uint8_t *)(((uintptr_t)p + CSD_BUFPOOL_MIN - 1) & ~(uintptr_t)(CSD_BUFPOOL_MIN - 1));
    if (a > p) munmap(p, (size_t)(a - p));
    if (p + m + CSD_BUFPOOL_MIN > a + m) munmap(a + m, (size_t)(p + m + CSD_BUFPOOL_MIN - (a + m)));
    if (huge) (void)madvise(a, m, MADV_HUGEPAGE);   /* advice: without huge pages it is ordinary memory */
    return a;
}

csd_bufpool *csd_bufpool_new(size_t keep, size_t min) {
    if (!min || min % 4096) return NULL;
    csd_bufpool *bp = calloc(1, sizeof *bp);
    if (!bp) return NULL;
    bp->min = min;
    pthread_mutex_init(&bp->mu, NULL);
    bp->keep = keep;
    return bp;
}

void csd_bufpool_free(csd_bufpool *bp) {
    if (!bp) return;
    for (size_t k = 0; k < bp->n; k++) munmap(bp->r[k].p, bp->r[k].m);
    free(bp->r);
    free(bp->t);
    pthread_mutex_destroy(&bp->mu);
    free(bp);
}

void *csd_bufpool_get(csd_bufpool *bp, size_t n, int huge, int zero) {
    if (!n) n = 1;
    if (n < min_of(bp)) return zero ? calloc(n, 1) : malloc(n);
    size_t m = round_up(n, min_of(bp));
    if (m < n) return NULL;
    huge = huge ? 1 : 0;
    if (bp) {
        /* the smallest kept region of the same kind that holds n and is not more than twice its size
         * (a small request does not pin a large region) */
        pthread_mutex_lock(&bp->mu);
        size_t best = bp->n;
        for (size_t k = 0; k < bp->n; k++)
            if (bp->r[k].huge == huge && bp->r[k].m >= m && bp->r[k].m <= 2 * m &&
                (best == bp->n || bp->r[k].m < bp->r[best].m))
                best = k;
        if (best < bp->n && bp->r[best].m != m && bp->nt == bp->capt) {
            size_t cap = bp->capt ? 2 * bp->capt : 16;
            region *t = realloc(bp->t, cap * sizeof *t);
            if (t) {
                bp->t = t;
                bp->capt = cap;
            } else {
                best = bp->n;   /* cannot remember its size: a new region instead */
            }
        }
        if (best < bp->n) {
            region r = bp->r[best];
            bp->r[best] = bp->r[--bp->n];
            if (r.m != m) bp->t[bp->nt++] = r;
            bp->kept -= r.m;
            bp->hits++;
            pthread_mutex_unlock(&bp->mu);
            if (zero) memset(r.p, 0, n);
            return r.p;
        }
        bp->misses++;
        bp->mapped += m;
        pthread_mutex_unlock(&bp->mu);
    }
    uint8_t *p = map_region(m, huge);
    if (!p && bp) {
        pthread_mutex_lock(&bp->mu);
        bp->mapped -= m;
        pthread_mutex_unlock(&bp->mu);
    }
    return p;
}

void csd_bufpool_put(csd_bufpool *bp, void *p, size_t n, int huge) {
    if (!p) return;
    if (!n) n = 1;
    if (n < min_of(bp)) {
        free(p);
        return;
    }
    size_t m = round_up(n, min_of(bp));
    if (bp) {
        pthread_mutex_lock(&bp->mu);
        for (size_t k = 0; k < bp->nt; k++)
            if (bp->t[k].p == p) {
                m = bp->t[k].m;
                bp->t[k] = bp->t[--bp->nt];
                break;
            }
        if (bp->kept + m <= bp->keep) {
            if (bp->n == bp->cap) {
                size_t cap = bp->cap ? 2 * bp->cap : 16;
                region *r = realloc(bp->r, cap * sizeof *r);
                if (r) {
                    bp->r = r;
                    bp->cap = cap;
                }
            }
            if (bp->n < bp->cap) {
                bp->r[bp->n++] = (region){ p, m, huge ? 1 : 0 };
                bp->kept += m;
                pthread_mutex_unlock(&bp->mu);
                return;
            }
        }
        bp->mapped -= m;
        pthread_mutex_unlock(&bp->mu);
    }
    munmap(p, m);
}

void csd_bufpool_get_stats(csd_bufpool *bp, csd_bufpool_stats *out) {
    memset(out, 0, sizeof *out);
    if (!bp) return;
    pthread_mutex_lock(&bp->mu);
    out->hits = bp->hits;
    out->misses = bp->misses;
    out->kept = bp->kept;
    out->mapped = bp->mapped;
    pthread_mutex_unlock(&bp->mu);
}
