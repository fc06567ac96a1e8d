/* Flash timing model: exact completion times derived by hand in docs/TIMING-MODEL.md ("Flash worked
 * examples"), geometry encode/decode, channel contention, firmware bottleneck, and a custom chip
 * policy (LIFO, defined here) that changes the service order. */
#include "check.h"
#include "flash/flash.h"
#include "ftl/ftl.h"

#include <errno.h>

/* paper preset: t_read 25000, page xfer 174763, fw 15170, t_prog 200000, t_erase 1500000 */
#define P_READ 25000u
#define P_XFER 174763u
#define P_FW 15170u
#define P_PROG 200000u
#define P_ERASE 1500000u

typedef struct harness {
    csd_params p;
    csd_sim *sim;
    csd_flash *f;
    csd_flash_op ops[512];
    uint64_t done_at[512];
    int order[512];
    int ndone;
} harness;

static void on_done(csd_flash_op *op, uint64_t t) {
    harness *h = op->arg;
    int i = (int)(op - h->ops);
    CHECK(h->done_at[i] == 0);
    CHECK_EQ_U64(t, csd_sim_now(h->sim));      /* done runs at its own time */
    h->done_at[i] = t;
    h->order[h->ndone++] = i;
}

static void h_init(harness *h, const char *preset, const csd_chip_sched_ops *policy) {
    memset(h, 0, sizeof *h);
    CHECK(csd_params_preset(&h->p, preset) == 0);
    h->p.blocks_per_plane = 64;
    h->sim = csd_sim_create();
    CHECK(h->sim);
    char err[256];
    int rc = policy ? csd_flash_create_with(&h->f, &h->p, h->sim, policy, csd_fcmd_find("fifo"), err, sizeof err)
                    : csd_flash_create(&h->f, &h->p, h->sim, err, sizeof err);
    CHECK_EQ_INT(rc, 0);
}

static void h_free(harness *h) {
    csd_flash_destroy(h->f);
    csd_sim_destroy(h->sim);
}

/* ppn of page `page` of block 0 on chip chip_global (dies = planes = 1 in both presets) */
static uint64_t ppn_on(const harness *h, uint32_t chip_global, uint32_t page) {
    csd_addr a = { .channel = chip_global / h->p.chips_per_channel,
                   .chip = chip_global % h->p.chips_per_channel, .page = page };
    return csd_ppn_encode(&h->p, &a);
}

static void submit(harness *h, int i, uint8_t kind, uint64_t ppn) {
    h->ops[i] = (csd_flash_op){ .kind = kind, .ppn = ppn, .done = on_done, .arg = h };
    csd_flash_submit(h->f, &h->ops[i]);
}

static void run(harness *h) { while (csd_sim_step(h->sim)) {} }

static void test_geometry(void) {
    csd_params p;
    CHECK(csd_params_preset(&p, "smartssd-paper") == 0);
    p.dies_per_chip = 2;
    p.planes_per_die = 2;
    p.blocks_per_plane = 10;
    CHECK_EQ_U64(csd_units(&p), 16 * 4 * 2 * 2);
    /* channel 3, chip 2, die 1, plane 0, block 7, page 5:
     * chip_global = 3*4+2 = 14, unit = (14*2+1)*2+0 = 58, ppn = (58*10+7)*128+5 = 75141 */
    csd_addr a = { .channel = 3, .chip = 2, .die = 1, .plane = 0, .block = 7, .page = 5 };
    CHECK_EQ_U64(csd_ppn_encode(&p, &a), 75141);
    csd_addr b;
    csd_ppn_decode(&p, 75141, &b);
    CHECK_EQ_INT(b.channel, 3); CHECK_EQ_INT(b.chip, 2); CHECK_EQ_INT(b.die, 1);
    CHECK_EQ_INT(b.plane, 0); CHECK_EQ_INT(b.block, 7); CHECK_EQ_INT(b.page, 5);
    CHECK_EQ_INT(b.chip_global, 14);
    uint64_t total = (uint64_t)csd_units(&p) * p.blocks_per_plane * p.pages_per_block;
    for (uint64_t ppn = 0; ppn < total; ppn += 97) {
        csd_ppn_decode(&p, ppn, &b);
        CHECK(b.channel < p.channels && b.chip < p.chips_per_channel && b.die < 2 && b.plane < 2);
        CHECK_EQ_INT(b.chip_global, b.channel * p.chips_per_channel + b.chip);
        CHECK_EQ_U64(csd_ppn_encode(&p, &b), ppn);
    }
}

