/* Device parameters: presets, text form, validation. The field table drives set/visit so the config
 * file, the image superblock and `identify` all speak the same keys. */
#include "config/config.h"
#include "host/settings.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_U32, F_U64, F_BYTES, F_NAME, F_PATH } field_type;

typedef struct field {
    const char *key;
    field_type type;
    size_t off;
    const char *unit;
    int fixed;               /* fixed at format: the image's value holds in every session */
} field;

#define FLD(name, type, unit) { #name, type, offsetof(csd_params, name), unit, 0 }
/* fixed at format: the geometry, the object table and the layers whose state is on the image */
#define FIXED(name, type, unit) { #name, type, offsetof(csd_params, name), unit, 1 }
/* one of the emulator's settings: word i of csd_params.emulator (host/settings.h) */
#define EMU(key, i, unit) { key, F_U32, offsetof(csd_params, emulator) + (i) * sizeof(uint32_t), unit, 0 }

static const field FIELDS[] = {
    FLD(preset, F_NAME, "name"),
    FIXED(channels, F_U32, "count"),
    FIXED(chips_per_channel, F_U32, "count"),
    FIXED(dies_per_chip, F_U32, "count"),
    FIXED(planes_per_die, F_U32, "count"),
    FIXED(pages_per_block, F_U32, "count"),
    FIXED(page_bytes, F_U32, "bytes"),
    FIXED(blocks_per_plane, F_U32, "count"),
    FIXED(overprovision_pct, F_U32, "percent"),
    FLD(gc_free_blocks_min, F_U32, "blocks"),
    FLD(t_read_ns, F_U64, "ns"),
    FLD(t_prog_ns, F_U64, "ns"),
    FLD(t_erase_ns, F_U64, "ns"),
    FLD(channel_bytes_per_s, F_U64, "bytes/s"),
    FLD(fw_page_ns, F_U64, "ns"),
    FLD(host_link_bytes_per_s, F_U64, "bytes/s"),
    FLD(cmd_overhead_ns, F_U64, "ns"),
    FLD(cores, F_U32, "count"),
    FLD(core_mhz, F_U32, "MHz"),
    FLD(dram_access_ns, F_U64, "ns"),
    FLD(page_cycles, F_U32, "cycles"),
    FLD(isp_batch_pages, F_U32, "pages"),
    FLD(isp_buffer_bytes, F_BYTES, "bytes"),
    FLD(isp_send_ns, F_U64, "ns"),
    FLD(isp_flash_quota, F_U32, "pages"),
    FLD(output_buffer_bytes, F_BYTES, "bytes"),
    FIXED(max_objects, F_U32, "count"),
    FLD(issue_model, F_NAME, "name"),
    FLD(request_scheduler, F_NAME, "policy"),
    FLD(chip_scheduler, F_NAME, "policy"),
    FIXED(ftl, F_NAME, "policy"),          /* the map's home is on the image */
    FLD(flash_scheduler, F_NAME, "policy"),
    FIXED(placement, F_NAME, "policy"),    /* the data's layout is on the image */
    /* request schedulers: the baselines' multi-core adaptation */
    FLD(baseline_adaptation, F_NAME, "name"),
    FLD(remus_qthres_cap, F_U32, "bool"),
    FLD(horae_critical_path, F_NAME, "name"),
    FLD(serico_period_ns, F_U64, "ns"),
    FLD(serico_edf, F_NAME, "name"),
    FLD(serico_half_pages, F_U32, "pages"),
    FLD(trace_file, F_PATH, "path"),
    FLD(trace_events, F_U64, "events"),
    FLD(trace_from_ns, F_U64, "ns"),
    FLD(trace_to_ns, F_U64, "ns"),
    /* two-stage processing and ISP-aware chip scheduling (2PM) */
    FLD(pm_bytes_per_s, F_U64, "bytes/s"),
    FLD(chip_queue_slots, F_U32, "count"),
    FLD(chip_max_passes, F_U32, "count"),
    FLD(flash_suspend, F_U32, "bool"),
    /* user tasklets */
    FLD(tasklet_memory_bytes, F_BYTES, "bytes"),
    FLD(tasklet_fuel_per_page, F_U64, "instructions"),
    FLD(tasklet_cycles_per_kfuel, F_U32, "cycles"),
    FLD(tasklet_stack_bytes, F_BYTES, "bytes"),
    FLD(tasklet_trusted_dir, F_PATH, "path"),
    FLD(paced, F_U32, "bool"),
    FLD(sync_writes, F_U32, "bool"),
    FLD(discard_data, F_U32, "bool"),
    /* hardening: clients of a daemon */
    FLD(orphan_timeout_ms, F_U64, "ms"),
    /* hybrid SLC/TLC cells and wear */
    FLD(slc_share_pct, F_U32, "percent"),
    FLD(slc_pages_per_block, F_U32, "count"),
    FLD(t_read_slc_ns, F_U64, "ns"),
    FLD(t_prog_slc_ns, F_U64, "ns"),
    FLD(t_erase_slc_ns, F_U64, "ns"),
    FLD(pe_cycles_slc, F_U32, "cycles"),
    FLD(pe_cycles_tlc, F_U32, "cycles"),
    FLD(gc_free_pct, F_U32, "percent"),
    FLD(level_balance_weight_pct, F_U32, "percent"),
    FLD(combo_small_bytes, F_U32, "bytes"),   /* a uint32_t: F_BYTES would write 8 bytes over the next field */
    FLD(level_balance_ours, F_U32, "bool"),
    FLD(level_migrate_any, F_U32, "bool"),
    FLD(gc_free_device, F_U32, "bool"),
    FLD(level_phi_pct, F_U32, "percent"),
    /* host block I/O */
    FLD(block_queue_depth, F_U32, "requests"),
    FLD(flash_queue_depth, F_U32, "commands"),
    /* map-cached FTL */
    FLD(map_cache_bytes, F_BYTES, "bytes"),
    FLD(map_cache_line_entries, F_U32, "entries"),
    /* the emulator itself */
    EMU("host_threads", CSD_HOST_THREADS_AT, "count"),
    /* run-ahead per request */
    EMU("host_ahead_min_ns", CSD_HOST_AHEAD_MIN_NS_AT, "ns"),
    /* the reader thread */
    EMU("host_reader", CSD_HOST_READER_AT, "bool"),
};
#define NFIELDS (sizeof FIELDS / sizeof FIELDS[0])

