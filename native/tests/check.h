/* Minimal test helpers: a failed CHECK prints where and why and exits non-zero. */
#ifndef CSD_TEST_CHECK_H
#define CSD_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int csd_check_failures __attribute__((unused));   /* headers that include this one need not use it */

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); exit(1); } } while (0)

#define CHECK_EQ_U64(a, b) do { uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); if (a_ != b_) { \
    fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n", \
            __FILE__, __LINE__, #a, a_, #b, b_); exit(1); } } while (0)

#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { \
    fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %s == %lld\n", \
            __FILE__, __LINE__, #a, a_, #b, b_); exit(1); } } while (0)

#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); if (!a_ || !b_ || strcmp(a_, b_)) { \
    fprintf(stderr, "%s:%d: CHECK_STR failed: %s == \"%s\", expected \"%s\"\n", \
            __FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); exit(1); } } while (0)

#define CHECK_CONTAINS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); \
    if (!h_ || !strstr(h_, n_)) { fprintf(stderr, "%s:%d: expected \"%s\" to contain \"%s\"\n", \
            __FILE__, __LINE__, h_ ? h_ : "(null)", n_); exit(1); } } while (0)

/* A fresh scratch directory for one test program: $CSD_TEST_TMP/<name>.<pid>. */
static inline const char *csd_test_dir(const char *name) {
    static char dir[4096];
    const char *base = getenv("CSD_TEST_TMP");
    if (!base || !*base) base = "/tmp";
    mkdir(base, 0700);
    snprintf(dir, sizeof dir, "%s/%s.%d", base, name, (int)getpid());
    mkdir(dir, 0700);
    return dir;
}

#define TEST_OK(name) do { (void)csd_check_failures; printf("%s: ok\n", name); return 0; } while (0)

#endif
