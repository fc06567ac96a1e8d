/* bench_remus_real: the REMUS policies under real tasklets, through the device's object commands
 * (the path Hadoop and Spark use): a ys9203 device holds an SQL table, a STAT data set and a KNN data
 * set; a `plan` filter (SQL), `stats` (STAT) and `knn` (KNN) run concurrently over the real bytes
 * under each request scheduler and adaptation. Prints CSV rows like bench_remus ("real,<mix>,0,<policy>,...") and,
 * on stderr, each application's measured core time per page (its c_i) and result digest; the
 * results must be the same under every policy (checked: exit 1 otherwise).
 *   bench_remus_real [DIR [MIB [THREADS]]]   DIR for the image (default /tmp), MIB of data in all (default
 *                                            48), host_threads for the runs (default 1; wall time only) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/devutil.h"
#include "host/settings.h"
#include "../tests/test_plan_build.h"

/* every baseline under both adaptations (baseline_adaptation), REMUS once (the same under both) */
static const struct run { const char *policy, *adapt; } RUNS[] = {
    { "fcfs", "shared-engine" }, { "cfs", "shared-engine" }, { "horae", "shared-engine" },
    { "serico", "shared-engine" }, { "remus", "shared-engine" },
    { "fcfs", "paper" }, { "cfs", "paper" }, { "horae", "paper" }, { "serico", "paper" },
};

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct app {
    const char *name;
    uint64_t obj, bytes;
    uint64_t tasklet, output;
    uint64_t device_ns, pages, rows, digest;
} app;

static void fill(csd_device *d, app *a, int kind, uint64_t seed) {
    uint8_t *buf = malloc(a->bytes);
    CHECK(buf);
    uint64_t s = seed;
    if (kind == 0) {            /* SQL: 64-byte rows (id int64, v int32 in 0..999, filler) */
        for (uint64_t r = 0; r < a->bytes / 64; r++) {
            uint8_t *row = buf + r * 64;
            memset(row, 'x', 64);
            int64_t id = (int64_t)r;
            memcpy(row, &id, 8);
            int32_t v = (int32_t)(rng(&s) % 1000);
            memcpy(row + 8, &v, 4);
        }
    } else if (kind == 1) {     /* STAT: 4 int32 columns */
        for (uint64_t i = 0; i < a->bytes / 4; i++) {
            int32_t v = (int32_t)(rng(&s) % 2000001) - 1000000;
            memcpy(buf + 4 * i, &v, 4);
        }
    } else {                    /* KNN: 16 float32 dims in [-1, 1) */
        for (uint64_t i = 0; i < a->bytes / 4; i++) {
            float v = (float)((double)(rng(&s) >> 11) / 4503599627370496.0 - 1.0);
            memcpy(buf + 4 * i, &v, 4);
        }
    }
    a->obj = dev_create_data(d, a->name);
    for (uint64_t off = 0; off < a->bytes; off += 4u << 20) {
        uint64_t n = a->bytes - off < (4u << 20) ? a->bytes - off : (4u << 20);
        dev_write(d, a->obj, off, buf + off, n);
    }
    free(buf);
}

static uint64_t create_tasklet(csd_device *d, int kind) {
    Smartssd__V1__Response *r;
    if (kind == 0) {
        /* SELECT id WHERE v < 100 */
        plan_b b;
        PB_init_fixed(&b, 64);
        PB_col(&b, C_fixed("id", SMARTSSD__V1__COLUMN_TYPE__INT64, 0, 8, 0, 1));
        PB_col(&b, C_fixed("v", SMARTSSD__V1__COLUMN_TYPE__INT64, 8, 4, 0, 1));
        b.p.filter = E_bin(OP(LT), E_col(1), E_lit(L_i(100)));
        PB_project(&b, E_col(0));
        r = dev_create_tasklet(d, "plan", NULL, &b.p);
        pb_free_all();
    } else if (kind == 1) {
        static const char *const kv[] = { "record_bytes=16", NULL };
        r = dev_create_tasklet(d, "stats", kv, NULL);
    } else {
        static const char *const kv[] = { "dims=16", "k=10", "query=0.1,0.2,0.3,0.4", NULL };
        r = dev_create_tasklet(d, "knn", kv, NULL);
    }
    if (r->status) fprintf(stderr, "create tasklet: %s\n", r->message);
    CHECK(r->status == 0);
    uint64_t id = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    return id;
}

