/* A mutex taken after a brief spin. A plain pthread_mutex_lock found taken sleeps at once and sends
 * its holder into the kernel to wake it; where a lock is held for a few hundred nanoseconds at a time
 * (the reader's runs, the run-ahead pool's pages) that sleep and wake-up cost more than the wait.
 * A holder that was preempted still sends the caller to sleep after the spin. */
#ifndef CSD_HOST_SPIN_H
#define CSD_HOST_SPIN_H

#include <pthread.h>

#define CSD_SPIN_TRIES 256   /* 64 and 2,048 measured the same (docs/perf-journal.md, "The reader thread") */

static inline void csd_mutex_lock_spin(pthread_mutex_t *mu) {
    for (int i = 0; i < CSD_SPIN_TRIES; i++) {
        if (pthread_mutex_trylock(mu) == 0) return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(mu);
}

#endif
