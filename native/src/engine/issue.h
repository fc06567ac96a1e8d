/* Issue models: how tasklet requests turn into flash reads and core slots (engine.h describes both).
 * The engine owns requests, cores, the buffer and the clock; an issue model decides when pages are
 * read and what an idle core does next, through these hooks. Chosen once, at engine creation. */
#ifndef CSD_ENGINE_ISSUE_H
#define CSD_ENGINE_ISSUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct csd_engine csd_engine;
typedef struct csd_isp_req csd_isp_req;
typedef struct core core;

typedef struct csd_issue_model {
    const char *name;
    int (*init)(csd_engine *e);                       /* 0 or -ENOMEM */
    void (*free)(csd_engine *e);
    uint64_t (*pool)(const csd_engine *e);            /* flash reads one request can have out at once */
    int (*submit)(csd_engine *e, csd_isp_req *r);     /* a new request, before the policy sees it */
    void (*start)(csd_engine *e, csd_isp_req *r);     /* the request is in: begin reading */
    void (*req_free)(csd_isp_req *r);
    void (*serve)(csd_engine *e, core *c);            /* give idle core c work, or leave it idle */
    void (*room)(csd_engine *e);                      /* buffer room or a request may be able to go on */
    void (*page_done)(csd_engine *e, core *c, csd_isp_req *r, uint64_t rel);
    void (*send_done)(csd_engine *e, core *c);
    void (*dropped)(csd_engine *e, csd_isp_req *r, uint64_t rel);   /* a READY page was dropped */
    void (*remove)(csd_engine *e, csd_isp_req *r);    /* dead or released: leave the cores */
    int (*resize)(csd_engine *e, csd_isp_req *r, uint64_t old_pages);   /* last grew or shrank */
    int (*check)(const csd_engine *e, char *err, size_t errlen);        /* invariants; 0 or -1 */
} csd_issue_model;

extern const csd_issue_model csd_issue_batch, csd_issue_stage;

/* The model named name ("batch", "stage"), or NULL; the i-th, NULL past the last (issue_registry.c). */
const csd_issue_model *csd_issue_find(const char *name);
const csd_issue_model *csd_issue_at(size_t i);

#endif
