/* The map-cached FTL (ftl = dftl, DRS paper II-A): randomized write / trim / read / delete sequences
 * with garbage collection and a tiny map cache against an in-memory reference; after every operation
 * the cached map and the flash map pages agree with the FTL's map (csd_ftl_map_check), and after a
 * clean reopen too. Small hand-checked cases: which operations a hit, a miss, a dirty eviction with
 * batch update, and a delayed request produce. The map pages' RAM shadow: a map page changed on the
 * image behind the FTL's back fails the check, at the byte that differs. */
#include "check.h"
#include "ftl/ftl.h"
#include "ftl/ftl_int.h"
#include "store/store.h"

#include <errno.h>

#define CAP (256u * 1024u)
#define NOBJ 4
#define MAXP 20

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void agree(csd_ftl *f, const char *when, int k) {
    char e[256] = "";
    int rc = csd_ftl_map_check(f, e, sizeof e);
    if (rc) fprintf(stderr, "%s (op %d): %s\n", when, k, e);
    CHECK_EQ_INT(rc, 0);
}

static void open_dftl(const char *img, uint64_t cache_bytes, uint32_t line, csd_ftl **f, csd_params *p) {
    CHECK(csd_params_preset(p, "tiny") == 0);
    snprintf(p->ftl, sizeof p->ftl, "dftl");
    p->map_cache_bytes = cache_bytes;
    p->map_cache_line_entries = line;
    char err[256];
    CHECK(csd_ftl_format(img, CAP, p, err, sizeof err) == 0);
    CHECK(csd_ftl_open(f, img, p, err, sizeof err) == 0);
}

typedef struct ref { uint64_t id; uint64_t size; uint8_t *data; int live; } ref;

static void randomized(const char *img) {
    csd_ftl *f;
    csd_params p;
    open_dftl(img, 128, 4, &f, &p);   /* 4 lines of 4 entries */
    const uint32_t pb = p.page_bytes;
    ref r[NOBJ] = { 0 };
    uint8_t *buf = malloc((size_t)MAXP * pb), *got = malloc((size_t)MAXP * pb);
    CHECK(buf && got);
    uint64_t s = 12345;
    char name[32];
    int made = 0;
    uint64_t gc_runs = 0;
    for (int k = 0; k < 4000; k++) {
        int t = (int)(rnd(&s) % NOBJ);
        ref *o = &r[t];
        if (!o->live) {
            snprintf(name, sizeof name, "o%d", made++);
            CHECK_EQ_INT(csd_ftl_obj_create(f, name, &o->id), 0);
            o->live = 1;
            o->size = 0;
            free(o->data);
            o->data = calloc(MAXP, pb);
            continue;
        }
        int what = (int)(rnd(&s) % 10);
        if (what < 5) {   /* write whole pages at a page offset inside or at the end */
            uint64_t np = (o->size + pb - 1) / pb;
            uint64_t at = rnd(&s) % (np + 1), n = 1 + rnd(&s) % 4;
            if (at + n > MAXP) n = MAXP - at;
            if (!n) continue;
            for (uint64_t i = 0; i < n * pb; i++) buf[i] = (uint8_t)rnd(&s);
            int rc = csd_ftl_write(f, o->id, at * pb, buf, n * pb, NULL);
            if (rc == -ENOSPC) continue;
            CHECK_EQ_INT(rc, 0);
            memcpy(o->data + at * pb, buf, n * pb);
            if ((at + n) * pb > o->size) o->size = (at + n) * pb;
        } else if (what < 7) {   /* trim */
            if (!o->size) continue;
            uint64_t np = o->size / pb, at = rnd(&s) % np, n = 1 + rnd(&s) % 3;
            if (at + n > np) n = np - at;
            CHECK_EQ_INT(csd_ftl_trim(f, o->id, at * pb, n * pb, NULL), 0);
            memset(o->data + at * pb, 0, n * pb);
        } else if (what < 9) {   /* read back everything */
            CHECK_EQ_INT(csd_ftl_read(f, o->id, 0, got, o->size, NULL), 0);
            CHECK(memcmp(got, o->data, o->size) == 0);
        } else if (rnd(&s) % 4 == 0) {
            CHECK_EQ_INT(csd_ftl_obj_delete(f, o->id), 0);
            o->live = 0;
        }
        agree(f, "after an operation", k);
        if (k % 500 == 499) {   /* a clean close flushes the cache; the map pages are found again */
            csd_ftl_counters c;
            csd_ftl_counters_get(f, &c);
            gc_runs += c.gc_runs;
            CHECK_EQ_INT(csd_ftl_close(f), 0);
            char err[256];
            CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
            agree(f, "after reopen", k);
            for (int i = 0; i < NOBJ; i++) {
                if (!r[i].live) continue;
                CHECK_EQ_INT(csd_ftl_read(f, r[i].id, 0, got, r[i].size, NULL), 0);
                CHECK(memcmp(got, r[i].data, r[i].size) == 0);
            }
        }
    }
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    gc_runs += c.gc_runs;
    CHECK(gc_runs > 50);   /* GC moved data and map pages under the cache */
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    CHECK_EQ_INT(csd_ftl_check(img, NULL, NULL), 0);
    for (int i = 0; i < NOBJ; i++) free(r[i].data);
    free(buf);
    free(got);
}

