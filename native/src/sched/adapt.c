/* baseline_adaptation values (adapt.h). */
#include "sched/adapt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Each modifier sets its bit, except "pol", which clears CSD_ADAPT_PAPER_POLICY (the policies'
 * shared-engine versions under the paper base). */
static const struct modifier { const char *name; uint32_t bit; } MODIFIERS[] = {
    { "split", CSD_ADAPT_SPLIT }, { "mp", CSD_ADAPT_WHOLE_MP }, { "order", CSD_ADAPT_CHIP_ORDER },
    { "loop", CSD_ADAPT_DECOUPLED }, { "eq12", CSD_ADAPT_EQ12 }, { "pol", CSD_ADAPT_PAPER_POLICY },
};

int csd_adapt_parse(const char *s, uint32_t *bits, char *err, size_t errlen) {
    if (!s || !*s) s = CSD_ADAPT_DEFAULT;
    const char *plus = strchr(s, '+');
    size_t blen = plus ? (size_t)(plus - s) : strlen(s);
    uint32_t b, seen = 0;
    int paper = 0;
    if (blen == strlen("shared-engine") && !strncmp(s, "shared-engine", blen)) b = CSD_ADAPT_ENGINE;
    else if (blen == strlen("paper") && !strncmp(s, "paper", blen)) b = CSD_ADAPT_PAPER_POLICY, paper = 1;
    else {
        snprintf(err, errlen, "baseline_adaptation '%s' is unknown (known: " CSD_ADAPT_KNOWN ")", s);
        return -EINVAL;
    }
    while (plus) {
        const char *m = plus + 1;
        plus = strchr(m, '+');
        size_t mlen = plus ? (size_t)(plus - m) : strlen(m);
        const struct modifier *found = NULL;
        for (size_t i = 0; i < sizeof MODIFIERS / sizeof MODIFIERS[0]; i++)
            if (strlen(MODIFIERS[i].name) == mlen && !strncmp(MODIFIERS[i].name, m, mlen)) found = &MODIFIERS[i];
        if (!found) {
            snprintf(err, errlen, "baseline_adaptation '%s': modifier '+%.*s' is unknown (known: " CSD_ADAPT_KNOWN ")",
                     s, (int)mlen, m);
            return -EINVAL;
        }
        int clears = found->bit == CSD_ADAPT_PAPER_POLICY;
        if ((seen & found->bit) || (!paper && (clears || (b & found->bit)))) {
            snprintf(err, errlen, "baseline_adaptation '%s': '+%s' is %s", s, found->name,
                     seen & found->bit ? "given twice" : "always on under shared-engine");
            return -EINVAL;
        }
        seen |= found->bit;
        if (clears) b &= ~found->bit;
        else b |= found->bit;
    }
    *bits = b;
    return 0;
}
