/* How the baselines (fcfs, cfs, horae, serico) are adapted to a multi-core CSD: the parameter
 * baseline_adaptation (docs/SCHEDULERS.md, "Two adaptations"). REMUS (Huang et al.) is the same under
 * every adaptation: its workload assignment (section III-B) and buffer allocation (III-D) are its own.
 *
 *   shared-engine  every policy gets the engine's REMUS-like machinery: the per-chip core split
 *                  (eq. 4-5), whole multi-plane reads, chip-aware send order and the decoupled
 *                  send-while-processing loop (the default; what the engine always did)
 *   paper          each baseline as a plain multi-core adaptation (section IV-A: "modified to adapt
 *                  to multiple cores"): a request runs whole on the least loaded core and contends
 *                  for every chip, sends in LBA order with a multi-plane read only where the batch
 *                  happens to be aligned, FCFS and CFS couple send and process (Fig. 2) and SERICO's
 *                  ping-pong halves add up to the others' buffer, each processed whole (section II-B);
 *                  HORAE's reading of its critical path is a parameter of its own
 *                  (horae_critical_path), the same under every adaptation
 *
 * Modifiers switch one engine advantage on for the ablation: "+split", "+mp" (whole multi-plane
 * groups), "+order" (chip-aware send order), "+loop" (decoupled loop), "+pol" (SERICO's
 * shared-engine version), all four under paper only, and "+eq12" (the baselines' buffers by REMUS
 * eq. 12; either base). E.g. "paper+split+mp"; "paper+split+mp+order+loop+pol" is shared-engine. */
#ifndef CSD_SCHED_ADAPT_H
#define CSD_SCHED_ADAPT_H

#include <stddef.h>
#include <stdint.h>

enum {
    CSD_ADAPT_SPLIT = 1u << 0,        /* III-B: each request split per core by LBA -> chip -> core */
    CSD_ADAPT_WHOLE_MP = 1u << 1,     /* multi-plane groups go whole; a policy sees N_pl-page units */
    CSD_ADAPT_CHIP_ORDER = 1u << 2,   /* a send picks the pages whose chips are least busy */
    CSD_ADAPT_DECOUPLED = 1u << 3,    /* fcfs / cfs refill while processing (else Fig. 2's loop) */
    CSD_ADAPT_PAPER_POLICY = 1u << 4, /* serico: halves of Q, each processed whole */
    CSD_ADAPT_EQ12 = 1u << 5,         /* baselines' buffer B_i = Q + ceil(c_i) pages (III-D) */
};
#define CSD_ADAPT_ENGINE (CSD_ADAPT_SPLIT | CSD_ADAPT_WHOLE_MP | CSD_ADAPT_CHIP_ORDER | CSD_ADAPT_DECOUPLED)
#define CSD_ADAPT_DEFAULT "shared-engine"

/* Parse a baseline_adaptation value ("" = the default) into CSD_ADAPT_* bits. 0, or -EINVAL with err
 * naming what is wrong. */
int csd_adapt_parse(const char *s, uint32_t *bits, char *err, size_t errlen);

/* The bases and modifiers, for identify and error messages. */
#define CSD_ADAPT_KNOWN "shared-engine, paper (modifiers: +split, +mp, +order, +loop, +pol, +eq12)"

#endif
