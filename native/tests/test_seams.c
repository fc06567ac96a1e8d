/* Every registered policy of every seam through the same randomized scenario, its invariants checked;
 * a policy added to a registry is in these runs with nothing else to write.
 *   request scheduling, batch and stage tables (sched/registry.c): one scenario of random request
 *     mixes on random small devices, here; the stage table also in test_sched_random (thousands of
 *     mixes, every adaptation);
 *   mapping (ftl/map_registry.c) and placement (ftl/place_registry.c): one storage scenario, here;
 *     placement also in test_hybrid (wear and migration on SLC/TLC devices);
 *   flash-command scheduling (flash/fcmd_registry.c) and chip scheduling (flash/chip_registry.c):
 *     every pair through one scenario of random flash operations, here; flash-command schedulers also
 *     in test_fcmd (host requests through a map-cached FTL), chip policies also in test_chip_sched
 *     (two-stage answers under each, starvation bounds).
 * And every registry itself: names unique, each found by its name. */
#include "check.h"
#include "engine/engine.h"
#include "flash/flash.h"
#include "ftl/ftl.h"
#include "ftl/map.h"
#include "ftl/place.h"
#include "lib/synth.h"
#include "sched/sched.h"
#include "sched_names.h"
#include "sim/sim.h"

#include <errno.h>
#include <inttypes.h>


/* ---- the registries -------------------------------------------------------------------------- */

#define REGISTRY_OK(at, find)                                                                       \
    do {                                                                                            \
        size_t n_ = 0;                                                                              \
        for (; at(n_); n_++) {                                                                      \
            CHECK(find(at(n_)->name) == at(n_));                                                    \
            for (size_t k_ = 0; k_ < n_; k_++) CHECK(strcmp(at(k_)->name, at(n_)->name) != 0);     \
        }                                                                                           \
        CHECK(n_ > 0 && find("no-such-policy") == NULL && find(NULL) == NULL);                      \
    } while (0)

static void registries(void) {
    REGISTRY_OK(csd_req_batch_at, csd_req_batch_find);
    REGISTRY_OK(csd_req_stage_at, csd_req_stage_find);
    REGISTRY_OK(csd_map_at, csd_map_find);
    REGISTRY_OK(csd_place_at, csd_place_find);
    REGISTRY_OK(csd_fcmd_at, csd_fcmd_find);
    REGISTRY_OK(csd_chip_sched_at, csd_chip_sched_find);
}

/* ---- request scheduling: random request mixes --------------------------------------------------
 * Requests that only cost c_i per page (bench/lib/synth.h) arrive at random times on a random small
 * device. Whatever the policy: every request finishes without failing, each page is read once (a
 * multi-plane read brings up to N_pl), the cores' time is exactly the work given plus T_s per flash
 * read, the ISP buffer is never over-committed, no request ends before one read and one page of its
 * work after it arrived, the cores together do no more than one thing at a time each, and the same
 * mix runs the same to the nanosecond. Under stage issue the engine's own invariants (constraints
 * (1)-(3), buffers, counters) are checked after every event too. */
