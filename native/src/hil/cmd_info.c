/* identify and stats: what the device is and what it has done. */
#include "hil/cmd.h"
#include "sandbox/sandbox.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct param_list {
    cmd_ctx *c;
    Smartssd__V1__Param **arr;
    size_t n, cap;
    int oom;
} param_list;

static void add_param(param_list *l, const char *key, const char *value) {
    if (l->oom || l->n == l->cap) {
        l->oom = 1;
        return;
    }
    Smartssd__V1__Param *p = cmd_alloc(l->c, sizeof *p);
    if (!p) {
        l->oom = 1;
        return;
    }
    smartssd__v1__param__init(p);
    p->key = cmd_strdup(l->c, key);
    p->value = cmd_strdup(l->c, value);
    if (!p->key || !p->value) l->oom = 1;
    l->arr[l->n++] = p;
}

static void visit_param(void *arg, const char *key, const char *value, const char *unit) {
    add_param(arg, key, value);
}

static void visit_policy(void *arg, const char *key, const char *names) { add_param(arg, key, names); }

static void add_u64(param_list *l, const char *key, uint64_t v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    add_param(l, key, buf);
}

int cmd_identify(csd_device *d, const Smartssd__V1__Identify *m, cmd_ctx *c) {
    const csd_params *p = &d->params;
    Smartssd__V1__IdentifyReply *rep = cmd_alloc(c, sizeof *rep);
    Smartssd__V1__Geometry *g = cmd_alloc(c, sizeof *g);
    param_list l = { c, cmd_alloc(c, 128 * sizeof(Smartssd__V1__Param *)), 0, 128, 0 };
    size_t nt = 0;
    for (const csd_tasklet_ops *const *t = csd_tasklets_builtin(); *t; t++) nt++;
    char **names = cmd_alloc(c, (nt ? nt : 1) * sizeof *names);
    if (!rep || !g || !l.arr || !names) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__identify_reply__init(rep);
    smartssd__v1__geometry__init(g);
    g->channels = p->channels;
    g->chips_per_channel = p->chips_per_channel;
    g->dies_per_chip = p->dies_per_chip;
    g->planes_per_die = p->planes_per_die;
    g->blocks_per_plane = p->blocks_per_plane;
    g->pages_per_block = p->pages_per_block;
    g->page_bytes = p->page_bytes;
    rep->model = "smartssd emulated Smart SSD";
    rep->preset = (char *)p->preset;
    rep->geometry = g;
    rep->capacity_bytes = csd_ftl_capacity(d->ftl);
    rep->physical_bytes = csd_ftl_physical_pages(d->ftl) * p->page_bytes;
    rep->cores = p->cores;
    rep->request_scheduler = (char *)p->request_scheduler;
    rep->chip_scheduler = (char *)p->chip_scheduler;
    rep->ftl = (char *)p->ftl;
    rep->flash_scheduler = (char *)p->flash_scheduler;
    rep->placement = (char *)p->placement;
    rep->issue_model = (char *)csd_engine_issue_model(d->eng);
    nt = 0;
    for (const csd_tasklet_ops *const *t = csd_tasklets_builtin(); *t; t++) names[nt++] = (char *)(*t)->name;
    rep->n_tasklets = nt;
    rep->tasklets = names;
    csd_params_visit(p, visit_param, &l);
    /* derived geometry and wear: SLC-mode blocks per plane, each region's most-erased block */
    csd_ftl_wear w;
    csd_ftl_wear_get(d->ftl, &w);
    add_u64(&l, "slc_blocks_per_plane", csd_ftl_slc_blocks(d->ftl));
    add_u64(&l, "wear.tlc.pe_max", w.pe_max[0]);
    add_u64(&l, "wear.slc.pe_max", w.pe_max[1]);
    if (l.oom) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    rep->n_params = l.n;
    rep->params = l.arr;
    param_list pl = { c, cmd_alloc(c, 16 * sizeof(Smartssd__V1__Param *)), 0, 16, 0 };
    if (!pl.arr) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    csd_policies_visit(visit_policy, &pl);
    if (pl.oom) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    rep->n_policies = pl.n;
    rep->policies = pl.arr;
    /* user tasklets */
    rep->n_user_tasklets = device_program_names(d, c, &rep->user_tasklets);
    rep->sandbox = (char *)csd_sandbox_name();
    rep->trusted_dir = (char *)p->tasklet_trusted_dir;
    rep->protocol_version = CSD_PROTOCOL_VERSION;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_IDENTIFY;
    c->resp->identify = rep;
    return 0;
}

