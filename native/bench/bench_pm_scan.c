/* bench_pm_scan: the two-stage tasklet's page scan (stage 1 finds the lines holding the start key in
 * a page's whole lines) with each backend of pm_match.h, Hyperscan and glibc memmem, on the same text:
 * wall-clock MB/s of the emulator (device time does not depend on it: the pattern-matching unit's rate
 * is pm_bytes_per_s). docs/2PM.md quotes the numbers that chose the default.
 *   bench_pm_scan [MIB]     text of MIB MiB (default 256) in 4 KiB pages
 * CSV rows on stdout: backend,key,lines_found,MB_per_s */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tasklets/pm_match.h"

static double wall_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int count_line(void *arg, size_t start, size_t len) {
    (void)start; (void)len;
    ++*(unsigned long long *)arg;
    return 0;
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256, n = mib << 20, P = 4096;
    /* Common Log Format-like lines of words; "/images/" in about a third of them */
    static const char *const words[] = { "GET ", "/images/", "HTTP/1.0 ", "200 ", "index.html ", "/english/",
                                         "france98 ", "1998 ", "teams/", "-", "304 ", "/news/" };
    char *text = malloc(n);
    if (!text) return 1;
    unsigned long long s = 1;
    size_t pos = 0, col = 0;
    while (pos < n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const char *w = words[(s >> 33) % 12];
        size_t l = strlen(w);
        if (pos + l > n) l = n - pos;
        memcpy(text + pos, w, l);
        pos += l;
        col += l;
        if (col > 60 + (s >> 59) * 10 && pos < n) {
            text[pos++] = '\n';
            col = 0;
        }
    }
    printf("backend,key,lines_found,MB_per_s\n");
    static const char *const keys[] = { "/images/", "zzz rare key" };
    for (int backend = 0; backend < 2; backend++) {
        if (backend == CSD_PM_HYPERSCAN && !csd_pm_have_hyperscan()) continue;
        for (int k = 0; k < 2; k++) {
            csd_pm *pm;
            char err[256];
            if (csd_pm_create(&pm, (const uint8_t *)keys[k], strlen(keys[k]), NULL, 0, backend, err, sizeof err)) {
                fprintf(stderr, "%s\n", err);
                return 1;
            }
            unsigned long long found = 0;
            double t0 = wall_s();
            for (size_t off = 0; off + P <= n; off += P) {
                /* the page's whole lines, as stage 1 scans them */
                const char *pg = text + off, *a = memchr(pg, '\n', P), *b = memrchr(pg, '\n', P);
                if (!a || a == b) continue;
                csd_pm_candidates(pm, (const uint8_t *)a + 1, (size_t)(b - a), count_line, &found);
            }
            double dt = wall_s() - t0;
            printf("%s,%s,%llu,%.0f\n", backend ? "hyperscan" : "memmem", keys[k], found, n / dt / 1e6);
            csd_pm_destroy(pm);
        }
    }
    free(text);
    return 0;
}
