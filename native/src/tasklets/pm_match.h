/* The pattern of the two-stage pattern-matching tasklet (2PM paper III-A): a start key and an optional
 * end key, both literals. A line matches when it holds the start key and, if there is an end key, the
 * end key begins at or after the end of the start key's first occurrence (the regular expression
 * start.*end within one line). Two backends find candidate lines in a run of whole lines: Hyperscan
 * (when the build has it) and glibc memmem (the default); candidates are confirmed by the same exact
 * test, so both give the same lines. docs/2PM.md has the measurements behind the default. */
#ifndef CSD_TASKLETS_PM_MATCH_H
#define CSD_TASKLETS_PM_MATCH_H

#include <stddef.h>
#include <stdint.h>

#define CSD_PM_KEY_MAX 1024            /* bytes per key */

enum { CSD_PM_MEMMEM = 0, CSD_PM_HYPERSCAN = 1 };

typedef struct csd_pm csd_pm;

/* 1 when this build has the Hyperscan backend (and the CPU runs it). */
int csd_pm_have_hyperscan(void);

/* Compile start (slen > 0 bytes) and end (elen bytes, 0 = none) for backend. Keys may not hold '\n'.
 * 0, -EINVAL (bad key, or a backend this build lacks; err says which) or -ENOMEM. */
int csd_pm_create(csd_pm **out, const uint8_t *start, size_t slen, const uint8_t *end, size_t elen, int backend,
                  char *err, size_t errlen);
void csd_pm_destroy(csd_pm *pm);

/* The exact test on one line (without its '\n'). */
int csd_pm_line_matches(const csd_pm *pm, const uint8_t *line, size_t len);

/* The lines of text[0, len) that hold the start key, each once and in order: fn(arg, line start, line
 * length). text must be whole lines: it starts at a line start and its last byte is '\n'. fn returns 0
 * to go on, non-zero to stop. Returns fn's non-zero value, or 0. */
typedef int (*csd_pm_line_fn)(void *arg, size_t start, size_t len);
int csd_pm_candidates(csd_pm *pm, const uint8_t *text, size_t len, csd_pm_line_fn fn, void *arg);

/* Does frag hold a key, or could a key straddle its edges? at_start: a key may end in frag's first
 * bytes, having begun before it; at_end: a key may begin in frag's last bytes and go on after it. */
int csd_pm_fragment_partial(const csd_pm *pm, const uint8_t *frag, size_t len, int at_start, int at_end);

#endif
