/* Physical page numbers <-> (channel, chip, die, plane, block, page). Units (planes) are numbered
 * channel-major, so consecutive units of one chip sit together and the FTL can stripe by unit. */
#include "flash/flash.h"

uint32_t csd_units(const csd_params *p) {
    return p->channels * p->chips_per_channel * p->dies_per_chip * p->planes_per_die;
}

void csd_ppn_decode(const csd_params *p, uint64_t ppn, csd_addr *a) {
    uint64_t ppb = p->pages_per_block ? p->pages_per_block : 1;
    uint64_t bpp = p->blocks_per_plane ? p->blocks_per_plane : 1;
    uint64_t planes = p->planes_per_die ? p->planes_per_die : 1;
    uint64_t dies = p->dies_per_chip ? p->dies_per_chip : 1;
    uint64_t cpc = p->chips_per_channel ? p->chips_per_channel : 1;
    a->page = (uint32_t)(ppn % ppb);
    uint64_t blk = ppn / ppb;
    a->block = (uint32_t)(blk % bpp);
    uint64_t unit = blk / bpp;
    a->plane = (uint32_t)(unit % planes);
    uint64_t die = unit / planes;
    a->die = (uint32_t)(die % dies);
    uint64_t chip = die / dies;
    a->chip_global = (uint32_t)chip;
    a->chip = (uint32_t)(chip % cpc);
    a->channel = (uint32_t)(chip / cpc);
}

uint64_t csd_ppn_encode(const csd_params *p, const csd_addr *a) {
    uint64_t chip = (uint64_t)a->channel * p->chips_per_channel + a->chip;
    uint64_t unit = (chip * p->dies_per_chip + a->die) * p->planes_per_die + a->plane;
    return (unit * p->blocks_per_plane + a->block) * p->pages_per_block + a->page;
}

int csd_ppn_is_slc(const csd_params *p, uint64_t ppn) {
    if (!p->slc_share_pct) return 0;
    uint64_t ppb = p->pages_per_block ? p->pages_per_block : 1;
    uint64_t bpp = p->blocks_per_plane ? p->blocks_per_plane : 1;
    return (ppn / ppb) % bpp < csd_params_slc_blocks(p);
}

uint64_t csd_flash_cell_ns(const csd_params *p, uint8_t kind, uint64_t ppn) {
    int slc = csd_ppn_is_slc(p, ppn);
    switch (kind) {
    case CSD_FLASH_READ: return slc ? p->t_read_slc_ns : p->t_read_ns;
    case CSD_FLASH_PROGRAM: return slc ? p->t_prog_slc_ns : p->t_prog_ns;
    default: return slc ? p->t_erase_slc_ns : p->t_erase_ns;
    }
}