/* What a live view needs beside the totals: each run's progress, by output object. */
static void add_runs(csd_device *d, param_list *l) {
    for (vobj *o = d->vobjs; o; o = o->next) {
        if (o->state != RUN_RUNNING || !o->req) continue;
        csd_isp_progress p;
        csd_engine_progress(d->eng, o->req, &p);
        vobj *t = vobj_find(d, o->tasklet_id);
        char key[64];
        snprintf(key, sizeof key, "run.%" PRIu64 ".tasklet", o->id);
        add_param(l, key, t && t->ops ? t->ops->name : "?");
        snprintf(key, sizeof key, "run.%" PRIu64 ".pages_done", o->id);
        add_u64(l, key, p.pages_done);
        snprintf(key, sizeof key, "run.%" PRIu64 ".pages_total", o->id);
        add_u64(l, key, p.pages_total);
        snprintf(key, sizeof key, "run.%" PRIu64 ".device_ns", o->id);
        add_u64(l, key, p.device_ns);
    }
}

static void add_place(void *arg, const char *key, uint64_t v) {
    char k[64];
    snprintf(k, sizeof k, "place.%s", key);
    add_u64(arg, k, v);
}

/* Cell regions, wear and I/O latency (docs/HYBRID.md "Counters"). */
static void add_hybrid(csd_device *d, param_list *l, const csd_ftl_counters *fc) {
    static const char *const RN[2] = { "tlc", "slc" };
    uint64_t pb = d->params.page_bytes;
    csd_ftl_wear w;
    csd_ftl_wear_get(d->ftl, &w);
    char k[64];
    add_u64(l, "io.commands", d->counters.io_commands);
    add_u64(l, "io.device_ns", d->counters.io_ns);
    add_u64(l, "io.avg_latency_ns", d->counters.io_commands ? d->counters.io_ns / d->counters.io_commands : 0);
    add_u64(l, "ftl.migrated_pages", fc->migrated_pages);
    add_u64(l, "wear.total_erases", w.erases[0] + w.erases[1]);
    /* hybrid paper VI-B: durability = MIN over regions of blocks x max P/E / erases (regions that were
     * not erased do not bound it); in thousandths, over every erase of the image so far */
    uint64_t dur = UINT64_MAX;
    for (int r = 0; r < 2; r++) {
        uint64_t life = w.blocks[r] * (uint64_t)w.pe_limit[r];
        snprintf(k, sizeof k, "region.%s.reads", RN[r]);
        add_u64(l, k, fc->region_reads[r]);
        snprintf(k, sizeof k, "region.%s.programs", RN[r]);
        add_u64(l, k, fc->region_programs[r]);
        snprintf(k, sizeof k, "region.%s.bytes_read", RN[r]);
        add_u64(l, k, fc->region_reads[r] * pb);
        snprintf(k, sizeof k, "region.%s.bytes_written", RN[r]);
        add_u64(l, k, fc->region_programs[r] * pb);
        snprintf(k, sizeof k, "region.%s.host_reads", RN[r]);
        add_u64(l, k, fc->region_host_reads[r]);
        snprintf(k, sizeof k, "region.%s.host_programs", RN[r]);
        add_u64(l, k, fc->region_host_programs[r]);
        snprintf(k, sizeof k, "region.%s.erases", RN[r]);
        add_u64(l, k, fc->region_erases[r]);
        snprintf(k, sizeof k, "wear.%s.blocks", RN[r]);
        add_u64(l, k, w.blocks[r]);
        snprintf(k, sizeof k, "wear.%s.erases", RN[r]);
        add_u64(l, k, w.erases[r]);
        snprintf(k, sizeof k, "wear.%s.pe_max", RN[r]);
        add_u64(l, k, w.pe_max[r]);
        snprintf(k, sizeof k, "wear.%s.pe_mean_milli", RN[r]);
        add_u64(l, k, w.blocks[r] ? w.erases[r] * 1000 / w.blocks[r] : 0);
        snprintf(k, sizeof k, "wear.%s.pe_limit", RN[r]);
        add_u64(l, k, w.pe_limit[r]);
        snprintf(k, sizeof k, "wear.%s.durability", RN[r]);
        add_u64(l, k, life);
        snprintf(k, sizeof k, "wear.%s.life_left_permille", RN[r]);
        add_u64(l, k, life ? (w.erases[r] >= life ? 0 : (life - w.erases[r]) * 1000 / life) : 0);
        if (w.blocks[r] && w.erases[r] && life * 1000 / w.erases[r] < dur) dur = life * 1000 / w.erases[r];
    }
    if (dur != UINT64_MAX) add_u64(l, "wear.durability_milli", dur);
    csd_ftl_place_report(d->ftl, add_place, l);
}

