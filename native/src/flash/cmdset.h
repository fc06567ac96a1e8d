/* Command-set submission (DRS paper II-A, V-B, V-C, V-D): turns a host request's FTL batch into flash
 * command sets, runs each set's commands one after the other, makes a set that needs an earlier
 * request's in-flight map command wait for it (a delaying command) instead of issuing its own, and
 * keeps every command's request information (reqInfo[3]) for the command schedulers: the request's
 * type and FOT, the delayed requests that join a set (delayed request scanning, V-C) and Algorithm 2
 * as the set's commands complete. One per flash model; requests overlap freely (a queue depth). */
#ifndef CSD_FLASH_CMDSET_H
#define CSD_FLASH_CMDSET_H

#include "flash/flash.h"

typedef struct csd_cmdset csd_cmdset;
typedef struct csd_hreq csd_hreq;
typedef void (*csd_hreq_done_fn)(csd_hreq *r, uint64_t t_done);

struct csd_hreq {
    uint8_t type;            /* csd_req_type */
    uint64_t pages;          /* request size in pages (the Size scheduler) */
    uint64_t id;             /* for timelines (req_id of its commands) */
    csd_hreq_done_fn done;   /* when every command of the request has completed */
    void *arg;
    /* Optional: each command as it completes (before done), e.g. to stream read data */
    void (*op_done)(csd_hreq *r, const csd_flash_op *op, uint64_t t);
    /* Optional: one of its command sets has completed its last command (after that command's
     * op_done; a flash command queue entry is free again) */
    void (*set_done)(csd_hreq *r, uint64_t t);
    /* filled by csd_cmdset_submit */
    uint64_t submit_ns, done_ns;
    uint64_t fot_ns;         /* its FOT: own commands plus the delaying commands it waits for */
    uint32_t delayed[3];     /* its sets that wait for another request's map command, by csd_delay_kind
                              * (CLF- and DLE-delayed: DRS V-C's delayed requests) */
    uint64_t left;           /* commands not yet completed (internal) */
    void *sets;              /* internal */
};

int csd_cmdset_create(csd_cmdset **out, csd_flash *f);
void csd_cmdset_destroy(csd_cmdset *cs);
/* Submit request r with the FTL's batch b (copied) at the current time. r stays valid until its
 * done callback has run. 0 or -ENOMEM. */
int csd_cmdset_submit(csd_cmdset *cs, csd_hreq *r, const csd_flash_batch *b);
/* The command sets b's operations form (GC operations belong to none). */
size_t csd_cmdset_count(const csd_flash_batch *b);
/* Free the sets of a request that will never complete (its engine is going away, with the flash
 * commands in flight); r may be one never submitted (zeroed). */
void csd_cmdset_forget(csd_cmdset *cs, csd_hreq *r);

#endif