/* FNV-1a over the result bytes: the same results give the same digest under every policy */
static uint64_t digest(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv) {
    (void)csd_check_failures;
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 48;
    uint32_t threads = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1;
    char image[4200], err[512];
    snprintf(image, sizeof image, "%s/remus-real.img", dir);
    unlink(image);
    csd_params p;
    CHECK(csd_params_preset(&p, "ys9203") == 0);
    if (csd_format(image, (mib * 4 + 64) << 20, &p, err, sizeof err)) {
        fprintf(stderr, "format: %s\n", err);
        return 1;
    }
    /* SQL : STAT : KNN = 3 : 2 : 1 of the data, as sizes of the paper's requests vary */
    app apps[3] = { { .name = "sql", .bytes = (mib << 20) / 2 }, { .name = "stat", .bytes = (mib << 20) / 3 },
                    { .name = "knn", .bytes = (mib << 20) / 6 } };
    for (int k = 0; k < 3; k++) apps[k].bytes -= apps[k].bytes % 4096;
    {
        csd_device *d;
        csd_open_opts o = { .background = 0 };
        if (csd_device_open(&d, image, &o, err, sizeof err)) {
            fprintf(stderr, "open: %s\n", err);
            return 1;
        }
        for (int k = 0; k < 3; k++) fill(d, &apps[k], k, 1000 + (uint64_t)k);
        CHECK(csd_device_close(d) == 0);
    }
    uint64_t ref[3] = { 0, 0, 0 };
    int bad = 0;
    for (size_t pi = 0; pi < sizeof RUNS / sizeof RUNS[0]; pi++) {
        csd_params ov = p;
        snprintf(ov.request_scheduler, sizeof ov.request_scheduler, "%s", RUNS[pi].policy);
        snprintf(ov.baseline_adaptation, sizeof ov.baseline_adaptation, "%s", RUNS[pi].adapt);
        CSD_HOST_THREADS(&ov) = threads;
        csd_device *d;
        csd_open_opts o = { .override = &ov, .background = 0 };
        if (csd_device_open(&d, image, &o, err, sizeof err)) {
            fprintf(stderr, "open: %s\n", err);
            return 1;
        }
        for (int k = 0; k < 3; k++) {
            apps[k].tasklet = create_tasklet(d, k);
            apps[k].output = dev_create_output(d, 0);
            apps[k].digest = 0xcbf29ce484222325ull;
            apps[k].rows = 0;
        }
        for (int k = 0; k < 3; k++) {
            Smartssd__V1__Response *r = dev_execute(d, apps[k].tasklet, apps[k].output, apps[k].obj, 0, 0, 1);
            if (r->status) fprintf(stderr, "execute: %s\n", r->message);
            CHECK(r->status == 0);
            smartssd__v1__response__free_unpacked(r, NULL);
        }
        /* poll every output until done; polling one advances all runs together */
        int left = 3;
        int done[3] = { 0, 0, 0 };
        while (left) {
            for (int k = 0; k < 3; k++) {
                if (done[k]) continue;
                Smartssd__V1__Response *r = dev_read(d, apps[k].output, 0, 1 << 20);
                CHECK(r->status == 0 && r->read_object && r->read_object->progress);
                Smartssd__V1__Progress *pr = r->read_object->progress;
                apps[k].digest = digest(apps[k].digest, r->read_object->data.data, r->read_object->data.len);
                if (pr->done) {
                    CHECK(pr->status == 0);
                    apps[k].device_ns = pr->device_ns;
                    apps[k].pages = pr->pages_done;
                    apps[k].rows = pr->rows;
                    done[k] = 1;
                    left--;
                }
                smartssd__v1__response__free_unpacked(r, NULL);
            }
        }
        uint64_t makespan = 0, bytes = 0;
        for (int k = 0; k < 3; k++) {
            if (apps[k].device_ns > makespan) makespan = apps[k].device_ns;
            bytes += apps[k].bytes;
            if (pi == 0) ref[k] = apps[k].digest;
            if (apps[k].digest != ref[k]) {
                fprintf(stderr, "%s %s: %s results differ from fcfs's\n", RUNS[pi].policy, RUNS[pi].adapt,
                        apps[k].name);
                bad = 1;
            }
            fprintf(stderr, "%s %s %s: %" PRIu64 " pages, %" PRIu64 " rows, done after %.3f ms, digest %016" PRIx64 "\n",
                    RUNS[pi].policy, RUNS[pi].adapt, apps[k].name, apps[k].pages, apps[k].rows, apps[k].device_ns / 1e6,
                    apps[k].digest);
        }
        /* the columns of bench_remus header */
        int copies = !strcmp(RUNS[pi].policy, "remus") ? 2 : 1;
        for (int c = 0; c < copies; c++)
            printf("real,SQL+STAT+KNN,0,%s,%s,%u,-,0,0,%" PRIu64 ",%" PRIu64 ",%.3f,0,0,0,0,0\n", RUNS[pi].policy,
                   copies > 1 ? (c ? "paper" : "shared-engine") : RUNS[pi].adapt, p.channels, makespan, bytes,
                   bytes * 1e3 / makespan);
        fflush(stdout);
        CHECK(csd_device_close(d) == 0);
    }
    unlink(image);
    return bad;
}