static void request_mix(const char *model, const char *policy, uint64_t seed) {
    const int stage = !strcmp(model, "stage");
    csd_params p;
    sched_random_device(&p, &seed, stage);
    snprintf(p.request_scheduler, sizeof p.request_scheduler, "%s", policy);
    p.isp_batch_pages = (uint32_t)sched_pick(&seed, 1, 8);
    csd_synth_req reqs[8];
    const size_t n = (size_t)sched_pick(&seed, 1, 8);
    uint64_t work = 0, pages = 0;
    for (size_t i = 0; i < n; i++) {
        reqs[i] = (csd_synth_req){ .ci_ns = sched_pick(&seed, 0, 6000), .pages = sched_pick(&seed, 1, 24),
                                   .lba_page = sched_pick(&seed, 0, 200),
                                   .arrive_ns = sched_rng(&seed) % 3 ? 0 : sched_pick(&seed, 0, 40000) };
        work += reqs[i].pages * reqs[i].ci_ns;
        pages += reqs[i].pages;
    }
    csd_synth_result a, b;
    char err[256] = "";
    int rc = csd_synth_run(&p, reqs, n, stage, NULL, NULL, &a, err, sizeof err);
    if (rc) fprintf(stderr, "%s %s, seed %" PRIu64 ": %s\n", model, policy, seed, err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_U64(a.core_busy_ns, work + a.flash_reads * p.isp_send_ns);
    CHECK(a.buffer_peak_bytes <= p.isp_buffer_bytes);
    CHECK(a.flash_reads <= pages && a.flash_reads * p.planes_per_die >= pages);
    if (!stage) CHECK_EQ_U64(a.flash_reads, pages);   /* batch issue reads page by page */
    CHECK(a.makespan_ns * p.cores >= work);
    for (size_t i = 0; i < n; i++) CHECK(a.finish_ns[i] >= reqs[i].arrive_ns + p.t_read_ns + reqs[i].ci_ns);
    CHECK_EQ_INT(csd_synth_run(&p, reqs, n, 0, NULL, NULL, &b, err, sizeof err), 0);
    CHECK_EQ_U64(b.makespan_ns, a.makespan_ns);
    for (size_t i = 0; i < n; i++) CHECK_EQ_U64(b.finish_ns[i], a.finish_ns[i]);
    csd_synth_result_free(&a);
    csd_synth_result_free(&b);
}

static void request_scheduling(void) {
    enum { MIXES = 150 };
    size_t runs = 0;
    for (size_t i = 0; csd_req_batch_at(i); i++, runs++)
        for (uint64_t m = 0; m < MIXES; m++) request_mix("batch", csd_req_batch_at(i)->name, 1000 + m);
    for (size_t i = 0; csd_req_stage_at(i); i++, runs++)
        for (uint64_t m = 0; m < MIXES; m++) request_mix("stage", csd_req_stage_at(i)->name, 1000 + m);
    printf("request scheduling: %zu policies x %d mixes\n", runs, MIXES);
}

/* ---- mapping and placement: one storage scenario ------------------------------------------------
 * Objects created, written (appended and overwritten, with a level hint), trimmed and deleted at
 * random on a small device with SLC-mode blocks, until garbage collection has run many times. Whatever
 * the mapping or placement policy: every read returns what the in-memory reference holds, the map's
 * own consistency check passes after every step, an object's size is what was written, the P/E
 * counts add up to the erases performed (per region too), and after a close the data reads back the
 * same and the offline checker finds nothing wrong, with the object table full (max_objects user
 * objects; the policy's own, dftl's map pages, do not count). */
typedef struct obj_ref { uint64_t id; uint8_t *data; uint64_t size; int live; char name[16]; } obj_ref;

static void verify(csd_ftl *f, obj_ref *r, int n, const char *what) {
    static uint8_t b[16 * 4096];
    for (int i = 0; i < n; i++) {
        if (!r[i].live) continue;
        csd_obj_info info;
        CHECK_EQ_INT(csd_ftl_obj_stat(f, r[i].id, &info), 0);
        CHECK_EQ_U64(info.size, r[i].size);
        CHECK_EQ_INT(csd_ftl_read(f, r[i].id, 0, b, r[i].size, NULL), 0);
        if (memcmp(b, r[i].data, r[i].size)) fprintf(stderr, "%s: object %d reads back wrong\n", what, i);
        CHECK(!memcmp(b, r[i].data, r[i].size));
    }
}

static void storage_run(const char *dir, const char *ftl, const char *placement, uint64_t seed) {
    enum { NOBJ = 6, MAXP = 12, PB = 4096 };
    char what[64], img[4200], err[512] = "";
    snprintf(what, sizeof what, "ftl %s, placement %s", ftl, placement);
    snprintf(img, sizeof img, "%s/storage-%s-%s.img", dir, ftl, placement);
    csd_params p;
    CHECK(csd_params_preset(&p, "hybrid") == 0);
    p.channels = 2;
    p.chips_per_channel = 1;
    p.page_bytes = PB;
    p.pages_per_block = 12;
    p.slc_pages_per_block = 4;
    p.blocks_per_plane = 0;           /* derived: as few blocks as the capacity needs, so GC moves pages */
    p.slc_share_pct = 25;
    p.gc_free_pct = 0;
    p.gc_free_blocks_min = 2;
    p.isp_buffer_bytes = 1 << 20;
    p.map_cache_bytes = 256;          /* a map cache of 8 lines of 4 entries: map pages come and go */
    p.map_cache_line_entries = 4;
    p.max_objects = NOBJ + 1;         /* full at the end: a policy's own objects are beyond it */
    snprintf(p.ftl, sizeof p.ftl, "%s", ftl);
    snprintf(p.placement, sizeof p.placement, "%s", placement);
    int rc = csd_ftl_format(img, 96 * PB, &p, err, sizeof err);
    if (rc) fprintf(stderr, "%s: format: %s\n", what, err);
    CHECK_EQ_INT(rc, 0);
    csd_ftl *f;
    CHECK_EQ_INT(csd_ftl_open(&f, img, NULL, err, sizeof err), 0);
    /* r[NOBJ] is cold: a page appended now and then among the others' writes, never changed after,
     * so the blocks it shares with them hold valid pages when GC takes them */
    obj_ref r[NOBJ + 1];
    memset(r, 0, sizeof r);
    for (int i = 0; i <= NOBJ; i++) snprintf(r[i].name, sizeof r[i].name, "o%d", i);
    obj_ref *cold = &r[NOBJ];
    CHECK_EQ_INT(csd_ftl_obj_create(f, cold->name, &cold->id), 0);
    cold->live = 1;
    cold->data = calloc(MAXP * PB, 1);
    static uint8_t buf[MAXP * PB];
    uint64_t trims = 0, deletes = 0;
    for (int step = 0; step < 2500; step++) {
        if (cold->size < MAXP * PB && sched_rng(&seed) % 40 == 0) {
            for (uint64_t j = 0; j < PB; j++) buf[j] = (uint8_t)sched_rng(&seed);
            CHECK_EQ_INT(csd_ftl_write_hint(f, cold->id, cold->size, buf, PB, 4, NULL), 0);
            memcpy(cold->data + cold->size, buf, PB);
            cold->size += PB;
        }
        obj_ref *o = &r[sched_rng(&seed) % NOBJ];
        if (!o->live) {
            CHECK_EQ_INT(csd_ftl_obj_create(f, o->name, &o->id), 0);
            o->live = 1;
            o->data = calloc(MAXP * PB, 1);
            o->size = 0;
            continue;
        }
        uint64_t op = sched_rng(&seed) % 20;
        if (op < 14) {   /* write: append or overwrite, with a level hint */
            uint64_t off = sched_rng(&seed) % (o->size + 1), len = 1 + sched_rng(&seed) % (3 * PB);
            if (off + len > MAXP * PB) len = MAXP * PB - off;
            if (!len) continue;
            for (uint64_t j = 0; j < len; j++) buf[j] = (uint8_t)sched_rng(&seed);
            rc = csd_ftl_write_hint(f, o->id, off, buf, len, (uint32_t)(sched_rng(&seed) % 5), NULL);
            if (rc) fprintf(stderr, "%s: step %d: write: %d\n", what, step, rc);
            CHECK_EQ_INT(rc, 0);
            memcpy(o->data + off, buf, len);
            if (off + len > o->size) o->size = off + len;
        } else if (op < 18) {   /* trim: the whole pages inside a range read as zeros */
            uint64_t off = sched_rng(&seed) % (o->size + 1), len = sched_rng(&seed) % (o->size - off + 1);
            CHECK_EQ_INT(csd_ftl_trim(f, o->id, off, len, NULL), 0);
            uint64_t end = off + len, lim = (end >= o->size ? (o->size + PB - 1) / PB * PB : end) / PB;
            for (uint64_t pg = (off + PB - 1) / PB; pg < lim; pg++) {
                uint64_t e = (pg + 1) * PB > o->size ? o->size : (pg + 1) * PB;
                memset(o->data + pg * PB, 0, e - pg * PB);
            }
            trims++;
        } else {
            CHECK_EQ_INT(csd_ftl_obj_delete(f, o->id), 0);
            free(o->data);
            o->data = NULL;
            o->live = 0;
            deletes++;
        }
        char e[256] = "";
        if (csd_ftl_map_check(f, e, sizeof e)) fprintf(stderr, "%s: step %d: %s\n", what, step, e);
        CHECK_EQ_INT(csd_ftl_map_check(f, e, sizeof e), 0);
        if (step % 250 == 0) verify(f, r, NOBJ + 1, what);
    }
    for (int i = 0; i < NOBJ; i++)
        if (!r[i].live) {
            CHECK_EQ_INT(csd_ftl_obj_create(f, r[i].name, &r[i].id), 0);
            r[i].live = 1;
            r[i].size = 0;
            r[i].data = calloc(MAXP * PB, 1);
        }
    uint64_t extra;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "one-more", &extra), -ENOSPC);
    verify(f, r, NOBJ + 1, what);
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK(c.gc_runs > 10 && c.gc_pages_moved > 0 && trims > 50 && deletes > 10);
    CHECK_EQ_U64(c.region_erases[0] + c.region_erases[1], c.flash_erases);
    CHECK_EQ_U64(c.region_programs[0] + c.region_programs[1], c.flash_programs);
    uint64_t pe = 0;
    for (uint64_t blk = 0; csd_ftl_block_erases(f, blk) != UINT32_MAX; blk++) pe += csd_ftl_block_erases(f, blk);
    CHECK_EQ_U64(pe, c.flash_erases);
    printf("%s: %" PRIu64 " host pages, GC %" PRIu64 " runs, %" PRIu64 " pages moved, %" PRIu64 " erases\n", what,
           c.host_pages_written, c.gc_runs, c.gc_pages_moved, c.flash_erases);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    CHECK_EQ_INT(csd_ftl_open(&f, img, NULL, err, sizeof err), 0);
    verify(f, r, NOBJ + 1, what);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    CHECK_EQ_INT(csd_ftl_check(img, NULL, NULL), 0);
    for (int i = 0; i <= NOBJ; i++) free(r[i].data);
    unlink(img);
}


