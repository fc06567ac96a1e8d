/* The streaming limit of a scan on this machine: the same bytes as a device run, already in host
 * RAM, scanned by the simplest loop that computes the same answer as the run's tasklet, on as many
 * threads as the run it is set against. bench scan prints each device run's speed against it, in the
 * same run, and checks the answers agree.
 *
 *   bench_mem_limit FILE memmem PATTERN     grep's answer: lines holding PATTERN (memmem, a line once)
 *   bench_mem_limit FILE weblog-q1 RECORD   weblog-q1's: records per region (the server byte, 19)
 *   bench_mem_limit FILE weblog-q2 RECORD   weblog-q2's: records per region and file type (bytes 18, 19)
 *   bench_mem_limit FILE plan-text          the scan bench's text plan: per method (field 5), the count
 *                                           of lines with status (field 8) = 200 and the sum of their
 *                                           sizes (field 9), fields split on single spaces
 *   bench_mem_limit FILE lines              count lines (memchr for '\n')
 *
 * and what reading the bytes costs before a tasklet sees them, the device's checksum of every page
 * included:
 *   bench_mem_limit FILE crc PAGE                 CRC-32 of every PAGE bytes of the copy in RAM
 * and, reading FILE from the page cache on every run instead of from a copy in RAM:
 *   bench_mem_limit FILE read-crc PAGE RUN        pread RUN bytes at a time into one buffer, CRC-32 of
 *                                                 each PAGE there (the device's read-ahead runs)
 *   bench_mem_limit FILE map-crc PAGE             CRC-32 of each PAGE through a shared read-only mapping
 *   bench_mem_limit FILE populate-crc PAGE RUN    the same mapping, each RUN bytes mapped in one
 *                                                 madvise(MADV_POPULATE_READ) before their CRCs (an
 *                                                 alternative to the device's preads, not kept)
 *
 * Options (after the mode's arguments): -t THREADS splits the bytes into that many parts at record or
 * line boundaries, one thread each, and merges their answers (the answer scans: memmem, weblog-q1,
 * weblog-q2, plan-text, lines); -n SAMPLES timed passes (default 5; the file modes run one more first
 * to warm the page cache).
 *
 * Prints one JSON line: {"mode", "bytes", "threads", "ns": [each pass], "answer"}; the answer has the
 * shape of the tasklet's results in `csd run --json` (grep: count; weblog-q1: {region: count};
 * weblog-q2: {region: {type: count}}; plan-text: [[method, count, sum], ...] sorted by method). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

uint32_t csd_crc32(uint32_t crc, const void *data, size_t len);   /* store/crc32.c: ISA-L when built with it */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ the tasklets' answers */

/* WorldCup98 records as native/src/tasklets/weblog.c reads them: type at byte 18, server at 19; region
 * = server >> 5. The names it answers with are written out again here so the limit stays a loop of
 * its own; bench scan and test_bench_limits.py compare the two answers, names included. */
#define WC_REGIONS 8
#define WC_TYPES 13
#define WC_OFF_TYPE 18
#define WC_OFF_SERVER 19
static const char *const region_names[WC_REGIONS] = {
    "Santa Clara", "Plano", "Herndon", "Paris", "region-4", "region-5", "region-6", "region-7",
};
static const char *const type_names[WC_TYPES] = {
    "HTML", "IMAGE", "AUDIO", "VIDEO", "JAVA", "FORMATTED", "DYNAMIC", "TEXT", "COMPRESSED",
    "PROGRAMS", "DIRECTORY", "ICL", "OTHER",
};

#define MAX_METHODS 64
#define METHOD_BYTES 32

typedef struct part {
    const uint8_t *b;
    size_t n;
    uint64_t count;                                  /* memmem, lines */
    uint64_t q[WC_REGIONS][WC_TYPES];                /* weblog-q1 (column 0), weblog-q2 */
    size_t n_methods;                                /* plan-text */
    char method[MAX_METHODS][METHOD_BYTES];
    size_t method_len[MAX_METHODS];
    uint64_t m_count[MAX_METHODS];
    int64_t m_sum[MAX_METHODS];
    int overflow;                                    /* plan-text: more methods than the table holds */
} part;

