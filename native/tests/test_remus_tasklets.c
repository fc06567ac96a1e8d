/* The REMUS paper's STAT and KNN tasklets (stats, knn) through the tasklet runtime, against results
 * computed here independently (scanning the same bytes), plus their parameter errors and the cost
 * they charge per 4 KiB page (the paper's c_i ranges at 1 cycle = 1 ns: STAT 1-4 us, KNN 12-14). */
#include "check.h"
#include "runtime/exec.h"
#include "smartssd/v1/device.pb-c.h"

#include <errno.h>
#include <math.h>

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct run {
    csd_outbuf out;
    csd_exec *t;
    uint64_t cycles;
} run;

static int start(run *r, const char *name, const char *const *kv, char *err, size_t errlen) {
    csd_kv ps[8];
    size_t n = 0;
    static char keys[8][32];
    for (; kv && kv[n]; n++) {
        const char *eq = strchr(kv[n], '=');
        snprintf(keys[n], sizeof keys[n], "%.*s", (int)(eq - kv[n]), kv[n]);
        ps[n] = (csd_kv){ keys[n], eq + 1 };
    }
    csd_tasklet_args a = { .static_params = ps, .n_static = n, .page_bytes = 4096 };
    csd_outbuf_init(&r->out, 1 << 20, 0);
    r->cycles = 0;
    return csd_exec_create(&r->t, csd_tasklet_find(name), &a, &r->out, err, errlen);
}

/* feed the bytes page by page; returns the max cycles charged for one full page */
static uint64_t feed_all(run *r, const uint8_t *data, uint64_t size) {
    char err[256] = "";
    uint64_t first, last, worst = 0;
    CHECK_EQ_INT(csd_exec_begin(r->t, size, 0, size, 4096, &first, &last, err, sizeof err), 0);
    for (uint64_t p = first; p <= last; p++) {
        csd_cost c = { 0, 0 };
        int more = 0;
        uint64_t n = size - p * 4096 < 4096 ? size - p * 4096 : 4096;
        CHECK_EQ_INT(csd_exec_feed(r->t, p, data + p * 4096, n, &c, &more), 0);
        if (c.cycles > worst) worst = c.cycles;
        CHECK_EQ_U64(c.dram_accesses, 0);
    }
    csd_cost c = { 0, 0 };
    CHECK_EQ_INT(csd_exec_finish(r->t, &c), 0);
    return worst;
}

static void end(run *r) {
    csd_exec_destroy(r->t);
    csd_outbuf_free(&r->out);
}

/* the output rows (varint length + smartssd.v1.Row): ints and doubles, up to 5 values a row */
static size_t rows_of(run *r, int64_t vals[][5], double dvals[][5], size_t max) {
    const uint8_t *p = r->out.data, *e = r->out.data + r->out.len;
    size_t n = 0;
    while (p < e && n < max) {
        uint64_t len = 0;
        int sh = 0;
        while (*p & 0x80) len |= (uint64_t)(*p++ & 0x7f) << sh, sh += 7;
        len |= (uint64_t)*p++ << sh;
        Smartssd__V1__Row *row = smartssd__v1__row__unpack(NULL, len, p);
        CHECK(row);
        for (size_t k = 0; k < row->n_values && k < 5; k++) {
            vals[n][k] = row->values[k]->v_case == SMARTSSD__V1__VALUE__V_I ? row->values[k]->i : INT64_MIN;
            dvals[n][k] = row->values[k]->v_case == SMARTSSD__V1__VALUE__V_D ? row->values[k]->d : NAN;
        }
        smartssd__v1__row__free_unpacked(row, NULL);
        p += len;
        n++;
    }
    return n;
}

