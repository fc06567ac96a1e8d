/* Crash safety: a child process runs a random sequence of creates, writes, overwrites, trims,
 * deletes and renames on an image and acknowledges each finished operation on a pipe; it is killed
 * with SIGKILL. The parent then checks the image (no problems), reopens it, and requires the state to
 * equal the reference after the last acknowledged operation or after the one in flight. It then keeps
 * working on the recovered device, closes, checks and reopens once more.
 *
 * Two ways to die:
 *  - timed: the parent sends SIGKILL after a random delay (what a user's kill -9 does);
 *  - at a write: this test interposes pwrite() and fallocate() (the library is linked statically, so
 *    these definitions win over libc's), and csd_store_record_tap(), which sees every write of OOB
 *    records through the store's mapping of them (store/oobmap.c), and the child kills itself just
 *    before, in the middle of (a torn write), or just after the K-th write of a chosen kind: any
 *    write, a metadata slot write, a garbage-collection copy's record, or an erase. That reaches every
 *    window, including the ones inside GC, deterministically. A record write through the mapping is
 *    torn as a kill between two of its stores leaves it: the records before the cut whole, the one at
 *    the cut without its first 8 bytes (stored last; an erase clears them first).
 *
 * A third set of runs uses a hybrid SLC/TLC device under placement "level" (docs/HYBRID.md) with
 * level-hinted writes, and dies at the K-th record of an SLC-to-TLC migration (a GC copy into a TLC
 * block whose source record is still in an SLC block): a crash in the middle of a migration. */
#include "check.h"
#include "ftl/ftl.h"
#include "store/oobmap.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define PB 4096u
#define CAPACITY (512u * 1024)   /* tiny preset: 128 logical pages, 256 physical: GC all the time */
#define BUDGET_PAGES 120u        /* the generator never needs more logical pages than this */
#define MAXO 8

/* ---------------------------------------------------------------- fault injection */

enum { W_ANY, W_META, W_OOB_GC, W_ERASE, W_MIGRATE, W_CLASSES };
static const char *const CLASS_NAME[] = { "any", "meta", "gc-record", "erase", "migration-record" };

/* 1 = the hybrid runs: the device of hybrid_params(), writes carry level hints */
static int g_hybrid;

/* tiny, with 4 of each plane's 16 blocks in SLC mode (8 pages each) and placement level; P/E limits
 * 18,000 vs 3,000 make phi = (8/16) x (4/12) x 6 = 1: SLC should take as many writes as TLC, so with
 * levels 0..3 drawn evenly the target level moves up and down and SLC GC migrates pages */
static void hybrid_params(csd_params *p) {
    CHECK(csd_params_preset(p, "tiny") == 0);
    p->slc_share_pct = 25;
    p->slc_pages_per_block = 8;
    p->blocks_per_plane = 16;
    p->pe_cycles_slc = 18000;
    p->pe_cycles_tlc = 3000;
    p->t_read_slc_ns = p->t_read_ns;
    p->t_prog_slc_ns = p->t_prog_ns;
    p->t_erase_slc_ns = p->t_erase_ns;
    snprintf(p->placement, sizeof p->placement, "level");
}

static void run_params(csd_params *p) {
    if (g_hybrid) hybrid_params(p);
    else CHECK(csd_params_preset(p, "tiny") == 0);
}

/* The mapping policy under test: a map-cached FTL keeps its map pages in a hidden object, which takes
 * the first object id. */
static const char *g_ftl = "page";
static uint64_t g_first_id = 1;

static void ftl_params(csd_params *p) {
    snprintf(p->ftl, sizeof p->ftl, "%s", g_ftl);
    p->map_cache_bytes = 512;          /* 16 lines of 4 entries: evictions on most ops */
    p->map_cache_line_entries = 4;
}

/* The map-cached FTL's cache and map pages agree with the recovered map. */
static void map_agrees(csd_ftl *f, const char *when) {
    char e[256] = "";
    int rc = csd_ftl_map_check(f, e, sizeof e);
    if (rc) fprintf(stderr, "%s: map check: %s\n", when, e);
    CHECK_EQ_INT(rc, 0);
}
enum { AT_BEFORE, AT_TORN, AT_AFTER };

