/* smartssd: an emulated computational storage device ("Smart SSD").
 *
 * A device lives in an image file. The host talks to it only through object commands: a packed
 * smartssd.v1.Request in, a packed smartssd.v1.Response out (proto/smartssd/v1/device.proto). The
 * same bytes travel in-process (csd_device_command) and over the daemon's socket. */
#ifndef SMARTSSD_CSD_H
#define SMARTSSD_CSD_H

#include <stddef.h>
#include <stdint.h>
#include "smartssd/params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CSD_PROTOCOL_VERSION 1
#define CSD_MAX_PACKET (64u << 20)   /* bytes: the largest Request or Response */

/* Status codes: the same numbers as smartssd.v1.Status. */
typedef enum csd_status {
    CSD_OK = 0,
    CSD_INVALID_ARGUMENT = 1,
    CSD_NOT_FOUND = 2,
    CSD_ALREADY_EXISTS = 3,
    CSD_NO_SPACE = 4,
    CSD_BAD_PACKET = 5,
    CSD_UNSUPPORTED = 6,
    CSD_TASKLET_ERROR = 7,
    CSD_BUSY = 8,
    CSD_IO_ERROR = 9,
    CSD_OUT_OF_RANGE = 10,
    CSD_RESOURCE_EXHAUSTED = 11,
    CSD_INTERNAL = 12,
    /* hardening (60-69): the daemon refused this client (its uid is not on the allow-list) */
    CSD_PERMISSION_DENIED = 60,
} csd_status;

const char *csd_status_name(int status);
/* The status a negative errno from the library stands for (I/O and access errors are IO_ERROR,
 * anything unexpected INTERNAL): one map for the device's replies and its language bindings. */
int csd_status_from_errno(int rc);
const char *csd_version(void);

typedef struct csd_device csd_device;

/* Create a device image of capacity bytes (host-visible) with params p (NULL = default preset).
 * Returns 0 or a negative errno with err set. */
int csd_format(const char *image, uint64_t capacity, const csd_params *p, char *err, size_t errlen);

/* Verify an image offline; report(arg, line) gets one line per problem. Returns the number of
 * problems (0 = clean) or a negative errno. */
int csd_check(const char *image, void (*report)(void *arg, const char *line), void *arg);

typedef struct csd_open_opts {
    /* Override non-geometry params (timing, cores, policies, emulation) for this session; NULL keeps
     * the ones stored in the image. */
    const csd_params *override;
    /* 1 = tasklets advance in a device thread while the host does other things (the default for a
     * real device); 0 = they advance only inside commands (deterministic, single-threaded). */
    int background;
    /* Edit the params stored in the image for this session (a command line's --set, a binding's
     * key/value pairs): called once, with the stored params (or override's), before the device
     * starts; 0, or a negative errno with err set, which fails the open with that errno and message.
     * Geometry is then taken back from the image, as with override. One open instead of an open to
     * read the stored params and a second with the result: each open rebuilds the map from every
     * page's OOB record. NULL = none. */
    int (*edit)(void *arg, csd_params *p, char *err, size_t errlen);
    void *edit_arg;
} csd_open_opts;

int csd_device_open(csd_device **out, const char *image, const csd_open_opts *opts, char *err, size_t errlen);
/* Stop the device thread, flush metadata, close the image. Returns 0 or a negative errno. */
int csd_device_close(csd_device *dev);

/* Bulk data beside a command, so large payloads need not be copied into the packet:
 * in: bytes for write_object when its data field is empty; out: where read_object puts data. */
typedef struct csd_payload {
    const void *in;
    size_t in_len;
    void *out;
    size_t out_cap;
} csd_payload;

/* Run one command. *resp receives a malloc'd packed Response (free with csd_free) even when the
 * command failed; the function itself fails (-ENOMEM, -EINVAL) only if no response can be made.
 * Safe to call from several threads: each command is atomic with respect to the others. */
int csd_device_command(csd_device *dev, const uint8_t *req, size_t req_len, const csd_payload *payload,
                       uint8_t **resp, size_t *resp_len);

/* Client sessions: a daemon gives each connection one, so the device knows whose tasklet and output
 * objects are whose. Objects belong to the session that last used them; once it has ended they are
 * reclaimed after params.orphan_timeout_ms without use, and so is the run of an output that a live
 * session leaves unread that long (docs/RELIABILITY.md). csd_device_command runs as session 0, this
 * process, whose objects live until the device closes. */
int csd_session_begin(csd_device *dev, uint64_t *session);       /* 0 or -ENOMEM */
void csd_session_end(csd_device *dev, uint64_t session);
/* csd_device_command on behalf of a session from csd_session_begin. */
int csd_device_command_as(csd_device *dev, uint64_t session, const uint8_t *req, size_t req_len,
                          const csd_payload *payload, uint8_t **resp, size_t *resp_len);

/* Device parameters in effect. */
const csd_params *csd_device_params(const csd_device *dev);

void csd_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