static void test_stats(void) {
    enum { RECS = 3000 };   /* 48000 bytes: 11 full pages and a partial one */
    static uint8_t data[RECS * 16];
    int64_t mn[4], mx[4], sum[4] = { 0 };
    for (int c = 0; c < 4; c++) mn[c] = INT64_MAX, mx[c] = INT64_MIN;
    uint64_t s = 3;
    for (int i = 0; i < RECS * 4; i++) {
        int32_t v = (int32_t)(rng(&s) % 2000001) - 1000000;
        memcpy(data + 4 * i, &v, 4);
        int c = i % 4;
        if (v < mn[c]) mn[c] = v;
        if (v > mx[c]) mx[c] = v;
        sum[c] += v;
    }
    run r;
    char err[256] = "";
    static const char *const kv[] = { "record_bytes=16", NULL };
    CHECK_EQ_INT(start(&r, "stats", kv, err, sizeof err), 0);
    uint64_t page = feed_all(&r, data, sizeof data);
    /* 256 records x (4 + 4 columns x 3) cycles = 4096 ns per page: STAT's 1-4 us */
    CHECK_EQ_U64(page, 4096);
    int64_t v[8][5];
    double d[8][5];
    CHECK_EQ_U64(rows_of(&r, v, d, 8), 4);
    for (int c = 0; c < 4; c++) {
        CHECK_EQ_INT(v[c][0], c);
        CHECK_EQ_INT(v[c][1], RECS);
        CHECK_EQ_INT(v[c][2], mn[c]);
        CHECK_EQ_INT(v[c][3], mx[c]);
        CHECK_EQ_INT(v[c][4], sum[c]);
    }
    end(&r);
    static const char *const bad[] = { "record_bytes=10", NULL };
    CHECK_EQ_INT(start(&r, "stats", bad, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "multiple of 4");
    csd_outbuf_free(&r.out);
}

static void test_knn(void) {
    enum { RECS = 700, DIMS = 16, K = 5 };
    static float pts[RECS][DIMS];
    uint64_t s = 9;
    for (int i = 0; i < RECS; i++)
        for (int j = 0; j < DIMS; j++) pts[i][j] = (float)((double)(rng(&s) % 2000) / 1000.0 - 1.0);
    const float q[4] = { 0.5f, -0.25f, 0.125f, 1.0f };
    /* brute force: the K smallest squared distances, ties by offset */
    double dist[RECS];
    int order[RECS];
    for (int i = 0; i < RECS; i++) {
        double d2 = 0;
        for (int j = 0; j < DIMS; j++) {
            double x = (double)pts[i][j] - (j < 4 ? q[j] : 0);
            d2 += x * x;
        }
        dist[i] = d2;
        order[i] = i;
    }
    for (int i = 0; i < K; i++)
        for (int j = i + 1; j < RECS; j++)
            if (dist[order[j]] < dist[order[i]] || (dist[order[j]] == dist[order[i]] && order[j] < order[i])) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    run r;
    char err[256] = "";
    static const char *const kv[] = { "dims=16", "k=5", "query=0.5,-0.25,0.125,1", NULL };
    CHECK_EQ_INT(start(&r, "knn", kv, err, sizeof err), 0);
    uint64_t page = feed_all(&r, (const uint8_t *)pts, sizeof pts);
    /* 64 records x (4 + 16 x 12) = 12544 cycles plus the inserts: KNN's 12-14 us */
    CHECK(page >= 12544 && page <= 14000);
    int64_t v[8][5];
    double d[8][5];
    CHECK_EQ_U64(rows_of(&r, v, d, 8), K);
    for (int i = 0; i < K; i++) {
        CHECK_EQ_INT(v[i][0], order[i] * DIMS * 4);
        CHECK(fabs(d[i][1] - dist[order[i]]) < 1e-9);
    }
    end(&r);
    static const char *const bad[] = { "dims=2", "query=1,2,3", NULL };
    CHECK_EQ_INT(start(&r, "knn", bad, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "up to 2 comma-separated numbers");
    csd_outbuf_free(&r.out);
    static const char *const bad2[] = { "k=0", NULL };
    CHECK_EQ_INT(start(&r, "knn", bad2, err, sizeof err), -EINVAL);
    csd_outbuf_free(&r.out);
}

int main(void) {
    test_stats();
    test_knn();
    TEST_OK("test_remus_tasklets");
}