static struct {
    int armed, cls, when, pipe_fd, fd;
    long countdown;
    csd_layout l;
    long writes;   /* pass-through count, to prove the interposition works */
    long taps;     /* record writes through the mapping, likewise */
} fault;

static void die_now(const char *what) {
    char msg[96];
    int n = snprintf(msg, sizeof msg, "K %s\n", what);
    if (write(fault.pipe_fd, msg, (size_t)n) < 0) _exit(9);
    raise(SIGKILL);
    _exit(9);
}

/* Is the version r names still recorded in an SLC-mode block (the source of a migration)? Reads the
 * image's OOB records directly. */
static int from_slc(const csd_oob *r) {
    const csd_layout *l = &fault.l;
    uint8_t raw[CSD_OOB_BYTES];
    for (uint64_t u = 0; u < l->units; u++)
        for (uint64_t b = 0; b < l->slc_blocks; b++)
            for (uint64_t i = 0; i < l->slc_pages_per_block; i++) {
                uint64_t ppn = (u * l->blocks_per_plane + b) * l->pages_per_block + i;
                csd_oob x;
                if (pread(fault.fd, raw, sizeof raw, (off_t)(l->oob_off + ppn * CSD_OOB_BYTES)) != (ssize_t)sizeof raw)
                    continue;
                if (csd_oob_decode(raw, PB, &x) == CSD_OOB_OK && x.obj == r->obj && x.page == r->page && x.seq == r->seq)
                    return 1;
            }
    return 0;
}

static int classify(const void *buf, size_t len, uint64_t off) {
    const csd_layout *l = &fault.l;
    if (off >= l->meta_off[0] && off < l->oob_off) return W_META;
    if (off >= l->oob_off && off < l->data_off && len % CSD_OOB_BYTES == 0) {
        /* records of consecutive pages go in one write: all zeros is an erase, GC copies (copies > 0)
         * are a GC record write, a migration when one of them leaves an SLC block */
        const uint8_t *raw = buf;
        int gc = 0, empty = 1;
        for (size_t at = 0; at < len; at += CSD_OOB_BYTES) {
            csd_oob r;
            int st = csd_oob_decode(raw + at, PB, &r);
            if (st == CSD_OOB_EMPTY) continue;
            empty = 0;
            if (st != CSD_OOB_OK || r.copies == 0) continue;
            gc = 1;
            uint64_t ppn = (off + at - l->oob_off) / CSD_OOB_BYTES, blk = ppn / l->pages_per_block;
            if (l->slc_blocks && blk % l->blocks_per_plane >= l->slc_blocks && from_slc(&r)) return W_MIGRATE;
        }
        if (empty) return W_ERASE;
        if (gc) return W_OOB_GC;
    }
    return -1;
}

/* Returns 1 when this write is the one to die at. */
static int hit(int cls) {
    if (!fault.armed) return 0;
    if (fault.cls != W_ANY && fault.cls != cls) return 0;
    return --fault.countdown == 0;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off) {
    fault.writes++;
    fault.fd = fd;
    if (fault.armed && hit(classify(buf, len, (uint64_t)off))) {
        if (fault.when == AT_BEFORE) die_now("before");
        if (fault.when == AT_TORN) {
            /* Tear at a 64-byte file boundary near the middle: kill -9 only splits writes at page
             * boundaries and disks keep 512-byte sectors whole, so this is harsher than either. */
            uint64_t cut = ((uint64_t)off + len / 2) / 64 * 64;
            if (cut > (uint64_t)off && cut < (uint64_t)off + len) {
                syscall(SYS_pwrite64, fd, buf, (size_t)(cut - (uint64_t)off), off);
                die_now("torn");
            }
            die_now("before");
        }
        ssize_t n = syscall(SYS_pwrite64, fd, buf, len, off);
        (void)n;
        die_now("after");
    }
    return syscall(SYS_pwrite64, fd, buf, len, off);
}