static void name_set(char *dst, const char *src) {
    snprintf(dst, CSD_NAME_MAX, "%s", src);
}

/* The Smart SSD paper's device (section V-A): SATA 3 Gb/s, 16 channels, SLC, 8 KB pages, 2 ARM
 * cores, internal reads of 128 pages. Timing values not given by the paper are documented as
 * assumptions in docs/DEVICE-CONFIG.md. */
static void preset_paper(csd_params *p) {
    memset(p, 0, sizeof *p);
    name_set(p->preset, "smartssd-paper");
    p->channels = 16;
    p->chips_per_channel = 4;
    p->dies_per_chip = 1;
    p->planes_per_die = 1;
    p->pages_per_block = 128;
    p->page_bytes = 8192;
    p->blocks_per_plane = 0;
    p->overprovision_pct = 7;
    p->gc_free_blocks_min = 2;
    p->t_read_ns = 25000;
    p->t_prog_ns = 200000;
    p->t_erase_ns = 1500000;
    p->channel_bytes_per_s = 46875000;   /* 16 channels = 2.5x the host link (paper V-B-1, spec) */
    p->fw_page_ns = 15170;               /* serial firmware cost: internal reads 1.8x the link (measured) */
    p->host_link_bytes_per_s = 300000000;/* SATA 3 Gb/s after 8b/10b */
    p->cmd_overhead_ns = 20000;
    p->cores = 2;
    p->core_mhz = 400;
    p->dram_access_ns = 380;
    p->page_cycles = 2000;
    p->isp_batch_pages = 128;
    p->isp_buffer_bytes = 2u << 20;
    p->output_buffer_bytes = 64u << 20;
    p->max_objects = 65536;
    p->trace_events = 1000000;
    name_set(p->issue_model, "batch");
    name_set(p->request_scheduler, "fcfs");
    name_set(p->chip_scheduler, "fcfs");
    name_set(p->ftl, "page");
    name_set(p->flash_scheduler, "fifo");
    name_set(p->placement, "stripe");
    name_set(p->baseline_adaptation, "shared-engine");
    p->remus_qthres_cap = 1;
    name_set(p->horae_critical_path, "remaining");
    p->serico_period_ns = 1000000;      /* an assumption: the paper gives no period (docs/SCHEDULERS.md) */
    name_set(p->serico_edf, "stage");
    p->orphan_timeout_ms = 60000;
    p->map_cache_bytes = 1024;          /* the DRS paper's default (VI-A) */
    p->map_cache_line_entries = 8;
    CSD_HOST_THREADS(p) = 1;
    CSD_HOST_AHEAD_MIN_NS(p) = 4000;
    CSD_HOST_READER(p) = 1;   /* for the requests the engine's thread feeds itself (docs/perf-journal.md, "The reader thread") */
    /* user tasklets */
    p->tasklet_memory_bytes = 64u << 20;
    p->tasklet_fuel_per_page = 100000000;
    p->tasklet_cycles_per_kfuel = 1000;
    p->tasklet_stack_bytes = 512u << 10;
    /* one cell type; the SLC values only matter once slc_share_pct > 0 */
    p->slc_pages_per_block = 128;
    p->t_read_slc_ns = 25000;
    p->t_prog_slc_ns = 200000;
    p->t_erase_slc_ns = 1500000;
    p->pe_cycles_slc = 100000;
    p->pe_cycles_tlc = 3000;
    p->level_balance_weight_pct = 10;
    p->level_phi_pct = 100;
    p->combo_small_bytes = 64u << 10;
    p->block_queue_depth = 64;
}

