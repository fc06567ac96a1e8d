/* Chip-queue policy "slacker" (Elyasi et al., "Exploiting intra-request slack to improve SSD
 * performance", ASPLOS'17; a baseline of the 2PM paper, IV-C and V-A), over paq's order (reads first,
 * then the oldest): a request's sub-requests on different chips finish at different times and only
 * the last one counts, so an arriving sub-request also moves ahead of queued ones whose slack (how much
 * later they could finish without delaying their own request) exceeds its service time, and each one
 * it passes loses that much slack. Slack is computed when a request's sub-requests arrive together:
 * the latest expected end among their chips minus the sub-request's own chip's. */
#include "flash/chip_queue.h"

static void place(cq *q, uint32_t chip, csd_flash_op *op, uint64_t now) {
    cq_insert(q, chip, q->c[chip].n, op);
    csd_flash_op **v = q->c[chip].q;
    int64_t d = (int64_t)cq_est(q, op);
    int rd = op->kind == CSD_FLASH_READ;
    for (size_t i = q->c[chip].n - 1; i > 0; i--) {
        csd_flash_op *b = v[i - 1];
        if (!((rd && b->kind != CSD_FLASH_READ) || CQ_SLACK_NS(b) > d)) break;
        v[i - 1] = v[i];
        v[i] = b;
        CQ_SLACK_NS(b) = CQ_SLACK_NS(b) > d ? CQ_SLACK_NS(b) - d : 0;
        CQ_PASSED(b)++;
    }
}

static int init(void **state, const csd_params *p, uint32_t chips) {
    cq_hooks h = { .place = place, .slack = 1, .read_first = 1 };
    return cq_init(state, p, chips, &h, NULL);
}

const csd_chip_sched_ops csd_chip_sched_slacker = {
    .name = "slacker", .init = init, .enqueue = cq_enqueue, .next = cq_next, .destroy = cq_destroy,
    .attach = cq_attach,
};