void csd_store_record_tap(int fd, uint64_t off, const void *buf, size_t len) {
    fault.writes++;
    fault.taps++;
    fault.fd = fd;
    if (!fault.armed || !hit(classify(buf, len, off))) return;
    /* the mapping and the file are one page cache: what pwrite puts there is what the stores would */
    if (fault.when == AT_BEFORE) die_now("before");
    if (fault.when == AT_TORN) {
        const uint8_t *b = buf;
        size_t k = len / CSD_OOB_BYTES / 2, at = k * CSD_OOB_BYTES;
        static const uint8_t zero[CSD_OOB_BYTES];
        int erase = !memcmp(b + at, zero, CSD_OOB_BYTES);
        if (at) syscall(SYS_pwrite64, fd, b, at, (off_t)off);
        if (erase) syscall(SYS_pwrite64, fd, b + at, (size_t)8, (off_t)(off + at));
        else syscall(SYS_pwrite64, fd, b + at + 8, (size_t)(CSD_OOB_BYTES - 8), (off_t)(off + at + 8));
        die_now("torn");
    }
    syscall(SYS_pwrite64, fd, buf, len, (off_t)off);
    die_now("after");
}

int fallocate(int fd, int mode, off_t off, off_t len) {
    /* punching free blocks at close; allocating a block before its first program is no fault point */
    if (fault.armed && (mode & FALLOC_FL_PUNCH_HOLE) && hit(W_ERASE)) {
        if (fault.when == AT_BEFORE) die_now("before");
        syscall(SYS_fallocate, fd, mode, off, len);
        die_now("after");
    }
    return (int)syscall(SYS_fallocate, fd, mode, off, len);
}

/* ---------------------------------------------------------------- reference model and generator */

static uint64_t rnd(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}
static uint64_t below(uint64_t *s, uint64_t n) { return n ? rnd(s) % n : 0; }

typedef struct mobj {
    char name[32];
    uint64_t id;
    uint8_t *data;
    uint64_t size;
} mobj;

typedef struct model {
    mobj o[MAXO];
    int n;
    uint64_t next_id;
    int names;
} model;

enum { OP_CREATE, OP_WRITE, OP_TRIM, OP_DELETE, OP_RENAME };
static const char *const OP_NAME[] = { "create", "write", "trim", "delete", "rename" };

typedef struct op {
    int kind, t;             /* t: target object index */
    char name[32];
    int replace;
    uint64_t off, len, seed;
} op;

static void model_init(model *m) {
    memset(m, 0, sizeof *m);
    m->next_id = g_first_id;
}

static void model_free(model *m) {
    for (int i = 0; i < m->n; i++) free(m->o[i].data);
    m->n = 0;
}

static void model_copy(model *dst, const model *src) {
    *dst = *src;
    for (int i = 0; i < src->n; i++) {
        dst->o[i].data = malloc(src->o[i].size + 1);
        CHECK(dst->o[i].data);
        if (src->o[i].size) memcpy(dst->o[i].data, src->o[i].data, src->o[i].size);
    }
}

static uint64_t model_pages(const model *m) {
    uint64_t n = 0;
    for (int i = 0; i < m->n; i++) n += (m->o[i].size + PB - 1) / PB;
    return n;
}

static int model_find(const model *m, const char *name) {
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->o[i].name, name)) return i;
    return -1;
}

static void fill(uint8_t *p, uint64_t len, uint64_t seed) {
    uint64_t s = seed | 1;
    for (uint64_t i = 0; i < len; i++) p[i] = (uint8_t)(rnd(&s) >> 56);
}