/* Small and round numbers, so tests can derive times by hand. */
static void preset_tiny(csd_params *p) {
    preset_paper(p);
    name_set(p->preset, "tiny");
    p->channels = 2;
    p->chips_per_channel = 2;
    p->pages_per_block = 16;
    p->page_bytes = 4096;
    p->overprovision_pct = 25;
    p->t_read_ns = 10000;
    p->t_prog_ns = 100000;
    p->t_erase_ns = 1000000;
    p->channel_bytes_per_s = 409600000;  /* one page = 10,000 ns */
    p->fw_page_ns = 1000;
    p->host_link_bytes_per_s = 409600000;
    p->cmd_overhead_ns = 5000;
    p->core_mhz = 1000;                  /* one cycle = 1 ns */
    p->dram_access_ns = 100;
    p->page_cycles = 1000;
    p->isp_batch_pages = 8;
    p->isp_buffer_bytes = 64u << 10;
    p->output_buffer_bytes = 1u << 20;
    p->max_objects = 1024;
}

/* The YS9203-like platform of the REMUS paper (Huang et al., section IV-A "Testbed", Fig. 5): 2 ARM
 * Cortex-R4 cores, 8 channels x 2 chips, 1 die and 4 planes per chip, 4 KB pages, 400 MB of DRAM for
 * CSD applications. Stage S costs T_s = 1 us per flash request and a read T_f = 65 us, the values of
 * the paper's simulator (section IV-B), which mimics this platform; the channel and firmware costs
 * are folded into T_f. */
static void preset_ys9203(csd_params *p) {
    preset_paper(p);
    name_set(p->preset, "ys9203");
    p->channels = 8;
    p->chips_per_channel = 2;
    p->dies_per_chip = 1;
    p->planes_per_die = 4;
    p->pages_per_block = 256;
    p->page_bytes = 4096;
    p->t_read_ns = 65000;
    p->channel_bytes_per_s = 1ull << 50; /* a page moves in 4 ns: T_f is (almost) the whole read */
    p->fw_page_ns = 0;
    p->core_mhz = 1000;                  /* one cycle = 1 ns, so tasklet costs read as ns */
    p->dram_access_ns = 0;               /* the paper's c_i (IV-C) are whole per-page times */
    p->page_cycles = 0;
    p->isp_batch_pages = 128;
    p->isp_buffer_bytes = 400ull << 20;
    name_set(p->issue_model, "stage");   /* stages S, F and P (REMUS II-C) */
    p->isp_send_ns = 1000;
    p->host_link_bytes_per_s = 1600000000ull; /* assumed PCIe 3.0 x2 (not in the paper; docs/SCHEDULERS.md) */
}

/* The 2PM paper's device (Yoon et al., IEEE Access 2021, Table 1): 4 KB pages, TLC timing (tR 50 us,
 * tProg 700 us, tBER 3.5 ms), 1 GB/s channels, PCIe Gen4 x4, a pattern-matching unit of 1 GB/s on
 * every channel, 16 chips in one group (Table 1: 2-64) and a sub-request queue of 16 (4-32), with the
 * paper's scheduler, 2pm+. What Table 1 leaves open is an assumption named in docs/2PM.md: the
 * geometry (8 channels x 2 chips, 256 pages per block), no firmware cost per page (the paper's
 * controller model has none), the command overhead, the pass bound and the ISP buffer. */