/* ---- flash-command and chip scheduling: random flash operations ---------------------------------
 * Bursts of operations from every source arrive at random times on a small flash array: a tasklet
 * request's reads (an owner, a first-stage match, positions), host reads and programs (with the request
 * information the command-set schedulers read), garbage collection's reads, programs and erases, map
 * reads, and reordering requests; chip_queue_slots, chip_max_passes and flash_suspend drawn at random.
 * Whatever the pair of policies: every operation completes exactly once, no sooner than its own cell
 * time after it was submitted; the model's counters add up to what was submitted; every chip ends idle
 * with nothing queued; without suspension, the programs and erases one chip completes are at least the
 * later one's cell time apart (a chip's array does one thing at a time); and the same run completes
 * every operation at the same nanosecond. */
enum { FL_OPS = 1200, FL_OWNERS = 24 };
typedef struct fl_op { csd_flash_op op; uint64_t done_ns; int done; } fl_op;
typedef struct fl_world {
    csd_flash *f;
    csd_params p;
    fl_op *ops;
    size_t n;
    uint64_t seed;
    char owners[FL_OWNERS];
    uint8_t match[FL_OWNERS];
} fl_world;

static void fl_done(csd_flash_op *op, uint64_t t) {
    fl_op *o = (fl_op *)op;
    o->done++;
    o->done_ns = t;
}