/* A random valid operation for state m (never one the device should refuse). */
static op gen(const model *m, uint64_t *s) {
    op o = { 0 };
    for (;;) {
        uint64_t r = below(s, 100);
        if (m->n == 0 || (r < 8 && m->n < MAXO)) {
            o.kind = OP_CREATE;
            snprintf(o.name, sizeof o.name, "obj-%d", m->names);
            return o;
        }
        o.t = (int)below(s, (uint64_t)m->n);
        const mobj *x = &m->o[o.t];
        if (r < 75) {   /* append or overwrite, up to 8 pages: one atomic group */
            o.kind = OP_WRITE;
            o.off = below(s, x->size + 1);
            if (below(s, 3) == 0) o.off -= o.off % PB;
            o.len = 1 + below(s, below(s, 2) ? 8 * PB : 300);
            uint64_t end = o.off + o.len, grow = end > x->size ? (end + PB - 1) / PB - (x->size + PB - 1) / PB : 0;
            if (model_pages(m) + grow > BUDGET_PAGES) continue;
            o.seed = rnd(s);
            return o;
        }
        if (r < 83) {
            o.kind = OP_TRIM;
            o.off = below(s, x->size + 1);
            o.len = below(s, 6 * PB);
            return o;
        }
        if (r < 90) {
            o.kind = OP_DELETE;
            return o;
        }
        o.kind = OP_RENAME;
        if (m->n > 1 && below(s, 3) == 0) {   /* onto another object's name, replacing it */
            int u = (int)below(s, (uint64_t)m->n);
            if (u == o.t) continue;
            snprintf(o.name, sizeof o.name, "%s", m->o[u].name);
            o.replace = 1;
        } else {
            snprintf(o.name, sizeof o.name, "obj-%d", m->names);
        }
        return o;
    }
}

static void model_remove(model *m, int i) {
    free(m->o[i].data);
    m->o[i] = m->o[--m->n];
}

static void model_apply(model *m, const op *o) {
    switch (o->kind) {
    case OP_CREATE: {
        mobj *x = &m->o[m->n++];
        memset(x, 0, sizeof *x);
        snprintf(x->name, sizeof x->name, "%s", o->name);
        x->id = m->next_id++;
        m->names++;
        break;
    }
    case OP_WRITE: {
        mobj *x = &m->o[o->t];
        uint64_t end = o->off + o->len;
        if (end > x->size) {
            x->data = realloc(x->data, end);
            CHECK(x->data);
            memset(x->data + x->size, 0, end - x->size);
            x->size = end;
        }
        fill(x->data + o->off, o->len, o->seed);
        break;
    }
    case OP_TRIM: {
        mobj *x = &m->o[o->t];
        uint64_t np = (x->size + PB - 1) / PB, end = o->off + o->len >= x->size ? np * PB : o->off + o->len;
        for (uint64_t i = (o->off + PB - 1) / PB; i < end / PB; i++) {
            uint64_t b = (i + 1) * PB < x->size ? (i + 1) * PB : x->size;
            memset(x->data + i * PB, 0, b - i * PB);
        }
        break;
    }
    case OP_DELETE: model_remove(m, o->t); break;
    case OP_RENAME: {
        int other = model_find(m, o->name);
        snprintf(m->o[o->t].name, sizeof m->o[o->t].name, "%s", o->name);
        if (!o->replace) m->names++;
        if (other >= 0) model_remove(m, other);   /* may move o->t's entry: done after the rename */
        break;
    }
    }
}

/* Apply to the device; 0 or the error. Checks the id a create returns. */
static int dev_apply(csd_ftl *f, const model *m, const op *o) {
    uint8_t buf[8 * PB + 300];
    switch (o->kind) {
    case OP_CREATE: {
        uint64_t id = 0;
        int rc = csd_ftl_obj_create(f, o->name, &id);
        if (!rc && id != m->next_id) return -EBADE;
        return rc;
    }
    case OP_WRITE:
        fill(buf, o->len, o->seed);
        /* hybrid runs: an LSM level 0..3 as the hint, from the op's seed */
        return csd_ftl_write_hint(f, m->o[o->t].id, o->off, buf, o->len, g_hybrid ? 1 + (uint32_t)(o->seed % 4) : 0,
                                  NULL);
    case OP_TRIM: return csd_ftl_trim(f, m->o[o->t].id, o->off, o->len, NULL);
    case OP_DELETE: return csd_ftl_obj_delete(f, m->o[o->t].id);
    case OP_RENAME: return csd_ftl_obj_rename(f, m->o[o->t].id, o->name, o->replace);
    }
    return -EINVAL;
}