static void preset_2pm(csd_params *p) {
    preset_paper(p);
    name_set(p->preset, "2pm");
    p->channels = 8;
    p->chips_per_channel = 2;
    p->pages_per_block = 256;
    p->page_bytes = 4096;
    p->t_read_ns = 50000;
    p->t_prog_ns = 700000;
    p->t_erase_ns = 3500000;
    p->channel_bytes_per_s = 1000000000;
    p->fw_page_ns = 0;
    p->host_link_bytes_per_s = 7876923077ull; /* PCIe Gen4 x4: 4 x 16 GT/s x 128/130 bits */
    p->cmd_overhead_ns = 5000;
    p->isp_batch_pages = 256;
    p->isp_buffer_bytes = 64u << 20;
    p->pm_bytes_per_s = 1000000000;
    p->chip_queue_slots = 16;
    p->chip_max_passes = 8;
    name_set(p->chip_scheduler, "2pm+");
}

/* The hybrid paper's SLC/TLC device (Table 2): 16 KB pages, 4 channels x 2 ways, one plane; SLC
 * mode 50/300 us read/program and 256 pages per block, TLC 250/2500 us and 768 pages, erase 10 ms,
 * 100,000 vs 2,500 P/E cycles, 10% free-block retention per region, 20% over-provisioning, 10% of
 * the blocks in SLC mode (Table 4's largest share), placement "level" with BalancingWeight 0.1.
 * Channel speed, firmware and link costs are not in the paper: assumptions in docs/HYBRID.md. */
static void preset_hybrid(csd_params *p) {
    preset_paper(p);
    name_set(p->preset, "hybrid");
    p->channels = 4;
    p->chips_per_channel = 2;
    p->dies_per_chip = 1;
    p->planes_per_die = 1;
    p->page_bytes = 16384;
    p->pages_per_block = 768;
    p->slc_pages_per_block = 256;
    p->overprovision_pct = 20;
    p->gc_free_blocks_min = 2;
    p->gc_free_pct = 10;
    p->t_read_ns = 250000;
    p->t_prog_ns = 2500000;
    p->t_erase_ns = 10000000;
    p->t_read_slc_ns = 50000;
    p->t_prog_slc_ns = 300000;
    p->t_erase_slc_ns = 10000000;
    p->pe_cycles_slc = 100000;
    p->pe_cycles_tlc = 2500;
    p->slc_share_pct = 10;
    p->channel_bytes_per_s = 400000000;  /* assumed ONFI 400 MB/s: a 16 KB page in 40,960 ns */
    p->fw_page_ns = 0;
    p->host_link_bytes_per_s = 3938461538ull; /* assumed PCIe Gen3 x4 */
    p->cmd_overhead_ns = 5000;
    p->isp_batch_pages = 64;
    p->isp_buffer_bytes = 16u << 20;
    p->level_balance_weight_pct = 10;
    name_set(p->placement, "level");
}

/* The DRS paper's device (section VI-A): a low-end embedded flash storage of one channel and one way,
 * 4 KB pages, tR 60 us and tProg 700 us, a flash command queue depth of 256 commands (the host's
 * queue of requests is not what limits it: block_queue_depth at its largest). What the paper leaves open is an assumption named in docs/BLOCK-IO.md: the erase time
 * (3.5 ms, the 2PM paper's TLC figure), the channel rate (400 MB/s: a 4 KB page in 10.24 us), no
 * firmware cost per page, 256 pages per block and the command overhead. The FTL is the map-cached one
 * with the paper's 1 KB map cache. */
static void preset_drs(csd_params *p) {
    preset_paper(p);
    name_set(p->preset, "drs");
    p->channels = 1;
    p->chips_per_channel = 1;
    p->pages_per_block = 256;
    p->page_bytes = 4096;
    p->t_read_ns = 60000;
    p->t_prog_ns = 700000;
    p->t_erase_ns = 3500000;
    p->channel_bytes_per_s = 400000000;
    p->fw_page_ns = 0;
    p->host_link_bytes_per_s = 1600000000ull;
    p->cmd_overhead_ns = 5000;
    p->block_queue_depth = 65536;
    p->flash_queue_depth = 256;
    /* flash_scheduler stays fifo unless chosen (bench drs runs every scheduler) */
    name_set(p->ftl, "dftl");
    p->map_cache_bytes = 1024;
}

