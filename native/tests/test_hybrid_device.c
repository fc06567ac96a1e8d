/* The hybrid device through its command interface: write_object's hint reaches the placement policy
 * (and is range-checked with a status and message), exact command times of SLC and TLC writes and
 * reads on the hybrid preset, and the stats counters the hybrid bench reads (docs/HYBRID.md). */
#include "devutil.h"

typedef struct counters { Smartssd__V1__StatsReply *s; Smartssd__V1__Response *r; } counters;

static counters stats(csd_device *d) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__Stats st = SMARTSSD__V1__STATS__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STATS;
    req.stats = &st;
    counters c = { NULL, dev_call(d, &req, NULL) };
    CHECK(c.r->status == 0);
    c.s = c.r->stats;
    return c;
}

static uint64_t val(const counters *c, const char *key) {
    for (size_t i = 0; i < c->s->n_counters; i++)
        if (!strcmp(c->s->counters[i]->key, key)) return strtoull(c->s->counters[i]->value, NULL, 10);
    fprintf(stderr, "no counter %s\n", key);
    exit(1);
}

static Smartssd__V1__Response *write_hint(csd_device *d, uint64_t id, uint64_t off, const void *data, size_t n,
                                          uint32_t hint) {
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.offset = off;
    w.hint = hint;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    csd_payload pl = { .in = data, .in_len = n };
    return dev_call(d, &req, &pl);
}

/* hybrid preset: one 16 KiB page crosses the host link in ceil(16384e9 / 3938461538) = 4161 ns and a
 * channel in 40,960 ns; command overhead 5,000; no firmware cost.
 *   write, SLC (hint 1 = L0): 5,000 + 4,161 + 40,960 + 300,000   =   350,121
 *   write, TLC (hint 0):      5,000 + 4,161 + 40,960 + 2,500,000 = 2,550,121
 *   read of the SLC page:     5,000 + 50,000 + 40,960 + 4,161    =   100,121 */
int main(void) {
    const char *dir = csd_test_dir("test_hybrid_device");
    csd_device *d = dev_fresh(dir, "hybrid", 64u << 20, 0);
    uint64_t a = dev_create_data(d, "sst-L0"), b = dev_create_data(d, "plain");
    static uint8_t page[16384];
    memset(page, 0x5a, sizeof page);

    Smartssd__V1__Response *r = write_hint(d, a, 0, page, sizeof page, 1);
    CHECK_EQ_INT(r->status, 0);
    uint64_t ns_slc = r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK_EQ_U64(ns_slc, 350121);
    r = write_hint(d, b, 0, page, sizeof page, 0);
    CHECK_EQ_INT(r->status, 0);
    uint64_t ns_tlc = r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK_EQ_U64(ns_tlc, 2550121);
    r = dev_read(d, a, 0, sizeof page);
    CHECK_EQ_INT(r->status, 0);
    CHECK(!memcmp(r->read_object->data.data, page, sizeof page));
    uint64_t ns_read = r->device_ns;
    smartssd__v1__response__free_unpacked(r, NULL);
    CHECK_EQ_U64(ns_read, 100121);

    /* out of range: refused with a status and a message, nothing written, the device keeps serving */
    r = write_hint(d, b, 16384, page, sizeof page, 256);
    EXPECT_STATUS(r, CSD_INVALID_ARGUMENT, "write_object: hint 256 is out of range (0..255");
    dev_still_serving(d);

    counters c = stats(d);
    CHECK_EQ_U64(val(&c, "region.slc.host_programs"), 1);
    CHECK_EQ_U64(val(&c, "region.tlc.host_programs"), 1);
    CHECK_EQ_U64(val(&c, "region.slc.host_reads"), 1);
    CHECK_EQ_U64(val(&c, "region.slc.bytes_written"), 16384);
    CHECK_EQ_U64(val(&c, "region.tlc.bytes_written"), 16384);
    CHECK_EQ_U64(val(&c, "region.slc.bytes_read"), 16384);
    CHECK_EQ_U64(val(&c, "io.commands"), 3);   /* the refused write never reached the flash */
    CHECK_EQ_U64(val(&c, "io.device_ns"), ns_slc + ns_tlc + ns_read);
    CHECK_EQ_U64(val(&c, "io.avg_latency_ns"), (ns_slc + ns_tlc + ns_read) / 3);
    CHECK_EQ_U64(val(&c, "wear.total_erases"), 0);
    CHECK_EQ_U64(val(&c, "wear.slc.pe_limit"), 100000);
    CHECK_EQ_U64(val(&c, "wear.tlc.pe_limit"), 2500);
    /* phi = (256 / 768) x (SLC / TLC blocks) x (100,000 / 2,500), from the stored geometry */
    uint64_t sb = val(&c, "wear.slc.blocks"), tb = val(&c, "wear.tlc.blocks");
    CHECK(sb >= 3 * 8 && tb > sb);
    CHECK_EQ_U64(val(&c, "place.phi_milli"), (uint64_t)(256.0 / 768 * (double)sb / (double)tb * 40 * 1000 + 0.5));
    CHECK_EQ_U64(val(&c, "place.slc_target_set"), 0);
    smartssd__v1__response__free_unpacked(c.r, NULL);
    CHECK(csd_device_close(d) == 0);
    TEST_OK("test_hybrid_device");
}
