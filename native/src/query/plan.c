/* The "plan" tasklet: a declarative query (smartssd.v1.Plan) over fixed-size binary records or
 * delimited text, the target of Spark pushdown. Per record: filter (a row passes only when TRUE),
 * then project and emit, or buffer for ORDER BY, or update its group's partial aggregates.
 * Without aggregates or ORDER BY, a limit stops the input early. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/plan.h"
#include "query/plan_int.h"
#include "runtime/builtin.h"

/* host: the device's host threads (a Parquet row group's columns decode on them) and buffer pool */
static int plan_init_host(void **state, const csd_tasklet_args *args, const csd_exec_host *host, csd_framing *framing,
                          char *err, size_t errlen) {
    uint64_t max_mem;
    int rc = csd_tk_param_u64(args, "max_state_bytes", PLAN_MAX_STATE_BYTES, 4096, (uint64_t)1 << 40, &max_mem,
                              err, errlen);
    if (rc) return rc;
    plan *pl = malloc(sizeof *pl);
    if (!pl) return -ENOMEM;
    rc = csd_plan_compile(pl, args->plan, args->plan_len, err, errlen);
    if (rc) {
        csd_plan_free(pl);
        free(pl);
        return rc;
    }
    if (pl->parquet) {
        framing->kind = CSD_FRAMING_BYTES;
        framing->record_bytes = 0;
        framing->skip_header = 0;
    } else if (pl->text) {
        framing->kind = CSD_FRAMING_LINES;
        framing->record_bytes = 0;
        framing->skip_header = pl->skip_header;
    } else {
        framing->kind = CSD_FRAMING_RECORDS;
        framing->record_bytes = pl->entry_bytes;
        framing->skip_header = 0;
    }
    pl->max_mem = (size_t)max_mem;
#if defined(__x86_64__) && defined(__GNUC__)
    {
        /* CSD_PLAN_SIMD=sse2 keeps the SSE2 loop on an AVX2 machine, so both are tested everywhere;
         * asked here, once, as prepared pages read it from other threads */
        const char *force = getenv("CSD_PLAN_SIMD");
        pl->avx2 = __builtin_cpu_supports("avx2") && !(force && strcmp(force, "sse2") == 0) ? 1 : -1;
        /* CSD_PLAN_SIMD=avx2 keeps AVX-512 off: the AVX2 loops and bit scans are tested there too */
        const int no512 = pl->avx2 < 0 || (force && strcmp(force, "avx2") == 0);
        pl->avx512 = !no512 && __builtin_cpu_supports("avx512bw") ? 1 : -1;
        pl->vbmi2 = pl->avx512 > 0 && __builtin_cpu_supports("avx512vbmi2") ? 1 : -1;
    }
#endif
    pl->host_threads = host && host->threads ? host->threads : 1;
    pl->pool = host ? host->pool : NULL;
    if (pl->parquet && (rc = csd_plan_parquet_prepare(pl, err, errlen))) {
        csd_plan_parquet_free(pl);
        csd_plan_free(pl);
        free(pl);
        return rc;
    }
    *state = pl;
    return 0;
}

/* Run without what the device lends (a trial at create_object, a caller of the public ops): one
 * thread, fresh memory. */
static int plan_init(void **state, const csd_tasklet_args *args, csd_framing *framing, char *err, size_t errlen) {
    return plan_init_host(state, args, NULL, framing, err, errlen);
}

/* The current record after csd_plan_begin_record (or a line split ahead): filter, then group,
 * buffer or emit. */
static int eval_record(plan *pl) {
    int rc = 0;
    if (pl->filter >= 0) {
        pv f;
        rc = csd_plan_eval(pl, pl->filter, &f);
        if (rc || f.t != PT_BOOL || !f.b) return rc;
    }
    return csd_plan_row_passed(pl);
}

/* A record's cost from what its evaluation counted, and the failure latch. */
static inline int end_record(plan *pl, csd_tasklet_io *io, int rc) {
    csd_io_charge(io, CSD_TK_CYCLES_PER_RECORD + pl->nodes_evaluated * CSD_TK_CYCLES_PER_NODE + pl->compares * CSD_TK_CYCLES_PER_COMPARE,
                  pl->dram);
    pl->compares = 0;
    if (rc < 0) {
        pl->failed = 1;
        if (pl->fail_rc) rc = pl->fail_rc;
    }
    return rc;
}