typedef struct job {
    const char *mode;
    const char *pattern;
    size_t rec;
} job;

/* Lines holding the pattern, each counted once: find a match, count it, skip to the line's end. */
static void scan_memmem(part *p, const char *pat) {
    size_t pl = strlen(pat);
    const uint8_t *s = p->b, *end = p->b + p->n;
    while (s < end) {
        const uint8_t *m = memmem(s, (size_t)(end - s), pat, pl);
        if (!m) break;
        p->count++;
        const uint8_t *nl = memchr(m + pl, '\n', (size_t)(end - m - pl));
        s = nl ? nl + 1 : end;
    }
}

/* weblog-q1: one byte of every record, as the tasklet's records hook reads it. */
static void scan_q1(part *p, size_t rec) {
    uint64_t c[WC_REGIONS] = { 0 };
    for (size_t o = 0; o + rec <= p->n; o += rec) c[p->b[o + WC_OFF_SERVER] >> 5]++;
    for (int r = 0; r < WC_REGIONS; r++) p->q[r][0] += c[r];
}

static void scan_q2(part *p, size_t rec) {
    for (size_t o = 0; o + rec <= p->n; o += rec) {
        uint8_t type = p->b[o + WC_OFF_TYPE];
        p->q[p->b[o + WC_OFF_SERVER] >> 5][type < WC_TYPES - 1 ? type : WC_TYPES - 1]++;
    }
}

static void scan_lines(part *p) {
    const uint8_t *s = p->b, *end = p->b + p->n;
    while (s < end && (s = memchr(s, '\n', (size_t)(end - s)))) {
        p->count++;
        s++;
    }
}

/* A whole field as a 64-bit integer (an optional sign, then digits only), as the plan reads INT64. */
static int parse_i64(const uint8_t *f, size_t len, int64_t *v) {
    size_t i = 0;
    int neg = 0;
    if (len && (f[0] == '-' || f[0] == '+')) neg = f[i++] == '-';
    if (i == len) return 0;
    uint64_t x = 0;
    for (; i < len; i++) {
        if (f[i] < '0' || f[i] > '9') return 0;
        x = x * 10 + (uint64_t)(f[i] - '0');
    }
    *v = neg ? -(int64_t)x : (int64_t)x;
    return 1;
}

static void plan_line(part *p, const uint8_t *l, size_t len) {
    if (len && l[len - 1] == '\r') len--;
    /* fields 0..9 only, hopping from space to space (memchr), the rest of the line unread */
    const uint8_t *f[10], *at = l, *end = l + len;
    size_t fl[10], nf = 0;
    while (nf < 10) {
        const uint8_t *sp = memchr(at, ' ', (size_t)(end - at));
        const uint8_t *e = sp ? sp : end;
        f[nf] = at;
        fl[nf++] = (size_t)(e - at);
        if (!sp) break;
        at = sp + 1;
    }
    int64_t status, size;
    if (nf < 9 || !parse_i64(f[8], fl[8], &status) || status != 200) return;
    int has_size = nf > 9 && parse_i64(f[9], fl[9], &size);
    size_t k = 0;
    while (k < p->n_methods && !(p->method_len[k] == fl[5] && !memcmp(p->method[k], f[5], fl[5]))) k++;
    if (k == p->n_methods) {
        if (k == MAX_METHODS || fl[5] > METHOD_BYTES) {
            p->overflow = 1;
            return;
        }
        memcpy(p->method[k], f[5], fl[5]);
        p->method_len[k] = fl[5];
        p->n_methods++;
    }
    p->m_count[k]++;
    if (has_size) p->m_sum[k] += size;
}

static void scan_plan_text(part *p) {
    const uint8_t *s = p->b, *end = p->b + p->n;
    while (s < end) {
        const uint8_t *nl = memchr(s, '\n', (size_t)(end - s));
        const uint8_t *e = nl ? nl : end;
        plan_line(p, s, (size_t)(e - s));
        s = e + 1;
    }
}

