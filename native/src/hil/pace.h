/* Paced mode: wall time follows device time (pace.c). */
#ifndef CSD_HIL_PACE_H
#define CSD_HIL_PACE_H

#include <stdint.h>

#include "hil/device.h"

uint64_t pace_wall_ns(void);   /* CLOCK_MONOTONIC, ns */
/* The device thread's step while paced, over a busy stretch that began at (wall0, dev0): 1 when it
 * slept (look again), 0 after running a slice of due events, -1 with nothing to run. */
int pace_slice(csd_device *d, uint64_t wall0, uint64_t dev0);
/* Around each command (under the device's lock): begin rebases an idle device's stretch; end says how
 * long the caller must sleep, after unlocking, before it answers. */
void pace_command_begin(csd_device *d);
uint64_t pace_command_end(csd_device *d);
void pace_sleep(uint64_t ns);

#endif