static int plan_record(void *state, csd_tasklet_io *io, const uint8_t *rec, size_t len, uint64_t off) {
    plan *pl = state;
    pl->io = io;
    if (pl->failed) return pl->fail_rc ? pl->fail_rc : -ECANCELED;
    pl->dram = pl->nodes_evaluated = 0;
    int rc;
    if (pl->parquet) rc = csd_plan_parquet_bytes(pl, rec, len, off);
    else if (!(rc = csd_plan_begin_record(pl, rec, len))) rc = eval_record(pl);
    return end_record(pl, io, rc);
}

/* Bits of 64 bytes at s equal to '\n' and d, and (with quotes) q: one load, two or three compares
 * per 16 bytes. */
static inline void masks64(const uint8_t *s, uint8_t d, int quotes, uint8_t q, uint64_t *mn, uint64_t *md,
                           uint64_t *mq) {
#ifdef __SSE2__
    const __m128i vn = _mm_set1_epi8('\n'), vd = _mm_set1_epi8((char)d), vq = _mm_set1_epi8((char)q);
    uint64_t x = 0, y = 0, z = 0;
    for (int k = 0; k < 64; k += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + k));
        x |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vn)) << k;
        y |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vd)) << k;
        if (quotes) z |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) << k;
    }
    *mn = x;
    *md = y;
    *mq = z;
#else
    *mn = csd_plan_byte_mask(s, 64, '\n');
    *md = csd_plan_byte_mask(s, 64, d);
    *mq = quotes ? csd_plan_byte_mask(s, 64, q) : 0;
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PLAN_AVX2 1
/* masks64 over whole 64-byte blocks with 32-byte compares, where the CPU has AVX2 (asked once per
 * plan): half the instructions of the SSE2 loop on the page's first pass over its bytes. */
__attribute__((target("avx2"))) static uint64_t page_masks_avx2(const uint8_t *p, size_t blocks, uint8_t d, int quotes,
                                                                  uint8_t q, uint64_t *nl, uint64_t *dl) {
    const __m256i vn = _mm256_set1_epi8('\n'), vd = _mm256_set1_epi8((char)d), vq = _mm256_set1_epi8((char)q);
    uint64_t anyq = 0;
    for (size_t b = 0; b < blocks; b++) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(p + b * 64));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(p + b * 64 + 32));
        nl[b] = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, vn)) |
                (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, vn)) << 32;
        dl[b] = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, vd)) |
                (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, vd)) << 32;
        if (quotes)
            anyq |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(lo, vq), _mm256_cmpeq_epi8(hi, vq)));
    }
    return anyq;
}

/* The same with 64-byte compares into mask registers, where the CPU has AVX-512 BW: one load and
 * two or three compares per block. */
__attribute__((target("avx512f,avx512bw"))) static uint64_t page_masks_avx512(const uint8_t *p, size_t blocks, uint8_t d,
                                                                              int quotes, uint8_t q, uint64_t *nl,
                                                                              uint64_t *dl) {
    const __m512i vn = _mm512_set1_epi8('\n'), vd = _mm512_set1_epi8((char)d), vq = _mm512_set1_epi8((char)q);
    uint64_t anyq = 0;
    for (size_t b = 0; b < blocks; b++) {
        __m512i v = _mm512_loadu_si512((const void *)(p + b * 64));
        nl[b] = _mm512_cmpeq_epi8_mask(v, vn);
        dl[b] = _mm512_cmpeq_epi8_mask(v, vd);
        if (quotes) anyq |= _mm512_cmpeq_epi8_mask(v, vq);
    }
    return anyq;
}
#endif

/* The page's newline, delimiter and (with quoting) quote bits, nb = ceil(n / 64) words each, into
 * *masks (grown as needed; reads only the compiled plan). Returns 1 when the fields can be cut at
 * every delimiter (no quote byte in the page), 0 when not (or when the masks cannot be allocated:
 * the line-at-a-time path then runs). */
