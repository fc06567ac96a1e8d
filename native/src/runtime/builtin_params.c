/* Parameter parsing for the built-in tasklets and the query engine (runtime/builtin.h): every bad value gets a message naming the key. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/builtin.h"

int csd_tk_parse_i64(const char *s, int64_t *out) {
    if (!s || !*s) return -EINVAL;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || *end || end == s) return -EINVAL;
    *out = v;
    return 0;
}

int csd_tk_parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-') return -EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end || end == s) return -EINVAL;
    *out = v;
    return 0;
}

int csd_tk_param_u64(const csd_tasklet_args *a, const char *key, uint64_t def, uint64_t min,
                     uint64_t max, uint64_t *out, char *err, size_t errlen) {
    const char *s = csd_args_get(a, key);
    uint64_t v = def;
    if (s && csd_tk_parse_u64(s, &v)) {
        csd_args_reject(a, key);
        snprintf(err, errlen, "param %s: '%s' is not a non-negative integer", key, s);
        return -EINVAL;
    }
    if (v < min || v > max) {
        csd_args_reject(a, key);
        snprintf(err, errlen, "param %s: %" PRIu64 " is out of range [%" PRIu64 ", %" PRIu64 "]", key, v,
                 min, max);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

int csd_tk_param_i64(const csd_tasklet_args *a, const char *key, int64_t def, int64_t *out,
                     char *err, size_t errlen) {
    const char *s = csd_args_get(a, key);
    int64_t v = def;
    if (s && csd_tk_parse_i64(s, &v)) {
        csd_args_reject(a, key);
        snprintf(err, errlen, "param %s: '%s' is not a 64-bit integer", key, s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

int csd_tk_param_bool(const csd_tasklet_args *a, const char *key, int def, int *out, char *err,
                      size_t errlen) {
    const char *s = csd_args_get(a, key);
    if (!s) {
        *out = def;
        return 0;
    }
    static const char *const yes[] = {"1", "true", "yes", "on", NULL};
    static const char *const no[] = {"0", "false", "no", "off", NULL};
    for (size_t i = 0; yes[i]; i++)
        if (!strcasecmp(s, yes[i])) return *out = 1, 0;
    for (size_t i = 0; no[i]; i++)
        if (!strcasecmp(s, no[i])) return *out = 0, 0;
    csd_args_reject(a, key);
    snprintf(err, errlen, "param %s: '%s' is not a boolean (1/0/true/false)", key, s);
    return -EINVAL;
}

int csd_tk_param_choice(const csd_tasklet_args *a, const char *key, const char *const *choices,
                        int def, int *out, char *err, size_t errlen) {
    const char *s = csd_args_get(a, key);
    if (!s) {
        *out = def;
        return 0;
    }
    for (int i = 0; choices[i]; i++)
        if (!strcmp(s, choices[i])) return *out = i, 0;
    csd_args_reject(a, key);
    size_t n = (size_t)snprintf(err, errlen, "param %s: '%s' is not one of", key, s);
    for (int i = 0; choices[i] && n < errlen; i++)
        n += (size_t)snprintf(err + n, errlen - n, "%s%s", i ? "|" : " ", choices[i]);
    return -EINVAL;
}
