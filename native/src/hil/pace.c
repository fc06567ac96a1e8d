/* Paced mode (param paced): wall time follows device time, as FEMU's real-time mode does, so a job's
 * wall time and its device time compare one to one. The device thread runs only the events due by
 * now and sleeps until the next; a command that advanced the clock by more than the wall time it took
 * waits out the rest before it answers. Counters say how often the emulator fell behind. */
#include "hil/pace.h"

#include <time.h>

uint64_t pace_wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Paced mode: the slack below which the device counts as keeping up with wall time, ns. */
#define PACED_SLACK_NS 1000000ull
/* Longest sleep before looking again (commands may add events meanwhile), ns. */
#define PACED_NAP_NS 5000000ull

/* Sleep without holding the device, so commands go on meanwhile. */
static void nap(csd_device *d, uint64_t ns) {
    pthread_mutex_unlock(&d->mu);
    pace_sleep(ns);
    pthread_mutex_lock(&d->mu);
}

/* Paced mode: run only the events due by now on a device clock that started with the busy period,
 * sleeping until the next one is due, so wall time follows device time (as FEMU's real-time mode).
 * Returns 1 when it slept (the caller looks again), 0 after running a slice, -1 with nothing to run. */
int pace_slice(csd_device *d, uint64_t wall0, uint64_t dev0) {
    uint64_t target = dev0 + (pace_wall_ns() - wall0), next;
    if (!csd_engine_peek(d->eng, &next)) return -1;
    if (next > target) {
        d->paced_sleep_ns += next - target < PACED_NAP_NS ? next - target : PACED_NAP_NS;
        nap(d, next - target < PACED_NAP_NS ? next - target : PACED_NAP_NS);
        return 1;
    }
    for (int i = 0; i < 256 && csd_engine_peek(d->eng, &next) && next <= target; i++) csd_engine_step(d->eng);
    d->paced_slices++;
    if (csd_engine_peek(d->eng, &next) && next + PACED_SLACK_NS < target) {
        /* events overdue: emulating this stretch takes longer than the device would */
        d->paced_behind++;
        if (target - next > d->paced_behind_max_ns) d->paced_behind_max_ns = target - next;
    }
    return 0;
}


void pace_command_begin(csd_device *d) {
    if (!d->params.paced || d->running) return;
    /* an idle device starts a new stretch: the clock does not owe the idle wall time */
    d->pace_wall0 = pace_wall_ns();
    d->pace_dev0 = csd_engine_now(d->eng);
}

uint64_t pace_command_end(csd_device *d) {
    if (!d->params.paced) return 0;
    uint64_t due = d->pace_wall0 + (csd_engine_now(d->eng) - d->pace_dev0), now = pace_wall_ns();
    if (due <= now) {
        if (now - due > PACED_SLACK_NS) {   /* emulating the command took longer than the device would */
            d->paced_behind++;
            if (now - due > d->paced_behind_max_ns) d->paced_behind_max_ns = now - due;
        }
        return 0;
    }
    d->paced_sleep_ns += due - now;
    return due - now;
}

void pace_sleep(uint64_t ns) {
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
    while (nanosleep(&ts, &ts) != 0) {}
}