int cmd_stats(csd_device *d, const Smartssd__V1__Stats *m, cmd_ctx *c) {
    Smartssd__V1__StatsReply *rep = cmd_alloc(c, sizeof *rep);
    const csd_params *pp = &d->params;
    uint32_t chips = pp->channels * pp->chips_per_channel;
    size_t cap = 192 + pp->cores + chips + 4 * (size_t)d->running;
    param_list l = { c, cmd_alloc(c, cap * sizeof(Smartssd__V1__Param *)), 0, cap, 0 };
    if (!rep || !l.arr) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__stats_reply__init(rep);
    csd_ftl_counters fc;
    csd_ftl_counters_get(d->ftl, &fc);
    csd_engine_stats es;
    csd_flash_stats fs;
    csd_engine_stats_get(d->eng, &es, &fs);
    add_u64(&l, "flash.reads", fs.reads);
    add_u64(&l, "flash.programs", fs.programs);
    add_u64(&l, "flash.erases", fs.erases);
    add_u64(&l, "flash.bytes_read", fs.bytes_read);
    add_u64(&l, "flash.bytes_written", fs.bytes_written);
    add_u64(&l, "host.bytes_in", es.host_bytes_in);
    add_u64(&l, "host.bytes_out", es.host_bytes_out);
    add_u64(&l, "host.commands", es.host_commands);
    add_u64(&l, "isp.requests", es.isp_requests);
    add_u64(&l, "isp.pages", es.isp_pages);
    add_u64(&l, "isp.core_ns", es.isp_core_ns);
    add_u64(&l, "isp.buffer_peak_bytes", es.isp_buffer_peak_bytes);
    add_u64(&l, "ftl.host_pages_written", fc.host_pages_written);
    add_u64(&l, "ftl.host_pages_read", fc.host_pages_read);
    add_u64(&l, "ftl.zero_pages_unstored", fc.zero_pages_unstored);
    add_u64(&l, "ftl.gc_runs", fc.gc_runs);
    add_u64(&l, "ftl.gc_pages_moved", fc.gc_pages_moved);
    add_u64(&l, "ftl.trimmed_pages", fc.trimmed_pages);
    add_u64(&l, "ftl.free_blocks", fc.free_blocks);
    add_u64(&l, "ftl.total_blocks", fc.total_blocks);
    add_u64(&l, "ftl.logical_pages_used", fc.logical_pages_used);
    add_u64(&l, "ftl.logical_pages_capacity", fc.logical_pages_capacity);
    add_hybrid(d, &l, &fc);
    add_u64(&l, "ftl.map_hits", fc.map_hits);
    add_u64(&l, "ftl.map_misses", fc.map_misses);
    add_u64(&l, "ftl.map_evictions", fc.map_evictions);
    /* one counter per command the protocol has, named as in the schema, so a new command is counted
     * without touching this list */
    const ProtobufCMessageDescriptor *rd = &smartssd__v1__request__descriptor;
    for (unsigned i = 0; i < rd->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &rd->fields[i];
        if (fd->id < 10 || fd->id - 10 >= CSD_CMD_KINDS) continue;
        char key[64];
        snprintf(key, sizeof key, "commands.%s", fd->name);
        add_u64(&l, key, d->counters.by_kind[fd->id - 10]);
    }
    add_u64(&l, "block.reads", d->counters.blk_by_op[1]);
    add_u64(&l, "block.writes", d->counters.blk_by_op[2]);
    add_u64(&l, "block.trims", d->counters.blk_by_op[3]);
    add_u64(&l, "block.flushes", d->counters.blk_by_op[4]);
    add_u64(&l, "block.failed", d->counters.blk_failed);
    add_u64(&l, "block.outstanding", csd_engine_blk_outstanding_all(d->eng));
    add_u64(&l, "commands.errors", d->counters.errors);
    add_u64(&l, "commands.bad_packets", d->counters.bad_packets);
    add_u64(&l, "sessions.open", d->n_sessions);
    add_u64(&l, "sessions.objects_reclaimed", d->counters.vobjs_reclaimed);
    add_u64(&l, "sessions.runs_cancelled", d->counters.runs_cancelled);
    for (uint32_t k = 0; k < pp->cores; k++) {
        char key[48];
        snprintf(key, sizeof key, "core.%u.busy_ns", k);
        add_u64(&l, key, csd_engine_core_busy_ns(d->eng, k));
    }
    for (uint32_t k = 0; k < chips; k++) {
        char key[48];
        snprintf(key, sizeof key, "chip.%u.queued", k);
        add_u64(&l, key, csd_engine_chip_queued(d->eng, k));
    }
    add_u64(&l, "isp.running", (uint64_t)d->running);
    add_u64(&l, "isp.buffer_used_bytes", es.isp_buffer_used_bytes);
    add_runs(d, &l);
    add_u64(&l, "paced.slices", d->paced_slices);
    add_u64(&l, "paced.behind", d->paced_behind);
    add_u64(&l, "paced.behind_max_ns", d->paced_behind_max_ns);
    add_u64(&l, "paced.sleep_ns", d->paced_sleep_ns);
    if (l.oom) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    rep->n_counters = l.n;
    rep->counters = l.arr;
    rep->device_clock_ns = csd_engine_now(d->eng);
    Smartssd__V1__Backlog *bl = cmd_alloc(c, sizeof *bl);
    if (!bl) return cmd_fail(c, CSD_RESOURCE_EXHAUSTED, "out of memory");
    smartssd__v1__backlog__init(bl);
    csd_engine_backlog b;
    csd_engine_backlog_get(d->eng, &b);
    bl->requests = b.requests;
    bl->pages_left = b.pages_left;
    bl->pages_unpriced = b.pages_unpriced;
    bl->pages_unread = b.pages_unread;
    bl->core_ns_left = b.core_ns_left;
    bl->flash_page_ns = b.flash_page_ns;
    bl->flash_ns_left = b.flash_ns_left;
    bl->link_ns_left = b.link_ns_left;
    bl->block_in_service = b.block_in_service;
    bl->drain_ns = b.drain_ns;
    rep->backlog = bl;
    c->resp->result_case = SMARTSSD__V1__RESPONSE__RESULT_STATS;
    c->resp->stats = rep;
    return 0;
}