static size_t count(const csd_flash_batch *b, uint8_t role, uint8_t kind) {
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++) n += b->ops[i].role == role && b->ops[i].kind == kind && !b->ops[i].gc;
    return n;
}

/* Hand-checked command sets: 2 lines of 4 entries; tiny's 4 KiB map page holds 508 entries. */
static void command_sets(const char *img) {
    csd_ftl *f;
    csd_params p;
    open_dftl(img, 64, 4, &f, &p);
    uint8_t *pg = calloc(16, p.page_bytes);
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "a", &id), 0);
    csd_flash_batch b = { 0 };
    /* write pages 0..15 (lines 0..3, all in map page 0): lines 0 and 1 are fetched from nothing (no
     * map page yet: no MR); line 2 evicts line 0, dirty: map page 0 is written with lines 0 and 1
     * (batch update: one MP, no MR since there was no old page; both lines clean); line 2 is then
     * fetched from that page (MR); line 3 evicts line 1, clean: no program, and is fetched (MR) */
    CHECK_EQ_INT(csd_ftl_write(f, id, 0, pg, 16 * p.page_bytes, &b), 0);
    CHECK_EQ_U64(count(&b, CSD_ROLE_DATA, CSD_FLASH_PROGRAM), 16);
    CHECK_EQ_U64(count(&b, CSD_ROLE_CLF_MR, CSD_FLASH_READ), 2);
    CHECK_EQ_U64(count(&b, CSD_ROLE_DLE_MP, CSD_FLASH_PROGRAM), 1);
    CHECK_EQ_U64(count(&b, CSD_ROLE_DLE_MR, CSD_FLASH_READ), 0);
    uint64_t mp0 = 0;
    for (size_t i = 0; i < b.n; i++)
        if (b.ops[i].role == CSD_ROLE_DLE_MP) mp0 = b.ops[i].tag;
    agree(f, "after the first write", 0);
    /* read page 0: a miss; the victim (line 2, dirty) is written back with line 3 (MR old page, MP),
     * then line 0 is fetched (MR), then the data read */
    csd_flash_batch_clear(&b);
    CHECK_EQ_INT(csd_ftl_read(f, id, 0, pg, p.page_bytes, &b), 0);
    CHECK_EQ_U64(b.n, 4);
    CHECK_EQ_INT(b.ops[0].role, CSD_ROLE_DLE_MR);
    CHECK_EQ_INT(b.ops[1].role, CSD_ROLE_DLE_MP);
    CHECK_EQ_INT(b.ops[2].role, CSD_ROLE_CLF_MR);
    CHECK_EQ_INT(b.ops[3].role, CSD_ROLE_DATA);
    CHECK_EQ_U64(b.ops[3].set, 1);
    CHECK(b.ops[0].tag && b.ops[1].tag > b.ops[0].tag && b.ops[2].tag > b.ops[1].tag);
    /* its batch update reads map page 0, which the write's MP programmed: the set waits for that MP
     * if it is still in flight (DLE-delayed) */
    uint64_t w = 0;
    for (size_t i = 0; i < b.n; i++) {
        if (!b.ops[i].wait) continue;
        w = b.ops[i].wait;
        CHECK_EQ_INT(b.ops[i].wait_kind, CSD_DELAY_DLE);
    }
    CHECK_EQ_U64(w, mp0);
    uint64_t fill = b.ops[2].tag;
    /* read page 1: a hit on line 0, whose fetch is that MR: only the data read, delayed by it (CLF) */
    csd_flash_batch_clear(&b);
    CHECK_EQ_INT(csd_ftl_read(f, id, p.page_bytes, pg, p.page_bytes, &b), 0);
    CHECK_EQ_U64(b.n, 1);
    CHECK_EQ_INT(b.ops[0].role, CSD_ROLE_DATA);
    CHECK_EQ_U64(b.ops[0].wait, fill);
    CHECK_EQ_INT(b.ops[0].wait_kind, CSD_DELAY_CLF);
    /* read page 4: a miss; the LRU victim is line 3, cleaned by the batch update above: no program of
     * its own, but delayed by that MP (DLE); then line 1 is fetched */
    uint64_t mp = 0;
    csd_flash_batch_clear(&b);
    CHECK_EQ_INT(csd_ftl_read(f, id, 4 * p.page_bytes, pg, p.page_bytes, &b), 0);
    CHECK_EQ_U64(b.n, 2);   /* CLF MR + DR */
    CHECK_EQ_INT(b.ops[0].role, CSD_ROLE_CLF_MR);
    mp = b.ops[0].wait ? b.ops[0].wait : b.ops[1].wait;
    CHECK(mp != 0);
    CHECK_EQ_INT(b.ops[0].wait ? b.ops[0].wait_kind : b.ops[1].wait_kind, CSD_DELAY_DLE);
    agree(f, "after the reads", 0);
    /* the cache's counters over the sequence: the write's 16 updates (4 misses, one per line, 12
     * hits, one dirty eviction), then a miss with a dirty eviction, a hit, a miss with a clean one */
    csd_ftl_counters c;
    csd_ftl_counters_get(f, &c);
    CHECK_EQ_U64(c.map_misses, 4 + 1 + 0 + 1);
    CHECK_EQ_U64(c.map_hits, 12 + 0 + 1 + 0);
    CHECK_EQ_U64(c.map_evictions, 1 + 1);
    csd_flash_batch_free(&b);
    free(pg);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
}