static void *run_part(void *arg) {
    part *p = ((part **)arg)[0];
    const job *j = ((const job **)arg)[1];
    if (!strcmp(j->mode, "memmem")) scan_memmem(p, j->pattern);
    else if (!strcmp(j->mode, "weblog-q1")) scan_q1(p, j->rec);
    else if (!strcmp(j->mode, "weblog-q2")) scan_q2(p, j->rec);
    else if (!strcmp(j->mode, "plan-text")) scan_plan_text(p);
    else scan_lines(p);
    return NULL;
}

/* Split [b, b+n) into t parts: at record boundaries (rec > 0) or just after a '\n'. */
static void split(const uint8_t *b, size_t n, size_t rec, int t, part *parts) {
    size_t at = 0;
    for (int i = 0; i < t; i++) {
        size_t end = i == t - 1 ? n : n / (size_t)t * (size_t)(i + 1);
        if (end < at) end = at;
        if (i < t - 1) {
            if (rec) {
                end -= end % rec;
            } else {
                const uint8_t *nl = end < n ? memchr(b + end, '\n', n - end) : NULL;
                end = nl ? (size_t)(nl - b) + 1 : n;
            }
        }
        memset(&parts[i], 0, sizeof parts[i]);
        parts[i].b = b + at;
        parts[i].n = end - at;
        at = end;
    }
}

/* One timed pass on t threads; parts[0] gets the merged answer. */
static uint64_t pass(const uint8_t *b, size_t n, const job *j, int t, part *parts) {
    uint64_t t0 = now_ns();
    split(b, n, !strcmp(j->mode, "weblog-q1") || !strcmp(j->mode, "weblog-q2") ? j->rec : 0, t, parts);
    pthread_t th[64];
    void *args[64][2];
    for (int i = 0; i < t; i++) {
        args[i][0] = &parts[i];
        args[i][1] = (void *)j;
        if (i > 0 && pthread_create(&th[i], NULL, run_part, args[i])) {
            fprintf(stderr, "bench_mem_limit: cannot start a thread\n");
            exit(1);
        }
    }
    run_part(args[0]);
    for (int i = 1; i < t; i++) pthread_join(th[i], NULL);
    part *m = &parts[0];
    for (int i = 1; i < t; i++) {
        part *p = &parts[i];
        m->count += p->count;
        for (int r = 0; r < WC_REGIONS; r++)
            for (int k = 0; k < WC_TYPES; k++) m->q[r][k] += p->q[r][k];
        m->overflow |= p->overflow;
        for (size_t k = 0; k < p->n_methods; k++) {
            size_t x = 0;
            while (x < m->n_methods && !(m->method_len[x] == p->method_len[k] &&
                                         !memcmp(m->method[x], p->method[k], p->method_len[k])))
                x++;
            if (x == m->n_methods) {
                if (x == MAX_METHODS) {
                    m->overflow = 1;
                    continue;
                }
                memcpy(m->method[x], p->method[k], p->method_len[k]);
                m->method_len[x] = p->method_len[k];
                m->n_methods++;
            }
            m->m_count[x] += p->m_count[k];
            m->m_sum[x] += p->m_sum[k];
        }
    }
    return now_ns() - t0;
}

