/* bench_ahead: the device's cores on the host's cores. Eight tasklet requests at once (knn and stats
 * over 16-byte records, grep over text, two extents of each object per tasklet) on the engine alone,
 * over bytes held in memory, so the wall time is the engine's and the tasklets' own. Prints the
 * device time at the end, the pages fed ahead and a digest of every output byte: the first and the
 * last must not depend on THREADS (host_threads), and the wall time of the requests alone (submit to
 * the last event; the data's generation before is not in it).
 *   bench_ahead [THREADS [MIB]]   host_threads (default 1), MiB of each object (default 64) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "host/settings.h"
#include "runtime/exec.h"
#include "smartssd/tasklet.h"
#include "tasklets/registry.h"

#define P 4096u

typedef struct object { const uint8_t *data; uint64_t size, pages, ppn0; } object;

static uint64_t obj_ppn(void *arg, uint64_t page) {
    object *o = arg;
    return page < o->pages ? o->ppn0 + page : CSD_PPN_NONE;
}
static int obj_read(void *arg, uint64_t ppn, uint8_t *buf) {
    object *o = arg;
    uint64_t k = ppn - o->ppn0, n = o->size - k * P < P ? o->size - k * P : P;
    memset(buf, 0, P);
    memcpy(buf, o->data + k * P, n);
    return 0;
}
static const uint8_t *obj_view(void *arg, uint64_t ppn, int *rc) {
    object *o = arg;
    *rc = 0;
    uint64_t k = ppn - o->ppn0;
    return (k + 1) * P <= o->size ? o->data + k * P : NULL;
}

static uint64_t digest(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv) {
    uint32_t threads = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1;
    uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 64;
    uint64_t size = mib << 20, s = 7;
    uint8_t *text = malloc(size), *recs = malloc(size);
    if (!text || !recs) return 1;
    for (uint64_t i = 0; i < size; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(s >> 33);
        text[i] = r % 61 == 0 ? '\n' : (uint8_t)('a' + r % 26);
        recs[i] = (uint8_t)(r >> 8);
    }
    object ot = { text, size, size / P, 0 }, orr = { recs, size, size / P, size / P };
    csd_params p;
    if (csd_params_preset(&p, "tiny")) return 1;   /* 4 KiB pages */
    p.blocks_per_plane = (uint32_t)(2 * size / P / 16 / 4 + 1);   /* room for both objects' ppns */
    p.cores = 2;
    p.isp_buffer_bytes = 1u << 20;
    p.isp_batch_pages = 32;
    CSD_HOST_THREADS(&p) = threads;
    char err[256] = "";
    csd_engine *e;
    if (csd_engine_create(&e, &p, err, sizeof err)) {
        fprintf(stderr, "engine: %s\n", err);
        return 1;
    }
    static const struct { const char *name; csd_kv kv; int recs; } KINDS[] = {
        { "knn", { "k", "8" }, 1 }, { "stats", { "record_bytes", "16" }, 1 }, { "grep", { "pattern", "abc" }, 0 },
        { "knn", { "k", "4" }, 1 },
    };
    enum { N = 8 };
    csd_outbuf out[N];
    csd_exec *t[N];
    csd_isp_work w[N];
    csd_page_source src[N];
    csd_isp_req *r[N];
    uint64_t h = 0xcbf29ce484222325ull;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < N; i++) {
        int k = i % 4;
        object *o = KINDS[k].recs ? &orr : &ot;
        csd_tasklet_args a = { .static_params = &KINDS[k].kv, .n_static = 1, .page_bytes = P };
        const csd_tasklet_ops *ops = csd_tasklet_find(KINDS[k].name);
        csd_outbuf_init(&out[i], 64u << 20, 0);
        if (!ops || csd_exec_create_hooked(&t[i], ops, csd_builtin_hooks_of(ops), NULL, &a, &out[i], err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", KINDS[k].name, err);
            return 1;
        }
        uint64_t half = size / 2, off = i < 4 ? 0 : half, first, last;
        if (csd_exec_begin(t[i], size, off, half, P, &first, &last, err, sizeof err)) return 1;
        w[i] = csd_exec_work(t[i]);
        src[i] = (csd_page_source){ o, obj_ppn, obj_read, obj_view, NULL };
        if (csd_engine_submit(e, &r[i], &w[i], &src[i], first, last, size / P - 1, P)) return 1;
    }
    while (csd_engine_step(e)) {}
    clock_gettime(CLOCK_MONOTONIC, &t1);
    csd_engine_stats st;
    csd_engine_stats_get(e, &st, NULL);
    for (int i = 0; i < N; i++) {
        csd_isp_progress pr;
        csd_engine_progress(e, r[i], &pr);
        if (!pr.finished || pr.status) {
            fprintf(stderr, "request %d: status %d %s\n", i, pr.status, csd_exec_error(t[i]));
            return 1;
        }
        h = digest(h, out[i].data, out[i].len);
        csd_engine_release(e, r[i]);
        csd_exec_destroy(t[i]);
        csd_outbuf_free(&out[i]);
    }
    printf("host_threads %u: device time %.6f s, %" PRIu64 " pages, %" PRIu64 " fed ahead, output digest %016" PRIx64
           ", requests' wall %.3f s\n", threads, csd_engine_now(e) / 1e9, st.isp_pages, st.isp_pages_ahead, h,
           (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    csd_engine_destroy(e);
    free(text);
    free(recs);
    return 0;
}
