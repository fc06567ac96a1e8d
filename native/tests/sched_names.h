/* The request-scheduler registry's names as a NULL-terminated list, for loops over every policy. */
#ifndef CSD_TEST_SCHED_NAMES_H
#define CSD_TEST_SCHED_NAMES_H

#include "sched/sched.h"

static inline const char *const *sched_names(void) {
    static const char *names[32];
    size_t n = 0;
    for (const csd_req_sched_ops *o; n + 1 < sizeof names / sizeof names[0] && (o = csd_req_sched_at(n)); n++)
        names[n] = o->name;
    names[n] = NULL;
    return names;
}

#endif