typedef struct preset {
    const char *name;
    void (*fill)(csd_params *p);
} preset;

static const preset PRESETS[] = {
    { "smartssd-paper", preset_paper },
    { "tiny", preset_tiny },
    { "ys9203", preset_ys9203 },
    { "2pm", preset_2pm },
    { "hybrid", preset_hybrid },
    { "drs", preset_drs },
};

static const char *const PRESET_NAMES[] = { "smartssd-paper", "tiny", "ys9203", "2pm", "hybrid", "drs", NULL };

const char *const *csd_params_preset_names(void) { return PRESET_NAMES; }

int csd_params_preset(csd_params *p, const char *name) {
    if (!name || !*name) name = "smartssd-paper";
    for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++) {
        if (!strcmp(PRESETS[i].name, name)) {
            PRESETS[i].fill(p);
            return 0;
        }
    }
    return -ENOENT;
}

static const field *field_find(const char *key) {
    for (size_t i = 0; i < NFIELDS; i++)
        if (!strcmp(FIELDS[i].key, key)) return &FIELDS[i];
    return NULL;
}

/* Parses an unsigned decimal, with K/M/G/T binary suffixes when sizes is set. */
static int parse_u64(const char *s, int sizes, uint64_t *out) {
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s)) return -EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -EINVAL;
    uint64_t mul = 1;
    if (sizes && *end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1ull << 10; break;
        case 'M': mul = 1ull << 20; break;
        case 'G': mul = 1ull << 30; break;
        case 'T': mul = 1ull << 40; break;
        default: return -EINVAL;
        }
        end++;
        if (toupper((unsigned char)*end) == 'I') end++;
        if (toupper((unsigned char)*end) == 'B') end++;
    }
    while (isspace((unsigned char)*end)) end++;
    if (*end) return -EINVAL;
    if (mul > 1 && v > UINT64_MAX / mul) return -EINVAL;
    *out = (uint64_t)v * mul;
    return 0;
}

int csd_parse_size(const char *s, uint64_t *out) { return parse_u64(s, 1, out); }

int csd_params_set(csd_params *p, const char *key, const char *value, char *err, size_t errlen) {
    const field *f = field_find(key);
    if (!f) {
        snprintf(err, errlen, "unknown parameter '%s'", key);
        return -ENOENT;
    }
    char *base = (char *)p + f->off;
    uint64_t v = 0;
    switch (f->type) {
    case F_NAME:
        if (strlen(value) == 0 || strlen(value) >= CSD_NAME_MAX) {
            snprintf(err, errlen, "parameter '%s': name must be 1..%d characters", key, CSD_NAME_MAX - 1);
            return -EINVAL;
        }
        name_set(base, value);
        return 0;
    case F_PATH:
        /* "" turns it off; a path may not hold a line break (the superblock stores params as lines) */
        if (strlen(value) >= CSD_PATH_MAX || strpbrk(value, "\r\n")) {
            snprintf(err, errlen, "parameter '%s': a path of at most %d bytes on one line", key, CSD_PATH_MAX - 1);
            return -EINVAL;
        }
        snprintf(base, CSD_PATH_MAX, "%s", value);
        return 0;
    case F_U32:
        if (parse_u64(value, 0, &v) || v > UINT32_MAX) {
            snprintf(err, errlen, "parameter '%s': '%s' is not an integer in 0..%u", key, value, UINT32_MAX);
            return -EINVAL;
        }
        *(uint32_t *)base = (uint32_t)v;
        return 0;
    case F_U64:
    case F_BYTES:
        if (parse_u64(value, f->type == F_BYTES, &v)) {
            snprintf(err, errlen, "parameter '%s': '%s' is not a non-negative integer%s", key, value,
                     f->type == F_BYTES ? " (K/M/G suffixes allowed)" : "");
            return -EINVAL;
        }
        *(uint64_t *)base = v;
        return 0;
    }
    return -EINVAL;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    return s;
}