/* Does the device hold exactly the objects of m? why says what differs. */
static int matches(csd_ftl *f, const model *m, char *why, size_t whylen) {
    csd_obj_info *l;
    int more;
    int n = csd_ftl_obj_list(f, "", "", 0, &l, &more);
    CHECK(n >= 0);
    free(l);
    if (n != m->n) {
        snprintf(why, whylen, "%d objects, expected %d", n, m->n);
        return 0;
    }
    for (int i = 0; i < m->n; i++) {
        const mobj *x = &m->o[i];
        uint64_t id;
        csd_obj_info info;
        if (csd_ftl_obj_find(f, x->name, &id) || id != x->id || csd_ftl_obj_stat(f, id, &info)) {
            snprintf(why, whylen, "object %s (id %" PRIu64 ") missing", x->name, x->id);
            return 0;
        }
        if (info.size != x->size) {
            snprintf(why, whylen, "object %s: size %" PRIu64 ", expected %" PRIu64, x->name, info.size, x->size);
            return 0;
        }
        uint8_t *buf = malloc(x->size + 1);
        CHECK(buf);
        int rc = csd_ftl_read(f, id, 0, buf, x->size, NULL);
        int same = rc == 0 && (x->size == 0 || !memcmp(buf, x->data, x->size));
        free(buf);
        if (!same) {
            snprintf(why, whylen, "object %s: contents differ (read rc %d)", x->name, rc);
            return 0;
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- child */

static void child_run(const char *img, uint64_t seed, int nops, int pfd) {
    csd_ftl *f;
    char err[512];
    if (csd_ftl_open(&f, img, NULL, err, sizeof err)) _exit(3);
    model m;
    model_init(&m);
    fault.pipe_fd = pfd;
    for (int k = 0; k < nops; k++) {
        op o = gen(&m, &seed);
        if (dev_apply(f, &m, &o)) _exit(4);
        model_apply(&m, &o);
        csd_ftl_counters c;
        csd_ftl_counters_get(f, &c);
        char line[64];
        int n = snprintf(line, sizeof line, "A %d %" PRIu64 "\n", k, c.gc_runs);
        if (write(pfd, line, (size_t)n) != n) _exit(5);
    }
    fault.armed = 0;
    if (csd_ftl_close(f)) _exit(6);
    model_free(&m);
    _exit(0);
}

/* ---------------------------------------------------------------- parent */

typedef struct stats { int runs, killed, finished, gc_kills, newer, by_class[W_CLASSES]; } stats;

static void keep_line(void *arg, const char *line) {
    char *log = arg;
    size_t n = strlen(log);
    snprintf(log + n, 16384 - n, "  %s\n", line);
}

static void check_image(const char *img, const char *when) {
    static char log[16384];
    log[0] = 0;
    int rc = csd_ftl_check(img, keep_line, log);
    if (rc) fprintf(stderr, "check %s: %d\n%s", when, rc, log);
    CHECK_EQ_INT(rc, 0);
}

/* One crash: mode 0 = timed kill, else kill at a write of class cls. */
static void one_run(const char *img, uint64_t seed, int timed, int cls, int when, long countdown, stats *st) {
    csd_params p;
    run_params(&p);
    ftl_params(&p);
    char err[512];
    CHECK(csd_ftl_format(img, CAPACITY, &p, err, sizeof err) == 0);
    csd_ftl *f;
    CHECK(csd_ftl_open(&f, img, &p, err, sizeof err) == 0);   /* p: the stored (derived) geometry */
    CHECK(csd_ftl_close(f) == 0);
    char e2[256];
    CHECK(csd_layout_compute(&fault.l, CAPACITY, &p, e2, sizeof e2) == 0);

    int pfd[2];
    CHECK(pipe(pfd) == 0);
    const int nops = timed ? 20000 : 3000;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        if (!timed) {
            fault.cls = cls;
            fault.when = when;
            fault.countdown = countdown;
            fault.armed = 1;
        }
        child_run(img, seed, nops, pfd[1]);
    }
    close(pfd[1]);
    /* read acknowledgements (so the child never blocks on a full pipe) until the child is gone; in
     * timed mode kill it once the delay has passed */
    static char text[1 << 21];
    size_t got = 0;
    uint64_t s0 = seed * 7919;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long delay_ms = timed ? (long)(1 + below(&s0, 60)) : -1;
    for (;;) {
        if (delay_ms >= 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            long ms = (now.tv_sec - t0.tv_sec) * 1000L + (now.tv_nsec - t0.tv_nsec) / 1000000L;
            if (ms >= delay_ms) {
                kill(pid, SIGKILL);
                delay_ms = -1;
            } else {
                struct pollfd pf = { pfd[0], POLLIN, 0 };
                if (poll(&pf, 1, (int)(delay_ms - ms)) == 0) continue;
            }
        }
        ssize_t n = read(pfd[0], text + got, sizeof text - 1 - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    text[got] = 0;
    close(pfd[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (!killed && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        fprintf(stderr, "child failed: status 0x%x\n", status);
        CHECK(0);
    }
    int acked = 0;
    uint64_t gc_runs = 0;
    const char *kill_at = NULL;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl) break;
        *nl = 0;
        int k;
        uint64_t g;
        if (sscanf(line, "A %d %" SCNu64, &k, &g) == 2) {
            CHECK_EQ_INT(k, acked);
            acked++;
            gc_runs = g;
        } else if (line[0] == 'K') {
            kill_at = line + 2;
        }
        line = nl + 1;
    }
    st->runs++;
    st->killed += killed;
    st->finished += !killed;
    if (killed && gc_runs > 0) st->gc_kills++;
    if (killed && !timed && kill_at) st->by_class[cls]++;

    /* reference states: after the acknowledged operations, and after the one in flight */
    model ma, mb;
    model_init(&ma);
    uint64_t s = seed;
    op inflight = { 0 };
    for (int k = 0; k < acked; k++) {
        op o = gen(&ma, &s);
        model_apply(&ma, &o);
    }
    model_copy(&mb, &ma);
    if (acked < nops) {
        inflight = gen(&mb, &s);
        model_apply(&mb, &inflight);
    }

    char when_s[160];
    snprintf(when_s, sizeof when_s, "after crash (seed %" PRIu64 ", %d acked, in flight: %s, killed at: %s)", seed,
             acked, OP_NAME[inflight.kind], kill_at ? kill_at : timed ? "timer" : "-");
    check_image(img, when_s);
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    map_agrees(f, when_s);
    char why_a[256], why_b[256];
    model *m = &ma;
    if (!matches(f, &ma, why_a, sizeof why_a)) {
        if (!matches(f, &mb, why_b, sizeof why_b)) {
            fprintf(stderr, "%s:\n  not the acknowledged state: %s\n  not the in-flight state: %s\n", when_s, why_a,
                    why_b);
            CHECK(0);
        }
        m = &mb;
        st->newer++;
    }
    /* keep going on the recovered device: new writes must not collide with what the crash left */
    uint64_t s2 = seed ^ 0x5eed;
    for (int k = 0; k < 150; k++) {
        op o = gen(m, &s2);
        int rc = dev_apply(f, m, &o);
        if (rc) fprintf(stderr, "%s: post-crash %s failed: %d\n", when_s, OP_NAME[o.kind], rc);
        CHECK_EQ_INT(rc, 0);
        model_apply(m, &o);
    }
    char why[256];
    if (!matches(f, m, why, sizeof why)) {
        fprintf(stderr, "%s: after more operations: %s\n", when_s, why);
        CHECK(0);
    }
    map_agrees(f, "after post-crash operations");
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    check_image(img, "after post-crash operations");
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    if (!matches(f, m, why, sizeof why)) {
        fprintf(stderr, "%s: after second reopen: %s\n", when_s, why);
        CHECK(0);
    }
    map_agrees(f, "after second reopen");
    CHECK_EQ_INT(csd_ftl_close(f), 0);
    model_free(&ma);
    model_free(&mb);
}

int main(int argc, char **argv) {
    const char *dir = csd_test_dir("test_crash");
    char img[4200];
    snprintf(img, sizeof img, "%s/crash.img", dir);
    int scale = argc > 1 ? atoi(argv[1]) : 1;   /* more iterations for a soak run */
    stats st = { 0 };

    /* the interposed pwrite is the one the library calls */
    long before = fault.writes;
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    CHECK(csd_ftl_format(img, CAPACITY, &p, NULL, 0) == 0);
    CHECK(fault.writes > before);
    /* and the records of a write go through the tap */
    csd_ftl *f;
    uint64_t id;
    uint8_t page[PB] = { 1 };
    char err[512];
    CHECK(csd_ftl_open(&f, img, NULL, err, sizeof err) == 0);
    long taps = fault.taps;
    CHECK(csd_ftl_obj_create(f, "tapped", &id) == 0 && csd_ftl_write(f, id, 0, page, PB, NULL) == 0);
    CHECK(fault.taps > taps);
    CHECK(csd_ftl_close(f) == 0);

    uint64_t seed = 1;
    for (int i = 0; i < 12 * scale; i++) one_run(img, seed++, 1, W_ANY, 0, 0, &st);
    /* kill at the K-th write of each kind, before / torn / after it */
    /* GC writes the records of a block's copies in one write per run of consecutive pages */
    static const long range[W_CLASSES] = { 6000, 120, 40, 200, 0 };
    uint64_t s = 99;
    for (int i = 0; i < 10 * scale; i++)
        for (int cls = 0; cls <= W_ERASE; cls++) {   /* the tiny device's classes */
            int when = (int)below(&s, 3);
            long k = 1 + (long)below(&s, (uint64_t)range[cls]);
            one_run(img, seed++, 0, cls, when, k, &st);
        }
    /* a crash in the middle of an SLC-to-TLC migration */
    g_hybrid = 1;
    int migrate_before = st.by_class[W_MIGRATE];
    for (int i = 0; i < 12 * scale; i++) {
        int when = (int)below(&s, 3);
        long k = 1 + (long)below(&s, 6);
        one_run(img, seed++, 0, W_MIGRATE, when, k, &st);
    }
    g_hybrid = 0;
    fprintf(stderr, "crash runs: %d (%d killed, %d finished first), %d killed after GC had started, "
            "%d recovered to the in-flight op's state; kills at a write:", st.runs, st.killed, st.finished,
            st.gc_kills, st.newer);
    for (int c = 0; c < W_CLASSES; c++) fprintf(stderr, " %s %d", CLASS_NAME[c], st.by_class[c]);
    fprintf(stderr, "\n");
    CHECK(st.runs >= 30);
    CHECK(st.killed >= 30);
    CHECK(st.gc_kills >= 10);
    CHECK(st.by_class[W_OOB_GC] >= 5 && st.by_class[W_ERASE] >= 5 && st.by_class[W_META] >= 5);
    CHECK(st.by_class[W_MIGRATE] - migrate_before >= 8);

    /* the map-cached FTL: its map pages (written by evictions, GC moving them, recovery rewriting the
     * ones a crash left behind) must agree with the recovered map at every crash point */
    g_ftl = "dftl";
    g_first_id = 2;
    stats sd = { 0 };
    for (int i = 0; i < 4 * scale; i++) one_run(img, seed++, 1, W_ANY, 0, 0, &sd);
    for (int i = 0; i < 3 * scale; i++)
        for (int cls = 0; cls <= W_ERASE; cls++) {
            int when = (int)below(&s, 3);
            long k = 1 + (long)below(&s, (uint64_t)range[cls]);
            one_run(img, seed++, 0, cls, when, k, &sd);
        }
    fprintf(stderr, "dftl crash runs: %d (%d killed), %d killed after GC had started\n", sd.runs, sd.killed,
            sd.gc_kills);
    CHECK(sd.runs >= 16);
    CHECK(sd.killed >= 10);
    unlink(img);
    rmdir(dir);
    TEST_OK("test_crash");
}