static int masks_into(const plan *pl, uint64_t **masks, size_t *cap, const uint8_t *p, size_t n) {
    size_t nb = (n + 63) / 64;
    if (3 * nb > *cap) {
        uint64_t *m = realloc(*masks, 3 * nb * sizeof *m);
        if (!m) return 0;
        *masks = m;
        *cap = 3 * nb;
    }
    uint64_t *nl = *masks, *dl = nl + nb, *qm = dl + nb, anyq = 0;
    const uint8_t q = pl->quoting ? pl->quote : '\n';
    size_t b = 0;
#ifdef PLAN_AVX2
    if (pl->avx512 > 0) {
        b = n / 64;
        anyq = page_masks_avx512(p, b, pl->delim, pl->quoting, q, nl, dl);
    } else if (pl->avx2 > 0) {
        b = n / 64;
        anyq = page_masks_avx2(p, b, pl->delim, pl->quoting, q, nl, dl);
    }
#endif
    if (pl->quoting)
        for (; (b + 1) * 64 <= n; b++) {
            masks64(p + b * 64, pl->delim, 1, q, &nl[b], &dl[b], &qm[b]);
            anyq |= qm[b];
        }
    else
        for (; (b + 1) * 64 <= n; b++) masks64(p + b * 64, pl->delim, 0, q, &nl[b], &dl[b], &qm[b]);
    if (b < nb) {
        nl[b] = csd_plan_byte_mask(p + b * 64, n - b * 64, '\n');
        dl[b] = csd_plan_byte_mask(p + b * 64, n - b * 64, pl->delim);
        if (pl->quoting) anyq |= csd_plan_byte_mask(p + b * 64, n - b * 64, q);
    }
    return !pl->quoting || !anyq;
}

static int page_masks(plan *pl, const uint8_t *p, size_t n) { return masks_into(pl, &pl->pg_masks, &pl->pg_cap, p, n); }

/* A page's whole lines in one call (the runtime's lines hook): each line as record() would get it.
 * Line ends come from 64-byte newline bitmasks (csd_plan_byte_mask) instead of a memchr per line. */
static int lines_one_by_one(plan *pl, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t off) {
    size_t start = 0, base = 0;
    uint64_t m = csd_plan_byte_mask(p, n < 64 ? n : 64, '\n');
    while (start < n) {
        while (!m) {   /* the block ends with a '\n', so one is always ahead */
            base += 64;
            m = csd_plan_byte_mask(p + base, n - base < 64 ? n - base : 64, '\n');
        }
        size_t nl = base + (size_t)__builtin_ctzll(m);
        m &= m - 1;
        size_t len = nl - start;
        if (len && p[nl - 1] == '\r') len--;
        int rc = plan_record(pl, io, p + start, len, off + start);
        if (rc) return rc;
        start = nl + 1;
    }
    return 0;
}

/* The page's lines in order after csd_plan_batch_page: each charged its counts, and one past the
 * filter goes on to its group, the buffer or the output as in record(); a stop or failure at a
 * line leaves the later lines uncharged, as record() would. */
static int lines_batched(plan *pl, csd_tasklet_io *io, const pbatch *bt) {
    const size_t n_lines = bt->n_lines, n_sel = bt->n_sel;
    const uint32_t *sel = bt->sel;
    uint64_t cycles = 0, dram = 0;
    size_t s = 0;
    int rc = 0;
    if (pl->aggregating) {
        /* the groups over the passing lines at once; the lines charged up to a failing one */
        size_t done;
        rc = csd_plan_group_update_sel(pl, bt->ev, sel, n_sel, &done);
        const size_t last = rc ? (size_t)sel[done - 1] + 1 : n_lines;
        for (size_t i = 0; i < last; i++) {
            cycles += CSD_TK_CYCLES_PER_RECORD + (uint64_t)bt->nodes[i] * CSD_TK_CYCLES_PER_NODE;
            dram += bt->dram[i];
        }
        cycles += pl->compares * CSD_TK_CYCLES_PER_COMPARE + pl->hashes * CSD_TK_CYCLES_PER_HASH;
        dram += pl->hashes;
        pl->compares = pl->hashes = 0;
    } else {
        for (size_t i = 0; i < n_lines; i++) {
            cycles += CSD_TK_CYCLES_PER_RECORD + (uint64_t)bt->nodes[i] * CSD_TK_CYCLES_PER_NODE;
            dram += bt->dram[i];
            if (s == n_sel || sel[s] != i) continue;
            s++;
            if (bt->n_lazy) {   /* a top-N's other outputs are decoded only for a line it keeps */
                if (!csd_plan_topn_drops(pl, bt->ev, i)) {
                    csd_plan_batch_fill(pl, bt, i);
                    rc = csd_plan_output_line(pl, bt->ev, i);
                }
            } else {
                rc = csd_plan_output_line(pl, bt->ev, i);
            }
            cycles += pl->compares * CSD_TK_CYCLES_PER_COMPARE + pl->hashes * CSD_TK_CYCLES_PER_HASH;
            dram += pl->hashes;
            pl->compares = pl->hashes = 0;
            if (rc) break;
        }
    }
    csd_io_charge(io, cycles, dram);
    if (rc < 0) {
        pl->failed = 1;
        if (pl->fail_rc) rc = pl->fail_rc;
    }
    return rc;
}