static void test_create_errors(void) {
    csd_params p;
    CHECK(csd_params_preset(&p, "tiny") == 0);
    csd_sim *s = csd_sim_create();
    csd_flash *f = (csd_flash *)&p;
    char err[256];
    CHECK_EQ_INT(csd_flash_create(&f, &p, s, err, sizeof err), -EINVAL);      /* blocks_per_plane not derived */
    CHECK(f == NULL);
    p.blocks_per_plane = 8;
    snprintf(p.chip_scheduler, sizeof p.chip_scheduler, "nope");
    CHECK_EQ_INT(csd_flash_create(&f, &p, s, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "chip_scheduler 'nope'");
    CHECK(csd_chip_sched_find("nope") == NULL);
    CHECK(csd_chip_sched_find("fcfs") == csd_chip_sched_at(0));
    snprintf(p.chip_scheduler, sizeof p.chip_scheduler, "fcfs");
    snprintf(p.flash_scheduler, sizeof p.flash_scheduler, "nope");
    CHECK_EQ_INT(csd_flash_create(&f, &p, s, err, sizeof err), -EINVAL);
    CHECK_CONTAINS(err, "flash_scheduler 'nope'");
    snprintf(p.flash_scheduler, sizeof p.flash_scheduler, "fifo");
    CHECK_EQ_INT(csd_flash_create(&f, &p, s, err, sizeof err), 0);
    CHECK_EQ_U64(csd_flash_page_xfer_ns(f), 10000);
    csd_flash_destroy(f);
    csd_sim_destroy(s);
}

static void test_single_ops(void) {
    harness h;
    h_init(&h, "smartssd-paper", NULL);
    CHECK_EQ_U64(csd_flash_page_xfer_ns(h.f), P_XFER);
    submit(&h, 0, CSD_FLASH_READ, ppn_on(&h, 5, 3));
    run(&h);
    CHECK_EQ_U64(h.done_at[0], 214933);                  /* 25000 + 174763 + 15170 */
    CHECK_EQ_U64(h.ops[0].submit_ns, 0);
    h_free(&h);

    h_init(&h, "smartssd-paper", NULL);
    submit(&h, 0, CSD_FLASH_PROGRAM, ppn_on(&h, 5, 3));
    run(&h);
    CHECK_EQ_U64(h.done_at[0], 389933);                  /* 15170 + 174763 + 200000 */
    h_free(&h);

    h_init(&h, "smartssd-paper", NULL);
    submit(&h, 0, CSD_FLASH_ERASE, ppn_on(&h, 5, 0));
    run(&h);
    CHECK_EQ_U64(h.done_at[0], 1500000);
    csd_flash_stats st;
    csd_flash_stats_get(h.f, &st);
    CHECK_EQ_U64(st.erases, 1);
    CHECK_EQ_U64(st.reads + st.programs, 0);
    CHECK_EQ_U64(st.chip_busy_ns, 1500000);
    h_free(&h);
}

static void test_contention(void) {
    harness h;
    /* two reads on one chip: the second starts its array read when the first leaves the chip */
    h_init(&h, "smartssd-paper", NULL);
    submit(&h, 0, CSD_FLASH_READ, ppn_on(&h, 0, 0));
    submit(&h, 1, CSD_FLASH_READ, ppn_on(&h, 0, 1));
    run(&h);
    CHECK_EQ_U64(h.done_at[0], 214933);
    CHECK_EQ_U64(h.done_at[1], 199763 + P_READ + P_XFER + P_FW);   /* 414696 */
    CHECK_EQ_U64(h.done_at[1], 414696);
    h_free(&h);

    /* two chips of channel 0: array reads overlap, transfers serialise on the channel */
    h_init(&h, "smartssd-paper", NULL);
    submit(&h, 0, CSD_FLASH_READ, ppn_on(&h, 1, 0));
    submit(&h, 1, CSD_FLASH_READ, ppn_on(&h, 0, 0));
    run(&h);
    /* both wait for the channel at 25000: the tie goes to the lower chip (chip 0 = op 1) */
    CHECK_EQ_U64(h.done_at[1], 214933);
    CHECK_EQ_U64(h.done_at[0], 25000 + 2 * P_XFER + P_FW);         /* 389696 */
    CHECK_EQ_U64(h.done_at[0], 389696);
    h_free(&h);

    /* two chips on different channels: fully parallel except the firmware (second page waits 15170) */
    h_init(&h, "smartssd-paper", NULL);
    submit(&h, 0, CSD_FLASH_READ, ppn_on(&h, 0, 0));
    submit(&h, 1, CSD_FLASH_READ, ppn_on(&h, 4, 0));
    run(&h);
    uint64_t a = h.done_at[0], b = h.done_at[1];
    CHECK_EQ_U64(a < b ? a : b, 214933);
    CHECK_EQ_U64(a < b ? b : a, 214933 + P_FW);
    h_free(&h);

    /* a read and a program on one chip: the program's firmware step runs while the chip reads;
     * it then queues behind the read and transfers when the read's transfer ends */
    h_init(&h, "smartssd-paper", NULL);
    submit(&h, 0, CSD_FLASH_READ, ppn_on(&h, 2, 0));
    submit(&h, 1, CSD_FLASH_PROGRAM, ppn_on(&h, 2, 1));
    run(&h);
    CHECK_EQ_U64(h.done_at[0], 214933);
    CHECK_EQ_U64(h.done_at[1], 199763 + P_XFER + P_PROG);          /* 574526 */
    CHECK_EQ_U64(h.done_at[1], 574526);
    h_free(&h);
}

/* Page k on unit k mod units, all submitted at 0: see docs/TIMING-MODEL.md for the schedule. */
static void stripe(harness *h, int npages) {
    uint32_t units = csd_units(&h->p);
    for (int k = 0; k < npages; k++)
        submit(h, k, CSD_FLASH_READ, ppn_on(h, (uint32_t)k % units, (uint32_t)(k / units)));
    run(h);
    CHECK_EQ_INT(h->ndone, npages);
}

static void test_stripe_paper(void) {
    harness h;
    h_init(&h, "smartssd-paper", NULL);
    stripe(&h, 128);
    /* Channels deliver 16 pages every 174763 ns from 199763; the firmware needs 16 * 15170 = 242720
     * ns per burst, so it never idles after 199763 and the i-th completion is at 199763 + i*15170. */
    for (int i = 0; i < 128; i++)
        CHECK_EQ_U64(h.done_at[h.order[i]], 199763 + (uint64_t)(i + 1) * P_FW);
    CHECK_EQ_U64(h.done_at[h.order[127]], 2141523);
    csd_flash_stats st;
    csd_flash_stats_get(h.f, &st);
    CHECK_EQ_U64(st.reads, 128);
    CHECK_EQ_U64(st.bytes_read, 128 * 8192);
    CHECK_EQ_U64(st.channel_busy_ns, 128 * (uint64_t)P_XFER);
    CHECK_EQ_U64(st.fw_busy_ns, 128 * (uint64_t)P_FW);
    /* Chip c (0..3 on its channel) holds its page register until its transfer ends, then starts
     * the second read at once: busy without a gap from 0 until its second transfer (channel slot
     * c+4) ends at 25000 + (c+5)*174763. */
    uint64_t chip_busy = 0;
    for (uint64_t c = 0; c < 4; c++) chip_busy += 25000 + (c + 5) * P_XFER;
    CHECK_EQ_U64(st.chip_busy_ns, 16 * chip_busy);
    h_free(&h);
}

static void test_stripe_tiny(void) {
    harness h;
    h_init(&h, "tiny", NULL);
    CHECK_EQ_U64(csd_flash_page_xfer_ns(h.f), 10000);
    submit(&h, 0, CSD_FLASH_READ, ppn_on(&h, 3, 0));
    run(&h);
    CHECK_EQ_U64(h.done_at[0], 21000);                   /* 10000 + 10000 + 1000 */
    h_free(&h);

    /* 16 pages (4 per chip) and 128 pages (32 per chip): 2 channels x 2 chips; each channel is
     * busy from 10000 without a gap (a chip's next array read ends exactly when the other chip's
     * transfer ends); both channels finish a page at T = 20000, 30000, ... and the firmware takes
     * them at T+1000 and T+2000. The channel, not the firmware, is the bottleneck here. */
    for (int n = 16; n <= 128; n *= 8) {
        h_init(&h, "tiny", NULL);
        stripe(&h, n);
        for (int i = 0; i < n; i++) {
            uint64_t T = 20000 + (uint64_t)(i / 2) * 10000;
            CHECK_EQ_U64(h.done_at[h.order[i]], T + 1000 * (uint64_t)(i % 2 + 1));
        }
        /* within a channel pages leave in page order: chip 0's page k, chip 1's page k+1, ... */
        for (int k = 0; k + 4 < n; k++) CHECK(h.done_at[k] < h.done_at[k + 4]);
        CHECK_EQ_U64(h.done_at[h.order[n - 1]], n == 16 ? 92000 : 652000);
        if (n == 16) h_free(&h);
    }
    h_free(&h);
}

/* LIFO: the most recently queued op is served first. */
typedef struct lifo { csd_flash_op **top; } lifo;
static int lifo_init(void **state, const csd_params *p, uint32_t chips) {
    (void)p;
    lifo *l = calloc(1, sizeof *l);
    l->top = calloc(chips, sizeof *l->top);
    *state = l;
    return 0;
}
static void lifo_enqueue(void *state, uint32_t chip, csd_flash_op *op, uint64_t now) {
    (void)now;
    lifo *l = state;
    op->next = l->top[chip];
    l->top[chip] = op;
}
static csd_flash_op *lifo_next(void *state, uint32_t chip, uint64_t now) {
    (void)now;
    lifo *l = state;
    csd_flash_op *op = l->top[chip];
    if (op) l->top[chip] = op->next;
    return op;
}
static void lifo_destroy(void *state) {
    lifo *l = state;
    free(l->top);
    free(l);
}
static const csd_chip_sched_ops lifo_ops = { .name = "lifo", .init = lifo_init, .enqueue = lifo_enqueue,
                                             .next = lifo_next, .destroy = lifo_destroy };

static void test_custom_policy(void) {
    uint64_t t1 = 214933, t2 = 414696, t3 = 414696 + P_READ + P_XFER;   /* 614459 */
    harness h;
    h_init(&h, "smartssd-paper", NULL);
    for (int i = 0; i < 3; i++) submit(&h, i, CSD_FLASH_READ, ppn_on(&h, 7, (uint32_t)i));
    run(&h);
    CHECK_EQ_U64(h.done_at[0], t1);
    CHECK_EQ_U64(h.done_at[1], t2);
    CHECK_EQ_U64(h.done_at[2], t3);
    CHECK_EQ_U64(h.ops[2].seq, h.ops[0].seq + 2);
    h_free(&h);

    /* the chip decides in an event after all three arrived, so LIFO serves 2, 1, 0 */
    h_init(&h, "smartssd-paper", &lifo_ops);
    for (int i = 0; i < 3; i++) submit(&h, i, CSD_FLASH_READ, ppn_on(&h, 7, (uint32_t)i));
    run(&h);
    CHECK_EQ_U64(h.done_at[2], t1);
    CHECK_EQ_U64(h.done_at[1], t2);
    CHECK_EQ_U64(h.done_at[0], t3);
    h_free(&h);
}

int main(void) {
    test_geometry();
    test_create_errors();
    test_single_ops();
    test_contention();
    test_stripe_paper();
    test_stripe_tiny();
    test_custom_policy();
    TEST_OK("test_flash");
}
