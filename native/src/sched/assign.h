/* REMUS workload assignment (Huang et al., section III-B): LBA -> chip -> core. */
#ifndef CSD_SCHED_ASSIGN_H
#define CSD_SCHED_ASSIGN_H

#include <stdint.h>

/* Equation (4): chip_lba = floor(LBA / (N_pl * page_size)) % (N_ch * Channel_Num), LBA in bytes.
 * (N_ch is the paper's chips per channel, so the modulus is the number of chips.) */
uint32_t csd_assign_chip(uint64_t lba_bytes, uint32_t planes, uint32_t page_bytes, uint32_t chips);

/* Equation (5): cpu_id = chip_lba % N_c. */
uint32_t csd_assign_core(uint32_t chip, uint32_t cores);

/* Section III-B: a sub-request whose start LBA (in pages) is a multiple of N_pl can be a multi-plane
 * read of N_pl pages; otherwise it is one page. Returns the sub-request's page count. */
uint32_t csd_assign_subreq_pages(uint64_t lba_page, uint32_t planes);

#endif
