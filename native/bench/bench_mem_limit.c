/* The streaming limit of a scan on this machine: the same bytes as a device run, already in host
 * RAM, scanned by the simplest loop that gives the same answer. bench scan prints each device run's
 * speed against it, in the same run.
 *
 *   bench_mem_limit FILE memmem PATTERN           count lines holding PATTERN (memmem over the buffer)
 *   bench_mem_limit FILE stride RECORD OFF WIDTH  histogram of a field of every fixed-size record
 *   bench_mem_limit FILE lines                    count lines (memchr for '\n')
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
 * Prints one CSV line: mode,bytes,best_ns,result (best of 5 runs). */
#include <inttypes.h>
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

/* Lines holding the pattern, each counted once: find a match, count it, skip to the line's end. */
static uint64_t scan_memmem(const uint8_t *b, size_t n, const char *pat) {
    size_t pl = strlen(pat);
    uint64_t count = 0;
    const uint8_t *p = b, *end = b + n;
    while (p < end) {
        const uint8_t *m = memmem(p, (size_t)(end - p), pat, pl);
        if (!m) break;
        count++;
        const uint8_t *nl = memchr(m + pl, '\n', (size_t)(end - m - pl));
        p = nl ? nl + 1 : end;
    }
    return count;
}

/* Sum over records of the field's byte at OFF, weighted into 256 buckets: reads every record's field
 * once (as weblog-q1 reads the server byte), whatever its width. */
static uint64_t scan_stride(const uint8_t *b, size_t n, size_t rec, size_t off, size_t width) {
    uint64_t hist[256] = { 0 };
    for (size_t p = 0; p + rec <= n; p += rec) {
        uint64_t v = 0;
        for (size_t i = 0; i < width; i++) v = v << 8 | b[p + off + i];
        hist[v & 0xff]++;
    }
    uint64_t h = 0;
    for (int i = 0; i < 256; i++) h = h * 31 + hist[i];
    return h;
}

static uint64_t scan_lines(const uint8_t *b, size_t n) {
    uint64_t count = 0;
    const uint8_t *p = b, *end = b + n;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
        count++;
        p++;
    }
    return count;
}

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

/* read-crc, map-crc and populate-crc: FILE from the page cache each run (warmed by one unmeasured read). */
static int file_modes(int argc, char **argv) {
    const char *mode = argv[2];
    int rd = !strcmp(mode, "read-crc"), pop = !strcmp(mode, "populate-crc");
    if (((rd || pop) && argc != 5) || (!rd && !pop && argc != 4)) {
        fprintf(stderr, "bench_mem_limit: bad mode or arguments\n");
        return 2;
    }
    size_t page = strtoull(argv[3], NULL, 10), run = rd || pop ? strtoull(argv[4], NULL, 10) : 0;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    uint8_t *buf = rd ? malloc(run ? run : 1) : NULL;
    if (size <= 0 || !page || (rd && (!run || !buf)) || (pop && !run)) {
        fprintf(stderr, "bench_mem_limit: empty file or zero sizes\n");
        return 2;
    }
    uint64_t best = UINT64_MAX, result = 0;
    for (int r = 0; r < 6; r++) {
        uint64_t t0 = now_ns();
        result = rd    ? read_crc(fd, (size_t)size, page, run, buf)
                 : pop ? populate_crc(fd, (size_t)size, page, run)
                       : map_crc(fd, (size_t)size, page);
        uint64_t t = now_ns() - t0;
        if (result == UINT64_MAX) {
            fprintf(stderr, "cannot read %s\n", argv[1]);
            return 1;
        }
        if (r > 0 && t < best) best = t;   /* run 0 warms the page cache */
    }
    printf("%s,%lld,%" PRIu64 ",%" PRIu64 "\n", mode, (long long)size, best, result);
    free(buf);
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_mem_limit FILE memmem PATTERN | stride RECORD OFF WIDTH | lines | crc PAGE |"
                        " read-crc PAGE RUN | map-crc PAGE | populate-crc PAGE RUN\n");
        return 2;
    }
    if (!strcmp(argv[2], "read-crc") || !strcmp(argv[2], "map-crc") || !strcmp(argv[2], "populate-crc"))
        return file_modes(argc, argv);
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s into memory\n", argv[1]);
        return 1;
    }
    fclose(f);
    const char *mode = argv[2];
    if ((!strcmp(mode, "memmem") && argc != 4) || (!strcmp(mode, "stride") && argc != 6) ||
        (!strcmp(mode, "lines") && argc != 3) || (!strcmp(mode, "crc") && argc != 4) ||
        (strcmp(mode, "memmem") && strcmp(mode, "stride") && strcmp(mode, "lines") && strcmp(mode, "crc"))) {
        fprintf(stderr, "bench_mem_limit: bad mode or arguments\n");
        return 2;
    }
    uint64_t best = UINT64_MAX, result = 0;
    for (int run = 0; run < 5; run++) {
        uint64_t t0 = now_ns();
        if (!strcmp(mode, "memmem")) result = scan_memmem(buf, (size_t)size, argv[3]);
        else if (!strcmp(mode, "stride"))
            result = scan_stride(buf, (size_t)size, strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
                                 strtoull(argv[5], NULL, 10));
        else if (!strcmp(mode, "crc")) result = crc_pages(buf, (size_t)size, strtoull(argv[3], NULL, 10));
        else result = scan_lines(buf, (size_t)size);
        uint64_t t = now_ns() - t0;
        if (t < best) best = t;
    }
    printf("%s,%ld,%" PRIu64 ",%" PRIu64 "\n", mode, size, best, result);
    free(buf);
    return 0;
}