/* Bad map-cache settings are refused with a reason. */
static void bad_settings(const char *img) {
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    char err[256] = "";
    CHECK_EQ_INT(csd_params_set(&p, "map_cache_line_entries", "0", err, sizeof err), 0);
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "map_cache_line_entries must be 1..4096");
    CHECK(csd_params_preset(&p, "tiny") == 0);
    CHECK_EQ_INT(csd_params_set(&p, "map_cache_bytes", "32", err, sizeof err), 0);   /* < one 8-entry line */
    CHECK_EQ_INT(csd_params_validate(&p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "map_cache_bytes must hold at least one cache line");
    CHECK(csd_params_preset(&p, "tiny") == 0);
    snprintf(p.ftl, sizeof p.ftl, "dftl");
    p.map_cache_line_entries = 1024;   /* a 4 KiB map page holds 509 entries */
    p.map_cache_bytes = 64u << 10;
    CHECK_EQ_INT(csd_ftl_format(img, CAP, &p, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "map_cache_line_entries must fit a map page");
}

/* The check compares each map page's shadow with its bytes on the image: one entry changed on the
 * image (24-byte header, entry 1 at bytes 32..39) is found at byte 32; put back, the check passes. */
static void shadow_vs_image(const char *img) {
    csd_ftl *f;
    csd_params p;
    open_dftl(img, 128, 4, &f, &p);   /* 4 lines of 4 entries */
    const uint32_t pb = p.page_bytes;
    uint8_t *page = calloc(1, pb), *orig = malloc(pb);
    CHECK(page && orig);
    uint64_t id;
    CHECK_EQ_INT(csd_ftl_obj_create(f, "s", &id), 0);
    for (uint64_t i = 0; i < 32; i++) {   /* 8 lines: lines 0..3 are evicted dirty into map page 0 */
        page[0] = (uint8_t)i;
        CHECK_EQ_INT(csd_ftl_write(f, id, i * pb, page, pb, NULL), 0);
    }
    agree(f, "shadow: written", 0);
    ftl_obj *mo = csd_objtab_by_id(&f->tab, f->hidden_id);
    CHECK(mo && mo->cap > 0 && map_is_data(mo->map[0]));
    uint64_t ppn = mo->map[0];
    CHECK_EQ_INT(csd_store_read_data(f->st, ppn, 0, orig, pb), 0);
    memcpy(page, orig, pb);
    page[32] ^= 1;
    CHECK_EQ_INT(csd_store_write_data(f->st, ppn, page), 0);
    char e[256] = "";
    CHECK_EQ_INT(csd_ftl_map_check(f, e, sizeof e), -EIO);
    CHECK_CONTAINS(e, "map page 0: shadow differs from the image at byte 32");
    CHECK_EQ_INT(csd_store_write_data(f->st, ppn, orig), 0);
    agree(f, "shadow: restored", 0);
    for (uint64_t i = 0; i < 32; i++) {   /* every page reads back through the cache and the shadow */
        CHECK_EQ_INT(csd_ftl_read(f, id, i * pb, page, pb, NULL), 0);
        CHECK_EQ_INT(page[0], (int)i);
    }
    agree(f, "shadow: read back", 0);
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    free(page);
    free(orig);
}

int main(void) {
    const char *dir = csd_test_dir("test_dftl");
    char img[4200];
    snprintf(img, sizeof img, "%s/dftl.img", dir);
    bad_settings(img);
    command_sets(img);
    randomized(img);
    shadow_vs_image(img);
    unlink(img);
    rmdir(dir);
    TEST_OK("test_dftl");
}
