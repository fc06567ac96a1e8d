/* Discrete-event engine in virtual nanoseconds. Events run in (time, insertion order), so a run is
 * deterministic for the same inputs. Single-threaded: the device serialises access. */
#ifndef CSD_SIM_H
#define CSD_SIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct csd_sim csd_sim;
typedef void (*csd_sim_fn)(csd_sim *sim, void *arg);

csd_sim *csd_sim_create(void);
void csd_sim_destroy(csd_sim *sim);

uint64_t csd_sim_now(const csd_sim *sim);
/* Schedule fn(arg) at absolute time t (>= now; earlier times are clamped to now). 0 or -ENOMEM. */
int csd_sim_at(csd_sim *sim, uint64_t t, csd_sim_fn fn, void *arg);
/* Take the next insertion sequence number for an event to be scheduled later, with
 * csd_sim_at_seq: it then runs exactly where it would have, scheduled at the time of this call. */
uint64_t csd_sim_seq_take(csd_sim *sim);
/* Schedule fn(arg) at (t, seq), seq from csd_sim_seq_take and not used before; t >= now (earlier
 * times are clamped to now). It runs after every pending event of a lower (time, seq), even when t
 * is now. 0 or -ENOMEM. */
int csd_sim_at_seq(csd_sim *sim, uint64_t t, uint64_t seq, csd_sim_fn fn, void *arg);
/* Run the earliest event. Returns 1 if one ran, 0 if none is pending. */
int csd_sim_step(csd_sim *sim);
size_t csd_sim_pending(const csd_sim *sim);
/* Time of the earliest pending event into *t: 1, or 0 when none is pending. */
int csd_sim_peek(const csd_sim *sim, uint64_t *t);
/* Move the clock forward to t (idle time), but never past the earliest pending event: with one
 * pending at t' < t the clock stops at t'. Never moves the clock backwards. */
void csd_sim_advance(csd_sim *sim, uint64_t t);

/* ceil(bytes * 1e9 / bytes_per_s): the transfer time of bytes on a link, ns (no overflow for any
 * 64-bit byte count; saturates at UINT64_MAX). A rate of 0 means "not modelled": 0 ns. */
uint64_t csd_xfer_ns(uint64_t bytes, uint64_t bytes_per_s);

/* A serial FCFS resource: reserve dur ns starting no earlier than ready; returns the end time. */
typedef struct csd_serial { uint64_t busy_until; uint64_t busy_ns; } csd_serial;
uint64_t csd_serial_reserve(csd_serial *r, uint64_t ready, uint64_t dur);

#endif
