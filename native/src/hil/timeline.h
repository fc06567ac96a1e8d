/* The session's timeline of device events (trace/trace.h), kept by the host interface layer. */
#ifndef CSD_HIL_TIMELINE_H
#define CSD_HIL_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "hil/device.h"

/* Start recording when the params ask for it (trace_file). 0, or -errno with err. */
int timeline_open(csd_device *d, const char *image, char *err, size_t errlen);
/* A host command on the host-link track (name: a static string). */
void timeline_command(csd_device *d, const char *name, uint64_t start_ns, uint64_t end_ns);
/* Write the file and stop. 0 or -errno (reported on stderr: close has no other channel). */
int timeline_close(csd_device *d, const char *device_name);

#endif
