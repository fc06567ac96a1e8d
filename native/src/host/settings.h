/* The emulator's own settings (host/: its worker pool, run-ahead and reader thread), kept in
 * csd_params.emulator under their keys (config/params.c), so the public struct names none of the
 * emulator's machinery. Wall time only, never device time. Each macro is the setting as an lvalue. */
#ifndef CSD_HOST_SETTINGS_H
#define CSD_HOST_SETTINGS_H

#include "smartssd/params.h"

/* Each setting's word of csd_params.emulator. */
enum { CSD_HOST_THREADS_AT, CSD_HOST_AHEAD_MIN_NS_AT, CSD_HOST_READER_AT, CSD_HOST_SETTINGS };
_Static_assert(CSD_HOST_SETTINGS <= CSD_EMULATOR_WORDS, "csd_params.emulator has a word for every setting");

/* host_threads, count: host threads that compute tasklet pages, the engine's own counted
 * (host_threads - 1 workers beside it; 1 = on the engine's own thread; 1..64) */
#define CSD_HOST_THREADS(p) ((p)->emulator[CSD_HOST_THREADS_AT])
/* host_ahead_min_ns, ns of host wall time (host_threads > 1): a request's pages go to the host threads
 * once its first pages averaged at least this much each on the engine's thread (cheaper pages cost
 * less there than the hand-off); 0 = from its first page */
#define CSD_HOST_AHEAD_MIN_NS(p) ((p)->emulator[CSD_HOST_AHEAD_MIN_NS_AT])
/* host_reader, bool (host_threads > 1): 1 = the pages of tasklet requests fed on the engine's thread
 * (no run-ahead, or cheap) are read from the image and their CRCs computed on a reader thread ahead
 * of the engine; 0 = on the engine's own thread */
#define CSD_HOST_READER(p) ((p)->emulator[CSD_HOST_READER_AT])

#endif