static void json_str(const char *s, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static int cmp_method(const void *a, const void *b, void *arg) {
    const part *p = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    size_t n = p->method_len[x] < p->method_len[y] ? p->method_len[x] : p->method_len[y];
    int c = memcmp(p->method[x], p->method[y], n);
    return c ? c : (p->method_len[x] > p->method_len[y]) - (p->method_len[x] < p->method_len[y]);
}

static void print_answer(const char *mode, const part *m) {
    if (!strcmp(mode, "weblog-q1") || !strcmp(mode, "weblog-q2")) {
        int q2 = !strcmp(mode, "weblog-q2"), first = 1;
        putchar('{');
        for (int r = 0; r < WC_REGIONS; r++) {
            uint64_t total = 0;
            for (int k = 0; k < WC_TYPES; k++) total += m->q[r][k];
            if (!total) continue;
            printf("%s", first ? "" : ",");
            first = 0;
            json_str(region_names[r], strlen(region_names[r]));
            if (!q2) {
                printf(":%" PRIu64, m->q[r][0]);
                continue;
            }
            printf(":{");
            for (int k = 0, f2 = 1; k < WC_TYPES; k++) {
                if (!m->q[r][k]) continue;
                printf("%s", f2 ? "" : ",");
                f2 = 0;
                json_str(type_names[k], strlen(type_names[k]));
                printf(":%" PRIu64, m->q[r][k]);
            }
            putchar('}');
        }
        putchar('}');
    } else if (!strcmp(mode, "plan-text")) {
        if (m->overflow) {
            printf("null");
            return;
        }
        size_t order[MAX_METHODS];
        for (size_t k = 0; k < m->n_methods; k++) order[k] = k;
        qsort_r(order, m->n_methods, sizeof order[0], cmp_method, (void *)m);
        putchar('[');
        for (size_t i = 0; i < m->n_methods; i++) {
            size_t k = order[i];
            printf("%s[", i ? "," : "");
            json_str(m->method[k], m->method_len[k]);
            printf(",%" PRIu64 ",%" PRId64 "]", m->m_count[k], m->m_sum[k]);
        }
        putchar(']');
    } else {
        printf("%" PRIu64, m->count);
    }
}

/* ------------------------------------------------------------------ what reading costs */

/* The page checksums of [0, n) at b; their XOR is the result, so the loop cannot be skipped. */
static uint64_t crc_pages(const uint8_t *b, size_t n, size_t page) {
    uint32_t x = 0;
    for (size_t o = 0; o < n; o += page) x ^= csd_crc32(0, b + o, n - o < page ? n - o : page);
    return x;
}

static uint64_t read_crc(int fd, size_t n, size_t page, size_t run, uint8_t *buf) {
    uint64_t x = 0;
    for (size_t o = 0; o < n; o += run) {
        size_t len = n - o < run ? n - o : run;
        if (pread(fd, buf, len, (off_t)o) != (ssize_t)len) return UINT64_MAX;
        x ^= crc_pages(buf, len, page);
    }
    return x;
}

static uint64_t map_crc(int fd, size_t n, size_t page) {
    uint8_t *m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return UINT64_MAX;
    uint64_t x = crc_pages(m, n, page);
    munmap(m, n);
    return x;
}

/* One madvise per run maps its pages in one call (the kernel's fault-around maps whole folios),
 * instead of one page fault per 4 KiB page. */
static uint64_t populate_crc(int fd, size_t n, size_t page, size_t run) {
    uint8_t *m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return UINT64_MAX;
    uint64_t x = 0;
    for (size_t o = 0; o < n; o += run) {
        size_t len = n - o < run ? n - o : run;
#ifdef MADV_POPULATE_READ
        if (madvise(m + o, len, MADV_POPULATE_READ)) {
            x = UINT64_MAX;
            break;
        }
#endif
        x ^= crc_pages(m + o, len, page);
    }
    munmap(m, n);
    return x;
}

static void print_ns(const uint64_t *ns, int n) {
    printf("\"ns\":[");
    for (int i = 0; i < n; i++) printf("%s%" PRIu64, i ? "," : "", ns[i]);
    printf("]");
}

/* read-crc, map-crc and populate-crc: FILE from the page cache each pass (warmed by one unmeasured). */
static int file_modes(const char *path, const char *mode, char **arg, int nargs, int samples) {
    int rd = !strcmp(mode, "read-crc"), pop = !strcmp(mode, "populate-crc");
    if (nargs != ((rd || pop) ? 2 : 1)) {
        fprintf(stderr, "bench_mem_limit: %s takes %s\n", mode, rd || pop ? "PAGE RUN" : "PAGE");
        return 2;
    }
    size_t page = strtoull(arg[0], NULL, 10), run = rd || pop ? strtoull(arg[1], NULL, 10) : 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    uint8_t *buf = rd ? malloc(run ? run : 1) : NULL;
    if (size <= 0 || !page || (rd && (!run || !buf)) || (pop && !run)) {
        fprintf(stderr, "bench_mem_limit: empty file or zero sizes\n");
        return 2;
    }
    uint64_t *ns = calloc((size_t)samples, sizeof *ns), result = 0;
    for (int r = 0; r <= samples; r++) {
        uint64_t t0 = now_ns();
        result = rd    ? read_crc(fd, (size_t)size, page, run, buf)
                 : pop ? populate_crc(fd, (size_t)size, page, run)
                       : map_crc(fd, (size_t)size, page);
        uint64_t t = now_ns() - t0;
        if (result == UINT64_MAX) {
            fprintf(stderr, "cannot read %s\n", path);
            return 1;
        }
        if (r > 0) ns[r - 1] = t;   /* pass 0 warms the page cache */
    }
    printf("{\"mode\":\"%s\",\"bytes\":%lld,\"threads\":1,", mode, (long long)size);
    print_ns(ns, samples);
    printf(",\"answer\":%" PRIu64 "}\n", result);
    free(ns);
    free(buf);
    close(fd);
    return 0;
}

static int usage(void) {
    fprintf(stderr, "usage: bench_mem_limit FILE MODE [ARGS] [-t THREADS] [-n SAMPLES]\n"
                    "  modes: memmem PATTERN | weblog-q1 RECORD | weblog-q2 RECORD | plan-text | lines |\n"
                    "         crc PAGE | read-crc PAGE RUN | map-crc PAGE | populate-crc PAGE RUN\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 3) return usage();
    const char *path = argv[1], *mode = argv[2];
    int threads = 1, samples = 5, nargs = 0;
    char *args[4];
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) samples = atoi(argv[++i]);
        else if (nargs < 4) args[nargs++] = argv[i];
        else return usage();
    }
    if (threads < 1 || threads > 64 || samples < 1 || samples > 1000) {
        fprintf(stderr, "bench_mem_limit: -t takes 1..64 threads, -n 1..1000 samples\n");
        return 2;
    }
    if (!strcmp(mode, "read-crc") || !strcmp(mode, "map-crc") || !strcmp(mode, "populate-crc")) {
        if (threads != 1) {
            fprintf(stderr, "bench_mem_limit: %s runs on one thread\n", mode);
            return 2;
        }
        return file_modes(path, mode, args, nargs, samples);
    }
    job j = { mode, NULL, 0 };
    int want = -1;
    if (!strcmp(mode, "memmem")) want = 1, j.pattern = nargs ? args[0] : NULL;
    else if (!strcmp(mode, "weblog-q1") || !strcmp(mode, "weblog-q2")) want = 1, j.rec = nargs ? strtoull(args[0], NULL, 10) : 0;
    else if (!strcmp(mode, "plan-text") || !strcmp(mode, "lines")) want = 0;
    else if (!strcmp(mode, "crc")) want = 1;
    if (want < 0 || nargs != want) return usage();
    if ((j.rec == 0 && (!strcmp(mode, "weblog-q1") || !strcmp(mode, "weblog-q2"))) ||
        (j.rec && j.rec < 20)) {
        fprintf(stderr, "bench_mem_limit: RECORD must be at least 20 bytes (a WorldCup98 record)\n");
        return 2;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s into memory\n", path);
        return 1;
    }
    fclose(f);
    uint64_t *ns = calloc((size_t)samples, sizeof *ns);
    part *parts = calloc((size_t)threads, sizeof *parts);
    uint64_t crc = 0;
    for (int r = 0; r < samples; r++) {
        if (!strcmp(mode, "crc")) {
            uint64_t t0 = now_ns();
            crc = crc_pages(buf, (size_t)size, strtoull(args[0], NULL, 10));
            ns[r] = now_ns() - t0;
        } else {
            ns[r] = pass(buf, (size_t)size, &j, threads, parts);
        }
    }
    printf("{\"mode\":\"%s\",\"bytes\":%ld,\"threads\":%d,", mode, size, threads);
    print_ns(ns, samples);
    printf(",\"answer\":");
    if (!strcmp(mode, "crc")) printf("%" PRIu64, crc);
    else print_answer(mode, &parts[0]);
    printf("}\n");
    free(parts);
    free(ns);
    free(buf);
    return 0;
}