int csd_params_load_file(csd_params *p, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        return -e;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = trim(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            rc = -EINVAL;
            break;
        }
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        if (!strcmp(key, "preset")) {
            if (csd_params_preset(p, val)) {
                snprintf(err, errlen, "%s:%d: unknown preset '%s'", path, lineno, val);
                rc = -EINVAL;
                break;
            }
            continue;
        }
        char e2[256];
        rc = csd_params_set(p, key, val, e2, sizeof e2);
        if (rc) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, e2);
            if (rc == -ENOENT) rc = -EINVAL;
            break;
        }
    }
    fclose(f);
    return rc;
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* Values only: policy names are checked against the layers' registries by csd_params_validate
 * (hil/policies.c), since this base layer knows none of them. */
int csd_config_check_values(const csd_params *p, char *err, size_t errlen) {
#define REQUIRE(cond, ...) do { if (!(cond)) { snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } } while (0)
    REQUIRE(p->channels >= 1 && p->channels <= 256, "channels must be 1..256");
    REQUIRE(p->chips_per_channel >= 1 && p->chips_per_channel <= 64, "chips_per_channel must be 1..64");
    REQUIRE(p->dies_per_chip >= 1 && p->dies_per_chip <= 16, "dies_per_chip must be 1..16");
    REQUIRE(p->planes_per_die >= 1 && p->planes_per_die <= 16, "planes_per_die must be 1..16");
    REQUIRE(p->pages_per_block >= 3 && p->pages_per_block <= 4096, "pages_per_block must be 3..4096");
    REQUIRE(is_pow2(p->page_bytes) && p->page_bytes >= 512 && p->page_bytes <= 65536,
            "page_bytes must be a power of two in 512..65536");
    REQUIRE(p->overprovision_pct <= 400, "overprovision_pct must be 0..400");
    REQUIRE(p->gc_free_blocks_min >= 1, "gc_free_blocks_min must be at least 1");
    REQUIRE(p->blocks_per_plane == 0 || p->blocks_per_plane >= p->gc_free_blocks_min + 2,
            "blocks_per_plane must be 0 (derived) or at least gc_free_blocks_min + 2");
    REQUIRE(p->channel_bytes_per_s > 0, "channel_bytes_per_s must be positive");
    REQUIRE(p->host_link_bytes_per_s > 0, "host_link_bytes_per_s must be positive");
    REQUIRE(p->cores >= 1 && p->cores <= 64, "cores must be 1..64");
    REQUIRE(p->core_mhz >= 1, "core_mhz must be positive");
    REQUIRE(p->isp_batch_pages >= 1, "isp_batch_pages must be at least 1");
    REQUIRE(p->isp_buffer_bytes >= p->page_bytes, "isp_buffer_bytes must hold at least one page");
    REQUIRE(p->output_buffer_bytes >= 4096, "output_buffer_bytes must be at least 4096");
    REQUIRE(p->max_objects >= 1 && p->max_objects <= (1u << 24), "max_objects must be 1..16777216");
    REQUIRE(p->paced <= 1 && p->sync_writes <= 1 && p->discard_data <= 1, "paced, sync_writes and discard_data are 0 or 1");
    REQUIRE(CSD_HOST_READER(p) <= 1, "host_reader is 0 or 1");
    REQUIRE(p->flash_suspend <= 1, "flash_suspend is 0 or 1");
    REQUIRE(p->orphan_timeout_ms <= 86400000ull, "orphan_timeout_ms must be 0..86400000 (one day)");
    REQUIRE(p->block_queue_depth >= 1 && p->block_queue_depth <= 65536, "block_queue_depth must be 1..65536");
    REQUIRE(p->flash_queue_depth <= 65536, "flash_queue_depth must be 0 (no limit) or 1..65536");
    REQUIRE(p->map_cache_line_entries >= 1 && p->map_cache_line_entries <= 4096,
            "map_cache_line_entries must be 1..4096");
    REQUIRE(p->map_cache_bytes >= 8ull * p->map_cache_line_entries && p->map_cache_bytes <= (1ull << 30),
            "map_cache_bytes must hold at least one cache line (8 bytes an entry) and at most 1 GiB");
    REQUIRE(p->map_cache_line_entries <= (p->page_bytes - 24) / 8,
            "map_cache_line_entries must fit a map page: at most (page_bytes - 24) / 8");
    REQUIRE(CSD_HOST_THREADS(p) >= 1 && CSD_HOST_THREADS(p) <= 64, "host_threads must be 1..64");
    REQUIRE(p->remus_qthres_cap <= 1, "remus_qthres_cap is 0 or 1");
    REQUIRE(!strcmp(p->horae_critical_path, "remaining") || !strcmp(p->horae_critical_path, "predecessor"),
            "horae_critical_path is remaining or predecessor");
    REQUIRE(!strcmp(p->serico_edf, "stage") || !strcmp(p->serico_edf, "request"), "serico_edf is stage or request");
    REQUIRE(p->serico_period_ns >= 1000 && p->serico_period_ns <= 3600000000000ull,
            "serico_period_ns must be 1000..3600000000000 (1 us to an hour)");
    REQUIRE(p->trace_events >= 1 && p->trace_events <= (1ull << 32), "trace_events must be 1..4294967296");
    REQUIRE(p->tasklet_memory_bytes >= (1u << 20) && p->tasklet_memory_bytes <= (4ull << 30),
            "tasklet_memory_bytes must be 1M..4G");
    REQUIRE(p->tasklet_fuel_per_page >= 1000, "tasklet_fuel_per_page must be at least 1000");
    REQUIRE(p->tasklet_cycles_per_kfuel >= 1, "tasklet_cycles_per_kfuel must be positive");
    REQUIRE(p->tasklet_stack_bytes >= (64u << 10) && p->tasklet_stack_bytes <= (64u << 20),
            "tasklet_stack_bytes must be 64K..64M");
    REQUIRE(p->trace_to_ns == 0 || p->trace_to_ns > p->trace_from_ns, "trace_to_ns must be 0 or above trace_from_ns");
    REQUIRE(p->slc_share_pct <= 90, "slc_share_pct must be 0..90");
    REQUIRE(!p->slc_share_pct || (p->slc_pages_per_block >= 1 && p->slc_pages_per_block <= p->pages_per_block),
            "slc_pages_per_block must be 1..pages_per_block");
    REQUIRE(p->pe_cycles_slc >= 1 && p->pe_cycles_tlc >= 1, "pe_cycles_slc and pe_cycles_tlc must be positive");
    REQUIRE(p->gc_free_pct <= 50, "gc_free_pct must be 0..50");
    REQUIRE(p->level_balance_weight_pct <= 100, "level_balance_weight_pct must be 0..100");
    REQUIRE(p->level_balance_ours <= 1 && p->level_migrate_any <= 1 && p->gc_free_device <= 1,
            "level_balance_ours, level_migrate_any and gc_free_device are 0 or 1");
    REQUIRE(p->level_phi_pct >= 1 && p->level_phi_pct <= 1000, "level_phi_pct must be 1..1000");
#undef REQUIRE
    return 0;
}

