/* The device's pluggable layers by parameter key, each with its own registry: the one place that
 * checks a configuration's policy names and lists what each layer offers (identify, errors). */
#include "hil/device.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "ftl/map.h"
#include "ftl/place.h"
#include "sched/adapt.h"

static const char *issue_name(size_t i) { return csd_engine_issue_model_at(i); }
static const char *req_name(size_t i) { return csd_req_sched_name_at(i); }
static const char *chip_name(size_t i) { const csd_chip_sched_ops *o = csd_chip_sched_at(i); return o ? o->name : NULL; }
static const char *fcmd_name(size_t i) { const csd_fcmd_ops *o = csd_fcmd_at(i); return o ? o->name : NULL; }
static const char *map_name(size_t i) { const csd_map_ops *o = csd_map_at(i); return o ? o->name : NULL; }
static const char *place_name(size_t i) { const csd_place_ops *o = csd_place_at(i); return o ? o->name : NULL; }

/* Top of the device to the bottom. */
static const struct seam {
    const char *key;
    size_t off;
    const char *(*name_at)(size_t i);
} SEAMS[] = {
    { "issue_model", offsetof(csd_params, issue_model), issue_name },
    { "request_scheduler", offsetof(csd_params, request_scheduler), req_name },
    { "ftl", offsetof(csd_params, ftl), map_name },
    { "placement", offsetof(csd_params, placement), place_name },
    { "flash_scheduler", offsetof(csd_params, flash_scheduler), fcmd_name },
    { "chip_scheduler", offsetof(csd_params, chip_scheduler), chip_name },
};

static void join(const struct seam *s, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    const char *name;
    for (size_t i = 0; (name = s->name_at(i)) && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", name);
}

int csd_policies_check(const csd_params *p, char *err, size_t errlen) {
    for (size_t k = 0; k < sizeof SEAMS / sizeof SEAMS[0]; k++) {
        const struct seam *s = &SEAMS[k];
        const char *want = (const char *)p + s->off, *name;
        size_t i = 0;
        while ((name = s->name_at(i)) && strcmp(name, want)) i++;
        if (name) continue;
        char known[256];
        join(s, known, sizeof known);
        snprintf(err, errlen, "%s '%s' is unknown (known: %s)", s->key, want, known);
        return -EINVAL;
    }
    /* a request scheduler is in its issue model's table */
    return csd_engine_check_sched(p, err, errlen);
}

void csd_policies_visit(void (*fn)(void *arg, const char *key, const char *names), void *arg) {
    for (size_t k = 0; k < sizeof SEAMS / sizeof SEAMS[0]; k++) {
        char known[256];
        join(&SEAMS[k], known, sizeof known);
        fn(arg, SEAMS[k].key, known);
    }
    /* not a seam of its own: how the request scheduler's baselines use the cores and the flash (stage
     * issue) */
    fn(arg, "baseline_adaptation", CSD_ADAPT_KNOWN);
}

int csd_params_validate(const csd_params *p, char *err, size_t errlen) {
    int rc = csd_config_check_values(p, err, errlen);
    if (!rc) rc = csd_policies_check(p, err, errlen);
    uint32_t bits;
    return rc ? rc : csd_adapt_parse(p->baseline_adaptation, &bits, err, errlen);
}