static void fl_burst(csd_sim *sim, void *arg) {
    fl_world *w = arg;
    uint64_t *sd = &w->seed;
    uint32_t chips = w->p.channels * w->p.chips_per_channel;
    int what = (int)(sched_rng(sd) % 5), owner = (int)(sched_rng(sd) % FL_OWNERS);
    uint64_t k = sched_pick(sd, 1, 6);
    for (uint64_t i = 0; i < k && w->n < FL_OPS; i++) {
        fl_op *o = &w->ops[w->n++];
        uint32_t chip = (uint32_t)(sched_rng(sd) % chips);
        csd_addr a = { .channel = chip / w->p.chips_per_channel, .chip = chip % w->p.chips_per_channel,
                       .block = (uint32_t)(sched_rng(sd) % w->p.blocks_per_plane),
                       .page = (uint32_t)(sched_rng(sd) % w->p.pages_per_block) };
        uint8_t kind = CSD_FLASH_READ, src = CSD_SRC_ISP, type = CSD_REQ_NONE;
        if (what == 1) {   /* a host request: reads or programs */
            src = CSD_SRC_HOST;
            kind = owner % 2 ? CSD_FLASH_PROGRAM : CSD_FLASH_READ;
            type = kind == CSD_FLASH_READ ? CSD_REQ_READ : CSD_REQ_WRITE;
        } else if (what == 2) {   /* garbage collection: copies, then an erase */
            src = CSD_SRC_GC;
            kind = i + 1 == k ? CSD_FLASH_ERASE : i % 2 ? CSD_FLASH_PROGRAM : CSD_FLASH_READ;
        } else if (what == 3) {
            src = CSD_SRC_MAP;
        }
        uint64_t fot = k * csd_flash_op_ns(w->f, kind);
        o->op = (csd_flash_op){ .kind = kind, .src = src, .ppn = csd_ppn_encode(&w->p, &a),
                                .owner = &w->owners[owner], .req_id = (uint64_t)owner + 1,
                                .match = src == CSD_SRC_ISP ? w->match[owner] : 0,
                                .req_type = type, .req_pages = type ? k : 0,
                                .ri = { { type, fot }, { type, fot }, { type, fot } },
                                .done = fl_done, .arg = w };
        csd_flash_submit(w->f, &o->op);
    }
    if (what == 4) {   /* the first stage classified a page of owner's request */
        uint8_t m = (uint8_t)sched_pick(sd, CSD_MATCH_MISMATCHED, CSD_MATCH_MATCHED);
        if (m > w->match[owner]) w->match[owner] = m;
        csd_flash_reorder(w->f, &w->owners[owner], w->match[owner]);
    }
    if (w->n < FL_OPS) CHECK_EQ_INT(csd_sim_at(sim, csd_sim_now(sim) + sched_rng(sd) % 400000, fl_burst, w), 0);
}

