/* Host side of the DRAM micro-benchmark (Smart SSD paper V-B-2, Fig. 6): the same scan as the
 * dram-scan tasklet — `accesses` 4-byte reads + compares per page — timed on this machine's CPU over
 * a file already in host memory. Prints: accesses,pages,wall_ns (best of 5 runs). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_host_scan FILE PAGE_BYTES ACCESSES...\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    uint64_t pb = strtoull(argv[2], NULL, 10), pages = (uint64_t)size / pb;
    printf("accesses,pages,wall_ns,matches\n");
    for (int a = 3; a < argc; a++) {
        uint64_t acc = strtoull(argv[a], NULL, 10), stride = (pb / 4) / acc, best = UINT64_MAX, matches = 0;
        if (!stride) stride = 1;
        for (int run = 0; run < 5; run++) {
            uint64_t t0 = now_ns(), m = 0;
            for (uint64_t p = 0; p < pages; p++) {
                const uint8_t *page = buf + p * pb;
                for (uint64_t i = 0; i < acc && (i * stride + 1) * 4 <= pb; i++) {
                    uint32_t v;
                    memcpy(&v, page + i * stride * 4, 4);
                    m += v == 0;
                }
            }
            uint64_t t = now_ns() - t0;
            if (t < best) best = t;
            matches = m;
        }
        printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", acc, pages, best, matches);
    }
    free(buf);
    return 0;
}