/* A page's whole lines with the page's delimiter bits computed once. The page is evaluated by
 * column (plan_eval.c csd_plan_batch_page), then its lines walked in order; when the batch gives the
 * page up (an expression it would fail on: the line-by-line walk then fails at the same line), each
 * line is split from the bits as the evaluator needs its fields and evaluated as record() does,
 * with the same counts and so the same cost. A page holding a quote byte (quoting on) goes line by
 * line: quoted fields keep their exact semantics there. */
static int plan_lines(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t off) {
    plan *pl = state;
    if (!n) return 0;
    if (pl->parquet || !pl->text || !page_masks(pl, p, n)) return lines_one_by_one(pl, io, p, n, off);
    pl->io = io;
    if (pl->failed) return pl->fail_rc ? pl->fail_rc : -ECANCELED;
    const size_t nb = (n + 63) / 64;
    const uint64_t *nlm = pl->pg_masks, *dlm = nlm + nb;
    if (pl->quoting) memset(pl->funq, 0, (size_t)pl->max_field + 1);   /* no field of this page is unescaped */
    int rc;
    if (!csd_plan_batch_page(pl, p, n, nlm, dlm)) return lines_batched(pl, io, pl->batch);
    pline L;
    pl->pg_dl = dlm;
    pl->pg_line = &L;
    size_t start = 0, b = 0;
    uint64_t m = nlm[0];
    rc = 0;
    while (start < n) {
        while (!m) m = nlm[++b];   /* the block ends with a '\n', so one is always ahead */
        size_t nl = b * 64 + (size_t)__builtin_ctzll(m);
        m &= m - 1;
        size_t e = nl;
        if (e > start && p[e - 1] == '\r') e--;
        pl->dram = pl->nodes_evaluated = 0;
        pl->rec = p + start;
        pl->rec_len = e - start;
        pl->gen++;
        pl->n_fields_split = 0;
        pl->fields_done = 0;
        pl->unq_len = 0;
        L.start = (uint32_t)start;
        L.len = (uint32_t)(e - start);
        L.n_split = L.split_pos = 0;
        L.done = 0;
        L.db = (uint32_t)(start >> 6);
        L.dm = dlm[start >> 6] & (~0ull << (start & 63));
        rc = end_record(pl, io, eval_record(pl));
        if (rc) break;
        start = nl + 1;
    }
    pl->pg_dl = NULL;
    pl->pg_line = NULL;
    return rc;
}

/* A page prepared apart from the run (any thread, reading only the compiled plan): its lines after
 * the first '\n' through the last, evaluated by column into a batch of its own. The lines hook of
 * that page then only walks them in order (lines_batched: grouping, top-N, output, charges); the
 * block before them (a line that started on the page before, or the page's first line when none
 * did) is not prepared and runs as plan_lines runs it. ok = 0 leaves the page to plan_lines:
 * a quote byte, an expression that fails on some line, no memory, no whole line to prepare. */
typedef struct plan_prep {
    pbatch *bt;
    uint64_t *masks;
    size_t cap;
    uint32_t from, to;       /* the block prepared, in the page */
    int ok;
} plan_prep;

static void *plan_prep_new(const void *state) { return calloc(1, sizeof(plan_prep)); }