static int u64_less(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* One run; the completion time of every operation into done_ns (FL_OPS entries). */
static void flash_run(const char *chip, const char *fcmd, uint64_t seed, uint64_t *done_ns) {
    char what[80], err[256];
    snprintf(what, sizeof what, "chip %s, flash %s", chip, fcmd);
    fl_world w;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(csd_params_preset(&w.p, "tiny"), 0);
    w.p.blocks_per_plane = 16;
    w.seed = seed;
    w.p.chip_queue_slots = (uint32_t)(sched_rng(&w.seed) % 3 * 4);         /* 0 (unlimited), 4 or 8 */
    w.p.chip_max_passes = (uint32_t)(sched_rng(&w.seed) % 4);
    w.p.flash_suspend = (uint32_t)(sched_rng(&w.seed) % 2);
    w.p.pm_bytes_per_s = 400000000;
    w.ops = calloc(FL_OPS, sizeof *w.ops);
    csd_sim *sim = csd_sim_create();
    CHECK(w.ops && sim);
    int rc = csd_flash_create_with(&w.f, &w.p, sim, csd_chip_sched_find(chip), csd_fcmd_find(fcmd), err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", what, err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(csd_sim_at(sim, 0, fl_burst, &w), 0);
    while (csd_sim_step(sim)) {}
    CHECK_EQ_U64(w.n, FL_OPS);
    uint64_t kinds[3] = { 0 };
    uint32_t chips = w.p.channels * w.p.chips_per_channel;
    uint64_t (*by_chip)[2] = calloc(FL_OPS, sizeof *by_chip);   /* (chip, completion), operation */
    size_t m = 0;
    for (size_t i = 0; i < w.n; i++) {
        fl_op *o = &w.ops[i];
        if (o->done != 1) fprintf(stderr, "%s: operation %zu completed %d times\n", what, i, o->done);
        CHECK_EQ_INT(o->done, 1);
        CHECK(o->done_ns >= o->op.submit_ns + csd_flash_cell_ns(&w.p, o->op.kind, o->op.ppn));
        kinds[o->op.kind == CSD_FLASH_READ ? 0 : o->op.kind == CSD_FLASH_PROGRAM ? 1 : 2]++;
        done_ns[i] = o->done_ns;
        if (o->op.kind != CSD_FLASH_READ) {   /* ends with its array time (a read goes on through the firmware) */
            by_chip[m][0] = (uint64_t)csd_flash_chip_of(w.f, &o->op) << 40 | o->done_ns;   /* < 2^40 ns here */
            by_chip[m++][1] = i;
        }
    }
    csd_flash_stats st;
    csd_flash_stats_get(w.f, &st);
    CHECK_EQ_U64(st.reads, kinds[0]);
    CHECK_EQ_U64(st.programs, kinds[1]);
    CHECK_EQ_U64(st.erases, kinds[2]);
    if (!w.p.flash_suspend) CHECK_EQ_U64(st.suspends, 0);
    for (uint32_t c = 0; c < chips; c++) {
        CHECK(csd_flash_chip_idle(w.f, c));
        CHECK_EQ_U64(csd_flash_chip_queued(w.f, c), 0);
    }
    if (!w.p.flash_suspend) {
        CHECK(w.ops[0].done_ns < (1ull << 40));
        qsort(by_chip, m, sizeof *by_chip, u64_less);
        for (size_t j = 1; j < m; j++) {
            if (by_chip[j][0] >> 40 != by_chip[j - 1][0] >> 40) continue;
            const fl_op *o = &w.ops[by_chip[j][1]];
            uint64_t gap = o->done_ns - w.ops[by_chip[j - 1][1]].done_ns;
            if (gap < csd_flash_cell_ns(&w.p, o->op.kind, o->op.ppn))
                fprintf(stderr, "%s: two operations on chip %llu end %llu ns apart\n", what,
                        (unsigned long long)(by_chip[j][0] >> 40), (unsigned long long)gap);
            CHECK(gap >= csd_flash_cell_ns(&w.p, o->op.kind, o->op.ppn));
        }
    }
    free(by_chip);
    csd_flash_destroy(w.f);
    csd_sim_destroy(sim);
    free(w.ops);
}

static void flash_scheduling(void) {
    uint64_t *a = calloc(FL_OPS, sizeof *a), *b = calloc(FL_OPS, sizeof *b);
    size_t runs = 0;
    for (size_t c = 0; csd_chip_sched_at(c); c++)
        for (size_t q = 0; csd_fcmd_at(q); q++, runs++) {
            uint64_t seed = 0x9e3779b97f4a7c15ull ^ (c * 131 + q * 7 + 1);
            flash_run(csd_chip_sched_at(c)->name, csd_fcmd_at(q)->name, seed, a);
            flash_run(csd_chip_sched_at(c)->name, csd_fcmd_at(q)->name, seed, b);
            CHECK(!memcmp(a, b, FL_OPS * sizeof *a));
        }
    printf("flash scheduling: %zu chip x flash-command policy pairs x %d operations\n", runs, FL_OPS);
    free(a);
    free(b);
}

static void mapping_and_placement(const char *dir) {
    for (size_t i = 0; csd_map_at(i); i++) storage_run(dir, csd_map_at(i)->name, "stripe", 21 + i);
    for (size_t i = 0; csd_place_at(i); i++) storage_run(dir, "page", csd_place_at(i)->name, 31 + i);
}

int main(void) {
    const char *dir = csd_test_dir("test_seams");
    registries();
    request_scheduling();
    flash_scheduling();
    mapping_and_placement(dir);
    rmdir(dir);
    TEST_OK("test_seams");
}