uint32_t csd_params_slc_blocks(const csd_params *p) {
    if (!p->slc_share_pct || !p->blocks_per_plane) return 0;
    uint32_t n = (uint32_t)((uint64_t)p->blocks_per_plane * p->slc_share_pct / 100);
    return n ? n : 1;   /* a share rounds down to whole blocks, but a region is never empty */
}

static size_t field_bytes(const field *f) {
    switch (f->type) {
    case F_U32: return sizeof(uint32_t);
    case F_U64:
    case F_BYTES: return sizeof(uint64_t);
    case F_NAME: return CSD_NAME_MAX;
    case F_PATH: return CSD_PATH_MAX;
    }
    return 0;
}

int csd_params_fixed(const char *key) {
    const field *f = field_find(key);
    return f ? f->fixed : -ENOENT;
}

void csd_params_keep_fixed(csd_params *p, const csd_params *image) {
    for (size_t i = 0; i < NFIELDS; i++)
        if (FIELDS[i].fixed) memcpy((char *)p + FIELDS[i].off, (const char *)image + FIELDS[i].off, field_bytes(&FIELDS[i]));
}

void csd_params_visit(const csd_params *p, csd_params_visit_fn fn, void *arg) {
    char buf[64];
    for (size_t i = 0; i < NFIELDS; i++) {
        const field *f = &FIELDS[i];
        const char *base = (const char *)p + f->off;
        switch (f->type) {
        case F_NAME:
        case F_PATH: fn(arg, f->key, base, f->unit); continue;
        case F_U32: snprintf(buf, sizeof buf, "%" PRIu32, *(const uint32_t *)base); break;
        case F_U64:
        case F_BYTES: snprintf(buf, sizeof buf, "%" PRIu64, *(const uint64_t *)base); break;
        }
        fn(arg, f->key, buf, f->unit);
    }
}