static void plan_prep_free(const void *state, void *prep) {
    plan_prep *pp = prep;
    if (!pp) return;
    csd_plan_batch_destroy(state, pp->bt);
    free(pp->masks);
    free(pp);
}

static int plan_prepare(const void *state, void *prep, const uint8_t *page, size_t len) {
    const plan *pl = state;
    plan_prep *pp = prep;
    pp->ok = 0;
    if (pl->parquet || !pl->text || !len) return 0;
    const uint8_t *first = memchr(page, '\n', len), *last = memrchr(page, '\n', len);
    if (!first || first == last) return 0;
    pp->from = (uint32_t)(first - page) + 1;
    pp->to = (uint32_t)(last - page) + 1;
    size_t n = pp->to - pp->from;
    if (!masks_into(pl, &pp->masks, &pp->cap, page + pp->from, n)) return 0;
    if (!pp->bt && !(pp->bt = csd_plan_batch_new(pl))) return 0;
    const size_t nb = (n + 63) / 64;
    pp->ok = csd_plan_batch_page_in(pl, pp->bt, page + pp->from, n, pp->masks, pp->masks + nb) == 0;
    return 0;
}

/* plan_lines for the block p..p+n of a page prepared into prep: the same rows, answer and charges. */
static int plan_lines_prepared(void *state, csd_tasklet_io *io, const uint8_t *p, size_t n, uint64_t off,
                               const void *prep, const uint8_t *page) {
    plan *pl = state;
    const plan_prep *pp = prep;
    size_t at = (size_t)(p - page);
    if (!pp || !pp->ok || at + n != pp->to || (at != pp->from && at != 0)) return plan_lines(state, io, p, n, off);
    if (at == 0) {   /* the page's first line is the block's: not prepared */
        int rc = plan_lines(state, io, p, pp->from, off);
        if (rc) return rc;
    }
    pl->io = io;
    if (pl->failed) return pl->fail_rc ? pl->fail_rc : -ECANCELED;
    return lines_batched(pl, io, pp->bt);
}

static int plan_finish(void *state, csd_tasklet_io *io) {
    plan *pl = state;
    pl->io = io;
    if (pl->failed) return pl->fail_rc ? pl->fail_rc : -ECANCELED;
    pl->nodes_evaluated = pl->dram = 0;
    int rc = 0;
    if (pl->parquet) {
        rc = csd_plan_parquet_finish(pl);
        if (rc < 0) {
            pl->failed = 1;
            if (pl->fail_rc) rc = pl->fail_rc;
            return rc;
        }
        pl->nodes_evaluated = pl->dram = 0;
    }
    if (pl->aggregating) rc = csd_plan_finish_groups(pl);
    else if (pl->n_order) rc = csd_plan_finish_rows(pl);
    csd_io_charge(io, pl->nodes_evaluated * CSD_TK_CYCLES_PER_NODE + pl->compares * CSD_TK_CYCLES_PER_COMPARE, 0);
    pl->compares = 0;
    if (rc < 0 && pl->fail_rc) rc = pl->fail_rc;
    return rc < 0 ? rc : 0;
}

static void plan_destroy(void *state) {
    plan *pl = state;
    if (!pl) return;
    csd_plan_parquet_free(pl);
    csd_plan_free(pl);
    free(pl);
}

static int plan_need_page(void *state, uint64_t page_index, uint32_t page_bytes) {
    return csd_plan_parquet_need_page(state, page_index, page_bytes);
}

static const csd_exec_hooks csd_tasklet_plan_hooks = { .lines = plan_lines, .prep_new = plan_prep_new, .prep_free = plan_prep_free,
                                                 .prepare = plan_prepare, .lines_prepared = plan_lines_prepared,
                                                 .init_host = plan_init_host };

static const csd_tasklet_ops csd_tasklet_plan = {
    .name = "plan",
    .summary = "declarative query (smartssd.v1.Plan): filter, project, group-by aggregates, top-N, limit "
               "over fixed records, delimited text or Parquet objects",
    .init = plan_init,
    .record = plan_record,
    .finish = plan_finish,
    .destroy = plan_destroy,
    .need_page = plan_need_page,
};

const csd_builtin csd_builtin_plan = { &csd_tasklet_plan, &csd_tasklet_plan_hooks };
